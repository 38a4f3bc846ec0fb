"""semantics_query: every cell generates; references succeed; the gates hold; verdicts agree
with PyArg's extensions on small theories and gadgets; the answer grammar is tolerant of form
and strict about content; generation is deterministic."""

from __future__ import annotations

import random

import pytest
from oracle import oracle
from task_checks import check_contract

import argc.tasks.semantics_query as sq
from argc.compiler import solve
from argc.dsl.ir import ORDERINGS, Literal, Ordering
from argc.tasks import generate, score
from argc.tasks.answers import pair_f1, read_entries
from argc.tasks.builder import Builder
from argc.tasks.framework import CELLS

#: PyArg enumerates extensions by brute force: only small frameworks are checked against it.
PYARG_MAX_ARGUMENTS = 15


def _corrupt(reference: str) -> str:
    first, *rest = reference.splitlines()
    key, verdict = first.rsplit(": ", 1)
    other = "no" if verdict == "yes" else "yes"
    return "\n".join([f"{key}: {other}", *rest])


def _pyarg_verdicts(theory, ordering: Ordering, asks) -> list[list[str]]:
    """Verdicts from PyArg's grounded, eager, stable and preferred extensions."""
    found = oracle(theory, ordering)
    extensions = {
        "grounded": [found.grounded()],
        "eager": list(found.extensions("eager")),
        "stable": list(found.extensions("stable")),
        "preferred": list(found.extensions("preferred")),
    }
    rows = []
    for claim, mode in asks:
        semantics, _, reasoning = mode.partition(" ")
        supporting = {name for name, conclusion in found.arguments.items() if conclusion == claim}
        hits = [bool(extension & supporting) for extension in extensions[semantics]]
        if semantics == "stable" and not hits:
            rows.append([claim, mode, "no stable extension"])
        elif reasoning == "skeptical":
            rows.append([claim, mode, "yes" if hits and all(hits) else "no"])
        else:
            rows.append([claim, mode, "yes" if any(hits) else "no"])
    return rows


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(level: int, ordering: Ordering) -> None:
    instance = generate("semantics_query", level, ordering, seed=level)
    check_contract(instance, _corrupt(instance.reference))
    # The gates.
    plan = sq.curriculum(level)
    verdicts = [verdict for _, _, verdict in instance.target]
    assert "yes" in verdicts and "no" in verdicts
    assert {mode for _, mode, _ in instance.target} <= set(plan.modes)
    stable = [verdict for _, mode, verdict in instance.target if mode in sq.STABLE_MODES]
    if plan.no_stable:
        assert stable and set(stable) == {"no stable extension"}
    else:
        assert "no stable extension" not in verdicts
    grounded = solve(instance.parsed_theory, ordering=ordering)
    assert any(
        verdict == "yes"
        and mode not in ("grounded", *sq.STABLE_MODES)
        and grounded.status(Literal.parse(claim)) != "justified"
        for claim, mode, verdict in instance.target
    ), "grounded semantics alone would answer every question"


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gold_verdicts_agree_with_pyarg_on_small_instances(ordering: Ordering) -> None:
    checked = 0
    for seed in range(8):
        instance = generate("semantics_query", 1, ordering, seed=seed)
        if instance.meta["arguments"] > PYARG_MAX_ARGUMENTS:
            continue
        asks = [(claim, mode) for claim, mode, _ in instance.target]
        assert _pyarg_verdicts(instance.parsed_theory, ordering, asks) == instance.target
        checked += 1
    assert checked >= 6


def _gadget(kind: str, seed: int):
    """A gadget on its own: its theory, the claims to ask about, and the floating claim."""
    rng = random.Random(seed)
    builder = Builder(rng)
    common = None
    if kind == "floating":
        common = sq.floating(builder, rng)
    else:
        cycle = sq.odd_cycle(builder, rng, 3)
        if kind == "broken":
            sq.break_cycle(builder, cycle)
    return builder.theory(), sorted(set(builder.salient), key=str), common


@pytest.mark.parametrize("kind", ["floating", "open", "broken"])
@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gadgets_behave_as_documented_and_agree_with_pyarg(kind: str, ordering: Ordering) -> None:
    theory, claims, common = _gadget(kind, seed=7)
    solutions = {
        semantics: solve(theory, ordering=ordering, semantics=semantics)
        for semantics in ("grounded", "preferred", "stable", "eager")
    }
    asks = [(str(claim), mode) for claim in claims for mode in sq.MODES]
    ours = [
        [claim, mode, sq.verdict(mode, Literal.parse(claim), solutions)] for claim, mode in asks
    ]
    assert _pyarg_verdicts(theory, ordering, asks) == ours
    answers = {(claim, mode): verdict for claim, mode, verdict in ours}
    if kind == "floating":
        # Both sides of the contest lead to the floating claim: every preferred extension
        # accepts it, grounded semantics does not.
        assert answers[(str(common), "grounded")] == "no"
        assert answers[(str(common), "preferred skeptical")] == "yes"
    elif kind == "open":
        assert solutions["stable"].extensions == ()
        assert {v for (_, m), v in answers.items() if m in sq.STABLE_MODES} == {
            "no stable extension"
        }
    else:
        assert len(solutions["stable"].extensions) == 1
        assert solutions["eager"].extensions == solutions["stable"].extensions
        assert solutions["grounded"].extensions != solutions["eager"].extensions


def test_answer_grammar_is_tolerant_of_form() -> None:
    answer = (
        "\n  1. `ab1` under Preferred  Credulous: YES.\n"
        "- -cd2 under stable skeptical : No Stable Extension\n\n"
        "* **ef3** UNDER grounded: no,\n"
    )
    assert read_entries(answer, "acceptance_map") == [
        ((Literal("ab1"), "preferred credulous"), "yes"),
        ((Literal("cd2", True), "stable skeptical"), "no stable extension"),
        ((Literal("ef3"), "grounded"), "no"),
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "ab1 under preferred: yes",  # no reasoning mode
        "ab1 under stable credulous: maybe",
        "ab1 under grounded: yes because it is unattacked",
        "ab1: yes",
        "ab1 under ideal: yes",
    ],
)
def test_answer_grammar_is_strict_about_content(answer: str) -> None:
    instance = generate("semantics_query", 1, Ordering(), seed=0)
    result = score(instance, f"<answer>{answer}</answer>")
    assert (result.native, result.success) == (0.0, False)
    assert result.reason.startswith("unreadable answer")


def test_scoring_is_pair_f1_over_claim_mode_keys() -> None:
    instance = generate("semantics_query", 6, Ordering(), seed=1)
    rows = instance.target
    lines = [f"{claim} under {mode}: {verdict}" for claim, mode, verdict in rows]
    n = len(rows)
    # One verdict wrong: precision and recall are both (n-1)/n.
    wrong = _corrupt("\n".join(lines))
    result = score(instance, f"<answer>{wrong}</answer>")
    assert result.native == pytest.approx((n - 1) / n) and not result.success
    # One question left out: precision 1, recall (n-1)/n.
    result = score(instance, "<answer>" + "\n".join(lines[1:]) + "</answer>")
    assert result.native == pytest.approx(2 * (n - 1) / (2 * n - 1)) and not result.success
    # The same claim under a mode that was not asked counts against precision.
    claim = rows[0][0]
    unasked = next(m for m in sq.MODES if (claim, m) not in {(c, m2) for c, m2, _ in rows})
    extra = "\n".join([*lines, f"{claim} under {unasked}: no"])
    result = score(instance, f"<answer>{extra}</answer>")
    assert result.native == pytest.approx(2 * n / (2 * n + 1)) and not result.success
    # A key answered twice, differently, is wrong.
    first_claim, first_mode, first_verdict = rows[0]
    flip = "no" if first_verdict == "yes" else "yes"
    doubled = "\n".join([*lines, f"{first_claim} under {first_mode}: {flip}"])
    assert not score(instance, f"<answer>{doubled}</answer>").success
    # "no" is not "no stable extension" (and vice versa).
    gold = {(Literal("a"), "stable credulous"): "no stable extension"}
    assert pair_f1([((Literal("a"), "stable credulous"), "no")], gold) == (0.0, False)
