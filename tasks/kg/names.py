"""Entity names of generated KG worlds.

Persons get synthetic full names, `first_family` (`alice_smith`), from first names with a
gender each and family names; the family names are divided among the splits (`pretrain`,
`rl`, `eval`), so the full-name pools of two splits are disjoint. Objects are named
`adjective_noun` (`red_ball`) from one pool shared by all splits.
"""

from __future__ import annotations

from functools import cache, lru_cache


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: The splits, each with its own pool of full names.
SPLITS = ("pretrain", "rl", "eval")

#: First names with their gender.
FIRST_NAMES: dict[str, str] = {
    **dict.fromkeys(
        _words(
            "alice carol eve grace helen irene julia karen laura maria nora olivia paula "
            "rachel sarah tina ursula vera wendy yvonne zoe amber bella clara diana"
        ),
        "female",
    ),
    **dict.fromkeys(
        _words(
            "bob dan frank george henry ian jack kevin liam mark nathan oscar peter quentin "
            "robert steve tom victor walter xavier adam brian colin david edward"
        ),
        "male",
    ),
}
#: Family names, dealt to the splits in turn (the i-th to SPLITS[i % 3]).
FAMILY_NAMES = _words(
    "smith jones brown white black green taylor clark lewis walker hall young king wright "
    "scott adams baker nelson carter mitchell turner parker evans edwards collins stewart "
    "morris rogers reed cook morgan bell murphy bailey cooper richardson cox howard ward "
    "torres peterson gray ramirez watson brooks kelly sanders price bennett wood barnes ross"
)

ADJECTIVES = _words(
    "red blue green yellow old new small large silver golden wooden antique shiny broad "
    "round square heavy light plain striped"
)
NOUNS = _words(
    "ball lamp book vase clock chair mirror kettle guitar violin basket bicycle camera "
    "compass hammer ladder lantern necklace painting radio scarf teapot umbrella watch"
)
#: Object names: every adjective with every noun.
OBJECT_NAMES = tuple(f"{adjective}_{noun}" for adjective in ADJECTIVES for noun in NOUNS)


#: The words every KG story, trace and answer is made of: the persons' first and family
#: names of every split, as written (`Alice`, `Smith`), the objects' adjectives and nouns and
#: the integrity states. A tokenizer built for KG tasks keeps each one token (`KgTask.labels`),
#: so a held-out split's names are not cut into letters.
ENTITY_WORDS: tuple[str, ...] = tuple(
    sorted(
        {name.capitalize() for name in (*FIRST_NAMES, *FAMILY_NAMES)}
        | {*ADJECTIVES, *NOUNS, "intact", "broken"}
    )
)


def family_names(split: str) -> tuple[str, ...]:
    """The family names of a split."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: one of {', '.join(SPLITS)}")
    return FAMILY_NAMES[SPLITS.index(split) :: len(SPLITS)]


@cache
def person_pool(split: str) -> tuple[str, ...]:
    """The full names of a split: every first name with each of its family names."""
    return tuple(f"{first}_{family}" for family in family_names(split) for first in FIRST_NAMES)


def gender(person: str) -> str:
    """The gender of a full name, by its first name."""
    return FIRST_NAMES[person.split("_", 1)[0]]


@lru_cache(maxsize=8192)  # stories write each name many times
def person_words(person: str) -> str:
    """A full name as written in a story: `alice_smith` is `Alice Smith`."""
    return " ".join(part.capitalize() for part in person.split("_"))


@lru_cache(maxsize=8192)
def object_words(thing: str) -> str:
    """An object as written in a story: `red_ball` is `the red ball`."""
    return "the " + thing.replace("_", " ")
