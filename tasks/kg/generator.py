"""Random KG worlds at a chosen reasoning depth D and environment complexity T.

`generate_graph(depth, complexity, seed, split)` draws a world from the preset Θ(T)
(`PRESETS`, Table 5 of the paper): the number of object chains from the preset's
distribution, the persons (a count in the preset's range) from the split's name pool, one
object per chain. The target object o* gets exactly `depth` operation events (an exchange
touching o* counts), every other chain a few of its own. Each chain draws the persons its
events bring in from its own group of persons, or, with the crossover probability, from all
of them; each other chain exchanges its object with another chain's with the exchange
probability. Every event is chosen in the state it meets so that its precondition holds
(the reference simulator's `precondition` and `apply`), and the chains are interleaved into
one timeline. A static kinship component over the same persons (couples, their children,
siblings, a grandparent generation) agrees with the genders, and 1 to 3 noise facts
(friendships) are added. Everything is deterministic in the arguments: the random stream
is seeded from a sha256 of them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from argc.dsl.kg.simulate import INTACT, State, States, apply, depth, precondition
from argc.dsl.kg.world import Declaration, Event, KgWorld, KinshipFact, Object, Person
from argc.tasks.kg.names import OBJECT_NAMES, SPLITS, gender, person_pool
from argc.tasks.norms.families import stream

#: The reasoning depths and environment complexities of the grid.
DEPTHS = range(1, 11)
COMPLEXITIES = range(1, 7)
#: The operation events a chain draws from, besides exchanges.
CHAIN_EVENTS = ("sale", "gift", "loan", "return", "break", "repair")
#: How many operation events of its own a chain other than the target's has.
OTHER_CHAIN_EVENTS = (1, 6)
#: How many times a world is drawn again when its exchanges cannot be met (rare).
ATTEMPTS = 50


@dataclass(frozen=True)
class Preset:
    """Θ(T) = (k_chains, n_persons, ρ_crossover, ρ_exchange)."""

    chains: dict[int, float]
    persons: tuple[int, int]
    crossover: float
    exchange: float


#: Table 5: the structural complexity presets.
PRESETS: dict[int, Preset] = {
    1: Preset({1: 1.0}, (5, 8), 0.0, 0.0),
    2: Preset({1: 0.5, 2: 0.5}, (8, 12), 0.2, 0.0),
    3: Preset({2: 1.0}, (10, 15), 0.3, 0.2),
    4: Preset({3: 1.0}, (12, 18), 0.5, 0.5),
    5: Preset({4: 1.0}, (15, 22), 0.8, 0.8),
    6: Preset({5: 1.0}, (18, 25), 1.0, 1.0),
}


@dataclass(frozen=True)
class KgGraph:
    """A generated world with its target object o*, depth D, complexity T, seed and split;
    `chains` are the chain objects (the target's first) and `crossed` those whose chains
    drew persons from all of them."""

    world: KgWorld
    target: str
    depth: int
    complexity: int
    seed: int
    split: str
    chains: tuple[str, ...]
    crossed: tuple[str, ...]


class _Retry(Exception):
    """The drawn exchanges cannot be met in this order; draw again."""


@dataclass
class _Chain:
    thing: str
    people: list[str]
    slots: list[int | None]  # None: an own event; n: exchange number n


def _persons(rng: random.Random, count: int, split: str) -> list[str]:
    """`count` full names of the split without replacement, no two with one first name."""
    chosen: dict[str, str] = {}
    for name in rng.sample(person_pool(split), len(person_pool(split))):
        chosen.setdefault(name.split("_", 1)[0], name)
        if len(chosen) == count:
            return list(chosen.values())
    raise ValueError(f"the {split} pool has fewer than {count} first names")


def _exchange_plan(rng: random.Random, chains: int, depth: int, rate: float) -> list[tuple]:
    """(chain, other chain) of each exchange: each chain but the target's exchanges with
    another with probability `rate`; at most `depth` exchanges touch the target's."""
    plan = []
    on_target = 0
    for chain in range(1, chains):
        if rng.random() >= rate:
            continue
        others = [other for other in range(chains) if other != chain]
        if on_target == depth:
            others.remove(0)
        if not others:
            continue
        other = rng.choice(others)
        on_target += other == 0
        plan.append((chain, other))
    return plan


def _slots(rng: random.Random, own: int, exchanges: list[int]) -> list[int | None]:
    """A chain's own events and its exchanges (in plan order) at random places."""
    slots: list[int | None] = [None] * (own + len(exchanges))
    places = sorted(rng.sample(range(len(slots)), len(exchanges)))
    for place, exchange in zip(places, exchanges, strict=True):
        slots[place] = exchange
    return slots


class _Events(Sequence[Event]):
    """The events of one kind on `thing` by `giver` to each of some persons (`Event(kind,
    (giver, person), (thing,))`), or by each of them (`Event(kind, (person,), (thing,))`),
    each made only when drawn: a step draws one of the many it is offered."""

    def __init__(self, kind: str, thing: str, persons: list[str], giver: str | None) -> None:
        self.kind, self.thing, self.persons, self.giver = kind, thing, persons, giver

    def __len__(self) -> int:
        return len(self.persons)

    def __getitem__(self, index):  # type: ignore[override] - an index or a slice
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        person = self.persons[index]
        actors = (person,) if self.giver is None else (self.giver, person)
        return Event(self.kind, actors, (self.thing,))


def _options(
    thing: str, now: State, people: list[str], ready: bool, avoid: str | None
) -> dict[str, Sequence[Event]]:
    """The events of each kind that can happen to `thing` in state `now`; when `ready`, only
    those leaving it owned and held by someone other than `avoid` (an exchange comes next)."""
    owner, holder, integrity = now
    held = owner == holder
    others = [person for person in people if person != holder and not (ready and person == avoid)]
    options: dict[str, Sequence[Event]] = {}
    if held:
        for kind in ("sale", "gift") + (() if ready else ("loan",)):
            options[kind] = _Events(kind, thing, others, holder)
    elif not (ready and owner == avoid):
        options["return"] = [Event("return", (holder, owner), (thing,))]
    if not ready or (held and holder != avoid):
        if integrity == INTACT:
            options["break"] = [Event("break", (holder,), (thing,))]
        else:
            options["repair"] = _Events("repair", thing, people, None)
    return {kind: events for kind, events in options.items() if events}


def _timeline(
    rng: random.Random, chains: list[_Chain], plan: list[tuple], states: States, everyone: list
) -> list[Event]:
    """Interleave the chains: at each step a chain whose next slot is an own event, or an
    exchange its partner has reached too, moves on."""
    at = [0] * len(chains)
    events: list[Event] = []

    def next_slot(index: int) -> int | None | str:
        slots = chains[index].slots
        return slots[at[index]] if at[index] < len(slots) else "done"

    def waiting(exchange: int, index: int) -> bool:
        return next_slot(index) == exchange

    while True:
        runnable = []
        for index in range(len(chains)):
            slot = next_slot(index)
            if slot is None:
                runnable.append(index)
            elif slot != "done":
                first, second = plan[slot]
                if waiting(slot, first) and waiting(slot, second):
                    runnable.append(index)
        if not runnable:
            return events
        index = rng.choice(runnable)
        chain = chains[index]
        slot = next_slot(index)
        if slot is None:
            after = chain.slots[at[index] + 1] if at[index] + 1 < len(chain.slots) else None
            avoid = None
            if after is not None:
                partner = sum(plan[after]) - index
                if waiting(after, partner):
                    avoid = states[chains[partner].thing].possessor
            people = chain.people if len(chain.people) >= 3 else everyone
            options = _options(chain.thing, states[chain.thing], people, after is not None, avoid)
            if not options:
                raise _Retry
            event = rng.choice(options[rng.choice(sorted(options))])
            at[index] += 1
        else:
            first, second = (chains[i] for i in rng.sample(plan[slot], 2))
            holders = (states[first.thing].possessor, states[second.thing].possessor)
            event = Event("exchange", holders, (first.thing, second.thing))
            for member in plan[slot]:
                at[member] += 1
        if precondition(event, states) is not None:
            raise _Retry
        states = apply(event, states)
        events.append(event)


def _kinship(rng: random.Random, persons: list[str]) -> list[KinshipFact]:
    """Couples, their children and siblings, a grandparent generation, then 1 to 3
    friendships as noise; every fact agrees with the genders."""
    order = rng.sample(persons, len(persons))
    men = [person for person in order if gender(person) == "male"]
    women = [person for person in order if gender(person) == "female"]
    count = min(len(men), len(women), max(1, len(persons) // 5))
    couples = list(zip(men[:count], women[:count], strict=True))
    facts = [KinshipFact("husband", man, woman) for man, woman in couples]
    married = {person for couple in couples for person in couple}
    children: dict[int, list[str]] = {}
    for person in order:
        if count and person not in married and rng.random() < 0.8:
            children.setdefault(rng.randrange(count), []).append(person)
    for number, (man, woman) in enumerate(couples[1:], 1):
        if rng.random() < 0.5:
            children.setdefault(rng.randrange(number), []).append(rng.choice((man, woman)))
    for number, kids in sorted(children.items()):
        man, woman = couples[number]
        for kid in kids:
            facts += [KinshipFact("father", man, kid), KinshipFact("mother", woman, kid)]
        for elder, younger in zip(kids, kids[1:], strict=False):
            relation = "brother" if gender(elder) == "male" else "sister"
            facts.append(KinshipFact(relation, elder, younger))
    related = {frozenset((fact.first, fact.second)) for fact in facts}
    strangers = [pair for pair in combinations(persons, 2) if frozenset(pair) not in related]
    for first, second in rng.sample(strangers, min(rng.randint(1, 3), len(strangers))):
        facts.append(KinshipFact("friend", *rng.sample((first, second), 2)))
    return facts


def _check(depth: int, complexity: int, split: str) -> None:
    if depth not in DEPTHS:
        raise ValueError(f"depth {depth} is not in 1..10")
    if complexity not in COMPLEXITIES:
        raise ValueError(f"complexity {complexity} is not in 1..6")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: one of {', '.join(SPLITS)}")


def generate_graph(depth: int, complexity: int, seed: int, split: str = "rl") -> KgGraph:
    """A world whose target object has exactly `depth` operation events, drawn from the
    preset of `complexity` with persons of `split`'s pool (deterministic in the arguments)."""
    _check(depth, complexity, split)
    for attempt in range(ATTEMPTS):
        rng = stream("kg-graph", split, depth, complexity, seed, attempt)
        try:
            return _draw(rng, depth, complexity, seed, split)
        except _Retry:
            continue
    raise RuntimeError(f"no graph at D{depth} T{complexity} seed {seed} in {ATTEMPTS} draws")


def _draw(rng: random.Random, target_depth: int, complexity: int, seed: int, split: str) -> KgGraph:
    preset = PRESETS[complexity]
    sizes, weights = zip(*sorted(preset.chains.items()), strict=True)
    count = rng.choices(sizes, weights)[0]
    persons = _persons(rng, rng.randint(*preset.persons), split)
    things = rng.sample(OBJECT_NAMES, count)
    plan = _exchange_plan(rng, count, target_depth, preset.exchange)
    groups = [persons[index::count] for index in range(count)]
    owners = [rng.choice(group) for group in groups]
    chains = []
    crossed = []
    for index, thing in enumerate(things):
        exchanges = [number for number, pair in enumerate(plan) if index in pair]
        own = target_depth - len(exchanges) if index == 0 else rng.randint(*OTHER_CHAIN_EVENTS)
        people = groups[index]
        if rng.random() < preset.crossover:
            people = persons
            crossed.append(thing)
        chains.append(_Chain(thing, people, _slots(rng, own, exchanges)))
    kinds = [rng.choice(("own", "create")) for _ in things]
    declarations = [
        Declaration(kind, owner, thing)
        for kind, owner, thing in zip(kinds, owners, things, strict=True)
    ]
    states = {
        thing: State(owner, owner, INTACT) for owner, thing in zip(owners, things, strict=True)
    }
    events = _timeline(rng, chains, plan, states, persons)
    facts = _kinship(rng, persons)
    world = KgWorld.build(
        [
            *(Person(person, gender(person)) for person in persons),
            *map(Object, things),
            *declarations,
            *events,
            *facts,
        ]
    )
    if depth(world, things[0]) != target_depth:
        raise AssertionError(f"the target {things[0]} has depth {depth(world, things[0])}")
    return KgGraph(
        world, things[0], target_depth, complexity, seed, split, tuple(things), tuple(crossed)
    )
