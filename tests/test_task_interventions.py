"""The constructive (intervention) tasks: in every cell of every registered InterventionTask
(each level under one ordering in the quick run, every ordering with ARGC_SLOW=1) the
witness is a minimal answer from the declared (legal) candidate space and scores 1;
oversized and empty answers score 0; the goals are not met before the intervention;
no smaller subset of the space works (by enumeration where small); PyArg agrees on the
witness's outcome. Then ArgGYM's scorer (Appendix B) on a small hand-built instance."""

from __future__ import annotations

import json
import os
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from itertools import combinations
from math import comb
from pathlib import Path

import pytest
from oracle import oracle
from task_checks import check_contract

from argc.compiler import Solution, solve, solve_many
from argc.compiler.intervention import fewest_additions
from argc.dsl import read_theory
from argc.dsl.errors import ArgcError
from argc.dsl.ir import (
    ORDERINGS,
    PRINCIPLES,
    SET_COMPARISONS,
    Directive,
    Literal,
    Ordering,
    Rule,
    Theory,
)
from argc.dsl.parser import parse_intervention, parse_theory
from argc.tasks import REGISTRY, Instance, generate, score
from argc.tasks.arggym.counter_argument import CounterArgument
from argc.tasks.arggym.intervention import (
    ATTACKING,
    FORMS,
    InterventionTask,
    intervention_target,
    legal_part,
    score_intervention,
)
from argc.tasks.framework import CELLS, Candidate

TASKS = sorted(name for name, task in REGISTRY.items() if isinstance(task, InterventionTask))
#: Most subsets smaller than the minimum that the enumeration check solves per instance.
MAX_ENUMERATED = 1000
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: Largest modified theory, in arguments, compared with PyArg.
MAX_ORACLE_ARGUMENTS = 80


@cache
def instance_of(name: str, level: int, ordering: Ordering) -> Instance:
    return generate(name, level, ordering, seed=level)


def directives(lines: Sequence[str]) -> list[Directive]:
    return parse_intervention("\n".join(lines))


def goals_of(target: Mapping) -> dict[Literal, str]:
    return {Literal.parse(claim): status for claim, status in target["goals"].items()}


def meets(solution: Solution, goals: Mapping[Literal, str]) -> bool:
    return all(solution.status(goal) == status for goal, status in goals.items())


def smaller_subsets(target: Mapping) -> int:
    """How many subsets of the candidate space are smaller than the minimum."""
    space = target["candidate_space_size"]
    return sum(comb(space, size) for size in range(target["min_directives"]))


def contradictions(statuses: Mapping[str, str]) -> set[str]:
    """The justified claims whose negation is justified too."""
    justified = {claim for claim, status in statuses.items() if status == "justified"}
    return {claim for claim in justified if str(Literal.parse(claim).complement) in justified}


def answer(lines: Sequence[str]) -> str:
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


def rotating_cells() -> list:
    """Every (task, level, ordering): in the quick run each task's every level under one
    ordering, turning with the level and the task (so each task meets every ordering too);
    the other three quarters with ARGC_SLOW=1."""
    cells = []
    for index, name in enumerate(TASKS):
        for level, ordering in CELLS:
            quick = (level + ORDERINGS.index(ordering) + index) % len(ORDERINGS) == 0
            marks = () if quick else pytest.mark.slow
            cells.append(
                pytest.param(name, level, ordering, marks=marks, id=f"{name}-{level}-{ordering}")
            )
    return cells


@pytest.mark.parametrize(("name", "level", "ordering"), rotating_cells())
def test_every_cell(name: str, level: int, ordering: Ordering) -> None:
    instance = instance_of(name, level, ordering)
    target, theory = instance.target, instance.parsed_theory
    goals, m = goals_of(target), target["min_directives"]
    # The witness: the reference, of the minimum's size, from the candidate space.
    witness = directives(target["witness"])
    assert instance.reference.splitlines() == target["witness"]
    assert len(witness) == m >= 1
    assert len(target["candidate_space"]) == target["candidate_space_size"]
    assert set(target["witness"]) <= set(target["candidate_space"])
    # Every candidate is a permitted addition (so the minimum is over legal answers).
    space = directives(target["candidate_space"])
    assert legal_part(space, theory, target["language"])[1] == []
    check_contract(instance)
    empty = score(instance, "<answer></answer>")
    assert (empty.native, empty.success) == (0.0, False)
    # More than 2m directives score zero before execution.
    padded = score(instance, answer([*target["witness"], *[target["witness"][0]] * (m + 1)]))
    assert (padded.native, padded.success) == (0.0, False), padded.reason
    # The goals are not all met before the intervention.
    before = solve(theory, ordering=ordering)
    assert target["initial"] == {str(goal): before.status(goal) for goal in goals}
    assert not meets(before, goals)
    # No smaller subset of the space works (where there are few enough to enumerate).
    if smaller_subsets(target) <= MAX_ENUMERATED:
        smaller = {}
        for size in range(m):
            for chosen in combinations(space, size):
                try:
                    smaller[chosen] = theory.apply(chosen)
                except ArgcError:
                    continue
        solved = solve_many(list(smaller.values()), ordering=ordering)
        for chosen, solution in zip(smaller, solved, strict=True):
            assert isinstance(solution, Solution), (chosen, solution)
            assert not (solution.consistent and meets(solution, goals)), chosen


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=str)
def test_counter_argument_pairs_are_matched(level: int, ordering: Ordering) -> None:
    """Same seed, same theory and goals; the strict minimum is lower and each arm records the
    other's; the ordinary witness also succeeds (less economically) in the strict arm unless it
    is more than twice the strict minimum, while the strict witness uses a strict rule, which
    the ordinary arm rejects."""
    ordinary = instance_of("counter_argument", level, ordering)
    strict = instance_of("counter_argument_strict", level, ordering)
    assert ordinary.theory == strict.theory
    for key in ("goals", "initial", "subgoals"):
        assert ordinary.target[key] == strict.target[key]
    low, high = strict.target["min_directives"], ordinary.target["min_directives"]
    assert low < high
    assert (ordinary.target["paired_min_directives"], strict.target["paired_min_directives"]) == (
        low,
        high,
    )
    strict_space = directives(strict.target["candidate_space"])
    strict_rules = [d for d in strict_space if isinstance(d, Rule) and d.strict]
    assert len(strict_space) - len(strict_rules) == ordinary.target["candidate_space_size"]
    crossed = score(strict, answer(ordinary.target["witness"]))
    if high <= 2 * low:
        assert crossed.success and crossed.native == 0.5 + 0.5 * low / high, crossed.reason
    else:
        assert (crossed.native, crossed.success) == (0.0, False)
        assert "more than twice the minimum" in crossed.reason
    assert any(isinstance(d, Rule) and d.strict for d in directives(strict.target["witness"]))
    refused = score(ordinary, answer(strict.target["witness"]))
    assert not refused.success and "strict rules may not be added" in refused.reason


@pytest.mark.parametrize("name", TASKS)
def test_enumeration_covers_a_fair_share(name: str) -> None:
    """The enumeration above is not vacuous: it covers at least a fifth of the cells, and at
    least a fifth of those whose minimum is 2 or more (where it checks more than the base)."""
    targets = [instance_of(name, level, ordering).target for level, ordering in CELLS]
    enumerated = [t for t in targets if smaller_subsets(t) <= MAX_ENUMERATED]
    several = [t for t in targets if t["min_directives"] >= 2]
    enumerated_several = [t for t in enumerated if t["min_directives"] >= 2]
    counts = (
        f"{len(enumerated)}/{len(targets)} cells enumerated,"
        f" {len(enumerated_several)}/{len(several)} with a minimum of 2 or more"
    )
    assert 5 * len(enumerated) >= len(targets), counts
    assert 5 * len(enumerated_several) >= len(several), counts


def arguments_for(solution: Solution, claim: str) -> list:
    return solution.arguments_for(Literal.parse(claim))


def defeaters(solution: Solution, claim: str) -> set[str]:
    """The arguments that defeat an argument for `claim` or one of its sub-arguments."""
    inside = {
        sub
        for argument in arguments_for(solution, claim)
        for sub in solution.subarguments(argument.name)
    }
    return {attacker for attacker, attacked in solution.defeats if attacked in inside}


def strict_top(solution: Solution, argument) -> bool:
    return argument.top_rule is not None and solution.theory.rule(argument.top_rule).strict


def designed_minimum(name: str, instance: Instance) -> int:
    """The minimum each generator's structure implies, read off the base theory: attack's
    target has independent arguments (routes), each cut by one directive and by no other,
    and those already defeated need none;
    defence must answer each defeater of the target's support on its own; attack_defense
    cuts the first claim's own route once and answers each defeater of the second; the
    counter-argument pair needs a strict counter-argument (one directive) that defeats every
    argument for the target ending in a defeasible rule and one cut per argument ending in a
    strict rule, and without strict rules one directive more per defeasible ending, less the
    counter-argument itself where the theory already has a beaten one to revive."""
    solution = solve(instance.parsed_theory, ordering=instance.strength)
    goals = instance.target["goals"]
    if name == "attack":
        (claim,) = goals
        return sum(solution.label(a.name) != "out" for a in arguments_for(solution, claim))
    if name == "defence":
        (claim,) = goals
        return len(defeaters(solution, claim))
    if name == "attack_defense":
        (defended,) = [claim for claim, status in goals.items() if status == "justified"]
        return 1 + len(defeaters(solution, defended))
    (claim,) = [claim for claim, status in goals.items() if status == "overruled"]
    tops = [strict_top(solution, argument) for argument in arguments_for(solution, claim)]
    strict = 1 + sum(tops)
    if name == "counter_argument_strict":
        return strict
    revived = bool(arguments_for(solution, str(Literal.parse(claim).complement)))
    return strict + tops.count(False) - revived


DESIGNED = [task for task in TASKS if task != "preference_construction"]


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=str)
@pytest.mark.parametrize("name", DESIGNED)
def test_minimum_is_the_designed_one(name: str, level: int, ordering: Ordering) -> None:
    instance = instance_of(name, level, ordering)
    assert instance.target["min_directives"] == designed_minimum(name, instance)


#: ArgGYM §A.3: the matched pairs' minima (strict, ordinary) per level of the frozen
#: benchmark's distribution: ordinary 3 for 40 of 120 pairs, 4 for 48, 5 for 24, 6 for 8;
#: strict 2 for 48, 3 for 40, 4 for 24, 5 for 8; a gap of 2 in 8 pairs.
PAIR_MINIMA = {
    **dict.fromkeys(range(1, 6), (2, 3)),
    6: (2, 4),
    **dict.fromkeys(range(7, 12), (3, 4)),
    **dict.fromkeys(range(12, 15), (4, 5)),
    15: (5, 6),
}


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=str)
def test_counter_argument_pair_minima_follow_the_paper(level: int, ordering: Ordering) -> None:
    found = tuple(
        instance_of(name, level, ordering).target["min_directives"]
        for name in ("counter_argument_strict", "counter_argument")
    )
    assert found == PAIR_MINIMA[level]


def test_c3_is_a_matched_pair() -> None:
    """The paper's C.3 instance (as reconstructed in the examples) over the pair's declared
    spaces: the strict arm needs its two-directive reference (a strict counter-argument and
    the cut of the route ending in the strict rule hu2); the ordinary arm one more, a cut of
    the route ending in a defeasible rule, which a defeasible counter-argument does not
    defeat by itself."""
    theory = read_theory(EXAMPLES / "arggym_c3_counterargument.arg")
    ordering = Ordering("weakest-link", "elitist")
    solution = solve(theory, ordering=ordering)
    candidate = Candidate(theory, {"targets": ["au0"], "level": 6})
    goals = {Literal("au0", True): "justified", Literal("au0"): "overruled"}
    pair = REGISTRY["counter_argument"]
    assert isinstance(pair, CounterArgument)
    minima = {}
    for strict in (False, True):
        space = pair.arm_space(candidate, solution, strict)
        found = fewest_additions(theory, space, goals, ordering=ordering)
        assert found is not None
        minima[strict] = found.size
    assert minima == {True: 2, False: 3}


def status_map(theory: Theory, ordering: Ordering) -> dict[str, str]:
    solution = solve(theory, ordering=ordering)
    return {str(claim): solution.status(claim) for claim in theory.claims()}


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=str)
def test_preference_construction_depends_on_the_principle(level: int, ordering: Ordering) -> None:
    """Appendix D.4: switching only the link principle (same set comparison) changes the
    grounded status map of the theory; here in every cell, and for a goal claim too: a
    chain's last rule preferred to its rival decides a conflict under last-link only."""
    instance = instance_of("preference_construction", level, ordering)
    theory = instance.parsed_theory
    other = replace(ordering, principle=next(p for p in PRINCIPLES if p != ordering.principle))
    assert status_map(theory, ordering) != status_map(theory, other)


@pytest.mark.parametrize("name", TASKS)
def test_last_link_set_comparison_keeps_the_defeats(name: str) -> None:
    """Appendix D.4: under last-link, elitist and democratic induce the same defeat relation
    (every argument has at most one last defeasible rule)."""
    for level, ordering in CELLS:
        if ordering.principle == "last-link":
            theory = instance_of(name, level, ordering).parsed_theory
            defeats = [
                set(solve(theory, ordering=replace(ordering, set_comparison=kind)).defeats)
                for kind in SET_COMPARISONS
            ]
            assert defeats[0] == defeats[1], (level, ordering)


DIRECTIVE = re.compile(r"^\[(axiom|premise|defeasible|strict|prefer_rule|prefer_premise)\b", re.M)
SAMPLE = Path(
    os.environ.get(
        "ARGGYM_SAMPLE",
        Path(__file__).resolve().parents[2] / "shared" / "arggym-released" / "sample.jsonl",
    )
)


@pytest.mark.skipif(not SAMPLE.exists(), reason=f"{SAMPLE} not available")
@pytest.mark.parametrize("name", TASKS)
def test_scale_and_minima_match_the_released_rows(name: str) -> None:
    """For each released row of the task (ArgGYM's sample), argc's instance of the same level
    and ordering: the median ratio of directive counts is within 0.67-1.5, and from level 13
    the minimum is at most one below the released one."""
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    ratios = []
    for row in (row for row in rows if row["task"] == name):
        principle, comparison = row["ordering"].split("_link_")
        ordering = Ordering(f"{principle}-link", comparison)
        instance = generate(name, row["level"], ordering, seed=0)
        ratios.append(
            len(DIRECTIVE.findall(instance.theory)) / len(DIRECTIVE.findall(row["question"]))
        )
        if row["level"] >= 13:
            assert instance.target["min_directives"] >= row["gold"]["min_directives"] - 1, row["id"]
    assert ratios and 0.67 <= statistics.median(ratios) <= 1.5, ratios


@pytest.mark.oracle
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
@pytest.mark.parametrize("name", TASKS)
def test_witness_outcome_agrees_with_pyarg(name: str, ordering: Ordering) -> None:
    """PyArg gives the goal claims their goal statuses in the theory with the witness added
    and justifies no literal together with its negation."""
    compared = 0
    for level in (1, 4, 7, 10, 13):
        instance = instance_of(name, level, ordering)
        modified = instance.parsed_theory.apply(directives(instance.target["witness"]))
        shapes = [(frozenset(rule.body), rule.head) for rule in modified.rules]
        if len(set(shapes)) < len(shapes):  # PyArg merges such rules (documented divergence)
            continue
        if len(solve(modified, ordering=ordering).arguments) > MAX_ORACLE_ARGUMENTS:
            continue
        statuses = oracle(modified, ordering).statuses(list(modified.claims()))
        goals = instance.target["goals"]
        assert {claim: statuses[claim] for claim in goals} == goals, instance.id
        assert not contradictions(statuses), instance.id
        compared += 1
    assert compared >= 3


# The scorer on a hand-built instance -----------------------------------------------------

#: t has two routes, r2 over r1 from the premise a, and r3 from the premise q; x1 and x2 are
#: a latent contradiction (preferring one makes w and -w both justified).
THEORY = parse_theory(
    "[axiom: e]\n[axiom: f]\n[premise: a]\n[premise: q]\n"
    "[defeasible r1: a => b]\n[defeasible r2: b => t]\n[defeasible r3: q => t]\n"
    "[defeasible x1: e => k]\n[defeasible x2: f => -k]\n[strict s1: k -> w]\n[strict s2: k -> -w]\n"
)
SPACE = parse_intervention(
    "[defeasible u1: e => -r1]\n[defeasible u2: e => -r2]\n[defeasible u3: e => -r3]\n"
    "[premise: -a]\n[prefer_premise: -a > a]\n[premise: -q]\n[prefer_premise: -q > q]\n"
    "[defeasible c1: e => -t]\n[prefer_rule: c1 > r2]\n[prefer_rule: c1 > r3]\n"
)
ORDERING = Ordering("last-link", "elitist")
T, Q = Literal("t"), Literal("q")


def hand_built(goals: dict[Literal, str]) -> Instance:
    """An instance over THEORY whose target is computed as the tasks compute theirs."""
    minimum = fewest_additions(THEORY, SPACE, goals, ordering=ORDERING)
    assert minimum is not None
    solution = solve(THEORY, ordering=ORDERING)
    target = intervention_target(solution, goals, SPACE, minimum, ATTACKING)
    return Instance(
        id="hand-built",
        task="attack",
        level=1,
        ordering=ORDERING.principle,
        set=ORDERING.set_comparison,
        seed=0,
        theory=THEORY.to_text(),
        prompt="",
        reference="\n".join(target["witness"]),
        target=target,
        meta={},
    )


def scored(instance: Instance, text: str) -> tuple[float, bool]:
    found = score_intervention(instance, text)
    return found.native, found.success


@pytest.fixture(scope="module")
def single() -> Instance:
    """t (justified) is to become overruled: two cuts, one per route."""
    return hand_built({T: "overruled"})


def test_hand_built_target(single: Instance) -> None:
    target = single.target
    assert target["min_directives"] == 2 and target["initial"] == {"t": "justified"}
    assert target["subgoals"] == {"t": {"a": "justified", "b": "justified", "q": "justified"}}
    assert scored(single, single.reference) == (1.0, True)


def test_unreadable_and_empty_answers_score_zero(single: Instance) -> None:
    found = score_intervention(single, "[defeasible u1: e => -r1]\nundercut r3 as well")
    assert (found.native, found.success) == (0.0, False)
    assert found.reason.startswith("unreadable directive")
    assert scored(single, "") == (0.0, False)


def test_efficiency_credit_for_longer_successes(single: Instance) -> None:
    cuts = ["[defeasible u1: e => -r1]", "[defeasible u3: e => -r3]"]
    assert scored(single, "\n".join(cuts)) == (1.0, True)
    extra = "[defeasible n1: f => -r2]"
    assert scored(single, "\n".join([*cuts, extra])) == (pytest.approx(0.5 + 0.5 * 2 / 3), True)
    assert scored(single, "\n".join([*cuts, extra, cuts[0]])) == (0.75, True)
    assert scored(single, "\n".join([*cuts, extra, cuts[0], cuts[1]])) == (0.0, False)


def test_illegal_directives_are_rejected_but_counted(single: Instance) -> None:
    # A strict rule would overrule t on its own, but the language has no strict rules.
    strict = "[strict v1: e -> -t]"
    assert solve(THEORY.apply(directives([strict])), ordering=ORDERING).status(T) == "overruled"
    found = score_intervention(single, strict)
    assert (found.native, found.success) == (0.0, False)
    assert "strict rules may not be added" in found.reason
    cuts = ["[defeasible u1: e => -r1]", "[defeasible u3: e => -r3]"]
    found = score_intervention(single, "\n".join([*cuts, strict]))
    assert (found.native, found.success) == (pytest.approx(0.5 + 0.5 * 2 / 3), True)
    assert "rejected 1" in found.reason
    # Rule names must be fresh: not a rule of the theory, nor an atom.
    for name, why in (("r2", "already a rule"), ("a", "is an atom")):
        found = score_intervention(single, f"[defeasible {name}: e => -r1]\n{cuts[1]}")
        assert not found.success and why in found.reason
    assert scored(single, f"[defeasible n1: e => -r1]\n{cuts[1]}") == (1.0, True)
    # Axioms may not be added, though -a would undermine the first route.
    axiom = "[axiom: -a]"
    assert solve(THEORY.apply(directives([axiom, cuts[1]])), ordering=ORDERING).status(T) == (
        "overruled"
    )
    found = score_intervention(single, f"{axiom}\n{cuts[1]}")
    assert not found.success and "axioms may not be added" in found.reason
    # Nor may contradictory declarations, which change the language: declaring the axiom e
    # and t contradictory would overrule t without a new rule.
    declared = "[contradictory: e <-> t]"
    after = solve(THEORY.apply(directives([declared, cuts[1]])), ordering=ORDERING)
    assert after.status(T) == "overruled"
    found = score_intervention(single, f"{declared}\n{cuts[1]}")
    assert not found.success
    assert "contradictory declarations may not be added: they change the language" in found.reason


def test_preferences_may_name_rules_the_answer_adds_later(single: Instance) -> None:
    text = "[prefer_rule: c1 > r2]\n[prefer_rule: c1 > r3]\n[defeasible c1: e => -t]"
    assert scored(single, text) == (pytest.approx(0.5 + 0.5 * 2 / 3), True)
    found = score_intervention(single, "[prefer_rule: c9 > r2]\n[defeasible c1: e => -t]")
    assert not found.success and "'c9' is not a defeasible rule" in found.reason


def test_legal_part() -> None:
    """The legality the prompt states: fresh rule names (not a rule, an earlier rule of the
    answer, or an atom of the theory or of the answer), antecedents present in the theory (or
    negated premises the answer adds), `[premise: -p]` only for an ordinary premise p, no
    axioms, no strict rules in an attacking language."""
    answer_directives = directives(
        [
            "[prefer_rule: n1 > r1]",  # 0 legal: names a rule the answer adds
            "[defeasible n1: e => -b]",  # 1 legal
            "[defeasible n1: f => -b]",  # 2 the name is taken by line 1
            "[strict n2: e -> -b]",  # 3 strict rules are not permitted
            "[premise: -a]",  # 4 legal
            "[prefer_premise: -a > a]",  # 5 legal: -a is added by line 4
            "[premise: -e]",  # 6 would undermine an axiom
            "[axiom: -q]",  # 7 axioms are not permitted
            "[defeasible n3: zz => -t]",  # 8 zz is not in the theory
            "[defeasible n4: -a => -t]",  # 9 legal: -a is a negated premise the answer adds
            "[defeasible k: e => -t]",  # 10 k is an atom of the theory
            "[defeasible n5: e => nw]",  # 11 legal: a new head is fine
            "[defeasible nw: e => -t]",  # 12 nw is an atom of the answer
            "[premise: q]",  # 13 not a negation
            "[contradictory: e <-> t]",  # 14 contradictory declarations are not permitted
        ]
    )
    legal, reasons = legal_part(answer_directives, THEORY, ATTACKING)
    assert legal == [answer_directives[i] for i in (0, 1, 4, 5, 9, 11)]
    assert legal_part(answer_directives, THEORY, tuple(FORMS))[1][-1].endswith(
        "contradictory declarations may not be added: they change the language"
    )
    expected = [
        "is defined twice",
        "strict rules may not be added",
        "would undermine the axiom e",
        "axioms may not be added",
        "antecedent(s) zz not present in the theory",
        "'k' is an atom of the theory or of the answer",
        "'nw' is an atom of the theory or of the answer",
        "'q' is not the negation of an ordinary premise",
        "contradictory declarations may not be added",
    ]
    assert len(reasons) == len(expected)
    for reason, phrase in zip(reasons, expected, strict=True):
        assert phrase in reason


def test_partial_credit_for_undecided(single: Instance) -> None:
    """A symmetric rebuttal leaves t undecided: 0.25 × 0.4."""
    found = score_intervention(single, "[defeasible c1: e => -t]")
    assert (found.native, found.success) == (pytest.approx(0.25 * 0.4), False)


def test_partial_credit_for_overruled_support(single: Instance) -> None:
    """Cutting only the first route overrules b (1 of 3 sub-goals), or a and b (2 of 3)."""
    assert scored(single, "[defeasible u1: e => -r1]") == (pytest.approx(0.25 * 0.3 / 3), False)
    text = "[premise: -a]\n[prefer_premise: -a > a]"
    assert scored(single, text) == (pytest.approx(0.25 * 0.3 * 2 / 3), False)


def test_goals_met_before_count_only_when_broken() -> None:
    instance = hand_built({T: "overruled", Q: "justified"})
    assert instance.target["initial"] == {"q": "justified", "t": "justified"}
    assert instance.target["min_directives"] == 2
    assert scored(instance, instance.reference) == (1.0, True)
    # q stays justified: only t counts (0.3 × 1/3).
    assert scored(instance, "[defeasible u1: e => -r1]") == (pytest.approx(0.25 * 0.1), False)
    # -q breaks q (0) and leaves t undecided (0.4).
    text = "[defeasible u1: e => -r1]\n[premise: -q]"
    assert scored(instance, text) == (pytest.approx(0.25 * 0.4 / 2), False)


def test_inconsistent_results_score_zero(single: Instance) -> None:
    trapped = [*single.target["witness"], "[prefer_rule: x1 > x2]"]
    after = solve(THEORY.apply(directives(trapped)), ordering=ORDERING)
    assert after.status(T) == "overruled" and not after.consistent
    found = score_intervention(single, "\n".join(trapped))
    assert (found.native, found.success) == (0.0, False) and "inconsistent" in found.reason
