"""counter_argument and counter_argument_strict: a matched pair over the same theories and
the same objective: make the negation of a justified target justified and the target
overruled. counter_argument adds new defeasible rules, preferences and negations of ordinary
premises; counter_argument_strict may also add strict rules.

The target is derived along independent routes (ArgGYM §A.3): some end in a strict rule, so
neither arm can rebut them and each must be cut below (one directive apiece); the others
end in a defeasible rule, which a strict counter-argument from an unattacked premise
defeats without help, while a defeasible one needs a preference or a cut for each. So the
strict arm needs one directive plus one per strict route, and the ordinary arm one more per
defeasible route. From level 9 an existing counter-argument loses to one defeasible route:
the ordinary arm may revive it (cutting that route and the other defeasible one) instead of
adding its own. Both tasks draw the same candidates (one task family) and keep only those
whose strict minimum is one or two below the ordinary one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from argc.compiler import QueryResult, Solution
from argc.dsl.ir import Directive, Literal, Ordering
from argc.tasks.arggym.intervention import (
    ATTACKING,
    InterventionTask,
    RoutedPlan,
    Space,
    finished,
    intervention_target,
    routed_theory,
    support,
)
from argc.tasks.framework import Candidate, register

#: The largest gap between the arms' minima that a pair may have (ArgGYM §A.3: 1 or 2).
MOST_GAP = 2


@dataclass(frozen=True)
class PairPlan(RoutedPlan):
    beaten_rival: bool  # an existing counter-argument that loses to one defeasible route
    continued: float  # chance that the routes continue past the target


def curriculum(level: int) -> PairPlan:
    """More strict routes (the strict arm's minimum is one more than their number), longer
    routes with more junctions, a beaten counter-argument from level 9, and decoys, as the
    level rises. Two defeasible routes at level 6 and from level 9 (the pair's gap is 2 at
    level 6 and 1 elsewhere). `least` is the strict arm's designed minimum."""
    strict = 1 + (level >= 7) + (level >= 12) + (level >= 15)
    routes = ("strict_last",) * strict + ("open",) * (1 + (level == 6 or level >= 9))
    depth = 2 + level // 5
    return PairPlan(
        routes=routes,
        depth=depth,
        junctions=0 if level < 5 else round(len(routes) * depth / 4),
        rivals=0,
        beaten_rival=level >= 9,
        continued=0.0 if level < 6 else 0.5,
        strict_decoys=0 if level < 4 else min(3, 1 + (level - 4) // 4),
        contested=2 if level >= 8 else 0,
        antecedents=1,
        least=1 + strict,
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

    def plan(self, level: int) -> PairPlan:
        return curriculum(level)

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, target, chains = routed_theory(rng, plan)
        if plan.beaten_rival:
            builder.beaten_rival(next(chain for chain in chains if not chain.steps[-1].strict))
        if rng.random() < plan.continued:
            builder.chain([False] * rng.randint(1, 2), start=target)
        return finished(builder, plan, level, [target])

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
        """Both arms' minima: kept only when the strict arm's is lower by at most MOST_GAP
        (each arm's minimum already respects the level's floor)."""
        solution = result.solution
        spaces = {strict: self.arm_space(candidate, solution, strict) for strict in (False, True)}
        goals = self.goals(candidate, solution, spaces[self.strict])
        minima = {
            strict: self.minimum(candidate, goals, space, ordering)
            for strict, space in spaces.items()
        }
        ordinary, strict = minima[False], minima[True]
        if ordinary is None or strict is None:
            return None
        if not 0 < ordinary.size - strict.size <= MOST_GAP:
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
