"""preference_construction: add preferences over existing defeasible rules and ordinary
premises (nothing else) so that claims reach a requested configuration of statuses.

The theory is a set of conflicts (ArgGYM's preference structures): a chain of defeasible
rules, with junction branches, concludes a claim x against one rival rule concluding -x, and
goal claims follow from x or -x. A third of the conflicts are decided by a preference for the
chain's last rule, which settles them under last-link only: weakest-link also weighs the
chain's other rules and the unranked premises, and the set comparison then decides how many
preferences a change takes. The configuration is planted: a seed drawn with the theory picks
conflicts and a winner for each, whose last rule and first premise are preferred to the
loser's, and every goal claim must reach (or keep) its status in the result. The candidate
space holds, for every symmetric conflict, each element of either argument preferred to each
element of the other.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from argc.compiler import LimitExceeded, MachineLimitExceeded, Solution, solve
from argc.dsl.errors import ArgcError
from argc.dsl.ir import Directive, Literal, PremisePreference, RulePreference
from argc.tasks.arggym.intervention import InterventionTask, Plan, Space, finished, spread
from argc.tasks.builder import Builder, Conflict
from argc.tasks.framework import GENERATION_LIMITS, Candidate, register

#: Preferences only, over what the theory already has.
PREFERENCES = ("prefer_rule", "prefer_premise")


@dataclass(frozen=True)
class PlantedPlan(Plan):
    conflicts: int  # conflicts over chains' claims
    claims: int  # goal claims, each following from one side of a conflict
    depth: int  # rules on a conflict's chain (one more or less from level 3)
    junctions: int  # chain steps that also take a branch (over all conflicts)
    changes: int  # conflicts whose winner the planted configuration sets


def curriculum(level: int) -> PlantedPlan:
    """More conflicts with longer chains and more junctions, more goal claims and more
    planted changes as the level rises; each change costs at least one preference."""
    claims = min(8, 1 + level * 8 // 15)
    changes = min(claims, 1 + level // 3)
    return PlantedPlan(
        conflicts=min(10, claims + 1 + level // 3),
        claims=claims,
        depth=min(5, 1 + level * 4 // 15),
        junctions=0 if level < 5 else level + 3,
        changes=changes,
        strict_decoys=0,
        contested=0,
        least=1 + level // 4,
    )


def conflicts_theory(rng: random.Random, level: int) -> tuple[Builder, list[Conflict]]:
    """The plan's conflicts (one more half of the time from level 3), a third of them (at
    least one, drawn at random) decided for the chain, and its claims, each from a side of a
    conflict drawn at random (the first two from the same conflict at levels 9 to 11 and
    15); returns the builder, whose salient claims are the goal claims, and the conflicts
    with claims."""
    plan = curriculum(level)
    builder = Builder(rng)
    count = min(10, plan.conflicts + (level >= 3 and rng.random() < 0.5))
    made = []
    for share in spread(plan.junctions, count):
        depth = plan.depth if level < 3 else max(1, min(5, plan.depth + rng.randint(-1, 1)))
        made.append(builder.conflict(depth, junctions=share))
    for conflict in rng.sample(made, max(1, count // 3)):
        builder.prefer_rules(conflict.pro.steps[-1], conflict.rival.steps[-1])
    shared = 9 <= level <= 11 or level == 15
    claimed = made[: plan.claims - shared]
    builder.salient = []
    for conflict in [claimed[0]] * shared + claimed:
        side = rng.choice((conflict.pro.goal, conflict.pro.goal.complement))
        builder.salient.append(builder.rule([side], builder.atom(False)).head)
    return builder, claimed


def sides(conflict: Conflict) -> list[list[str]]:
    """Each side of a conflict by its last rule and its first premise, as text."""
    return [[chain.steps[-1].name, str(chain.root)] for chain in (conflict.pro, conflict.rival)]


@register
class PreferenceConstruction(InterventionTask):
    name = "preference_construction"
    language = PREFERENCES

    def plan(self, level: int) -> PlantedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        builder, claimed = conflicts_theory(rng, level)
        return finished(
            builder,
            curriculum(level),
            level,
            [],
            claims=[str(claim) for claim in builder.salient],
            sides=[sides(conflict) for conflict in claimed],
            plant=rng.getrandbits(32),
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
        """Plant: for the plan's number of conflicts with claims, a side drawn at random gets
        its last rule and its first premise preferred to the other side's (which settles the
        conflict under last-link, and under weakest-link only where the set comparison lets
        two preferences weaken the loser); every claim is to reach its resulting status (None
        when none changes or the result is inconsistent)."""
        plan = curriculum(candidate.params["level"])
        rng = random.Random(candidate.params["plant"])
        conflicts = candidate.params["sides"]
        planted: list[Directive] = []
        for pair in rng.sample(conflicts, min(plan.changes, len(conflicts))):
            (rule, premise), (beaten, below) = rng.sample(pair, 2)
            planted += [
                RulePreference(rule, beaten),
                PremisePreference(*map(Literal.parse, (premise, below))),
            ]
        try:
            after = solve(
                candidate.theory.apply(planted),
                ordering=solution.ordering,
                limits=GENERATION_LIMITS,
            )
        except MachineLimitExceeded:
            raise
        except (ArgcError, LimitExceeded):
            return None
        claims = [Literal.parse(text) for text in candidate.params["claims"]]
        if not after.consistent or all(after.status(c) == solution.status(c) for c in claims):
            return None
        return {claim: after.status(claim) for claim in sorted(claims, key=str)}
