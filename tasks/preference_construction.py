"""preference_construction: add preferences over existing defeasible rules and ordinary
premises (nothing else) so that claims reach a requested configuration of statuses.

The candidate space holds, for every symmetric conflict (a rebut or undermine that a
comparison decides), each element of either argument preferred to each element of the other.
The requested configuration is planted: a few candidates are drawn at random (from a seed
drawn with the theory), applied, and some of the claims whose status they change become goals,
together (from level 6) with claims whose status must stay as it is.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from argc.compiler import LimitExceeded, Solution, solve
from argc.dsl.errors import ArgcError
from argc.dsl.ir import Directive, Literal
from argc.tasks.builder import Shape, build
from argc.tasks.framework import GENERATION_LIMITS, Candidate, register
from argc.tasks.intervention import InterventionTask, Plan, Space

#: Preferences only, over what the theory already has.
PREFERENCES = ("prefer_rule", "prefer_premise")


@dataclass(frozen=True)
class PlantedPlan(Plan):
    planted: int  # preferences drawn to plant the requested configuration
    changes: int  # most goals whose status must change
    kept: int  # goals whose status must stay


def curriculum(level: int) -> PlantedPlan:
    """More conflicts decided by more planted preferences, more goals (and, from level 6,
    statuses that must be kept), deeper derivations and distractors as the level rises."""
    return PlantedPlan(
        shape=Shape(
            goals=1 + (level >= 7) + (level >= 12),
            depth=1 + level // 4,
            branching=level // 6,
            attackers=1 + level // 3,
            defenders=level // 4,
            contested=1 + level // 4,
            preferences=level // 4,
            strict_share=round(min(0.04 * level, 0.3), 2),
            axiom_share=0.1,
            distractors=level // 3,
        ),
        planted=1 + level // 4,
        changes=1 + level // 3,
        kept=0 if level < 6 else 1 + (level >= 11),
        least=1 + (level >= 7) + (level >= 13),
    )


@register
class PreferenceConstruction(InterventionTask):
    name = "preference_construction"
    language = PREFERENCES

    def plan(self, level: int) -> PlantedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, _ = build(rng, plan.shape)
        theory = builder.theory()
        salient = sorted(set(builder.salient) & theory.literals(), key=str)
        return Candidate(
            theory,
            {
                "salient": [str(claim) for claim in salient],
                "plant": rng.getrandbits(32),
                "level": level,
            },
        )

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        found = Space(candidate.theory)
        for attack in solution.direct_attacks:
            if attack.kind != "undercut":
                found.order(solution, attack.attacker, attack.on)
                found.order(solution, attack.on, attack.attacker)
        return found.listing()

    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str] | None:
        """Plant: apply a random draw from the space and request some of the changes."""
        plan = curriculum(candidate.params["level"])
        rng = random.Random(candidate.params["plant"])
        drawn = rng.sample(space, min(plan.planted, len(space)))
        try:
            after = solve(
                candidate.theory.apply(drawn), ordering=solution.ordering, limits=GENERATION_LIMITS
            )
        except (ArgcError, LimitExceeded):
            return None
        if not after.consistent:
            return None
        salient = [Literal.parse(text) for text in candidate.params["salient"]]
        changed = [claim for claim in salient if after.status(claim) != solution.status(claim)]
        kept = [claim for claim in salient if claim not in changed]
        if not changed:
            return None
        chosen = rng.sample(changed, min(plan.changes, len(changed)))
        chosen += rng.sample(kept, min(plan.kept, len(kept)))
        return {claim: after.status(claim) for claim in sorted(chosen, key=str)}
