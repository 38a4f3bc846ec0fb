"""Directive languages: grammars, the typed IR and their parsers."""

from argc.dsl.errors import ArgcError, InputError
from argc.dsl.ir import (
    SEMANTICS,
    Axiom,
    Contradictory,
    Contrary,
    Directive,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)
from argc.dsl.parser import parse_directives, parse_intervention, parse_theory, read_theory

__all__ = [
    "SEMANTICS",
    "ArgcError",
    "Axiom",
    "Contradictory",
    "Contrary",
    "Directive",
    "InputError",
    "Literal",
    "Ordering",
    "Premise",
    "PremisePreference",
    "Rule",
    "RulePreference",
    "Theory",
    "parse_directives",
    "parse_intervention",
    "parse_theory",
    "read_theory",
]
