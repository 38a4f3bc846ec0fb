"""defence: add directives (new defeasible rules, preferences, negations of ordinary premises)
so that an attacked target that is not justified becomes justified.

Every defeater of the target's support must be neutralised: attacked in its own support
(undercut, rebut, undermine) or out-preferred where the conflict is symmetric. New rules may
not conclude the target or a conclusion it rests on: bypassing the attacked support with a
fresh derivation is not a defence.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from argc.compiler import Solution
from argc.dsl.ir import Directive, Literal
from argc.tasks.builder import Shape, build
from argc.tasks.framework import Candidate, knobs, register
from argc.tasks.intervention import (
    InterventionTask,
    Space,
    latent_contradiction,
    sources,
    support,
    support_arguments,
)


@dataclass(frozen=True)
class Curriculum:
    shape: Shape
    antecedents: int  # premises and axioms the candidate space builds new rules from
    least: int  # fewest directives an instance may need (smaller minima are rejected)


def curriculum(level: int) -> Curriculum:
    """Deeper derivations under more attackers (of every kind), some of them defended and
    some decided by preferences, with more distractors as the level rises."""
    return Curriculum(
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

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, derivations = build(rng, plan.shape)
        target = derivations[0][-1].head
        builder.base(builder.atom(), axiom_share=0.5)
        trap = latent_contradiction(builder)
        return Candidate(
            builder.theory(), {"targets": [str(target)], "level": level, "trap": str(trap)}
        )

    def goals(self, candidate: Candidate, solution: Solution) -> dict[Literal, str] | None:
        return {Literal.parse(candidate.params["targets"][0]): "justified"}

    def fixed(self, candidate: Candidate, solution: Solution) -> set[Literal]:
        return support(solution, Literal.parse(candidate.params["targets"][0])).conclusions

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        plan = curriculum(candidate.params["level"])
        target = Literal.parse(candidate.params["targets"][0])
        avoid = self.fixed(candidate, solution)
        found = Space(candidate.theory, fixed=avoid)
        defence_space(found, solution, target, sources(solution, avoid, plan.antecedents))
        return found.listing()
