"""The verdict of a normative world on its queried action, read from the solved theory.

Answer: `forbidden`, `obligated` or `permitted` when an argument for that label of the
queried action is justified (grounded semantics; an obligation that holds implies the
permission, so `obligated` is answered when both hold and `labels` lists both with their
rules); `conflict_unresolved` when rules bear on the action but none of their labels is
justified; `no_applicable_norm` when no rule bears on it.

A normative rule's status on the action is the best grounded label of its arguments for it:
`justified` (one is in the grounded extension), `undecided`, or `overruled` (all are
defeated by it). Decisive rules are the justified ones concluding the answer's label;
defeated rules the overruled ones. The minimal support (asp/norms/support.lp, an ASP
optimisation) is a smallest set of decisive rules that, kept alone beside the conflicting
rules, still sustains the answer and overrules every conflicting argument; among those the
one resting on the fewest facts, ties broken by the sorted rule names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from argc.compiler.control import Limits
from argc.compiler.norms.grounding import ground_world
from argc.compiler.norms.support import Support, SupportProblem
from argc.compiler.norms.theory import NORM_ORDERING, CompiledWorld, compile_world
from argc.compiler.solution import Argument, Solution
from argc.compiler.solve import solve
from argc.dsl.norms.world import LABELS, Atom, World

ANSWERS = ("permitted", "forbidden", "obligated", "conflict_unresolved", "no_applicable_norm")
RULE_STATUSES = ("justified", "undecided", "overruled")
_FROM_LABEL = {"in": "justified", "undecided": "undecided", "out": "overruled"}


@dataclass(frozen=True)
class Verdict:
    """What a world concludes about its queried action, and why."""

    query: Atom
    answer: str
    #: Each justified label of the action and the rules whose arguments for it are justified.
    labels: dict[str, tuple[str, ...]]
    decisive: tuple[str, ...]
    defeated: tuple[str, ...]
    #: Every normative rule that bears on the action (its body holds) and its status.
    statuses: dict[str, str]
    #: (attacker, attacked) rules: an argument of one rebuts an argument of the other.
    attacks: tuple[tuple[str, str], ...]
    #: (defeater, defeated) rules: such a rebuttal succeeds.
    defeats: tuple[tuple[str, str], ...]
    support: Support
    #: The solved world the verdict was read from.
    reading: Reading = field(repr=False, compare=False)
    #: The support optimisation (None when nothing is decisive), kept to check other supports.
    support_problem: SupportProblem | None = field(default=None, repr=False, compare=False)

    @property
    def world(self) -> World:
        return self.reading.compiled.ground.world

    def to_json(self) -> dict:
        return {
            "query": str(self.query),
            "answer": self.answer,
            "labels": {label: list(rules) for label, rules in self.labels.items()},
            "decisive": list(self.decisive),
            "defeated": list(self.defeated),
            "statuses": dict(self.statuses),
            "attacks": [list(pair) for pair in self.attacks],
            "defeats": [list(pair) for pair in self.defeats],
            "support": self.support.to_json(),
        }


def solve_world(world: World, limits: Limits | None = None) -> Verdict:
    """Ground, compile and solve a world; its verdict on the queried action."""
    if world.query is None:
        raise ValueError("the world has no [query: ...] naming the action to decide")
    limits = limits or Limits()
    compiled = compile_world(ground_world(world, limits), limits)
    solution = solve(compiled.theory, ordering=NORM_ORDERING, semantics="grounded", limits=limits)
    return Reading(compiled, solution, world.query.action, limits).verdict()


class Reading:
    """The arguments for labels of the queried action and what follows from them."""

    def __init__(
        self, compiled: CompiledWorld, solution: Solution, action: Atom, limits: Limits
    ) -> None:
        self.compiled = compiled
        self.solution = solution
        self.action = action
        self.limits = limits
        self.rule_of: dict[str, str] = {}  # argument name -> normative rule
        self.label_of: dict[str, str] = {}  # argument name -> label
        for argument in solution.arguments.values():
            instance = compiled.instances.get(argument.top_rule or "")
            if instance is not None and instance.action == action:
                self.rule_of[argument.name] = instance.rule
                self.label_of[argument.name] = instance.label

    def status(self, argument: str) -> str:
        return _FROM_LABEL[self.solution.label(argument)]

    def verdict(self) -> Verdict:
        statuses: dict[str, str] = {}
        justified: dict[str, set[str]] = {}
        for argument, rule in self.rule_of.items():
            status = self.status(argument)
            known = statuses.get(rule)
            if known is None or RULE_STATUSES.index(status) < RULE_STATUSES.index(known):
                statuses[rule] = status
            if status == "justified":
                justified.setdefault(self.label_of[argument], set()).add(rule)
        answer = next(
            (label for label in ("forbidden", "obligated", "permitted") if label in justified),
            "conflict_unresolved" if self.rule_of else "no_applicable_norm",
        )
        decisive = tuple(sorted(justified.get(answer, ())))
        problem = SupportProblem(self, answer, justified) if decisive else None
        return Verdict(
            self.action,
            answer,
            {label: tuple(sorted(justified[label])) for label in LABELS if label in justified},
            decisive,
            tuple(sorted(rule for rule, status in statuses.items() if status == "overruled")),
            dict(sorted(statuses.items())),
            self.rule_pairs((a.attacker, a.attacked) for a in self.solution.direct_attacks),
            self.rule_pairs(self.solution.defeats),
            problem.minimal() if problem is not None else Support(),
            self,
            problem,
        )

    def rule_pairs(self, pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
        """The (rule, rule) pairs of argument pairs for labels of the action."""
        rule_of = self.rule_of
        return tuple(
            sorted({(rule_of[a], rule_of[b]) for a, b in pairs if a in rule_of and b in rule_of})
        )

    def facts(self, argument: str) -> set[Atom]:
        """The facts an argument rests on (its axiom sub-arguments)."""
        meaning = self.compiled.meaning
        found = set()
        for name in self.solution.subarguments(argument):
            sub: Argument = self.solution.arguments[name]
            item = meaning.get(sub.conclusion.atom)
            if sub.is_premise and isinstance(item, Atom):
                found.add(item)
        return found
