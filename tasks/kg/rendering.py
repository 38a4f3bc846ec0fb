"""English stories of generated KG worlds.

Every statement of the world is said once: each person with their gender, each initial
declaration, each event in time order and each kinship fact, names written out (`alice_smith`
is Alice Smith, `red_ball` the red ball). Declarations, events and kinship facts each take
one of four surface variants (Table 6 of the paper): active, passive, cleft (role-based) and
epistemic-marked. The dynamic stream (declarations, then events) and the static stream
(persons, then kinship facts) are rendered separately and interleaved: the static sentences
are spread among the dynamic ones without reordering either stream. Choices come from the
`rng` given, so a story is deterministic per rng.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from argc.tasks.kg.generator import KgGraph
from argc.tasks.kg.names import object_words, person_words

#: The surface variants, in the order of the templates below.
VARIANTS = ("active", "passive", "cleft", "epistemic")
#: Templates of each declaration and event kind, one per variant. {p} and {q} are the
#: persons, {o} and {o2} the objects; {O} is {o} at the start of a sentence.
TEMPLATES: dict[str, tuple[str, str, str, str]] = {
    "own": (
        "{p} owns {o}.",
        "{O} is owned by {p}.",
        "It is {p} who owns {o}.",
        "{p} is known to own {o}.",
    ),
    "create": (
        "{p} makes {o}.",
        "{O} is made by {p}.",
        "It is {p} who makes {o}.",
        "{p} decides to make {o}.",
    ),
    "sale": (
        "{p} sells {o} to {q}.",
        "{O} is sold to {q} by {p}.",
        "It is {p} who sells {o} to {q}.",
        "{p} agrees to sell {o} to {q}.",
    ),
    "gift": (
        "{p} gives {o} to {q}.",
        "{O} is given to {q} by {p}.",
        "It is {p} who gives {o} to {q}.",
        "{p} decides to give {o} to {q}.",
    ),
    "loan": (
        "{p} lends {o} to {q}.",
        "{O} is lent to {q} by {p}.",
        "It is {p} who lends {o} to {q}.",
        "{p} chooses to lend {o} to {q}.",
    ),
    "return": (
        "{p} returns {o} to {q}.",
        "{O} is returned to {q} by {p}.",
        "It is {p} who returns {o} to {q}.",
        "{p} decides to return {o} to {q}.",
    ),
    "break": (
        "{p} breaks {o}.",
        "{O} is broken by {p}.",
        "It is {p} who breaks {o}.",
        "{p} happens to break {o}.",
    ),
    "repair": (
        "{p} repairs {o}.",
        "{O} is repaired by {p}.",
        "It is {p} who repairs {o}.",
        "{p} manages to repair {o}.",
    ),
    "exchange": (
        "{p} trades {o} to {q} for {o2}.",
        "{O} is traded to {q} by {p} in exchange for {o2}.",
        "It is {p} who trades {o} to {q} for {o2}.",
        "{p} decides to trade {o} to {q} for {o2}.",
    ),
}
#: Kinship fact templates, one per variant: {x} is the {role} of {y} ({Y}: y's).
KINSHIP_TEMPLATES = (
    "{x} is {role} of {y}.",
    "{Y} {relation} is {x}.",
    "It is {x} who is {role} of {y}.",
    "{x} is said to be {role} of {y}.",
)
#: The article of each relation as a role (one father, perhaps several brothers).
ROLE_ARTICLES = {"brother": "a", "sister": "a", "son": "a", "daughter": "a", "friend": "a"}
PERSON_TEMPLATES = {
    "female": (
        "{p} is a woman.",
        "{p} is a woman in this story.",
        "One of the people is {p}, a woman.",
    ),
    "male": ("{p} is a man.", "{p} is a man in this story.", "One of the people is {p}, a man."),
}


class Sentence(NamedTuple):
    """One sentence of a story: its stream (`dynamic`, `static`), its variant (one of
    `VARIANTS`, or `person` for a person's introduction) and its text."""

    stream: str
    variant: str
    text: str


def _capitalize(text: str) -> str:
    return text[0].upper() + text[1:]


def _term(kind: str, persons: tuple[str, ...], things: tuple[str, ...], rng: random.Random):
    number = rng.randrange(len(VARIANTS))
    words = {"p": person_words(persons[0]), "o": object_words(things[0])}
    if len(persons) > 1:
        words["q"] = person_words(persons[1])
    if len(things) > 1:
        words["o2"] = object_words(things[1])
    words["O"] = _capitalize(words["o"])
    return VARIANTS[number], TEMPLATES[kind][number].format(**words)


def sentences(graph: KgGraph, rng: random.Random) -> list[Sentence]:
    """The story's sentences in order: the two streams, interleaved."""
    world = graph.world
    dynamic = [
        Sentence("dynamic", *_term(d.kind, (d.person,), (d.object,), rng))
        for d in world.declarations
    ] + [Sentence("dynamic", *_term(e.kind, e.actors, e.objects, rng)) for e in world.events]
    static = [
        Sentence(
            "static",
            "person",
            rng.choice(PERSON_TEMPLATES[p.gender]).format(p=person_words(p.name)),
        )
        for p in world.persons
    ]
    for fact in rng.sample(world.facts, len(world.facts)):
        number = rng.randrange(len(VARIANTS))
        role = f"{ROLE_ARTICLES.get(fact.relation, 'the')} {fact.relation}"
        text = KINSHIP_TEMPLATES[number].format(
            x=person_words(fact.first),
            y=person_words(fact.second),
            Y=person_words(fact.second) + "'s",
            role=role,
            relation=fact.relation,
        )
        static.append(Sentence("static", VARIANTS[number], text))
    return interleave(dynamic, static, rng)


def interleave(first: list, second: list, rng: random.Random) -> list:
    """A random merge of two sequences that keeps the order within each."""
    places = set(rng.sample(range(len(first) + len(second)), len(second)))
    ones, twos = iter(first), iter(second)
    return [
        next(twos) if place in places else next(ones) for place in range(len(first) + len(second))
    ]


def render(graph: KgGraph, rng: random.Random) -> str:
    """The world as an English story, one paragraph."""
    return " ".join(sentence.text for sentence in sentences(graph, rng))
