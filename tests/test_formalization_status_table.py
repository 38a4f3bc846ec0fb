"""The status-table answer to formalization: axioms for the justified literals and rules that
cancel each other for the undecided ones. The benchmark's behavioural success accepts it in
every cell; the training rewards, whose success also needs a structural agreement S of
`min_structure`, give it nothing, while references and renamed references keep full reward."""

from __future__ import annotations

import pytest
from formalization_cases import hand_instance, in_answer, renamed_reference, status_table

from argc.tasks import Instance, generate, score
from argc.tasks.arggym.formalization import FormalizationScore
from argc.tasks.framework import CELLS
from argc.train.rewards import (
    DEFAULT_MIN_STRUCTURE,
    make_gated_reward,
    make_success_reward,
    native_reward,
    success_reward,
)

GATED = make_gated_reward()
BENCHMARK_SUCCESS = make_success_reward(min_structure=0.0)
BENCHMARK_GATED = make_gated_reward(0.8, min_structure=0.0)

HAND = """\
[premise: a]
[premise: b]
[premise: c]
[defeasible r1: a => d]
[defeasible r2: b => -d]
[defeasible r3: c => e]
[defeasible r4: c => -r3]
"""
# r1 and r2 rebut each other with equal strength: d and -d undecided; r4 undercuts r3: e
# overruled, -r3 justified; nothing concludes -e or r3.
HAND_STATUSES = {
    "a": "justified",
    "b": "justified",
    "c": "justified",
    "-a": "overruled",
    "-b": "overruled",
    "-c": "overruled",
    "d": "undecided",
    "-d": "undecided",
    "e": "overruled",
    "-e": "overruled",
    "r3": "overruled",
    "-r3": "justified",
}
HAND_TABLE = """\
[axiom: -r3]
[axiom: a]
[axiom: b]
[axiom: c]
[axiom: table_anchor]
[defeasible table_rp: table_anchor => table_undecided]
[defeasible table_rn: table_anchor => -table_undecided]
[defeasible table_r0: table_undecided => -d]
[defeasible table_r1: table_undecided => d]"""


def rewards(instance: Instance, text: str) -> dict[str, float]:
    """Every reward's value for one answer."""
    completions, records = [in_answer(text)], [instance.to_json()]
    found = {
        "success": success_reward,
        "gated": GATED,
        "benchmark success": BENCHMARK_SUCCESS,
        "benchmark gated": BENCHMARK_GATED,
        "native": native_reward,
    }
    return {name: reward(completions, records)[0] for name, reward in found.items()}


def test_a_hand_made_status_table() -> None:
    instance = hand_instance(HAND, "d,e,c")
    assert instance.target["statuses"] == HAND_STATUSES
    assert status_table(instance) == HAND_TABLE
    result = score(instance, in_answer(HAND_TABLE))
    assert isinstance(result, FormalizationScore)
    # Every status right (B 1) with no directive in common with the reference (S 0).
    assert (result.success, result.structure, result.native) == (True, 0.0, 0.4)
    assert rewards(instance, HAND_TABLE) == {
        "success": 0.0,
        "gated": 0.0,
        "benchmark success": 1.0,
        "benchmark gated": pytest.approx(0.2 + 0.8 * 0.4),
        "native": 0.4,
    }
    # Copying the premises a, b, c from the description: S = 2·3 / (9 + 7).
    copied = status_table(instance, copy_knowledge=True)
    result = score(instance, in_answer(copied))
    assert (result.success, result.structure) == (True, 0.375)
    assert rewards(instance, copied)["success"] == 0.0
    assert rewards(instance, HAND) == {
        "success": 1.0,
        "gated": 1.0,
        "benchmark success": 1.0,
        "benchmark gated": 1.0,
        "native": 1.0,
    }


def test_the_default_threshold_passes_one_retyped_directive_of_five() -> None:
    five = HAND.replace("[defeasible r3: c => e]\n[defeasible r4: c => -r3]\n", "")
    instance = hand_instance(five, "d,c")
    # Five directives, as at level 1: one premise written as an axiom keeps 4 (S 4/5), two
    # keep 3 (S 3/5); the statuses do not change.
    one = five.replace("[premise: c]", "[axiom: c]")
    two = one.replace("[premise: a]", "[axiom: a]")
    assert score(instance, in_answer(one)).structure == 0.8
    assert score(instance, in_answer(two)).structure == 0.6
    assert rewards(instance, one)["success"] == 1.0
    assert rewards(instance, two)["success"] == 0.0
    assert rewards(instance, two)["benchmark success"] == 1.0
    completions, records = [in_answer(one)], [instance.to_json()]
    assert make_success_reward(0.8)(completions, records) == [1.0]  # inclusive
    assert make_success_reward(0.81)(completions, records) == [0.0]


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell(level, ordering) -> None:
    instance = generate("formalization", level, ordering, seed=level)
    for copy_knowledge in (False, True):
        table = status_table(instance, copy_knowledge)
        result = score(instance, in_answer(table))
        assert result.success, result.reason  # the benchmark's definition is met
        assert result.structure < DEFAULT_MIN_STRUCTURE, result.reason
        found = rewards(instance, table)
        assert (found["success"], found["gated"], found["benchmark success"]) == (0.0, 0.0, 1.0)
    for faithful in (instance.reference, renamed_reference(instance.reference, level)):
        found = rewards(instance, faithful)
        assert (found["success"], found["gated"]) == (1.0, 1.0)
