"""Scorers take untrusted text: whatever a model writes, every task returns a score in [0, 1]
with a reason, promptly, and never raises."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from margins import GRACE

from argc.dsl.ir import Ordering
from argc.tasks import Instance, generate, generated_tasks, score

FRAGMENTS = [
    "[premise: ",
    "[axiom: ",
    "[defeasible r1: ",
    "[strict s: ",
    " AND ",
    " => ",
    " -> ",
    "]",
    "\n",
    "status: overruled",
    "defeated_at: ",
    "; defeater: ",
    "; kind: rebut",
    "; survives_because: ",
    "justified",
    "undecided",
    " under sceptical preferred: undecided",
    ": ",
    "-",
    "ab1",
    "cd2",
    "<answer>",
    "</answer>",
    "[prefer_rule: a > b]",
    "%",
    "```",
]
ANSWERS = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=60).map("".join)


#: Valid directives with 2**61 arguments: a scorer that solves it must stop at its limits.
LAYERED = "[premise: x0]\n" + "".join(
    f"[defeasible a{j}: x{j} => x{j + 1}]\n[defeasible b{j}: x{j} => x{j + 1}]\n" for j in range(60)
)


@pytest.fixture(scope="module")
def instances() -> dict[str, Instance]:
    return {
        name: generate(name, 8, Ordering("weakest-link", "elitist"), 1)
        for name in generated_tasks()
    }


def _check(instance: Instance, response: str) -> None:
    started = time.monotonic()
    result = score(instance, response)
    assert 0.0 <= result.native <= 1.0 and isinstance(result.success, bool) and result.reason
    assert not result.reason.startswith("scorer error"), result.reason
    assert time.monotonic() - started < GRACE


@pytest.mark.parametrize("task", generated_tasks())
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(answer=ANSWERS)
def test_any_answer_gets_a_score_with_a_reason(task: str, answer: str, instances) -> None:
    _check(instances[task], f"<answer>{answer}</answer>")


@pytest.mark.parametrize("task", generated_tasks())
def test_huge_and_mangled_answers(task: str, instances) -> None:
    instance = instances[task]
    for answer in [
        "x" * 200_000,
        instance.reference * 50,
        "\n".join(instance.reference.splitlines()[::-1]),
        instance.reference.replace("]", ""),
        "[" * 5_000,
        "".join(f"[premise: p{i}]\n" for i in range(3_000)),
        LAYERED,
    ]:
        _check(instance, f"<answer>{answer}</answer>")
