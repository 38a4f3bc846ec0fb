"""semantics_query: the status of queried claims under grounded, eager, stable, credulous
preferred and sceptical preferred semantics, including theories with no stable extension
(ArgGYM A.3; keys are claim–semantics pairs, scored as key–status maps, Appendix B).

The statuses under each semantics are the released task's (docs/tasks/semantics_query.md).
The grounded statuses, and every status the grounded labelling already settles, come from the
ASP query (`semantics_query.lp`) over the grounded model; the others need the other semantics'
extensions: `target` solves the theory under eager, stable and preferred semantics
(`argc.compiler.solve`) and applies the gates that need those extensions.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from argc.compiler import LimitExceeded, MachineLimitExceeded, QueryResult, Solution, solve
from argc.compiler.facts import literal_term
from argc.dsl.ir import Literal, Ordering, QueryHeader, Rule
from argc.tasks.answers import UnreadableAnswer, pair_f1, read_entries
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
from argc.tasks.prompts import answer_request, theory_block

GROUNDED, EAGER, STABLE = "grounded", "eager", "stable"
CREDULOUS, SCEPTICAL = "credulous preferred", "sceptical preferred"
#: The semantics a question may name, in the order a claim's questions are listed.
SEMANTICS = (GROUNDED, EAGER, STABLE, CREDULOUS, SCEPTICAL)
NO_STABLE = "no stable extension"
#: Spellings an answer may use for a semantics (read case-free, without a trailing
#: "semantics"), mapped to the one the task writes.
SPELLINGS = {"skeptical preferred": SCEPTICAL}


@dataclass(frozen=True)
class Curriculum:
    """One level's knobs: the base theory's shape, the semantic gadgets and the questions."""

    shape: Shape
    semantics: tuple[str, ...]  # the semantics a question may name
    claims: int  # queried claims
    questions: int  # claim–semantics questions (each claim and each semantics at least once)
    no_stable: bool | None  # True: no stable extension; False: one exists; None: not asked
    floating: int  # contests whose two sides both lead to one claim
    shielded_rings: int  # odd undercut rings hung from one side of a contested pair
    open_rings: int  # odd undercut rings on an unattacked premise (no stable extension)
    ring_length: int  # rules in the longest ring (3 or 5)
    hooks: int  # attacks from contested claims into the base derivations
    resolving: tuple[str, ...]  # gate: one of these settles a claim grounded leaves undecided


#: The semantics asked from each level on, as in ArgGYM's released generator: credulous
#: preferred beside grounded from level 1, eager from 4, stable from 6, sceptical preferred
#: from 9.
SCHEDULE = {
    1: (GROUNDED, CREDULOUS),
    4: (GROUNDED, EAGER, CREDULOUS),
    6: (GROUNDED, EAGER, STABLE, CREDULOUS),
    9: SEMANTICS,
}


def curriculum(level: int) -> Curriculum:
    """Small theories at every level, as ArgGYM's (about 20 directives to level 3, then about
    30 to 35): a small base theory and the gadgets that separate the semantics; as the level
    rises, more semantics, claims and questions, then more structure in the same size (longer
    derivations, defenders, hooks, longer rings). Of the levels that ask about stable
    semantics, every third (8, 11, 14) has no stable extension."""
    pool = SCHEDULE[max(start for start in SCHEDULE if start <= level)]
    no_stable = None if STABLE not in pool else level % 3 == 2
    return Curriculum(
        shape=Shape(
            goals=1,
            depth=1 + (level >= 7),
            branching=int(level >= 10),
            attackers=1 + (level >= 5),
            defenders=int(level >= 8),
            contested=int(level < 9),
            preferences=1 + (level >= 6),
            strict_share=min(0.03 * level, 0.3),
            axiom_share=0.1,
            distractors=1 + (4 <= level < 9),
        ),
        semantics=pool,
        claims=4 + (level >= 4),
        questions=min(5 + 2 * level, 12),
        no_stable=no_stable,
        floating=1,
        shielded_rings=int(level >= 4),
        open_rings=int(bool(no_stable)),
        ring_length=5 if level >= 12 else 3,
        hooks=level // 5,
        resolving=(EAGER, STABLE, SCEPTICAL) if level >= 4 else (CREDULOUS,),
    )


# Semantic gadgets ----------------------------------------------------------------------------


def contest(builder: Builder, depth: int = 0) -> tuple[Literal, Rule, Rule]:
    """A claim and its negation, each concluded by a defeasible rule with no preference
    between them (an even cycle: each side is credulously but not skeptically accepted)."""
    claim = builder.atom(False)
    rules = []
    for head in (claim, claim.complement):
        support = builder.derivation(depth) if depth else []
        body = support[-1].head if support else builder.base(builder.atom())
        rules.append(builder.rule([body], head))
    builder.salient += [claim, claim.complement]
    return claim, rules[0], rules[1]


def floating(builder: Builder, rng: random.Random) -> Literal:
    """A floating conclusion: both sides of a contest lead to the same claim, which every
    preferred extension accepts while grounded semantics leaves it undecided."""
    claim, _, _ = contest(builder, depth=rng.randint(0, 1))
    common = builder.atom()
    builder.rule([claim], common)
    builder.rule([claim.complement], common)
    builder.salient.append(common)
    if rng.random() < 0.5:  # the floating claim feeds a further step
        onward = builder.atom()
        builder.rule([common], onward)
        builder.salient.append(onward)
    return common


def ring(builder: Builder, host: Literal, length: int) -> list[Rule]:
    """`length` (odd) defeasible rules d_i: host => -d_{i+1}, round the ring (named ahead, so
    that each can name the next): each undercuts the next, so while host stands the ring is an
    odd cycle of defeats, which no stable extension can settle and no preferred extension
    enters."""
    names = [builder.name() for _ in range(length)]
    made = [
        Rule(name, (host,), Literal(names[(index + 1) % length], True))
        for index, name in enumerate(names)
    ]
    builder.rules += made
    builder.directives += made
    return made


def open_ring(builder: Builder, length: int) -> None:
    """A ring on an unattacked premise: the theory has no stable extension."""
    ring(builder, builder.base(builder.atom(False)), length)


def shielded_ring(builder: Builder, rng: random.Random, length: int) -> Literal:
    """Premises p and -p against each other, and a ring hung from a literal one side derives
    (as in ArgGYM's released generator): the extensions taking the other side defeat the
    ring's host and are stable (semi-stable, when another ring leaves none stable), the ones
    taking this side are preferred but not stable. So stable and eager semantics justify the
    other side and overrule this one, which grounded and sceptical preferred leave undecided.
    One of the two is put at stake and returned."""
    claim = builder.atom(False)
    for literal in (claim, claim.complement):
        builder.base(literal)
    side = rng.choice([claim, claim.complement])
    host = builder.rule([side], builder.atom(False)).head
    ring(builder, host, length)
    exposed = rng.choice([claim, claim.complement])
    builder.salient.append(exposed)
    return exposed


def hook(builder: Builder, contested: list[Literal], steps: list[Rule]) -> None:
    """A contested claim attacks a base derivation step (rebut or undercut)."""
    defeasible = [rule for rule in steps if not rule.strict]
    if not contested or not defeasible:
        return
    victim = builder.rng.choice(defeasible)
    source = builder.rng.choice(contested)
    rebut = builder.rng.random() < 0.5
    head = victim.head.complement if rebut else Literal(victim.name, True)
    builder.rule([source], head)
    builder.salient += [victim.head]


# Statuses ---------------------------------------------------------------------------------------

#: How the prompt defines a claim's status under each semantics (the released task's statuses).
DEFINITIONS = {
    GROUNDED: "Under grounded semantics a claim is justified when some argument for it is in the"
    " grounded extension, overruled when every argument for it is defeated by an argument of the"
    " grounded extension, and undecided otherwise.",
    EAGER: "Under eager semantics it is justified when some argument for it is in the eager"
    " extension, otherwise overruled when some argument for its contrary (the literal with the"
    " sign flipped) is, and undecided otherwise.",
    STABLE: "Under stable semantics it is justified when every stable extension contains an"
    " argument for it (possibly a different one in each), undecided when some but not all do,"
    " and overruled when none does; if the theory has no stable extension at all, the answer"
    f" is '{NO_STABLE}'.",
    CREDULOUS: "Under credulous preferred semantics it is justified when some preferred"
    " extension contains an argument for it, and overruled otherwise.",
    SCEPTICAL: "Under sceptical preferred semantics it is justified when every preferred"
    " extension contains an argument for it (possibly a different one in each), undecided when"
    " some but not all do, and overruled when none does.",
}


def status(semantics: str, claim: Literal, solutions: dict[str, Solution]) -> str:
    """A claim's status under a semantics, from the solved extensions (keys: grounded, eager,
    stable, preferred)."""
    if semantics == GROUNDED:
        return solutions[GROUNDED].status(claim)
    if semantics == EAGER:  # one extension: its claims are the credulously accepted ones
        claims = solutions[EAGER].credulous
        if claim in claims:
            return "justified"
        return "overruled" if claim.complement in claims else "undecided"
    family = solutions[STABLE if semantics == STABLE else "preferred"]
    if not family.exists:  # only stable semantics can have no extension
        return NO_STABLE
    acceptance = family.acceptance(claim)
    if semantics == CREDULOUS:
        return "justified" if acceptance.credulous else "overruled"
    if acceptance.skeptical:
        return "justified"
    return "undecided" if acceptance.credulous else "overruled"


def _canonical(key: tuple[Literal, str]) -> tuple[Literal, str]:
    claim, semantics = key
    semantics = semantics.removesuffix(" semantics")
    return claim, SPELLINGS.get(semantics, semantics)


def _questions(
    rng: random.Random, queried: list[Literal], plan: Curriculum, first: tuple[Literal, str]
) -> list[list[str]]:
    """The level's number of claim–semantics questions (at most every pair, and one stable
    question where there is no stable extension): `first`, each claim and each semantics at
    least once, the rest at random; listed claim by claim, semantics in the order of
    SEMANTICS."""
    pairs = [(claim, semantics) for claim in queried for semantics in plan.semantics]
    rng.shuffle(pairs)
    if plan.no_stable:  # every stable question would have the same answer: ask one
        stable = [pair for pair in pairs if pair[1] == STABLE]
        pairs = [pair for pair in pairs if pair[1] != STABLE or pair == stable[0]]
    chosen = [first] + [
        next(pair for pair in pairs if pair[0] == claim) for claim in queried if claim != first[0]
    ]
    for semantics in plan.semantics:
        if all(pair[1] != semantics for pair in chosen):
            chosen.append(next(pair for pair in pairs if pair[1] == semantics))
    chosen += [pair for pair in pairs if pair not in chosen][: max(0, plan.questions - len(chosen))]
    return _listed(chosen, queried)


def _listed(pairs: Iterable[Sequence[Any]], queried: list[Literal]) -> list[list[str]]:
    """Questions claim by claim (in the order queried), semantics in the order of SEMANTICS."""
    position = {str(claim): index for index, claim in enumerate(queried)}
    return sorted(
        ([str(claim), semantics] for claim, semantics in pairs),
        key=lambda ask: (position[ask[0]], SEMANTICS.index(ask[1])),
    )


def _theory(rng: random.Random, plan: Curriculum) -> tuple[Builder, dict[Literal, tuple[str, ...]]]:
    """A base theory of the level's shape with the level's semantic gadgets; returns the
    builder and, for each gadget's claim, the semantics that settle it where grounded
    semantics leaves it undecided."""
    builder, derivations = build(rng, plan.shape)
    steps = [rule for derivation in derivations for rule in derivation]
    contested = list(builder.salient)
    settling: dict[Literal, tuple[str, ...]] = {}
    for _ in range(plan.floating):
        settling[floating(builder, rng)] = (CREDULOUS, STABLE, SCEPTICAL)
    for _ in range(plan.open_rings):
        open_ring(builder, plan.ring_length)
    for _ in range(plan.shielded_rings):
        exposed = shielded_ring(builder, rng, rng.choice((3, plan.ring_length)))
        settling[exposed] = (CREDULOUS, EAGER, STABLE)
    for _ in range(plan.hooks):
        extra = [rule.head for rule in builder.rules if not rule.strict]
        hook(builder, sorted(set(contested + extra[-6:]), key=str), steps)
    return builder, settling


def _claims(rng: random.Random, builder: Builder, wanted: int, first: Literal) -> list[Literal]:
    """`first`, other claims the conflicts and gadgets put at stake, and one other premise or
    conclusion (never a rule's undercut)."""
    theory = builder.theory()
    salient = sorted(set(builder.salient), key=str)
    names = {rule.name for rule in theory.rules}
    stated = {*theory.premises, *theory.axioms, *(rule.head for rule in theory.rules)}
    others = sorted(
        (literal for literal in stated - set(salient) if literal.atom not in names), key=str
    )
    salient.remove(first)
    queried = [first, *rng.sample(salient, min(wanted - 2, len(salient)))]
    queried += rng.sample(others, min(wanted - len(queried), len(others)))
    rng.shuffle(queried)
    return queried


@register
class SemanticsQuery(Task):
    name = "semantics_query"
    reads_only = True

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, settling = _theory(rng, plan)
        # One gadget claim is asked under a semantics that should settle it (the gates check
        # that some question does).
        first = rng.choice(
            [
                (claim, semantics)
                for claim, settled_by in settling.items()
                for semantics in settled_by
                if semantics in plan.resolving
                and semantics in plan.semantics
                and not (semantics == STABLE and plan.no_stable)
            ]
        )
        queried = _claims(rng, builder, plan.claims, first[0])
        asks = _questions(rng, queried, plan, first)
        return Candidate(
            builder.theory([QueryHeader(tuple(queried))]),
            {"asks": asks, "level": level},
        )

    def gate_program(self, candidate: Candidate) -> str:
        facts = "".join(
            f'ask({literal_term(Literal.parse(claim))}, "{semantics}").\n'
            for claim, semantics in candidate.params["asks"]
        )
        return facts + self.program

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        plan = curriculum(candidate.params["level"])
        settled = {
            (str(literal_of(symbol.arguments[0])), symbol.arguments[1].string): (
                symbol.arguments[2].name
            )
            for symbol in result.shown
            if symbol.name == "settled"
        }
        solutions = {GROUNDED: result.solution}
        try:
            for semantics in (EAGER, STABLE, "preferred"):
                solutions[semantics] = solve(
                    candidate.theory,
                    ordering=ordering,
                    semantics=semantics,
                    limits=GENERATION_LIMITS,
                )
        except MachineLimitExceeded:
            raise
        except LimitExceeded:
            return None
        rows = []
        for claim, semantics in candidate.params["asks"]:
            found = status(semantics, Literal.parse(claim), solutions)
            if settled.get((claim, semantics), found) != found:
                raise RuntimeError(
                    f"grounded query and {semantics} extensions disagree on {claim}: "
                    f"{settled[(claim, semantics)]} vs {found}"
                )
            rows.append([claim, semantics, found])
        return rows if self._passes(plan, rows, solutions) else None

    @staticmethod
    def _passes(plan: Curriculum, rows: list[list[str]], solutions: dict[str, Solution]) -> bool:
        """The gates that need the other semantics' extensions."""
        values = [found for _, _, found in rows]
        if len(set(values)) < 2 or max(map(values.count, values)) * 2 > len(values):
            return False
        # Semantics matter: a claim that grounded semantics leaves undecided is justified or
        # overruled under one of the level's resolving semantics.
        grounded = solutions[GROUNDED]
        if not any(
            found in ("justified", "overruled")
            and semantics in plan.resolving
            and grounded.status(Literal.parse(claim)) == "undecided"
            for claim, semantics, found in rows
        ):
            return False
        if plan.no_stable is None:
            return True
        return solutions[STABLE].exists != plan.no_stable

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        asked = [s for s in SEMANTICS if any(s == named for _, named, _ in target)]
        families = list(dict.fromkeys(s.split()[-1] for s in asked))
        setting = ", ".join(families[:-1]) + (" and " if len(families) > 1 else "") + families[-1]
        questions = "\n".join(f"  {claim} under {named}" for claim, named, _ in target)
        explain = [
            "Arguments are built from the directives, and an argument defeats another under"
            f" the {ordering.principle} {ordering.set_comparison} ordering; each semantics"
            " picks sets of arguments (extensions) from the resulting defeat graph: the"
            " grounded extension is the least complete extension; a preferred extension is a"
            " maximal admissible set; a stable extension is a conflict-free set that defeats"
            " every argument outside it; the eager extension is the largest admissible set"
            " contained in every semi-stable extension.",
            *(DEFINITIONS[s] for s in asked),
        ]
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering, setting),
                "State the status of each claim under the semantics named beside it:\n" + questions,
                "\n".join(explain),
                answer_request(
                    "one line per question, written as 'claim under semantics: status', where"
                    " the status is justified, overruled, undecided or (stable semantics only)"
                    f" {NO_STABLE}, e.g. 'ab1 under sceptical preferred: undecided'."
                ),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(f"{claim} under {named}: {found}" for claim, named, found in target)

    def score_answer(self, instance: Instance, answer: str) -> Score:
        """Appendix B: key–status pair F1 over (claim, semantics) keys; success is equality."""
        gold = {(Literal.parse(claim), sem): found for claim, sem, found in instance.target}
        try:
            entries = read_entries(answer, "acceptance_map")
        except UnreadableAnswer as error:
            return Score(0.0, False, f"unreadable answer: {error}")
        f1, exact = pair_f1([(_canonical(key), found) for key, found in entries], gold)
        return Score(f1, exact, "all statuses correct" if exact else f"pair F1 {f1:.3f}")
