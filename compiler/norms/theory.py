"""A ground normative world as an ASPIC+ theory of the IR.

Facts become axioms, identity-rule instances strict rules, normative-rule instances
defeasible rules concluding a label literal (`forbidden(enter_archive(alice))`), priorities
rule preferences between the instances of the two rules that bear on one action (closed
transitively: graph reachability), and incompatible labels of one action (forbidden against
permitted, forbidden against obligated) contradictory pairs: symmetric conflicts that the
preferences decide. Ground atoms, labels and rule instances get readable `.arg` names,
unique in one namespace (a defeasible rule's name is a literal too).

A ground instance's antecedents are a set: a condition repeated in a rule's body, literally
or once its variables are bound (`supervises(Y, X), supervises(Z, X)` with Y = Z), is one
antecedent. Instances of one rule that are the same ground rule (the same antecedents and
conclusion under two bindings) are one ASPIC+ rule, named after the first binding, so no
argument is built twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from argc.compiler.control import LimitExceeded, Limits
from argc.compiler.norms.grounding import (
    GroundWorld,
    IdentityInstance,
    NormInstance,
    ground_world,
)
from argc.dsl.ir import (
    Axiom,
    Contradictory,
    Directive,
    Literal,
    Ordering,
    Rule,
    RulePreference,
    Theory,
)
from argc.dsl.norms.world import INCOMPATIBLE, Atom, World

#: The argument ordering of normative worlds. Every argument for a label has one defeasible
#: rule (its last), so the four orderings agree; last-link elitist is the engine's default.
NORM_ORDERING = Ordering("last-link", "elitist")

_Instance = TypeVar("_Instance", IdentityInstance, NormInstance)


@dataclass(frozen=True)
class Label:
    """`label(action)`: a deontic label on a ground action."""

    label: str
    action: Atom

    def __str__(self) -> str:
        return f"{self.label}({self.action})"


@dataclass(frozen=True)
class CompiledWorld:
    """A ground world, its theory and the meaning of the theory's names."""

    ground: GroundWorld
    theory: Theory
    #: The atom or label each literal name stands for.
    meaning: dict[str, Atom | Label]
    #: The normative-rule instance each defeasible rule name stands for.
    instances: dict[str, NormInstance]


class _Names:
    """Unique `.arg` names: the readable one, or it with `_2`, `_3`... when taken."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, *parts: str) -> str:
        base = "_".join(parts)
        name, number = base, 1
        while name in self.used:
            number += 1
            name = f"{base}_{number}"
        self.used.add(name)
        return name


def priority_closure(world: World, limit: int | None = None) -> set[tuple[str, str]]:
    """Every (stronger, weaker) pair of rules joined by a path of priorities; LimitExceeded
    when there are more than `limit` (a chain of n priorities has n(n+1)/2)."""
    below: dict[str, set[str]] = defaultdict(set)
    for priority in world.priorities:
        below[priority.stronger].add(priority.weaker)
    closure = set()
    for start in list(below):
        stack, seen = list(below[start]), set()
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack.extend(below.get(name, ()))
        closure.update((start, name) for name in seen)
        if limit is not None and len(closure) > limit:
            raise LimitExceeded(f"the priorities' transitive closure has more than {limit:,} pairs")
    return closure


def world_theory(world: World, limits: Limits | None = None) -> Theory:
    """The ASPIC+ theory of a world (grounded and compiled within `limits`)."""
    return compile_world(ground_world(world, limits), limits).theory


def compile_world(ground: GroundWorld, limits: Limits | None = None) -> CompiledWorld:
    """The ASPIC+ theory of a ground world, with the meaning of its names. The priority
    closure and the instance pairs it compares count against `limits.instantiations`."""
    names = _Names()
    atoms = sorted({*ground.facts, *ground.derived, *(a for i in ground.norms for a in i.body)})
    literal: dict[Atom | Label, str] = {
        atom: names(atom.predicate, *atom.arguments) for atom in atoms
    }
    labels = sorted({(i.label, i.action) for i in ground.norms})
    for label, action in labels:
        literal[Label(label, action)] = names(label, action.predicate, *action.arguments)
    rule_names = {
        instance: names(instance.rule, *(value for _, value in instance.binding))
        for instance in _distinct(ground.norms, lambda i: (i.rule, i.label, i.action))
    }
    directives: list[Directive] = [Axiom(Literal(literal[atom])) for atom in ground.facts]
    for instance in _distinct(ground.identities, lambda i: (i.rule, i.head)):
        body = antecedents(instance.body)
        values = [value for atom in body for value in atom.arguments]
        directives.append(
            Rule(
                names(f"identity{instance.rule + 1}", *values),
                tuple(Literal(literal[atom]) for atom in body),
                Literal(literal[instance.head]),
                strict=True,
            )
        )
    for instance, name in rule_names.items():
        directives.append(
            Rule(
                name,
                tuple(Literal(literal[atom]) for atom in antecedents(instance.body)),
                Literal(literal[Label(instance.label, instance.action)]),
            )
        )
    budget = (limits or Limits()).instantiations
    directives.extend(_preferences(ground.world, rule_names, budget))
    directives.extend(_conflicts(labels, literal))
    theory = Theory.from_directives(directives)
    return CompiledWorld(
        ground,
        theory,
        {name: item for item, name in literal.items()},
        {name: instance for instance, name in rule_names.items()},
    )


def antecedents(body: tuple[Atom, ...]) -> tuple[Atom, ...]:
    """A ground body's atoms, each once (in order of first occurrence)."""
    return tuple(dict.fromkeys(body))


def _distinct(
    instances: Iterable[_Instance], conclusion: Callable[[_Instance], tuple]
) -> list[_Instance]:
    """The instances that are distinct ground rules (rule, antecedent set and conclusion),
    the first of each in the given order."""
    first: dict[tuple, _Instance] = {}
    for instance in instances:
        first.setdefault((*conclusion(instance), frozenset(instance.body)), instance)
    return list(first.values())


def _preferences(
    world: World, rule_names: dict[NormInstance, str], limit: int
) -> list[RulePreference]:
    """A rule preference for each priority path between instances bearing on one action;
    LimitExceeded past `limit` closure pairs or instance pairs compared."""
    closure = priority_closure(world, limit)
    by_action: dict[Atom, list[NormInstance]] = defaultdict(list)
    for instance in rule_names:
        by_action[instance.action].append(instance)
    if sum(len(instances) ** 2 for instances in by_action.values()) > limit:
        raise LimitExceeded(
            f"comparing the rules bearing on each action takes more than {limit:,} pairs"
        )
    return [
        RulePreference(rule_names[stronger], rule_names[weaker])
        for instances in by_action.values()
        for stronger in instances
        for weaker in instances
        if (stronger.rule, weaker.rule) in closure
    ]


def _conflicts(
    labels: list[tuple[str, Atom]], literal: dict[Atom | Label, str]
) -> Iterable[Contradictory]:
    """The incompatible labels of each action that some rules conclude."""
    concluded = set(labels)
    for action in sorted({action for _, action in labels}):
        for first, second in INCOMPATIBLE:
            if (first, action) in concluded and (second, action) in concluded:
                yield Contradictory(
                    Literal(literal[Label(first, action)]), Literal(literal[Label(second, action)])
                )
