"""Typed intermediate representation of an ASPIC+ argumentation theory.

A theory is a frozen value: its directives grouped by kind, each group in source order
with exact duplicates dropped. Printing a theory gives directives that parse back to an
equal theory; applying an intervention validates the combined directives afresh.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field
from typing import Union

from argc.dsl.errors import InputError, located_error
from argc.dsl.records import dataclass

NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

PRINCIPLES = ("last-link", "weakest-link")
SET_COMPARISONS = ("elitist", "democratic")
READINGS = ("pyarg", "mp2013")
SEMANTICS = (
    "grounded",
    "complete",
    "preferred",
    "stable",
    "semi-stable",
    "stage",
    "ideal",
    "eager",
    "admissible",
    "conflict-free",
    "naive",
)


@dataclass(frozen=True)
class Position:
    """Where a directive starts in its source (1-based)."""

    line: int
    column: int


def _position() -> Position | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True, order=True)
class Literal:
    """An atom or its signed negation; the name of a defeasible rule is an atom too."""

    atom: str
    negated: bool = False

    def __post_init__(self) -> None:
        if not NAME_PATTERN.fullmatch(self.atom):
            raise ValueError(f"not a valid atom name: {self.atom!r}")

    def __str__(self) -> str:
        return f"-{self.atom}" if self.negated else self.atom

    @property
    def complement(self) -> Literal:
        """The contradictory literal: `a` for `-a` and `-a` for `a`."""
        return Literal(self.atom, not self.negated)

    @classmethod
    def parse(cls, text: str) -> Literal:
        """Read `a` or `-a` (surrounding whitespace allowed)."""
        text = text.strip()
        negated = text.startswith("-")
        return cls(text[1:].strip() if negated else text, negated)


@dataclass(frozen=True)
class Ordering:
    """How argument strength is compared: a principle, a set comparison and its reading.

    The reading `pyarg` compares sets element-wise with the strict element order, exactly as
    PyArg 2.0.2 does; `mp2013` is Modgil & Prakken's (2013) non-strict comparison, whose strict
    counterpart decides.
    """

    principle: str = "last-link"
    set_comparison: str = "elitist"
    reading: str = "pyarg"

    def __post_init__(self) -> None:
        for value, allowed in (
            (self.principle, PRINCIPLES),
            (self.set_comparison, SET_COMPARISONS),
            (self.reading, READINGS),
        ):
            if value not in allowed:
                raise ValueError(
                    f"unknown ordering setting '{value}'; expected one of: {', '.join(allowed)}"
                )

    def __str__(self) -> str:
        words = [self.principle, self.set_comparison]
        if self.reading != "pyarg":
            words.append(self.reading)
        return " ".join(words)

    @classmethod
    def parse(cls, text: str) -> Ordering:
        """Read `last-link elitist`, optionally followed by a reading (`mp2013`)."""
        words = text.split()
        if len(words) not in (2, 3):
            raise ValueError(
                "an ordering is a principle and a set comparison, e.g. 'weakest-link democratic'"
            )
        return cls(*words)


#: The four argument orderings ArgGYM crosses (PyArg's reading of the set comparisons).
ORDERINGS: tuple[Ordering, ...] = tuple(
    Ordering(principle, comparison) for principle in PRINCIPLES for comparison in SET_COMPARISONS
)


# Directives --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Axiom:
    literal: Literal
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[axiom: {self.literal}]"


@dataclass(frozen=True)
class Premise:
    """An ordinary (defeasible) premise."""

    literal: Literal
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[premise: {self.literal}]"


@dataclass(frozen=True)
class Rule:
    """A named strict (`->`) or defeasible (`=>`) rule."""

    name: str
    body: tuple[Literal, ...]
    head: Literal
    strict: bool = False
    position: Position | None = _position()

    @property
    def kind(self) -> str:
        return "strict" if self.strict else "defeasible"

    def __str__(self) -> str:
        arrow = "->" if self.strict else "=>"
        body = " AND ".join(str(literal) for literal in self.body)
        return f"[{self.kind} {self.name}: {body} {arrow} {self.head}]"


@dataclass(frozen=True)
class RulePreference:
    """`stronger > weaker` over defeasible rules."""

    stronger: str
    weaker: str
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[prefer_rule: {self.stronger} > {self.weaker}]"


@dataclass(frozen=True)
class PremisePreference:
    """`stronger > weaker` over ordinary premises."""

    stronger: Literal
    weaker: Literal
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[prefer_premise: {self.stronger} > {self.weaker}]"


@dataclass(frozen=True)
class Contrary:
    """`attacker` is a contrary of `attacked`: it attacks it, not the other way round."""

    attacker: Literal
    attacked: Literal
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[contrary: {self.attacker} ~> {self.attacked}]"


@dataclass(frozen=True, eq=False)
class Contradictory:
    """`first` and `second` are contradictory: each attacks the other, and preferences decide
    as for an atom and its negation. `a <-> b` and `b <-> a` are the same conflict: they are
    equal and hash alike; a theory keeps the one written first."""

    first: Literal
    second: Literal
    position: Position | None = _position()

    @property
    def pair(self) -> frozenset[Literal]:
        return frozenset((self.first, self.second))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Contradictory):
            return NotImplemented
        return self.pair == other.pair

    def __hash__(self) -> int:
        return hash((Contradictory, self.pair))

    def __str__(self) -> str:
        return f"[contradictory: {self.first} <-> {self.second}]"


@dataclass(frozen=True)
class OrderingHeader:
    ordering: Ordering
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[ordering: {self.ordering}]"


@dataclass(frozen=True)
class SemanticsHeader:
    semantics: str
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[semantics: {self.semantics}]"


@dataclass(frozen=True)
class QueryHeader:
    literals: tuple[Literal, ...]
    position: Position | None = _position()

    def __str__(self) -> str:
        return f"[query: {', '.join(str(literal) for literal in self.literals)}]"


Directive = Union[  # noqa: UP007 - a runtime alias used with isinstance
    Axiom,
    Premise,
    Rule,
    RulePreference,
    PremisePreference,
    Contrary,
    Contradictory,
    OrderingHeader,
    SemanticsHeader,
    QueryHeader,
]


# Theory ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theory:
    """An ASPIC+ argumentation theory with optional header settings for `argc check`."""

    axioms: tuple[Literal, ...] = ()
    premises: tuple[Literal, ...] = ()
    rules: tuple[Rule, ...] = ()
    rule_preferences: tuple[RulePreference, ...] = ()
    premise_preferences: tuple[PremisePreference, ...] = ()
    contraries: tuple[Contrary, ...] = ()
    contradictories: tuple[Contradictory, ...] = ()
    ordering: Ordering | None = None
    semantics: str | None = None
    queries: tuple[Literal, ...] = ()

    @classmethod
    def from_directives(
        cls,
        directives: Iterable[Directive],
        *,
        filename: str = "<input>",
        source: str | None = None,
    ) -> Theory:
        """Validate directives and build a theory; errors point into `source` when given."""
        return _Builder(filename, source).build(directives)

    def directives(self) -> Iterator[Directive]:
        """The theory's directives in printing order: header, knowledge, rules, preferences."""
        if self.ordering is not None:
            yield OrderingHeader(self.ordering)
        if self.semantics is not None:
            yield SemanticsHeader(self.semantics)
        if self.queries:
            yield QueryHeader(self.queries)
        yield from (Axiom(literal) for literal in self.axioms)
        yield from (Premise(literal) for literal in self.premises)
        yield from self.contraries
        yield from self.contradictories
        yield from self.rules
        yield from self.rule_preferences
        yield from self.premise_preferences

    def to_text(self) -> str:
        """Directives, one per line; `parse_theory(t.to_text()) == t`."""
        return "".join(f"{directive}\n" for directive in self.directives())

    def apply(self, intervention: Sequence[Directive]) -> Theory:
        """The theory with the intervention's directives added, validated as a whole."""
        return Theory.from_directives([*self.directives(), *intervention])

    def without_header(self) -> Theory:
        """The same knowledge, rules and preferences without `argc check` settings."""
        return Theory(
            self.axioms,
            self.premises,
            self.rules,
            self.rule_preferences,
            self.premise_preferences,
            self.contraries,
            self.contradictories,
        )

    @property
    def defeasible_rules(self) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if not rule.strict)

    @property
    def strict_rules(self) -> tuple[Rule, ...]:
        return tuple(rule for rule in self.rules if rule.strict)

    def rule(self, name: str) -> Rule:
        """The rule with this name (KeyError if none)."""
        for rule in self.rules:
            if rule.name == name:
                return rule
        raise KeyError(name)

    def literals(self) -> frozenset[Literal]:
        """Every literal the theory names (rule names count only where used as literals)."""
        found: set[Literal] = set(self.axioms) | set(self.premises) | set(self.queries)
        for rule in self.rules:
            found.update(rule.body)
            found.add(rule.head)
        for preference in self.premise_preferences:
            found.update((preference.stronger, preference.weaker))
        for contrary in self.contraries:
            found.update((contrary.attacker, contrary.attacked))
        for contradictory in self.contradictories:
            found.update((contradictory.first, contradictory.second))
        return frozenset(found)

    def claims(self) -> tuple[Literal, ...]:
        """Both polarities of every atom the theory names, sorted as text."""
        atoms = {literal.atom for literal in self.literals()}
        return tuple(
            sorted((Literal(atom, negated) for atom in atoms for negated in (False, True)), key=str)
        )


class _Builder:
    """Collects directives, drops exact duplicates and checks the theory's well-formedness."""

    def __init__(self, filename: str, source: str | None) -> None:
        self.filename = filename
        self.lines = source.split("\n") if source is not None else None

    def error(self, message: str, position: Position | None) -> InputError:
        return located_error(message, position, self.filename, self.lines)

    def build(self, directives: Iterable[Directive]) -> Theory:
        groups: dict[type, dict[Directive, Directive]] = {}
        for directive in directives:
            groups.setdefault(type(directive), {}).setdefault(directive, directive)

        def group(kind: type) -> list:
            return list(groups.get(kind, {}).values())

        axioms, premises, rules = group(Axiom), group(Premise), group(Rule)
        self.check_knowledge(axioms, premises)
        self.check_rules(rules)
        defeasible = {rule.name for rule in rules if not rule.strict}
        strict = {rule.name for rule in rules if rule.strict}
        rule_preferences = group(RulePreference)
        for preference in rule_preferences:
            self.check_rule_preference(preference, defeasible, strict)
        premise_literals = {premise.literal for premise in premises}
        premise_preferences = group(PremisePreference)
        for preference in premise_preferences:
            self.check_premise_preference(preference, premise_literals)
        contraries = group(Contrary)
        for contrary in contraries:
            if contrary.attacker == contrary.attacked:
                raise self.error(
                    f"'{contrary.attacker}' cannot be a contrary of itself", contrary.position
                )
        contradictories = group(Contradictory)
        for contradictory in contradictories:
            if contradictory.first == contradictory.second:
                raise self.error(
                    f"'{contradictory.first}' cannot be contradictory to itself",
                    contradictory.position,
                )
        return Theory(
            axioms=tuple(axiom.literal for axiom in axioms),
            premises=tuple(premise.literal for premise in premises),
            rules=tuple(rules),
            rule_preferences=tuple(rule_preferences),
            premise_preferences=tuple(premise_preferences),
            contraries=tuple(contraries),
            contradictories=tuple(contradictories),
            ordering=self.single(group(OrderingHeader), "ordering", "ordering"),
            semantics=self.single(group(SemanticsHeader), "semantics", "semantics"),
            queries=tuple(
                dict.fromkeys(
                    literal for header in group(QueryHeader) for literal in header.literals
                )
            ),
        )

    def check_knowledge(self, axioms: list[Axiom], premises: list[Premise]) -> None:
        axiom_literals = {axiom.literal for axiom in axioms}
        for premise in premises:
            if premise.literal in axiom_literals:
                raise self.error(
                    f"'{premise.literal}' is both an axiom and an ordinary premise",
                    premise.position,
                )

    def check_rules(self, rules: list[Rule]) -> None:
        seen: dict[str, Rule] = {}
        for rule in rules:
            if not rule.body:
                raise self.error(f"rule '{rule.name}' has an empty antecedent", rule.position)
            if rule.name in seen:
                where = seen[rule.name].position
                at = f" (first defined at line {where.line})" if where else ""
                raise self.error(f"rule name '{rule.name}' is defined twice{at}", rule.position)
            if len(set(rule.body)) != len(rule.body):
                raise self.error(
                    f"rule '{rule.name}' names the same antecedent twice", rule.position
                )
            seen[rule.name] = rule

    def check_rule_preference(
        self, preference: RulePreference, defeasible: set[str], strict: set[str]
    ) -> None:
        for name in (preference.stronger, preference.weaker):
            if name in strict:
                raise self.error(
                    f"'{name}' is a strict rule; preferences order defeasible rules only",
                    preference.position,
                )
            if name not in defeasible:
                raise self.error(
                    f"preference names unknown defeasible rule '{name}'", preference.position
                )
        if preference.stronger == preference.weaker:
            raise self.error(
                f"rule '{preference.stronger}' cannot be preferred to itself", preference.position
            )

    def check_premise_preference(
        self, preference: PremisePreference, premises: set[Literal]
    ) -> None:
        for literal in (preference.stronger, preference.weaker):
            if literal not in premises:
                raise self.error(
                    f"preference names '{literal}', which is not an ordinary premise",
                    preference.position,
                )
        if preference.stronger == preference.weaker:
            raise self.error(
                f"premise '{preference.stronger}' cannot be preferred to itself",
                preference.position,
            )

    def single(self, headers: list, what: str, attribute: str):
        """The one value a header sets, or None; setting it twice differently is an error."""
        if len(headers) > 1:
            raise self.error(f"the {what} is set twice, differently", headers[1].position)
        return getattr(headers[0], attribute) if headers else None
