"""attack_defense: in one intervention, make a justified claim overruled and an attacked claim
justified (new defeasible rules, preferences, negations of ordinary premises).

The two claims rest on one shared stem (ArgGYM's interaction structure): each continues from
its last conclusion along a route of its own, and attackers rebut or undercut the route of
the claim to justify. Cutting the stem overrules the first claim but sinks the second with
it; an answer must cut the first claim's own route and neutralise every attacker, so the
minimum is one more than the number of attackers (one more again under weakest-link from
level 5, where a rival of the second claim's last rule ties).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from argc.compiler import Solution
from argc.compiler.facts import literal_term
from argc.dsl.ir import Directive, Literal
from argc.tasks.arggym.attack import attack_space
from argc.tasks.arggym.defence import DefencePlan, attackers, defence_space
from argc.tasks.arggym.intervention import InterventionTask, Space, finished, spread, support
from argc.tasks.builder import Builder
from argc.tasks.framework import Candidate, register


@dataclass(frozen=True)
class SharedPlan(DefencePlan):
    stem: int  # defeasible rules up to the conclusion both claims rest on


def curriculum(level: int) -> SharedPlan:
    """A longer stem and routes, more attackers (one strict from level 10), junctions and
    decoys as the level rises."""
    attacking = min(4, 2 + level // 5)
    return SharedPlan(
        stem=min(4, 1 + level // 5),
        attackers=attacking,
        strict_attackers=int(level >= 10),
        depth=min(5, 2 + level // 4),
        junctions=0 if level < 6 else 1 + level // 5,
        rival=level >= 5,
        decided=0,
        strict_decoys=0 if level < 4 else min(3, 1 + (level - 4) // 4),
        contested=0,
        antecedents=1,
        least=1 + attacking,
    )


@register
class AttackDefense(InterventionTask):
    name = "attack_defense"

    def plan(self, level: int) -> SharedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder = Builder(rng)
        stem = builder.chain(
            [False] * plan.stem, junctions=spread(plan.junctions, plan.attackers + 1)[0]
        )
        attacked, defended = (
            builder.chain([False] * plan.depth, start=stem.goal) for _ in range(2)
        )
        attackers(builder, plan, defended, varied=level >= 7)
        if plan.rival:
            builder.rival(defended.steps[-1])
        return finished(builder, plan, level, [attacked.goal, defended.goal])

    def gate_program(self, candidate: Candidate) -> str:
        attacked, defended = self.targets(candidate)
        facts = f"attacked({literal_term(attacked)}).\ndefended({literal_term(defended)}).\n"
        return facts + self.program

    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str]:
        attacked, defended = self.targets(candidate)
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
