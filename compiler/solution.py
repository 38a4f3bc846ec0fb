"""Typed results of solving a theory: arguments, attacks, defeats, extensions, statuses."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import field
from functools import cached_property
from typing import Protocol

from argc.dsl.ir import Literal, Ordering, Theory
from argc.dsl.records import dataclass

STATUSES = ("justified", "overruled", "undecided")
ATTACK_KINDS = ("undermine", "rebut", "undercut")


@dataclass(frozen=True)
class Argument:
    """An argument, named canonically: a premise argument is its literal; a rule argument is
    `RULE(SUB1,SUB2,...)` with its direct sub-arguments sorted."""

    name: str
    conclusion: Literal
    top_rule: str | None
    subarguments: tuple[str, ...]

    @property
    def is_premise(self) -> bool:
        return self.top_rule is None


@dataclass(frozen=True)
class Attack:
    """`attacker` attacks `attacked` on its sub-argument `on`; `defeat` when it succeeds."""

    attacker: str
    attacked: str
    on: str
    kind: str
    defeat: bool


@dataclass(frozen=True)
class Acceptance:
    """Credulous: in some extension; skeptical: in every extension. With no extension at all
    (stable semantics can have none) nothing is accepted either way."""

    credulous: bool
    skeptical: bool


class Accepting:
    """The extensions found (the first ones when `more_extensions`) and acceptance over
    every extension, found or not: the items in `credulous` and `skeptical`."""

    extensions: tuple[frozenset[str], ...]
    more_extensions: bool
    credulous: frozenset
    skeptical: frozenset

    @property
    def exists(self) -> bool:
        """Whether there is an extension at all (stable semantics can have none)."""
        return bool(self.extensions) or self.more_extensions

    def ordered(self, names: Iterable[str]) -> list[str]:
        """Names in the order reports list them: sorted (canonical argument names)."""
        return sorted(names)

    def acceptance(self, item) -> Acceptance:
        """Credulous and skeptical acceptance of an item (a claim, or an argument)."""
        return Acceptance(item in self.credulous, item in self.skeptical)


class SolutionSource(Protocol):
    """Where a Solution's parts come from: read from a solved model when first asked."""

    def arguments(self) -> dict[str, Argument]: ...
    def direct_attacks(self) -> tuple[Attack, ...]: ...
    def defeats(self) -> tuple[tuple[str, str], ...]: ...
    def grounded(self) -> frozenset[str]: ...
    def statuses(self) -> dict[Literal, str]: ...
    def extensions(self) -> tuple[frozenset[str], ...]: ...
    def credulous(self) -> frozenset[Literal]: ...
    def skeptical(self) -> frozenset[Literal]: ...
    def consistent(self) -> bool: ...


#: The parts of a Solution its source gives.
SOURCED = (
    "arguments",
    "direct_attacks",
    "defeats",
    "grounded",
    "statuses",
    "extensions",
    "credulous",
    "skeptical",
    "consistent",
)


@dataclass(frozen=True)
class _Values:
    """A source that has every part already (a pickled Solution's)."""

    values: dict

    def __getattr__(self, name: str):
        if name in SOURCED:
            return lambda: self.values[name]
        raise AttributeError(name)


@dataclass(frozen=True, eq=False)
class Solution(Accepting):
    """A theory solved under an ordering and a semantics.

    `statuses` are grounded claim statuses whatever the semantics; `extensions` are the
    extensions of `semantics` (empty when none exists), the first `Limits.extensions` found
    when `more_extensions`; `credulous` and `skeptical` are the claims accepted over every
    extension. `direct_attacks` are the attacks on the attacked sub-argument itself;
    `attacks` adds every argument containing it. Each part is read from the solved model
    the first time it is asked for.
    """

    theory: Theory
    ordering: Ordering
    semantics: str
    more_extensions: bool
    source: SolutionSource = field(repr=False)
    timings: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def arguments(self) -> dict[str, Argument]:
        return self.source.arguments()

    @cached_property
    def direct_attacks(self) -> tuple[Attack, ...]:
        return self.source.direct_attacks()

    @cached_property
    def defeats(self) -> tuple[tuple[str, str], ...]:
        return self.source.defeats()

    @cached_property
    def grounded(self) -> frozenset[str]:
        return self.source.grounded()

    @cached_property
    def statuses(self) -> dict[Literal, str]:
        return self.source.statuses()

    @cached_property
    def extensions(self) -> tuple[frozenset[str], ...]:
        return self.source.extensions()

    @cached_property
    def credulous(self) -> frozenset[Literal]:
        return self.source.credulous()

    @cached_property
    def skeptical(self) -> frozenset[Literal]:
        return self.source.skeptical()

    @cached_property
    def consistent(self) -> bool:
        return self.source.consistent()

    def __getstate__(self) -> dict:
        """Every part read, and the solved model left behind (it does not pickle)."""
        state = {name: getattr(self, name) for name in SOURCED}
        state.update(
            theory=self.theory,
            ordering=self.ordering,
            semantics=self.semantics,
            more_extensions=self.more_extensions,
            source=_Values({name: state[name] for name in SOURCED}),
            timings=self.timings,
        )
        return state

    @cached_property
    def attacks(self) -> tuple[Attack, ...]:
        """Every attack: a direct attack on B reaches every argument that contains B (found
        for the attacked B alone, so the work is that of the attacks found)."""
        containing = {on: self.containers(on) for on in {a.on for a in self.direct_attacks}}
        found = [
            Attack(attack.attacker, whole, attack.on, attack.kind, attack.defeat)
            for attack in self.direct_attacks
            for whole in containing[attack.on]
        ]
        return tuple(sorted(found, key=lambda a: (a.attacker, a.attacked, a.on, a.kind)))

    @cached_property
    def _parents(self) -> dict[str, list[str]]:
        """The arguments with each argument as a direct sub-argument."""
        parents: dict[str, list[str]] = defaultdict(list)
        for argument in self.arguments.values():
            for sub in dict.fromkeys(argument.subarguments):
                parents[sub].append(argument.name)
        return parents

    def containers(self, name: str) -> set[str]:
        """`name` and every argument that contains it."""
        found, stack = {name}, [name]
        while stack:
            for parent in self._parents.get(stack.pop(), ()):
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        return found

    @cached_property
    def _attacks_on(self) -> dict[str, tuple[Attack, ...]]:
        grouped: dict[str, list[Attack]] = defaultdict(list)
        for attack in self.attacks:
            grouped[attack.attacked].append(attack)
        return {name: tuple(found) for name, found in grouped.items()}

    def attacks_on(self, argument: str) -> tuple[Attack, ...]:
        """The attacks on `argument` (on it or on a sub-argument), in the order of `attacks`."""
        return self._attacks_on.get(argument, ())

    def subarguments(self, name: str) -> set[str]:
        """`name` and all its sub-arguments."""
        found, stack = set(), [name]
        while stack:
            current = stack.pop()
            if current not in found:
                found.add(current)
                stack.extend(self.arguments[current].subarguments)
        return found

    @cached_property
    def _by_conclusion(self) -> dict[Literal, tuple[Argument, ...]]:
        grouped: dict[Literal, list[Argument]] = defaultdict(list)
        for argument in self.arguments.values():
            grouped[argument.conclusion].append(argument)
        return {literal: tuple(found) for literal, found in grouped.items()}

    @cached_property
    def _defeaters(self) -> dict[str, tuple[str, ...]]:
        grouped: dict[str, list[str]] = defaultdict(list)
        for attacker, attacked in self.defeats:
            grouped[attacked].append(attacker)
        return {name: tuple(found) for name, found in grouped.items()}

    def arguments_for(self, literal: Literal) -> tuple[Argument, ...]:
        """Every argument concluding `literal`, sorted by name."""
        return self._by_conclusion.get(literal, ())

    def defeaters(self, argument: str) -> tuple[str, ...]:
        """The arguments that defeat `argument`, sorted by name."""
        return self._defeaters.get(argument, ())

    @cached_property
    def _grounded_defeaters(self) -> dict[str, str]:
        """Each argument defeated by the grounded extension, with its first defeater (by
        name) in the extension."""
        grounded, found = self.grounded, {}
        for attacker, attacked in self.defeats:
            if attacker in grounded:
                found[attacked] = min(found.get(attacked, attacker), attacker)
        return found

    def grounded_defeater(self, argument: str) -> str | None:
        """The first argument (by name) of the grounded extension that defeats `argument`;
        None when none does."""
        return self._grounded_defeaters.get(argument)

    def label(self, argument: str) -> str:
        """The argument's grounded label: `in`, `out` (defeated by the grounded extension)
        or `undecided`."""
        if argument in self.grounded:
            return "in"
        return "out" if argument in self._grounded_defeaters else "undecided"

    def status(self, literal: Literal) -> str:
        """Grounded status of a claim; a literal the theory never names has no argument and
        is therefore overruled."""
        return self.statuses.get(literal, "overruled")

    def attacks_by_kind(self) -> dict[str, int]:
        counts = dict.fromkeys(ATTACK_KINDS, 0)
        for attack in self.attacks:
            counts[attack.kind] += 1
        return counts
