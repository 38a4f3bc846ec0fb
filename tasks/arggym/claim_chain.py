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
from argc.tasks.arggym import principle
from argc.tasks.arggym.principle import LAST_LINK, WEAKEST_LINK, Support
from argc.tasks.arggym.scale import fill
from argc.tasks.arggym.symbols import literal_of
from argc.tasks.builder import Builder
from argc.tasks.framework import Candidate, Instance, Score, Task, knobs, register
from argc.tasks.prompts import answer_request, theory_block

# Curriculum ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curriculum:
    """The structural knobs of one level."""

    size: int  # directives the theory reaches with unrelated derivations (the released scale)
    depth: int  # rules on the main line, from its first premise to the target
    junctions: int  # main-line rules with extra antecedents, each supported by its own line
    side_depth: int  # most rules on a side line
    nested: int  # junctions inside side lines (branches of branches)
    shared: int  # junctions whose extra antecedent is an earlier literal of the derivation
    wide: int  # junctions with two extra antecedents instead of one
    principled: int  # attacks that fail under one link principle and succeed under the other
    preferred: int  # attacks that a preference makes too weak under every ordering
    countered: int  # attacks that an unattacked defender undercuts
    undermined: int  # attacks whose own premise is defeated
    second_order: int  # defenders that are attacked in turn, unsuccessfully
    attack_depth: int  # most rules under an attacker's own last rule
    strict_share: float  # share of strict rules
    axiom_share: float  # share of axioms among base premises
    offshoots: int  # rules that use derivation literals for conclusions the target never needs
    dead: int  # routes to derivation literals from literals that have no argument
    dead_depth: int  # most rules on a dead route
    contested: int  # unrelated undecided conflicts
    spare: int  # premises nothing uses

    @property
    def attackers(self) -> int:
        """Attacks on the derivation, all failing: the designed ones and the contested root."""
        return self.principled + self.preferred + self.countered + self.undermined + 1


#: Directives per level in ArgGYM's released taskset (levels 1, 4, 7, 9, 10, 15), linear
#: in between; unrelated derivations fill each theory up to it.
_SIZE = (35, 47, 59, 71, 88, 105, 123, 163, 203, 218, 250, 282, 314, 345, 377)

# depth junct side nest share wide | princ pref count underm 2nd adep | off dead ddep cont spare
_TABLE = {
    1: (3, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1),
    2: (3, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1),
    3: (4, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 2, 1, 1),
    4: (4, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 2, 2, 2, 1, 2),
    5: (5, 1, 2, 0, 0, 0, 2, 1, 1, 0, 0, 1, 2, 2, 2, 1, 2),
    6: (6, 2, 2, 0, 1, 0, 2, 1, 1, 1, 0, 1, 2, 2, 3, 2, 2),
    7: (7, 2, 2, 1, 0, 0, 2, 1, 1, 1, 1, 1, 3, 2, 3, 2, 2),
    8: (7, 2, 2, 1, 1, 0, 2, 1, 2, 1, 1, 1, 3, 3, 3, 2, 3),
    9: (8, 3, 2, 1, 1, 1, 3, 1, 2, 1, 1, 2, 3, 3, 4, 2, 3),
    10: (8, 3, 3, 1, 1, 1, 3, 1, 2, 2, 1, 2, 4, 3, 4, 3, 3),
    11: (9, 3, 3, 2, 1, 1, 3, 2, 2, 2, 2, 2, 4, 3, 5, 3, 3),
    12: (9, 4, 3, 2, 1, 1, 3, 2, 2, 2, 2, 2, 4, 4, 5, 3, 4),
    13: (10, 4, 3, 2, 2, 2, 4, 2, 3, 2, 2, 2, 5, 4, 6, 3, 4),
    14: (10, 4, 3, 3, 2, 2, 4, 2, 3, 2, 2, 3, 5, 4, 6, 4, 4),
    15: (10, 4, 3, 3, 2, 2, 4, 2, 3, 3, 2, 3, 5, 4, 7, 4, 4),
}


def curriculum(level: int) -> Curriculum:
    (depth, junctions, side, nested, shared, wide, principled, preferred, countered,
     undermined, second, attack_depth, offshoots, dead, dead_depth, contested,
     spare) = _TABLE[level]  # fmt: skip
    return Curriculum(
        size=_SIZE[level - 1],
        depth=depth,
        junctions=junctions,
        side_depth=side,
        nested=nested,
        shared=shared,
        wide=wide,
        principled=principled,
        preferred=preferred,
        countered=countered,
        undermined=undermined,
        second_order=second,
        attack_depth=attack_depth,
        strict_share=round(min(0.03 * level, 0.35), 2),
        axiom_share=round(0.1 + 0.01 * level, 2),
        offshoots=offshoots,
        dead=dead,
        dead_depth=dead_depth,
        contested=contested,
        spare=spare,
    )


# Generation --------------------------------------------------------------------------------


class _Generator:
    """Builds one candidate: the target's derivation, failing attacks on it, distractors."""

    def __init__(self, rng: random.Random, knobs: Curriculum) -> None:
        self.rng = rng
        self.knobs = knobs
        self.builder = Builder(rng)
        self.literals: list[Literal] = []  # literals the derivation establishes, in order
        self.support: dict[Literal, Support] = {}
        self.derivation: list[Rule] = []
        self.nested_left = knobs.nested
        self.wide_left = knobs.wide
        self.shared_left = knobs.shared
        self.second_left = knobs.second_order
        self.attacks: list[str] = []
        self.attacked: set[Literal | str] = set()  # premises and rule names attacked so far
        # The link principle under which the principled attacks fail (and the target is
        # justified); under the other one they succeed.
        self.fails_under = rng.choice([LAST_LINK, WEAKEST_LINK])

    # the derivation ----------------------------------------------------------------------

    def base(self, ordinary: bool = False) -> Literal:
        share = 0.0 if ordinary else self.knobs.axiom_share
        literal = self.builder.base(self.builder.atom(), share)
        ordinary_premises = (
            frozenset([literal]) if literal in self.builder.premises else frozenset()
        )
        self.support[literal] = Support(premises=ordinary_premises)
        self.literals.append(literal)
        return literal

    def line(self, depth: int, junctions: int, goal: Literal | None = None) -> Literal:
        """A line of `depth` rules from a fresh premise (an ordinary one for the main line,
        which ends in `goal`); `junctions` of them take extra antecedents, each an earlier
        derivation literal or the end of a side line."""
        current = self.base(ordinary=goal is not None)
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
            self.support[head] = Support.of_rule(rule, (self.support[x] for x in body))
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

    def ordinary(self) -> list[Literal]:
        """The derivation's ordinary premises that nothing attacks yet."""
        return [
            literal
            for literal in self.literals
            if literal in self.builder.premises
            and literal.complement not in self.builder.premises
            and literal not in self.attacked
        ]

    def pick_step(self, steps: list[Rule]) -> Rule:
        """A step to attack: one not attacked yet if possible, among the lighter half by the
        size of its argument (fewer preferences to state)."""
        fresh = [rule for rule in steps if rule.name not in self.attacked] or steps
        fresh.sort(
            key=lambda rule: (
                len(self.support[rule.head].rules) + len(self.support[rule.head].premises)
            )
        )
        chosen = self.rng.choice(fresh[: max(2, (len(fresh) + 1) // 2)])
        self.attacked.add(chosen.name)
        return chosen

    def contest_root(self, root: Literal) -> None:
        """The main line's premise, undermined by its contradictory premise, which a premise
        preference makes weaker under every ordering."""
        self.builder.base(root.complement)
        self.builder.prefer_premises(root, root.complement)
        self.attacked.add(root)
        self.attacks.append("undermine/preferred")

    def principled(self) -> None:
        """An attack that fails under `fails_under` and succeeds under the other principle: a
        rebut of a defeasible step, or (failing under last-link) a defeasible undermine."""
        steps = [
            rule
            for rule in self.derivation
            if principle.rebuttable(rule, self.support[rule.head], self.fails_under)
        ]
        premises = self.ordinary() if self.fails_under == LAST_LINK else []
        kinds = (["rebut"] if steps else []) + (["undermine"] if premises else [])
        if not kinds:
            return  # nothing to attack: the gate rejects the candidate (too few attackers)
        kind = self.rng.choice(kinds)
        self.attacks.append(f"{kind}/{self.fails_under}")
        if kind == "undermine":
            victim = self.rng.choice(premises)
            self.attacked.add(victim)
            principle.undermine(self.builder, victim)
            return
        step = self.pick_step(steps)
        principle.rebut(self.builder, step, self.support[step.head], self.fails_under)

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
        ordinary = self.ordinary()
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
            self.attacked.add(victim)
            if mechanism == "preferred" and rng.random() < 0.5:
                builder.base(victim.complement)  # a weaker contradictory premise
                builder.prefer_premises(victim, victim.complement)
                return
            claim = victim.complement
            stronger = Support(premises=frozenset([victim]))
        else:
            rule = self.pick_step(defeasible)
            claim = rule.head.complement if kind == "rebut" else Literal(rule.name, True)
            stronger = self.support[rule.head]
        depth = 0 if mechanism == "preferred" else rng.randint(0, self.knobs.attack_depth)
        conclusion, start = self.attacker_line(depth)
        attacker = builder.rule([conclusion], claim)
        if mechanism == "preferred":
            # Weaker than the attacked sub-argument under last- and weakest-link, elitist and
            # democratic: its one rule and its one premise are below all of the victim's.
            for name in sorted(stronger.rules):
                builder.directives.append(RulePreference(name, attacker.name))
            for premise in sorted(stronger.premises, key=str):
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
        if self.rng.random() < 0.5:
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

    def dead_route(self) -> None:
        """A route of up to `dead_depth` rules to a derivation conclusion (perhaps the target)
        from a literal that has no argument, its last rule perhaps also using a derivation
        literal: an alternative derivation that never fires."""
        head = self.rng.choice([rule.head for rule in self.derivation])
        current = self.builder.atom()  # nothing establishes it
        for _ in range(self.rng.randint(0, self.knobs.dead_depth - 1)):
            current = self.builder.rule([current], self.builder.atom()).head
        body = [current]
        others = [literal for literal in self.literals if literal != head]
        if others and self.rng.random() < 0.7:
            body.append(self.rng.choice(others))
        self.rng.shuffle(body)
        self.builder.rule(body, head, strict=self.rng.random() < self.knobs.strict_share)

    def build(self) -> tuple[Theory, dict[str, Any]]:
        knobs, builder, rng = self.knobs, self.builder, self.rng
        target = self.line(knobs.depth, knobs.junctions, goal=builder.atom())
        derivation_rules = len(self.derivation)
        self.contest_root(self.literals[0])
        mechanisms = (
            ["principled"] * knobs.principled
            + ["preferred"] * knobs.preferred
            + ["countered"] * knobs.countered
            + ["undermined"] * knobs.undermined
        )
        rng.shuffle(mechanisms)
        for mechanism in mechanisms:
            if mechanism == "principled":
                self.principled()
            else:
                self.attack(mechanism)
        for _ in range(knobs.offshoots):
            self.offshoot()
        for _ in range(knobs.dead):
            self.dead_route()
        for _ in range(knobs.contested):
            builder.contest()
        for _ in range(knobs.spare):
            builder.base(builder.atom(), knobs.axiom_share)
        distractors = fill(builder, knobs.size, knobs.strict_share, knobs.axiom_share)
        directives = list(builder.directives)
        rng.shuffle(directives)  # the printed order within each kind says nothing
        theory = Theory.from_directives(directives)
        params = {
            "target": str(target),
            "derivation_rules": derivation_rules,
            "attackers": knobs.attackers,
            "attacks": self.attacks,
            "fails_under": self.fails_under,
            "distractors": distractors,
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
