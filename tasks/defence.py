"""defence: add directives (new defeasible rules, preferences, negations of ordinary premises)
so that an attacked target that is not justified becomes justified.

Every defeater of the target's support must be neutralised: attacked in its own support
(undercut, rebut, undermine) or out-preferred where the conflict is symmetric. The candidate
space holds such defences; an answer may also strengthen the target's support with new rules.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from argc.compiler import Solution
from argc.dsl.ir import Directive, Literal
from argc.tasks.builder import Shape, build
from argc.tasks.framework import Candidate, register
from argc.tasks.intervention import (
    InterventionTask,
    SourcedPlan,
    Space,
    finished,
    support,
    support_arguments,
)


def curriculum(level: int) -> SourcedPlan:
    """Deeper derivations under more attackers (of every kind), some of them defended and
    some decided by preferences, with more distractors as the level rises."""
    return SourcedPlan(
        shape=Shape(
            goals=1,
            depth=1 + level // 4,
            branching=level // 6,
            attackers=1 + level // 4,
            defenders=level // 5,
            contested=1 + level // 8,
            preferences=level // 3,
            strict_share=round(min(0.04 * level, 0.3), 2),
            axiom_share=0.15,
            distractors=level // 3,
        ),
        antecedents=2,
        least=1 + (level >= 7) + (level >= 13),
    )


def defence_space(space: Space, solution: Solution, target: Literal, antecedents: list[Literal]):
    """Candidates defending `target`: attacks on the support of each argument defeating the
    target's support, and preferences deciding its symmetric conflicts its way."""
    inside = support_arguments(solution, target)
    defeaters = sorted(
        {attacker for attacker, attacked in solution.defeats if attacked in inside},
        key=lambda name: str(solution.arguments[name].conclusion),
    )
    for name in defeaters:
        space.attacks_on(solution, solution.arguments[name].conclusion, antecedents, strict=False)
    space.conflicts(solution, target, support_wins=True)


@register
class Defence(InterventionTask):
    name = "defence"

    def plan(self, level: int) -> SourcedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        builder, derivations = build(rng, curriculum(level).shape)
        return finished(builder, level, [derivations[0][-1].head])

    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str]:
        return {self.targets(candidate)[0]: "justified"}

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        (target,) = self.targets(candidate)
        avoid = support(solution, target).conclusions
        found = Space(candidate.theory, not_concluding=avoid)
        defence_space(found, solution, target, self.antecedents(candidate, solution, avoid))
        return found.listing()
