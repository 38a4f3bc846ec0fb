"""Differential tests against PyArg 2.0.2 on random theories over the four orderings, and a
contradictory pair checked by hand.

CI runs a reduced count; the full count is `ARGC_ORACLE_THEORIES=2000 pytest -m oracle`.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from brute_force import extensions as brute_force_extensions
from oracle import oracle
from random_theories import random_theory

from argc.compiler import LimitExceeded, Limits, solve, solve_many
from argc.dsl import Literal, parse_theory
from argc.dsl.ir import ORDERINGS, SEMANTICS, Ordering, Theory

THEORIES = int(os.environ.get("ARGC_ORACLE_THEORIES", "400"))
BLOCK = 50
#: PyArg enumerates extensions by brute search: compare them only on small frameworks.
SMALL_FRAMEWORK = 12
#: PyArg's defeat computation is quadratic in Python: theories with more arguments than this
#: (a handful of the random ones explode combinatorially) are left to the other tests.
ORACLE_MAX_ARGUMENTS = 150
PYARG_SEMANTICS = ("complete", "preferred", "stable", "semi-stable", "ideal", "eager")


def _theory(seed: int) -> Theory:
    """Mostly ArgGYM-sized theories, every fifth one twice as large."""
    return random_theory(seed, scale=2 if seed % 5 == 4 else 1)


def _context(seed: int, ordering: Ordering, theory: Theory) -> str:
    return f"seed {seed}, {ordering}:\n{theory.to_text()}"


def _solve_small(theory: Theory, ordering: Ordering):
    """argc's solution, or None when the theory is too large to hand to PyArg."""
    try:
        return solve(theory, ordering=ordering, limits=Limits(arguments=ORACLE_MAX_ARGUMENTS))
    except LimitExceeded:
        return None


@pytest.mark.oracle
@pytest.mark.parametrize("start", range(0, THEORIES, BLOCK))
def test_structure_and_grounded_agree_with_pyarg(start: int) -> None:
    """The batched path (`solve_many`, the block's theories grounded together, one ordering
    per batch) against PyArg, and against `solve` one theory at a time."""
    seeds = range(start, min(start + BLOCK, THEORIES))
    theories = [replace(_theory(seed), ordering=ORDERINGS[seed % 4]) for seed in seeds]
    limits = Limits(arguments=ORACLE_MAX_ARGUMENTS)
    batched = solve_many(theories, limits=limits)
    skipped = 0
    for seed, theory, solution in zip(seeds, theories, batched, strict=True):
        ordering = ORDERINGS[seed % 4]
        single = _solve_small(theory, ordering)
        if single is None:
            assert isinstance(solution, LimitExceeded), seed
            skipped += 1
            continue
        context = _context(seed, ordering, theory)
        for part in ("arguments", "direct_attacks", "defeats", "grounded", "statuses"):
            assert getattr(solution, part) == getattr(single, part), f"{part}, {context}"
        expected = oracle(theory, ordering)
        conclusions = {name: str(arg.conclusion) for name, arg in solution.arguments.items()}
        assert conclusions == expected.arguments, context
        assert set(solution.defeats) == expected.defeats, context
        assert solution.grounded == expected.grounded(), context
        statuses = {str(literal): status for literal, status in solution.statuses.items()}
        assert statuses == expected.statuses(list(theory.claims())), context
    assert skipped <= 2, f"{skipped} theories of block {start} exceed {ORACLE_MAX_ARGUMENTS}"


@pytest.mark.oracle
@pytest.mark.parametrize(
    "start",
    # the first two blocks in the quick run, every block with ARGC_SLOW=1
    [
        s if s < 2 * BLOCK else pytest.param(s, marks=pytest.mark.slow)
        for s in range(0, THEORIES, BLOCK)
    ],
)
def test_extensions_agree_with_pyarg_and_brute_force(start: int) -> None:
    for seed in range(start, min(start + BLOCK, THEORIES)):
        theory, ordering = _theory(seed), ORDERINGS[seed % 4]
        base = _solve_small(theory, ordering)
        if base is None or len(base.arguments) > SMALL_FRAMEWORK:
            continue
        expected = oracle(theory, ordering)
        framework = (frozenset(base.arguments), frozenset(base.defeats))
        for semantics in SEMANTICS:
            found = set(solve(theory, ordering=ordering, semantics=semantics).extensions)
            context = f"{semantics}, {_context(seed, ordering, theory)}"
            assert found == brute_force_extensions(framework, semantics), context
            if semantics in PYARG_SEMANTICS:
                assert found == expected.extensions(semantics), context


@pytest.mark.oracle
@pytest.mark.parametrize("start", range(0, THEORIES // 2, BLOCK))
def test_mp2013_reading_agrees_with_pyarg_under_that_set_comparison(start: int) -> None:
    """PyArg's argument orderings with Modgil & Prakken's 2013 set comparison mixed in."""
    for seed in range(start, min(start + BLOCK, THEORIES // 2)):
        theory = _theory(seed)
        ordering = Ordering(
            ORDERINGS[seed % 4].principle, ORDERINGS[seed % 4].set_comparison, "mp2013"
        )
        solution = _solve_small(theory, ordering)
        if solution is None:
            continue
        expected = oracle(theory, ordering)
        context = _context(seed, ordering, theory)
        assert set(solution.defeats) == expected.defeats, context
        assert solution.grounded == expected.grounded(), context


# A declared contradictory pair -------------------------------------------------------------

CONTESTED = """
[axiom: a]
[axiom: b]
[defeasible r1: a => p]
[defeasible r2: b => q]
[contradictory: p <-> q]
"""


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
@pytest.mark.parametrize("preference", ["", "[prefer_rule: r1 > r2]", "[prefer_rule: r2 > r1]"])
def test_a_contradictory_pair_is_decided_by_preferences(ordering: Ordering, preference: str):
    """By hand: r1(a) and r2(b) rebut each other on p and q (both have defeasible top rules);
    the axioms make them firm, so every ordering compares r1 with r2 alone. Without a
    preference neither is strictly weaker: both rebuts defeat, the grounded extension is the
    axioms, p and q are undecided. A preference makes the weaker rebut fail: the preferred
    conclusion is justified and the other overruled. The declaration's order does not matter,
    and PyArg (each literal listing the other as a contrary) agrees."""
    defeats = {"": {("r1(a)", "r2(b)"), ("r2(b)", "r1(a)")}}
    defeats["[prefer_rule: r1 > r2]"] = {("r1(a)", "r2(b)")}
    defeats["[prefer_rule: r2 > r1]"] = {("r2(b)", "r1(a)")}
    grounded = {"": {"a", "b"}, "[prefer_rule: r1 > r2]": {"a", "b", "r1(a)"}}
    grounded["[prefer_rule: r2 > r1]"] = {"a", "b", "r2(b)"}
    statuses = {
        "": ("undecided", "undecided"),
        "[prefer_rule: r1 > r2]": ("justified", "overruled"),
        "[prefer_rule: r2 > r1]": ("overruled", "justified"),
    }
    theory = parse_theory(CONTESTED + preference)
    reversed_pair = parse_theory(CONTESTED.replace("p <-> q", "q <-> p") + preference)
    for written in (theory, reversed_pair):
        solution = solve(written, ordering=ordering)
        assert set(solution.arguments) == {"a", "b", "r1(a)", "r2(b)"}
        assert set(solution.defeats) == defeats[preference]
        assert set(solution.grounded) == grounded[preference]
        p, q = solution.status(Literal("p")), solution.status(Literal("q"))
        assert (p, q) == statuses[preference]
        assert solution.status(Literal("p", True)) == "overruled"  # no argument for -p
        expected = oracle(written, ordering)
        assert set(solution.defeats) == expected.defeats
        assert solution.grounded == expected.grounded()
        found = {str(literal): status for literal, status in solution.statuses.items()}
        assert found == expected.statuses(list(written.claims()))
        for semantics in ("preferred", "stable"):
            extensions = set(solve(written, ordering=ordering, semantics=semantics).extensions)
            assert extensions == expected.extensions(semantics)


def test_a_contradictory_pair_is_two_contraries_declared_both_ways():
    """A one-way contrary succeeds whatever the preferences; declared both ways it is a
    contradictory pair, decided by them."""
    ordering = Ordering()
    pair = parse_theory(CONTESTED + "[prefer_rule: r2 > r1]")
    both_ways = parse_theory(
        CONTESTED.replace("[contradictory: p <-> q]", "[contrary: p ~> q] [contrary: q ~> p]")
        + "[prefer_rule: r2 > r1]"
    )
    one_way = parse_theory(
        CONTESTED.replace("[contradictory: p <-> q]", "[contrary: p ~> q]")
        + "[prefer_rule: r2 > r1]"
    )
    assert solve(pair, ordering=ordering).statuses == solve(both_ways, ordering=ordering).statuses
    assert solve(pair, ordering=ordering).status(Literal("p")) == "overruled"
    assert solve(one_way, ordering=ordering).status(Literal("p")) == "justified"
    assert solve(one_way, ordering=ordering).status(Literal("q")) == "overruled"
