"""attack_defense: in one intervention, make a justified claim overruled and an attacked claim
justified (new defeasible rules, preferences, negations of ordinary premises).

From level 4 the claim to overrule is, half of the time, the conclusion of an argument that
attacks the claim to justify, so that one well-placed attack serves both goals; otherwise the
two are independent and their candidate spaces merely coexist.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from argc.compiler import Solution
from argc.compiler.facts import literal_term
from argc.dsl.ir import Directive, Literal, Rule
from argc.tasks.attack import attack_space
from argc.tasks.builder import Shape, build
from argc.tasks.defence import defence_space
from argc.tasks.framework import Candidate, register
from argc.tasks.intervention import InterventionTask, SourcedPlan, Space, finished, support


@dataclass(frozen=True)
class LinkedPlan(SourcedPlan):
    linked_share: float  # chance that the claim to overrule attacks the claim to justify


def curriculum(level: int) -> LinkedPlan:
    """Deeper derivations with more attackers, defenders and distractors, and (from level 4)
    targets whose fates are linked, as the level rises."""
    return LinkedPlan(
        shape=Shape(
            goals=2,
            depth=1 + level // 5,
            branching=level // 7,
            attackers=1 + level // 4,
            defenders=level // 5,
            contested=1 + level // 8,
            preferences=level // 3,
            strict_share=round(min(0.04 * level, 0.3), 2),
            axiom_share=0.15,
            distractors=level // 4,
        ),
        linked_share=0.0 if level < 4 else 0.5,
        antecedents=2,
        least=1 + (level >= 4) + (level >= 12),
    )


@register
class AttackDefense(InterventionTask):
    name = "attack_defense"

    def plan(self, level: int) -> LinkedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, derivations = build(rng, plan.shape)
        defended = derivations[0][-1].head
        attacker = builder.attack(derivations[0], plan.shape.strict_share)
        linked = isinstance(attacker, Rule) and rng.random() < plan.linked_share
        attacked = attacker.head if linked else derivations[1][-1].head
        return finished(builder, level, [attacked, defended], linked=linked)

    def gate_program(self, candidate: Candidate) -> str:
        attacked, defended = self.targets(candidate)
        facts = f"attacked({literal_term(attacked)}).\ndefended({literal_term(defended)}).\n"
        return facts + self.program

    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str] | None:
        attacked, defended = self.targets(candidate)
        if attacked.complement == defended:
            return None
        return {attacked: "overruled", defended: "justified"}

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        attacked, defended = self.targets(candidate)
        defended_support = support(solution, defended).conclusions
        avoid = defended_support | support(solution, attacked).conclusions
        antecedents = self.antecedents(candidate, solution, avoid)
        found = Space(candidate.theory, not_concluding=defended_support)
        attack_space(found, solution, attacked, antecedents)
        defence_space(found, solution, defended, antecedents)
        return found.listing()
