"""Typed representation of a normative world written in the `.norm` language.

A world is a frozen value: ground facts, identity rules (first-order, forward-chained),
named normative rules concluding a deontic label on an action, priorities between those
rules and the queried action, each group in source order. Printing a world gives text that
parses back to an equal world. `World.build` checks what the grammar cannot: safe
variables, ground facts and query, known labels and rules, consistent arities and an
acyclic priority relation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Union

from argc.dsl.errors import InputError, located_error
from argc.dsl.ir import Position

#: The deontic labels a normative rule can conclude.
LABELS = ("permitted", "forbidden", "obligated")
#: Pairs of labels that cannot both hold of one action: a symmetric conflict between them,
#: decided by the priorities of the rules that conclude them.
INCOMPATIBLE = (("forbidden", "permitted"), ("forbidden", "obligated"))
#: The labels that can hold of an action together with each label.
COMPATIBLE = {
    label: tuple(
        other
        for other in LABELS
        if other != label
        and (label, other) not in INCOMPATIBLE
        and (other, label) not in INCOMPATIBLE
    )
    for label in LABELS
}


#: The most rules of a priority cycle an error names in full.
SHOWN_CYCLE_RULES = 12


def _position() -> Position | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


def is_variable(term: str) -> bool:
    """Variables start with an upper-case letter; constants with a lower-case one or a digit."""
    return term[:1].isupper()


@dataclass(frozen=True, order=True)
class Atom:
    """`predicate(t1, ..., tn)`; a term is a constant or a variable."""

    predicate: str
    arguments: tuple[str, ...] = ()
    position: Position | None = _position()

    def __str__(self) -> str:
        if not self.arguments:
            return self.predicate
        return f"{self.predicate}({', '.join(self.arguments)})"

    @property
    def variables(self) -> tuple[str, ...]:
        """The variables of the atom, in order of first occurrence."""
        return tuple(dict.fromkeys(term for term in self.arguments if is_variable(term)))

    @property
    def is_ground(self) -> bool:
        return not self.variables

    def substitute(self, binding: dict[str, str]) -> Atom:
        """The atom with each variable replaced by its value in `binding`."""
        return Atom(
            self.predicate, tuple(binding.get(term, term) for term in self.arguments), self.position
        )


@dataclass(frozen=True)
class Fact:
    atom: Atom
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"{self.atom}."


@dataclass(frozen=True)
class IdentityRule:
    """`body -> head`: whatever satisfies the body also satisfies the head."""

    body: tuple[Atom, ...]
    head: Atom
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"{', '.join(map(str, self.body))} -> {self.head}."


@dataclass(frozen=True)
class Norm:
    """`[norm name: body => label(action)]`: where the body holds, the action has the label
    unless a conflicting rule of higher priority applies."""

    name: str
    body: tuple[Atom, ...]
    label: str
    action: Atom
    position: Position | None = _position()
    label_at: Position | None = _position()

    def __str__(self) -> str:
        return (
            f"[norm {self.name}: {', '.join(map(str, self.body))} => {self.label}({self.action})]"
        )


@dataclass(frozen=True)
class Priority:
    """`[priority: stronger > weaker]` between two normative rules."""

    stronger: str
    weaker: str
    position: Position | None = _position()
    stronger_at: Position | None = _position()
    weaker_at: Position | None = _position()

    def __str__(self) -> str:
        return f"[priority: {self.stronger} > {self.weaker}]"


@dataclass(frozen=True)
class Query:
    action: Atom
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[query: {self.action}]"


Statement = Union[Fact, IdentityRule, Norm, Priority, Query]  # noqa: UP007 - runtime alias


@dataclass(frozen=True)
class World:
    """A normative world. Equal worlds have the same statements in the same order."""

    facts: tuple[Fact, ...] = ()
    identities: tuple[IdentityRule, ...] = ()
    norms: tuple[Norm, ...] = ()
    priorities: tuple[Priority, ...] = ()
    query: Query | None = None

    def statements(self) -> Iterator[Statement]:
        yield from self.facts
        yield from self.identities
        yield from self.norms
        yield from self.priorities
        if self.query is not None:
            yield self.query

    def to_text(self) -> str:
        """The world in `.norm` syntax: facts, identity rules, norms, priorities, query."""
        return "".join(f"{statement}\n" for statement in self.statements())

    def norm(self, name: str) -> Norm:
        for norm in self.norms:
            if norm.name == name:
                return norm
        raise KeyError(name)

    @classmethod
    def build(
        cls, statements: Iterable[Statement], *, filename: str = "<input>", source: str = ""
    ) -> World:
        """Check statements and group them into a world (exact duplicates kept once)."""
        return _Checker(filename, source).world(list(statements))


class _Checker:
    """The checks of `World.build`, each failing with an InputError at the culprit."""

    def __init__(self, filename: str, source: str) -> None:
        self.filename = filename
        self.lines = source.split("\n")
        self.arities: dict[tuple[str, str], tuple[int, Position | None]] = {}

    def fail(self, message: str, position: Position | None) -> InputError:
        return located_error(message, position, self.filename, self.lines)

    def world(self, statements: list[Statement]) -> World:
        unique = list(dict.fromkeys(statements))
        facts = [s for s in unique if isinstance(s, Fact)]
        identities = [s for s in unique if isinstance(s, IdentityRule)]
        norms = [s for s in unique if isinstance(s, Norm)]
        priorities = [s for s in unique if isinstance(s, Priority)]
        queries = [s for s in unique if isinstance(s, Query)]
        for fact in facts:
            self.atom(fact.atom, "predicate")
            if not fact.atom.is_ground:
                raise self.fail(f"the fact '{fact.atom}' has variables", fact.atom.position)
        for rule in identities:
            for atom in rule.body:
                self.atom(atom, "predicate")
            self.atom(rule.head, "predicate")
            self.safe(rule.body, rule.head)
        names: set[str] = set()
        for norm in norms:
            if norm.name in names:
                raise self.fail(f"a second rule named '{norm.name}'", norm.position)
            names.add(norm.name)
            if norm.label not in LABELS:
                raise self.fail(
                    f"unknown label '{norm.label}'; expected one of: {', '.join(LABELS)}",
                    norm.label_at or norm.position,
                )
            for atom in norm.body:
                self.atom(atom, "predicate")
            self.atom(norm.action, "action")
            self.safe(norm.body, norm.action)
        for norm in norms:
            known = self.arities.get(("predicate", norm.name))
            if known is not None and known[0] == 0:
                raise self.fail(
                    f"the rule '{norm.name}' is named like the fact '{norm.name}' (supports list"
                    " rules and facts together)",
                    norm.position,
                )
        for priority in priorities:
            for name, at in (
                (priority.stronger, priority.stronger_at),
                (priority.weaker, priority.weaker_at),
            ):
                if name not in names:
                    raise self.fail(f"unknown rule '{name}' in a priority", at or priority.position)
        self.acyclic(priorities)
        if len(queries) > 1:
            raise self.fail("a second query; a world asks about one action", queries[1].position)
        query = queries[0] if queries else None
        if query is not None:
            self.atom(query.action, "action")
            if not query.action.is_ground:
                raise self.fail(f"the query '{query.action}' has variables", query.action.position)
        return World(tuple(facts), tuple(identities), tuple(norms), tuple(priorities), query)

    def atom(self, atom: Atom, kind: str) -> None:
        """Labels are not predicates; every predicate or action keeps one arity."""
        position = atom.position
        if kind == "predicate" and atom.predicate in LABELS:
            raise self.fail(
                f"'{atom.predicate}' is a deontic label: only a normative rule (norm) can"
                " conclude it",
                position,
            )
        known = self.arities.setdefault((kind, atom.predicate), (len(atom.arguments), position))
        if known[0] != len(atom.arguments):
            where = f" (line {known[1].line})" if known[1] is not None else ""
            raise self.fail(
                f"the {kind} '{atom.predicate}' takes {known[0]} argument(s){where}, not"
                f" {len(atom.arguments)}",
                position,
            )

    def safe(self, body: tuple[Atom, ...], conclusion: Atom) -> None:
        """Every variable of a rule's conclusion occurs in its body."""
        bound = {variable for atom in body for variable in atom.variables}
        for variable in conclusion.variables:
            if variable not in bound:
                raise self.fail(
                    f"unsafe variable {variable}: it occurs in '{conclusion}' but not in the"
                    " rule's body",
                    conclusion.position,
                )

    def acyclic(self, priorities: list[Priority]) -> None:
        """The priority relation has no cycle (its transitive closure is a strict order). One
        depth-first search, linear in the priorities; a cycle is reported with its path, at
        the priority of it written last."""
        order = {priority: index for index, priority in enumerate(priorities)}
        below: dict[str, list[Priority]] = {}
        for priority in priorities:
            below.setdefault(priority.stronger, []).append(priority)
        done: set[str] = set()
        for root in below:
            if root in done:
                continue
            path: list[Priority] = []  # the edges from root to the current rule
            on_path = {root: 0}
            stack = [iter(below[root])]
            while stack:
                edge = next(stack[-1], None)
                if edge is None:
                    stack.pop()
                    left = path.pop().weaker if path else root
                    done.add(left)
                    del on_path[left]
                    continue
                if edge.weaker in on_path:
                    cycle = [*path[on_path[edge.weaker] :], edge]
                    names = [cycle[0].stronger, *(step.weaker for step in cycle)]
                    if len(names) > SHOWN_CYCLE_RULES:
                        names = [*names[:4], f"... ({len(cycle)} rules)", *names[-4:]]
                    last = max(cycle, key=order.__getitem__)
                    shown = " > ".join(names)
                    raise self.fail(f"the priorities form a cycle: {shown}", last.position)
                if edge.weaker not in done:
                    on_path[edge.weaker] = len(path) + 1
                    path.append(edge)
                    stack.append(iter(below.get(edge.weaker, ())))
