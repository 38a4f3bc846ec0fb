"""Attacks that the link principle decides (argc.tasks.arggym.principle): each fails under one
principle and succeeds under the other, under either set comparison (hand-derived tables),
PyArg agrees, and the set comparison changes no defeat."""

from __future__ import annotations

import random

import pytest
from oracle import oracle

from argc.compiler import solve
from argc.dsl.ir import ORDERINGS, PRINCIPLES, SET_COMPARISONS, Literal, Ordering
from argc.tasks.arggym import principle
from argc.tasks.arggym.principle import LAST_LINK, WEAKEST_LINK, Support
from argc.tasks.builder import Builder

J, OUT, U = "justified", "overruled", "undecided"

#: (attacked claim, its negation) per principle, derived by hand from the definitions, on
#: the chain p =>r1 x =>r2 h (p an ordinary premise):
#: - rebut failing under last-link, g =>a -h with r2 > a: last-link finds {a} below {r2}, so
#:   only h's argument defeats; weakest-link also compares premises, g and p are unranked, so
#:   the two defeat each other.
#: - rebut failing under weakest-link, g =>a0 m =>a -h with a0 < r1, a0 < r2, a < r1, g < p:
#:   last-link sees the unrelated last rules a and r2 (mutual defeat); weakest-link finds the
#:   attacker weaker on premises (g < p) and on rules (elitist: a0 is below both; democratic:
#:   a0 and a are each below some rule), while h's argument is not weaker (p is not below g).
#: - undermine, g =>a -p: last-link finds an argument with a last rule weaker than the
#:   premise p, which has none; weakest-link compares g and p, unranked: mutual defeat.
TABLES = {
    "rebut, fails under last-link": {LAST_LINK: (J, OUT), WEAKEST_LINK: (U, U)},
    "rebut, fails under weakest-link": {LAST_LINK: (U, U), WEAKEST_LINK: (J, OUT)},
    "undermine": {LAST_LINK: (J, OUT), WEAKEST_LINK: (U, U)},
}


def gadget(kind: str, seed: int):
    """The chain p => x => h and the attack of `kind`; returns the theory and the claim."""
    builder = Builder(random.Random(seed))
    premise = builder.base(Literal("p"))
    first = builder.rule([premise], Literal("x"))
    step = builder.rule([first.head], Literal("h"))
    support = principle.supports(builder)[step.head]
    assert support == Support(frozenset({first.name, step.name}), frozenset({premise}))
    if kind == "undermine":
        principle.undermine(builder, premise)
        return builder.theory(), premise
    fails_under = LAST_LINK if kind.endswith("last-link") else WEAKEST_LINK
    principle.rebut(builder, step, support, fails_under)
    return builder.theory(), step.head


#: Seeds whose last-link attackers rest on an ordinary premise (0) and on an axiom (7).
AXIOM_SEED = 7


@pytest.mark.parametrize("seed", [0, AXIOM_SEED])
@pytest.mark.parametrize("kind", list(TABLES))
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gadget_statuses(kind: str, ordering: Ordering, seed: int) -> None:
    theory, claim = gadget(kind, seed)
    on_axiom = seed == AXIOM_SEED and not kind.endswith("weakest-link")
    assert len(theory.axioms) == on_axiom
    solution = solve(theory, ordering=ordering)
    found = (solution.status(claim), solution.status(claim.complement))
    assert found == TABLES[kind][ordering.principle]
    statuses = oracle(theory, ordering).statuses([claim, claim.complement])
    assert (statuses[str(claim)], statuses[str(claim.complement)]) == found


@pytest.mark.parametrize("kind", list(TABLES))
@pytest.mark.parametrize("principle_name", PRINCIPLES)
def test_the_set_comparison_changes_no_defeat(kind: str, principle_name: str) -> None:
    theory, _ = gadget(kind, 0)
    elitist, democratic = (
        set(solve(theory, ordering=Ordering(principle_name, comparison)).defeats)
        for comparison in SET_COMPARISONS
    )
    assert elitist == democratic


def test_supports_skip_literals_with_two_arguments_and_the_unsupported() -> None:
    builder = Builder(random.Random(0))
    a, b = builder.base(Literal("a")), builder.base(Literal("b"), axiom_share=1.0)
    joined = builder.rule([a, b], Literal("c"), strict=True)
    builder.rule([Literal("c")], Literal("d"))
    builder.rule([b], Literal("d"))  # a second argument for d
    builder.rule([Literal("nothing")], Literal("e"))
    found = principle.supports(builder)
    assert found[joined.head] == Support(frozenset(), frozenset({a}))
    assert found[b] == Support()
    assert Literal("d") not in found and Literal("e") not in found


def test_a_step_without_the_needed_support_is_refused() -> None:
    builder = Builder(random.Random(0))
    axiom = builder.base(Literal("a"), axiom_share=1.0)
    step = builder.rule([axiom], Literal("h"))
    support = principle.supports(builder)[step.head]
    # No ordinary premise (last-link) and no earlier defeasible rule (weakest-link).
    for fails_under in PRINCIPLES:
        assert not principle.rebuttable(step, support, fails_under)
        with pytest.raises(ValueError):
            principle.rebut(builder, step, support, fails_under)
