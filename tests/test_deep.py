"""Deep theories: chains and trees of thousands of rules ground in time linear in the
arguments, agree with PyArg on smaller deep instances, and hostile theories stop within a
second of a short time limit."""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from itertools import product
from pathlib import Path

import pytest
from margins import GRACE
from oracle import oracle
from random_theories import Shape, random_theory

from argc.compiler import LimitExceeded, Limits, query, solve
from argc.compiler.facts import cyclic_components
from argc.dsl.ir import Literal, Ordering, Rule
from argc.dsl.parser import parse_theory

ROOT = Path(__file__).resolve().parent.parent

# Deep theories ---------------------------------------------------------------------------


def _deep_benchmark():
    """`benchmarks/deep.py`, whose chains, trees and rings the tests below solve."""
    spec = importlib.util.spec_from_file_location("deep_benchmark", ROOT / "benchmarks" / "deep.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_deep = _deep_benchmark()
chain, tree, binary_tree, ring = _deep.chain, _deep.tree, _deep.binary_tree, _deep.ring


def status_counts(statuses: dict[Literal, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for status in statuses.values():
        counts[status] = counts.get(status, 0) + 1
    return counts


def test_a_chain_of_3000_rules_is_solved_within_the_default_limits():
    solution = solve(parse_theory(chain(3000)))
    assert len(solution.arguments) == 3001
    assert not solution.defeats
    for i in range(3001):
        assert solution.status(Literal(f"a{i}")) == "justified"
        assert solution.status(Literal(f"a{i}", True)) == "overruled"


def test_an_attacked_chain_of_3000_rules_is_defeated_all_the_way_up():
    solution = solve(parse_theory(chain(3000, attacked=True)))
    assert len(solution.arguments) == 3002
    # the axiom -a0 defeats the premise a0 and every argument built on it
    assert len(solution.defeats) == 3001
    assert solution.status(Literal("a0", True)) == "justified"
    for i in range(3001):
        assert solution.status(Literal(f"a{i}")) == "overruled"
    assert status_counts(solution.statuses) == {"justified": 1, "overruled": 6001}


def test_a_tree_of_1000_levels_is_solved_within_the_default_limits():
    solution = solve(parse_theory(tree(1000)))
    assert len(solution.arguments) == 2001
    for i in range(1, 1001):
        assert solution.status(Literal(f"a{i}")) == "justified"
        assert solution.status(Literal(f"b{i}")) == "justified"


def test_an_attacked_tree_of_1000_levels_keeps_its_side_premises():
    solution = solve(parse_theory(tree(1000, attacked=True)))
    assert len(solution.defeats) == 1001
    for i in range(1, 1001):
        assert solution.status(Literal(f"a{i}")) == "overruled"
        assert solution.status(Literal(f"b{i}")) == "justified"


def test_a_complete_binary_tree_of_1023_rules():
    solution = solve(parse_theory(binary_tree(1023)))
    assert len(solution.arguments) == 2047
    assert set(solution.statuses.values()) == {"justified", "overruled"}
    assert solution.status(Literal("n")) == "justified"
    assert solution.status(Literal("n", True)) == "overruled"


def test_a_ring_builds_each_argument_once_and_never_closes_the_cycle():
    solution = solve(parse_theory(ring(300)))
    # a0 from the premise, a_i (i < 300) by rule; r300 would repeat a0 on its branch
    assert len(solution.arguments) == 300
    assert "r300" not in {argument.top_rule for argument in solution.arguments.values()}
    assert all(solution.status(Literal(f"a{i}")) == "justified" for i in range(300))


def test_sub_arguments_are_there_for_queries_over_a_deep_theory():
    program = "count(N) :- N = #count { A, B : sub(A, B) }. #show count/1."
    result = query(parse_theory(chain(60)), program)
    assert [str(symbol) for symbol in result.shown] == [f"count({61 * 62 // 2})"]


def test_deep_set_comparisons_stay_fast_under_every_ordering():
    """Two chains of 2,000 rules rebutting each other at the top: every set ordering compares
    rule sets of 2,000 elements without looking at every pair of elements."""
    lines = ["[premise: a0]", "[premise: b0]"]
    for i in range(1, 2000):
        lines += [f"[defeasible r{i}: a{i - 1} => a{i}]", f"[defeasible s{i}: b{i - 1} => b{i}]"]
    lines += ["[defeasible r2000: a1999 => p]", "[defeasible s2000: b1999 => -p]"]
    lines += ["[prefer_rule: r2000 > s2000]", "[prefer_premise: a0 > b0]"]
    theory = parse_theory("\n".join(lines) + "\n")
    expected = {"last-link": "justified", "weakest-link": "undecided"}
    for principle, comparison, reading in product(
        ("last-link", "weakest-link"), ("elitist", "democratic"), ("pyarg", "mp2013")
    ):
        ordering = Ordering(principle, comparison, reading)
        solution = solve(theory, ordering=ordering, limits=Limits(seconds=20))
        assert solution.status(Literal("p")) == expected[principle], ordering


# Agreement with PyArg on deep instances ----------------------------------------------------


def deep_theory(shape: str, depth: int, seed: int) -> str:
    """A chain or a tree of `depth` rules (strict now and then) with conflicts at random
    levels: rival rules concluding a negation, undercutters, a one-way contrary, premises
    undermined, and rule and premise preferences between the parties."""
    rng = random.Random(f"{shape}/{depth}/{seed}")
    lines = ["[premise: a0]"]
    defeasible = []
    for i in range(1, depth + 1):
        body = f"a{i - 1}"
        if shape == "tree":
            lines.append(f"[premise: b{i}]")
            body += f" AND b{i}"
        if rng.random() < 0.15:
            lines.append(f"[strict r{i}: {body} -> a{i}]")
        else:
            lines.append(f"[defeasible r{i}: {body} => a{i}]")
            defeasible.append(f"r{i}")
    rivals = []
    for j in range(max(2, depth // 8)):
        lines.append(f"[premise: c{j}]")
        level = rng.randint(1, depth)
        kind = rng.random()
        if kind < 0.5:
            lines.append(f"[defeasible s{j}: c{j} => -a{level}]")
            rivals.append(f"s{j}")
            if f"r{level}" in defeasible and rng.random() < 0.7:
                pair = [f"s{j}", f"r{level}"]
                rng.shuffle(pair)
                lines.append(f"[prefer_rule: {pair[0]} > {pair[1]}]")
        elif kind < 0.8 and defeasible:
            lines.append(f"[defeasible u{j}: c{j} => -{rng.choice(defeasible)}]")
        else:
            target = f"b{level}" if shape == "tree" else "a0"
            lines.append(f"[premise: -{target}]")
            pair = [f"-{target}", target]
            rng.shuffle(pair)
            lines.append(f"[prefer_premise: {pair[0]} > {pair[1]}]")
    lines.append(f"[contrary: c0 ~> a{rng.randint(1, depth)}]")
    for _ in range(depth // 10):
        weaker, stronger = rng.sample(defeasible + rivals, 2)
        lines.append(f"[prefer_rule: {stronger} > {weaker}]")
    return "\n".join(dict.fromkeys(lines)) + "\n"


ORDERINGS = [
    Ordering(principle, comparison, reading)
    for reading in ("pyarg", "mp2013")
    for principle in ("last-link", "weakest-link")
    for comparison in ("elitist", "democratic")
]

DEEP_CASES = [
    ("chain", 60, 0, ORDERINGS[0]),
    ("chain", 60, 1, ORDERINGS[3]),
    ("chain", 60, 2, ORDERINGS[6]),
    ("tree", 40, 0, ORDERINGS[2]),
    ("tree", 40, 1, ORDERINGS[5]),
    ("tree", 40, 2, ORDERINGS[1]),
    ("ring", 30, 0, ORDERINGS[4]),
    ("ring", 30, 1, ORDERINGS[7]),
]


def _case_text(shape: str, depth: int, seed: int) -> str:
    if shape != "ring":
        return deep_theory(shape, depth, seed)
    # a ring with a rival that rebuts one of its literals and a shortcut rule across it
    rng = random.Random(seed)
    level, jump = rng.randint(1, depth - 1), rng.randint(1, depth - 2)
    return ring(depth) + (
        "[premise: c0]\n"
        f"[defeasible s0: c0 => -a{level}]\n"
        f"[defeasible t0: a{jump} AND c0 => a{jump + 2}]\n"
        "[prefer_rule: s0 > r1]\n"
    )


@pytest.mark.oracle
@pytest.mark.parametrize("shape, depth, seed, ordering", DEEP_CASES, ids=str)
def test_deep_theories_agree_with_pyarg(shape, depth, seed, ordering):
    theory = parse_theory(_case_text(shape, depth, seed))
    solution = solve(theory, ordering=ordering)
    expected = oracle(theory, ordering)
    context = f"{shape} {depth} seed {seed}, {ordering}:\n{theory.to_text()}"
    conclusions = {name: str(argument.conclusion) for name, argument in solution.arguments.items()}
    assert conclusions == expected.arguments, context
    assert set(solution.defeats) == expected.defeats, context
    assert solution.grounded == expected.grounded(), context
    statuses = {str(literal): status for literal, status in solution.statuses.items()}
    assert statuses == expected.statuses(list(theory.claims())), context


def test_deep_theories_have_conflicts_of_every_kind():
    """The deep instances above exercise what they claim: rebuttals, undercuts, undermining
    and a contrary, with defeats reaching far up the chain or tree."""
    kinds = set()
    reach = 0
    for shape, depth, seed, ordering in DEEP_CASES:
        solution = solve(parse_theory(_case_text(shape, depth, seed)), ordering=ordering)
        kinds |= {attack.kind for attack in solution.direct_attacks}
        reach = max(reach, len(solution.defeats) - len(solution.direct_attacks))
    assert kinds == {"rebut", "undercut", "undermine"}
    assert reach > 100


# The components behind the no-repeat check -----------------------------------------------


def _components_by_reachability(rules: list[Rule]) -> set[frozenset[Literal]]:
    edges: dict[Literal, set[Literal]] = {}
    for rule in rules:
        edges.setdefault(rule.head, set())
        for literal in rule.body:
            edges.setdefault(literal, set()).add(rule.head)
    reach = {}
    for start in edges:
        seen, stack = set(), [start]
        while stack:
            for successor in edges[stack.pop()]:
                if successor not in seen:
                    seen.add(successor)
                    stack.append(successor)
        reach[start] = seen
    found = set()
    for literal in edges:
        if literal in reach[literal]:
            found.add(frozenset(other for other in reach[literal] if literal in reach[other]))
    return found


@pytest.mark.parametrize("seed", range(60))
def test_cyclic_components_are_the_strongly_connected_components_on_a_cycle(seed):
    theory = random_theory(seed, scale=1 + seed % 4)
    found = {frozenset(component) for component in cyclic_components(theory.rules)}
    assert found == _components_by_reachability(list(theory.rules))


def test_a_long_cycle_is_one_component():
    rules = parse_theory(ring(5000)).rules
    (component,) = cyclic_components(rules)
    assert len(component) == 5000


# Hostile theories stop within a second of a short time limit ----------------------------


def rebut_storm(levels: int, above: int = 0) -> str:
    """`x_levels` has 2**levels arguments (two rules per level), each for `p` and for `-p`,
    which rebut each other 2 * 4**levels times; `above` rules continue `p` upwards, so that
    every rebuttal of a `p` argument reaches that many arguments containing it."""
    lines = ["[premise: s]", "[premise: t]", "[defeasible a1: s => x1]", "[defeasible b1: t => x1]"]
    for i in range(2, levels + 1):
        lines += [f"[defeasible a{i}: x{i - 1} => x{i}]", f"[defeasible b{i}: x{i - 1} => x{i}]"]
    lines += [f"[defeasible up: x{levels} => p]", f"[defeasible down: x{levels} => -p]"]
    if above:
        lines.append("[defeasible c1: p => q1]")
        lines += [f"[defeasible c{i}: q{i - 1} => q{i}]" for i in range(2, above + 1)]
    return "\n".join(lines) + "\n"


def wide_rule(width: int) -> str:
    """`width` literals with two arguments each, and a rule over all of them and one literal
    nothing concludes: 2**width partial instantiations and no argument."""
    lines = ["[axiom: z]"]
    for i in range(width):
        lines += [f"[premise: q{i}]", f"[defeasible w{i}: z => q{i}]"]
    body = " AND ".join(f"q{i}" for i in range(width))
    lines.append(f"[defeasible big: {body} AND nope => goal]")
    return "\n".join(lines) + "\n"


def doubling_chain(depth: int) -> str:
    """Each level concludes `a_i` in two ways and `b_i` in one from both literals below it: the
    arguments double with every level, and each contains the two below it."""
    lines = ["[premise: a0]", "[premise: b0]"]
    for i in range(1, depth + 1):
        lines += [
            f"[defeasible r{i}: a{i - 1} AND b{i - 1} => a{i}]",
            f"[defeasible s{i}: b{i - 1} AND a{i - 1} => a{i}]",
            f"[defeasible t{i}: a{i - 1} AND b{i - 1} => b{i}]",
        ]
    return "\n".join(lines) + "\n"


#: Count limits out of reach, so that only the time limit stops a theory (a fast machine
#: builds more than the default 20,000 arguments within the second).
_TIME_ONLY = {"arguments": 10**6, "sub_arguments": 10**12}

HOSTILE = {
    "wide rule": (wide_rule(22), Limits(seconds=1, instantiations=10**9)),
    "rebut storm": (rebut_storm(9), Limits(seconds=1)),
    # these two are solved in about a second: a half-second limit stops them in a late stage
    "smaller rebut storm": (rebut_storm(8), Limits(seconds=0.5)),
    "rebut storm under a chain": (rebut_storm(6, above=200), Limits(seconds=0.5)),
    "doubling chain": (doubling_chain(40), Limits(seconds=1, **_TIME_ONLY)),
    "deep chain": (chain(30_000), Limits(seconds=1, **_TIME_ONLY)),
    "random theory": (
        random_theory(
            0,
            Shape(
                atoms=10,
                axioms=2,
                premises=15,
                rules=120,
                strict_share=0.2,
                undercutters=10,
                rule_preferences=20,
                premise_preferences=10,
                contraries=3,
            ),
        ).to_text(),
        Limits(seconds=1, arguments=10**6),
    ),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_theories_stop_within_a_second_of_the_time_limit(name):
    text, limits = HOSTILE[name]
    theory = parse_theory(text)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=f"time limit of {limits.seconds:g} s"):
        solve(theory, limits=limits)
    assert time.monotonic() - started < limits.seconds + GRACE
