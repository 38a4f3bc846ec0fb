"""attack: add directives (new defeasible rules, preferences, negations of ordinary premises)
so that a justified target becomes overruled, with as few directives as the verified minimum.

The target has one to three independent derivations; existing attacks on them fail (they
are defeated, or lose on preferences), so an answer must cut every derivation: undercut or
rebut a step from an unattacked premise, undermine a premise, or reverse a preference.
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
)


@dataclass(frozen=True)
class Curriculum:
    shape: Shape
    routes: int  # independent derivations of the target
    antecedents: int  # premises and axioms the candidate space builds new rules from
    least: int  # fewest directives an instance may need (smaller minima are rejected)


def curriculum(level: int) -> Curriculum:
    """More and deeper derivations of the target, with more (failing) attacks, defenders and
    distractors as the level rises."""
    return Curriculum(
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

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, derivations = build(rng, plan.shape)
        target = derivations[0][-1].head
        for _ in range(plan.routes - 1):
            builder.derivation(
                plan.shape.depth,
                plan.shape.branching,
                plan.shape.strict_share,
                plan.shape.axiom_share,
                goal=target,
            )
        builder.base(builder.atom(), axiom_share=0.5)
        trap = latent_contradiction(builder)
        return Candidate(
            builder.theory(),
            {"targets": [str(target)], "level": level, "trap": str(trap)},
        )

    def goals(self, candidate: Candidate, solution: Solution) -> dict[Literal, str] | None:
        return {Literal.parse(candidate.params["targets"][0]): "overruled"}

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        plan = curriculum(candidate.params["level"])
        target = Literal.parse(candidate.params["targets"][0])
        found = Space(candidate.theory)
        avoid = support(solution, target).conclusions
        attack_space(found, solution, target, sources(solution, avoid, plan.antecedents))
        return found.listing()
