"""Abduction over KG worlds (argc.compiler.kg.abduce; asp/kg/preconditions.lp,
candidates.lp, abduce.lp): the ASP preconditions are the reference simulator's; the
consistent set equals a brute-force enumeration of every candidate at every place on
generated worlds and always holds the masked element; hand-written worlds with several
answers, one answer, and a masked element whose absence leaves the story consistent;
masks that are not the world's; limits."""

from __future__ import annotations

import random
import time

import pytest
from kg_brute import events_on
from margins import GRACE

from argc.compiler.control import Limits, Session, StepCounter
from argc.compiler.kg.abduce import CANDIDATES, abduce, canonical, visible_facts
from argc.compiler.kg.facts import world_facts
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg import Declaration, Event, KgWorld, Object, Person, parse_kg
from argc.dsl.kg.simulate import INTACT, State, States, apply, precondition
from argc.dsl.kg.world import DECLARATIONS, EVENT_ROLES
from argc.tasks.kg.generator import COMPLEXITIES, DEPTHS, generate_graph

Element = Event | Declaration

# The brute-force reference -------------------------------------------------------------------


def _runs(states: States, events: list[Event]) -> bool:
    """Every event meets its precondition in the state it meets."""
    for event in events:
        if precondition(event, states) is not None:
            return False
        states = apply(event, states)
    return True


def reference(world: KgWorld, target: str, masked: Element) -> tuple[Element, ...]:
    """The consistent set by its definition: every candidate tried at every place."""
    found: set[Element] = set()
    if isinstance(masked, Declaration):
        kept = [d for d in world.declarations if d.object != target]
        for person in world.persons:
            for kind in DECLARATIONS:
                declaration = Declaration(kind, person.name, target)
                states = {d.object: State(d.person, d.person, INTACT) for d in [*kept, declaration]}
                if _runs(states, list(world.events)):
                    found.add(declaration)
        return tuple(sorted(found, key=canonical))
    hidden = next(time for time, event in enumerate(world.events) if event is masked)
    visible = [event for time, event in enumerate(world.events) if time != hidden]
    # The states before each place; an event inserted after a visible event that fails
    # fails with it, so the places end there.
    before = [{d.object: State(d.person, d.person, INTACT) for d in world.declarations}]
    for event in visible:
        if precondition(event, before[-1]) is not None:
            break
        before.append(apply(event, before[-1]))
    candidates = list(events_on(world, target))
    for place, states in enumerate(before):
        for candidate in candidates:
            if candidate not in found and _runs(states, [candidate, *visible[place:]]):
                found.add(candidate)
    return tuple(sorted(found, key=canonical))


def random_mask(world: KgWorld, target: str, rng: random.Random) -> Element:
    """The target's declaration one time in four, else one of its events (the world's own)."""
    if rng.random() < 0.25:
        return next(d for d in world.declarations if d.object == target)
    return rng.choice([event for event in world.events if target in event.objects])


# Generated worlds ----------------------------------------------------------------------------

CELLS = [(1, 1), (2, 2), (3, 3), (4, 2), (5, 4), (6, 5), (8, 3), (10, 6)]


@pytest.mark.parametrize(("depth", "complexity"), CELLS)
def test_abduce_equals_the_brute_force_reference(depth: int, complexity: int) -> None:
    """12 worlds a cell, 96 in all, with random masks of both kinds."""
    rng = random.Random(depth * 10 + complexity)
    for seed in range(12):
        graph = generate_graph(depth, complexity, seed, "eval")
        masked = random_mask(graph.world, graph.target, rng)
        found = abduce(graph.world, graph.target, masked)
        assert found == reference(graph.world, graph.target, masked), (seed, masked)
        assert masked in found


def test_the_masked_element_is_always_consistent() -> None:
    """Over every cell of the grid: the target's declaration and one of its events."""
    rng = random.Random(0)
    for depth in DEPTHS:
        for complexity in COMPLEXITIES:
            graph = generate_graph(depth, complexity, 7, "rl")
            world, target = graph.world, graph.target
            declaration = next(d for d in world.declarations if d.object == target)
            event = rng.choice([e for e in world.events if target in e.objects])
            for masked in (declaration, event):
                found = abduce(world, target, masked)
                assert masked in found, (depth, complexity, masked)
                assert all(isinstance(e, type(masked)) for e in found)


def test_a_repeated_event_is_masked_where_the_world_has_it() -> None:
    """The same event twice: each occurrence, passed as the world's own, is its own mask."""
    world = parse_kg(
        "person a: female. person b: male. object o. own(a, o)."
        " break(a, o). repair(b, o). break(a, o)."
    )
    first, _, last = world.events
    assert abduce(world, "o", first) == (Event("break", ("a",), ("o",)),)
    assert abduce(world, "o", last) == reference(world, "o", last)
    assert len(abduce(world, "o", last)) > 1  # V stays consistent without the last one
    with pytest.raises(ValueError, match="happens at times 1, 3"):
        abduce(world, "o", Event("break", ("a",), ("o",)))


# Hand-written worlds ---------------------------------------------------------------------------

PEOPLE = "person a: female. person b: male. person c: male.\nobject o. object k.\n"


def _event(text: str) -> Event:
    kind, rest = text.rstrip(")").split("(")
    names = tuple(rest.split(", "))
    split = len(EVENT_ROLES[kind][0])
    return Event(kind, names[:split], names[split:])


def _masked(world: KgWorld, text: str) -> Event:
    return next(event for event in world.events if event == _event(text))


def test_a_sale_and_a_gift_are_both_consistent() -> None:
    world = parse_kg(PEOPLE + "own(a, o). own(c, k). sale(a, b, o). loan(b, c, o).")
    assert abduce(world, "o", _masked(world, "sale(a, b, o)")) == (
        _event("gift(a, b, o)"),
        _event("sale(a, b, o)"),
    )


def test_own_and_create_are_both_consistent() -> None:
    world = parse_kg(PEOPLE + "own(a, o). own(c, k). sale(a, b, o). loan(b, c, o).")
    found = abduce(world, "o", world.declarations[0])
    assert found == (Declaration("create", "a", "o"), Declaration("own", "a", "o"))


@pytest.mark.parametrize(
    ("events", "hidden"),
    [
        ("break(a, o). repair(c, o).", "break(a, o)"),
        ("loan(a, b, o). return(b, a, o). sale(a, c, o).", "return(b, a, o)"),
    ],
)
def test_a_single_consistent_event(events: str, hidden: str) -> None:
    world = parse_kg(PEOPLE + "own(a, o). own(c, k). " + events)
    assert abduce(world, "o", _masked(world, hidden)) == (_event(hidden),)


def test_an_exchange_pinned_by_the_other_objects_later_events() -> None:
    """b must own o before the gift: a sale, a gift or the exchange would do, but a sells k
    afterwards, so only the exchange fits, found as written and with its objects swapped
    (one event, two descriptions)."""
    world = parse_kg(
        PEOPLE + "own(a, o). own(b, k). exchange(a, b, o, k). gift(b, c, o). sale(a, c, k)."
    )
    assert abduce(world, "o", _masked(world, "exchange(a, b, o, k)")) == (
        _event("exchange(a, b, o, k)"),
        _event("exchange(b, a, k, o)"),
    )


def test_a_masked_final_sale_leaves_every_event_that_fits() -> None:
    """Without the final sale the story is still consistent, so every event on o that can
    happen somewhere in it is an answer: a hands o on to b or c (sale, gift, loan) or breaks
    it. No exchange fits: before c lends k, a has nothing c would own; after, c holds
    nothing."""
    world = parse_kg(PEOPLE + "own(a, o). own(c, k). sale(a, b, o). loan(c, b, k).")
    found = abduce(world, "o", _masked(world, "sale(a, b, o)"))
    assert found == tuple(
        map(
            _event,
            [
                "break(a, o)",
                "gift(a, b, o)",
                "gift(a, c, o)",
                "loan(a, b, o)",
                "loan(a, c, o)",
                "sale(a, b, o)",
                "sale(a, c, o)",
            ],
        )
    )
    assert found == reference(world, "o", world.events[0])


# Masks that are not the world's ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "masked", "message"),
    [
        ("x", Declaration("own", "a", "o"), "'x' is not an object of the world"),
        ("o", Declaration("own", "c", "k"), "not about o"),
        ("o", Declaration("create", "a", "o"), "not a declaration of the world"),
        ("o", _event("loan(c, b, k)"), "does not involve o"),
        ("o", _event("sale(a, c, o)"), "not an event of the world"),
        ("o", "sale(a, b, o)", "an Event or a Declaration, not str"),
    ],
)
def test_a_mask_that_is_not_the_worlds(target: str, masked, message: str) -> None:
    world = parse_kg(PEOPLE + "own(a, o). own(c, k). sale(a, b, o). loan(c, b, k).")
    with pytest.raises(ValueError, match=message):
        abduce(world, target, masked)


# The ASP programs ------------------------------------------------------------------------------


def _ground(encodings: tuple[str, ...], facts: str) -> Session:
    session = Session(Limits())
    StepCounter.on(session, "grounding", "steps")
    session.load(encodings)
    session.ground([("base", facts)])
    return session


def test_preconditions_are_the_simulators() -> None:
    """Random event sequences, most of them invalid: the times violated/2 names are those
    where `precondition` gives a reason in the state the simulator reaches by applying
    every event. An object exchanged for itself is violated too."""
    rng = random.Random(3)
    people, things = ["a", "b", "c"], ["o", "k", "m"]
    for _ in range(150):
        events = []
        for _ in range(rng.randint(1, 8)):
            kind = rng.choice(list(EVENT_ROLES))
            roles, objects = EVENT_ROLES[kind]
            chosen = rng.sample(things, len(objects))  # distinct objects
            events.append(Event(kind, tuple(rng.choice(people) for _ in roles), tuple(chosen)))
        world = KgWorld(
            tuple(Person(name, "female") for name in people),
            tuple(map(Object, things)),
            tuple(Declaration("own", rng.choice(people), thing) for thing in things),
            tuple(events),
        )
        states = {d.object: State(d.person, d.person, INTACT) for d in world.declarations}
        expected = set()
        for time_, event in enumerate(events, 1):
            if precondition(event, states) is not None:
                expected.add(time_)
            states = apply(event, states)
        session = _ground(("kg/state", "kg/preconditions"), world_facts(world))
        assert session.undecided_atoms() == []
        assert {atom.arguments[0].number for atom in session.atoms("violated", 2)} == expected
    session = _ground(
        ("kg/state", "kg/preconditions"),
        'init("o", "a"). init("k", "b"). event(1, "exchange", ("a","b"), ("o","o")). time(0..1).',
    )
    assert [str(atom) for atom in session.atoms("violated", 2)] == ['violated(1,("o","o"))']


def test_the_candidates_are_decided_by_grounding() -> None:
    for seed in range(10):
        graph = generate_graph(6, 4, seed, "eval")
        masked = random_mask(graph.world, graph.target, random.Random(seed))
        session = _ground(CANDIDATES, visible_facts(graph.world, graph.target, masked))
        assert session.undecided_atoms() == []
        assert session.atoms("candidate_event", 4) or session.atoms("candidate_declaration", 2)


# Limits ----------------------------------------------------------------------------------------


def _crowd(persons: int, loans: int) -> tuple[KgWorld, Event]:
    """Many persons who could all receive o at every place of a long story about k, once its
    only event, the sale, is hidden."""
    names = [f"p{number}" for number in range(persons)]
    events = [Event("sale", ("p0", "p1"), ("o",))]
    for number in range(loans):
        borrower = names[1 + number % (persons - 1)]
        events += [
            Event("loan", ("p0", borrower), ("k",)),
            Event("return", (borrower, "p0"), ("k",)),
        ]
    world = KgWorld.build(
        [
            *(Person(name, "male") for name in names),
            Object("o"),
            Object("k"),
            Declaration("own", "p0", "o"),
            Declaration("own", "p0", "k"),
            *events,
        ]
    )
    return world, world.events[0]


def test_grounding_stops_at_the_instantiation_limit() -> None:
    world, masked = _crowd(400, 300)
    with pytest.raises(LimitExceeded, match="more than 100,000 candidate and state steps"):
        abduce(world, "o", masked, Limits(instantiations=100_000))


def test_grounding_stops_at_the_time_limit() -> None:
    world, masked = _crowd(400, 300)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="time limit of 0.5 s"):
        abduce(world, "o", masked, Limits(seconds=0.5))
    assert time.monotonic() - started < GRACE


def test_enumeration_stops_at_the_extension_limit() -> None:
    world, masked = _crowd(20, 2)
    with pytest.raises(LimitExceeded, match="more than 10 consistent candidates"):
        abduce(world, "o", masked, Limits(extensions=10))
