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
from collections.abc import Sequence
from typing import Any, ClassVar

from argc.compiler import QueryResult, Solution
from argc.dsl.ir import Directive, Literal, Ordering
from argc.tasks.builder import Shape
from argc.tasks.framework import Candidate, register
from argc.tasks.intervention import (
    ATTACKING,
    InterventionTask,
    RoutedPlan,
    Space,
    finished,
    intervention_target,
    routed_theory,
    support,
)


def curriculum(level: int) -> RoutedPlan:
    """More and deeper derivations of the target, more strict steps, failing attacks and
    distractors as the level rises. `least` bounds the strict arm's minimum."""
    return RoutedPlan(
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

    def plan(self, level: int) -> RoutedPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        builder, target = routed_theory(rng, curriculum(level))
        return finished(builder, level, [target])

    def goals(
        self, candidate: Candidate, solution: Solution, space: Sequence[Directive]
    ) -> dict[Literal, str]:
        (target,) = self.targets(candidate)
        return {target.complement: "justified", target: "overruled"}

    def space(self, candidate: Candidate, solution: Solution) -> list[Directive]:
        return self.arm_space(candidate, solution, self.strict)

    def arm_space(self, candidate: Candidate, solution: Solution, strict: bool) -> list[Directive]:
        (target,) = self.targets(candidate)
        found = Space(candidate.theory)
        avoid = support(solution, target).conclusions
        antecedents = self.antecedents(candidate, solution, avoid)
        counter_space(found, solution, target, antecedents, strict)
        return found.listing()

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        """Both arms' minima: kept only when the strict arm's is lower (each arm's minimum
        already respects the level's floor)."""
        solution = result.solution
        spaces = {strict: self.arm_space(candidate, solution, strict) for strict in (False, True)}
        goals = self.goals(candidate, solution, spaces[self.strict])
        minima = {
            strict: self.minimum(candidate, goals, space, ordering)
            for strict, space in spaces.items()
        }
        ordinary, strict = minima[False], minima[True]
        if ordinary is None or strict is None or strict.size >= ordinary.size:
            return None
        made = intervention_target(
            solution, goals, spaces[self.strict], minima[self.strict], self.language
        )
        made["paired_min_directives"] = minima[not self.strict].size
        return made


@register
class CounterArgumentStrict(CounterArgument):
    name = "counter_argument_strict"
    language = ("defeasible", "strict", "prefer_rule", "prefer_premise", "negated_premise")
    strict = True
