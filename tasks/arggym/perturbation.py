"""perturbation: which claims of a theory change grounded status after a specified update
(directives added, and from level 7 directives removed), and the new status of each.

The ASP query (`perturbation.lp`) shows the grounded status of every claim of the original
theory; `target` runs the same query over the updated theory and compares the two shown
status maps (two solves; the comparison is the only work done in Python), then applies the
gates that need both (see docs/tasks/perturbation.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argc.compiler import LimitExceeded, MachineLimitExceeded, QueryResult, query
from argc.compiler.facts import literal_term
from argc.dsl.errors import ArgcError
from argc.dsl.ir import (
    PRINCIPLES,
    Axiom,
    Directive,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)
from argc.dsl.parser import parse_intervention
from argc.tasks.answers import score_map
from argc.tasks.arggym import principle
from argc.tasks.arggym.principle import LAST_LINK, Support
from argc.tasks.arggym.scale import fill
from argc.tasks.arggym.symbols import literal_of
from argc.tasks.builder import Builder, Shape, build
from argc.tasks.framework import (
    GENERATION_LIMITS,
    Candidate,
    Instance,
    Score,
    Task,
    knobs,
    register,
)
from argc.tasks.prompts import answer_request, claim_list, theory_block

#: Kinds of update move, in the order the curriculum introduces them.
KINDS = ("attack", "prefer", "reinstate", "support", "retract")
#: The kind each level's first move takes half of the time (a level introducing a kind
#: focuses on it; later levels revisit them in turn).
FOCUS = (
    "attack", "prefer", "reinstate", "support", "reinstate", "prefer", "retract", "reinstate",
    "attack", "support", "prefer", "reinstate", "retract", "attack", "reinstate",
)  # fmt: skip


@dataclass(frozen=True)
class Curriculum:
    shape: Shape
    size: int  # directives the theory reaches with unrelated derivations (the released scale)
    principled: int  # goal derivations held by an attack that the link principle decides
    kinds: tuple[str, ...]  # the moves an update may make
    moves: int  # moves per update
    decided_share: float  # chance that an attack comes with a preference deciding it
    dormant: int  # rules whose antecedent no premise supports yet (for `support` moves)
    min_changes: int  # claims that must change status
    focus: str  # the kind the first move takes half of the time


#: Directives of the original theory per level in ArgGYM's released taskset (levels 1, 5, 7,
#: 10, 13 and 15), linear in between; unrelated derivations fill each theory up to it.
_SIZE = (23, 28, 33, 38, 43, 54, 65, 75, 84, 94, 100, 106, 112, 125, 137)


def curriculum(level: int) -> Curriculum:
    """Deeper, branching theories with more conflicts, and updates with more and more varied
    moves (attack, preference, reinstatement, new support, retraction) as the level rises."""
    kinds = KINDS[: 1 + (level >= 2) + (level >= 3) + (level >= 4) + (level >= 7)]
    return Curriculum(
        shape=Shape(
            goals=1 + level // 6,
            depth=2 + level // 3,
            branching=level // 5,
            attackers=(level + 1) // 3,
            defenders=level // 4,
            contested=1 + level // 5,
            preferences=level // 3,
            strict_share=min(0.04 * level, 0.3),
            axiom_share=0.1,
            distractors=0,
        ),
        size=_SIZE[level - 1],
        principled=1 + level // 7,
        kinds=kinds,
        moves=1 + level // 2,
        decided_share=0.0 if level < 5 else 0.5,
        dormant=int(level >= 4) + (level >= 11),
        min_changes=1 if level < 5 else 2,
        focus=FOCUS[level - 1],
    )


# Updates -----------------------------------------------------------------------------------

Update = list[tuple[str, Directive]]  # ("add" | "remove", directive)


def update_text(update: Update) -> list[list[str]]:
    return [[operation, str(directive)] for operation, directive in update]


def read_update(rows: list[list[str]]) -> Update:
    return [(operation, parse_intervention(text)[0]) for operation, text in rows]


def apply_update(theory: Theory, update: Update) -> Theory:
    """The theory with the update's removals taken out and its additions put in."""
    removed = [directive for operation, directive in update if operation == "remove"]
    added = [directive for operation, directive in update if operation == "add"]
    kept = [directive for directive in theory.without_header().directives()]
    kept = [directive for directive in kept if directive not in removed]
    return Theory.from_directives([*kept, *added])


@dataclass(frozen=True)
class Held:
    """A goal derivation's step (a rule, or an ordinary premise) and the attack on it that
    fails under `fails_under` and succeeds under the other link principle."""

    victim: Rule | Literal
    attacker: Rule
    support: Support  # of the attacked step
    fails_under: str


def held_derivation(builder: Builder, depth: int) -> tuple[list[Rule], Held]:
    """A goal derivation of defeasible rules from ordinary premises (one junction), one of
    whose early steps (the first two, or the first half) or its first premise is attacked so
    that the link principle decides the attack (the principle under which it fails is drawn
    at random)."""
    rules = builder.derivation(depth, 1)
    fails_under = builder.rng.choice(PRINCIPLES)
    found = principle.supports(builder)
    early = rules[: max(2, (len(rules) + 1) // 2)]
    steps = [r for r in early if principle.rebuttable(r, found[r.head], fails_under)]
    root = rules[0].body[0]
    builder.salient += [rules[-1].head]
    if not steps or (fails_under == LAST_LINK and builder.rng.random() < 0.3):
        attacker = principle.undermine(builder, root)
        builder.salient += [root, root.complement]
        return rules, Held(root, attacker, found[root], LAST_LINK)
    step = builder.rng.choice(steps)
    attacker = principle.rebut(builder, step, found[step.head], fails_under)
    builder.salient += [step.head, step.head.complement]
    return rules, Held(step, attacker, found[step.head], fails_under)


class Mover:
    """Builds update moves against a base theory; each move returns its directives (or None
    when the theory offers no place for it) and the claims it puts at stake."""

    def __init__(
        self, builder: Builder, steps: list[Rule], plan: Curriculum, held: list[Held]
    ) -> None:
        self.builder = builder
        self.rng = builder.rng
        self.steps = steps
        self.plan = plan
        self.held = held
        self.theory = builder.theory()
        self.update: Update = []
        self.touched: list[Literal] = []
        self.step_names = {rule.name for rule in steps}

    # helpers -------------------------------------------------------------------------------

    def source(self) -> tuple[Literal, list[Directive]]:
        """An antecedent for a new rule: an existing premise, axiom or rule conclusion (so the
        new argument inherits that support's fate), or a fresh premise."""
        theory = self.theory
        existing = [*theory.premises, *theory.axioms]
        existing += [rule.head for rule in theory.rules if rule.head.atom not in self.rule_names]
        if existing and self.rng.random() < 0.6:
            return self.rng.choice(sorted(set(existing), key=str)), []
        fresh = self.builder.atom()
        return fresh, [Premise(fresh)]

    @property
    def rule_names(self) -> set[str]:
        return {rule.name for rule in self.theory.rules}

    def preferred_pairs(self) -> set[frozenset[str]]:
        pairs = {frozenset((p.stronger, p.weaker)) for p in self.theory.rule_preferences}
        pairs |= {
            frozenset((str(p.stronger), str(p.weaker))) for p in self.theory.premise_preferences
        }
        pairs |= {
            frozenset((p.stronger, p.weaker))
            for operation, p in self.update
            if operation == "add" and isinstance(p, RulePreference)
        }
        return pairs

    def new_rule(self, body: list[Literal], head: Literal) -> Rule:
        return Rule(self.builder.name(), tuple(body), head)

    def early(self, rules: list[Rule]) -> Rule:
        """A rule, preferring those early on a derivation (their effects propagate)."""
        weights = [1.0 / (1 + index) for index in range(len(rules))]
        return self.rng.choices(rules, weights)[0]

    # moves ---------------------------------------------------------------------------------

    def attack(self) -> list[Directive] | None:
        """A new rebut, undercut or undermining premise on a goal derivation, decided by a
        preference with probability `decided_share`."""
        defeasible = [rule for rule in self.steps if not rule.strict]
        ordinary = [
            literal
            for rule in self.steps
            for literal in rule.body
            if literal in self.theory.premises and literal.complement not in self.theory.premises
        ]
        kinds = (["rebut", "undercut"] if defeasible else []) + (["undermine"] if ordinary else [])
        if not kinds:
            return None
        kind = self.rng.choice(kinds)
        decided = self.rng.random() < self.plan.decided_share
        if kind == "undermine":
            victim = self.rng.choice(sorted(set(ordinary), key=str))
            self.touched.append(victim)
            added: list[Directive] = [Premise(victim.complement)]
            if decided:
                pair = [victim.complement, victim]
                self.rng.shuffle(pair)
                added.append(PremisePreference(*pair))
            return added
        victim = self.early(defeasible)
        self.touched.append(victim.head)
        body, extra = self.source()
        if kind == "undercut":
            return [*extra, self.new_rule([body], Literal(victim.name, True))]
        rule = self.new_rule([body], victim.head.complement)
        added = [*extra, rule]
        if decided:
            pair = [rule.name, victim.name]
            self.rng.shuffle(pair)
            added.append(RulePreference(*pair))
        return added

    def prefer(self) -> list[Directive] | None:
        """A preference that decides a conflict no preference decides yet: two defeasible
        rules with opposite conclusions, a premise and its negation, or (as `link_order`) an
        attack that only one link principle decided so far."""
        decided = self.preferred_pairs()
        rules = self.theory.defeasible_rules
        options: list[tuple[str, str, str]] = [
            (first.name, second.name, "rule")
            for first in rules
            for second in rules
            if first.name < second.name
            and first.head == second.head.complement
            and frozenset((first.name, second.name)) not in decided
        ]
        premises = self.theory.premises
        options += [
            (str(literal), str(literal.complement), "premise")
            for literal in premises
            if not literal.negated
            and literal.complement in premises
            and frozenset((str(literal), str(literal.complement))) not in decided
        ]
        options += [(str(index), "", "link") for index in range(len(self.link_orders()))]
        if not options:
            return None
        first, second, kind = self.rng.choice(options)
        if kind == "link":
            added, touched = self.link_orders()[int(first)]
            self.touched += touched
            return added
        if self.rng.random() < 0.5:
            first, second = second, first
        if kind == "rule":
            stronger, weaker = self.theory.rule(first), self.theory.rule(second)
            self.touched += [stronger.head, weaker.head]
            added: list[Directive] = [RulePreference(first, second)]
            # Half the time the premises under the two rules are ordered the same way, which
            # weakest-link needs (it compares premises too) and last-link ignores.
            bodies = (stronger.body[0], weaker.body[0])
            if (
                len(stronger.body) == len(weaker.body) == 1
                and all(literal in premises for literal in bodies)
                and frozenset(map(str, bodies)) not in decided
                and self.rng.random() < 0.5
            ):
                added.append(PremisePreference(*bodies))
            return added
        self.touched += [Literal.parse(first), Literal.parse(second)]
        return [PremisePreference(Literal.parse(first), Literal.parse(second))]

    def link_orders(self) -> list[tuple[list[Directive], list[Literal]]]:
        """For each held derivation, the preferences under which its attack also fails under
        the principle that let it succeed, and the claims at stake. An attack that fails under
        last-link on an ordinary premise gets the attacked premises above its own: weakest-link
        then finds it weaker on premises, and on rules democratic always, elitist only when the
        attacked argument has no other defeasible rule. An attack that fails under
        weakest-link gets the attacked rule above its own: last-link then decides it too."""
        orders: list[tuple[list[Directive], list[Literal]]] = []
        for held in self.held:
            victim = held.victim
            claim = victim.head if isinstance(victim, Rule) else victim
            touched = [claim, claim.complement]
            ground = held.attacker.body[0]
            if held.fails_under == LAST_LINK and ground in self.theory.premises:
                premises = sorted(held.support.premises, key=str)
                added: list[Directive] = [PremisePreference(p, ground) for p in premises]
                orders.append((added, touched))
            elif held.fails_under != LAST_LINK and isinstance(victim, Rule):
                orders.append(([RulePreference(victim.name, held.attacker.name)], touched))
        return orders

    def reinstate(self) -> list[Directive] | None:
        """An undercut of a rule that attacks a goal derivation: its victim may come back."""
        targets = {rule.head.complement for rule in self.steps}
        targets |= {Literal(rule.name, True) for rule in self.steps if not rule.strict}
        attackers = [
            rule
            for rule in self.theory.defeasible_rules
            if rule.head in targets and rule.name not in self.step_names
        ]
        if not attackers:
            return None
        attacker = self.rng.choice(attackers)
        self.touched += [attacker.head, attacker.head.complement]
        body, extra = self.source()
        return [*extra, self.new_rule([body], Literal(attacker.name, True))]

    def support(self) -> list[Directive] | None:
        """A premise for the antecedent of a dormant rule (one no argument could use)."""
        dormant = [
            rule
            for rule in self.theory.rules
            if len(rule.body) == 1
            and rule.body[0] not in self.theory.premises
            and rule.body[0] not in self.theory.axioms
            and all(other.head != rule.body[0] for other in self.theory.rules)
        ]
        if not dormant:
            return None
        rule = self.rng.choice(dormant)
        self.touched.append(rule.head)
        return [Premise(rule.body[0])]

    def retract(self) -> list[Directive] | None:
        """Take out a preference, an attacking rule or a premise that supports an attack."""
        theory = self.theory
        referenced_rules = {p.stronger for p in theory.rule_preferences}
        referenced_rules |= {p.weaker for p in theory.rule_preferences}
        referenced_premises = {p.stronger for p in theory.premise_preferences}
        referenced_premises |= {p.weaker for p in theory.premise_preferences}
        removed = {directive for operation, directive in self.update if operation == "remove"}
        options: list[Directive] = [*theory.rule_preferences, *theory.premise_preferences]
        options += [
            rule
            for rule in theory.rules
            if rule.name not in self.step_names and rule.name not in referenced_rules
        ]
        options += [
            Premise(literal)
            for literal in theory.premises
            if literal not in referenced_premises
            and any(literal in rule.body for rule in theory.rules)
        ]
        options = [option for option in options if option not in removed]
        if not options:
            return None
        chosen = self.rng.choice(options)
        if isinstance(chosen, Rule):
            self.touched.append(chosen.head)
        elif isinstance(chosen, Premise):
            self.touched.append(chosen.literal)
        self.update.append(("remove", chosen))
        return []

    def move(self, kind: str) -> bool:
        moves: dict[str, Callable[[], list[Directive] | None]] = {
            "attack": self.attack,
            "prefer": self.prefer,
            "reinstate": self.reinstate,
            "support": self.support,
            "retract": self.retract,
        }
        added = moves[kind]()
        if added is None:
            return False
        self.update += [("add", directive) for directive in added]
        return True


def decided_premises(builder: Builder) -> None:
    """Premises p and -p, a premise preference for one of them (under every ordering it
    defeats the other) and a defeasible rule from the preferred one."""
    atom = builder.atom(False)
    pair = [builder.base(atom), builder.base(atom.complement)]
    builder.rng.shuffle(pair)
    builder.prefer_premises(*pair)
    builder.rule([pair[0]], builder.atom())
    builder.salient += pair


def dormant_rule(builder: Builder, steps: list[Rule]) -> None:
    """A defeasible rule whose antecedent nothing supports yet, concluding against a goal
    derivation (a rebut or undercut in waiting) or for one of its conclusions."""
    defeasible = [rule for rule in steps if not rule.strict]
    trigger = builder.atom()
    choice = builder.rng.random()
    if defeasible and choice < 0.4:
        head = builder.rng.choice(defeasible).head.complement
    elif defeasible and choice < 0.7:
        head = Literal(builder.rng.choice(defeasible).name, True)
    elif steps:
        head = builder.rng.choice(steps).head
    else:
        head = builder.atom()
    builder.rule([trigger], head)
    builder.salient.append(head)


def original_claims(theory: Theory) -> list[Literal]:
    """The claims of the original theory: every literal it names, sorted as text."""
    return sorted(theory.without_header().literals(), key=str)


@register
class Perturbation(Task):
    name = "perturbation"
    reads_only = True

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, derivations = build(rng, plan.shape)
        steps = [rule for derivation in derivations for rule in derivation]
        held: list[Held] = []
        for _ in range(plan.principled):
            rules, one = held_derivation(builder, plan.shape.depth)
            steps += rules
            held.append(one)
        decided_premises(builder)
        for _ in range(plan.dormant):
            dormant_rule(builder, steps)
        fill(builder, plan.size, plan.shape.strict_share, plan.shape.axiom_share)
        mover = Mover(builder, steps, plan, held)
        kinds: list[str] = []
        for index in range(plan.moves):
            # The first move takes the level's focus kind half of the time; other moves are
            # drawn uniformly from the level's kinds. A kind the theory offers no place for is
            # dropped and another drawn.
            pool = list(plan.kinds)
            focused = index == 0 and rng.random() < 0.5
            kind = plan.focus if focused else rng.choice(pool)
            while not mover.move(kind):
                pool.remove(kind)
                kind = rng.choice(pool) if pool else ""
                if not kind:
                    break
            if kind:
                kinds.append(kind)
        theory = builder.theory()
        salient = sorted({*builder.salient, *mover.touched} & set(theory.literals()), key=str)
        return Candidate(
            theory,
            {
                "update": update_text(mover.update),
                "moves": kinds,
                "held": [[str(h.attacker.head), h.fails_under] for h in held],
                "salient": [str(claim) for claim in salient],
                "level": level,
            },
        )

    def gate_program(self, candidate: Candidate) -> str:
        return self._program(candidate, "before")

    def _program(self, candidate: Candidate, phase: str) -> str:
        facts = "".join(
            f"considered({literal_term(claim)}).\n" for claim in original_claims(candidate.theory)
        )
        return f"phase({phase}).\n{facts}{self.program}"

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        plan = curriculum(candidate.params["level"])
        update = read_update(candidate.params["update"])
        if not update:
            return None
        try:
            updated = apply_update(candidate.theory, update)
            after = query(
                updated,
                self._program(candidate, "after"),
                ordering=ordering,
                limits=GENERATION_LIMITS,
            )
        except MachineLimitExceeded:
            raise
        except (ArgcError, LimitExceeded):
            return None
        if not after.satisfiable:
            return None
        before_map, after_map = statuses(result), statuses(after)
        changed = {
            claim: after_map[claim]
            for claim in sorted(before_map)
            if before_map[claim] != after_map[claim]
        }
        # Gates that need both states: enough changes, not all of them the update's own
        # premises, one of them a rule's conclusion, and some claim the conflicts put at stake
        # keeps its status.
        added = {
            str(directive.literal)
            for operation, directive in update
            if operation == "add" and isinstance(directive, (Premise, Axiom))
        }
        derived = {str(rule.head) for rule in candidate.theory.rules}
        if len(changed) < plan.min_changes or set(changed) <= added:
            return None
        if not derived & set(changed):  # some change reaches a rule's conclusion
            return None
        if not any(claim not in changed for claim in candidate.params["salient"]):
            return None
        return changed

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        update = "\n".join(
            f"  {operation} {text}" for operation, text in candidate.params["update"]
        )
        claims = original_claims(candidate.theory)
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering),
                "The theory is then updated: each 'add' line puts a directive into it and each"
                " 'remove' line takes one out; everything else stays as it is.\n" + update,
                "The claims of the original theory are: " + claim_list(claims) + ".",
                "Which of these claims have a different status in the updated theory than in"
                " the original, and what is the new status of each? List only the claims whose"
                " status changes. Statuses: justified (some argument for the claim is in the"
                " grounded extension), overruled (every argument for it is defeated by the"
                " grounded extension, or it has no argument), undecided (neither).",
                answer_request(
                    "one line per changed claim with its status after the update, written as"
                    " 'claim: status'."
                ),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(f"{claim}: {status}" for claim, status in target.items())

    def score_answer(self, instance: Instance, answer: str) -> Score:
        gold = {Literal.parse(claim): status for claim, status in instance.target.items()}
        return Score(
            *score_map(
                answer, "status_map", gold, "exactly the changed claims and their new statuses"
            )
        )


def statuses(result: QueryResult) -> dict[str, str]:
    """The shown `status(L, S)` atoms as claim text -> status."""
    return {
        str(literal_of(symbol.arguments[0])): symbol.arguments[1].name
        for symbol in result.shown
        if symbol.name == "status"
    }
