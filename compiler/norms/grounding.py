"""Grounding a normative world with clingo: identity rules forward-chained to a fixed point,
and the normative rules whose preconditions hold, each instance with its variable binding.

The world's first-order rules become ASP rules over `holds(a(Predicate, Arguments))`
(predicates and constants as strings, the world's variables as ASP variables), so clingo's
grounder does the chaining. Every partial join of a rule body past its first atom calls
`@step` (counted against `Limits.instantiations`, the deadline checked), so a world whose
rules multiply their facts stops at the limit while clingo grounds, not after.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import clingo

from argc.compiler.control import Limits, Session, StepCounter
from argc.dsl.norms.world import Atom, IdentityRule, Norm, World


@dataclass(frozen=True, order=True)
class IdentityInstance:
    """A ground instance of identity rule number `rule` (0-based, in world order)."""

    rule: int
    body: tuple[Atom, ...]
    head: Atom


@dataclass(frozen=True, order=True)
class NormInstance:
    """A ground instance of a normative rule whose body holds."""

    rule: str
    binding: tuple[tuple[str, str], ...]
    body: tuple[Atom, ...]
    label: str
    action: Atom


@dataclass(frozen=True)
class GroundWorld:
    """What holds in a world and which rule instances fire, in a deterministic order."""

    world: World
    facts: tuple[Atom, ...]
    derived: tuple[Atom, ...]
    identities: tuple[IdentityInstance, ...]
    norms: tuple[NormInstance, ...]


def _string(text: str) -> str:
    return '"' + text + '"'  # names and constants never contain quotes or backslashes


def _term(term: str) -> str:
    return term if term[:1].isupper() else _string(term)


def _atom(atom: Atom) -> str:
    """`holds(a("p", ("c", X)))` for p(c, X)."""
    arguments = "".join(f"{_term(term)}," for term in atom.arguments)
    return f"holds(a({_string(atom.predicate)}, ({arguments})))"


def _variables(atoms: Sequence[Atom]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(variable for atom in atoms for variable in atom.variables))


def _tuple(terms: Sequence[str]) -> str:
    return "(" + "".join(f"{term}," for term in terms) + ")"


def _body(body: Sequence[Atom]) -> str:
    """The body atoms, each join past the first followed by a counted `@step`."""
    parts = [_atom(body[0])]
    for index in range(1, len(body)):
        parts.append(_atom(body[index]))
        parts.append(f"@step({_tuple(_variables(body[: index + 1]))}) = 1")
    return ", ".join(parts)


def world_program(world: World) -> str:
    """The ASP program of a world: its facts, identity rules and normative rules."""
    lines = [f"{_atom(fact.atom)}." for fact in world.facts]
    for number, rule in enumerate(world.identities):
        binding = _tuple(_variables(rule.body))
        lines.append(f"identity({number}, {binding}) :- {_body(rule.body)}.")
        lines.append(f"{_atom(rule.head)} :- identity({number}, {binding}).")
    for norm in world.norms:
        binding = _tuple(_variables(norm.body))
        lines.append(f"norm({_string(norm.name)}, {binding}) :- {_body(norm.body)}.")
    return "\n".join(lines) + "\n"


def _ground_atom(symbol: clingo.Symbol) -> Atom:
    predicate, arguments = symbol.arguments
    return Atom(predicate.string, tuple(term.string for term in arguments.arguments))


def _binding(variables: tuple[str, ...], values: clingo.Symbol) -> dict[str, str]:
    return dict(zip(variables, (value.string for value in values.arguments), strict=True))


def ground_world(world: World, limits: Limits | None = None) -> GroundWorld:
    """Ground a world within `limits` (LimitExceeded past them)."""
    session = Session(limits or Limits())
    StepCounter.on(session, "grounding the world's rules", "partial rule instantiations")
    session.ground([("base", world_program(world))])
    given = {fact.atom for fact in world.facts}
    holding = sorted(_ground_atom(symbol.arguments[0]) for symbol in session.atoms("holds", 1))
    identities = sorted(
        _identity_instance(world.identities[symbol.arguments[0].number], symbol)
        for symbol in session.atoms("identity", 2)
    )
    norms = sorted(
        _norm_instance(world.norm(symbol.arguments[0].string), symbol)
        for symbol in session.atoms("norm", 2)
    )
    return GroundWorld(
        world,
        tuple(atom for atom in holding if atom in given),
        tuple(atom for atom in holding if atom not in given),
        tuple(identities),
        tuple(norms),
    )


def _identity_instance(rule: IdentityRule, symbol: clingo.Symbol) -> IdentityInstance:
    number, values = symbol.arguments
    binding = _binding(_variables(rule.body), values)
    return IdentityInstance(
        number.number,
        tuple(atom.substitute(binding) for atom in rule.body),
        rule.head.substitute(binding),
    )


def _norm_instance(norm: Norm, symbol: clingo.Symbol) -> NormInstance:
    binding = _binding(_variables(norm.body), symbol.arguments[1])
    return NormInstance(
        norm.name,
        tuple(binding.items()),
        tuple(atom.substitute(binding) for atom in norm.body),
        norm.label,
        norm.action.substitute(binding),
    )
