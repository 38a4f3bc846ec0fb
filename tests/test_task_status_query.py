"""status_query: every cell generates; references succeed; gold agrees with PyArg; the
answer grammar is tolerant of form and strict about content."""

from __future__ import annotations

import pytest
from oracle import oracle
from task_checks import check_contract

from argc.dsl.ir import ORDERINGS, Literal, Ordering
from argc.tasks import generate, score
from argc.tasks.answers import answer_region, pair_f1, read_entries
from argc.tasks.framework import CELLS


def _corrupt(reference: str) -> str:
    first, *rest = reference.splitlines()
    claim, status = first.split(": ")
    other = "overruled" if status == "justified" else "justified"
    return "\n".join([f"{claim}: {other}", *rest])


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(level: int, ordering: Ordering) -> None:
    instance = generate("status_query", level, ordering, seed=level)
    assert score(instance, f"thinking...<answer>{instance.reference}</answer>") == (
        score(instance, f"<answer>{instance.reference}</answer>")
    )
    check_contract(instance, _corrupt(instance.reference))
    statuses = set(instance.target.values())
    assert statuses == {"justified", "overruled", "undecided"}
    assert max(list(instance.target.values()).count(s) for s in statuses) * 2 <= len(
        instance.target
    )


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gold_statuses_agree_with_pyarg(ordering: Ordering) -> None:
    for level in (1, 4, 8, 12, 15):
        instance = generate("status_query", level, ordering, seed=100 + level)
        theory = instance.parsed_theory
        expected = oracle(theory, ordering).statuses(list(theory.queries))
        assert expected == instance.target, instance.id


def test_last_answer_region_counts() -> None:
    assert answer_region("<answer>a</answer> then <ANSWER>\nb\n</answer>") == "\nb\n"
    assert answer_region("<answer>unclosed") is None


def test_answer_grammar_is_tolerant_of_form() -> None:
    answer = "\n  1. `ab1`: Justified.\n- -cd2 : OVERRULED\n\n* **ef3**: undecided,\n"
    assert read_entries(answer, "status_map") == [
        (Literal("ab1"), "justified"),
        (Literal("cd2", True), "overruled"),
        (Literal("ef3"), "undecided"),
    ]


@pytest.mark.parametrize(
    "answer",
    ["ab1 is justified", "ab1: accepted", "ab1: justified because of r1", "ab 1: justified"],
)
def test_answer_grammar_is_strict_about_content(answer: str) -> None:
    instance = generate("status_query", 1, Ordering(), seed=0)
    result = score(instance, f"<answer>{answer}</answer>")
    assert (result.native, result.success) == (0.0, False)
    assert result.reason.startswith("unreadable answer")


def test_pair_f1_counts_contradictory_duplicates_wrong() -> None:
    a, b = Literal("a"), Literal("b")
    gold = {a: "justified", b: "overruled"}
    assert pair_f1([(a, "justified"), (b, "overruled")], gold) == (1.0, True)
    f1, exact = pair_f1([(a, "justified"), (a, "overruled"), (b, "overruled")], gold)
    assert (round(f1, 3), exact) == (0.5, False)  # P = 1/2 (two keys), R = 1/2
    f1, exact = pair_f1([(a, "justified")], gold)
    assert (round(f1, 3), exact) == (0.667, False)
    assert pair_f1([(a, "justified"), (a, "justified"), (b, "overruled")], gold) == (1.0, True)
