"""ArgGYM's released rows: their reference answers read and score 1.0 against targets built
from the rows' gold, argc's gold for the theory in each row's question agrees with it, and
argc's instance at a row's task, level and ordering has the row's scale.

The rows are read from the sample of the released taskset (MIT) in the `shared/` folder beside
the checkout, or from the file named by ARGGYM_SAMPLE; the tests skip when it is absent.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from argc.compiler import query, solve
from argc.dsl.ir import Literal, Ordering, Theory
from argc.dsl.parser import parse_theory
from argc.tasks import Instance, generate, get_task, score
from argc.tasks.arggym.defeat_diagnosis import read_diagnosis
from argc.tasks.arggym.semantics_query import status
from argc.tasks.framework import Candidate

SAMPLE = Path(
    os.environ.get(
        "ARGGYM_SAMPLE",
        Path(__file__).resolve().parents[2] / "shared" / "arggym-released" / "sample.jsonl",
    )
)


def _rows(task: str) -> list[dict[str, Any]]:
    if not SAMPLE.exists():
        return []
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if row["task"] == task]


def _released(task: str):
    """Parametrize over the task's released rows (skipped when the sample is absent)."""
    rows = [pytest.param(row, id=row["id"]) for row in _rows(task)]
    absent = pytest.param(None, marks=pytest.mark.skip(reason=f"{SAMPLE} not available"))
    return pytest.mark.parametrize("row", rows or [absent])


def _ordering(row: dict[str, Any]) -> Ordering:
    """`last_link_democratic` → last-link democratic."""
    principle, set_comparison = row["ordering"].split("_link_")
    return Ordering(f"{principle}-link", set_comparison)


def _theory(row: dict[str, Any], queried: str = "") -> Theory:
    """The theory in the question's directive block, with a query header when given."""
    block = [line for line in row["question"].splitlines() if line.startswith("[")]
    header = [f"[query: {queried}]"] if queried else []
    return parse_theory("\n".join(header + block))


def _instance(task: str, row: dict[str, Any], target: Any) -> Instance:
    ordering = _ordering(row)
    return Instance(
        id=row["id"], task=task, level=row["level"], ordering=ordering.principle,
        set=ordering.set_comparison, seed=0, theory="", prompt="", reference="",
        target=target, meta={},
    )  # fmt: skip


# defeat_diagnosis ---------------------------------------------------------------------------

DD = "defeat_diagnosis"


def _dd_target(row: dict[str, Any]) -> dict[str, Any]:
    """argc's target built from a row's gold diagnosis."""
    claim = re.search(r"The claim (\S+) is not justified", row["question"])[1]
    failures = [
        {key: found[key] for key in ("defeated_at", "defeater", "kind", "survives_because")}
        for found in row["gold"]["diagnoses"]
    ]
    return {
        "claim": claim,
        "status": row["gold"]["claim_status"].lower(),
        "failures": sorted(failures, key=lambda f: (f["defeated_at"], f["defeater"])),
    }


@_released(DD)
def test_dd_reference_answers_read_and_score_one(row) -> None:
    target = _dd_target(row)
    found = read_diagnosis(row["reference_answer"])
    assert found.status == target["status"]
    assert len(found.records) == len(target["failures"])
    result = score(_instance(DD, row, target), f"<answer>{row['reference_answer']}</answer>")
    assert (result.native, result.success) == (1.0, True), result.reason


@_released(DD)
def test_dd_gold_agrees_with_the_release(row) -> None:
    expected = _dd_target(row)
    theory = _theory(row, expected["claim"])
    task = get_task(DD)
    result = query(theory, task.program, ordering=_ordering(row))
    assert result.satisfiable
    assert task.target(Candidate(theory), result, _ordering(row)) == expected


def _directives(theory: Theory) -> int:
    return sum(1 for _ in theory.without_header().directives())


def _ours(task: str, row: dict[str, Any]) -> Instance:
    """argc's instance at the row's task, level and ordering (seed 0)."""
    return generate(task, row["level"], _ordering(row), 0)


@_released(DD)
def test_dd_scale_matches_the_release(row) -> None:
    # Directives within a factor 1.5 of the row's; as many records and survival records.
    ours = _ours(DD, row)
    ratio = _directives(ours.parsed_theory) / _directives(_theory(row))
    assert 1 / 1.5 <= ratio <= 1.5
    shapes = [
        sorted(bool(f["survives_because"]) for f in records)
        for records in (ours.target["failures"], row["gold"]["diagnoses"])
    ]
    assert shapes[0] == shapes[1]


# semantics_query ----------------------------------------------------------------------------

SQ = "semantics_query"


def _sq_target(row: dict[str, Any]) -> list[list[str]]:
    """argc's target built from a row's gold statuses, in the row's question order."""
    gold = {(claim, semantics): value for claim, semantics, value in row["gold"]["gold"]}
    return [
        [claim, semantics, gold[(claim, semantics)].lower().replace("_", " ")]
        for claim, semantics in row["state"]["queries"]
    ]


@_released(SQ)
def test_sq_reference_answers_read_and_score_one(row) -> None:
    target = _sq_target(row)
    result = score(_instance(SQ, row, target), f"<answer>{row['reference_answer']}</answer>")
    assert (result.native, result.success) == (1.0, True), result.reason
    # Our own reference writes the release's lines (in the order of its questions).
    assert get_task(SQ).reference(target).splitlines() == [
        line for claim, semantics in row["state"]["queries"]
        for line in row["reference_answer"].splitlines()
        if line.startswith(f"{claim} under {semantics}:")
    ]  # fmt: skip


@_released(SQ)
def test_sq_scale_matches_the_release(row) -> None:
    # Directives within a factor 1.5 of the row's; as many questions.
    ours = _ours(SQ, row)
    ratio = _directives(ours.parsed_theory) / _directives(_theory(row))
    assert 1 / 1.5 <= ratio <= 1.5
    assert len(ours.target) == len(row["state"]["queries"])


@_released(SQ)
def test_sq_gold_agrees_with_the_release(row) -> None:
    theory, ordering = _theory(row), _ordering(row)
    solutions = {
        semantics: solve(theory, ordering=ordering, semantics=semantics)
        for semantics in ("grounded", "eager", "stable", "preferred")
    }
    ours = [
        [claim, semantics, status(semantics, Literal.parse(claim), solutions)]
        for claim, semantics, _ in _sq_target(row)
    ]
    assert ours == _sq_target(row)
