"""The `.kg` language of KG worlds: grammar, typed world, parser and reference simulator."""

from argc.dsl.kg.parser import parse_kg, read_kg
from argc.dsl.kg.simulate import State, chain, depth, kinship, state, timeline
from argc.dsl.kg.world import (
    EVENTS,
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

__all__ = [
    "EVENTS",
    "RELATIONS",
    "STANDARD_RULES",
    "Declaration",
    "Event",
    "KgWorld",
    "KinshipFact",
    "Object",
    "Person",
    "Rule",
    "State",
    "chain",
    "depth",
    "kinship",
    "parse_kg",
    "read_kg",
    "state",
    "timeline",
]
