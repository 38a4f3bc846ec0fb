"""The argument graph of a solved theory: its records against PyArg 2.0.2's arguments,
attacks and defeats; the DOT picture's structure; the ICCMA export read back and solved by
argc's abstract semantics, which must give the theory's own extensions and acceptance."""

from __future__ import annotations

import re

import pytest
from oracle import ORDERINGS as PYARG_ORDERINGS
from oracle import build
from random_theories import random_theory

from argc.compiler import LimitExceeded, Limits, Solution, solve
from argc.compiler.frameworks import solve_framework
from argc.compiler.graph import export, graph_record
from argc.dsl.iccma import parse_af, parse_apx
from argc.dsl.ir import ORDERINGS, SEMANTICS, Ordering, Theory

THEORIES = 40
MAX_ARGUMENTS = 40
#: Every semantics is solved on frameworks this small (exported and read back).
SMALL = 10
EXPORTED = 24


def _canonical(argument) -> str:
    if argument.top_rule is None:
        return str(argument.conclusion)
    subs = sorted(_canonical(sub) for sub in argument.direct_sub_arguments)
    return f"{argument.top_rule.id}({','.join(subs)})"


def pyarg_graph(theory: Theory, ordering: Ordering) -> tuple[set, set]:
    """PyArg's arguments (name, conclusion, top rule, kind, direct sub-arguments) and its
    attacks (attacker, attacked, on, kind, defeat), from its own attack and defeat tests per
    sub-argument."""
    built = build(theory)
    order = PYARG_ORDERINGS[(ordering.principle, ordering.set_comparison, ordering.reading)](
        built.argumentation_system.rule_preferences, built.ordinary_premise_preferences
    )
    axioms = {str(axiom) for axiom in built.knowledge_base_axioms}
    strict = {rule.id for rule in built.argumentation_system.strict_rules}
    arguments, attacks = set(), set()
    for argument in built.all_arguments:
        rule = argument.top_rule.id if argument.top_rule else None
        if rule is None:
            kind = "axiom" if str(argument.conclusion) in axioms else "premise"
        else:
            kind = "strict" if rule in strict else "defeasible"
        subs = tuple(sorted(_canonical(sub) for sub in argument.direct_sub_arguments))
        arguments.add((_canonical(argument), str(argument.conclusion), rule, kind, subs))
    for attacker in built.all_arguments:
        conclusion = attacker.conclusion
        for attacked in built.all_arguments:
            for on in attacked.sub_arguments:
                weaker = order.argument_is_strictly_weaker_than(attacker, on)
                found = []
                if (
                    on.is_observation_based
                    and on.is_plausible
                    and conclusion.is_contrary_or_contradictory_of(on.conclusion)
                ):
                    found.append(
                        ("undermine", conclusion.is_contrary_of(on.conclusion) or not weaker)
                    )
                if built.rebuts_on_conclusion(attacker, on):
                    contrary = built.contrary_rebuts_on_conclusion(attacker, on)
                    found.append(("rebut", contrary or not weaker))
                if built.undercuts_on_top_rule(attacker, on):
                    found.append(("undercut", True))
                names = (_canonical(attacker), _canonical(attacked), _canonical(on))
                attacks |= {(*names, kind, defeat) for kind, defeat in found}
    return arguments, attacks


def _small_solution(seed: int) -> tuple[Theory, Ordering, Solution] | None:
    theory, ordering = random_theory(seed), ORDERINGS[seed % 4]
    try:
        solution = solve(theory, ordering=ordering, limits=Limits(arguments=MAX_ARGUMENTS))
    except LimitExceeded:
        return None
    return theory, ordering, solution


@pytest.mark.oracle
def test_graph_record_matches_pyarg() -> None:
    checked = 0
    for seed in range(THEORIES):
        found = _small_solution(seed)
        if found is None:
            continue
        theory, ordering, solution = found
        record = graph_record(solution)
        arguments = {
            (a["name"], a["conclusion"], a["top_rule"], a["kind"], tuple(a["subarguments"]))
            for a in record["arguments"]
        }
        attacks = {
            (a["attacker"], a["attacked"], a["on"], a["kind"], a["defeat"])
            for a in record["attacks"]
        }
        context = f"seed {seed}, {ordering}:\n{theory.to_text()}"
        assert len(record["arguments"]) == len(arguments)
        assert len(record["attacks"]) == len(attacks)
        assert (arguments, attacks) == pyarg_graph(theory, ordering), context
        defeats = {(a["attacker"], a["attacked"]) for a in record["attacks"] if a["defeat"]}
        assert {tuple(pair) for pair in record["defeats"]} == defeats, context
        checked += 1
    assert checked >= THEORIES * 3 // 4


# DOT -------------------------------------------------------------------------------------

_NODE = re.compile(r'^  "([^"]+)" \[label="([^"]*)", fillcolor=(\w+)\];$')
_EDGE = re.compile(
    r'^  "([^"]+)" -> "([^"]+)" \[color=(\w+), style=(solid|dashed), tooltip="(\w+)"\];$'
)
COLOURS = {"in": "palegreen", "out": "lightpink", "undecided": "lightgoldenrod1"}


def test_dot_structure() -> None:
    for seed in range(THEORIES // 2):
        found = _small_solution(seed)
        if found is None:
            continue
        solution = found[2]
        text = export(solution, "dot")
        lines = text.splitlines()
        assert lines[0] == "digraph argc {" and lines[-1] == "}"
        nodes = [m.groups() for m in map(_NODE.match, lines) if m]
        edges = [m.groups() for m in map(_EDGE.match, lines) if m]
        assert len(lines) == 3 + len(nodes) + len(edges) + 1  # header lines, then "}"
        assert {name for name, _, _ in nodes} == set(solution.arguments)
        assert len(nodes) == len(solution.arguments)
        for name, label, colour in nodes:
            conclusion = solution.arguments[name].conclusion
            assert label == f"{name}\\nclaim: {conclusion}"
            assert colour == COLOURS[solution.label(name)]
        kinds = {(a.attacker, a.attacked, a.kind) for a in solution.attacks}
        assert {(a, b, kind) for a, b, _, _, kind in edges} == kinds
        assert len(edges) == len(kinds)
        assert {(a, b) for a, b, _, style, _ in edges if style == "solid"} == set(solution.defeats)


# ICCMA export, read back -----------------------------------------------------------------


def _legend(text: str, mark: str) -> dict[str, str]:
    """Exported argument id -> canonical name, from the legend comments."""
    pairs = (
        line[len(mark) + 1 :].split(" = ", 1) for line in text.splitlines() if line.startswith(mark)
    )
    return dict(pairs)


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_exported_frameworks_solve_to_the_theory_s_extensions(semantics: str) -> None:
    checked = 0
    for seed in range(EXPORTED):
        found = _small_solution(seed)
        if found is None or len(found[2].arguments) > SMALL:
            continue
        theory, ordering, base = found
        apx, af = export(base, "apx"), export(base, "af")
        readings = [
            (parse_apx(apx, "x.apx"), _legend(apx, "%")),
            (parse_af(af, "x.af"), _legend(af, "#")),
        ]
        solution = solve(theory, ordering=ordering, semantics=semantics)
        context = f"seed {seed}, {semantics}:\n{theory.to_text()}"
        for framework, legend in readings:
            assert sorted(legend.values()) == sorted(base.arguments), context
            assert {(legend[a], legend[b]) for a, b in framework.attacks} == set(base.defeats)
            solved = solve_framework(framework, semantics)
            names = {frozenset(legend[a] for a in extension) for extension in solved.extensions}
            assert names == set(solution.extensions), context
        checked += 1
    assert checked >= EXPORTED // 2
