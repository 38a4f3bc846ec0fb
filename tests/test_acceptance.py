"""Credulous and skeptical acceptance without enumerating every extension.

With `Limits(extensions=1)` only the first extension is listed and acceptance comes from
brave / cautious consequences, the counterexample-guided search (preferred, naive) or the
maximal ranges (semi-stable, stage); `accepted` is also called directly, so that the path is
taken even where one extension is all there is. Every answer is checked against brute-force
textbook semantics on random frameworks and against PyArg 2.0.2 on random theories.
"""

from __future__ import annotations

import pytest
from brute_force import extensions as brute_force_extensions
from oracle import SEMANTICS as PYARG_SEMANTICS
from oracle import oracle
from random_frameworks import random_framework
from random_theories import random_theory

from argc.compiler import LimitExceeded, Limits, solve
from argc.compiler.frameworks import argument_question, framework_session, solve_framework
from argc.compiler.reasoning import accepted
from argc.dsl import parse_theory
from argc.dsl.iccma import Framework, parse_apx
from argc.dsl.ir import ORDERINGS, SEMANTICS, Literal, Theory

FRAMEWORKS = 80
THEORIES = 60
#: PyArg enumerates extensions by brute search: small frameworks only.
SMALL = 10
ONE = Limits(extensions=1)


def _expected(extensions: set[frozenset]) -> tuple[frozenset, frozenset]:
    if not extensions:
        return frozenset(), frozenset()
    return frozenset().union(*extensions), frozenset.intersection(*extensions)


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_framework_acceptance_matches_brute_force(semantics: str) -> None:
    for seed in range(FRAMEWORKS):
        framework = random_framework(seed)
        pair = (frozenset(framework.arguments), frozenset(framework.attacks))
        expected = brute_force_extensions(pair, semantics)
        context = f"seed {seed}, {semantics}: {framework}"

        first = solve_framework(framework, semantics, ONE)
        assert (first.credulous, first.skeptical) == _expected(expected), context
        assert first.more_extensions == (len(expected) > 1), context
        assert first.exists == bool(expected), context
        assert set(first.extensions) <= expected and len(first.extensions) == min(
            1, len(expected)
        ), context

        session = framework_session(framework, semantics, Limits())
        numbers, question = argument_question(framework)
        verdicts = accepted(session, semantics, numbers, question)

        found = tuple(
            frozenset(framework.arguments[symbol.number - 1] for symbol in symbols)
            for symbols in (verdicts.credulous, verdicts.skeptical)
        )
        assert found == _expected(expected), context


def _claim_acceptance(theory: Theory, arguments: dict[str, str], extensions) -> dict:
    """Claim acceptance from every extension: credulous, skeptical per claim text."""
    result = {}
    for claim in theory.claims():
        supporting = {name for name, conclusion in arguments.items() if conclusion == str(claim)}
        hits = [bool(extension & supporting) for extension in extensions]
        result[str(claim)] = (any(hits), bool(hits) and all(hits))
    return result


@pytest.mark.oracle
@pytest.mark.parametrize("semantics", SEMANTICS)
def test_claim_acceptance_matches_pyarg(semantics: str) -> None:
    """Stage (which PyArg lacks), and conflict-free and naive (where PyArg gives no
    extension for the empty framework), against brute force over PyArg's defeats."""
    checked = 0
    for seed in range(THEORIES):
        theory, ordering = random_theory(seed), ORDERINGS[seed % 4]
        try:
            solution = solve(theory, ordering=ordering, semantics=semantics, limits=ONE)
        except LimitExceeded:
            continue
        if len(solution.arguments) > SMALL:
            continue
        expected = oracle(theory, ordering)
        if semantics == "grounded":
            extensions = {expected.grounded()}
        elif semantics in PYARG_SEMANTICS and (expected.arguments or semantics == "admissible"):
            extensions = expected.extensions(semantics)
        else:
            pair = (frozenset(expected.arguments), frozenset(expected.defeats))
            extensions = brute_force_extensions(pair, semantics)
        found = {
            str(claim): tuple(vars(solution.acceptance(claim)).values())
            for claim in theory.claims()
        }
        context = f"seed {seed}, {ordering}, {semantics}:\n{theory.to_text()}"
        assert found == _claim_acceptance(theory, expected.arguments, extensions), context
        assert solution.more_extensions == (len(extensions) > 1), context
        checked += 1
    assert checked >= THEORIES // 2


def test_skeptical_preferred_is_not_cautious_complete() -> None:
    # a and b attack each other and both attack c, which attacks d. Preferred: {a, d} and
    # {b, d}, so d is skeptically accepted; the grounded (least complete) extension is
    # empty, so d is not skeptically accepted under complete semantics.
    framework = parse_apx(
        "arg(a). arg(b). arg(c). arg(d). att(a,b). att(b,a). att(a,c). att(b,c). att(c,d)."
    )
    preferred = solve_framework(framework, "preferred", ONE)
    assert preferred.more_extensions and len(preferred.extensions) == 1
    assert preferred.credulous == {"a", "b", "d"} and preferred.skeptical == {"d"}
    complete = solve_framework(framework, "complete", ONE)
    assert complete.credulous == {"a", "b", "d"} and complete.skeptical == set()


def test_claim_skeptical_through_different_arguments() -> None:
    # e and -e undermine each other: preferred {e, r1(e)} and {-e, r2(-e)}. f is concluded
    # in both, by different arguments: skeptically accepted as a claim.
    theory = parse_theory(
        "[premise: e]\n[premise: -e]\n[defeasible r1: e => f]\n[defeasible r2: -e => f]\n"
    )
    for semantics in ("preferred", "complete", "stable", "semi-stable", "stage", "naive"):
        solution = solve(theory, semantics=semantics, limits=ONE)
        assert solution.more_extensions, semantics
        f, e = Literal("f"), Literal("e")
        skeptical = semantics != "complete"  # the empty grounded extension is complete
        assert vars(solution.acceptance(f)) == {"credulous": True, "skeptical": skeptical}
        assert vars(solution.acceptance(e)) == {"credulous": True, "skeptical": False}


def test_no_stable_extension_accepts_nothing() -> None:
    # An odd cycle: no stable extension; nothing is accepted, and no extension is listed.
    framework = parse_apx("arg(a). arg(b). arg(c). att(a,b). att(b,c). att(c,a).")
    solution = solve_framework(framework, "stable", ONE)
    assert not solution.exists and solution.extensions == () and not solution.more_extensions
    assert solution.credulous == solution.skeptical == frozenset()


#: Far too little time to enumerate 2**30 extensions.
BOUNDED = Limits(seconds=20, extensions=3)


def test_acceptance_is_exact_where_enumeration_could_not_finish() -> None:
    # 2**40 conflict-free sets and 2**30 preferred extensions: the first few are listed and
    # acceptance is still exact.
    names = [f"p{index}" for index in range(40)]
    free = solve_framework(Framework(tuple(names), ()), "conflict-free", BOUNDED)
    assert len(free.extensions) == 3 and free.more_extensions
    assert free.credulous == set(names) and free.skeptical == set()

    pairs = "".join(f"[premise: e{i}]\n[premise: -e{i}]\n" for i in range(30)) + "[axiom: c]\n"
    for semantics in ("preferred", "naive", "stable", "semi-stable", "stage"):
        solution = solve(parse_theory(pairs), semantics=semantics, limits=BOUNDED)
        assert len(solution.extensions) == 3 and solution.more_extensions
        c, e7 = solution.acceptance(Literal("c")), solution.acceptance(Literal("e7"))
        assert (c.credulous, c.skeptical, e7.credulous, e7.skeptical) == (True, True, True, False)


def test_skeptical_preferred_searches_only_the_claim_s_region() -> None:
    # f is concluded in every preferred extension, by r_i(e_i) or s_i(-e_i); 30 further
    # pairs g_j / -g_j, which no argument for f depends on, multiply the extensions by 2**30.
    # Only the arguments with a path of defeats to f's arguments are searched.
    text = "".join(
        f"[premise: e{i}]\n[premise: -e{i}]\n[defeasible r{i}: e{i} => f]\n"
        f"[defeasible s{i}: -e{i} => f]\n"
        for i in range(2)
    )
    text += "".join(f"[premise: g{j}]\n[premise: -g{j}]\n" for j in range(30))
    solution = solve(parse_theory(text), semantics="preferred", limits=BOUNDED)
    assert solution.more_extensions
    assert vars(solution.acceptance(Literal("f"))) == {"credulous": True, "skeptical": True}
    assert vars(solution.acceptance(Literal("g3"))) == {"credulous": True, "skeptical": False}
