""".kg limits that bound memory at the defaults: a world past the solver's state bound stops
before grounding (solve, batches, abduction, `argc check`, `argc kg solve`), a world at the
bound passes the size check; the steps of grounding (object states, every hop of every
rule's paths) stop at MAX_STEPS; a text of more than MAX_STATEMENTS statements is refused
at its line and column before it is parsed."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from argc.cli import main
from argc.compiler.control import Limits, Session
from argc.compiler.kg.abduce import abduce, abduce_many
from argc.compiler.kg.solve import (
    MAX_STATES,
    MAX_STEPS,
    KgModel,
    bounded,
    check_states,
    ground_kg,
    solve_kg,
    solve_kg_many,
)
from argc.dsl.errors import InputError, LimitExceeded
from argc.dsl.kg import parse_kg
from argc.dsl.kg import parser as kg_parser
from argc.dsl.kg.parser import MAX_STATEMENTS, check_statements

TOO_LARGE = r"too large to solve|takes more than"


def chain_text(objects: int, events: int, persons: int = 50) -> str:
    """A valid world: every object owned at first, then a long chain of gifts and sales
    handing each object on in turn."""
    names = [f"p{i}" for i in range(persons)]
    lines = [f"person {name}: {('female', 'male')[i % 2]}." for i, name in enumerate(names)]
    lines += [f"object o{j}.\nown(p{j % persons}, o{j})." for j in range(objects)]
    holder = {j: j % persons for j in range(objects)}
    for time in range(events):
        thing = time % objects
        giver, taker = holder[thing], (holder[thing] + 1) % persons
        lines.append(f"{('sale', 'gift')[time % 2]}(p{giver}, p{taker}, o{thing}).")
        holder[thing] = taker
    return "\n".join(lines) + "\n"


@pytest.fixture
def no_grounding(monkeypatch):
    """Grounding fails the test: a world refused by its size never reaches it."""

    def ground(self, parts):
        raise AssertionError("grounded")

    monkeypatch.setattr(Session, "ground", ground)


@pytest.fixture(scope="module")
def wide() -> str:
    """2,000 objects over 400 events: 802,001 object states and times."""
    return chain_text(2_000, 400)


# Worlds past the state bound stop before grounding -------------------------------------------


@pytest.mark.parametrize("command", [["check"], ["check", "--json"], ["kg", "solve"]])
def test_the_cli_refuses_a_world_past_the_bound_before_grounding(
    command, wide, tmp_path, capsys, no_grounding
):
    path = tmp_path / "wide.kg"
    path.write_text(wide)
    assert main([*command, str(path)]) == 2
    captured = capsys.readouterr()
    assert "the world is too large to solve: 2,000 objects at 401 times" in captured.err
    assert "the limit is 200,000" in captured.err


def test_batches_and_abduction_stop_before_grounding(wide, no_grounding):
    world = parse_kg(wide)
    found = solve_kg_many([world, world])
    assert all(isinstance(item, LimitExceeded) for item in found)
    masked = world.events[0]
    with pytest.raises(LimitExceeded, match=TOO_LARGE):
        abduce(world, "o0", masked)
    problems = [(world, "o0", masked), (world, "o1", world.events[1])]
    assert all(isinstance(item, LimitExceeded) for item in abduce_many(problems))


def test_a_world_past_the_bound_fails_alone_in_a_batch(wide):
    small = parse_kg(chain_text(2, 6))
    found = solve_kg_many([small, parse_kg(wide), small])
    assert [type(item) for item in found] == [KgModel, LimitExceeded, KgModel]


def test_a_world_at_exactly_the_bound_passes_the_size_check(monkeypatch):
    # (4 + 1) objects and times x 40,000 times = MAX_STATES.
    check_states(4, 40_000, bounded(None))
    with pytest.raises(LimitExceeded, match="200,005 object states and times"):
        check_states(4, 40_001, bounded(None))
    assert MAX_STATES == 5 * 40_000
    world = parse_kg(chain_text(4, 39_999))
    longer = replace(world, events=(*world.events, world.events[0]))  # unchecked
    reached = []

    def ground(self, parts):
        reached.append(True)
        raise AssertionError("grounded")

    monkeypatch.setattr(Session, "ground", ground)
    with pytest.raises(AssertionError, match="grounded"):
        ground_kg(world)
    assert reached
    with pytest.raises(LimitExceeded, match="200,005 object states and times"):
        ground_kg(longer)


# The steps of grounding ----------------------------------------------------------------------


def many_rules(rules: int, pairs: int) -> str:
    """`pairs` friendships and `rules` rules whose paths start with `friend` and go nowhere
    after it: every step is a path's first hop."""
    persons = "".join(f"person p{i}: male.\n" for i in range(2 * pairs))
    facts = "".join(f"friend(p{2 * i}, p{2 * i + 1}).\n" for i in range(pairs))
    return persons + facts + "".join(f"rule r{k}: friend, husband.\n" for k in range(rules))


def test_every_hop_of_a_path_counts_the_first_too():
    world = parse_kg(many_rules(rules=50, pairs=100))  # 50 paths x 200 closed friendships
    solve_kg(world, max_steps=10_001)
    with pytest.raises(LimitExceeded, match="more than 9,999"):
        solve_kg(world, max_steps=9_999)


def test_the_steps_are_the_smaller_of_max_steps_and_the_instantiations():
    assert bounded(None).instantiations == MAX_STEPS < Limits().instantiations
    assert bounded(Limits(instantiations=5_000)).instantiations == 5_000
    assert bounded(Limits(), max_steps=3_000_000).instantiations == Limits().instantiations
    world = parse_kg(many_rules(rules=50, pairs=100))
    with pytest.raises(LimitExceeded, match="more than 5,000"):
        solve_kg(world, Limits(instantiations=5_000), max_steps=3_000_000)
    found = solve_kg_many([world], max_steps=5_000)
    assert isinstance(found[0], LimitExceeded)


# Statements ----------------------------------------------------------------------------------

PRELUDE = "person a: female.\nperson b: male.\nobject o. % a comment. With dots.\nown(a, o).\n"


def test_statements_past_the_limit_are_refused_at_their_place_before_parsing(monkeypatch):
    def parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(kg_parser, "parse_statements", parse)
    # Statements 1-4, then 5 to MAX_STATEMENTS - 1 a line each, then two on the last line.
    text = PRELUDE + "son(b, a).\n" * (MAX_STATEMENTS - 5) + "son(b, a). son(b, a).\n"
    with pytest.raises(InputError) as refused:
        parse_kg(text, "big.kg")
    error = refused.value
    assert (error.filename, error.line, error.column) == ("big.kg", MAX_STATEMENTS, 21)
    assert f"more than {MAX_STATEMENTS:,} statements" in str(error)


def test_comments_do_not_count_and_the_limit_can_be_raised():
    text = PRELUDE + "son(b, a). % the fifth. Or the sixth?\nson(b, a).\n"
    check_statements(text, "x.kg", limit=6)
    with pytest.raises(InputError, match="more than 5 statements") as refused:
        check_statements(text, "x.kg", limit=5)
    assert (refused.value.line, refused.value.column) == (6, 10)
    assert parse_kg(text, max_statements=6).facts
    with pytest.raises(InputError, match="more than 5"):
        parse_kg(text, max_statements=5)


def test_argc_check_refuses_too_many_statements_with_a_location(tmp_path, capsys):
    path = tmp_path / "many.kg"
    path.write_text(PRELUDE + "son(b, a).\n" * (MAX_STATEMENTS - 3))
    assert main(["check", str(path)]) == 2
    assert f"many.kg:{MAX_STATEMENTS + 1}:10: more than" in capsys.readouterr().err


# Memory ------------------------------------------------------------------------------------


#: Runs `argc` with the arguments given and prints its exit code and its peak resident memory
#: (KiB): a fresh parent, so that no other child's peak counts.
MEASURE = """import resource, subprocess, sys
run = subprocess.run([sys.executable, "-m", "argc.cli", *sys.argv[1:]], stdout=subprocess.DEVNULL)
print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_rss_mb(arguments: list[str]) -> tuple[int, float, str]:
    """The exit code, the peak resident memory (MB) and stderr of `argc` in a child."""
    run = subprocess.run(
        [sys.executable, "-c", MEASURE, *arguments], capture_output=True, text=True, check=True
    )
    code, peak = map(int, run.stdout.split())
    return code, peak / 1024, run.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "message"),
    [
        (lambda: chain_text(2_000, 40_000), "takes more than 1,000,000"),
        (lambda: many_rules(rules=500, pairs=10_000), "takes more than 1,000,000"),
    ],
    ids=["2000-objects-40000-events", "500-rules-over-10000-friendships"],
)
def test_adversarial_worlds_stop_under_1_gb(text, message, tmp_path: Path):
    path = tmp_path / "world.kg"
    path.write_text(text())
    for command in (["check"], ["check", "--json"], ["kg", "solve"]):
        code, peak, err = _peak_rss_mb([*command, str(path)])
        assert code == 2 and message in err, err
        assert peak < 1024, peak
