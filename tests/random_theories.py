"""Random ASPIC+ theories for differential and property tests (deterministic per seed)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from argc.dsl.ir import (
    Axiom,
    Contradictory,
    Contrary,
    Literal,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)


@dataclass(frozen=True)
class Shape:
    """Size parameters of a random theory."""

    atoms: int = 6
    axioms: int = 1
    premises: int = 4
    rules: int = 6
    strict_share: float = 0.3
    undercutters: int = 1
    rule_preferences: int = 2
    premise_preferences: int = 2
    contraries: int = 0
    max_body: int = 3
    contradictories: int = 0


def random_shape(rng: random.Random, scale: int = 1) -> Shape:
    """A shape drawn around ArgGYM-like sizes; `scale` multiplies the counts."""
    atoms = rng.randint(3, 8) * scale
    return Shape(
        atoms=atoms,
        axioms=rng.randint(0, 2) * scale,
        premises=rng.randint(1, 5) * scale,
        rules=rng.randint(2, 9) * scale,
        strict_share=rng.choice((0.0, 0.2, 0.4)),
        undercutters=rng.randint(0, 2) * scale,
        rule_preferences=rng.randint(0, 4) * scale,
        premise_preferences=rng.randint(0, 3) * scale,
        contraries=rng.choice((0, 0, 0, 1, 2)) * scale,
        max_body=3,
    )


def random_theory(
    seed: int, shape: Shape | None = None, scale: int = 1, twins: bool = False
) -> Theory:
    """A random theory with premises, axioms, strict and defeasible rules (1..max_body
    antecedents, cycles allowed), undercutters, rule and premise preferences, contraries and
    contradictory pairs.

    Without `twins`, rules never share both body and head with another rule (where PyArg
    2.0.2 collapses rules); with it, some rules get a differently named twin. No literal is
    both an axiom and an ordinary premise. Contradictory pairs come last, from a random stream
    of their own, so that the rest of a seed's theory does not depend on them.
    """
    rng = random.Random(seed)
    extra = random.Random(f"{seed}-contradictory")
    if shape is None:
        shape = random_shape(rng, scale)
        shape = replace(shape, contradictories=extra.choice((0, 0, 0, 1, 2)) * scale)
    atoms = [f"p{index}" for index in range(shape.atoms)]

    def literal() -> Literal:
        return Literal(rng.choice(atoms), negated=rng.random() < 0.4)

    axioms = list(dict.fromkeys(literal() for _ in range(shape.axioms)))
    premises = [
        found
        for found in dict.fromkeys(literal() for _ in range(shape.premises))
        if found not in axioms
    ]
    rules: list[Rule] = []
    signatures: set[tuple[frozenset[Literal], Literal]] = set()
    for index in range(shape.rules):
        body = tuple(dict.fromkeys(literal() for _ in range(rng.randint(1, shape.max_body))))
        head = literal()
        if (frozenset(body), head) in signatures:
            continue
        signatures.add((frozenset(body), head))
        strict = rng.random() < shape.strict_share
        rules.append(Rule(f"{'s' if strict else 'd'}{index}", body, head, strict=strict))
        if twins and rng.random() < 0.3:
            twin_strict = rng.random() < shape.strict_share
            rules.append(Rule(f"t{index}", body[::-1], head, strict=twin_strict))
    defeasible = [rule.name for rule in rules if not rule.strict]
    for index in range(shape.undercutters if defeasible else 0):
        target = rng.choice(defeasible)
        body = tuple(dict.fromkeys(literal() for _ in range(rng.randint(1, 2))))
        head = Literal(target, negated=True)
        if (frozenset(body), head) in signatures:
            continue
        signatures.add((frozenset(body), head))
        rules.append(Rule(f"u{index}", body, head))
    defeasible = [rule.name for rule in rules if not rule.strict]
    rule_preferences = []
    if len(defeasible) > 1:
        for _ in range(shape.rule_preferences):
            stronger, weaker = rng.sample(defeasible, 2)
            rule_preferences.append(RulePreference(stronger, weaker))
    premise_preferences = []
    if len(premises) > 1:
        for _ in range(shape.premise_preferences):
            stronger, weaker = rng.sample(premises, 2)
            premise_preferences.append(PremisePreference(stronger, weaker))
    contraries = []
    for _ in range(shape.contraries):
        attacker, attacked = literal(), literal()
        if attacker.atom != attacked.atom:
            contraries.append(Contrary(attacker, attacked))
    directives = [
        *(Axiom(found) for found in axioms),
        *(Premise(found) for found in premises),
        *rules,
        *rule_preferences,
        *premise_preferences,
        *contraries,
    ]
    # Mostly between literals the theory concludes or assumes, so that the pair is contested;
    # now and then an atom and its own negation (redundant, but legal).
    named = sorted({*axioms, *premises, *(rule.head for rule in rules)}, key=str)
    for _ in range(shape.contradictories if named else 0):
        first = extra.choice(named)
        if extra.random() < 0.1:
            second = first.complement
        else:
            second = extra.choice([*named, Literal(extra.choice(atoms), extra.random() < 0.4)])
        if first != second:
            directives.append(Contradictory(first, second))
    return Theory.from_directives(directives)
