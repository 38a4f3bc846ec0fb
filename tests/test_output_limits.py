"""Limits hold while the output is built: every output mode of `argc check` (.arg and .kg),
`argc af`, `argc query` and `argc kg solve` is built within the input's time limit (a limit
passed while building prints the limit's one line, exit 2, and no part of the output: no
partial JSON object, no export file), and building is linear in the output's size (counted
in executed lines, not timed)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from random_theories import random_theory
from test_limits import rebut_storm

import argc.kg as kg_command
from argc.cli import main
from argc.compiler import Solution, guard, solve
from argc.compiler import cli as engine_cli
from argc.compiler.graph import export
from argc.compiler.kg.solve import KgModel, solve_kg
from argc.compiler.report import as_record, summary
from argc.dsl.ir import Literal, Ordering
from argc.dsl.kg.world import Declaration, Event, KgWorld, KinshipFact, Object, Person, Rule
from argc.dsl.lint import theory_warnings
from argc.dsl.parser import parse_theory

ROOT = Path(__file__).resolve().parent.parent
THEORY = ROOT / "examples" / "modgil_prakken_tweety.arg"
WORLD = ROOT / "examples" / "kg" / "worked_example.kg"

# Inputs with large outputs ------------------------------------------------------------------


def fan(width: int) -> str:
    """`width` arguments for p and as many for -p, each from a premise of its own: p and -p
    rebut each other 2 · width² times, all of them defeats but those of u_i on r_i for odd i
    (r_i is preferred to u_i)."""
    lines = []
    for i in range(width):
        lines += [f"[premise: s{i}]", f"[defeasible r{i}: s{i} => p]"]
        lines += [f"[premise: t{i}]", f"[defeasible u{i}: t{i} => -p]"]
        if i % 2:
            lines.append(f"[prefer_rule: r{i} > u{i}]")
    return "\n".join(lines) + "\n"


def attacked_chain(length: int) -> str:
    """a0 => a1 => ... => a_length over the premise a0, which the axiom -a0 undermines: one
    attack per argument, while the arguments hold length²/2 sub-arguments in all."""
    lines = ["[premise: a0]", "[axiom: -a0]"]
    lines += [f"[defeasible r{i}: a{i - 1} => a{i}]" for i in range(1, length + 1)]
    return "\n".join(lines) + "\n"


def preference_cycles(count: int) -> str:
    """`count` pairs of rules preferred each over the other: `count` preference cycles."""
    lines = ["[premise: s]"]
    for i in range(count):
        lines += [f"[defeasible a{i}: s => x{i}]", f"[defeasible b{i}: s => y{i}]"]
        lines += [f"[prefer_rule: a{i} > b{i}]", f"[prefer_rule: b{i} > a{i}]"]
    return "\n".join(lines) + "\n"


def busy_world(events: int, friends: int) -> KgWorld:
    """Three objects lent and returned `events` times in all, and `friends` persons who are
    all friends, with a declared rule deriving friends of friends."""
    persons = [f"p{index}" for index in range(max(friends, 2))]
    things = ["o0", "o1", "o2"]
    timeline = tuple(
        Event("loan", ("p0", "p1"), (things[(t // 2) % 3],))
        if t % 2 == 0
        else Event("return", ("p1", "p0"), (things[(t // 2) % 3],))
        for t in range(events)
    )
    return KgWorld(
        tuple(Person(name, "male") for name in persons),
        tuple(map(Object, things)),
        tuple(Declaration("own", "p0", thing) for thing in things),
        timeline,
        tuple(
            KinshipFact("friend", x, y)
            for i, x in enumerate(persons[:friends])
            for y in persons[i + 1 : friends]
        ),
        (Rule("pal", ("friend", "friend")),),
    )


# Counting the work --------------------------------------------------------------------------


def lines_run(build: Callable[[], object]) -> tuple[int, int]:
    """The Python lines executed while `build()` runs, and the size of what it returns (its
    length, or that of its JSON text). Work done in C (sorting, membership tests on tuples)
    is not counted."""
    count = 0

    def tracer(_frame, event, _arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        built = build()
    finally:
        sys.settrace(None)
    text = built if isinstance(built, str) else json.dumps(built, default=str)
    return count, len(text)


def solved(text: str, semantics: str = "grounded") -> Solution:
    """A solution with every part read from its model (reading is not building)."""
    solution = solve(parse_theory(text), semantics=semantics)
    for part in ("arguments", "direct_attacks", "defeats", "grounded", "statuses"):
        getattr(solution, part)
    for part in ("extensions", "credulous", "skeptical", "consistent"):
        getattr(solution, part)
    return solution


def assert_linear(small: tuple[int, int], large: tuple[int, int]) -> None:
    """The work grows at most 25% faster than the output between a small and a large
    input."""
    (work_small, size_small), (work_large, size_large) = small, large
    assert size_large >= 1.5 * size_small
    assert work_large / work_small <= 1.25 * size_large / size_small, (small, large)


P, NOT_P = Literal("p"), Literal("p", True)
#: Every way `argc check` presents a theory's graph, as a builder of its text.
THEORY_MODES: dict[str, Callable[[Solution], object]] = {
    "json": lambda s: as_record(s, "t.arg"),
    "graph": lambda s: as_record(s, "t.arg", graph=True),
    "show": lambda s: summary(s, "t.arg", show=("arguments", "attacks")),
    "explain": lambda s: summary(s, "t.arg", (P, NOT_P)),
    "explain json": lambda s: as_record(s, "t.arg", (P, NOT_P)),
    "dot": lambda s: export(s, "dot"),
    "apx": lambda s: export(s, "apx"),
    "af": lambda s: export(s, "af"),
}


@pytest.mark.parametrize("mode", THEORY_MODES)
def test_theory_reports_are_linear_in_their_size(mode):
    build = THEORY_MODES[mode]
    small, large = solved(fan(10)), solved(fan(30))
    assert_linear(lines_run(lambda: build(small)), lines_run(lambda: build(large)))
    assert len(large.attacks) == 9 * len(small.attacks) == 9 * 2 * 10 * 10


def test_the_summary_is_linear_in_the_attacks_it_counts():
    small, large = solved(fan(12)), solved(fan(24))
    work_small, _ = lines_run(lambda: summary(small, "t.arg"))
    work_large, _ = lines_run(lambda: summary(large, "t.arg"))
    assert work_large / work_small <= 1.25 * len(large.attacks) / len(small.attacks)


def test_a_deep_theory_s_summary_is_linear():
    """A chain of n rules has n²/2 sub-arguments in all but n attacks and 2n claims: the
    summary's attack counts do not walk every argument's sub-arguments."""
    small, large = solved(attacked_chain(150)), solved(attacked_chain(300))
    assert_linear(
        lines_run(lambda: summary(small, "t.arg")), lines_run(lambda: summary(large, "t.arg"))
    )
    assert len(large.attacks) == 301


def test_preference_cycle_warnings_are_linear():
    small, large = parse_theory(preference_cycles(300)), parse_theory(preference_cycles(600))
    count_small, _ = lines_run(lambda: theory_warnings(small))
    count_large, _ = lines_run(lambda: theory_warnings(large))
    assert len(theory_warnings(large)) == 600
    assert count_large / count_small <= 1.25 * 2


@pytest.fixture(scope="module")
def worlds() -> tuple[KgModel, KgModel]:
    return solve_kg(busy_world(300, 12)), solve_kg(busy_world(600, 17))


#: Every way a KG world is presented, as a builder of its text.
WORLD_MODES: dict[str, Callable[[KgModel], object]] = {
    "check": lambda model: model.summary("w.kg"),
    "check json": lambda model: model.record("w.kg"),
    "kg solve": lambda model: kg_command.solved_text(kg_command.solved_record(model, "o0")),
    "kg solve json": lambda model: kg_command.solved_record(model, "o0"),
}


@pytest.mark.parametrize("mode", WORLD_MODES)
def test_world_reports_are_linear_in_their_size(worlds, mode):
    build = WORLD_MODES[mode]
    small, large = worlds
    assert len(large.composite) >= 2 * len(small.composite)
    assert_linear(lines_run(lambda: build(small)), lines_run(lambda: build(large)))


# What the report builds on --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(30))
def test_indexed_attacks_and_labels_agree_with_their_definitions(seed):
    """Attacks reach the arguments containing the attacked one; the attacks on an argument,
    its grounded label and first grounded defeater agree with a scan of every attack and
    defeat."""
    solution = solve(random_theory(seed), ordering=Ordering())
    containing = {
        name: [whole for whole in solution.arguments if name in solution.subarguments(whole)]
        for name in solution.arguments
    }
    expected = sorted(
        (attack.attacker, whole, attack.on, attack.kind, attack.defeat)
        for attack in solution.direct_attacks
        for whole in containing[attack.on]
    )
    assert [tuple(vars(attack).values()) for attack in solution.attacks] == expected
    for name in solution.arguments:
        assert solution.containers(name) == set(containing[name])
        on_it = tuple(attack for attack in solution.attacks if attack.attacked == name)
        assert solution.attacks_on(name) == on_it
        answers = [d for d in solution.defeaters(name) if d in solution.grounded]
        assert solution.grounded_defeater(name) == (answers[0] if answers else None)
        label = "in" if name in solution.grounded else "out" if answers else "undecided"
        assert solution.label(name) == label


# The limit while building: a clock that has run out once the output is built ---------------------


@pytest.fixture()
def late(monkeypatch):
    """`late(module, name)`: the builder `module.name` runs, then the engine's clock jumps
    a day ahead, as if building had taken that long."""
    real = time.monotonic

    def wrap(module: object, name: str) -> None:
        build = getattr(module, name)

        def slow(*args, **kwargs):
            built = build(*args, **kwargs)
            monkeypatch.setattr(guard, "_source", lambda: real() + 86_400)
            return built

        monkeypatch.setattr(module, name, slow)

    return wrap


@pytest.fixture()
def inputs(tmp_path) -> dict[str, Path]:
    files = {"storm": tmp_path / "storm.arg", "af": tmp_path / "f.apx", "query": tmp_path / "q.lp"}
    files["storm"].write_text(rebut_storm(4), encoding="utf-8")
    files["af"].write_text("arg(a). arg(b). att(a,b). att(b,a).\n", encoding="utf-8")
    files["query"].write_text("#show justified/1.\n", encoding="utf-8")
    return files


#: (arguments, the builder that runs late, where it lives)
LATE_BUILDS = {
    "check": (["check", "{storm}"], engine_cli, "summary"),
    "check --show": (["check", "--show", "attacks", "{storm}"], engine_cli, "summary"),
    "check --explain": (["check", "--explain", "p", "{storm}"], engine_cli, "summary"),
    "check --json": (["check", "--json", "{storm}"], engine_cli, "as_record"),
    "check --json --graph": (["check", "--json", "--graph", "{storm}"], engine_cli, "as_record"),
    "check --export": (["check", "--export", "dot", "{storm}"], engine_cli, "export"),
    "check world": (["check", str(WORLD)], KgModel, "summary"),
    "check world --json": (["check", "--json", str(WORLD)], KgModel, "record"),
    "af": (["af", "{af}", "--semantics", "preferred"], engine_cli, "framework_summary"),
    "af --json": (["af", "--json", "{af}"], engine_cli, "framework_record"),
    "query": (["query", str(THEORY), "{query}"], engine_cli, "query"),
    "kg solve": (["kg", "solve", str(WORLD)], kg_command, "solved_text"),
    "kg solve --json": (["kg", "solve", "--json", str(WORLD)], kg_command, "solved_record"),
}


@pytest.mark.parametrize("mode", LATE_BUILDS)
def test_an_output_built_past_the_limit_is_not_printed(mode, late, inputs, capsys):
    argv, module, name = LATE_BUILDS[mode]
    argv = [argument.format(**inputs) for argument in argv]
    assert main(argv) == 0  # in time, it prints
    printed = capsys.readouterr().out
    assert printed
    late(module, name)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "time limit of 60 s exceeded" in err
    if "--json" in argv and argv[0] in ("check", "af"):
        record = json.loads(out)
        assert record == {"file": record["file"], "error": err.strip(), "limit": "time"}
    else:
        assert out == ""


def test_an_export_built_past_the_limit_writes_no_file(late, inputs, tmp_path, capsys):
    target = tmp_path / "out" / "graph.dot"
    argv = ["check", "--export", "dot", "--out", str(target), str(inputs["storm"])]
    late(engine_cli, "export")
    assert main(argv) == 2
    assert "time limit of 60 s exceeded" in capsys.readouterr().err
    assert not target.parent.exists() or not any(target.parent.iterdir())


# The limit while building: the watchdog ends a build that does not stop -----------------------


def run_with_stuck_builder(module: str, name: str, argv: list[str]) -> subprocess.CompletedProcess:
    """`argc ARGV` in a process where the builder `module.name` never returns."""
    script = (
        f"import sys, time, importlib; module = importlib.import_module({module!r});"
        f" setattr(module, {name!r}, lambda *a, **k: time.sleep(600));"
        f" from argc.cli import main; sys.exit(main({argv!r}))"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False
    )


def test_a_stuck_json_report_ends_at_the_limit_with_one_error_record(inputs):
    argv = ["check", "--json", "--time-limit", "0.5", str(inputs["storm"])]
    done = run_with_stuck_builder("argc.compiler.cli", "as_record", argv)
    message = f"{inputs['storm']}: time limit of 0.5 s exceeded"
    assert (done.returncode, done.stderr) == (2, message + "\n")
    assert json.loads(done.stdout) == {
        "file": str(inputs["storm"]),
        "error": message,
        "limit": "time",
    }


def test_a_stuck_kg_report_ends_at_the_limit():
    argv = ["kg", "solve", "--time-limit", "0.5", str(WORLD)]
    done = run_with_stuck_builder("argc.kg", "solved_text", argv)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"{WORLD}: time limit of 0.5 s exceeded\n"
