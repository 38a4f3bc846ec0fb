"""status_query: every cell generates; references succeed; gold agrees with PyArg; each
group's claims hold the statuses derived by hand under every ordering; the queried claims
keep the label balance under every ordering while the link principle (and, for split
conflicts, last-link's set comparison) changes the answer; the scale follows ArgGYM's
released taskset; the answer grammar is tolerant of form and strict about content."""

from __future__ import annotations

import json
import os
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from oracle import oracle
from task_checks import check_contract

from argc.compiler import Solution, solve
from argc.dsl.ir import ORDERINGS, Literal, Ordering
from argc.dsl.parser import parse_theory, read_theory
from argc.tasks import generate, score
from argc.tasks.answers import answer_region, pair_f1, read_entries
from argc.tasks.arggym.status_query import Design, choose, curriculum, design, query_count, vector
from argc.tasks.framework import CELLS, LEVELS

LAST_ELITIST, LAST_DEMOCRATIC, WEAKEST_ELITIST, WEAKEST_DEMOCRATIC = ORDERINGS
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SAMPLE = Path(
    os.environ.get(
        "ARGGYM_SAMPLE",
        Path(__file__).resolve().parents[2] / "shared" / "arggym-released" / "sample.jsonl",
    )
)
DIRECTIVE = re.compile(r"^\[(axiom|premise|defeasible|strict|prefer_rule|prefer_premise)\b", re.M)


def _corrupt(reference: str) -> str:
    first, *rest = reference.splitlines()
    claim, status = first.split(": ")
    other = "overruled" if status == "justified" else "justified"
    return "\n".join([f"{claim}: {other}", *rest])


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(level: int, ordering: Ordering) -> None:
    instance = generate("status_query", level, ordering, seed=level)
    assert score(instance, f"thinking...<answer>{instance.reference}</answer>") == (
        score(instance, f"<answer>{instance.reference}</answer>")
    )
    check_contract(instance, _corrupt(instance.reference))
    statuses = Counter(instance.target.values())
    assert set(statuses) == {"justified", "overruled", "undecided"}
    assert len(instance.target) == query_count(level)
    assert max(statuses.values()) <= 0.45 * len(instance.target)
    assert all(not Literal.parse(claim).negated for claim in instance.target)
    assert instance.meta["params"]["sensitive"] or level == 2


def _initials(statuses: tuple[str, ...]) -> str:
    return "".join(status[0].upper() for status in statuses)


#: The claims each group plans, counted by their statuses under (last-link elitist, last-link
#: democratic, weakest-link elitist, weakest-link democratic), derived by hand:
#: - a counter tower's premises are unattacked (J); with an odd height the first counter stands
#:   and rebuts the deadlocked stem symmetrically (no preference): the stem and its
#:   consequence are U; with an even height the first counter is undercut;
#: - an undermined root r loses to the preferred -r (two premise arguments, compared on their
#:   premises under every ordering): r and its two consequences are O; in a premise pair the
#:   consequence of -c stands (J) and c is O; in a junction b1 and l1 stand, b2, l2 and the
#:   joined claim fall;
#: - a strict consequence of an axiom is strict and firm, never weaker than a rebutter: J;
#: - a premise against a rule concluding its negation: last-link finds the rule argument
#:   weaker (some last rule against none), weakest-link needs weaker premises too: J/U for
#:   the premise and its consequence, O/U when the queried atom is the rule's conclusion;
#: - earlier steps a1 => m => x against a2 [=> n] => -x: last rules unranked (U under
#:   last-link); the rival's rules below x's earlier rule decide weakest-link, under both set
#:   comparisons when the rival has two rules (s1 < r1, s1 < r2, s2 < r1), under democratic
#:   only when it has one (s < r1, not s < r2); a1, a2, m (and n) stand;
#: - principle_conflict and last_rules_conflict: the tables of tests/test_builder_gadgets.py,
#:   with the struck-back part of a last-rules conflict losing where its thesis wins.
GROUPS: dict[str, tuple[Callable[[Design], None], dict[str, int]]] = {
    "deadlocked 1": (lambda d: d.deadlocked(1), {"JJJJ": 2, "UUUU": 2}),
    "deadlocked 3": (lambda d: d.deadlocked(3), {"JJJJ": 4, "UUUU": 2}),
    "undermined": (Design.undermined, {"OOOO": 3}),
    "premise pair 2": (lambda d: d.premise_pair(2), {"OOOO": 1, "JJJJ": 3}),
    "junction": (Design.junction, {"JJJJ": 2, "OOOO": 3}),
    "strict side 3": (lambda d: d.strict_side(3), {"JJJJ": 5}),
    "counter premise, won": (lambda d: d.counter_premise(True), {"JJUU": 2, "JJJJ": 1}),
    "counter premise, lost": (lambda d: d.counter_premise(False), {"OOUU": 2, "JJJJ": 1}),
    "link win": (lambda d: d.link_win(False), {"JJUU": 1}),
    "link win, rule below": (lambda d: d.link_win(True), {"JJOU": 1}),
    "earlier steps, won, two": (lambda d: d.earlier_steps(True, True), {"UUJJ": 1, "JJJJ": 4}),
    "earlier steps, won, one": (lambda d: d.earlier_steps(True, False), {"UUUJ": 1, "JJJJ": 3}),
    "earlier steps, lost, two": (lambda d: d.earlier_steps(False, True), {"UUOO": 1, "JJJJ": 4}),
    "earlier steps, lost, one": (
        lambda d: d.earlier_steps(False, False),
        {"UUUO": 1, "JJJJ": 3},
    ),
    "set conflict, split": (lambda d: d.set_conflict(True), {"JUUU": 1, "OUUU": 1}),
    "set conflict, joined": (lambda d: d.set_conflict(False), {"JJUU": 1, "OOUU": 1}),
}


def _check_plan(made: Design, pyarg: bool = False) -> list[Solution]:
    """The engine (and PyArg, when asked) finds every planned status; the solutions under
    each ordering."""
    theory = made.theory([])
    solutions = []
    for index, ordering in enumerate(ORDERINGS):
        solution = solve(theory, ordering=ordering)
        found = {claim: solution.status(claim) for claim in made.plan}
        assert found == {claim: statuses[index] for claim, statuses in made.plan.items()}
        if pyarg:
            expected = oracle(theory, ordering).statuses(list(made.plan))
            assert expected == {str(claim): status for claim, status in found.items()}
        solutions.append(solution)
    return solutions


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_group_statuses(group: str, seed: int) -> None:
    build, expected = GROUPS[group]
    made = Design(random.Random(seed))
    build(made)
    assert Counter(_initials(statuses) for statuses in made.plan.values()) == expected
    _check_plan(made, pyarg=seed == 0)


@pytest.mark.parametrize("seed", range(3))
def test_supported_group(seed: int) -> None:
    made = Design(random.Random(seed))
    made.supported(2)  # root, claim, maybe a consequence, two tower premises: all stand
    assert {_initials(statuses) for statuses in made.plan.values()} == {"JJJJ"}
    assert len(made.plan) in (4, 5)
    _check_plan(made, pyarg=seed == 0)


def design_of(level: int, seed: int = 0) -> Design:
    return design(random.Random(f"{level}/{seed}"), curriculum(level))


@pytest.mark.parametrize("level", LEVELS)
def test_level_designs_hold_their_plans(level: int) -> None:
    knobs = curriculum(level)
    rng = random.Random(level)
    made = design(rng, knobs)
    solutions = _check_plan(made)
    # Under last-link only a split set conflict makes elitist and democratic defeat differently.
    elitist, democratic = (set(solution.defeats) for solution in solutions[:2])
    assert (elitist != democratic) == any(made.splits)
    queried = choose(rng, made.plan, knobs.queries)
    assert len(queried) == len(set(queried)) == knobs.queries
    for index in range(len(ORDERINGS)):
        found = Counter(made.plan[claim][index] for claim in queried)
        assert len(found) == 3 and max(found.values()) <= 0.45 * knobs.queries
    # Some queried claim changes status with the link principle under both set comparisons
    # (the plan holds, checked above); a level-2 theory without a duel has none.
    if made.duels:
        assert any(
            statuses[0] != statuses[2] and statuses[1] != statuses[3]
            for statuses in (made.plan[claim] for claim in queried)
        )


def test_choose_prefers_a_duel_that_keeps_the_balance() -> None:
    a, b, c, d, e = (Literal(name) for name in ("a", "b", "c", "d", "e"))
    plan = {
        a: vector("JJUU"),
        b: vector("UUJJ"),
        c: vector("OOOO"),
        d: vector("JJJJ"),
        e: vector("UUUU"),
    }
    # c, d, e would do too; a alone cannot be completed (under one principle it needs an
    # undecided claim, under the other a justified one, with one slot each); a with b can.
    for seed in range(4):
        assert sorted(choose(random.Random(seed), plan, 3), key=str) == [a, b, c]


def test_choose_gives_up_without_a_completion() -> None:
    plan = {Literal("a"): vector("JJJJ"), Literal("b"): vector("OOOO")}
    assert choose(random.Random(0), plan, 3) == []


def test_queried_claims_per_level_are_arggyms() -> None:
    # round(3 + (level - 1) * 37 / 14): 3 at level 1, 40 at level 15
    expected = [3, 6, 8, 11, 14, 16, 19, 22, 24, 27, 29, 32, 35, 37, 40]
    assert [query_count(level) for level in LEVELS] == expected


def test_set_conflicts_are_drawn_split_and_joined() -> None:
    drawn = [split for level in range(3, 16) for split in design_of(level).splits]
    assert len(drawn) == sum(curriculum(level).splits for level in range(3, 16))
    assert True in drawn and False in drawn


def _c1_counts(theory, statuses) -> tuple:
    kinds = Counter(type(directive).__name__ for directive in theory.directives())
    return (
        len(theory.queries),
        kinds["Axiom"],
        kinds["PremisePreference"],
        kinds["RulePreference"],
        sorted(Counter(statuses).values()),
    )


def test_level_2_admits_the_papers_c1() -> None:
    c1 = read_theory(EXAMPLES / "arggym_c1_status_query.arg")
    paper = ["undecided", "justified", "undecided", "overruled", "overruled", "justified"]
    assert _c1_counts(c1, paper) == (6, 1, 2, 0, [2, 2, 2])
    knobs = curriculum(2)
    # Six queried claims; two premise preferences, those of level 2's steady groups; no rule
    # preference, which level 2 allows (no duel is its fewest, and it has no set conflict).
    assert knobs.queries == 6
    assert knobs.undermined + knobs.premise_pairs + knobs.junctions == 2
    assert knobs.duels[0] == 0 and knobs.splits == 0 and knobs.strict_sides == 1
    found = [
        seed
        for seed in range(12)
        if _c1_counts(
            (instance := generate("status_query", 2, LAST_DEMOCRATIC, seed)).parsed_theory,
            instance.target.values(),
        )
        == (6, 1, 2, 0, [2, 2, 2])
    ]
    assert found


def _released_rows() -> list[dict]:
    if not SAMPLE.exists():
        return []
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if row["task"] == "status_query"]


@pytest.mark.skipif(not _released_rows(), reason=f"{SAMPLE} not available")
def test_scale_follows_the_released_taskset() -> None:
    directives, arguments = [], []
    for row in _released_rows():
        principle, set_comparison = row["ordering"].split("_link_")
        ordering = Ordering(f"{principle}-link", set_comparison)
        instance = generate("status_query", row["level"], ordering, seed=0)
        assert len(instance.target) == len(row["gold"]["gold"])
        released = "\n".join(line for line in row["question"].splitlines() if line[:1] == "[")
        directives.append(
            len(DIRECTIVE.findall(instance.theory)) / len(DIRECTIVE.findall(released))
        )
        their_arguments = len(solve(parse_theory(released), ordering=ordering).arguments)
        arguments.append(instance.meta["arguments"] / their_arguments)
    assert 0.67 <= statistics.median(directives) <= 1.5
    assert 0.67 <= statistics.median(arguments) <= 1.5


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gold_statuses_agree_with_pyarg(ordering: Ordering) -> None:
    for level in (1, 5, 9):
        instance = generate("status_query", level, ordering, seed=100 + level)
        theory = instance.parsed_theory
        expected = oracle(theory, ordering).statuses(list(theory.queries))
        assert expected == instance.target, instance.id


def test_last_answer_region_counts() -> None:
    assert answer_region("<answer>a</answer> then <ANSWER>\nb\n</answer>") == "\nb\n"
    assert answer_region("<answer>unclosed") is None


def test_answer_grammar_is_tolerant_of_form() -> None:
    answer = "\n  1. `ab1`: Justified.\n- -cd2 : OVERRULED\n\n* **ef3**: undecided,\n"
    assert read_entries(answer, "status_map") == [
        (Literal("ab1"), "justified"),
        (Literal("cd2", True), "overruled"),
        (Literal("ef3"), "undecided"),
    ]


@pytest.mark.parametrize(
    "answer",
    ["ab1 is justified", "ab1: accepted", "ab1: justified because of r1", "ab 1: justified"],
)
def test_answer_grammar_is_strict_about_content(answer: str) -> None:
    instance = generate("status_query", 1, Ordering(), seed=0)
    result = score(instance, f"<answer>{answer}</answer>")
    assert (result.native, result.success) == (0.0, False)
    assert result.reason.startswith("unreadable answer")


def test_pair_f1_counts_contradictory_duplicates_wrong() -> None:
    a, b = Literal("a"), Literal("b")
    gold = {a: "justified", b: "overruled"}
    assert pair_f1([(a, "justified"), (b, "overruled")], gold) == (1.0, True)
    f1, exact = pair_f1([(a, "justified"), (a, "overruled"), (b, "overruled")], gold)
    assert (round(f1, 3), exact) == (0.5, False)  # P = 1/2 (two keys), R = 1/2
    f1, exact = pair_f1([(a, "justified")], gold)
    assert (round(f1, 3), exact) == (0.667, False)
    assert pair_f1([(a, "justified"), (a, "justified"), (b, "overruled")], gold) == (1.0, True)
