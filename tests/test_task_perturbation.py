"""perturbation: every cell generates; references succeed; the gold is the status diff of the
original and the updated theory, and agrees with PyArg; the gates hold; the link principle
decides each held derivation, and the principled preference moves decide it under the other
principle; updates apply as documented; scoring is pair F1 over the changed claims."""

from __future__ import annotations

import functools
import random

import pytest
from oracle import oracle
from task_checks import check_contract

import argc.tasks.arggym.perturbation as pt
from argc.compiler import solve
from argc.dsl.ir import (
    ORDERINGS,
    PRINCIPLES,
    SET_COMPARISONS,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
)
from argc.dsl.parser import parse_theory
from argc.tasks import Instance, generate, score
from argc.tasks.arggym import principle
from argc.tasks.builder import Builder
from argc.tasks.framework import CELLS


@functools.cache
def _instance(level: int, ordering: Ordering) -> Instance:
    """The instance of a cell that the tests share (seed = level)."""
    return generate("perturbation", level, ordering, seed=level)


def _corrupt(reference: str) -> str:
    first, *rest = reference.splitlines()
    claim, status = first.split(": ")
    other = "overruled" if status != "overruled" else "justified"
    return "\n".join([f"{claim}: {other}", *rest])


def _diff(instance, before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    claims = [str(claim) for claim in pt.original_claims(instance.parsed_theory)]
    return {claim: after[claim] for claim in sorted(claims) if before[claim] != after[claim]}


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(level: int, ordering: Ordering) -> None:
    instance = _instance(level, ordering)
    check_contract(instance, _corrupt(instance.reference))
    # The gold is the diff of two independent solves.
    theory = instance.parsed_theory
    updated = pt.apply_update(theory, pt.read_update(instance.meta["params"]["update"]))
    claims = pt.original_claims(theory)
    before = solve(theory, ordering=ordering)
    after = solve(updated, ordering=ordering)
    expected = _diff(
        instance,
        {str(c): before.status(c) for c in claims},
        {str(c): after.status(c) for c in claims},
    )
    assert expected == instance.target
    # The gates.
    plan = pt.curriculum(level)
    assert len(instance.target) >= plan.min_changes
    assert {str(rule.head) for rule in theory.rules} & set(instance.target)
    assert any(claim not in instance.target for claim in instance.meta["params"]["salient"])
    assert before.consistent and after.consistent
    assert set(instance.meta["params"]["moves"]) <= set(plan.kinds)
    assert len(instance.meta["params"]["held"]) == plan.principled
    assert len(instance.theory.splitlines()) >= plan.size


@pytest.mark.parametrize("level", [3, 9, 15])
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_the_link_principle_decides_each_held_derivation(level: int, ordering: Ordering) -> None:
    # In the original theory each held step is attacked only by its principled attacker:
    # justified (its negation overruled) under the principle the attack fails under, and
    # under the other the two defeat each other (both undecided). The set comparison changes
    # no defeat.
    instance = _instance(level, ordering)
    theory = instance.parsed_theory
    solutions = {o: solve(theory, ordering=o) for o in ORDERINGS}
    for attack, fails_under in instance.meta["params"]["held"]:
        claim = Literal.parse(attack).complement
        for o, solution in solutions.items():
            expected = (
                ("justified", "overruled") if o.principle == fails_under else ("undecided",) * 2
            )
            assert (solution.status(claim), solution.status(claim.complement)) == expected
    for name in PRINCIPLES:
        elitist, democratic = (
            set(solutions[Ordering(name, comparison)].defeats) for comparison in SET_COMPARISONS
        )
        assert elitist == democratic


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gold_changes_agree_with_pyarg(ordering: Ordering) -> None:
    for level in (2, 7, 12):
        instance = _instance(level, ordering)
        theory = instance.parsed_theory
        updated = pt.apply_update(theory, pt.read_update(instance.meta["params"]["update"]))
        claims = pt.original_claims(theory)
        before = oracle(theory, ordering).statuses(claims)
        after = oracle(updated, ordering).statuses(claims)
        assert _diff(instance, before, after) == instance.target, instance.id


def test_updates_add_and_remove_directives() -> None:
    theory = parse_theory(
        "[premise: a]\n[premise: -a]\n[premise: c]\n[defeasible r1: a => b]\n"
        "[defeasible r2: c => -b]\n[prefer_premise: a > -a]\n"
    )
    update = pt.read_update(
        [
            ["remove", "[prefer_premise: a > -a]"],
            ["remove", "[defeasible r2: c => -b]"],
            ["add", "[defeasible u: c => -r1]"],
            ["add", "[premise: d]"],
        ]
    )
    assert update[0] == ("remove", PremisePreference(Literal("a"), Literal("a", True)))
    updated = pt.apply_update(theory, update)
    assert Premise(Literal("d")) in list(updated.directives())
    assert [rule.name for rule in updated.rules] == ["r1", "u"]
    assert updated.premise_preferences == ()
    assert isinstance(updated.rule("u"), Rule)
    # The claims considered are the original theory's literals only (not d, not -r1).
    assert [str(c) for c in pt.original_claims(theory)] == ["-a", "-b", "a", "b", "c"]


def test_prompt_states_the_update_and_the_claims() -> None:
    instance = generate("perturbation", 9, Ordering("last-link", "democratic"), seed=5)
    for operation, text in instance.meta["params"]["update"]:
        assert f"{operation} {text}" in instance.prompt
    claims = ", ".join(str(c) for c in pt.original_claims(instance.parsed_theory))
    assert claims in instance.prompt
    assert "last-link democratic" in instance.prompt and "<answer>" in instance.prompt


def test_scoring_is_pair_f1_over_changed_claims() -> None:
    instance = generate("perturbation", 10, Ordering(), seed=2)
    gold = instance.target
    lines = [f"{claim}: {status}" for claim, status in gold.items()]
    n = len(gold)
    assert n >= 2
    # Tolerant of form.
    loose = "\n".join(f"- `{claim}`: {status.upper()}." for claim, status in gold.items())
    assert score(instance, f"<answer>\n{loose}\n</answer>").success
    # A changed claim left out: precision 1, recall (n-1)/n.
    result = score(instance, "<answer>" + "\n".join(lines[1:]) + "</answer>")
    assert result.native == pytest.approx(2 * (n - 1) / (2 * n - 1)) and not result.success
    # An unchanged claim listed as changed counts against precision.
    unchanged = next(
        str(c) for c in pt.original_claims(instance.parsed_theory) if str(c) not in gold
    )
    extra = "\n".join([*lines, f"{unchanged}: undecided"])
    result = score(instance, f"<answer>{extra}</answer>")
    assert result.native == pytest.approx(2 * n / (2 * n + 1)) and not result.success
    # A changed claim with the wrong new status is wrong.
    result = score(instance, f"<answer>{_corrupt(instance.reference)}</answer>")
    assert result.native == pytest.approx((n - 1) / n)
    # Saying nothing changed scores zero; unreadable content scores zero.
    assert score(instance, "<answer></answer>").native == 0.0
    result = score(instance, "<answer>everything changes</answer>")
    assert (result.native, result.success) == (0.0, False)
    assert result.reason.startswith("unreadable answer")


def _held(fails_under: str, seed: int) -> pt.Mover:
    """p =>r1 x =>r2 h with a principled attack on r2 (its ground an ordinary premise)."""
    builder = Builder(random.Random(seed))
    premise = builder.base(Literal("p"))
    first = builder.rule([premise], Literal("x"))
    step = builder.rule([first.head], Literal("h"))
    support = principle.supports(builder)[step.head]
    attacker = principle.rebut(builder, step, support, fails_under)
    assert attacker.body[0] in builder.premises or fails_under == "weakest-link"
    held = pt.Held(step, attacker, support, fails_under)
    return pt.Mover(builder, [first, step], pt.curriculum(2), [held])


@pytest.mark.parametrize("fails_under", PRINCIPLES)
def test_link_orders_decide_the_held_attack_under_the_other_principle(fails_under: str) -> None:
    # Hand-derived: an attack failing under weakest-link gets r2 above its last rule, so
    # last-link now finds it weaker too (h justified, was undecided), weakest-link unchanged.
    # An attack failing under last-link (g =>a -h, r2 > a) gets p above g: weakest-link
    # democratic now finds it weaker on premises and rules (a < r2) and justifies h; elitist
    # needs a below both r1 and r2, so h stays undecided; last-link unchanged.
    mover = _held(fails_under, seed=0)
    (added, touched) = mover.link_orders()[0]
    attacker = mover.held[0].attacker
    if fails_under == "weakest-link":
        assert added == [RulePreference(mover.steps[1].name, attacker.name)]
    else:
        assert added == [PremisePreference(Literal("p"), attacker.body[0])]
    assert touched == [Literal("h"), Literal("h", True)]
    updated = mover.theory.apply(added)
    now_decided = {
        "weakest-link": {"last-link elitist", "last-link democratic"},
        "last-link": {"weakest-link democratic"},
    }[fails_under]
    for ordering in ORDERINGS:
        before = solve(mover.theory, ordering=ordering).status(Literal("h"))
        after = solve(updated, ordering=ordering).status(Literal("h"))
        if ordering.principle == fails_under:
            assert before == after == "justified"
        elif str(ordering) in now_decided:
            assert (before, after) == ("undecided", "justified")
        else:
            assert before == after == "undecided"
