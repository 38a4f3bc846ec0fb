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
from dataclasses import dataclass
from typing import Any

from argc.compiler import LimitExceeded, QueryResult, Solution, solve
from argc.compiler.facts import literal_term
from argc.dsl.ir import Literal, Ordering, QueryHeader, Rule
from argc.tasks.answers import UnreadableAnswer, pair_f1, read_entries
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
from argc.tasks.symbols import literal_of

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
    semantics_per_claim: int  # questions per queried claim
    no_stable: bool | None  # True: no stable extension; False: one exists; None: not asked
    floating: int  # contests whose two sides both lead to one claim
    broken_cycles: int  # odd undercut cycles that one side of a contest breaks
    open_cycles: int  # odd undercut cycles nothing breaks (no stable extension)
    cycle_length: int  # rules in the longest odd cycle (3 or 5)
    hooks: int  # attacks from contested claims into the base derivations
    resolving: tuple[str, ...]  # gate: one of these settles a claim grounded leaves undecided


def curriculum(level: int) -> Curriculum:
    """Richer base theories, more claims and semantics, and more semantic gadgets as the level
    rises; stable semantics from level 2, eager from level 4; every third level from 2 has no
    stable extension."""
    pool = SEMANTICS if level >= 4 else tuple(s for s in SEMANTICS if s != EAGER)
    if level == 1:
        pool = (GROUNDED, CREDULOUS, SCEPTICAL)
    no_stable = None if level == 1 else level % 3 == 2
    return Curriculum(
        shape=Shape(
            goals=1 + (level >= 9),
            depth=1 + level // 4,
            branching=level // 7,
            attackers=1 + level // 5,
            defenders=level // 6,
            contested=1 + level // 6,
            preferences=level // 3,
            strict_share=min(0.04 * level, 0.3),
            axiom_share=0.1,
            distractors=level // 3,
        ),
        semantics=pool,
        claims=3 + level // 3,
        semantics_per_claim=min(len(pool), 2 + level // 4),
        no_stable=no_stable,
        floating=(level >= 2) + (level >= 10),
        broken_cycles=int(level >= 4 and (not no_stable or level >= 11)),
        open_cycles=int(bool(no_stable)),
        cycle_length=5 if level >= 10 else 3,
        hooks=level // 4,
        resolving=(CREDULOUS, SCEPTICAL) if level == 1 else (EAGER, STABLE, SCEPTICAL),
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


def odd_cycle(builder: Builder, rng: random.Random, length: int) -> list[Rule]:
    """`length` (odd) defeasible rules r_i: p_i => c_i with undercutters c_i => -r_{i+1}:
    the undercutters defeat each other round an odd cycle. Returns the cycle rules r_i."""
    cycle = [builder.rule([builder.base(builder.atom())], builder.atom()) for _ in range(length)]
    for index, rule in enumerate(cycle):
        victim = cycle[(index + 1) % length]
        builder.rule([rule.head], Literal(victim.name, True))
    builder.salient += [rule.head for rule in cycle]
    if rng.random() < 0.5:  # a cycle claim supports a further claim
        onward = builder.atom()
        builder.rule([rng.choice(cycle).head], onward)
        builder.salient.append(onward)
    return cycle


def break_cycle(builder: Builder, cycle: list[Rule]) -> None:
    """One side of a fresh contest undercuts a cycle rule: the extensions taking that side
    are stable, the others are not, and eager semantics follows the stable side."""
    claim, _, _ = contest(builder)
    side = builder.rng.choice([claim, claim.complement])
    builder.rule([side], Literal(builder.rng.choice(cycle).name, True))


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


def _one_stable_question(
    rng: random.Random, asks: list[list[str]], queried: list[Literal]
) -> list[list[str]]:
    """Without a stable extension every stable question has the same answer: keep one."""
    stable = [ask for ask in asks if ask[1] == STABLE]
    kept = [ask for ask in asks if ask[1] != STABLE]
    kept.append(rng.choice(stable) if stable else [str(rng.choice(queried)), STABLE])
    position = {str(claim): index for index, claim in enumerate(queried)}
    return sorted(kept, key=lambda ask: (position[ask[0]], SEMANTICS.index(ask[1])))


@register
class SemanticsQuery(Task):
    name = "semantics_query"

    def parameters(self, level: int) -> dict[str, Any]:
        return knobs(curriculum(level))

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        plan = curriculum(level)
        builder, derivations = build(rng, plan.shape)
        steps = [rule for derivation in derivations for rule in derivation]
        contested = [claim for claim in builder.salient]
        for _ in range(plan.floating):
            floating(builder, rng)
        for index in range(plan.open_cycles):
            length = plan.cycle_length if index == 0 else 3
            odd_cycle(builder, rng, length)
        for _ in range(plan.broken_cycles):
            break_cycle(builder, odd_cycle(builder, rng, rng.choice((3, plan.cycle_length))))
        for _ in range(plan.hooks):
            extra = [rule.head for rule in builder.rules if not rule.strict]
            hook(builder, sorted(set(contested + extra[-6:]), key=str), steps)
        theory = builder.theory()
        salient = sorted(set(builder.salient), key=str)
        others = sorted(
            {*theory.premises, *theory.axioms, *(rule.head for rule in theory.rules)}
            - set(salient),
            key=str,
        )
        wanted = plan.claims
        queried = rng.sample(salient, min(wanted - max(1, wanted // 3), len(salient)))
        queried += rng.sample(others, min(wanted - len(queried), len(others)))
        rng.shuffle(queried)
        asks = []
        for claim in queried:
            chosen = set(rng.sample(plan.semantics, plan.semantics_per_claim))
            asks += [[str(claim), semantics] for semantics in SEMANTICS if semantics in chosen]
        if plan.no_stable:
            asks = _one_stable_question(rng, asks, queried)
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
