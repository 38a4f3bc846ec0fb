"""fewest_additions against brute force: on random small theories with random candidate
spaces and reachable goals, under every ordering, the optimiser's minimum equals the smallest
subset of the candidates that reaches the goals with the theory consistent (subsets that do
not make a valid theory are skipped), its witness succeeds, and None means no subset does."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations

import pytest
from random_theories import random_theory

from argc.compiler import LimitExceeded, Solution, solve, solve_many
from argc.compiler.intervention import fewest_additions
from argc.compiler.solution import STATUSES
from argc.dsl.errors import ArgcError
from argc.dsl.ir import (
    ORDERINGS,
    Directive,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)
from argc.dsl.parser import parse_intervention, parse_theory

#: The random theories (`random_theory(seed)`, at most a few dozen arguments) per ordering.
SEEDS = range(40)

Goals = Mapping[Literal, str]


def reaching(
    theory: Theory, subsets: Sequence[Sequence[Directive]], goals: Goals, ordering: Ordering
) -> list[bool]:
    """For each subset, whether adding it makes a valid theory that is consistent and meets
    every goal (the valid ones solved together in batches)."""
    extended: list[Theory | None] = []
    for chosen in subsets:
        try:
            extended.append(theory.apply(chosen))
        except ArgcError:
            extended.append(None)
    solved = iter(solve_many([t for t in extended if t is not None], ordering=ordering))
    found = []
    for candidate in extended:
        solution = None if candidate is None else next(solved)
        if isinstance(solution, LimitExceeded):
            raise solution
        found.append(solution is not None and solution.consistent and meets(solution, goals))
    return found


def meets(solution: Solution, goals: Goals) -> bool:
    return all(solution.status(goal) == status for goal, status in goals.items())


def reaches(theory: Theory, chosen: Sequence[Directive], goals: Goals, ordering: Ordering) -> bool:
    """Whether adding `chosen` makes a valid theory that is consistent and meets every goal."""
    return reaching(theory, [chosen], goals, ordering)[0]


def brute_minimum(
    theory: Theory, candidates: Sequence[Directive], goals: Goals, ordering: Ordering, most: int
) -> int | None:
    """The fewest candidates (at most `most`) that reach the goals, by trying every subset."""
    for size in range(most + 1):
        if any(reaching(theory, list(combinations(candidates, size)), goals, ordering)):
            return size
    return None


def random_candidates(theory: Theory, rng: random.Random) -> list[Directive]:
    """4 to 9 directives: new defeasible and strict rules over the theory's literals,
    undercutters of its defeasible rules, negations of its ordinary premises, and rule and
    premise preferences (some naming candidate rules and premises), shuffled."""
    literals = sorted(theory.literals(), key=str)
    taken = {rule.name for rule in theory.rules} | {literal.atom for literal in literals}
    rules = [rule.name for rule in theory.defeasible_rules]
    premises = list(theory.premises)
    found: dict[Directive, None] = {}
    size = rng.randint(4, 9)
    counter = 0

    def fresh() -> str:
        nonlocal counter
        counter += 1
        while f"c{counter}" in taken:
            counter += 1
        return f"c{counter}"

    while len(found) < size:
        kind = rng.choice(("defeasible", "defeasible", "strict", "undercut", "negate", "prefer"))
        made: Directive | None = None
        if kind in ("defeasible", "strict"):
            body = tuple(rng.sample(literals, rng.randint(1, min(2, len(literals)))))
            head = rng.choice(literals)
            head = head.complement if rng.random() < 0.5 else head
            if head not in body:
                made = Rule(fresh(), body, head, strict=kind == "strict")
                if kind == "defeasible":
                    rules.append(made.name)
        elif kind == "undercut" and theory.defeasible_rules:
            target = rng.choice(theory.defeasible_rules).name
            made = Rule(fresh(), (rng.choice(literals),), Literal(target, True))
            rules.append(made.name)
        elif kind == "negate" and theory.premises:
            negation = rng.choice(theory.premises).complement
            if negation not in theory.axioms and negation not in premises:
                made = Premise(negation)
                premises.append(negation)
        elif kind == "prefer" and len(rules) > 1 and rng.random() < 0.5:
            made = RulePreference(*rng.sample(rules, 2))
        elif kind == "prefer" and len(premises) > 1:
            made = PremisePreference(*rng.sample(premises, 2))
        if made is not None:
            found[made] = None
    listing = list(found)
    rng.shuffle(listing)
    return listing


def random_goals(
    theory: Theory, candidates: Sequence[Directive], ordering: Ordering, rng: random.Random
) -> dict[Literal, str]:
    """One or two claims of the theory, with the statuses that a random subset of the
    candidates (one that leaves the theory consistent and changes some claim) gives them,
    changed claims first; arbitrary statuses (often unreachable) when no such subset is drawn."""
    claims = list(theory.claims())
    count = rng.randint(1, 2)
    before = solve(theory, ordering=ordering)
    for _ in range(8):
        try:
            extended = theory.apply([d for d in candidates if rng.random() < 0.7])
        except ArgcError:
            continue
        after = solve(extended, ordering=ordering)
        changed = [c for c in claims if after.status(c) != before.status(c)]
        if after.consistent and changed:
            picked = rng.sample(changed, min(count, len(changed)))
            picked += rng.sample([c for c in claims if c not in picked], count - len(picked))
            return {claim: after.status(claim) for claim in picked}
    return {claim: rng.choice(STATUSES) for claim in rng.sample(claims, count)}


def check_against_brute_force(
    theory: Theory, candidates: Sequence[Directive], goals: Goals, ordering: Ordering
) -> int | None:
    """Assert the optimiser agrees with brute force and return the minimum. Subsets are tried
    up to the optimiser's size: the smallest that works is then the true minimum whenever the
    optimiser's is not below it, and None when the optimiser's size is not reachable."""
    found = fewest_additions(theory, candidates, goals, ordering=ordering)
    most = len(candidates) if found is None else found.size
    assert brute_minimum(theory, candidates, goals, ordering, most) == (
        None if found is None else found.size
    )
    if found is None:
        return None
    witness = list(found.witness)
    assert len(witness) == found.size
    assert witness == [d for d in candidates if d in witness]  # distinct, in candidate order
    assert reaches(theory, witness, goals, ordering)
    return found.size


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_minimum_equals_brute_force(ordering: Ordering) -> None:
    """Random theories, candidate spaces and goals: the optimiser agrees with brute force."""
    outcomes: Counter[str] = Counter()
    for seed in SEEDS:
        theory = random_theory(seed)
        rng = random.Random(f"{seed}/{ordering}")
        candidates = random_candidates(theory, rng)
        goals = random_goals(theory, candidates, ordering, rng)
        context = f"seed {seed}: {[str(d) for d in candidates]} goals {goals}"
        try:
            size = check_against_brute_force(theory, candidates, goals, ordering)
        except AssertionError as error:
            raise AssertionError(context) from error
        outcomes["none" if size is None else str(min(size, 2))] += 1
    # Not vacuous: unreachable goals, goals reached by one directive and by several.
    assert outcomes["none"] >= 3 and outcomes["1"] >= 10 and outcomes["2"] >= 3, outcomes


THEORY = parse_theory(
    "[axiom: e]\n[premise: a]\n[premise: q]\n[defeasible r1: a => b]\n[defeasible r2: q => s]\n"
)
B = Literal("b")


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_one_undercut_from_an_axiom(ordering: Ordering) -> None:
    """b's only support is r1 from a premise: undercutting r1 from an axiom takes one
    directive; rebutting b or undermining a needs a preference as well."""
    candidates = parse_intervention(
        "[premise: -a]\n[prefer_premise: -a > a]\n[defeasible c1: e => -b]\n"
        "[prefer_rule: c1 > r1]\n[defeasible u1: e => -r1]\n"
    )
    found = fewest_additions(THEORY, candidates, {B: "overruled"}, ordering=ordering)
    assert found is not None and found.witness == (candidates[4],)
    assert check_against_brute_force(THEORY, candidates, {B: "overruled"}, ordering) == 1


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_preference_requires_the_candidate_it_names(ordering: Ordering) -> None:
    """Without the undercutter, the rebuttal needs its preference, which names the candidate
    rule (listed after it): two directives, the preference never alone."""
    candidates = parse_intervention("[prefer_rule: c1 > r1]\n[defeasible c1: e => -b]\n")
    found = fewest_additions(THEORY, candidates, {B: "overruled"}, ordering=ordering)
    assert found is not None and found.witness == tuple(candidates)
    assert fewest_additions(THEORY, candidates[:1], {B: "overruled"}, ordering=ordering) is None
    # A symmetric rebuttal leaves b undecided: one directive.
    found = fewest_additions(THEORY, candidates, {B: "undecided"}, ordering=ordering)
    assert found is not None and found.witness == (candidates[1],)


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_preferences_chain_only_through_a_chosen_rule(ordering: Ordering) -> None:
    """r2 > c1 > r1 orders r2 over r1 only when the candidate rule c1 is added too."""
    theory = parse_theory(
        "[axiom: e]\n[axiom: f]\n[defeasible r1: e => b]\n[defeasible r3: f => -b]\n"
    )
    candidates = parse_intervention(
        "[prefer_rule: r3 > c1]\n[prefer_rule: c1 > r1]\n[defeasible c1: e => z]\n"
    )
    goals = {B: "overruled"}
    assert solve(theory, ordering=ordering).status(B) == "undecided"
    assert check_against_brute_force(theory, candidates, goals, ordering) == 3


def test_goals_already_met_need_nothing() -> None:
    candidates = parse_intervention("[defeasible u1: e => -r1]\n[premise: -q]\n")
    found = fewest_additions(THEORY, candidates, {B: "justified"}, ordering=Ordering())
    assert found is not None and (found.size, found.witness) == (0, ())


def test_an_inconsistent_way_to_the_goal_does_not_count() -> None:
    """x is reached only with -x also justified (strict rules from an axiom): no minimum."""
    theory = parse_theory("[axiom: e]\n[strict s0: e -> -x]\n")
    candidates = parse_intervention("[strict s1: e -> x]\n")
    x = Literal("x")
    extended = solve(theory.apply(candidates), ordering=Ordering())
    assert extended.status(x) == "justified" and not extended.consistent
    assert fewest_additions(theory, candidates, {x: "justified"}, ordering=Ordering()) is None


def test_two_goals_are_met_together() -> None:
    """b overruled and s overruled need one cut each; b undecided with s justified needs only
    the symmetric rebuttal of b."""
    candidates = parse_intervention(
        "[defeasible u1: e => -r1]\n[defeasible u2: e => -r2]\n[defeasible c1: e => -b]\n"
    )
    s = Literal("s")
    found = fewest_additions(
        THEORY, candidates, {B: "overruled", s: "overruled"}, ordering=Ordering()
    )
    assert found is not None and found.witness == tuple(candidates[:2])
    found = fewest_additions(
        THEORY, candidates, {B: "undecided", s: "justified"}, ordering=Ordering()
    )
    assert found is not None and found.witness == (candidates[2],)
    with pytest.raises(ValueError, match="unknown status"):
        fewest_additions(THEORY, candidates, {B: "defeated"}, ordering=Ordering())


def test_goal_on_a_literal_the_theory_does_not_name() -> None:
    x = Literal("x")
    assert solve(THEORY, ordering=Ordering()).status(x) == "overruled"
    candidates = parse_intervention("[defeasible c1: e => x]\n")
    assert check_against_brute_force(THEORY, candidates, {x: "overruled"}, Ordering()) == 0


def test_preference_over_a_premise_the_theory_already_has() -> None:
    theory = THEORY.apply(parse_intervention("[premise: -a]\n"))
    candidates = parse_intervention("[premise: -a]\n[prefer_premise: -a > a]\n")
    assert check_against_brute_force(theory, candidates, {B: "overruled"}, Ordering()) == 1


@pytest.mark.parametrize(
    "text",
    ["[defeasible r1: e => -b]\n", "[premise: e]\n"],
    ids=["rule name taken", "premise that is an axiom"],
)
def test_a_candidate_the_theory_cannot_take_is_refused(text: str) -> None:
    with pytest.raises(ArgcError):
        fewest_additions(THEORY, parse_intervention(text), {B: "undecided"}, ordering=Ordering())
