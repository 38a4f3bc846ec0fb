"""attack: add directives (new defeasible rules, preferences, negations of ordinary premises)
so that a justified target becomes overruled, with as few directives as the verified minimum.

The target has one to three independent derivations; existing attacks on them fail (they
are defeated, or lose on preferences), so an answer must cut every derivation: undercut or
rebut a step from an unattacked premise, undermine a premise, or reverse a preference.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from argc.compiler import Solution
from argc.dsl.ir import Directive, Literal
from argc.tasks.builder import Shape
from argc.tasks.framework import Candidate, register
from argc.tasks.intervention import (
    InterventionTask,
    RoutedPlan,
    Space,
    finished,
    routed_theory,
    support,
)


def curriculum(level: int) -> RoutedPlan:
    """More and deeper derivations of the target, with more (failing) attacks, defenders and
    distractors as the level rises."""
    return RoutedPlan(
        shape=Shape(
            goals=1,
            depth=1 + level // 4,
            branching=level // 6,
            attackers=level // 3,
            defenders=level // 4,
            contested=1 + level // 8,
            preferences=level // 3,
            strict_share=round(min(0.04 * level, 0.3), 2),
            axiom_share=0.15,
            distractors=level // 3,
        ),
        routes=1 + (level >= 6) + (level >= 11),
        antecedents=2,
        least=1 + (level >= 6) + (level >= 12),
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
        builder, target = routed_theory(rng, curriculum(level))
        return finished(builder, level, [target])

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
