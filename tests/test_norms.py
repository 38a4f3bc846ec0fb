"""Normative worlds: the `.norm` language, verdicts, minimal supports and change records,
checked against brute force from the definitions, PyArg, and the archive-entry example
through the command line."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import norm_worlds
import pytest
import textbook
from oracle import oracle

import argc.norms as norms_command
from argc.cli import main
from argc.compiler import guard
from argc.compiler.control import Limits
from argc.compiler.norms.certificates import (
    ERROR_TYPES,
    check_falsification,
    check_proof,
    check_rejection,
    falsification,
    proof_certificate,
    wrong_candidates,
)
from argc.compiler.norms.changes import ChangeRecord, change_record, diff_worlds
from argc.compiler.norms.grounding import ground_world
from argc.compiler.norms.theory import NORM_ORDERING, compile_world
from argc.compiler.norms.verdict import ANSWERS, Verdict, solve_world
from argc.compiler.solve import solve
from argc.dsl.errors import InputError, LimitExceeded
from argc.dsl.norms import World, parse_world, read_world
from argc.dsl.norms.world import Fact, Priority
from argc.norms import verdict_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "norms"
ROOT = EXAMPLES / "archive_entry.norm"
SEEDS = range(160)


def _cli(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "argc.cli", *arguments], capture_output=True, text=True, timeout=120
    )


# The language -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.norm")), ids=lambda p: p.name)
def test_examples_print_back_to_equal_worlds(path: Path) -> None:
    world = read_world(path)
    assert parse_world(world.to_text()) == world


@pytest.mark.parametrize("seed", range(40))
def test_random_worlds_print_back_to_equal_worlds(seed: int) -> None:
    world = norm_worlds.random_world(seed)
    assert parse_world(world.to_text()) == world


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("p(a).\nq(X).", "the fact 'q(X)' has variables", 2, 1),
        ("p(X) -> q(X, Y).", "unsafe variable Y", 1, 9),
        ("[norm r1: p(X) => forbidden(go(X, Y))]", "unsafe variable Y", 1, 29),
        ("[norm r1: p(X) => permitted(go(X))]\n[priority: r1 > r9]", "unknown rule 'r9'", 2, 17),
        ("[norm r1: p(X) => allowed(go(X))]", "unknown label 'allowed'", 1, 19),
        ("p(a).\np(a, b).", "the predicate 'p' takes 1 argument(s) (line 1), not 2", 2, 1),
        ("[norm r1: p(X) => permitted(go(X))]\n[query: go(a, b)]", "the action 'go' takes 1", 2, 9),
        ("forbidden(a).", "'forbidden' is a deontic label", 1, 1),
        (
            "[norm r1: p(X) => permitted(go(X))]\n[norm r2: p(X) => forbidden(go(X))]\n"
            "[norm r3: p(X) => forbidden(go(X))]\n"
            "[priority: r1 > r2]\n[priority: r2 > r3]\n[priority: r3 > r1]",
            "the priorities form a cycle: r1 > r2 > r3 > r1",
            6,
            1,
        ),
        (
            "[norm r1: p(X) => permitted(go(X))]\n[norm r1: q(X) => forbidden(go(X))]",
            "a second rule named 'r1'",
            2,
            1,
        ),
        ("[query: go(a)]\n[query: go(b)]", "a second query", 2, 1),
        (
            "rain.\n[norm rain: rain => forbidden(go)]",
            "the rule 'rain' is named like the fact",
            2,
            1,
        ),
        ("[query: go(X)]", "the query 'go(X)' has variables", 1, 9),
        ("p(a)", "unexpected end of input", 1, 4),
        ("p(a) q(b).", "unexpected 'q'", 1, 6),
        ("[norm r1 p(X) => permitted(go(X))]", "unexpected 'p'", 1, 10),
    ],
)
def test_errors_name_file_line_and_column(text: str, message: str, line: int, column: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_world(text, "world.norm")
    error = caught.value
    assert message in error.message
    assert (error.filename, error.line, error.column) == ("world.norm", line, column)
    assert str(error).startswith(f"world.norm:{line}:{column}: ")
    assert str(error).rstrip().endswith("^")


# Verdicts against brute force and PyArg ---------------------------------------------------


def _assert_brute_force_verdict(world: World) -> None:
    found = solve_world(world)
    expected = norm_worlds.verdict(world)
    assert found.answer == expected.answer
    assert found.decisive == expected.decisive
    assert found.defeated == expected.defeated
    assert found.statuses == expected.statuses
    assert found.attacks == expected.attacks
    assert found.defeats == expected.defeats
    assert found.support.rules == expected.support_rules
    assert tuple(str(fact) for fact in found.support.facts) == expected.support_facts


@pytest.mark.parametrize("seed", SEEDS)
def test_verdicts_agree_with_brute_force(seed: int) -> None:
    _assert_brute_force_verdict(norm_worlds.random_world(seed))


#: Worlds whose rules share variables between conditions and repeat conditions.
SHARED_SEEDS = range(80)


@pytest.mark.parametrize("seed", SHARED_SEEDS)
def test_worlds_with_repeated_conditions_agree_with_brute_force(seed: int) -> None:
    _assert_brute_force_verdict(norm_worlds.shared_world(seed))


def test_shared_worlds_repeat_conditions_and_ground_rules() -> None:
    """The generator reaches what it is for: ground instances that repeat a condition,
    bindings that give one ground rule twice, and every answer."""
    worlds = [norm_worlds.shared_world(seed) for seed in SHARED_SEEDS]
    counts = [norm_worlds.repeated_instances(world) for world in worlds]
    assert sum(repeated > 0 for repeated, _ in counts) >= 50
    assert sum(twice > 0 for _, twice in counts) >= 10
    answers = {norm_worlds.verdict(world).answer for world in worlds}
    assert answers == set(ANSWERS)


@pytest.mark.parametrize("seed", range(0, 80, 2))
def test_each_ground_rule_compiles_once_with_its_conditions_once(seed: int) -> None:
    """A normative or identity rule's ground instances become ASPIC+ rules whose
    antecedents are each named once and of which no two have the same antecedents and
    conclusion; the theory agrees with PyArg and the textbook."""
    world = norm_worlds.shared_world(seed)
    compiled = compile_world(ground_world(world))
    theory = compiled.theory
    shapes = {}
    for rule in theory.rules:
        assert len(set(rule.body)) == len(rule.body)
        source = compiled.instances[rule.name].rule if not rule.strict else rule.name.split("_")[0]
        shape = (source, frozenset(rule.body), rule.head)
        assert shape not in shapes, (rule.name, shapes.get(shape))
        shapes[shape] = rule.name
    _agrees_with_pyarg_and_the_textbook(theory)


REPEATED_CONDITIONS = (
    "supervises(bob, alice).\napprentice(carol).\n"
    "[norm r1: supervises(Y, X), supervises(Z, X) => permitted(enter_archive(X))]\n"
    "apprentice(X), apprentice(X) -> junior(X).\n"
    "[norm r2: junior(X), junior(X) => forbidden(read(X))]\n"
    "[query: enter_archive(alice)]\n"
)


def test_repeated_conditions_solve_through_every_command(tmp_path: Path, capsys) -> None:
    """A condition repeated once bound (Y = Z), an identity rule and a rule about another
    action repeating a condition literally: the world answers permitted (its preconditions
    hold) through norms solve, diff and check."""
    world = tmp_path / "repeated.norm"
    world.write_text(REPEATED_CONDITIONS, encoding="utf-8")
    assert main(["norms", "solve", "--json", str(world)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["answer"], found["support"]) == (
        "permitted",
        {"rules": ["r1"], "facts": ["supervises(bob, alice)"]},
    )
    assert main(["norms", "diff", "--json", str(world), str(world)]) == 0
    assert json.loads(capsys.readouterr().out)["relation"] == "surface_invariant"
    assert main(["check", "--json", str(world)]) == 0
    statuses = json.loads(capsys.readouterr().out)["statuses"]
    assert statuses["permitted_enter_archive_alice"] == "justified"
    assert statuses["forbidden_read_carol"] == "justified"


def test_random_worlds_cover_every_answer() -> None:
    answers = {norm_worlds.verdict(norm_worlds.random_world(seed)).answer for seed in SEEDS}
    assert answers == {
        "permitted",
        "forbidden",
        "obligated",
        "conflict_unresolved",
        "no_applicable_norm",
    }


def _has_twin_rules(theory) -> bool:
    """Whether two rules share body and head (PyArg 2.0.2 merges them: docs/oracle.md)."""
    shapes = [(rule.body, rule.head) for rule in theory.rules]
    return len(set(shapes)) < len(shapes)


def _agrees_with_pyarg_and_the_textbook(theory) -> None:
    """The grounded extension is the textbook's, and the claims' statuses PyArg's (theories
    without twin rules, which PyArg merges)."""
    solution = solve(theory, ordering=NORM_ORDERING, semantics="grounded")
    defeat = textbook.defeats(theory, NORM_ORDERING)
    assert solution.grounded == textbook.grounded(set(textbook.arguments(theory)), defeat)
    if not _has_twin_rules(theory):
        claims = sorted(theory.literals())
        expected = oracle(theory, NORM_ORDERING).statuses(claims)
        assert {str(claim): solution.status(claim) for claim in claims} == expected


@pytest.mark.parametrize("seed", range(0, 160, 2))
def test_compiled_theories_agree_with_pyarg_and_the_textbook(seed: int) -> None:
    world = norm_worlds.random_world(seed)
    theory = compile_world(ground_world(world)).theory
    _agrees_with_pyarg_and_the_textbook(theory)


def test_most_compiled_theories_go_to_pyarg() -> None:
    theories = [compile_world(ground_world(norm_worlds.random_world(s))).theory for s in SEEDS]
    assert sum(not _has_twin_rules(theory) for theory in theories) >= 110
    assert sum(bool(theory.contradictories) for theory in theories) >= 50


def test_obligated_and_permitted_both_named() -> None:
    world = parse_world(
        "p(a).\n[norm o: p(X) => obligated(go(X))]\n[norm q: p(X) => permitted(go(X))]\n"
        "[norm f: p(X) => forbidden(go(X))]\n[priority: o > f]\n[query: go(a)]"
    )
    verdict = solve_world(world)
    assert verdict.answer == "obligated"
    assert verdict.labels == {"permitted": ("q",), "obligated": ("o",)}
    assert verdict.decisive == ("o",)
    assert verdict.support.rules == ("o",)


def test_support_prefers_fewest_facts_then_names() -> None:
    world = parse_world(
        "p(a). q(a). r(a, b).\n"
        "[norm f: p(X) => forbidden(go(X))]\n"
        "[norm z: q(X) => permitted(go(X))]\n"
        "[norm b: q(X), r(X, Y) => permitted(go(X))]\n"
        "[norm y: q(X) => permitted(go(X))]\n"
        "[priority: z > f]\n[priority: b > f]\n[priority: y > f]\n[query: go(a)]"
    )
    verdict = solve_world(world)
    assert verdict.decisive == ("b", "y", "z")
    assert verdict.support.rules == ("y",)
    assert [str(fact) for fact in verdict.support.facts] == ["q(a)"]


def test_identity_rules_chain_to_a_fixed_point() -> None:
    world = parse_world(
        "trainee(alice).\ntrainee(X) -> apprentice(X).\napprentice(X) -> junior(X).\n"
        "[norm r1: junior(X) => forbidden(enter(X))]\n[query: enter(alice)]"
    )
    verdict = solve_world(world)
    assert verdict.answer == "forbidden"
    assert [str(fact) for fact in verdict.support.facts] == ["trainee(alice)"]


# Change records ---------------------------------------------------------------------------


def _variants(world: World, seed: int) -> list[World]:
    """Variants of each kind the generators make: reordered, a fact dropped, a priority
    dropped or added, a distractor fact added."""
    import random

    rng = random.Random(seed)
    variants = [
        World(
            tuple(reversed(world.facts)),
            world.identities,
            tuple(reversed(world.norms)),
            world.priorities,
            world.query,
        )
    ]
    if world.facts:
        drop = rng.randrange(len(world.facts))
        variants.append(
            World(
                world.facts[:drop] + world.facts[drop + 1 :],
                world.identities,
                world.norms,
                world.priorities,
                world.query,
            )
        )
    if world.priorities:
        variants.append(
            World(world.facts, world.identities, world.norms, world.priorities[1:], world.query)
        )
    names = [norm.name for norm in world.norms]
    if len(names) > 1:
        candidate = Priority(names[-1], names[0])
        extended = World(
            world.facts, world.identities, world.norms, (*world.priorities, candidate), world.query
        )
        with contextlib.suppress(InputError):  # unless the new priority closes a cycle
            variants.append(World.build(extended.statements()))
    variants.append(
        World(
            (*world.facts, Fact(parse_world("zz(z).").facts[0].atom)),
            world.identities,
            world.norms,
            world.priorities,
            world.query,
        )
    )
    return variants


#: Worlds of both generators: (generator, seed) pairs.
WORLDS = {"random": norm_worlds.random_world, "shared": norm_worlds.shared_world}


def _worlds(random_seeds: range, shared_seeds: range) -> list[tuple[str, int]]:
    return [("random", seed) for seed in random_seeds] + [("shared", seed) for seed in shared_seeds]


@pytest.mark.parametrize(("kind", "seed"), _worlds(range(60), range(30)))
def test_change_records_agree_with_brute_force(kind: str, seed: int) -> None:
    root = WORLDS[kind](seed)
    before = solve_world(root)
    for variant in _variants(root, seed):
        record = change_record(before, solve_world(variant))
        assert record.to_json() == norm_worlds.change_record(root, variant)


def test_change_records_cover_every_relation() -> None:
    found = set()
    for seed in range(60):
        root = norm_worlds.random_world(seed)
        found |= {norm_worlds.change_record(root, v)["relation"] for v in _variants(root, seed)}
    assert found == {"surface_invariant", "support_delta", "priority_delta", "distractor_invariant"}


def test_worlds_asking_about_different_actions_do_not_compare() -> None:
    with pytest.raises(ValueError, match="different actions"):
        diff_worlds(parse_world("[query: go(a)]"), parse_world("[query: go(b)]"))


# The archive-entry example through the command line --------------------------------------


def test_archive_entry_is_permitted_by_r2() -> None:
    run = _cli("norms", "solve", str(ROOT), "--json")
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found["answer"] == "permitted"
    assert found["decisive"] == ["r2"]
    assert found["defeated"] == ["r1"]
    assert found["statuses"] == {"r1": "overruled", "r2": "justified"}
    assert found["support"] == {"rules": ["r2"], "facts": ["emergency_rescue(alice)"]}
    assert found["attacks"] == [["r1", "r2"], ["r2", "r1"]]
    assert found["defeats"] == [["r2", "r1"]]


@pytest.mark.parametrize(
    ("variant", "relation", "answer"),
    [
        ("no_priority", "priority_delta", "conflict_unresolved"),
        ("no_emergency", "support_delta", "forbidden"),
        ("irrelevant_fact", "distractor_invariant", "permitted"),
        ("reordered", "surface_invariant", "permitted"),
    ],
)
def test_archive_entry_variants(variant: str, relation: str, answer: str) -> None:
    path = EXAMPLES / f"archive_entry_{variant}.norm"
    solved = _cli("norms", "solve", str(path), "--json")
    assert json.loads(solved.stdout)["answer"] == answer
    run = _cli("norms", "diff", str(ROOT), str(path), "--json")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["relation"] == relation
    expected_change = None if answer == "permitted" else {"from": "permitted", "to": answer}
    assert record["answer_change"] == expected_change
    if relation.endswith("invariant"):
        assert record["support_change"] == {"added": [], "removed": []}
        assert record["status_change"] == {}
        assert record["attack_change"] == {"added": [], "removed": []}


def test_check_solves_a_world() -> None:
    run = _cli("check", str(ROOT), "--json")
    assert run.returncode == 0, run.stderr
    statuses = json.loads(run.stdout)["statuses"]
    assert statuses["permitted_enter_archive_alice"] == "justified"
    assert statuses["forbidden_enter_archive_alice"] == "overruled"


def test_cli_reports_errors_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.norm"
    bad.write_text("[norm r1: p(X) => permitted(go(Y))]\n", encoding="utf-8")
    run = _cli("norms", "solve", str(bad))
    assert run.returncode == 2
    assert f"{bad}:1:29: unsafe variable Y" in run.stderr
    no_query = tmp_path / "no_query.norm"
    no_query.write_text("p(a).\n", encoding="utf-8")
    run = _cli("norms", "solve", str(no_query))
    assert run.returncode == 2
    assert "no [query: ACTION]" in run.stderr


# Limits -----------------------------------------------------------------------------------


def test_a_multiplying_rule_stops_at_the_limit_while_grounding() -> None:
    constants = " ".join(f"p(c{number})." for number in range(60))
    world = parse_world(
        constants + "\np(A), p(B), p(C), p(D), p(E) -> q(A, B, C, D, E).\n[query: go(c1)]"
    )
    with pytest.raises(LimitExceeded, match="partial rule instantiations"):
        ground_world(world, Limits(seconds=30, instantiations=100_000))


def test_the_time_limit_holds_while_grounding() -> None:
    constants = " ".join(f"p(c{number})." for number in range(80))
    world = parse_world(constants + "\np(A), p(B), p(C), p(D) -> q(A, B, C, D).\n[query: go(c1)]")
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="time limit"):
        ground_world(world, Limits(seconds=1.0, instantiations=10**9))
    # A wide margin: grounding all 80^4 instantiations before checking would take minutes.
    assert time.monotonic() - started < 30


def test_the_text_report_looks_each_attack_up_once() -> None:
    """Building the text report compares rule names a bounded number of times per attack
    (a set of defeats, not a scan of them), so it is linear in the report's size."""
    verdict = solve_world(norm_worlds.many_norms_world(60))
    assert len(verdict.attacks) == 2 * 30 * 30
    compared = 0

    class Name(str):
        __hash__ = str.__hash__

        def __eq__(self, other: object) -> bool:
            nonlocal compared
            compared += 1
            return str.__eq__(self, other)

    def named(pairs):
        return tuple((Name(a), Name(b)) for a, b in pairs)

    counted = replace(verdict, attacks=named(verdict.attacks), defeats=named(verdict.defeats))
    text = verdict_text(counted)
    assert text.count("\nattack: ") == len(verdict.attacks)
    assert text.count(" (defeats)") == len(verdict.defeats)
    assert compared <= 2 * len(verdict.attacks)


@pytest.fixture()
def many_norms(tmp_path: Path) -> Path:
    path = tmp_path / "many.norm"
    path.write_text(norm_worlds.many_norms_world(40).to_text(), encoding="utf-8")
    return path


#: Each report `argc norms` prints: (arguments, where its builder lives, the builder's name).
REPORTS = {
    "solve": (["solve"], norms_command, "verdict_text"),
    "solve --json": (["solve", "--json"], Verdict, "to_json"),
    "diff": (["diff"], norms_command, "record_text"),
    "diff --json": (["diff", "--json"], ChangeRecord, "to_json"),
}


@pytest.mark.parametrize("mode", REPORTS)
def test_a_report_built_past_the_limit_is_not_printed(
    mode: str, many_norms: Path, monkeypatch, capsys
) -> None:
    """The report is built within the world's time limit (the variant's for diff): once the
    clock has passed it, the command prints the limit's line and no report."""
    action, owner, name = REPORTS[mode]
    argv = ["norms", *action, str(many_norms)] + ([str(many_norms)] if "diff" in action else [])
    assert main(argv) == 0
    assert capsys.readouterr().out
    build, real = getattr(owner, name), time.monotonic

    def late(*args, **kwargs):
        built = build(*args, **kwargs)
        monkeypatch.setattr(guard, "_source", lambda: real() + 86_400)
        return built

    monkeypatch.setattr(owner, name, late)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"argc norms: {many_norms}: time limit of 60 s exceeded\n"


def test_a_stuck_report_ends_at_the_limit(tmp_path: Path) -> None:
    """The watchdog stays armed while the report is built: one that never ends is stopped
    just after the limit, with the limit's line and nothing on stdout."""
    world = tmp_path / "world.norm"
    world.write_text("p(a).\n[norm r1: p(X) => permitted(go(X))]\n[query: go(a)]\n")
    script = (
        "import sys, time; import argc.norms as command;"
        " command.verdict_text = lambda *a, **k: time.sleep(600);"
        " from argc.cli import main;"
        f" sys.exit(main(['norms', 'solve', '--time-limit', '1', {str(world)!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout) == (2, "")
    # the watchdog's line (or, on a machine too busy to solve within 1 s, the engine's)
    assert done.stderr.endswith(f"{world}: time limit of 1 s exceeded\n")


def _raising(error: BaseException):
    def solve(*_args, **_kwargs):
        raise error

    return solve


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (InputError("a rule names an antecedent twice"), "a rule names an antecedent twice"),
        (LimitExceeded("more than 5 instantiations"), "more than 5 instantiations"),
        (MemoryError(), "out of memory (--max-memory 4096)"),
    ],
)
def test_every_error_names_the_world_s_file(
    error: BaseException, message: str, many_norms: Path, monkeypatch, capsys
) -> None:
    """An error raised about no file (a compiled theory's, an exceeded limit, memory) is
    reported at the world's file."""
    monkeypatch.setattr(norms_command, "solve_world", _raising(error))
    for argv in (["solve", str(many_norms)], ["diff", str(many_norms), str(many_norms)]):
        assert main(["norms", *argv]) == 2
        assert capsys.readouterr().err == f"argc norms: {many_norms}: {message}\n"


def test_diff_names_the_variant_s_query_when_the_actions_differ(tmp_path: Path, capsys) -> None:
    root, variant = tmp_path / "root.norm", tmp_path / "variant.norm"
    root.write_text("p(a).\n[query: go(a)]\n", encoding="utf-8")
    variant.write_text("p(a).\n\n  [query: go(b)]\n", encoding="utf-8")
    assert main(["norms", "diff", str(root), str(variant)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"argc norms: {variant}:3:3: the variant asks about go(b), the root")


def test_a_limit_while_grounding_names_the_file(tmp_path: Path) -> None:
    world = tmp_path / "multiplying.norm"
    constants = " ".join(f"p(c{number})." for number in range(80))
    world.write_text(f"{constants}\np(A), p(B), p(C), p(D) -> q(A, B, C, D).\n[query: go(c1)]")
    run = _cli("norms", "solve", "--time-limit", "0.2", str(world))
    assert run.returncode == 2
    assert run.stderr == f"argc norms: {world}: time limit of 0.2 s exceeded\n"


# Certificates ------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "seed"), _worlds(range(0, 160, 2), range(0, 80, 2)))
def test_gold_certificates_pass_their_checkers(kind: str, seed: int) -> None:
    verdict = solve_world(WORLDS[kind](seed))
    assert check_proof(verdict, proof_certificate(verdict)).passed
    candidates = wrong_candidates(verdict)
    assert verdict.answer not in candidates
    assert len(candidates) >= 3
    for candidate in candidates:
        certificate = falsification(verdict, candidate)
        assert certificate["error_type"] in ERROR_TYPES
        assert check_falsification(verdict, certificate).passed
        assert check_rejection(verdict, candidate, certificate).passed


@pytest.mark.parametrize(("kind", "seed"), _worlds(range(0, 160, 2), range(0, 80, 2)))
def test_falsifications_hold_by_brute_force(kind: str, seed: int) -> None:
    world = WORLDS[kind](seed)
    verdict, expected = solve_world(world), norm_worlds.verdict(world)
    stronger = norm_worlds.closure(world)
    holding = norm_worlds.holding(world)
    for candidate in wrong_candidates(verdict):
        found = falsification(verdict, candidate)
        error, rule, evidence = found["error_type"], found["relies_on"], found["counter_evidence"]
        if error in ("priority_misread", "defeated_rule_cited"):
            assert expected.statuses[rule] == "overruled"
            assert expected.statuses[evidence["defeated_by"]] == "justified"
            assert (evidence["defeated_by"], rule) in expected.defeats
            prioritised = (evidence["defeated_by"], rule) in stronger
            assert prioritised == (error == "priority_misread")
        elif error == "unresolved_conflict_ignored":
            assert expected.answer == "conflict_unresolved"
            assert expected.statuses[rule] == "undecided"
        elif error == "missing_precondition":
            assert rule not in expected.statuses
            text = f"[norm check: {evidence['missing_fact']} => permitted(x)]"
            missing = parse_world(text).norms[0].body[0]
            if missing.is_ground:
                assert missing not in holding
        elif error == "wrong_label":
            query = world.query.action
            for norm in world.norms:
                if norm.label == candidate and norm.action.predicate == query.predicate:
                    pairs = zip(norm.action.arguments, query.arguments, strict=True)
                    assert any(t != v and not t[:1].isupper() for t, v in pairs)
        elif error == "applicable_norm_ignored":
            assert evidence["applicable"] in expected.statuses


def test_checkers_name_each_failure() -> None:
    verdict = solve_world(read_world(ROOT))
    proof = proof_certificate(verdict)
    assert check_proof(verdict, "permitted").failure == "schema_failure"
    assert check_proof(verdict, {**proof, "decisive": "r2"}).failure == "schema_failure"
    assert check_proof(verdict, {**proof, "answer": "forbidden"}).failure == "answer_error"
    assert check_proof(verdict, {**proof, "decisive": ["r1"]}).failure == "invalid_proof"
    assert check_proof(verdict, {**proof, "defeated": []}).failure == "invalid_proof"
    wrong_support = {"rules": ["r1"], "facts": ["apprentice(alice)"]}
    assert check_proof(verdict, {**proof, "support": wrong_support}).failure == "invalid_proof"
    no_facts = {"rules": ["r2"], "facts": []}
    assert check_proof(verdict, {**proof, "support": no_facts}).failure == "invalid_proof"
    rejection = falsification(verdict, "forbidden")
    assert rejection["error_type"] == "priority_misread"
    assert check_falsification(verdict, {**rejection, "candidate": "permitted"}).failure == (
        "not_wrong"
    )
    assert check_rejection(verdict, "forbidden", None).failure == "missing_falsification"
    other = falsification(verdict, "obligated")
    assert check_rejection(verdict, "forbidden", other).failure == "missing_falsification"
    assert check_falsification(verdict, {**rejection, "error_type": "wrong_label"}).failure == (
        "wrong_error_type"
    )
    assert check_falsification(verdict, {**rejection, "relies_on": "r2"}).failure == "wrong_rule"
    evidence = {"defeated_by": "r1", "priority": ["r1", "r2"]}
    assert check_falsification(verdict, {**rejection, "counter_evidence": evidence}).failure == (
        "wrong_counter_evidence"
    )
    assert check_falsification(verdict, {**rejection, "relies_on": 3}).failure == "schema_failure"


def test_checkers_accept_any_minimal_support() -> None:
    world = parse_world(
        "p(a). q(a).\n[norm f: p(X) => forbidden(go(X))]\n[norm y: q(X) => permitted(go(X))]\n"
        "[norm z: q(X) => permitted(go(X))]\n[priority: y > f]\n[priority: z > f]\n[query: go(a)]"
    )
    verdict = solve_world(world)
    assert verdict.support.rules == ("y",)
    other = {**proof_certificate(verdict), "support": {"rules": ["z"], "facts": ["q(a)"]}}
    assert check_proof(verdict, other).passed
    both = {**other, "support": {"rules": ["y", "z"], "facts": ["q(a)"]}}
    assert check_proof(verdict, both).failure == "invalid_proof"


def test_a_support_among_many_tied_candidates_is_found_without_enumerating_them() -> None:
    obliging = "".join(f"[norm o{n}: p(X) => obligated(go(X))]\n" for n in range(1, 31))
    permitting = "".join(
        f"[norm q{n}: p(X) => permitted(go(X))]\n[priority: q{n} > f]\n" for n in range(1, 31)
    )
    world = parse_world(
        f"p(a).\n[norm f: p(X) => forbidden(go(X))]\n{obliging}{permitting}[query: go(a)]"
    )
    verdict = solve_world(world, Limits(seconds=60))
    assert verdict.answer == "obligated"
    assert verdict.support.rules == ("o1", "q1")


@pytest.mark.parametrize(
    "family_type",
    [
        "partial_priority_conflict",
        "unresolved_conflict",
        "multiple_compatible_overrides",
        "missing_precondition_distractor",
        "priority_chain",
        "distractor_conflict",
    ],
)
def test_generated_worlds_compile_to_theories_pyarg_agrees_with(family_type: str) -> None:
    from argc.tasks.norms.families import make_family

    family = make_family(family_type, 11)
    checked = 0
    assert compile_world(ground_world(family.root)).theory.contradictories
    for world in (family.root, *family.variants.values()):
        theory = compile_world(ground_world(world)).theory
        if _has_twin_rules(theory):
            continue
        solution = solve(theory, ordering=NORM_ORDERING, semantics="grounded")
        claims = sorted(theory.literals())
        expected = oracle(theory, NORM_ORDERING).statuses(claims)
        assert {str(claim): solution.status(claim) for claim in claims} == expected
        checked += 1
    assert checked >= 3


def test_a_long_priority_cycle_is_found_and_named_briefly() -> None:
    count = 3000
    norms = "".join(f"[norm r{n}: p(X) => permitted(go(X))]\n" for n in range(count))
    chain = "".join(f"[priority: r{n + 1} > r{n}]\n" for n in range(count - 1))
    world = parse_world(norms + chain)
    assert len(world.priorities) == count - 1
    with pytest.raises(InputError) as caught:
        parse_world(norms + "[priority: r0 > r2999]\n" + chain)
    error = caught.value
    assert error.message == (
        "the priorities form a cycle: r0 > r2999 > r2998 > r2997 > ... (3000 rules)"
        " > r3 > r2 > r1 > r0"
    )
    assert error.line == 2 * count  # the cycle's priority written last


def test_a_long_priority_chain_stops_at_the_limit_while_compiling() -> None:
    count = 2000  # 2,001,000 closure pairs
    norms = "".join(f"[norm r{n}: p(X) => permitted(go(X))]\n" for n in range(count))
    chain = "".join(f"[priority: r{n + 1} > r{n}]\n" for n in range(count - 1))
    world = parse_world("p(a).\n" + norms + chain + "[query: go(a)]")
    with pytest.raises(LimitExceeded, match="transitive closure has more than 100,000 pairs"):
        solve_world(world, Limits(seconds=30, instantiations=100_000))


def test_many_rules_on_one_action_stop_at_the_limit_while_compiling() -> None:
    norms = "".join(f"[norm r{n}: p(X) => permitted(go(X))]\n" for n in range(400))
    world = parse_world("p(a).\n" + norms + "[query: go(a)]")
    with pytest.raises(LimitExceeded, match="comparing the rules bearing on each action"):
        solve_world(world, Limits(seconds=30, instantiations=100_000))
    assert solve_world(world).answer == "permitted"
