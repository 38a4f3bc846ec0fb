"""Random small valid KG worlds: persons with genders, objects with initial declarations, an
event sequence built by proposing random events and keeping only those whose precondition
holds in the state they meet, kinship facts consistent with the genders that keep the family
possible (`argc.dsl.kg.genealogy`), and now and then a declared rule."""

from __future__ import annotations

import random

from argc.dsl.kg.genealogy import violations
from argc.dsl.kg.simulate import apply, closed_facts, initial_states, precondition
from argc.dsl.kg.world import (
    DECLARATIONS,
    EVENT_ROLES,
    HOPS,
    RELATION_GENDER,
    RELATIONS,
    STANDARD_RULES,
    Declaration,
    Event,
    KgWorld,
    KinshipFact,
    Object,
    Person,
    Rule,
)

PERSONS = ("alice", "bob", "carol", "dan", "eve", "frank", "grace")
OBJECTS = ("ball", "lamp", "book", "vase")
#: The gender each inverse relation forces on the second person of a fact, where one does.
SECOND_GENDER = {"husband": "female", "wife": "male"}


def random_event(rng: random.Random, persons: list[str], objects: list[str]) -> Event:
    """Any event over the names, valid or not."""
    kind = rng.choice(list(EVENT_ROLES))
    roles, things = EVENT_ROLES[kind]
    return Event(
        kind,
        tuple(rng.choice(persons) for _ in roles),
        tuple(rng.choice(objects) for _ in things),
    )


def random_path(rng: random.Random, closed: list[tuple[str, str, str]]) -> tuple[str, ...]:
    """A path of 2 or 3 basic relations: half the time one that the closed facts walk along
    (so that it derives something), else any."""
    hops = rng.choice(HOPS)
    if closed and rng.random() < 0.5:
        relation, _, person = rng.choice(closed)
        path = [relation]
        while len(path) < hops:
            steps = [(relation, second) for relation, first, second in closed if first == person]
            if not steps:
                break
            relation, person = rng.choice(steps)
            path.append(relation)
        if len(path) == hops:
            return tuple(path)
    return tuple(rng.choice(RELATIONS) for _ in range(hops))


def random_world(seed: int, events: int | None = None) -> KgWorld:
    """A valid world over up to seven persons and four objects with up to `events` events
    (random by default)."""
    rng = random.Random(seed)
    people = rng.sample(PERSONS, rng.randint(2, len(PERSONS)))
    persons = tuple(Person(name, rng.choice(("female", "male"))) for name in people)
    things = rng.sample(OBJECTS, rng.randint(1, len(OBJECTS)))
    declarations = tuple(
        Declaration(rng.choice(list(DECLARATIONS)), rng.choice(people), thing) for thing in things
    )
    world = KgWorld(persons, tuple(map(Object, things)), declarations)
    states = initial_states(world)
    chosen: list[Event] = []
    for _ in range(rng.randint(0, 12) if events is None else events):
        for _ in range(400):
            event = random_event(rng, people, things)
            if precondition(event, states) is None:
                chosen.append(event)
                states = apply(event, states)
                break
    genders = world.genders
    facts = []
    for _ in range(rng.randint(0, 8)):
        first, second = rng.sample(people, 2)
        relations = [
            relation
            for relation in RELATIONS
            if RELATION_GENDER.get(relation, genders[first]) == genders[first]
            and SECOND_GENDER.get(relation, genders[second]) == genders[second]
        ]
        fact = KinshipFact(rng.choice(relations), first, second)
        if not violations(KgWorld(persons, facts=(*facts, fact))):
            facts.append(fact)
    rules = []
    if rng.random() < 0.3:
        rules.append(rng.choice(STANDARD_RULES))
    for number in range(rng.randint(0, 2)):
        path = tuple(rng.choice(RELATIONS) for _ in range(rng.choice((2, 3))))
        rules.append(Rule(f"rule_{number}", path))
    # Further paths of a standard relation and of the declared ones.
    closed = sorted(closed_facts(KgWorld(persons, facts=tuple(facts))))
    for name in [rng.choice(STANDARD_RULES).name, *(rule.name for rule in rules)]:
        if rng.random() < 0.5:
            rules.append(Rule(name, random_path(rng, closed)))
    statements = [*persons, *world.objects, *declarations, *chosen, *facts, *dict.fromkeys(rules)]
    return KgWorld.build(statements)
