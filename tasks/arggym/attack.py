"""attack: add directives (new defeasible rules, preferences, negations of ordinary premises)
so that a justified target becomes overruled, with as few directives as the verified minimum.

The target is derived along independent routes (ArgGYM's chain configurations): most end in
a strict rule, so the target cannot be rebutted and each route must be cut below it, by an
undercut, a rebut of a defeasible step or an undermined premise; some start from an axiom,
some have a single defeasible step among strict ones. Each route costs at least one
directive, so the minimum is the number of routes that survive: from level 5 a rival on a
route's step loses under last-link, ties under weakest-link democratic and, being above the
route's first rule and premise, wins under weakest-link elitist, where that route needs no
cut (a second rival from level 11 only ties under weakest-link). Decoys, contested premises
and junction branches fill the rest.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from argc.compiler import Solution
from argc.dsl.ir import Directive, Literal
from argc.tasks.arggym.intervention import (
    InterventionTask,
    RoutedPlan,
    Space,
    finished,
    routed_theory,
    support,
)
from argc.tasks.framework import Candidate, register

#: The route kinds drawn from, by the level they join from.
KINDS = (
    (1, "strict_last"),
    (4, "axiom_strict_last"),
    (7, "scarce"),
    (10, "one_open"),
    (10, "strict_mid"),
)


def curriculum(level: int) -> RoutedPlan:
    """More, longer routes of more kinds, with more junctions, rivals and decoys, as the
    level rises; the minimum is the number of routes, one less under weakest-link elitist
    from level 5 (where the first rival defeats its route)."""
    routes = min(7, 2 + level // 3)
    pool = [kind for start, kind in KINDS if level >= start]
    depth = min(5, 2 + level // 4)
    return RoutedPlan(
        routes=tuple(pool[index % len(pool)] for index in range(routes)),
        depth=depth,
        junctions=0 if level < 5 else round(routes * depth / 4),
        rivals=(level >= 5) + (level >= 11),
        strict_decoys=0 if level < 4 else min(3, 1 + (level - 4) // 4),
        contested=2 if level >= 9 else 0,
        antecedents=1,
        least=routes - (level >= 5),
    )


def attack_space(space: Space, solution: Solution, target: Literal, antecedents: list[Literal]):
    """Candidates attacking `target`: attacks on its support from the antecedents, and
    preferences deciding its symmetric conflicts against it."""
    space.attacks_on(solution, target, antecedents, strict=False)
    space.conflicts(solution, target, support_wins=False)


@register
class Attack(InterventionTask):
    name = "attack"

    def plan(self, level: int) -> RoutedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, target, _ = routed_theory(rng, plan)
        return finished(builder, plan, level, [target])

    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str]:
        return {self.targets(candidate)[0]: "overruled"}

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        (target,) = self.targets(candidate)
        found = Space(candidate.theory)
        avoid = support(solution, target).conclusions
        attack_space(found, solution, target, self.antecedents(candidate, solution, avoid))
        return found.listing()
