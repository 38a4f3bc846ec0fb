"""semantics_query: whether queried claims are accepted under grounded, eager, stable and
preferred semantics, credulously or skeptically, including theories with no stable extension.

The grounded verdicts, and every verdict the grounded labelling already settles, come from the
ASP query (`semantics_query.lp`) over the grounded model. Verdicts for claims that grounded
semantics leaves undecided need the other semantics' extensions: `target` solves the theory
under preferred, stable and eager semantics (`argc.compiler.solve`) and applies the gates
that need those extensions (see docs/tasks/semantics_query.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from argc.compiler import LimitExceeded, QueryResult, Solution, solve
from argc.compiler.facts import literal_term
from argc.dsl.ir import Literal, Ordering, QueryHeader, Rule
from argc.tasks.answers import score_map
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

#: The acceptance modes, in the order an answer lists them for a claim.
MODES = (
    "grounded",
    "eager",
    "stable credulous",
    "stable skeptical",
    "preferred credulous",
    "preferred skeptical",
)
STABLE_MODES = ("stable credulous", "stable skeptical")
VERDICTS = ("yes", "no", "no stable extension")
NO_STABLE = "no stable extension"


@dataclass(frozen=True)
class Curriculum:
    """One level's knobs: the base theory's shape, the semantic gadgets and the questions."""

    shape: Shape
    modes: tuple[str, ...]  # the modes a question may use
    claims: int  # queried claims
    modes_per_claim: int  # questions per queried claim
    no_stable: bool | None  # True: no stable extension; False: one exists; None: no stable modes
    floating: int  # contests whose two sides both lead to one claim
    broken_cycles: int  # odd undercut cycles that one side of a contest breaks
    open_cycles: int  # odd undercut cycles nothing breaks (no stable extension)
    cycle_length: int  # rules in the longest odd cycle (3 or 5)
    hooks: int  # attacks from contested claims into the base derivations


def curriculum(level: int) -> Curriculum:
    """Richer base theories, more claims and modes, and more semantic gadgets as the level
    rises; every third level from 2 has no stable extension."""
    pool = MODES if level >= 4 else tuple(m for m in MODES if m != "eager")
    if level == 1:
        pool = ("grounded", "preferred credulous", "preferred skeptical")
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
        modes=pool,
        claims=3 + level // 3,
        modes_per_claim=min(len(pool), 2 + level // 4),
        no_stable=no_stable,
        floating=(level >= 2) + (level >= 10),
        broken_cycles=int(level >= 4 and (not no_stable or level >= 11)),
        open_cycles=int(bool(no_stable)),
        cycle_length=5 if level >= 10 else 3,
        hooks=level // 4,
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


# Verdicts --------------------------------------------------------------------------------------


def verdict(mode: str, literal: Literal, solutions: dict[str, Solution]) -> str:
    """The verdict for a claim under a mode, from the solved extensions."""
    semantics, _, reasoning = mode.partition(" ")
    solution = solutions[semantics]
    if semantics == "stable" and not solution.extensions:
        return NO_STABLE
    acceptance = solution.acceptance(literal)
    accepted = acceptance.skeptical if reasoning == "skeptical" else acceptance.credulous
    return "yes" if accepted else "no"


def key_text(claim: str, mode: str) -> str:
    return f"{claim} under {mode}"


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
            chosen = set(rng.sample(plan.modes, plan.modes_per_claim))
            asks += [[str(claim), mode] for mode in MODES if mode in chosen]
        if plan.no_stable and not any(mode in STABLE_MODES for _, mode in asks):
            claim = str(rng.choice(queried))
            asks.append([claim, rng.choice(STABLE_MODES)])
            asks.sort(key=lambda ask: (queried.index(Literal.parse(ask[0])), MODES.index(ask[1])))
        return Candidate(
            builder.theory([QueryHeader(tuple(queried))]),
            {"asks": asks, "level": level},
        )

    def gate_program(self, candidate: Candidate) -> str:
        facts = "".join(
            f'ask({literal_term(Literal.parse(claim))}, "{mode}").\n'
            for claim, mode in candidate.params["asks"]
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
        theory = candidate.theory
        solutions = {"grounded": result.solution}
        try:
            for semantics in ("preferred", "stable", "eager"):
                solutions[semantics] = solve(
                    theory, ordering=ordering, semantics=semantics, limits=GENERATION_LIMITS
                )
        except LimitExceeded:
            return None
        rows = []
        for claim, mode in candidate.params["asks"]:
            found = verdict(mode, Literal.parse(claim), solutions)
            if (claim, mode) in settled and settled[(claim, mode)] != found:
                raise RuntimeError(
                    f"grounded query and {mode} extensions disagree on {claim}: "
                    f"{settled[(claim, mode)]} vs {found}"
                )
            rows.append([claim, mode, found])
        return rows if self._passes(plan, rows, solutions) else None

    @staticmethod
    def _passes(plan: Curriculum, rows: list[list[str]], solutions: dict[str, Solution]) -> bool:
        """The gates that need the other semantics' extensions."""
        verdicts = [found for _, _, found in rows]
        if "yes" not in verdicts or "no" not in verdicts:
            return False
        if max(verdicts.count(v) for v in VERDICTS) * 4 > len(verdicts) * 3:
            return False
        # Semantics matter: some claim grounded semantics does not accept is accepted under
        # a non-grounded, non-stable mode (stable modes differ trivially without extensions).
        grounded = solutions["grounded"]
        if not any(
            found == "yes"
            and mode not in ("grounded", *STABLE_MODES)
            and grounded.status(Literal.parse(claim)) != "justified"
            for claim, mode, found in rows
        ):
            return False
        stable_exists = bool(solutions["stable"].extensions)
        if plan.no_stable is True:
            return not stable_exists and NO_STABLE in verdicts
        if plan.no_stable is False:
            return stable_exists
        return True

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        modes = {mode for _, mode, _ in target}
        named = [
            s
            for s in ("grounded", "eager", "stable", "preferred")
            if any(mode.startswith(s) for mode in modes)
        ]
        semantics = ", ".join(named[:-1]) + (" and " if len(named) > 1 else "") + named[-1]
        questions = "\n".join(f"  {key_text(claim, mode)}" for claim, mode, _ in target)
        explain = [
            "Arguments are built from the directives, and an argument defeats another under"
            f" the {ordering.principle} {ordering.set_comparison} ordering; each semantics"
            " picks sets of arguments (extensions) from the resulting defeat graph: the"
            " grounded extension is the least complete extension; a preferred extension is a"
            " maximal admissible set; a stable extension is a conflict-free set that defeats"
            " every argument outside it; the eager extension is the largest admissible set"
            " contained in every semi-stable extension.",
            "A claim is accepted under grounded (or eager) semantics when some argument for"
            " it is in the grounded (or eager) extension. It is accepted credulously under"
            " stable or preferred semantics when some extension of that semantics contains an"
            " argument for it, and skeptically when every extension does (possibly a"
            " different argument in each).",
        ]
        if any(mode in STABLE_MODES for mode in modes):
            explain.append(
                "If the theory has no stable extension at all, answer 'no stable extension'"
                " for every stable question instead of yes or no."
            )
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering, semantics),
                "Decide whether each claim is accepted under the semantics and mode given:\n"
                + questions,
                "\n".join(explain),
                answer_request(
                    "one line per question, written as 'claim under mode: verdict', where"
                    " the verdict is yes, no, or (stable modes only) no stable extension,"
                    " e.g. 'ab1 under preferred skeptical: no'."
                ),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(f"{key_text(claim, mode)}: {found}" for claim, mode, found in target)

    def score_answer(self, instance: Instance, answer: str) -> Score:
        gold = {(Literal.parse(claim), mode): found for claim, mode, found in instance.target}
        return Score(*score_map(answer, "acceptance_map", gold, "all verdicts correct"))
