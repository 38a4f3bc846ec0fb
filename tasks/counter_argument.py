"""counter_argument and counter_argument_strict: a matched pair over the same theories and
the same objective: make the negation of a justified target justified and the target
overruled. counter_argument adds new defeasible rules, preferences and negations of ordinary
premises; counter_argument_strict may also add strict rules.

Both tasks draw the same candidates (one task family) and keep only those whose verified
minimum is lower when strict rules are allowed, so each seed gives a matched pair: a strict
argument cannot be rebutted on its conclusion, which saves the preference an ordinary
counter-argument needs to win.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from argc.compiler import QueryResult, Solution
from argc.dsl.ir import Directive, Literal, Ordering
from argc.tasks.builder import Shape, build
from argc.tasks.framework import Candidate, knobs, register
from argc.tasks.intervention import (
    ATTACKING,
    InterventionTask,
    Space,
    intervention_target,
    latent_contradiction,
    sources,
    support,
)


@dataclass(frozen=True)
class Curriculum:
    shape: Shape
    routes: int  # independent derivations of the target
    antecedents: int  # premises and axioms the candidate space builds new rules from
    least: int  # fewest directives the strict arm may need (smaller minima are rejected)


def curriculum(level: int) -> Curriculum:
    """More and deeper derivations of the target, more strict steps, failing attacks and
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
            strict_share=round(min(0.05 * level, 0.4), 2),
            axiom_share=0.15,
            distractors=level // 3,
        ),
        routes=1 + (level >= 5) + (level >= 10),
        antecedents=2,
        least=1 + (level >= 8) + (level >= 13),
    )


def counter_space(
    space: Space, solution: Solution, target: Literal, antecedents: list[Literal], strict: bool
) -> None:
    """Candidates for a counter-argument: rules concluding the negation of `target` (with
    their preferences) and attacks on the target's support; with `strict`, strict twins."""
    space.counter(solution, target, antecedents, strict)
    space.attacks_on(solution, target, antecedents, strict)


@register
class CounterArgument(InterventionTask):
    name = "counter_argument"
    family = "counter_argument"
    language = ATTACKING
    #: Whether this arm of the pair may add strict rules.
    strict: ClassVar[bool] = False

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
            builder.theory(), {"targets": [str(target)], "level": level, "trap": str(trap)}
        )

    def goals(self, candidate: Candidate, solution: Solution) -> dict[Literal, str] | None:
        target = Literal.parse(candidate.params["targets"][0])
        return {target.complement: "justified", target: "overruled"}

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        return self.arm_space(candidate, solution, self.strict)

    def arm_space(self, candidate: Candidate, solution: Solution, strict: bool) -> list[Directive]:
        plan = curriculum(candidate.params["level"])
        target = Literal.parse(candidate.params["targets"][0])
        found = Space(candidate.theory)
        avoid = support(solution, target).conclusions
        antecedents = sources(solution, avoid, plan.antecedents)
        counter_space(found, solution, target, antecedents, strict)
        return found.listing()

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        """Both arms' minima: kept only when the strict arm's is lower."""
        solution = result.solution
        goals = self.goals(candidate, solution)
        arms = {}
        for strict in (False, True):
            space = self.arm_space(candidate, solution, strict)
            arms[strict] = (space, self.minimum(candidate, goals, space, ordering))
        if arms[False][1] is None or arms[True][1] is None:
            return None
        if arms[True][1].size >= arms[False][1].size:
            return None  # the minimum search already applied the level's floor to each arm
        space, found = arms[self.strict]
        made = intervention_target(solution, goals, space, found, self.language)
        made["paired_min_directives"] = arms[not self.strict][1].size
        return made


@register
class CounterArgumentStrict(CounterArgument):
    name = "counter_argument_strict"
    language = ("defeasible", "strict", "prefer_rule", "prefer_premise", "negated_premise")
    strict = True
