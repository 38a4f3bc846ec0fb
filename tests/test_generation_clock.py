"""Generation that no clock can change: counts decide which candidate passes, and the time
limit only stops generation loudly.

Generation runs under clocks (`argc.compiler.guard.clock`) that make time pass at once: from
some reading on (every deadline then running is spent), or at every reading (every deadline is
spent a few readings after it starts). Each run must give the bytes of a run under the real
clock or GenerationStopped naming the instance and the time limit, never another instance: a
generator that rejected a candidate on the time limit would draw the next one instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import clingo
import pytest

from argc.compiler import LimitExceeded, Limits, MachineLimitExceeded, TimeLimitExceeded, solve
from argc.compiler.control import Session
from argc.compiler.guard import clock
from argc.dsl.ir import ORDERINGS, Ordering
from argc.dsl.parser import parse_theory
from argc.tasks import generate, suite_tasks
from argc.tasks.framework import GENERATION_LIMITS, GenerationStopped, instance_id
from argc.tasks.kg.families import FAMILIES, generate_instance

#: Seconds a jumping clock leaps: past every time limit.
LEAP = 10 * GENERATION_LIMITS.seconds
#: Readings at which a run's clock leaps, spread over those of a run under the real clock.
JUMPS = 6
BASE = 1_000_000_000


class Clock:
    """The monotonic clock, counting its readings; from the `leap_at`-th reading on it runs
    `leap` seconds ahead, and every reading adds `step` seconds more."""

    def __init__(self, leap_at: int | None = None, leap: float = LEAP, step: float = 0.0) -> None:
        self.leap_at = leap_at
        self.leap = leap
        self.step = step
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        ahead = self.leap if self.leap_at is not None and self.readings >= self.leap_at else 0.0
        return time.monotonic() + ahead + self.readings * self.step


def _outcome(make: Callable[[], str], source: Clock) -> str | GenerationStopped:
    with clock(source):
        try:
            return make()
        except GenerationStopped as stopped:
            return stopped


def _same_or_stopped(found: str | GenerationStopped, reference: str, name: str) -> bool:
    """Whether `found` is the reference's bytes (False) or a loud stop naming the instance
    and the time limit (True); fails on anything else."""
    if isinstance(found, GenerationStopped):
        message = str(found)
        assert name in message and "time limit" in message, message
        assert "not a count limit" in message, message
        return True
    assert found == reference, f"{name}: another instance under a leaping clock"
    return False


def check_leaps(make: Callable[[], str], name: str) -> int:
    """Run `make` under the real clock, then with the clock leaping at readings spread over
    the run; every run gives the same bytes or stops loudly. Returns how many stopped."""
    counting = Clock()
    reference = _outcome(make, counting)
    assert isinstance(reference, str), reference
    assert counting.readings > 0, f"{name}: generation never reads the limits' clock"
    stopped = 0
    for k in range(1, JUMPS + 1):
        leap_at = max(1, counting.readings * k // (JUMPS + 1))
        stopped += _same_or_stopped(_outcome(make, Clock(leap_at)), reference, name)
    stopped += _same_or_stopped(_outcome(make, Clock(step=LEAP / 4)), reference, name)
    return stopped


def _arggym(task: str, level: int, ordering: Ordering, seed: int) -> tuple[Callable[[], str], str]:
    return (
        lambda: generate(task, level, ordering, seed).to_json(),
        instance_id(task, level, ordering, seed),
    )


def _kg(family: str, depth: int, complexity: int, seed: int) -> tuple[Callable[[], str], str]:
    return (
        lambda: json.dumps(
            generate_instance(family, depth, complexity, seed).row(), sort_keys=True
        ),
        f"{family} D{depth} T{complexity} seed {seed}",
    )


WEAKEST_DEMOCRATIC = Ordering("weakest-link", "democratic")
QUICK = [
    # The row an audit on a loaded machine once regenerated differently.
    ("attack_defense", 15, WEAKEST_DEMOCRATIC, BASE + 1),
    ("defence", 14, Ordering("last-link", "elitist"), BASE),
    ("semantics_query", 12, WEAKEST_DEMOCRATIC, 3),
    ("norm_answer", 3, WEAKEST_DEMOCRATIC, 5),
]


@pytest.mark.parametrize(("task", "level", "ordering", "seed"), QUICK)
def test_a_leaping_clock_gives_the_same_instance_or_stops(
    task: str, level: int, ordering: Ordering, seed: int
) -> None:
    make, name = _arggym(task, level, ordering, seed)
    assert check_leaps(make, name) >= 1  # the clock is read where it can stop generation


def test_a_kg_instance_under_a_leaping_clock() -> None:
    check_leaps(*_kg("abductive", 6, 3, 11))


def test_a_clock_that_says_time_is_up_stops_generation_naming_the_instance() -> None:
    with clock(Clock(leap_at=1, step=LEAP)), pytest.raises(GenerationStopped) as stopped:
        generate("attack", 15, WEAKEST_DEMOCRATIC, BASE)
    assert instance_id("attack", 15, WEAKEST_DEMOCRATIC, BASE) in str(stopped.value)
    assert isinstance(stopped.value.__cause__, TimeLimitExceeded)


# The limits tell which limit fired -----------------------------------------------------------


def test_count_limits_are_not_machine_limits() -> None:
    theory = parse_theory("[premise: a]\n[defeasible r1: a => b]\n[defeasible r2: b => c]")
    with pytest.raises(LimitExceeded) as exceeded:
        solve(theory, limits=Limits(arguments=2))
    assert not isinstance(exceeded.value, MachineLimitExceeded)
    with clock(Clock(leap_at=1, step=LEAP)), pytest.raises(TimeLimitExceeded):
        solve(theory, limits=Limits(seconds=1.0))


#: Eight pigeons, seven holes: thousands of conflicts to refute.
PIGEONS = """
pigeon(1..8). hole(1..7).
1 { in(P, H) : hole(H) } 1 :- pigeon(P).
:- in(P, H), in(Q, H), P < Q.
"""


def _pigeon_models(limits: Limits) -> list[frozenset[clingo.Symbol]]:
    session = Session(limits)
    session.ground([("base", PIGEONS)])
    return session.models(lambda model: frozenset(model.symbols(shown=True)))


def test_a_search_stops_at_its_conflict_limit_as_a_count() -> None:
    assert _pigeon_models(Limits(conflicts=1_000_000)) == []
    with pytest.raises(LimitExceeded, match="more than 50 conflicts") as exceeded:
        _pigeon_models(Limits(conflicts=50))
    assert not isinstance(exceeded.value, MachineLimitExceeded)


def test_a_wait_that_returns_early_is_not_the_time_limit(monkeypatch) -> None:
    """clingo's timed wait returns after any wake-up of its thread, result or not: only the
    clock says whether the time is up."""
    real = clingo.SolveHandle.wait
    calls: list[float | None] = []

    def early(handle: clingo.SolveHandle, timeout: float | None = None) -> bool:
        calls.append(timeout)
        return False if len(calls) == 1 else real(handle, timeout)

    monkeypatch.setattr(clingo.SolveHandle, "wait", early)
    assert _pigeon_models(Limits(seconds=60.0)) == []
    assert len(calls) >= 2


# Every family at the highest levels (slow) ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("task", suite_tasks() + suite_tasks("norms"))
def test_every_task_at_the_highest_levels_under_leaping_clocks(task: str) -> None:
    for index, ordering in enumerate(ORDERINGS):
        level = 15 - index % 2
        check_leaps(*_arggym(task, level, ordering, BASE + index))


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_every_kg_family_under_leaping_clocks(family: str) -> None:
    for depth, complexity in ((2, 1), (6, 3), (10, 6)):
        check_leaps(*_kg(family, depth, complexity, 41))
