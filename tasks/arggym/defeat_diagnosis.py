"""defeat_diagnosis: the status of a claim that is not justified, and every point at which its
support fails (ArgGYM A.3, scoring as in Appendix B).

A failure point is a defeat on an argument for the claim, or on one of its sub-arguments, by
an effective defeater: an argument of the grounded extension when the claim is overruled, an
argument the grounded extension does not defeat when it is undecided. Each point is written
`defeated_at: <at>; defeater: <by>; kind: undermine|undercut|rebut`, with
`survives_because: <name>` appended when the defeater is itself defeated by an argument that
the grounded extension defeats; the name is that of this failed counter-attacker. A missing
or unreadable status line costs only the status credit. The gold comes from
`defeat_diagnosis.lp`; see docs/tasks/defeat_diagnosis.md for the decisions.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

import clingo
from lark import Lark, Transformer
from lark.exceptions import LarkError, UnexpectedInput

from argc.compiler import QueryResult
from argc.dsl.ir import Literal, Ordering, QueryHeader, Rule, RulePreference
from argc.dsl.syntax import lark_parser
from argc.tasks.answers import MAX_ANSWER_CHARS, UnreadableAnswer, pair_f1
from argc.tasks.arggym.symbols import literal_of
from argc.tasks.builder import Builder
from argc.tasks.framework import Candidate, Instance, Score, Task, knobs, register
from argc.tasks.prompts import answer_request, theory_block

KINDS = ("undermine", "undercut", "rebut")
STATUSES = ("overruled", "undecided")

# Weights of Appendix B.
W_DIAG, W_STATUS = 0.85, 0.15
W_DIAG_SURV, W_STATUS_SURV, W_SURV = 0.60, 0.15, 0.25


# Curriculum -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curriculum:
    """One level's knobs (see the table in docs/tasks/defeat_diagnosis.md). Routes, depth,
    tower height, inert decoys and distractors follow ArgGYM's released generator."""

    routes: int  # derivations of the claim, one attack on each (one failure record each)
    depth: int  # rules on each route, the last one defeasible
    junctions: int  # two-antecedent steps per route (side branches)
    shared: bool  # a later route's junction reuses a literal of the first route
    strict_share: float  # share of strict steps on routes (never the last)
    axiom_share: float  # share of axioms among route roots
    height: int  # counter-attack pairs in the tower on each rule defeater (0: no towers)
    strict_attackers: float  # share of rule attackers whose last step is strict
    decoys: int  # attacks on the routes that fail (preference-blocked or defeated)
    distractors: int  # unrelated derivations
    contests: int  # unrelated symmetric conflicts
    undecided_share: float  # chance that a candidate asks for an undecided claim


def curriculum(level: int) -> Curriculum:
    return Curriculum(
        routes=1 if level <= 3 else 3,
        depth=min(2 + level // 3, 7),
        junctions=(level >= 8) + (level >= 12),
        shared=level >= 12,
        strict_share=0.0 if level < 6 else 0.25,
        axiom_share=0.0 if level < 4 else 0.25,
        height=0 if level < 5 else min(1 + (level - 5) // 4, 3),
        strict_attackers=0.0 if level < 7 else 0.3,
        decoys=0 if level < 4 else min(1 + (level - 4) // 5, 3),
        distractors=level if level <= 3 else min(2 + 2 * level, 30),
        contests=(level >= 4) + (level >= 8),
        undecided_share=0.4,
    )


# Generation -------------------------------------------------------------------------------


@dataclass
class Support:
    """What an argument for a literal rests on: its defeasible rules and ordinary premises."""

    rules: set[str] = field(default_factory=set)
    premises: set[Literal] = field(default_factory=set)


@dataclass
class Route:
    """One derivation of the target: its defeasible rules and ordinary premises (the points an
    attack can hit), and what each literal of it rests on."""

    defeasible: list[Rule] = field(default_factory=list)
    premises: list[Literal] = field(default_factory=list)
    axioms: list[Literal] = field(default_factory=list)
    literals: list[Literal] = field(default_factory=list)  # intermediate conclusions
    used: set[tuple[str, str]] = field(default_factory=set)  # (kind, point) already attacked


class Generator:
    """Builds one candidate: routes to the target, one attack on each (decisive, stalemated or,
    for decoys, failing), a pivot that the link principle decides, towers of counter-attacks
    on defeaters, and unrelated material."""

    def __init__(self, rng: random.Random, knobs: Curriculum) -> None:
        self.rng = rng
        self.knobs = knobs
        self.b = Builder(rng)
        self.support: dict[Literal, Support] = {}
        self.spare: set[Literal] = set()  # conclusions not to rebut (shared by several routes)
        self.survivals = 0  # routes whose failure record needs a survives_because

    # knowledge ---------------------------------------------------------------------------

    def base(self, axiom_share: float = 0.0, literal: Literal | None = None) -> Literal:
        made = self.b.base(literal or self.b.atom(), axiom_share)
        ordinary = made in self.b.premises
        self.support[made] = Support(set(), {made} if ordinary else set())
        return made

    def rule(self, body: list[Literal], head: Literal, strict: bool = False) -> Rule:
        made = self.b.rule(body, head, strict=strict)
        rules: set[str] = set() if strict else {made.name}
        premises: set[Literal] = set()
        for literal in body:
            rules |= self.support[literal].rules
            premises |= self.support[literal].premises
        # A literal derived by several rules (the target, by its routes) rests on all of them:
        # an attacker meant to beat every argument for it is preferred over all of them.
        known = self.support.setdefault(head, Support())
        known.rules |= rules
        known.premises |= premises
        return made

    def chain(self, length: int, axiom_share: float = 0.0) -> Literal:
        """A fresh literal derived by `length` defeasible rules from a fresh base literal."""
        current = self.base(axiom_share)
        for _ in range(length):
            current = self.rule([current], self.b.atom()).head
        return current

    # routes ------------------------------------------------------------------------------

    def route(self, goal: Literal, shared: Literal | None) -> Route:
        knobs, rng = self.knobs, self.rng
        made = Route()
        root = self.base(knobs.axiom_share)
        (made.premises if root in self.b.premises else made.axioms).append(root)
        junctions = set(rng.sample(range(knobs.depth), min(knobs.junctions, knobs.depth)))
        current = root
        for index in range(knobs.depth):
            body = [current]
            if index in junctions:
                if shared is not None:
                    side, shared = shared, None
                else:
                    side = self.base(knobs.axiom_share)
                    (made.premises if side in self.b.premises else made.axioms).append(side)
                    if rng.random() < 0.5:
                        step = self.rule([side], self.b.atom())
                        made.defeasible.append(step)
                        made.literals.append(step.head)
                        side = step.head
                body.append(side)
            last = index == knobs.depth - 1
            head = goal if last else self.b.atom()
            strict = not last and rng.random() < knobs.strict_share
            step = self.rule(body, head, strict=strict)
            if not strict:
                made.defeasible.append(step)
            if not last:
                made.literals.append(head)
            current = head
        return made

    # attacks -----------------------------------------------------------------------------

    def points(self, route: Route, kind: str) -> list[Any]:
        if kind == "undermine":
            return [p for p in route.premises if ("undermine", str(p)) not in route.used]
        return [
            r
            for r in route.defeasible
            if (kind, r.name) not in route.used and not (kind == "rebut" and r.head in self.spare)
        ]

    def attacker_rule(self, head: Literal, support: Literal, strict_top: bool) -> tuple[Rule, Rule]:
        """A rule attacking with `head` from `support`: returns (the rule performing the attack,
        the defeasible rule whose strength counts under last-link)."""
        if strict_top:
            step = self.rule([support], self.b.atom())
            return self.rule([step.head], head, strict=True), step
        made = self.rule([support], head)
        return made, made

    def attack(self, route: Route, kind: str, mode: str) -> Rule | None:
        """Attack a point of `route`: `decisive` (the attacker wins), `stalemate` (attacker and
        attacked defeat each other, or the attacker is itself undecided) or `decoy` (the attack
        fails: blocked by a preference or its attacker defeated). Returns the rule performing a
        decisive or stalemated attack by a rule (a candidate for a tower)."""
        rng, b = self.rng, self.b
        point = rng.choice(self.points(route, kind))
        route.used.add((kind, str(point) if kind == "undermine" else point.name))
        if kind == "undermine":
            attacker = self.base(literal=point.complement)
            if mode == "decisive":
                b.prefer_premises(attacker, point)
            elif mode == "decoy":
                b.prefer_premises(point, attacker)
            return None
        victim: Rule = point
        head = Literal(victim.name, True) if kind == "undercut" else victim.head.complement
        below = self.support[victim.head]
        if mode == "decoy":
            if kind == "undercut":  # an undercutter that a grounded argument undercuts
                made = self.rule([self.base()], head)
                self.rule([self.base()], Literal(made.name, True))
                return None
            support = self.base()  # a rebutter weaker on every comparison
            made = self.rule([support], head)
            for rule in sorted(below.rules):
                b.directives.append(RulePreference(rule, made.name))
            for premise in sorted(below.premises, key=str):
                b.prefer_premises(premise, support)
            return None
        strict_top = rng.random() < self.knobs.strict_attackers
        if mode == "stalemate" and (kind == "undercut" or strict_top):
            # undercuts and strict-topped rebuts cannot be answered: the attacker rests on a
            # premise contested by its contradictory instead
            contested = self.base()
            self.base(literal=contested.complement)
            return self.attacker_rule(head, contested, strict_top)[0]
        if mode == "stalemate":
            return self.attacker_rule(head, self.base(), strict_top)[0]
        if kind == "undercut":
            return self.attacker_rule(head, self.chain(rng.randint(0, 1)), strict_top)[0]
        # A decisive rebut: the attacker's deciding rule beats every defeasible rule below the
        # rebutted conclusion, and its base is an axiom or a premise beating every premise
        # below it, so it wins under every principle and set comparison.
        firm = not below.premises or rng.random() < 0.5
        support = self.base(1.0 if firm else 0.0)
        made, deciding = self.attacker_rule(head, support, strict_top)
        for rule in sorted(below.rules):
            b.directives.append(RulePreference(deciding.name, rule))
        if not firm:
            for premise in sorted(below.premises, key=str):
                b.prefer_premises(support, premise)
        return made

    def link_conflict(self) -> tuple[Literal, Rule]:
        """A conflict over a fresh claim x that the link principle decides, the same way under
        either set comparison: x's argument (a premise, then rules m0 and m) against -x's (an
        axiom, then rules v0 and v), with v0 > m > v > m0. Last-link compares m with v: x is
        justified and -x overruled. Weakest-link weighs whole arguments: x's rests on a premise
        where -x's rests on an axiom, and its rules are below -x's (m0 below both, elitist; m0
        and m below v0, democratic): -x is justified and x overruled. Returns x and v."""
        claim = self.b.atom(False)
        first = self.rule([self.base()], self.b.atom(False))
        last = self.rule([first.head], claim)
        rival_first = self.rule([self.base(1.0)], self.b.atom(False))
        rival = self.rule([rival_first.head], claim.complement)
        self.b.prefer_rules(rival_first, last)
        self.b.prefer_rules(last, rival)
        self.b.prefer_rules(rival, first)
        return claim, rival

    def pivot(self, route: Route, kind: str, mode: str) -> list[Rule]:
        """Two attacks of `kind` (undercut or rebut) on `route`, one from each side of a link
        conflict: under last-link the one resting on x is a defeater and the one resting on -x
        is defeated (its sub-argument for -x is), under weakest-link the other way round, so
        the failure point moves with the principle. A rebut from x beats the last rules of the
        rebutted conclusion (last-link compares nothing else); a rebut from -x beats every rule
        below it, and v beats its last rules, so under weakest-link the rebutted argument is
        weaker on rules under either set comparison (and on premises, -x resting on an axiom).
        In a stalemate both attackers also rest on a premise contested by its contradictory.
        Returns the two attacking rules."""
        claim, rival = self.link_conflict()
        extra = []
        if mode == "stalemate":
            extra.append(self.base())
            self.base(literal=extra[0].complement)
        points = self.points(route, kind)
        victims = self.rng.sample(points, 2) if len(points) > 1 else points * 2
        made = []
        for side, victim in zip((claim, claim.complement), victims, strict=True):
            route.used.add((kind, victim.name))
            head = Literal(victim.name, True) if kind == "undercut" else victim.head.complement
            attacker = self.rule([side, *extra], head)
            made.append(attacker)
            if kind == "undercut":
                continue
            last = sorted(r.name for r in self.b.rules if r.head == victim.head and not r.strict)
            above = last if side == claim else sorted(self.support[victim.head].rules)
            for rule in above:
                self.b.directives.append(RulePreference(attacker.name, rule))
            if side != claim:
                for rule in last:
                    self.b.directives.append(RulePreference(rival.name, rule))
        return made

    def tower(self, defeater: Rule) -> None:
        """Counter-attacks on a defeater, each undercut in turn: c0 undercuts the defeater (or
        its deciding rule when its last step is strict), c1 undercuts c0, ...; with an even
        number of links the last wins, c0 is defeated and the defeater survives."""
        target = defeater
        if defeater.strict:
            (target,) = [r for r in self.b.rules if r.head == defeater.body[0]]
        for index in range(2 * self.knobs.height):
            if index == 1 and self.knobs.height == 1 and self.rng.random() < 0.3:
                # the counter-counter-attack undermines c0's premise instead
                (premise,) = target.body
                self.b.prefer_premises(self.base(literal=premise.complement), premise)
                return
            target = self.rule([self.base()], Literal(target.name, True))

    # the candidate -----------------------------------------------------------------------

    def routes(self, goal: Literal) -> list[Route]:
        """The target's routes; from the level with shared junctions, a later route may take
        a literal of the first as its junction."""
        made: list[Route] = []
        for index in range(self.knobs.routes):
            shared = None
            if self.knobs.shared and index > 0 and made[0].literals and self.rng.random() < 0.5:
                shared = self.rng.choice(made[0].literals)
            made.append(self.route(goal, shared))
        return made

    def attack_routes(self, routes: list[Route], want: str) -> list[Rule]:
        """One attack per route, of distinct kinds, a pivot on one of the routes attacked by a
        rule; for an undecided claim the attack on the first route (and on each other route
        with some chance) is a stalemate, the others decisive. Returns the rule defeaters."""
        rng = self.rng
        kinds = list(KINDS)
        rng.shuffle(kinds)
        modes = ["decisive"] * len(routes)
        if want == "undecided":
            modes = ["stalemate"] + [
                "stalemate" if rng.random() < 0.3 else "decisive" for _ in routes[1:]
            ]
        by_rule = [i for i in range(len(routes)) if kinds[i] != "undermine"]
        pivot = rng.choice(by_rule) if by_rule else None
        defeaters: list[Rule] = []
        for index, (route, mode) in enumerate(zip(routes, modes, strict=True)):
            options = [kinds[index]] + [k for k in KINDS if k != kinds[index]]
            options = [k for k in options if self.points(route, k)]
            if not options:
                continue
            if index == pivot and options[0] != "undermine":
                made = self.pivot(route, options[0], mode)
            else:
                made = [self.attack(route, options[0], mode)]
            rules = [rule for rule in made if rule is not None]
            defeaters += rules
            self.survivals += bool(rules and self.knobs.height)
        return defeaters

    def decoys(self, routes: list[Route]) -> None:
        """Attacks on the routes that fail, or undermining premises against axioms."""
        for _ in range(self.knobs.decoys):
            route = self.rng.choice(routes)
            options = [k for k in KINDS if self.points(route, k)]
            inert = [a for a in route.axioms if a.complement not in self.b.premises]
            if inert and self.rng.random() < 0.25:  # an undermining of an axiom: never an attack
                self.base(literal=self.rng.choice(inert).complement)
            elif options:
                self.attack(route, self.rng.choice(options), "decoy")

    def build(self, want: str) -> Builder:
        knobs, rng, b = self.knobs, self.rng, self.b
        goal = b.atom()
        if want == "undecided" and knobs.routes > 1:
            # a rebut of the claim itself hits every route at once: it would overrule a claim
            # meant to stay undecided, or leave a stalemated rebutter facing defeated routes
            self.spare.add(goal)
        routes = self.routes(goal)
        for defeater in self.attack_routes(routes, want):
            if knobs.height:
                self.tower(defeater)
        self.decoys(routes)
        for _ in range(knobs.contests):
            b.contest()
        for _ in range(knobs.distractors):
            self.chain(rng.randint(1, 2))
        b.salient = [goal]
        # The printed theory groups directives by kind in this order: shuffle it, so that
        # the position of a directive says nothing about its role.
        rng.shuffle(b.directives)
        return b


# Answers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    defeated_at: str
    defeater: str
    kind: str
    survives_because: str | None = None


@dataclass(frozen=True)
class Diagnosis:
    """A read answer: the status it states (None when it states none, only unreadable ones,
    or two different ones) and its failure records."""

    status: str | None
    records: tuple[Record, ...]


# A status line, read apart from the records: a bullet, quotes or bold markers, the keyword,
# an optional `:` or `=`, then the value (anything; an unreadable value reads as no status).
_STATUS_LINE = re.compile(
    r"^[ \t]*(?:(?:[-*•+]|\d+[.)])[ \t]+)?[`'\"*]*status\b[`'\"*]*[ \t]*[:=]?(?P<value>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_STATUS_VALUE = re.compile(
    r"[\s`'\"*]*(justified|overruled|undecided)[\s`'\"*]*(?:[.,;]\s*)?", re.IGNORECASE
)


@cache
def _parser() -> Lark:
    return lark_parser(
        "argc.tasks.arggym",
        "defeat_diagnosis.lark",
        "defeat-diagnosis",
        positions=False,
        start="records",
    )


class _Read(Transformer):
    def name(self, children):
        return "".join(str(child) for child in children)

    def kind(self, children):
        return str(children[-1]).lower()

    def survival(self, children):
        return children[-1]

    def tail(self, children):
        return children[0] if children else None

    def record(self, children):
        at, by, kind, *rest = children
        return Record(at, by, kind, rest[0] if rest else None)

    def records(self, children):
        return tuple(children)


def _stated_status(answer: str) -> str | None:
    """The status the answer's status lines agree on, if they agree on a readable one."""
    values = set()
    for line in _STATUS_LINE.finditer(answer):
        found = _STATUS_VALUE.fullmatch(line["value"])
        values.add(found[1].lower() if found else None)
    return values.pop() if len(values) == 1 else None


def _read_records(text: str) -> tuple[Record, ...]:
    """The failure records of an answer whose status lines are blanked out."""
    body = text.strip()
    if not body:
        return ()
    try:
        return _Read().transform(_parser().parse(body))
    except UnexpectedInput as error:
        lines = body.splitlines()
        number = error.line if 0 < (error.line or 0) <= len(lines) else 1
        skipped = text[: len(text) - len(text.lstrip())].count("\n")
        raise UnreadableAnswer(
            f"line {number + skipped}: cannot read {lines[number - 1].strip()!r}"
        ) from None
    except (LarkError, ValueError) as error:
        raise UnreadableAnswer(str(error)) from None


def read_diagnosis(answer: str) -> Diagnosis:
    """Parse an answer region: status lines anywhere (a missing or unreadable status only
    loses I_status), failure records on the other lines. UnreadableAnswer names the first
    record line that does not read, or says the answer has neither status nor records."""
    if len(answer) > MAX_ANSWER_CHARS:
        raise UnreadableAnswer(f"answer longer than {MAX_ANSWER_CHARS:,} characters")
    records = _read_records(_STATUS_LINE.sub("", answer))
    if not records and not _STATUS_LINE.search(answer):
        raise UnreadableAnswer("no status line and no failure records")
    return Diagnosis(_stated_status(answer), records)


def _text(symbol: clingo.Symbol) -> str:
    """A shown name: a rule name (string) or a literal (pos/neg term)."""
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    return str(literal_of(symbol))


def diagnosis_score(target: dict[str, Any], found: Diagnosis) -> Score:
    """Appendix B: record key (defeated_at, defeater), kind must match; F1_diag over records,
    I_status, and F1_surv over survives_because records when the instance requires them."""
    gold = [Record(**record) for record in target["failures"]]
    required = any(record.survives_because for record in gold)
    given = [r for r in found.records if r.survives_because is not None]
    if given and not required:
        return Score(0.0, False, "survives_because given where none is required")
    f1, exact = pair_f1(
        [((r.defeated_at, r.defeater), r.kind) for r in found.records],
        {(r.defeated_at, r.defeater): r.kind for r in gold},
    )
    status_ok = found.status == target["status"]
    if not required:
        native = W_DIAG * f1 + W_STATUS * status_ok
        success = exact and status_ok
        return Score(native, success, _reason(success, found.status, status_ok, f1))
    surv_f1, surv_exact = pair_f1(
        [((r.defeated_at, r.defeater), r.survives_because) for r in given],
        {(r.defeated_at, r.defeater): r.survives_because for r in gold if r.survives_because},
    )
    native = W_DIAG_SURV * f1 + W_STATUS_SURV * status_ok + W_SURV * surv_f1
    success = exact and status_ok and surv_exact
    return Score(native, success, _reason(success, found.status, status_ok, f1, surv_f1))


def _reason(
    success: bool, status: str | None, status_ok: bool, f1: float, surv_f1: float | None = None
) -> str:
    if success:
        return "status, failure points and survival explanations all correct"
    said = "no readable status" if status is None else f"status {('wrong', 'correct')[status_ok]}"
    parts = [said, f"failure-point F1 {f1:.3f}"]
    if surv_f1 is not None:
        parts.append(f"survives_because F1 {surv_f1:.3f}")
    return ", ".join(parts)


# The task ---------------------------------------------------------------------------------


@register
class DefeatDiagnosis(Task):
    name = "defeat_diagnosis"
    reads_only = True

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        knobs = curriculum(level)
        want = "undecided" if rng.random() < knobs.undecided_share else "overruled"
        generator = Generator(rng, knobs)
        builder = generator.build(want)
        (goal,) = builder.salient
        theory = builder.theory([QueryHeader((goal,))])
        params = {"want": want, "level": level, "survivals": generator.survivals}
        return Candidate(theory, params)

    def gate_program(self, candidate: Candidate) -> str:
        routes, survivals = (
            curriculum(candidate.params["level"]).routes,
            candidate.params["survivals"],
        )
        facts = [
            f"want({candidate.params['want']}).",
            f"min_failures({routes}).",
            f"min_kinds({routes}).",
            f"min_survives({survivals}).",
            f"max_survives({survivals}).",
        ]
        return "\n".join(facts) + "\n" + self.program

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        status, kinds, because = None, {}, {}
        for symbol in result.shown:
            if symbol.name == "status":
                status = symbol.arguments[0].name
            elif symbol.name == "failure":
                at, by, kind = symbol.arguments
                kinds[(_text(at), _text(by))] = kind.name
            elif symbol.name == "survives":
                at, by, counter = symbol.arguments
                because[(_text(at), _text(by))] = _text(counter)
        failures = [
            asdict(Record(at, by, kind, because.get((at, by))))
            for (at, by), kind in sorted(kinds.items())
        ]
        (claim,) = candidate.theory.queries
        return {"claim": str(claim), "status": status, "failures": failures}

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        survival = curriculum(candidate.params["level"]).height > 0
        claim = target["claim"]
        lines = [
            theory_block(candidate.theory, ordering),
            f"The claim {claim} is not justified: no argument for it is in the grounded"
            " extension. State its status: overruled when every argument for it is defeated by"
            " an argument of the grounded extension, undecided otherwise.",
            "Then identify every point at which its support fails: every attack that succeeds"
            f" as a defeat on an argument for {claim}, or on one of the sub-arguments it is built"
            " from, made by an argument that is not itself defeated by an argument of the"
            " grounded extension. List each failure point once, even when it defeats several"
            f" arguments for {claim}.",
            "For defeated_at, write the attacked ordinary premise for an undermine, the name of"
            " the attacked defeasible rule for an undercut, and the attacked conclusion for a"
            " rebut.\nFor defeater, write the attacking literal when the attacker is a premise"
            " or axiom, and otherwise the name of the rule whose conclusion performs the attack"
            " (the attacking argument's last rule, strict or defeasible).",
        ]
        record = "defeated_at: <target>; defeater: <defeater>; kind: undermine|undercut|rebut"
        if survival:
            lines.append(
                "Append '; survives_because: <name>' to a failure point only when its defeater"
                " is itself attacked but that attack is defeated: some argument defeats the"
                " defeater and is in turn defeated by an argument of the grounded extension."
                " <name> names that counter-attacking argument the way a defeater is named (its"
                " last rule, or its literal if it is a premise or axiom). For example, if rule d"
                " defeats the target, rule a defeats d, and a is itself defeated, write"
                " 'survives_because: a'."
            )
            record += "[; survives_because: <name>]"
        lines.append(
            answer_request(
                "the first line is 'status: overruled' or 'status: undecided'; then one line"
                f" per failure point, written as '{record}'."
            )
        )
        return "\n\n".join(lines)

    def reference(self, target: Any) -> str:
        lines = [f"status: {target['status']}"]
        for record in target["failures"]:
            line = (
                f"defeated_at: {record['defeated_at']}; defeater: {record['defeater']};"
                f" kind: {record['kind']}"
            )
            if record["survives_because"]:
                line += f"; survives_because: {record['survives_because']}"
            lines.append(line)
        return "\n".join(lines)

    def score_answer(self, instance: Instance, answer: str) -> Score:
        try:
            found = read_diagnosis(answer)
        except UnreadableAnswer as error:
            return Score(0.0, False, f"unreadable answer: {error}")
        return diagnosis_score(instance.target, found)
