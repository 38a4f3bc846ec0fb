"""The reference simulator of KG worlds, in plain Python from the definitions (docs/kg.md):
object states over time by the event semantics, reasoning depth, and kinship by inverse
closure and the composite rules. `KgWorld.build` checks preconditions and genders with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from argc.dsl.kg.world import EVENT_ROLES, RELATION_GENDER, Event, KgWorld, KinshipFact

INTACT = "intact"
BROKEN = "broken"

#: The inverse of each basic relation, by the gender of the person it is said of: w(x, y)
#: gives inverse(y, x) in y's form (male, female).
INVERSE = {
    "father": ("son", "daughter"),
    "mother": ("son", "daughter"),
    "son": ("father", "mother"),
    "daughter": ("father", "mother"),
    "husband": ("wife", "wife"),
    "wife": ("husband", "husband"),
    "brother": ("brother", "sister"),
    "sister": ("brother", "sister"),
    "friend": ("friend", "friend"),
}


class State(NamedTuple):
    """s_t(o) = (owner, possessor, integrity)."""

    owner: str
    possessor: str
    integrity: str

    def __str__(self) -> str:
        return f"({self.owner}, {self.possessor}, {self.integrity})"


#: s_t: every object's state at one time.
States = dict[str, State]


class Rejected(ValueError):
    """An event whose precondition fails in the state it meets."""

    def __init__(self, time: int, event: Event, reason: str) -> None:
        super().__init__(f"event {time} {event}: {reason}")
        self.time = time
        self.event = event
        self.reason = reason


class Inconsistent(ValueError):
    """A kinship fact whose relation, or its inverse, disagrees with a person's gender;
    `argument` is the index of that person in the fact."""

    def __init__(self, fact: KinshipFact, argument: int, message: str) -> None:
        super().__init__(message)
        self.fact = fact
        self.argument = argument


def initial_states(world: KgWorld) -> States:
    """s_0: each object owned and held, intact, by the person its declaration names."""
    return {d.object: State(d.person, d.person, INTACT) for d in world.declarations}


def affected(event: Event) -> tuple[str, ...]:
    """Obj(e): the objects the event changes (two for an exchange)."""
    return event.objects


def _holding(state: State) -> str:
    if state.owner == state.possessor:
        return f"owned and held by {state.owner}"
    return f"owned by {state.owner} and held by {state.possessor}"


def _owned_and_held(thing: str, state: State, person: str) -> str | None:
    if state.owner == state.possessor == person:
        return None
    return f"{thing} is {_holding(state)}, not owned and held by {person}"


def precondition(event: Event, states: States) -> str | None:
    """Why the event cannot happen in `states`, or None when its precondition holds."""
    kind, actors = event.kind, event.actors
    if len(actors) == 2 and actors[0] == actors[1]:
        first, second = EVENT_ROLES[kind][0]
        return f"the {first} and the {second} are both {actors[0]}"
    if kind == "exchange":
        (p, q), (o1, o2) = actors, event.objects
        if o1 == o2:
            return f"{o1} cannot be exchanged for itself"
        return _owned_and_held(o1, states[o1], p) or _owned_and_held(o2, states[o2], q)
    (thing,) = event.objects
    state = states[thing]
    if kind in ("gift", "sale", "loan"):
        return _owned_and_held(thing, state, actors[0])
    if kind == "return":
        borrower, owner = actors
        if state.possessor == borrower and state.owner == owner:
            return None
        return f"{thing} is {_holding(state)}, not owned by {owner} and held by {borrower}"
    if kind == "break":
        if state.integrity == BROKEN:
            return f"{thing} is already broken"
        if state.possessor != actors[0]:
            return f"{thing} is held by {state.possessor}, not by {actors[0]}"
        return None
    if kind == "repair":
        return f"{thing} is intact, not broken" if state.integrity == INTACT else None
    raise ValueError(f"unknown event kind {kind!r}")


def apply(event: Event, states: States) -> States:
    """delta(s, e): the states after the event; objects it does not affect keep theirs. The
    precondition is assumed to hold."""
    after = dict(states)
    kind, actors = event.kind, event.actors
    if kind == "exchange":
        (p, q), (o1, o2) = actors, event.objects
        after[o1] = State(q, q, states[o1].integrity)
        after[o2] = State(p, p, states[o2].integrity)
        return after
    (thing,) = event.objects
    owner, possessor, integrity = states[thing]
    if kind in ("gift", "sale"):
        after[thing] = State(actors[1], actors[1], integrity)
    elif kind == "loan":
        after[thing] = State(owner, actors[1], integrity)
    elif kind == "return":
        after[thing] = State(owner, owner, integrity)
    elif kind == "break":
        after[thing] = State(owner, possessor, BROKEN)
    elif kind == "repair":
        after[thing] = State(owner, possessor, INTACT)
    else:
        raise ValueError(f"unknown event kind {kind!r}")
    return after


def _evolving(world: KgWorld) -> Iterator[States]:
    """One dict of every object's state: s_0, then updated in place by each event in turn
    (Rejected at the first event whose precondition fails). An event costs its own objects
    only, so a world of many objects and events takes time and memory linear in its size."""
    states = initial_states(world)
    yield states
    for time, event in enumerate(world.events, 1):
        reason = precondition(event, states)
        if reason is not None:
            raise Rejected(time, event, reason)
        states.update(apply(event, {thing: states[thing] for thing in affected(event)}))
        yield states


def timeline(world: KgWorld) -> list[States]:
    """s_0, s_1, ..., s_T: every object's state before the first event and after each
    (Rejected at the first event whose precondition fails)."""
    return [dict(states) for states in _evolving(world)]


def check_events(world: KgWorld) -> None:
    """Rejected at the first event whose precondition fails (as `timeline`, without keeping
    the states of every time)."""
    for _ in _evolving(world):
        pass


def state(world: KgWorld, thing: str, time: int) -> State:
    """s_time(thing)."""
    return timeline(world)[time][thing]


def depth(world: KgWorld, thing: str) -> int:
    """D: the number of operation events that affect the object."""
    return sum(thing in affected(event) for event in world.events)


def chain(world: KgWorld, thing: str) -> list[tuple[int, Event, State]]:
    """The object's causal chain: (time, event, state after it) for each event affecting it,
    in time order (the deductive trace after s_0)."""
    states = timeline(world)
    return [
        (time, event, states[time][thing])
        for time, event in enumerate(world.events, 1)
        if thing in affected(event)
    ]


def _gender_conflict(relation: str, person: str, gender: str) -> str | None:
    wanted = RELATION_GENDER.get(relation)
    if wanted is None or wanted == gender:
        return None
    return f"{person} is {gender}, but a {relation} is {wanted}"


def closed_facts(world: KgWorld) -> set[tuple[str, str, str]]:
    """The kinship facts closed under inverse: w(x, y) gives its inverse(y, x) in y's gender
    (`INVERSE`). Inconsistent when a fact or its inverse gives a person a relation of the
    other gender."""
    genders = world.genders
    closed: set[tuple[str, str, str]] = set()
    for fact in world.facts:
        x, y = fact.first, fact.second
        conflict = _gender_conflict(fact.relation, x, genders[x])
        if conflict is not None:
            raise Inconsistent(fact, 0, f"{fact}: {conflict}")
        male, female = INVERSE[fact.relation]
        inverse = male if genders[y] == "male" else female
        conflict = _gender_conflict(inverse, y, genders[y])
        if conflict is not None:
            raise Inconsistent(
                fact, 1, f"{fact}: its inverse is {inverse}({y}, {x}), and {conflict}"
            )
        closed.add((fact.relation, x, y))
        closed.add((inverse, y, x))
    return closed


def kinship(world: KgWorld) -> set[tuple[str, str, str]]:
    """The closed basic facts and the composite relations the rules (standard and declared)
    derive from them: (r, x, z) where any of r's paths leads from x to z, x != z."""
    facts = closed_facts(world)
    following: dict[tuple[str, str], set[str]] = {}
    for relation, x, y in facts:
        following.setdefault((relation, x), set()).add(y)
    derived = set(facts)
    starts = {x for _, x, _ in facts}
    for rule in world.all_rules:
        for start in starts:
            reached = {start}
            for relation in rule.path:
                reached = {z for y in reached for z in following.get((relation, y), ())}
            derived |= {(rule.name, start, end) for end in reached if end != start}
    return derived
