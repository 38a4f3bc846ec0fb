"""The `.norm` language of normative worlds: grammar, typed world, parser."""

from argc.dsl.norms.parser import parse_world, read_world
from argc.dsl.norms.world import (
    INCOMPATIBLE,
    LABELS,
    Atom,
    Fact,
    IdentityRule,
    Norm,
    Priority,
    Query,
    World,
)

__all__ = [
    "INCOMPATIBLE",
    "LABELS",
    "Atom",
    "Fact",
    "IdentityRule",
    "Norm",
    "Priority",
    "Query",
    "World",
    "parse_world",
    "read_world",
]
