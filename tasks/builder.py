"""Random ASPIC+ theories with controlled structure: support derivations, attackers of each
kind, defenders, preference-sensitive conflicts, contested conflicts and distractors.

The builder only assembles directives; which claims end up justified, overruled or undecided
is decided by the engine and checked by each task's ASP gates.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from argc.dsl.ir import (
    Axiom,
    Directive,
    Literal,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)


@dataclass(frozen=True)
class Shape:
    """Structural parameters of a generated theory (one curriculum level's knobs)."""

    goals: int = 1  # support derivations for target claims
    depth: int = 2  # rules on a derivation, from its premises to its goal
    branching: int = 0  # two-antecedent rules per derivation (junctions)
    attackers: int = 1  # attacks on derivation steps (rebut, undercut or undermine)
    defenders: int = 0  # attacks on attackers
    contested: int = 1  # symmetric conflicts without a deciding preference
    preferences: int = 0  # conflicts whose outcome a preference decides
    strict_share: float = 0.1  # share of strict rules on derivations
    axiom_share: float = 0.1  # share of axioms among base premises
    distractors: int = 0  # unrelated derivations


class Builder:
    """Accumulates directives with fresh two-letter-and-digit names, ArgGYM style."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.directives: list[Directive] = []
        self.premises: list[Literal] = []
        self.axioms: list[Literal] = []
        self.rules: list[Rule] = []
        self.salient: list[Literal] = []  # claims whose status the conflicts put at stake

    # names -------------------------------------------------------------------------------

    def name(self) -> str:
        while True:
            letters = "".join(self.rng.choice(string.ascii_lowercase) for _ in range(2))
            candidate = f"{letters}{self.rng.randrange(10)}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate

    def atom(self, negated: bool | None = None) -> Literal:
        if negated is None:
            negated = self.rng.random() < 0.25
        return Literal(self.name(), negated)

    # knowledge and rules -----------------------------------------------------------------

    def base(self, literal: Literal, axiom_share: float = 0.0) -> Literal:
        if self.rng.random() < axiom_share:
            self.axioms.append(literal)
            self.directives.append(Axiom(literal))
        else:
            self.premises.append(literal)
            self.directives.append(Premise(literal))
        return literal

    def rule(self, body: list[Literal], head: Literal, strict: bool = False) -> Rule:
        made = Rule(self.name(), tuple(body), head, strict=strict)
        self.rules.append(made)
        self.directives.append(made)
        return made

    def prefer_rules(self, stronger: Rule, weaker: Rule) -> None:
        self.directives.append(RulePreference(stronger.name, weaker.name))

    def prefer_premises(self, stronger: Literal, weaker: Literal) -> None:
        self.directives.append(PremisePreference(stronger, weaker))

    # structures --------------------------------------------------------------------------

    def derivation(
        self,
        depth: int,
        branching: int = 0,
        strict_share: float = 0.0,
        axiom_share: float = 0.0,
        goal: Literal | None = None,
    ) -> list[Rule]:
        """Premises and `depth` rules deriving a goal (fresh unless given); `branching` rules
        take a second antecedent supported by its own short derivation."""
        current = self.base(self.atom(), axiom_share)
        junctions = set(self.rng.sample(range(depth), min(branching, depth)))
        made = []
        for index in range(depth):
            body = [current]
            if index in junctions:
                side = self.derivation(
                    self.rng.randint(0, 1), strict_share=strict_share, axiom_share=axiom_share
                )
                body.append(side[-1].head if side else self.base(self.atom(), axiom_share))
            head = goal if (goal is not None and index == depth - 1) else self.atom()
            strict = self.rng.random() < strict_share
            made.append(self.rule(body, head, strict=strict))
            current = head
        if not made and goal is not None:
            self.base(goal, axiom_share)
        return made

    def attack(self, rules: list[Rule], strict_share: float = 0.0) -> Rule | Literal:
        """An attacker on one step of a derivation: a rebut of a defeasible conclusion, an
        undercut of a defeasible rule, or an undermining premise. Returns the attacking rule
        (or the undermining premise)."""
        defeasible = [rule for rule in rules if not rule.strict]
        kinds = ["undermine"] + (["rebut", "undercut"] if defeasible else [])
        kind = self.rng.choice(kinds)
        if kind == "undermine":
            ordinary = [p for p in self.premises if p.complement not in self.premises]
            target = self.rng.choice(ordinary) if ordinary else self.base(self.atom())
            self.salient += [target, target.complement]
            return self.base(target.complement)
        victim = self.rng.choice(defeasible)
        head = victim.head.complement if kind == "rebut" else Literal(victim.name, True)
        self.salient += [victim.head, head]
        support = self.derivation(self.rng.randint(0, 1), strict_share=strict_share)
        body = [support[-1].head] if support else [self.base(self.atom())]
        return self.rule(body, head)

    def contest(self) -> None:
        """Two defeasible rules with opposite heads and no preference between them."""
        claim = self.atom(False)
        self.salient += [claim, claim.complement]
        for head in (claim, claim.complement):
            self.rule([self.base(self.atom())], head)

    def decide(self, attacker: Rule | Literal, rules: list[Rule]) -> None:
        """A preference between an attacker and the step it conflicts with, either way."""
        if isinstance(attacker, Rule):
            targets = [r for r in rules if not r.strict and r.head == attacker.head.complement]
            if targets:
                stronger, weaker = (attacker, targets[0])
                if self.rng.random() < 0.5:
                    stronger, weaker = weaker, stronger
                self.prefer_rules(stronger, weaker)
        elif attacker.complement in self.premises:
            pair = [attacker, attacker.complement]
            self.rng.shuffle(pair)
            self.prefer_premises(*pair)

    def principle_conflict(self, rule_below: bool) -> Literal:
        """A conflict over a fresh claim x that the link principle decides. The argument for x
        ends in a rule preferred to the last rule of the argument for -x, so last-link
        justifies x (under either set comparison); its premise is below the other's, so
        weakest-link does not let it win. With `rule_below`, x's argument also takes an
        earlier rule that is below -x's rule: weakest-link elitist then justifies -x and
        weakest-link democratic leaves both undecided; without it, weakest-link leaves both
        undecided. Returns x."""
        claim = self.atom(False)
        weak, strong = self.base(self.atom(False)), self.base(self.atom(False))
        start = weak
        earlier = None
        if rule_below:
            earlier = self.rule([weak], self.atom(False))
            start = earlier.head
        winner = self.rule([start], claim)
        loser = self.rule([strong], claim.complement)
        self.prefer_rules(winner, loser)
        if earlier is not None:
            self.prefer_rules(loser, earlier)
        self.prefer_premises(strong, weak)
        self.salient += [claim, claim.complement]
        return claim

    def last_rules_conflict(self, split: bool) -> Literal:
        """A conflict in which an argument has two last defeasible rules: a strict rule joins
        two defeasible parts into -t against a defeasible argument for t, preferred to the
        first part's rule (and, unless `split`, to the second's); a strict rule from t and the
        first part concludes the negation of the second part, so that t's side can strike
        back. With `split`, last-link elitist justifies t while last-link democratic leaves
        the conflict undecided (their defeat relations differ); without it they agree.
        Returns t."""
        thesis = self.atom(False)
        parts = [self.atom(False), self.atom(False)]
        arms = [self.rule([self.base(self.atom(False))], part) for part in parts]
        self.rule(parts, thesis.complement, strict=True)
        self.rule([thesis, parts[0]], parts[1].complement, strict=True)
        support = self.rule([self.base(self.atom(False))], thesis)
        self.prefer_rules(support, arms[0])
        if not split:
            self.prefer_rules(support, arms[1])
        self.salient += [thesis, thesis.complement]
        return thesis

    def theory(self, extra: list[Directive] | None = None) -> Theory:
        """The directives built so far (plus `extra`), as a theory."""
        return Theory.from_directives([*self.directives, *(extra or [])])


def build(rng: random.Random, shape: Shape) -> tuple[Builder, list[list[Rule]]]:
    """A theory with `shape`; returns the builder and the goal derivations."""
    builder = Builder(rng)
    derivations = [
        builder.derivation(
            shape.depth,
            shape.branching,
            shape.strict_share,
            shape.axiom_share,
        )
        for _ in range(shape.goals)
    ]
    steps = [rule for derivation in derivations for rule in derivation]
    attackers = [builder.attack(steps, shape.strict_share) for _ in range(shape.attackers)]
    for _ in range(shape.defenders):
        rules = [a for a in attackers if isinstance(a, Rule)]
        if rules:
            builder.attack(rules)
        else:
            builder.attack(steps)
    for attacker in rng.sample(attackers, min(shape.preferences, len(attackers))):
        builder.decide(attacker, steps)
    for _ in range(shape.contested):
        builder.contest()
    builder.salient += [derivation[-1].head for derivation in derivations if derivation]
    for _ in range(shape.distractors):
        builder.derivation(rng.randint(1, 2), strict_share=shape.strict_share)
    return builder, derivations
