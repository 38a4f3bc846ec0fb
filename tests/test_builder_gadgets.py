"""The builder's ordering-sensitive conflicts decide as documented under each of the four
orderings (hand-derived tables), PyArg agrees, and only the designed one makes last-link's
elitist and democratic readings differ."""

from __future__ import annotations

import random

import pytest
from oracle import oracle

from argc.compiler import solve
from argc.dsl.ir import ORDERINGS, Ordering
from argc.tasks.builder import Builder

LAST_ELITIST, LAST_DEMOCRATIC, WEAKEST_ELITIST, WEAKEST_DEMOCRATIC = ORDERINGS
J, OUT, U = "justified", "overruled", "undecided"

#: (claim, negation) statuses per ordering, derived by hand from the definitions:
#: principle_conflict(rule_below=True): last rules rA > rB decide for x under last-link;
#: under weakest-link x's argument is weaker on premises (p < q) and, elitist, on rules
#: (its earlier rule r1 is below rB, so some element is below every element of {rB});
#: democratic needs every element of {r1, rA} below rB, which rA is not: both undecided.
#: Without the earlier rule, weakest-link finds x weaker on premises but not on rules, and
#: -x weaker on rules but not on premises: neither is weaker, both undecided.
#: last_rules_conflict(split=True): the joined argument for -t has last rules {arm1, arm2};
#: elitist finds it weaker than t's argument (arm1 < support), so its rebut fails and t's
#: strict counter (t, part1 -> -part2) wins; democratic needs arm2 < support too, so both
#: sides defeat each other; weakest-link compares all rules and premises, which no
#: preference orders: undecided.
TABLES = {
    ("principle", True): {
        LAST_ELITIST: (J, OUT),
        LAST_DEMOCRATIC: (J, OUT),
        WEAKEST_ELITIST: (OUT, J),
        WEAKEST_DEMOCRATIC: (U, U),
    },
    ("principle", False): {
        LAST_ELITIST: (J, OUT),
        LAST_DEMOCRATIC: (J, OUT),
        WEAKEST_ELITIST: (U, U),
        WEAKEST_DEMOCRATIC: (U, U),
    },
    ("last rules", True): {
        LAST_ELITIST: (J, OUT),
        LAST_DEMOCRATIC: (U, U),
        WEAKEST_ELITIST: (U, U),
        WEAKEST_DEMOCRATIC: (U, U),
    },
    ("last rules", False): {
        LAST_ELITIST: (J, OUT),
        LAST_DEMOCRATIC: (J, OUT),
        WEAKEST_ELITIST: (U, U),
        WEAKEST_DEMOCRATIC: (U, U),
    },
}


def gadget(kind: str, flag: bool, seed: int = 0):
    builder = Builder(random.Random(seed))
    if kind == "principle":
        claim = builder.principle_conflict(rule_below=flag)
    else:
        claim = builder.last_rules_conflict(split=flag)
    return builder.theory(), claim


@pytest.mark.parametrize(("kind", "flag"), list(TABLES), ids=str)
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gadget_statuses(kind: str, flag: bool, ordering: Ordering) -> None:
    theory, claim = gadget(kind, flag)
    solution = solve(theory, ordering=ordering)
    found = (solution.status(claim), solution.status(claim.complement))
    assert found == TABLES[kind, flag][ordering]
    assert solution.consistent
    statuses = oracle(theory, ordering).statuses([claim, claim.complement])
    assert (statuses[str(claim)], statuses[str(claim.complement)]) == found


@pytest.mark.parametrize(("kind", "flag"), list(TABLES), ids=str)
def test_only_the_split_last_rules_separate_the_set_readings_under_last_link(
    kind: str, flag: bool
) -> None:
    theory, _ = gadget(kind, flag)
    elitist = set(solve(theory, ordering=LAST_ELITIST).defeats)
    democratic = set(solve(theory, ordering=LAST_DEMOCRATIC).defeats)
    assert (elitist != democratic) == (kind == "last rules" and flag)
