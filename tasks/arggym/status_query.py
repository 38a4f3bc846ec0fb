"""status_query: the grounded status of each queried claim.

A theory is assembled from small groups whose claims' statuses are derived by hand under each
of the four orderings (the plan): steady groups, whose claims keep one status under every
ordering, and ordering-sensitive conflicts, whose claims change status with the link
principle (or, for a split conflict, with last-link's set comparison). The queried claims are
drawn from the plan so that under every ordering all three statuses occur and none labels
more than 45 % of them; the engine decides the gold answer and the task's ASP query checks
the gates again.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import Any

from argc.compiler import QueryResult
from argc.dsl.ir import ORDERINGS, Literal, Ordering, QueryHeader, Rule, Theory
from argc.tasks.answers import score_map
from argc.tasks.arggym.symbols import literal_of
from argc.tasks.builder import Builder
from argc.tasks.framework import Candidate, Instance, Score, Task, register
from argc.tasks.prompts import answer_request, claim_list, theory_block

STATUSES = ("justified", "overruled", "undecided")
#: A claim's grounded status under each ordering of ORDERINGS (last-link elitist, last-link
#: democratic, weakest-link elitist, weakest-link democratic).
Vector = tuple[str, ...]
#: Most queried claims one status may label, as a share of the queried claims.
MAX_SHARE = 0.45


def vector(code: str) -> Vector:
    """A vector written with initials, one per ordering: "JJUU" is justified under
    last-link and undecided under weakest-link."""
    return tuple(next(s for s in STATUSES if s[0] == letter.lower()) for letter in code)


def steady(initial: str) -> Vector:
    """The same status under every ordering."""
    return vector(initial * len(ORDERINGS))


# Curriculum ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curriculum:
    """One level's knobs: the queried claims, the steady groups, the ordering-sensitive
    conflicts and the highest counter tower."""

    queries: int  # queried claims
    supported: int  # claims whose counters are undercut (even towers)
    deadlocked: int  # claims in an unresolved rebuttal (odd towers)
    undermined: int  # chains from a premise that a preferred premise undermines
    junctions: int  # two-antecedent rules joining a justified and an undermined branch
    strict_sides: int  # strict consequences of axioms
    premise_pairs: int  # p, -p with -p preferred, and a rule from -p
    duels: tuple[int, int]  # principle duels (fewest, most): a last-link and a weakest-link win
    splits: int  # conflicts with two last defeasible rules (last_rules_conflict)
    tower: int  # counters on a claim: up to 2·tower (supported) or 2·tower + 1 (deadlocked)
    exact_duels: bool  # duels whose two claims swap statuses exactly (small query sets)


def query_count(level: int) -> int:
    """ArgGYM's queried claims per level: 3 at level 1 rising to 40 at level 15."""
    return round(3 + (level - 1) * 37 / 14)


def curriculum(level: int) -> Curriculum:
    queries = query_count(level)
    duels = 1 + level // 4
    return Curriculum(
        queries=queries,
        supported=round(queries / 10),
        deadlocked=round(queries / 6),
        undermined=max(1, round(queries / 12)),
        junctions=0 if level < 5 else round(queries / 10),
        strict_sides=1 + queries // 12,
        premise_pairs=int(level > 1) + queries // 16,
        duels=(0, 1) if level == 2 else (duels, duels),
        splits=0 if level < 3 else 1 + (level >= 8) + (level >= 12),
        tower=0 if level < 5 else min(1 + (level - 5) // 4, 3),
        exact_duels=level <= 3,
    )


# The plan -----------------------------------------------------------------------------------


class Design:
    """A builder and the plan: the grounded status of each positive claim it builds under
    every ordering, as derived by hand for its group."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.builder = Builder(rng)
        self.plan: dict[Literal, Vector] = {}
        self.duels = 0
        self.splits: list[bool] = []  # the set conflicts drawn, split or not

    def expect(self, claim: Literal, statuses: Vector) -> Literal:
        self.plan[claim] = statuses
        return claim

    def fresh(self) -> Literal:
        return self.builder.atom(False)

    def premise(self) -> Literal:
        return self.builder.base(self.fresh())

    def step(self, body: Literal | list[Literal], head: Literal | None = None) -> Rule:
        """A defeasible rule from `body` to `head` (fresh when not given)."""
        antecedents = body if isinstance(body, list) else [body]
        return self.builder.rule(antecedents, head if head is not None else self.fresh())

    def chain(self, start: Literal, length: int, statuses: Vector) -> None:
        """`length` defeasible rules from `start`, each concluding a fresh claim whose only
        argument extends the previous one, so each has the statuses of `start`."""
        current = start
        for _ in range(length):
            current = self.expect(self.step(current).head, statuses)

    def tower(self, target: Literal, height: int) -> None:
        """`height` counters: the first rebuts `target`, each next one undercuts the one
        below; each rests on a fresh premise (justified). The top counter stands, so the
        first is defeated when the height is even and stands when it is odd."""
        victim = target
        for _ in range(height):
            counter = self.step(self.expect(self.premise(), steady("J")), victim.complement)
            victim = Literal(counter.name)

    # Steady groups: every claim keeps its status under every ordering -------------------

    def supported(self, height: int) -> None:
        """p => m, with an even tower of counters on m: m's rebutter is undercut, m is
        justified."""
        claim = self.step(self.expect(self.premise(), steady("J"))).head
        self.expect(claim, steady("J"))
        self.tower(claim, height)
        self.chain(claim, self.rng.randint(0, 1), steady("J"))

    def deadlocked(self, height: int) -> None:
        """p => s => m, with an odd tower on s: s and its unpreferred rebutter defeat each
        other, so s and m, which rests on it, are undecided."""
        stem = self.step(self.expect(self.premise(), steady("J"))).head
        self.expect(stem, steady("U"))
        self.tower(stem, height)
        self.chain(stem, 1, steady("U"))

    def undermined(self) -> None:
        """Premises r and -r with -r preferred, and r => s => t: -r undermines r, which
        cannot strike back (both are premise arguments, compared on premises alone under
        every ordering), so r, s and t are overruled."""
        root = self.premise()
        self.builder.base(root.complement)
        self.builder.prefer_premises(root.complement, root)
        self.chain(self.expect(root, steady("O")), 2, steady("O"))

    def premise_pair(self, height: int) -> None:
        """Premises c and -c with -c preferred, and -c => d with an even tower on d: c is
        overruled, d justified."""
        root = self.premise()
        self.builder.base(root.complement)
        self.builder.prefer_premises(root.complement, root)
        self.expect(root, steady("O"))
        claim = self.expect(self.step(root.complement).head, steady("J"))
        self.tower(claim, height)

    def junction(self) -> None:
        """b1 => l1 and b2 => l2 joined by l1, l2 => j, with b2 undermined by a preferred -b2:
        l1 is justified; b2, l2 and j are overruled."""
        first = self.step(self.expect(self.premise(), steady("J"))).head
        weak = self.premise()
        self.builder.base(weak.complement)
        self.builder.prefer_premises(weak.complement, weak)
        second = self.step(self.expect(weak, steady("O"))).head
        self.expect(first, steady("J"))
        self.expect(second, steady("O"))
        self.expect(self.step([first, second]).head, steady("O"))

    def strict_side(self, height: int) -> None:
        """An axiom a and a -> b, with a tower on b: b's argument is strict and firm, so
        every rebutter of b is defeated and b is justified whatever the height."""
        axiom = self.builder.base(self.fresh(), axiom_share=1.0)
        claim = self.builder.rule([self.expect(axiom, steady("J"))], self.fresh(), strict=True)
        self.expect(claim.head, steady("J"))
        self.tower(claim.head, height)

    # Ordering-sensitive conflicts --------------------------------------------------------

    def counter_premise(self, wins: bool) -> None:
        """An ordinary premise against a defeasible rule from an unranked premise concluding
        its negation. Last-link finds the rule argument weaker (a non-empty set of last
        rules against none), so the premise wins; weakest-link also needs its premises to
        be weaker, which they are not: both undecided. The queried claim x is the premise
        (`wins`) or the rule's conclusion, with a consequence x => k."""
        claim = self.fresh()
        base = claim if wins else claim.complement
        self.builder.base(base)
        self.step(self.expect(self.premise(), steady("J")), base.complement)
        statuses = vector("JJUU" if wins else "OOUU")
        self.chain(self.expect(claim, statuses), 1, statuses)

    def link_win(self, rule_below: bool) -> None:
        """The builder's principle_conflict: last-link justifies x; weakest-link leaves it
        undecided, or (with an earlier rule below the rival's, elitist) overrules it."""
        claim = self.builder.principle_conflict(rule_below)
        self.expect(claim, vector("JJOU" if rule_below else "JJUU"))

    def earlier_steps(self, wins: bool, both: bool) -> None:
        """a1 => m => x (rules r1, r2) against a2 => -x (rule s), or against a2 => n => -x
        (rules s1, s2) with `both`; the rival's premise is below x's (or both are axioms).
        The rival's last rule is not ranked against r2, so last-link leaves x undecided.
        Weakest-link weighs every rule: with `both`, s1 < r1, s1 < r2 and s2 < r1 make the
        rival's rules weaker under both set comparisons and x wins; with s < r1 alone, only
        democratic finds {s} below {r1, r2} (elitist needs s below r2 as well). The queried
        claim is x (`wins`) or the atom of the rival's conclusion (it loses instead)."""
        claim = self.fresh()
        firm = self.rng.random() < 0.5
        roots = [self.builder.base(self.fresh(), axiom_share=float(firm)) for _ in range(2)]
        if not firm:
            self.builder.prefer_premises(*roots)
        goal, rival = (claim, claim.complement) if wins else (claim.complement, claim)
        first = self.step(roots[0])
        last = self.step(first.head, goal)
        if both:
            middle = self.step(roots[1])
            self.prefer_below([first, last], middle)
            self.prefer_below([first], self.step(middle.head, rival))
            self.expect(middle.head, steady("J"))
        else:
            self.prefer_below([first], self.step(roots[1], rival))
        for literal in (*roots, first.head):
            self.expect(literal, steady("J"))
        decided = "J" if wins else "O"
        self.expect(claim, vector("UU" + (decided if both else "U") + decided))

    def prefer_below(self, stronger: list[Rule], weaker: Rule) -> None:
        for rule in stronger:
            self.builder.prefer_rules(rule, weaker)

    def duel(self, exact: bool) -> None:
        """A claim that last-link decides and weakest-link leaves undecided, and one the other
        way round, both won (justified) or both lost (overruled): exact duels swap their
        statuses, so each ordering sees the same count of each status."""
        self.duels += 1
        wins = self.rng.random() < 0.5
        if wins and self.rng.random() < 0.5:
            self.link_win(rule_below=not exact and self.rng.random() < 0.5)
        else:
            self.counter_premise(wins)
        self.earlier_steps(wins, both=exact or self.rng.random() < 0.5)

    def set_conflict(self, split: bool) -> None:
        """The builder's last_rules_conflict: t and the part p its side strikes back at.
        Last-link elitist justifies t and overrules p; democratic does the same unless the
        conflict is split, when both are undecided; weakest-link leaves both undecided."""
        thesis = self.builder.last_rules_conflict(split)
        self.splits.append(split)
        (back,) = (
            rule.head.complement
            for rule in self.builder.rules
            if rule.strict and thesis in rule.body
        )
        self.expect(thesis, vector("JUUU" if split else "JJUU"))
        self.expect(back, vector("OUUU" if split else "OOUU"))

    def theory(self, queries: list[Literal]) -> Theory:
        """The directives in random order, with the query header."""
        directives = list(self.builder.directives)
        self.rng.shuffle(directives)
        return Theory.from_directives([QueryHeader(tuple(queries)), *directives])


def design(rng: random.Random, knobs: Curriculum) -> Design:
    """The groups of a level, built in random order."""
    made = Design(rng)

    def even() -> int:
        return 2 * rng.randint(0, knobs.tower)

    groups: list[tuple[int, Callable[[], None]]] = [
        (knobs.supported, lambda: made.supported(even())),
        (knobs.deadlocked, lambda: made.deadlocked(even() + 1)),
        (knobs.undermined, made.undermined),
        (knobs.junctions, made.junction),
        (knobs.strict_sides, lambda: made.strict_side(rng.randint(0, 2 * knobs.tower))),
        (knobs.premise_pairs, lambda: made.premise_pair(even())),
        (rng.randint(*knobs.duels), lambda: made.duel(knobs.exact_duels)),
        (knobs.splits, lambda: made.set_conflict(rng.random() < 0.5)),
    ]
    builds = [build for count, build in groups for _ in range(count)]
    rng.shuffle(builds)
    for build in builds:
        build()
    return made


# Choosing the queried claims ----------------------------------------------------------------


def counts(vectors: list[Vector]) -> list[dict[str, int]]:
    """Per ordering, how many of the claims hold each status."""
    return [{s: sum(v[i] == s for v in vectors) for s in STATUSES} for i in range(len(ORDERINGS))]


def completions(vectors: list[Vector], total: int, pools: dict[str, int]) -> list[dict[str, int]]:
    """The numbers of steady claims of each status (at most `pools` of each) that complete
    the claims of `vectors` to `total` queried claims with, under every ordering, all three
    statuses present and none above its share."""
    cap = int(MAX_SHARE * total)
    found = counts(vectors)
    room = total - len(vectors)
    options = []
    for justified, overruled in product(range(room + 1), repeat=2):
        extra = dict(
            zip(STATUSES, (justified, overruled, room - justified - overruled), strict=True)
        )
        if min(extra.values()) < 0 or any(extra[s] > pools[s] for s in STATUSES):
            continue
        if all(1 <= c[s] + extra[s] <= cap for c in found for s in STATUSES):
            options.append(extra)
    return options


def imbalance(vectors: list[Vector], extra: dict[str, int]) -> int:
    """The largest gap between two statuses' counts, over the orderings."""
    return max(
        max(c[s] + extra[s] for s in STATUSES) - min(c[s] + extra[s] for s in STATUSES)
        for c in counts(vectors)
    )


def follows_principle(statuses: Vector) -> bool:
    """Whether the status changes with the link principle under both set comparisons."""
    half = len(ORDERINGS) // 2
    return all(statuses[i] != statuses[i + half] for i in range(half))


def choose(rng: random.Random, plan: dict[Literal, Vector], total: int) -> list[Literal]:
    """Queried claims from the plan: as many ordering-sensitive claims as can be completed
    with steady ones (each alone, or with a partner that offsets it; those that follow the
    link principle under both set comparisons first), then steady claims in the most
    balanced completion. Empty when no completion exists."""
    pools = {s: sorted((c for c, v in plan.items() if set(v) == {s}), key=str) for s in STATUSES}
    sizes = {s: len(pool) for s, pool in pools.items()}
    waiting = sorted((c for c, v in plan.items() if len(set(v)) > 1), key=str)
    rng.shuffle(waiting)
    waiting.sort(key=lambda claim: not follows_principle(plan[claim]))
    chosen: list[Literal] = []
    while waiting:
        claim = waiting.pop(0)
        for partner in [[], *([other] for other in waiting)]:
            trial = [*chosen, claim, *partner]
            if len(trial) <= total and completions([plan[c] for c in trial], total, sizes):
                chosen = trial
                waiting = [c for c in waiting if c not in partner]
                break
    vectors = [plan[c] for c in chosen]
    options = completions(vectors, total, sizes)
    if not options:
        return []
    least = min(imbalance(vectors, extra) for extra in options)
    extra = rng.choice([extra for extra in options if imbalance(vectors, extra) == least])
    for status in STATUSES:
        chosen += rng.sample(pools[status], extra[status])
    rng.shuffle(chosen)
    return chosen


@register
class StatusQuery(Task):
    name = "status_query"
    reads_only = True
    labels = STATUSES

    def parameters(self, level: int) -> dict[str, Any]:
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in vars(curriculum(level)).items()
        }

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        knobs = curriculum(level)
        made = design(rng, knobs)
        queried = choose(rng, made.plan, knobs.queries)
        sensitive = [str(claim) for claim in queried if len(set(made.plan[claim])) > 1]
        params = {"duels": made.duels, "splits": made.splits, "sensitive": sensitive}
        return Candidate(made.theory(queried), params)

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        statuses = {
            str(literal_of(symbol.arguments[0])): symbol.arguments[1].name
            for symbol in result.shown
        }
        return {str(claim): statuses[str(claim)] for claim in candidate.theory.queries}

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering),
                "State the status of each of the following claims: "
                f"{claim_list(candidate.theory.queries)}.",
                "Possible statuses: justified, overruled, undecided. A claim is justified when"
                " some argument for it is in the grounded extension, overruled when every"
                " argument for it is defeated by the grounded extension (or it has no argument),"
                " and undecided otherwise.",
                answer_request("one line per claim, written as 'claim: status'."),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(f"{claim}: {status}" for claim, status in target.items())

    def score_answer(self, instance: Instance, answer: str) -> Score:
        gold = {Literal.parse(claim): status for claim, status in instance.target.items()}
        return Score(*score_map(answer, "status_map", gold, "all statuses correct"))
