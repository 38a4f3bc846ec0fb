"""Attacks on a derivation step that the link principle decides, under either set comparison.

An attack here fails under one link principle and succeeds under the other, so switching only
last-link and weakest-link changes whether the attacked step (and everything derived from it)
is justified, while switching only elitist and democratic changes nothing: last-link compares
one last rule with one last rule (or with none), and the weakest-link comparisons hold under
both set readings.

- `rebut(..., fails_under="last-link")`: `g => -h` with the step's rule preferred to it.
  Last-link compares the two last rules and finds the attacker weaker; weakest-link also
  compares premises, and the attacker's fresh premise is not below the step's ordinary
  premises (there must be one), so the two arguments defeat each other.
- `rebut(..., fails_under="weakest-link")`: `g => m => -h`, whose first rule is below every
  defeasible rule of the step's argument, whose last rule is below one of its earlier rules
  but not below the step's own rule, and whose premise is below each of the step's ordinary
  premises. Last-link sees two unrelated last rules (mutual defeat); weakest-link finds the
  attacker weaker on premises and on rules, elitist (its first rule is below all) and
  democratic (each of its rules is below one).
- `undermine(...)`: `g => -p` against an ordinary premise p, without any preference.
  Last-link finds an argument with a last defeasible rule weaker than one with none, so it
  fails; weakest-link compares the premises, which are unranked, so the two defeat each
  other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from argc.dsl.ir import Literal, PremisePreference, Rule, RulePreference
from argc.tasks.builder import Builder

LAST_LINK, WEAKEST_LINK = "last-link", "weakest-link"


@dataclass(frozen=True)
class Support:
    """What strength comparisons see of a literal's only argument: its defeasible rules and
    its ordinary premises."""

    rules: frozenset[str] = frozenset()
    premises: frozenset[Literal] = frozenset()

    @classmethod
    def of_rule(cls, rule: Rule, parts: Iterable[Support]) -> Support:
        """The support of a rule's conclusion from the supports of its antecedents."""
        parts = list(parts)
        own = frozenset() if rule.strict else frozenset([rule.name])
        return cls(
            own.union(*(part.rules for part in parts)),
            frozenset().union(*(part.premises for part in parts)),
        )


def supports(builder: Builder) -> dict[Literal, Support]:
    """The support of every literal of the builder's theory that has exactly one argument
    (one premise or axiom, or one rule whose antecedents each have exactly one argument)."""
    makers: dict[Literal, list[Rule | None]] = {}
    for literal in [*builder.premises, *builder.axioms]:
        makers.setdefault(literal, []).append(None)
    for rule in builder.rules:
        makers.setdefault(rule.head, []).append(rule)
    found: dict[Literal, Support] = {p: Support(premises=frozenset([p])) for p in builder.premises}
    found.update((axiom, Support()) for axiom in builder.axioms)
    found = {literal: s for literal, s in found.items() if len(makers[literal]) == 1}
    changed = True
    while changed:
        changed = False
        for rule in builder.rules:
            if rule.head in found or len(makers[rule.head]) != 1:
                continue
            if all(literal in found for literal in rule.body):
                found[rule.head] = Support.of_rule(rule, (found[x] for x in rule.body))
                changed = True
    return found


def rebuttable(step: Rule, support: Support, fails_under: str) -> bool:
    """Whether `rebut` can attack `step` (whose conclusion has `support`)."""
    if step.strict:
        return False
    if fails_under == LAST_LINK:
        return bool(support.premises)
    return bool(support.rules - {step.name})


def rebut(builder: Builder, step: Rule, support: Support, fails_under: str) -> Rule:
    """A rebuttal of `step` that fails under `fails_under` and succeeds under the other link
    principle (see the module's description); returns the attacking rule."""
    if not rebuttable(step, support, fails_under):
        raise ValueError(f"{step.name} cannot be rebutted so that {fails_under} decides")
    ground = builder.base(builder.atom(), axiom_share=0.3 if fails_under == LAST_LINK else 0.0)
    if fails_under == LAST_LINK:
        attacker = builder.rule([ground], step.head.complement)
        builder.directives.append(RulePreference(step.name, attacker.name))
        return attacker
    first = builder.rule([ground], builder.atom())
    attacker = builder.rule([first.head], step.head.complement)
    for name in sorted(support.rules):
        builder.directives.append(RulePreference(name, first.name))
    earlier = builder.rng.choice(sorted(support.rules - {step.name}))
    builder.directives.append(RulePreference(earlier, attacker.name))
    for premise in sorted(support.premises, key=str):
        builder.directives.append(PremisePreference(premise, ground))
    return attacker


def undermine(builder: Builder, premise: Literal) -> Rule:
    """A defeasible attack on the ordinary premise `premise` that fails under last-link and
    succeeds under weakest-link; returns the attacking rule."""
    ground = builder.base(builder.atom(), axiom_share=0.3)
    return builder.rule([ground], premise.complement)
