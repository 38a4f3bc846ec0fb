"""Typed representation of a KG world written in the `.kg` language.

A KG world G = (P, O, E_dyn, E_stat, s0) is a frozen value: persons with their genders,
objects, the initial declarations (own, create) that set s0, the operation events of E_dyn
in time order, the kinship facts of E_stat and the composite kinship rules the world
declares beside the standard ones (`STANDARD_RULES`). Printing a world gives text that
parses back to an equal world. `KgWorld.build` checks what the grammar cannot: known names,
arities, one initial declaration per object, rules over the basic vocabulary with two or
three hops, every event's precondition in the state it meets, genders consistent with
the kinship facts and their inverses (the last two by the reference simulator,
`argc.dsl.kg.simulate`) and a possible family (`argc.dsl.kg.genealogy`: one father and one
mother, no cycle of descent, no spouse of one's blood, siblings of one generation).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Union

from argc.dsl.errors import InputError, located_error
from argc.dsl.ir import Position

#: The genders of persons.
GENDERS = ("female", "male")
#: The initial declarations (A_init): each sets s0(o) = (p, p, intact); roles of arguments.
DECLARATIONS = {"own": ("owner", "object"), "create": ("creator", "object")}
#: The operation events (A_op): the roles of their persons, then of their objects.
EVENT_ROLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sale": (("seller", "buyer"), ("object",)),
    "gift": (("giver", "receiver"), ("object",)),
    "exchange": (("first holder", "second holder"), ("first object", "second object")),
    "loan": (("lender", "borrower"), ("object",)),
    "return": (("borrower", "owner"), ("object",)),
    "break": (("breaker",), ("object",)),
    "repair": (("repairer",), ("object",)),
}
EVENTS = tuple(EVENT_ROLES)
#: The basic kinship vocabulary W: `w(x, y)` says that x is the w of y.
RELATIONS = (
    "father",
    "mother",
    "son",
    "daughter",
    "husband",
    "wife",
    "brother",
    "sister",
    "friend",
)
#: The gender of the first person of a gendered basic relation (a friend has either).
RELATION_GENDER = {
    "father": "male",
    "mother": "female",
    "son": "male",
    "daughter": "female",
    "husband": "male",
    "wife": "female",
    "brother": "male",
    "sister": "female",
}
#: The hop counts (path lengths) of a composite kinship rule.
HOPS = (2, 3)
#: What a name looks like (the grammar's NAME).
NAME = re.compile(r"[a-z][A-Za-z0-9_]*")


def _position() -> Position | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


def _positions() -> tuple[Position, ...]:
    return field(default=(), compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True)
class Person:
    """`person NAME: GENDER.`"""

    name: str
    gender: str
    position: Position | None = _position()
    name_at: Position | None = _position()
    gender_at: Position | None = _position()

    def to_text(self) -> str:
        return f"person {self.name}: {self.gender}."


@dataclass(frozen=True)
class Object:
    """`object NAME.`"""

    name: str
    position: Position | None = _position()
    name_at: Position | None = _position()

    def to_text(self) -> str:
        return f"object {self.name}."


class _Term:
    """What statements of the form `name(a1, ..., an).` share: their text, and where each
    argument stands (`arguments_at`, from the parser)."""

    name: str
    arguments: tuple[str, ...]
    position: Position | None
    arguments_at: tuple[Position, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.arguments)})"

    def to_text(self) -> str:
        return f"{self}."

    def argument_at(self, index: int) -> Position | None:
        """Where argument `index` stands, else where the statement does."""
        at = self.arguments_at
        return at[index] if index < len(at) else self.position


@dataclass(frozen=True)
class Atom(_Term):
    """`name(a1, ..., an).` as written: `KgWorld.build` tells an initial declaration, an
    event and a kinship fact apart by the name."""

    name: str
    arguments: tuple[str, ...]
    position: Position | None = _position()
    arguments_at: tuple[Position, ...] = _positions()


@dataclass(frozen=True)
class Declaration(_Term):
    """`own(p, o).` or `create(p, o).`: s0(o) = (p, p, intact)."""

    kind: str
    person: str
    object: str
    position: Position | None = _position()
    arguments_at: tuple[Position, ...] = _positions()

    @property
    def name(self) -> str:
        return self.kind

    @property
    def arguments(self) -> tuple[str, ...]:
        return (self.person, self.object)


@dataclass(frozen=True)
class Event(_Term):
    """An operation event `kind(persons..., objects...).`; its time is its place among the
    world's events (1, 2, ...)."""

    kind: str
    actors: tuple[str, ...]
    objects: tuple[str, ...]
    position: Position | None = _position()
    arguments_at: tuple[Position, ...] = _positions()

    @property
    def name(self) -> str:
        return self.kind

    @property
    def arguments(self) -> tuple[str, ...]:
        return self.actors + self.objects


@dataclass(frozen=True)
class KinshipFact(_Term):
    """`relation(x, y).`: x is the relation of y, over the basic vocabulary."""

    relation: str
    first: str
    second: str
    position: Position | None = _position()
    arguments_at: tuple[Position, ...] = _positions()

    @property
    def name(self) -> str:
        return self.relation

    @property
    def arguments(self) -> tuple[str, ...]:
        return (self.first, self.second)


@dataclass(frozen=True)
class Rule:
    """`rule r: w1, ..., wn.`: r(x, z) holds where w1(x, y1), ..., wn(y(n-1), z) do."""

    name: str
    path: tuple[str, ...]
    position: Position | None = _position()
    name_at: Position | None = _position()
    path_at: tuple[Position, ...] = _positions()

    @property
    def hop(self) -> int:
        return len(self.path)

    def to_text(self) -> str:
        return f"rule {self.name}: {', '.join(self.path)}."


def _rules(table: str) -> tuple[Rule, ...]:
    return tuple(
        Rule(name, tuple(path.split(",")))
        for name, path in (line.split() for line in table.strip().splitlines())
    )


#: The composite kinship rules every world has (Table 4 of the paper; hyphens become
#: underscores).
STANDARD_RULES = _rules(
    """
    grandmother mother,father
    grandfather father,father
    aunt sister,father
    uncle brother,father
    mother_in_law mother,husband
    father_in_law father,husband
    brother_in_law brother,husband
    sister_in_law sister,husband
    grandson son,son
    granddaughter daughter,son
    nephew son,brother
    niece daughter,brother
    son_in_law husband,daughter
    daughter_in_law wife,son
    great_grandfather father,father,father
    great_grandmother mother,father,father
    great_grandson son,son,son
    great_granddaughter daughter,son,son
    great_uncle brother,father,father
    great_aunt sister,father,father
    grand_nephew son,son,brother
    grand_niece daughter,son,brother
    cousin son,brother,father
    """
)
STANDARD = {rule.name: rule for rule in STANDARD_RULES}

Statement = Union[Person, Object, Atom, Declaration, Event, KinshipFact, Rule]  # noqa: UP007


@dataclass(frozen=True)
class KgWorld:
    """A KG world. Equal worlds have the same statements of each kind in the same order."""

    persons: tuple[Person, ...] = ()
    objects: tuple[Object, ...] = ()
    declarations: tuple[Declaration, ...] = ()
    events: tuple[Event, ...] = ()
    facts: tuple[KinshipFact, ...] = ()
    rules: tuple[Rule, ...] = ()

    def statements(self) -> Iterator[Statement]:
        yield from self.persons
        yield from self.objects
        yield from self.declarations
        yield from self.events
        yield from self.facts
        yield from self.rules

    def to_text(self) -> str:
        """The world in `.kg` syntax: persons, objects, initial declarations, events in time
        order, kinship facts, declared rules."""
        return "".join(f"{statement.to_text()}\n" for statement in self.statements())

    def gender(self, person: str) -> str:
        for candidate in self.persons:
            if candidate.name == person:
                return candidate.gender
        raise KeyError(person)

    @property
    def genders(self) -> dict[str, str]:
        return {person.name: person.gender for person in self.persons}

    @property
    def all_rules(self) -> tuple[Rule, ...]:
        """The standard rules, then each path the world declares beyond them (several rules
        may share a name: a relation with several paths)."""
        return STANDARD_RULES + tuple(rule for rule in self.rules if rule not in STANDARD_RULES)

    def paths(self, relation: str) -> tuple[tuple[str, ...], ...]:
        """Every path of a composite relation, standard first (none for another name)."""
        return tuple(rule.path for rule in self.all_rules if rule.name == relation)

    @classmethod
    def build(
        cls, statements: Iterable[Statement], *, filename: str = "<input>", source: str = ""
    ) -> KgWorld:
        """Check statements and group them into a world (exact duplicates of a kinship fact
        kept once)."""
        return _Checker(filename, source).world(list(statements))


def _line(position: Position | None) -> str:
    return f" (line {position.line})" if position is not None else ""


class _Checker:
    """The checks of `KgWorld.build`, each failing with an InputError at the culprit."""

    def __init__(self, filename: str, source: str) -> None:
        self.filename = filename
        self.lines = source.split("\n")
        self.persons: dict[str, Person] = {}
        self.objects: dict[str, Object] = {}

    def fail(self, message: str, position: Position | None) -> InputError:
        return located_error(message, position, self.filename, self.lines)

    def world(self, statements: list[Statement]) -> KgWorld:
        rules = [s for s in statements if isinstance(s, Rule)]
        composite = set(STANDARD) | {rule.name for rule in rules}
        typed = [
            self.classify(s, composite)
            if isinstance(s, (Atom, Declaration, Event, KinshipFact))
            else s
            for s in statements
        ]
        for person in (s for s in typed if isinstance(s, Person)):
            self.name(person.name, person.name_at or person.position)
            self.entity(person.name, person.name_at or person.position)
            self.persons[person.name] = person
            if person.gender not in GENDERS:
                raise self.fail(
                    f"unknown gender '{person.gender}'; expected female or male",
                    person.gender_at or person.position,
                )
        for thing in (s for s in typed if isinstance(s, Object)):
            self.name(thing.name, thing.name_at or thing.position)
            self.entity(thing.name, thing.name_at or thing.position)
            self.objects[thing.name] = thing
        declarations = [s for s in typed if isinstance(s, Declaration)]
        declared: dict[str, Declaration] = {}
        for declaration in declarations:
            self.arguments(declaration, ("person", "object"))
            if declaration.object in declared:
                first = declared[declaration.object].position
                raise self.fail(
                    f"a second initial declaration of '{declaration.object}'{_line(first)}; an"
                    " object has one (own or create)",
                    declaration.position,
                )
            declared[declaration.object] = declaration
        for name, thing in self.objects.items():
            if name not in declared:
                raise self.fail(
                    f"the object '{name}' has no initial declaration (own or create)",
                    thing.name_at or thing.position,
                )
        events = [s for s in typed if isinstance(s, Event)]
        for event in events:
            persons, objects = EVENT_ROLES[event.kind]
            self.arguments(event, ("person",) * len(persons) + ("object",) * len(objects))
        facts = list(dict.fromkeys(s for s in typed if isinstance(s, KinshipFact)))
        for fact in facts:
            self.arguments(fact, ("person", "person"))
            if fact.first == fact.second:
                raise self.fail(
                    f"{fact} relates {fact.first} to themself; a kinship fact relates two"
                    " different persons",
                    fact.argument_at(1),
                )
        self.rules(rules)
        world = KgWorld(
            tuple(self.persons.values()),
            tuple(self.objects.values()),
            tuple(declarations),
            tuple(events),
            tuple(facts),
            tuple(rules),
        )
        self.simulate(world)
        return world

    def name(self, name: str, position: Position | None) -> None:
        if not NAME.fullmatch(name):
            raise self.fail(
                f"{name!r} is not a name (a lower-case letter, then letters, digits or '_')",
                position,
            )

    def entity(self, name: str, position: Position | None) -> None:
        """A name is declared once, as a person or as an object."""
        for kind, known in (("person", self.persons), ("object", self.objects)):
            if name in known:
                raise self.fail(
                    f"'{name}' is already declared as {'an' if kind == 'object' else 'a'}"
                    f" {kind}{_line(known[name].position)}",
                    position,
                )

    def classify(self, statement: _Term, composite: set[str]) -> Declaration | Event | KinshipFact:
        """The initial declaration, event or kinship fact `name(arguments)` is, by its name
        and arity."""
        name, arguments = statement.name, tuple(statement.arguments)
        at, arguments_at = statement.position, tuple(statement.arguments_at)
        if name in DECLARATIONS:
            self.arity(statement, DECLARATIONS[name])
            return Declaration(name, *arguments, at, arguments_at)
        if name in EVENT_ROLES:
            persons, objects = EVENT_ROLES[name]
            self.arity(statement, persons + objects)
            split = len(persons)
            return Event(name, arguments[:split], arguments[split:], at, arguments_at)
        if name in RELATIONS:
            self.arity(statement, ("first person", "second person"))
            return KinshipFact(name, *arguments, at, arguments_at)
        if name in composite:
            raise self.fail(
                f"'{name}' is a composite relation, derived by its rule; kinship facts use the"
                f" basic relations ({', '.join(RELATIONS)})",
                at,
            )
        raise self.fail(
            f"unknown relation '{name}'; expected an initial declaration (own, create), an"
            f" event ({', '.join(EVENTS)}) or a kinship relation ({', '.join(RELATIONS)})",
            at,
        )

    def arity(self, statement: _Term, roles: tuple[str, ...]) -> None:
        count = len(statement.arguments)
        if count != len(roles):
            raise self.fail(
                f"{statement.name} takes {len(roles)} arguments ({', '.join(roles)}), not {count}",
                statement.position,
            )

    def arguments(self, statement: _Term, kinds: tuple[str, ...]) -> None:
        """Each argument names a declared person or object, as its place requires."""
        for index, (argument, kind) in enumerate(zip(statement.arguments, kinds, strict=True)):
            known, other = (
                (self.persons, self.objects) if kind == "person" else (self.objects, self.persons)
            )
            if argument in known:
                continue
            at = statement.argument_at(index)
            if argument in other:
                wrong = "an object" if kind == "person" else "a person"
                raise self.fail(
                    f"'{argument}' is {wrong}, not {'a' if kind == 'person' else 'an'} {kind},"
                    f" in {statement}",
                    at,
                )
            raise self.fail(f"unknown {kind} '{argument}' in {statement}", at)

    def rules(self, rules: list[Rule]) -> None:
        """Each rule is named like no basic relation and has a path of 2 or 3 basic relations;
        a name may have several paths, but not one path twice."""
        declared: dict[tuple[str, tuple[str, ...]], Rule] = {}
        for rule in rules:
            at = rule.name_at or rule.position
            self.name(rule.name, at)
            if rule.name in RELATIONS:
                raise self.fail(
                    f"'{rule.name}' is a basic relation; a rule names a composite one",
                    at,
                )
            key = (rule.name, rule.path)
            if key in declared:
                raise self.fail(
                    f"a second rule '{rule.name}' with the same path {', '.join(rule.path)}"
                    f"{_line(declared[key].position)}",
                    at,
                )
            declared[key] = rule
            for index, relation in enumerate(rule.path):
                if relation not in RELATIONS:
                    where = rule.path_at[index] if index < len(rule.path_at) else at
                    raise self.fail(
                        f"unknown relation '{relation}' in the path of rule '{rule.name}';"
                        f" expected one of {', '.join(RELATIONS)}",
                        where,
                    )
            if rule.hop not in HOPS:
                raise self.fail(
                    f"rule '{rule.name}' has a path of {rule.hop} relation(s); a composite rule"
                    " has 2 or 3",
                    at,
                )

    def simulate(self, world: KgWorld) -> None:
        """Every event's precondition holds in the state it meets; genders agree with the
        kinship facts and their inverses; the family is possible."""
        from argc.dsl.kg import simulate

        try:
            simulate.check_events(world)
        except simulate.Rejected as rejected:
            raise self.fail(str(rejected), rejected.event.position) from None
        try:
            simulate.closed_facts(world)
        except simulate.Inconsistent as inconsistent:
            fact = inconsistent.fact
            raise self.fail(str(inconsistent), fact.argument_at(inconsistent.argument)) from None
        self.genealogy(world)

    def genealogy(self, world: KgWorld) -> None:
        """The kinship facts describe a possible family (`argc.dsl.kg.genealogy`): the first
        violation is reported at its fact."""
        from argc.dsl.kg.genealogy import violations

        found = violations(world)
        if found:
            raise self.fail(found[0].message, world.facts[found[0].fact].position)
