"""defence: add directives (new defeasible rules, preferences, negations of ordinary premises)
so that an attacked target that is not justified becomes justified.

The target's support is one chain of defeasible rules. Attackers (ArgGYM's defence
structures) are chains of their own from fresh premises that rebut the target, rebut a step
of the support or undercut one, some through a strict last rule; none is answered, so the
target is undecided or overruled. Each attacker must be neutralised on its own (cut in its
chain or, where the conflict is symmetric, out-preferred), so the minimum is the number of
attackers. From level 5 a rival of the target's last rule loses under last-link and ties
under weakest-link, where it is one more attacker to answer. Decided conflicts, decoys and
junction branches fill the rest.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from argc.compiler import Solution
from argc.dsl.ir import Directive, Literal
from argc.tasks.arggym.intervention import (
    InterventionTask,
    SourcedPlan,
    Space,
    finished,
    spread,
    support,
    support_arguments,
)
from argc.tasks.builder import Builder, Chain
from argc.tasks.framework import Candidate, register


@dataclass(frozen=True)
class DefencePlan(SourcedPlan):
    attackers: int  # independent attackers of the target's support
    strict_attackers: int  # attackers whose last rule is strict
    depth: int  # rules on the support and on each attacker
    junctions: int  # support and attacker steps that also take a branch
    rival: bool  # a rival of the target's last rule that the link principle decides
    decided: int  # conflicts apart from the target that a preference decides


def curriculum(level: int) -> DefencePlan:
    """More and longer attackers, some strict, with more junctions, decided conflicts and
    decoys, as the level rises; the minimum is the number of attackers (one more under
    weakest-link from level 5)."""
    attackers = 2 + (level >= 6) + (level >= 11) + (level >= 15)
    return DefencePlan(
        attackers=attackers,
        strict_attackers=(level >= 7) + (level >= 15),
        depth=min(5, 2 + level // 4),
        junctions=0 if level < 6 else 1 + level // 5,
        rival=level >= 5,
        decided=0 if level < 6 else min(2, 1 + (level - 6) // 5),
        strict_decoys=0 if level < 4 else min(3, 1 + (level - 4) // 4),
        contested=0,
        antecedents=1,
        least=attackers,
    )


def attackers(builder: Builder, plan: DefencePlan, held: Chain, varied: bool) -> None:
    """The plan's attackers of the chain `held`: the first rebuts its goal; with `varied`,
    each other one rebuts its goal, rebuts an earlier defeasible step or undercuts a
    defeasible step, at random. The first `strict_attackers` end in a strict rule;
    junctions go to the attackers after the support's share."""
    junctions = spread(plan.junctions, plan.attackers + 1)
    for index in range(plan.attackers):
        aim = held.goal.complement
        kind = builder.rng.choice(("goal", "goal", "step", "undercut")) if index else "goal"
        if varied and kind != "goal":
            step = builder.rng.choice([rule for rule in held.steps if not rule.strict])
            aim = Literal(step.name, True) if kind == "undercut" else step.head.complement
        last_strict = index < plan.strict_attackers
        builder.chain(
            [False] * (plan.depth - 1) + [last_strict], goal=aim, junctions=junctions[index + 1]
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

    def plan(self, level: int) -> DefencePlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder = Builder(rng)
        held = builder.chain(
            [False] * plan.depth, junctions=spread(plan.junctions, plan.attackers + 1)[0]
        )
        attackers(builder, plan, held, varied=level >= 7)
        if plan.rival:
            builder.rival(held.steps[-1])
        for _ in range(plan.decided):
            builder.conflict(2, decided=True)
        return finished(builder, plan, level, [held.goal])

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
