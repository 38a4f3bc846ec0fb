"""claim_chain: recover the complete support derivation of a justified claim.

The target claim has exactly one argument, and it is in the grounded extension; the answer
lists that argument's premises, axioms and rules as `.arg` directives, each rule after the
directives that establish its antecedents. Scored as ArgGYM's Appendix B: content F1 over the
submitted directives times the fraction of submitted rules placed after their antecedents.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from argc.compiler import QueryResult
from argc.compiler.facts import literal_term
from argc.dsl.errors import InputError
from argc.dsl.ir import (
    Axiom,
    Directive,
    Literal,
    Ordering,
    Premise,
    Rule,
    RulePreference,
    Theory,
)
from argc.dsl.parser import parse_directives
from argc.tasks.answers import MAX_ANSWER_CHARS, UnreadableAnswer
from argc.tasks.builder import Builder
from argc.tasks.framework import Candidate, Instance, Score, Task, knobs, register
from argc.tasks.prompts import answer_request, theory_block
from argc.tasks.symbols import literal_of

# Curriculum ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curriculum:
    """The structural knobs of one level."""

    depth: int  # rules on the main line, from its first premise to the target
    junctions: int  # main-line rules with extra antecedents, each supported by its own line
    side_depth: int  # most rules on a side line
    nested: int  # junctions inside side lines (branches of branches)
    shared: int  # junctions whose extra antecedent is an earlier literal of the derivation
    wide: int  # junctions with two extra antecedents instead of one
    attackers: int  # attacks on the derivation, all of which fail
    preferred: int  # ... of which a preference makes the attacker too weak
    countered: int  # ... of which a defender undercuts the attacker (the rest: undermined)
    second_order: int  # defenders that are attacked in turn, unsuccessfully
    attack_depth: int  # most rules under an attacker's own last rule
    strict_share: float  # share of strict rules
    axiom_share: float  # share of axioms among base premises
    offshoots: int  # rules that use derivation literals for conclusions the target never needs
    dead: int  # rules for derivation literals whose other antecedents have no argument
    distractors: int  # unrelated derivations
    contested: int  # unrelated undecided conflicts
    spare: int  # premises nothing uses


# depth junct side nest share wide | att pref count 2nd adep | off dead dist cont spare
_TABLE = {
    1: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1),
    2: (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1),
    3: (2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1),
    4: (2, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1),
    5: (3, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 2, 1, 1),
    6: (3, 1, 1, 0, 0, 0, 2, 1, 1, 0, 0, 2, 1, 2, 0, 1),
    7: (3, 2, 1, 0, 1, 0, 2, 1, 0, 0, 1, 2, 1, 2, 1, 2),
    8: (4, 2, 2, 0, 0, 0, 3, 1, 1, 1, 1, 2, 2, 2, 0, 2),
    9: (4, 2, 2, 1, 0, 0, 3, 1, 1, 1, 1, 2, 2, 3, 1, 2),
    10: (4, 3, 2, 1, 1, 0, 3, 1, 1, 1, 1, 3, 2, 3, 1, 2),
    11: (5, 3, 2, 1, 1, 0, 4, 1, 2, 1, 1, 3, 2, 3, 1, 2),
    12: (5, 3, 2, 2, 1, 1, 4, 2, 1, 1, 2, 3, 3, 3, 1, 3),
    13: (6, 3, 3, 2, 1, 1, 5, 2, 2, 2, 2, 4, 3, 4, 2, 3),
    14: (6, 4, 3, 2, 2, 2, 5, 2, 2, 2, 2, 4, 3, 4, 2, 3),
    15: (7, 4, 3, 3, 2, 2, 6, 2, 2, 2, 2, 4, 4, 4, 2, 3),
}


def curriculum(level: int) -> Curriculum:
    (depth, junctions, side, nested, shared, wide, attackers, preferred, countered, second,
     attack_depth, offshoots, dead, distractors, contested, spare) = _TABLE[level]  # fmt: skip
    return Curriculum(
        depth=depth,
        junctions=junctions,
        side_depth=side,
        nested=nested,
        shared=shared,
        wide=wide,
        attackers=attackers,
        preferred=preferred,
        countered=countered,
        second_order=second,
        attack_depth=attack_depth,
        strict_share=round(min(0.03 * level, 0.35), 2),
        axiom_share=round(0.1 + 0.01 * level, 2),
        offshoots=offshoots,
        dead=dead,
        distractors=distractors,
        contested=contested,
        spare=spare,
    )


# Generation --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Support:
    """What strength comparisons see of a derivation literal's sub-argument."""

    rules: frozenset[str] = frozenset()  # defeasible rules
    premises: frozenset[Literal] = frozenset()  # ordinary premises


class _Generator:
    """Builds one candidate: the target's derivation, failing attacks on it, distractors."""

    def __init__(self, rng: random.Random, knobs: Curriculum) -> None:
        self.rng = rng
        self.knobs = knobs
        self.builder = Builder(rng)
        self.literals: list[Literal] = []  # literals the derivation establishes, in order
        self.support: dict[Literal, _Support] = {}
        self.derivation: list[Rule] = []
        self.nested_left = knobs.nested
        self.wide_left = knobs.wide
        self.shared_left = knobs.shared
        self.second_left = knobs.second_order
        self.attacks: list[str] = []

    # the derivation ----------------------------------------------------------------------

    def base(self) -> Literal:
        literal = self.builder.base(self.builder.atom(), self.knobs.axiom_share)
        ordinary = frozenset([literal]) if literal in self.builder.premises else frozenset()
        self.support[literal] = _Support(premises=ordinary)
        self.literals.append(literal)
        return literal

    def line(self, depth: int, junctions: int, goal: Literal | None = None) -> Literal:
        """A line of `depth` rules from a fresh premise; `junctions` of them take extra
        antecedents, each an earlier derivation literal or the end of a side line."""
        current = self.base()
        spots = set(self.rng.sample(range(depth), min(junctions, depth)))
        for index in range(depth):
            body = [current]
            if index in spots:
                extras = 1
                if self.wide_left > 0:
                    self.wide_left -= 1
                    extras = 2
                for _ in range(extras):
                    body.append(self.extra(body))
            self.rng.shuffle(body)
            last = index == depth - 1
            head = goal if (last and goal is not None) else self.builder.atom()
            strict = self.rng.random() < self.knobs.strict_share
            rule = self.builder.rule(body, head, strict=strict)
            self.derivation.append(rule)
            parts = [self.support[literal] for literal in body]
            self.support[head] = _Support(
                frozenset().union(*(part.rules for part in parts))
                | (frozenset() if strict else frozenset([rule.name])),
                frozenset().union(*(part.premises for part in parts)),
            )
            self.literals.append(head)
            current = head
        return current

    def extra(self, body: list[Literal]) -> Literal:
        """An extra antecedent for a junction: shared, or the end of a new side line."""
        earlier = [literal for literal in self.literals if literal not in body]
        if self.shared_left > 0 and earlier:
            self.shared_left -= 1
            return self.rng.choice(earlier)
        depth = self.rng.randint(0, self.knobs.side_depth)
        junctions = 0
        if depth > 0 and self.nested_left > 0:
            self.nested_left -= 1
            junctions = 1
        return self.line(depth, junctions)

    # attacks that fail --------------------------------------------------------------------

    def attacker_line(self, depth: int) -> tuple[Literal, Literal]:
        """A short line for an attacker: (its conclusion, its ordinary base premise)."""
        start = self.builder.base(self.builder.atom())
        current = start
        for _ in range(depth):
            strict = self.rng.random() < self.knobs.strict_share
            current = self.builder.rule([current], self.builder.atom(), strict=strict).head
        return current, start

    def attack(self, mechanism: str) -> None:
        """One attack on the derivation that fails by `mechanism`: `preferred` (the attacker
        is strictly weaker in every ordering), `countered` (an unattacked defender undercuts
        it) or `undermined` (its own premise is defeated)."""
        builder, rng = self.builder, self.rng
        defeasible = [rule for rule in self.derivation if not rule.strict]
        ordinary = [
            literal
            for literal in self.literals
            if literal in builder.premises and literal.complement not in builder.premises
        ]
        feasible = (["rebut", "undercut"] if defeasible else []) + (
            ["undermine"] if ordinary else []
        )
        # Preferences cannot stop an undercut.
        kinds = [k for k in feasible if not (mechanism == "preferred" and k == "undercut")]
        if not kinds:
            if not feasible:
                return  # nothing to attack: the gate rejects the candidate (too few attackers)
            mechanism, kinds = "undermined", feasible
        kind = rng.choice(kinds)
        self.attacks.append(f"{kind}/{mechanism}")
        if kind == "undermine":
            victim = rng.choice(ordinary)
            if mechanism == "preferred" and rng.random() < 0.5:
                builder.base(victim.complement)  # a weaker contradictory premise
                builder.prefer_premises(victim, victim.complement)
                return
            claim = victim.complement
            stronger_rules, stronger_premises = frozenset(), frozenset([victim])
        else:
            rule = rng.choice(defeasible)
            claim = rule.head.complement if kind == "rebut" else Literal(rule.name, True)
            stronger_rules = self.support[rule.head].rules
            stronger_premises = self.support[rule.head].premises
        depth = 0 if mechanism == "preferred" else rng.randint(0, self.knobs.attack_depth)
        conclusion, start = self.attacker_line(depth)
        attacker = builder.rule([conclusion], claim)
        if mechanism == "preferred":
            # Weaker than the attacked sub-argument under last- and weakest-link, elitist and
            # democratic: its one rule and its one premise are below all of the victim's.
            for name in sorted(stronger_rules):
                builder.directives.append(RulePreference(name, attacker.name))
            for premise in sorted(stronger_premises, key=str):
                builder.prefer_premises(premise, start)
        elif mechanism == "countered":
            self.counter(attacker)
        else:
            self.undermine(start)

    def counter(self, attacker: Rule) -> None:
        """An undercutter of `attacker` on unattacked ground, itself attacked (unsuccessfully)
        while the second-order budget lasts."""
        builder = self.builder
        ground = builder.base(builder.atom(), 0.5)
        second = self.second_left > 0 and self.rng.random() < 0.8
        strict = not second and self.rng.random() < self.knobs.strict_share
        defender = builder.rule([ground], Literal(attacker.name, True), strict=strict)
        if second:
            self.second_left -= 1
            conclusion, start = self.attacker_line(self.rng.randint(0, 1))
            builder.rule([conclusion], Literal(defender.name, True))
            self.undermine(start)

    def undermine(self, premise: Literal) -> None:
        """Defeat an ordinary premise: an axiom for its contradictory, or a stronger one."""
        if self.rng.random() < 0.5 or self.knobs.preferred == 0:
            self.builder.axioms.append(premise.complement)
            self.builder.directives.append(Axiom(premise.complement))
        else:
            self.builder.base(premise.complement)
            self.builder.prefer_premises(premise.complement, premise)

    # distractors --------------------------------------------------------------------------

    def offshoot(self) -> None:
        """Rules that use derivation literals for conclusions nothing needs."""
        body = self.rng.sample(self.literals, min(len(self.literals), self.rng.randint(1, 2)))
        strict = self.rng.random() < self.knobs.strict_share
        head = self.builder.rule(body, self.builder.atom(), strict=strict).head
        if self.rng.random() < 0.4:
            self.builder.rule([head], self.builder.atom())

    def dead_end(self) -> None:
        """A rule for a derivation conclusion whose other antecedent has no argument (perhaps
        the conclusion of another rule that cannot fire)."""
        heads = [rule.head for rule in self.derivation]
        head = self.rng.choice(heads)
        missing = self.builder.atom()
        if self.rng.random() < 0.5:
            self.builder.rule([self.builder.atom()], missing)
        body = [missing]
        others = [literal for literal in self.literals if literal != head]
        if others and self.rng.random() < 0.7:
            body.append(self.rng.choice(others))
        self.rng.shuffle(body)
        self.builder.rule(body, head, strict=self.rng.random() < self.knobs.strict_share)

    def build(self) -> tuple[Theory, dict[str, Any]]:
        knobs, builder, rng = self.knobs, self.builder, self.rng
        target = self.line(knobs.depth, knobs.junctions, goal=builder.atom())
        derivation_rules = len(self.derivation)
        mechanisms = (
            ["preferred"] * knobs.preferred
            + ["countered"] * knobs.countered
            + ["undermined"] * (knobs.attackers - knobs.preferred - knobs.countered)
        )
        rng.shuffle(mechanisms)
        for mechanism in mechanisms:
            self.attack(mechanism)
        for _ in range(knobs.offshoots):
            self.offshoot()
        for _ in range(knobs.dead):
            self.dead_end()
        for _ in range(knobs.distractors):
            builder.derivation(
                rng.randint(1, 2), rng.randint(0, 1), knobs.strict_share, knobs.axiom_share
            )
        for _ in range(knobs.contested):
            builder.contest()
        for _ in range(knobs.spare):
            builder.base(builder.atom(), knobs.axiom_share)
        directives = list(builder.directives)
        rng.shuffle(directives)  # the printed order within each kind says nothing
        theory = Theory.from_directives(directives)
        params = {
            "target": str(target),
            "derivation_rules": derivation_rules,
            "attackers": knobs.attackers,
            "attacks": self.attacks,
            "unused_rules": len(theory.rules) - derivation_rules,
        }
        return theory, params


# Answers -----------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*```")
_PREFIX = re.compile(
    r"^(?:\s*(?:[-*•+>]|\d{1,4}\s*[.):]|\(\d{1,4}\)|step\s*\d{1,4}\s*[.):]?)(?=\s|\[|`|\*))*\s*",
    re.IGNORECASE,
)
_MARKUP = "`*\"'_"
_SYMBOLS = {"⇒": "=>", "→": "->", "−": "-", "–": "-", "∧": " AND "}
_KEYWORD = re.compile(r"^\[\s*([A-Za-z_]+)")
_AND = re.compile(r"(?<=\s)and(?=\s)", re.IGNORECASE)

#: Most directives an answer may submit (longer answers are unreadable).
MAX_DIRECTIVES = 2_000


def _clean(line: str) -> str:
    """A directive line without bullets, numbering, markup and trailing punctuation, with
    keywords in the theory language's case."""
    text = _PREFIX.sub("", line, count=1).strip().lstrip(_MARKUP).strip()
    text = text.rstrip().rstrip(".,;:" + _MARKUP).rstrip()
    for symbol, plain in _SYMBOLS.items():
        text = text.replace(symbol, plain)
    text = _KEYWORD.sub(lambda match: "[" + match[1].lower(), text)
    return _AND.sub("AND", text)


def read_directives(answer: str) -> list[Directive]:
    """The directives of an answer region, in order. Blank lines, code fences and `%`
    comments are skipped; a directive may wrap over several lines; a line that does not read
    as `.arg` directives makes the whole answer unreadable."""
    if len(answer) > MAX_ANSWER_CHARS:
        raise UnreadableAnswer(f"answer longer than {MAX_ANSWER_CHARS:,} characters")
    lines = answer.splitlines()
    found: list[Directive] = []
    index = 0
    while index < len(lines):
        number, raw = index + 1, lines[index]
        index += 1
        if not raw.strip() or _FENCE.match(raw) or raw.strip().startswith("%"):
            continue
        pieces, depth = [raw], raw.count("[") - raw.count("]")
        while depth > 0 and index < len(lines):  # a directive wrapped over several lines
            pieces.append(lines[index])
            depth += lines[index].count("[") - lines[index].count("]")
            index += 1
        cleaned = _clean(" ".join(pieces))
        try:
            parsed = parse_directives(cleaned, "<answer>")
        except InputError:
            raise UnreadableAnswer(f"line {number}: cannot read {raw.strip()[:80]!r}") from None
        if not parsed and cleaned:
            raise UnreadableAnswer(f"line {number}: cannot read {raw.strip()[:80]!r}")
        found += parsed
        if len(found) > MAX_DIRECTIVES:
            raise UnreadableAnswer(f"more than {MAX_DIRECTIVES:,} directives")
    return found


def directive_key(directive: Directive) -> tuple:
    """What identifies a directive: its kind and content. A rule's antecedents are compared
    in any order (as a sorted tuple, so a repeated antecedent still differs)."""
    if isinstance(directive, Rule):
        body = tuple(sorted(directive.body))
        return ("rule", directive.name, body, directive.head, directive.strict)
    if isinstance(directive, (Premise, Axiom)):
        return (type(directive).__name__.lower(), directive.literal)
    return ("other", str(directive))


def chain_score(submitted: list[Directive], gold: list[Directive]) -> tuple[float, bool, str]:
    """Appendix B: content F1 (a repeated directive counts against precision) times q, the
    share of submitted rules that come after all of their antecedents."""
    wanted = {directive_key(directive) for directive in gold}
    seen: set[tuple] = set()
    true_positives = 0
    for directive in submitted:
        key = directive_key(directive)
        if key in wanted and key not in seen:  # a repeat is not a second hit
            true_positives += 1
            seen.add(key)
    available: set[Literal] = set()
    rules = placed = 0
    for directive in submitted:
        if isinstance(directive, (Premise, Axiom)):
            available.add(directive.literal)
        elif isinstance(directive, Rule):
            rules += 1
            placed += set(directive.body) <= available
            available.add(directive.head)
    order = placed / rules if rules else 1.0
    if true_positives == 0:
        f1 = 0.0
        precision = recall = 0.0
    else:
        precision, recall = true_positives / len(submitted), true_positives / len(wanted)
        f1 = 2 * precision * recall / (precision + recall)
    success = true_positives == len(wanted) == len(submitted) and placed == rules
    reason = (
        "complete derivation in dependency order"
        if success
        else f"content P {precision:.3f} R {recall:.3f}; {placed}/{rules} rules after their"
        " antecedents"
    )
    return f1 * order, success, reason


# The task ----------------------------------------------------------------------------------


@register
class ClaimChain(Task):
    name = "claim_chain"

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        theory, params = _Generator(rng, curriculum(level)).build()
        return Candidate(theory, params)

    def gate_program(self, candidate: Candidate) -> str:
        params = candidate.params
        facts = (
            f"target({literal_term(Literal.parse(params['target']))}).\n"
            f"min_attackers({params['attackers']}).\n"
            f"min_unused_rules({params['unused_rules']}).\n"
        )
        return facts + self.program

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        claim = Literal.parse(candidate.params["target"])
        ground: dict[Literal, Directive] = {}
        makers: dict[Literal, list[str]] = {}
        antecedents: dict[str, list[tuple[int, Literal]]] = {}
        for symbol in result.shown:
            if symbol.name == "chain_premise":
                ground[literal_of(symbol.arguments[0])] = Premise(literal_of(symbol.arguments[0]))
            elif symbol.name == "chain_axiom":
                ground[literal_of(symbol.arguments[0])] = Axiom(literal_of(symbol.arguments[0]))
            elif symbol.name == "chain_rule":
                name = symbol.arguments[0].string
                makers.setdefault(literal_of(symbol.arguments[1]), []).append(name)
                antecedents.setdefault(name, [])
            elif symbol.name == "depends":
                name, position, literal = symbol.arguments
                antecedents.setdefault(name.string, []).append(
                    (position.number, literal_of(literal))
                )
        # One way to establish each literal, or the derivation is not a single argument.
        if any(len(names) != 1 for names in makers.values()) or set(makers) & set(ground):
            return None
        if len(makers) != candidate.params["derivation_rules"]:
            return None
        ordered: list[Directive] = []
        done: set[Literal] = set()

        def establish(literal: Literal) -> None:  # premises first, then each rule
            if literal in done:
                return
            done.add(literal)
            if literal in ground:
                ordered.append(ground[literal])
                return
            (name,) = makers[literal]
            for _, antecedent in sorted(antecedents[name]):
                establish(antecedent)
            ordered.append(candidate.theory.rule(name))

        try:
            establish(claim)
        except (KeyError, ValueError):
            return None
        return {"claim": str(claim), "derivation": [str(directive) for directive in ordered]}

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        claim = target["claim"]
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering),
                f"The claim {claim} is justified: it has exactly one argument, and that argument"
                " is in the grounded extension.",
                f"Reconstruct the complete support derivation of {claim}: every premise and"
                " axiom that its argument rests on and every rule that it applies, and nothing"
                " else. Order them from the supporting premises toward the claim: a rule may"
                " appear only after each of its antecedents has appeared, as a premise, an"
                " axiom or the conclusion of an earlier rule in your list. Independent branches"
                " may come in any order that respects this.",
                answer_request(
                    "one directive per line, copied exactly as written in the theory (kind,"
                    " name, antecedents and conclusion), for example '[premise: p]',"
                    " '[axiom: q]', '[defeasible r: p AND q => c]' or '[strict s: c -> d]'."
                ),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(target["derivation"])

    def score_answer(self, instance: Instance, answer: str) -> Score:
        try:
            submitted = read_directives(answer)
        except UnreadableAnswer as error:
            return Score(0.0, False, f"unreadable answer: {error}")
        gold = parse_directives("\n".join(instance.target["derivation"]), "<target>")
        native, success, reason = chain_score(submitted, gold)
        return Score(native, success, reason)
