"""Random ASPIC+ theories with controlled structure: support derivations, attackers of each
kind, defenders, preference-sensitive conflicts, contested conflicts and distractors.

The builder only assembles directives; which claims end up justified, overruled or undecided
is decided by the engine and checked by each task's ASP gates.
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from dataclasses import dataclass, field

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


@dataclass
class Chain:
    """A chain of rules from `root`: its `steps` in order (the last concludes the goal), the
    rules of its junction branches and its ordinary premises (root and branches)."""

    root: Literal
    steps: list[Rule] = field(default_factory=list)
    branches: list[Rule] = field(default_factory=list)
    premises: list[Literal] = field(default_factory=list)

    @property
    def goal(self) -> Literal:
        return self.steps[-1].head

    @property
    def defeasible(self) -> list[Rule]:
        """Its defeasible rules, steps and branches."""
        return [rule for rule in (*self.steps, *self.branches) if not rule.strict]


@dataclass(frozen=True)
class Conflict:
    """A chain for a claim and the rival rule that concludes its negation."""

    pro: Chain
    rival: Chain


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

    def chain(
        self,
        strict: Sequence[bool],
        goal: Literal | None = None,
        start: Literal | None = None,
        junctions: int = 0,
        axiom: bool = False,
    ) -> Chain:
        """One-antecedent rules, strict where `strict` says, from `start` (a fresh premise, or
        axiom with `axiom`, when not given) to `goal` (fresh when not given). `junctions` of
        the defeasible steps before the last (spread evenly) take a second antecedent: the
        conclusion of a defeasible rule from a fresh branch premise, negated half of the
        time."""
        made = Chain(start if start is not None else self.base(self.atom(False), float(axiom)))
        if start is None and not axiom:
            made.premises.append(made.root)
        open_steps = [i for i, flag in enumerate(strict[:-1]) if not flag]
        spread = len(open_steps) / max(1, junctions)
        forks = {
            open_steps[int((k + 0.5) * spread)] for k in range(min(junctions, len(open_steps)))
        }
        current = made.root
        for index, flag in enumerate(strict):
            body = [current]
            if index in forks:
                premise = self.base(self.atom(self.rng.random() < 0.5))
                branch = self.rule([premise], self.atom(False))
                made.premises.append(premise)
                made.branches.append(branch)
                body.append(branch.head)
            last = index == len(strict) - 1
            head = goal if (goal is not None and last) else self.atom(False)
            made.steps.append(self.rule(body, head, strict=flag))
            current = head
        return made

    def conflict(self, depth: int, junctions: int = 0, decided: bool = False) -> Conflict:
        """A chain of `depth` defeasible rules from a fresh premise to a fresh claim x against
        one defeasible rule from another fresh premise to -x. With `decided`, the chain's last
        rule is preferred to its rival: last-link justifies x, while weakest-link, which also
        weighs the unranked premises, leaves both undecided."""
        pro = self.chain([False] * depth, junctions=junctions)
        rival = self.chain([False], goal=pro.goal.complement)
        if decided:
            self.prefer_rules(pro.steps[-1], rival.steps[-1])
        self.salient += [pro.goal, pro.goal.complement]
        return Conflict(pro, rival)

    def rival(self, rule: Rule, chain: Chain | None = None) -> Rule:
        """A defeasible rule from a fresh premise concluding the negation of `rule`'s head,
        below `rule`: last-link decides for `rule`; weakest-link weighs the whole arguments,
        whose premises are unranked, and leaves the conflict undecided. With `chain` (whose
        first step is defeasible and comes before `rule`, from an ordinary premise), the
        rival is also preferred to that first step and its premise to the chain's root:
        weakest-link elitist then finds `rule`'s argument weaker (an element of each of its
        sets is below the rival's), so the rival wins; democratic still leaves both
        undecided (`rule` is not below the rival)."""
        premise = self.base(self.atom(False))
        made = self.rule([premise], rule.head.complement)
        self.prefer_rules(rule, made)
        if chain is not None:
            self.prefer_rules(made, chain.steps[0])
            self.prefer_premises(premise, chain.root)
        self.salient += [rule.head, made.head]
        return made

    def beaten_rival(self, chain: Chain) -> Rule:
        """A defeasible rule from a fresh premise concluding the negation of `chain`'s goal,
        below each of its defeasible rules and with its premise below each of its premises:
        it loses to the chain under every ordering."""
        premise = self.base(self.atom(False))
        made = self.rule([premise], chain.goal.complement)
        for rule in chain.defeasible:
            self.prefer_rules(rule, made)
        for stronger in chain.premises:
            self.prefer_premises(stronger, premise)
        return made

    def strict_decoy(self) -> Rule:
        """A defeasible step from a fresh premise followed by a strict one, apart from
        everything else."""
        step = self.rule([self.base(self.atom(False))], self.atom(False))
        return self.rule([step.head], self.atom(False), strict=True)

    def contested_premise(self) -> Literal:
        """Premises p and -p with -p preferred; returns -p (justified, p overruled)."""
        atom = self.atom(False)
        for literal in (atom, atom.complement):
            self.base(literal)
        self.prefer_premises(atom.complement, atom)
        return atom.complement

    def enrichment(self) -> None:
        """The language's other forms, apart from the rest: an axiom with a strict
        consequence, a contested premise feeding a rule, and a conflict the link principle
        decides (`principle_conflict`)."""
        self.rule([self.base(self.atom(False), axiom_share=1.0)], self.atom(False), strict=True)
        self.rule([self.contested_premise()], self.atom(False))
        self.principle_conflict(rule_below=False)

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
