"""The training rewards: adapters over the scorers that accept plain and chat completions,
return one float per completion and never raise."""

from __future__ import annotations

import os
import re

import pytest

from argc.dsl.ir import ORDERINGS
from argc.tasks import Instance, generate, generated_tasks, score
from argc.tasks.answers import MAX_ANSWER_CHARS, answer_region, answer_regions
from argc.train.rewards import (
    DEFAULT_MIN_STRUCTURE,
    DEFAULT_PROCESS_RATIO,
    REWARDS,
    format_reward,
    make_gated_reward,
    make_success_reward,
    native_reward,
    process_quality,
    rewards_from_config,
    success_reward,
)

os.environ["HF_HUB_OFFLINE"] = "1"

GATED = make_gated_reward(DEFAULT_PROCESS_RATIO)
MODES = {
    "success": success_reward,
    "native": native_reward,
    "gated": GATED,
    "format": format_reward,
}


@pytest.fixture(scope="module")
def instances() -> dict[str, Instance]:
    """One level-1 instance of every registered task."""
    return {name: generate(name, 1, ORDERINGS[0], 0) for name in generated_tasks()}


def wrapped(text: str) -> str:
    return f"Reasoning first.\n<answer>{text}</answer>"


def chat(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


@pytest.mark.parametrize("task", generated_tasks())
def test_reference_gets_the_scorers_value_in_every_mode(instances, task):
    instance = instances[task]
    record, completion = instance.to_json(), wrapped(instance.reference)
    expected = score(instance, completion)
    assert expected.success
    for completions in ([completion], [chat(completion)]):
        assert success_reward(completions, [record]) == [1.0]
        assert native_reward(completions, [record]) == [expected.native]
        process = process_quality(instance, instance.reference, expected)
        assert process == 1.0  # references are verified minimal / exact
        assert GATED(completions, [record]) == [1.0]
        assert format_reward(completions, [record]) == [1.0]


@pytest.mark.parametrize("task", generated_tasks())
def test_garbage_and_missing_regions_score_zero(instances, task):
    instance = instances[task]
    record = instance.to_json()
    cases = ["I cannot say.", instance.reference, "<answer>unclosed " + instance.reference]
    for reward in MODES.values():
        assert reward(cases, [record] * len(cases)) == [0.0, 0.0, 0.0]
    unreadable = [wrapped("no such answer ###"), wrapped("   ")]
    for name in ("success", "native", "gated"):
        assert MODES[name](unreadable, [record] * 2) == [0.0, 0.0]
    # One region the reader rejects, or a blank one: the region half of the format reward only.
    assert format_reward(unreadable, [record] * 2) == [0.5, 0.5]


def test_mixed_batch_gives_one_float_per_completion_and_never_raises(instances):
    status, attack = instances["status_query"], instances["attack"]
    completions = [
        wrapped(status.reference),
        chat(wrapped(attack.reference)),
        None,
        42,
        {"role": "assistant", "content": "x"},
        [{"role": "user", "content": wrapped(status.reference)}],
        [{"role": "assistant", "content": None}],
        [{"role": "assistant", "content": [{"type": "text", "text": "x"}]}],
        ["not a message"],
        wrapped(status.reference),
        wrapped(status.reference),
        wrapped(status.reference),
    ]
    records = [status.to_json(), attack.to_json()] + [status.to_json()] * 7
    records += [None, "{not json", 7]
    for name, reward in MODES.items():
        found = reward(completions, records, prompts=None, trainer_state=None)
        assert len(found) == len(completions), name
        assert all(isinstance(value, float) for value in found), name
        assert found[:2] == [1.0, 1.0], name
        assert found[2:] == [0.0] * (len(completions) - 2), name
    # A batch longer than its instance column: the missing instances score 0.
    assert success_reward([wrapped(status.reference)] * 2, [status.to_json()]) == [1.0, 0.0]


def test_last_assistant_message_counts(instances):
    instance = instances["status_query"]
    conversation = [
        {"role": "assistant", "content": "<answer>wrong</answer>"},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": wrapped(instance.reference)},
    ]
    assert success_reward([conversation], [instance.to_json()]) == [1.0]


def test_gated_reward_weighs_the_economy_of_an_intervention(instances):
    instance = instances["counter_argument"]
    minimum = instance.target["min_directives"]
    padded = wrapped(instance.reference + "\n[premise: zz_fresh]")  # one rejected extra step
    assert score(instance, padded).success
    record = instance.to_json()
    for ratio in (0.0, 0.3, 0.8, 1.0):
        expected = (1 - ratio) + ratio * minimum / (minimum + 1)
        assert make_gated_reward(ratio)([padded], [record]) == [pytest.approx(expected)]
    assert success_reward([padded], [record]) == [1.0]
    assert native_reward([padded], [record]) == [pytest.approx(0.5 + 0.5 * minimum / (minimum + 1))]
    # A failed answer is gated to zero whatever its partial credit.
    partial = wrapped(instance.reference.splitlines()[0])
    if not score(instance, partial).success:
        assert GATED([partial], [record]) == [0.0]


def test_format_reward_counts_regions(instances):
    instance = instances["status_query"]
    record = instance.to_json()
    ref = instance.reference
    twice = f"<answer>{ref}</answer> then <ANSWER>{ref}</ANSWER>"
    last_bad = f"<answer>{ref}</answer> then <answer>nonsense ###</answer>"
    assert format_reward([twice, last_bad], [record] * 2) == [0.5, 0.0]
    assert success_reward([twice, last_bad], [record] * 2) == [1.0, 0.0]


def test_answer_regions_match_a_lazy_regular_expression(instances):
    texts = [
        "",
        "<answer>a</answer>",
        "<answer>a<answer>b</answer>c</answer>",
        "x<ANSWER>a</Answer><answer>b",
        "<answer></answer><answer>\nz\n</answer>",
        "</answer><answer>q</answer></answer>",
    ]
    pattern = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
    for text in texts:
        assert answer_regions(text) == pattern.findall(text)
        regions = answer_regions(text)
        assert (regions[-1] if regions else None) == answer_region(text)
    adversarial = "<answer>" * (MAX_ANSWER_CHARS // len("<answer>"))
    record = instances["status_query"].to_json()
    for reward in MODES.values():
        assert reward([adversarial], [record]) == [0.0]


def test_completions_over_the_cap_score_zero(instances):
    instance = instances["status_query"]
    long = "x" * MAX_ANSWER_CHARS + wrapped(instance.reference)
    assert success_reward([long], [instance.to_json()]) == [0.0]


@pytest.mark.parametrize("task", sorted(set(generated_tasks()) - {"formalization"}))
def test_min_structure_changes_nothing_outside_formalization(instances, task):
    instance = instances[task]
    record = instance.to_json()
    wrong = wrapped(instance.reference.splitlines()[0] + "\n[premise: zz_fresh]")
    right = wrapped(instance.reference)
    expected = [float(score(instance, text).success) for text in (right, wrong)]
    for least in (0.0, DEFAULT_MIN_STRUCTURE, 1.0):
        assert make_success_reward(least)([right, wrong], [record] * 2) == expected


def test_rewards_from_config():
    success, gated, fmt, strict = rewards_from_config(
        [
            "success",
            {"gated": {"process_ratio": 0.3, "min_structure": 0.5}},
            {"format": None},
            {"success": {"min_structure": 0.9}},
        ]
    )
    assert fmt is format_reward
    assert success.__name__ == strict.__name__ == "success_reward"
    assert "min_structure 0.75" in success.__doc__ and "min_structure 0.9" in strict.__doc__
    assert gated.__name__ == "gated_reward" and "min_structure 0.5" in gated.__doc__
    assert rewards_from_config(["gated"])[0].__name__ == "gated_reward"
    assert set(REWARDS) == {
        *("success", "native", "format", "gated"),
        *("answer_change", "record_exact", "mr"),
        *("kg_gated", "kg_answer", "kg_process"),
    }
    assert (
        "process_ratio 0.5"
        in rewards_from_config([{"kg_gated": {"process_ratio": 0.5}}])[0].__doc__
    )
    for bad in (
        ["nope"],
        [{"success": {"x": 1}}],
        [{"native": {"min_structure": 0.5}}],
        [{"success": {"min_structure": 1.5}}],
        [{"success": {"min_structure": float("nan")}}],
        [{"success": {"min_structure": "0.5"}}],
        [{"gated": {"min_structure": -0.1}}],
        [{"kg_gated": {"process_ratio": 2}}],
        [{"kg_answer": {"process_ratio": 0.5}}],
        [{"gated": {"ratio": 0.5}}],
        [{"gated": {"process_ratio": 1.5}}],
        [{"gated": 0.5}],
        [["gated"]],
    ):
        with pytest.raises(ValueError):
            rewards_from_config(bad)
