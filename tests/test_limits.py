"""Limits that hold against hostile inputs: grounding stops at the instantiation and attack
bounds and at the deadline, reading and parsing count toward the time limit, the CLI exits 2
with one line, and untrusted answers score 0 with a reason, promptly, in bounded memory."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from margins import GRACE
from random_theories import random_theory

from argc.compiler import LimitExceeded, Limits, solve
from argc.compiler.solve import _solve
from argc.dsl.errors import InputError
from argc.dsl.ir import Ordering
from argc.dsl.parser import parse_intervention, parse_theory, read_text
from argc.tasks import Instance, generate
from argc.tasks.framework import SCORING_LIMITS
from argc.tasks.isolation import IsolatedScorer, Isolation

# Hostile theories -------------------------------------------------------------------------


def chained_rules(sources: tuple[str, str], names: str = "r", goal: str = "z") -> list[str]:
    """Rules whose antecedents are all the previous heads: h1 has two arguments, h2 two, h3
    four, h4 sixteen, h5 256, and the last rules multiply them into 65,536 partial
    instantiations each, waiting for an antecedent no argument concludes."""
    first, second = sources
    return [
        f"[defeasible {names}1: {first} => h1]",
        f"[defeasible {names}2: {second} => h1]",
        f"[defeasible {names}3: h1 => h2]",
        f"[defeasible {names}4: h1 AND h2 => h3]",
        f"[defeasible {names}5: h1 AND h2 AND h3 => h4]",
        f"[defeasible {names}6: h1 AND h2 AND h3 AND h4 => h5]",
        f"[defeasible {names}7: h1 AND h2 AND h3 AND h4 AND h5 AND nope => h6]",
        f"[defeasible {names}8: h5 AND h4 AND h3 AND h2 AND h1 AND nope2 => {goal}]",
    ]


def wide_theory(width: int = 20) -> str:
    """42 lines: `width` literals with two arguments each, and one rule over all of them plus
    an antecedent nothing concludes: 2^width partial instantiations, no complete one."""
    lines = ["[axiom: z]"]
    for i in range(width):
        lines += [f"[premise: q{i}]", f"[defeasible r{i}: z => q{i}]"]
    body = " AND ".join(f"q{i}" for i in range(width))
    lines.append(f"[defeasible big: {body} AND nope => goal]")
    return "\n".join(lines) + "\n"


def rebut_storm(levels: int = 11) -> str:
    """26 lines: x_levels has 2^levels arguments, each concluding p once more and -p once
    more, so p and -p rebut each other 2 · 4^levels times."""
    lines = ["[premise: s]", "[premise: t]", "[defeasible a1: s => x1]", "[defeasible b1: t => x1]"]
    for i in range(2, levels + 1):
        lines += [f"[defeasible a{i}: x{i - 1} => x{i}]", f"[defeasible b{i}: x{i - 1} => x{i}]"]
    lines += [f"[defeasible up: x{levels} => p]", f"[defeasible down: x{levels} => -p]"]
    return "\n".join(lines) + "\n"


def test_hostile_theories_have_the_advertised_sizes():
    assert len(wide_theory().splitlines()) == 42
    assert len(rebut_storm().splitlines()) == 26
    small = _solve(parse_theory(rebut_storm(3)), Ordering(), "grounded", None)[0]
    # x3 has 8 arguments, so do p and -p: 64 rebuts each way, each on the attacked argument
    assert small.budget.attacks == 2 * 64


# The engine's limits ------------------------------------------------------------------------


def test_partial_instantiations_stop_at_their_limit():
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="more than 10,000 partial rule instantiations"):
        solve(parse_theory(wide_theory()), limits=Limits(instantiations=10_000))
    assert time.monotonic() - started < GRACE


def test_attacks_stop_at_their_limit():
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="more than 50,000 attacks"):
        solve(parse_theory(rebut_storm(10)), limits=Limits(attacks=50_000))
    assert time.monotonic() - started < GRACE


@pytest.mark.parametrize(
    ("theory", "flag", "low", "message"),
    [
        (rebut_storm(6), "--max-attacks", "1000", "more than 1,000 attacks"),
        (wide_theory(), "--max-instantiations", "1000", "more than 1,000 partial rule"),
        (rebut_storm(6), "--max-sub-arguments", "100", "more than 100 sub-arguments"),
    ],
)
def test_each_counted_limit_has_a_flag_that_its_message_names(
    tmp_path, capsys, theory, flag, low, message
):
    from argc.cli import main

    path = tmp_path / "hostile.arg"
    path.write_text(theory, encoding="utf-8")
    assert main(["check", str(path), flag, low]) == 2
    err = capsys.readouterr().err
    assert message in err and f"({flag} N raises the limit)" in err
    assert err.count("\n") == 1


def test_a_raised_attack_limit_lets_the_theory_through(tmp_path, capsys):
    from argc.cli import main

    path = tmp_path / "storm.arg"
    path.write_text(rebut_storm(6), encoding="utf-8")
    assert main(["check", str(path), "--json", "--max-attacks", "1000"]) == 2
    capsys.readouterr()
    assert main(["check", str(path), "--json", "--max-attacks", "100000"]) == 0
    assert json.loads(capsys.readouterr().out)["statuses"]


def test_the_deadline_holds_inside_grounding():
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="time limit of 1 s"):
        solve(parse_theory(wide_theory()), limits=Limits(seconds=1, instantiations=10**9))
    assert time.monotonic() - started < 1 + GRACE


@pytest.mark.parametrize("seed", range(25))
def test_counted_attacks_are_the_attacks_on_sub_arguments(seed):
    """The attack count is exact, not a bound: it is the size of attack/4; and only actual
    arguments are numbered (and counted against the argument limit)."""
    theory = random_theory(seed)
    session, _reader, solution = _solve(theory, Ordering(), "grounded", None)
    session.ground([("query", "")])
    assert session.budget.attacks == len(session.atoms("attack", 4))
    assert len(session.budget.structures) == len(solution.arguments)


@pytest.mark.parametrize(
    "field, value",
    [
        ("seconds", math.nan),
        ("seconds", -1),
        ("seconds", math.inf),
        ("arguments", 0),
        ("instantiations", -5),
        ("attacks", 1.5),
    ],
)
def test_limits_refuse_nonsense(field, value):
    with pytest.raises(ValueError):
        Limits(**{field: value})


def test_parsing_counts_toward_the_deadline():
    text = "".join(f"[defeasible r{i}: a{i} AND b{i} => c{i}]\n" for i in range(20_000))
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="while parsing"):
        parse_theory(text, deadline=time.monotonic() + 0.05)
    assert time.monotonic() - started < GRACE


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.arg"
    with path.open("wb") as handle:
        handle.truncate(1 << 34)  # a sparse 16 GiB file: reading it would take minutes
    started = time.monotonic()
    with pytest.raises(InputError, match="file has 17,179,869,184 bytes"):
        read_text(path)
    assert time.monotonic() - started < GRACE


def test_an_endless_stream_is_cut_at_the_size_bound(tmp_path, monkeypatch):
    import argc.dsl.parser as parser_module

    monkeypatch.setattr(parser_module, "MAX_SOURCE_CHARS", 50_000)
    fifo = tmp_path / "stream"
    os.mkfifo(fifo)

    def feed() -> None:
        try:
            with fifo.open("wb") as handle:
                while True:
                    handle.write(b"%" * 4096)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(InputError, match="more than 200,000 bytes"):
        read_text(fifo)


# The command line ---------------------------------------------------------------------------


def run_argc(*arguments: str) -> tuple[int, str, str, float, float]:
    """Exit code, stdout, stderr, wall seconds and peak memory (MiB) of an `argc` process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "argc.cli", *arguments], stdout=out, stderr=err, text=True
        )
        _pid, status, usage = os.wait4(process.pid, 0)
        elapsed = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return process.returncode, out.read(), err.read(), elapsed, usage.ru_maxrss / 1024


@pytest.fixture()
def hostile_files(tmp_path: Path) -> dict[str, Path]:
    files = {"wide": wide_theory(), "storm": rebut_storm()}
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"{name}.arg"
        paths[name].write_text(text, encoding="utf-8")
    return paths


@pytest.mark.parametrize("name", ["wide", "storm"])
def test_check_stops_hostile_theories_at_the_limit(hostile_files, name):
    # The memory bound is argc's own cap (the child's maximum resident size as the kernel
    # reports it includes what the test process held when it forked).
    code, out, err, elapsed, _peak = run_argc(
        "check",
        str(hostile_files[name]),
        "--time-limit",
        "2",
        "--max-arguments",
        "100",
        "--max-memory",
        "1024",
    )
    assert code == 2
    assert "memory" not in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"{hostile_files[name]}: ")
    assert elapsed < 2 + GRACE  # the limit, then process start-up
    assert out == ""


def test_query_grounding_is_ended_by_the_watchdog(tmp_path):
    program = tmp_path / "endless.lp"
    program.write_text("x(X) :- X = 1..200000000.\n#show x/1.\n", encoding="utf-8")
    code, out, err, elapsed, _ = run_argc(
        "query", "examples/modgil_prakken_tweety.arg", str(program), "--time-limit", "1"
    )
    assert (code, out) == (2, "")
    assert "time limit of 1 s exceeded" in err
    assert elapsed < 1 + GRACE


def test_query_memory_cap(tmp_path):
    program = tmp_path / "big.lp"
    program.write_text("x(X, Y) :- X = 1..100000, Y = 1..100000.\n", encoding="utf-8")
    code, _out, err, _elapsed, _ = run_argc(
        "query", "examples/modgil_prakken_tweety.arg", str(program), "--max-memory", "200"
    )
    assert code == 2
    assert "out of memory" in err and "Traceback" not in err


def test_a_fifo_without_writer_ends_at_the_time_limit(tmp_path):
    fifo = tmp_path / "silent.arg"
    os.mkfifo(fifo)
    code, out, err, elapsed, _ = run_argc("check", str(fifo), "--time-limit", "1", "--json")
    assert code == 2
    assert json.loads(out)["error"] == f"{fifo}: time limit of 1 s exceeded"
    assert elapsed < 1 + GRACE


# Scoring untrusted answers ------------------------------------------------------------------


@pytest.fixture(scope="module")
def counter_argument() -> Instance:
    instance = generate("counter_argument", 13, Ordering(), 0)
    assert instance.target["min_directives"] >= 4  # so 8 directives are within 2m
    return instance


@pytest.fixture(scope="module")
def scorer():
    """Workers capped at 1 GiB: an answer that needed more would end as a memory error."""
    with IsolatedScorer(isolation=Isolation(memory_mb=1024)) as pool:
        yield pool


def test_chained_intervention_scores_zero_promptly(counter_argument, scorer):
    """The chained rules use their own heads as antecedents, which the intervention language
    forbids (antecedents must be present in the theory): the answer scores 0 at once. Applied
    regardless, the same theory stops at the scoring limits' instantiation bound."""
    theory = counter_argument.parsed_theory
    sources = tuple(str(literal) for literal in (*theory.axioms, *theory.premises)[:2])
    answer = "\n".join(chained_rules(sources, names="hx", goal="gx"))
    started = time.monotonic()
    result = scorer.score(counter_argument, f"<answer>{answer}</answer>")
    assert time.monotonic() - started < SCORING_LIMITS.seconds + GRACE
    assert (result.native, result.success) == (0.0, False)
    assert "not present in the theory" in result.reason
    exploded = theory.apply(parse_intervention(answer))
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="partial rule instantiations"):
        solve(exploded, ordering=counter_argument.strength, limits=SCORING_LIMITS)
    assert time.monotonic() - started < SCORING_LIMITS.seconds + GRACE


def explosive_formalization() -> list[str]:
    """An answer of 31 directives to a formalization: three copies of `chained_rules`, tens of
    thousands of partial instantiations each, padded with plain rules."""
    answer = ["[axiom: s]", "[axiom: t]", "[premise: u]", "[premise: v]"]
    for copy in range(3):
        answer += chained_rules(("s", "t") if copy % 2 else ("u", "v"), f"c{copy}r", f"g{copy}")
    return answer + [f"[defeasible pad{i}: s => w{i}]" for i in range(31 - len(answer))]


def test_explosive_formalization_scores_zero_promptly(scorer):
    instance = generate("formalization", 1, Ordering(), 0)
    answer = explosive_formalization()
    assert len(answer) == 31
    started = time.monotonic()
    result = scorer.score(instance, "<answer>" + "\n".join(answer) + "</answer>")
    assert time.monotonic() - started < SCORING_LIMITS.seconds + GRACE
    assert (result.native, result.success) == (0.0, False)
    assert "exceeds the scoring limits" in result.reason


def test_a_scorer_past_the_deadline_is_killed_and_replaced(misbehaving):
    path, instance = misbehaving
    with IsolatedScorer(isolation=Isolation(seconds=1.0), load=[str(path)]) as pool:
        started = time.monotonic()
        result = pool.score(instance, "<answer>loop</answer>")
        assert time.monotonic() - started < 1 + GRACE
        assert (result.native, result.success) == (0.0, False)
        assert "stopped after more than 1 s" in result.reason
        assert pool.score(instance, "<answer>fine</answer>").reason == "scored"


def test_a_scorer_past_the_memory_cap_scores_zero(misbehaving):
    path, instance = misbehaving
    with IsolatedScorer(isolation=Isolation(memory_mb=1024), load=[str(path)]) as pool:
        result = pool.score(instance, "<answer>hoard</answer>")
        assert (result.native, result.success) == (0.0, False)
        assert "MemoryError" in result.reason
        assert pool.score(instance, "<answer>fine</answer>").reason == "scored"


def test_a_worker_is_replaced_once_it_holds_half_its_memory_cap(misbehaving):
    path, instance = misbehaving
    with IsolatedScorer(isolation=Isolation(memory_mb=1024), load=[str(path)]) as pool:
        first = pool.score(instance, "<answer>pid</answer>").reason
        assert pool.score(instance, "<answer>pid</answer>").reason == first
        assert pool.score(instance, "<answer>keep</answer>").reason == "scored"
        second = pool.score(instance, "<answer>pid</answer>").reason
        assert second != first
        assert pool.score(instance, "<answer>pid</answer>").reason == second


def test_a_worker_is_replaced_after_its_count_of_answers(misbehaving):
    path, instance = misbehaving
    with IsolatedScorer(isolation=Isolation(recycle_after=2), load=[str(path)]) as pool:
        pids = [pool.score(instance, "<answer>pid</answer>").reason for _ in range(5)]
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]


def test_a_dying_worker_scores_zero_and_is_replaced(misbehaving):
    path, instance = misbehaving
    with IsolatedScorer(load=[str(path)]) as pool:
        result = pool.score(instance, "<answer>die</answer>")
        assert "died (exit code 3)" in result.reason
        assert pool.score(instance, "<answer>fine</answer>").reason == "scored"


def test_parallel_workers_score_in_order(counter_argument):
    answers = [counter_argument.reference, "", "[axiom: nothing]", counter_argument.reference]
    rng = random.Random(0)
    answers = [rng.choice(answers) for _ in range(12)]
    pairs = [(counter_argument, f"<answer>{answer}</answer>") for answer in answers]
    with IsolatedScorer(workers=2) as pool:
        scores = pool.score_many(pairs)
    from argc.tasks import score

    assert scores == [score(instance, response) for instance, response in pairs]


def test_a_forked_process_gets_workers_of_its_own(counter_argument):
    from argc.tasks import isolation

    reference = f"<answer>{counter_argument.reference}</answer>"
    assert isolation.score_pairs([(counter_argument, reference)])[0].success
    parent = isolation.default_scorer()
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the child scores through its own workers, then reports
        ok = isolation.default_scorer() is not parent
        ok = ok and isolation.score_pairs([(counter_argument, reference)])[0].success
        os.write(writer, b"1" if ok else b"0")
        os._exit(0)
    os.close(writer)
    assert os.read(reader, 1) == b"1"
    os.waitpid(child, 0)
    assert isolation.score_pairs([(counter_argument, reference)])[0].success
