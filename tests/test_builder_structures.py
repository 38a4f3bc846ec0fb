"""The builder's structures for the constructive tasks: chains have the steps, junctions and
premises asked for; rivals, decided conflicts and beaten rivals decide as documented under
each of the four orderings (hand-derived tables), PyArg agrees, and none makes last-link's
elitist and democratic readings differ."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from oracle import oracle

from argc.compiler import solve
from argc.dsl.ir import ORDERINGS, Literal, Ordering, Theory
from argc.tasks.builder import Builder

LAST_ELITIST, LAST_DEMOCRATIC, WEAKEST_ELITIST, WEAKEST_DEMOCRATIC = ORDERINGS
J, OUT, U = "justified", "overruled", "undecided"
#: Last-link compares the last rules, which one preference orders; weakest-link also
#: compares the premises, which nothing orders, so neither side is weaker.
PRINCIPLE = {
    LAST_ELITIST: (J, OUT),
    LAST_DEMOCRATIC: (J, OUT),
    WEAKEST_ELITIST: (U, U),
    WEAKEST_DEMOCRATIC: (U, U),
}
#: Last-link as above; weakest-link elitist finds the chain's argument weaker on rules (its
#: first rule is below the rival) and on premises (its root is below the rival's premise);
#: democratic needs every element below, which the last rule is not: both undecided.
BELOW = {
    LAST_ELITIST: (J, OUT),
    LAST_DEMOCRATIC: (J, OUT),
    WEAKEST_ELITIST: (OUT, J),
    WEAKEST_DEMOCRATIC: (U, U),
}
#: The rival's rule is below every rule of the chain and its premise below every premise:
#: it is weaker under every principle and set comparison.
BEATEN = dict.fromkeys(ORDERINGS, (J, OUT))
#: Nothing orders the two sides: they defeat each other.
OPEN = dict.fromkeys(ORDERINGS, (U, U))


def rival(builder: Builder) -> Literal:
    """A two-step chain whose last rule has a rival."""
    chain = builder.chain([False, False])
    builder.rival(chain.steps[-1])
    return chain.goal


def rival_below(builder: Builder) -> Literal:
    """A three-step chain whose middle step has a rival above its first step and root."""
    chain = builder.chain([False, False, True], junctions=1)
    builder.rival(chain.steps[1], chain)
    return chain.steps[1].head


def beaten(builder: Builder) -> Literal:
    """A three-step chain with a junction, and a beaten rival of its goal."""
    chain = builder.chain([False, False, False], junctions=1)
    builder.beaten_rival(chain)
    return chain.goal


STRUCTURES: dict[str, tuple[Callable[[Builder], Literal], dict]] = {
    "rival": (rival, PRINCIPLE),
    "rival below the first step": (rival_below, BELOW),
    "decided conflict": (lambda b: b.conflict(3, junctions=1, decided=True).pro.goal, PRINCIPLE),
    "open conflict": (lambda b: b.conflict(2).pro.goal, OPEN),
    "beaten rival": (beaten, BEATEN),
}


def structure(kind: str, seed: int = 0) -> tuple[Theory, Literal]:
    builder = Builder(random.Random(seed))
    claim = STRUCTURES[kind][0](builder)
    return builder.theory(), claim


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_structure_statuses(kind: str, ordering: Ordering) -> None:
    theory, claim = structure(kind)
    solution = solve(theory, ordering=ordering)
    found = (solution.status(claim), solution.status(claim.complement))
    assert found == STRUCTURES[kind][1][ordering]
    assert solution.consistent


@pytest.mark.oracle
@pytest.mark.parametrize("kind", sorted(STRUCTURES))
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_structure_statuses_agree_with_pyarg(kind: str, ordering: Ordering) -> None:
    theory, claim = structure(kind)
    statuses = oracle(theory, ordering).statuses([claim, claim.complement])
    assert (statuses[str(claim)], statuses[str(claim.complement)]) == STRUCTURES[kind][1][ordering]


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
def test_last_link_set_readings_agree(kind: str) -> None:
    theory, _ = structure(kind)
    elitist = set(solve(theory, ordering=LAST_ELITIST).defeats)
    assert elitist == set(solve(theory, ordering=LAST_DEMOCRATIC).defeats)


def test_chain_steps_junctions_and_premises() -> None:
    builder = Builder(random.Random(3))
    goal = Literal("gg1")
    chain = builder.chain([False, True, False, False, True], goal=goal, junctions=2)
    assert [rule.strict for rule in chain.steps] == [False, True, False, False, True]
    assert chain.goal == goal
    # Each step takes the previous conclusion; junctions sit on defeasible steps before
    # the last and add a branch rule from a premise of their own.
    for before, step in zip(chain.steps, chain.steps[1:], strict=False):
        assert step.body[0] == before.head
    forked = [step for step in chain.steps if len(step.body) == 2]
    assert len(forked) == 2 and not any(step.strict for step in forked)
    assert chain.steps[-1] not in forked
    assert [step.body[1] for step in forked] == [branch.head for branch in chain.branches]
    assert all(not branch.strict for branch in chain.branches)
    assert chain.premises == [chain.root, *(branch.body[0] for branch in chain.branches)]
    theory = builder.theory()
    assert set(chain.premises) <= set(theory.premises)
    assert len(chain.defeasible) == 3 + 2


def test_chain_from_an_axiom_or_a_given_start() -> None:
    builder = Builder(random.Random(5))
    axiomatic = builder.chain([False, True], axiom=True)
    assert axiomatic.premises == [] and axiomatic.root in builder.theory().axioms
    continued = builder.chain([False], start=axiomatic.goal)
    assert continued.root == axiomatic.goal and continued.steps[0].body == (axiomatic.goal,)
    assert continued.premises == []


def test_enrichment_decoys_and_contested_premises() -> None:
    """The language's other forms: the axiom's strict consequence and the decoy's strict
    step are justified, the preferred negated premise wins and feeds its rule, and the
    principle conflict decides for its claim under last-link only."""
    builder = Builder(random.Random(7))
    decoy = builder.strict_decoy()
    winner = builder.contested_premise()
    builder.enrichment()
    theory = builder.theory()
    assert decoy.strict and len(theory.axioms) == 1
    for ordering in ORDERINGS:
        solution = solve(theory, ordering=ordering)
        assert solution.consistent
        assert solution.status(decoy.head) == J
        assert (solution.status(winner), solution.status(winner.complement)) == (J, OUT)
        strict = [rule for rule in theory.rules if rule.strict and rule.body[0] in theory.axioms]
        assert solution.status(strict[0].head) == J
        contested = [
            rule for rule in theory.rules if rule.body[0].negated and rule.body[0] != winner
        ]
        assert [solution.status(rule.head) for rule in contested] == [J]
