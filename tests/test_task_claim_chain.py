"""claim_chain: every cell generates; references succeed; the link principle decides whether
the target is justified and the set comparison changes no defeat; the gold derivation is the
target's only argument in PyArg and is in PyArg's grounded extension; the scorer follows
Appendix B and is tolerant of form; the gates reject what they should."""

from __future__ import annotations

import functools

import pytest
from oracle import oracle
from task_checks import check_contract

import argc.tasks.arggym.claim_chain  # noqa: F401  (registers the task)
from argc.bench.diagnose import other
from argc.compiler import query, solve
from argc.dsl.ir import (
    ORDERINGS,
    PRINCIPLES,
    SET_COMPARISONS,
    Axiom,
    Literal,
    Ordering,
    Premise,
    Rule,
)
from argc.dsl.parser import parse_directives
from argc.tasks import Instance, generate, get_task, score
from argc.tasks.arggym.claim_chain import chain_score, read_directives
from argc.tasks.framework import CELLS, Candidate


@functools.cache
def _instance(level: int, ordering: Ordering) -> Instance:
    """The instance of a cell that the tests share (seed = level)."""
    return generate("claim_chain", level, ordering, seed=level)


def _answer(text: str) -> str:
    return f"<answer>\n{text}\n</answer>"


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(level: int, ordering: Ordering) -> None:
    instance = _instance(level, ordering)
    check_contract(instance)
    lines = instance.reference.splitlines()
    # Premises and axioms first, then the rules in reference order: also dependency-consistent.
    ground = [line for line in lines if line.startswith(("[premise", "[axiom"))]
    regrouped = score(instance, _answer("\n".join(ground + [x for x in lines if x not in ground])))
    assert (regrouped.native, regrouped.success) == (1.0, True)
    # Corruptions: a missing line, a reversed order, an extra directive.
    for corrupt in (lines[1:], lines[::-1], [*lines, "[premise: zz0]"]):
        worse = score(instance, _answer("\n".join(corrupt)))
        assert worse.native < 1.0 and not worse.success
    # The curriculum is what the level says: depth, attackers, distractors, scale; the
    # principled attacks fail under the instance's principle.
    knobs, params = instance.meta["curriculum"], instance.meta["params"]
    rules = [line for line in lines if line.startswith(("[defeasible", "[strict"))]
    assert len(rules) >= knobs["depth"]
    designed = sum(knobs[k] for k in ("principled", "preferred", "countered", "undermined"))
    assert len(params["attacks"]) == params["attackers"] == designed + 1
    assert (
        sum(attack.endswith("/" + ordering.principle) for attack in params["attacks"])
        == (knobs["principled"])
    )
    assert params["fails_under"] == ordering.principle
    assert params["unused_rules"] >= 1
    assert len(instance.theory.splitlines()) >= knobs["size"]


def _structure(name: str) -> tuple[set[str], set[str]]:
    """The rule names and premise literals of a canonical argument name `r(s1,s2)`."""
    rules: set[str] = set()
    leaves: set[str] = set()

    def walk(start: int) -> int:
        end = start
        while end < len(name) and name[end] not in "(),":
            end += 1
        token = name[start:end]
        if end < len(name) and name[end] == "(":
            rules.add(token)
            end = walk(end + 1)
            while name[end] == ",":
                end = walk(end + 1)
            assert name[end] == ")"
            return end + 1
        leaves.add(token)
        return end

    assert walk(0) == len(name)
    return rules, leaves


@pytest.mark.parametrize("level", [2, 7, 12])
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_the_link_principle_decides_the_target(level: int, ordering: Ordering) -> None:
    # Under the other principle (same set comparison) the principled attacks succeed: each
    # and the step it attacks defeat each other, so the target is undecided. The set
    # comparison changes no defeat: every designed comparison holds under both readings.
    instance = _instance(level, ordering)
    theory, claim = instance.parsed_theory, Literal.parse(instance.target["claim"])
    principle = other(ordering.principle, PRINCIPLES)
    assert solve(theory, ordering=ordering).status(claim) == "justified"
    switched = solve(theory, ordering=Ordering(principle, ordering.set_comparison))
    assert switched.status(claim) == "undecided"
    for principle in PRINCIPLES:
        elitist, democratic = (
            set(solve(theory, ordering=Ordering(principle, comparison)).defeats)
            for comparison in SET_COMPARISONS
        )
        assert elitist == democratic


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gold_derivation_is_the_unique_grounded_argument_in_pyarg(ordering: Ordering) -> None:
    for level in (1, 5, 9):
        instance = _instance(level, ordering)
        result = oracle(instance.parsed_theory, ordering)
        claim = instance.target["claim"]
        arguments = [name for name, conclusion in result.arguments.items() if conclusion == claim]
        assert len(arguments) == 1, instance.id
        assert arguments[0] in result.grounded(), instance.id
        gold = parse_directives("\n".join(instance.target["derivation"]))
        rules = {d.name for d in gold if isinstance(d, Rule)}
        leaves = {str(d.literal) for d in gold if isinstance(d, (Premise, Axiom))}
        assert _structure(arguments[0]) == (rules, leaves), instance.id
        # Premises and axioms in the gold answer have the kind the theory gives them.
        theory = instance.parsed_theory
        for directive in gold:
            if isinstance(directive, Premise):
                assert directive.literal in theory.premises
            elif isinstance(directive, Axiom):
                assert directive.literal in theory.axioms
            else:
                assert theory.rule(directive.name) == directive


def _gate(instance: Instance, extra: str, ordering: Ordering) -> bool:
    task = get_task("claim_chain")
    theory = instance.parsed_theory.apply(parse_directives(extra))
    candidate = Candidate(theory, instance.meta["params"])
    return query(theory, task.gate_program(candidate), ordering=ordering).satisfiable


def test_gates_reject_a_second_argument_and_an_unjustified_target() -> None:
    ordering = Ordering("weakest-link", "democratic")
    instance = generate("claim_chain", 9, ordering, seed=7)
    assert _gate(instance, "", ordering)
    gold = parse_directives("\n".join(instance.target["derivation"]))
    rules = [d for d in gold if isinstance(d, Rule)]
    # A second way to establish an intermediate conclusion: two arguments for the target.
    inner = next(rule.head for rule in rules if str(rule.head) != instance.target["claim"])
    assert not _gate(instance, f"[premise: {inner}]", ordering)
    # An unattacked undercutter of a defeasible step: the target is no longer justified.
    step = next(rule for rule in rules if not rule.strict)
    assert not _gate(instance, f"[axiom: qq1]\n[strict qq2: qq1 -> -{step.name}]", ordering)


# The scorer on hand-written answers ---------------------------------------------------------

GOLD = [
    "[premise: a]",
    "[axiom: b]",
    "[defeasible r1: a AND b => c]",
    "[strict s1: c -> d]",
]


def _hand(derivation: list[str] = GOLD) -> Instance:
    return Instance(
        id="hand",
        task="claim_chain",
        level=1,
        ordering="last-link",
        set="elitist",
        seed=0,
        theory="",
        prompt="",
        reference="\n".join(derivation),
        target={"claim": "d", "derivation": derivation},
        meta={},
    )


def _score(answer: str) -> tuple[float, bool]:
    result = score(_hand(), _answer(answer))
    return round(result.native, 6), result.success


def test_tolerant_of_form() -> None:
    answer = """
```
1. [premise: a]
- `[axiom: b]`,

* **[Defeasible r1: b and a => c]**
(4) [strict s1:
     c -> d].
```
"""
    assert _score(answer) == (1.0, True)
    steps = "Step 1: [premise: a]\nStep 2: [axiom: b]\n" + "\n".join(GOLD[2:])
    assert _score(steps) == (1.0, True)
    symbols = "[premise: a] [axiom: b]\n[defeasible r1: a AND b ⇒ c]\n[strict s1: c → d]"
    assert _score(symbols) == (1.0, True)


@pytest.mark.parametrize(
    "answer",
    [
        "Here is the derivation:\n" + "\n".join(GOLD),
        "premise: a\naxiom: b",
        "[premise: a] because it is given",
        "[defeasible r1: a, b => c]",
        "[premise: a",
    ],
)
def test_unreadable_lines_score_zero(answer: str) -> None:
    result = score(_hand(), _answer(answer))
    assert (result.native, result.success) == (0.0, False)
    assert result.reason.startswith("unreadable answer")


def test_appendix_b_content_and_order() -> None:
    # Everything, dependency-consistent but not the generator's order: success.
    other = "[axiom: b]\n[premise: a]\n[defeasible r1: b AND a => c]\n[strict s1: c -> d]"
    assert _score(other) == (1.0, True)
    # Missing axiom b, r1 before its antecedent b, s1 after c, a repeated premise:
    # P = 3/4 (a, r1, s1 of 4 lines), R = 3/4, F1 = 3/4; q = 1/2 (s1 placed, r1 not).
    answer = "[premise: a]\n[defeasible r1: a AND b => c]\n[strict s1: c -> d]\n[premise: a]"
    assert _score(answer) == (0.375, False)
    # All content, rules first: F1 = 1, q = 0.
    assert _score("\n".join([GOLD[3], GOLD[2], GOLD[0], GOLD[1]])) == (0.0, False)
    # s1 first (not placed), r1 last (placed): q = 1/2.
    assert _score("\n".join([GOLD[3], GOLD[0], GOLD[1], GOLD[2]])) == (0.5, False)
    # A repeated directive counts against precision only: P = 4/5, R = 1, F1 = 8/9.
    assert _score("\n".join([*GOLD, GOLD[0]])) == (round(8 / 9, 6), False)
    # Wrong kind (axiom as premise), wrong arrow, wrong name: not the required directives.
    # P = R = 1/4 (only b is right); q = 1.
    wrong = "[axiom: a]\n[axiom: b]\n[strict r1: a AND b -> c]\n[strict s2: c -> d]"
    assert _score(wrong) == (0.25, False)
    # A correct rule without its premises: P = 1, R = 1/4, but q = 0 (c never appeared).
    assert _score("[strict s1: c -> d]") == (0.0, False)
    # Premises only: q = 1 (no rules), P = 1, R = 1/2, F1 = 2/3.
    assert _score("[premise: a]\n[axiom: b]") == (round(2 / 3, 6), False)
    # Nothing readable inside the region: native 0.
    assert _score("") == (0.0, False)
    # Other directive kinds count as submitted lines that match nothing.
    assert _score("\n".join([*GOLD, "[prefer_rule: r1 > r2]"])) == (round(8 / 9, 6), False)


def test_rule_identity_ignores_antecedent_order_not_multiplicity() -> None:
    gold = parse_directives("[premise: a]\n[premise: b]\n[defeasible r: a AND b => c]")
    same = read_directives("[premise: b]\n[premise: a]\n[defeasible r: b AND a => c]")
    assert chain_score(same, gold)[:2] == (1.0, True)
    twice = read_directives("[premise: a]\n[premise: b]\n[defeasible r: a AND b AND a => c]")
    assert chain_score(twice, gold)[1] is False
    assert read_directives("[premise: -x1]")[0].literal == Literal("x1", True)
