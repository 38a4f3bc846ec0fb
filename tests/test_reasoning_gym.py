"""argc's tasks as Reasoning Gym datasets (`argc.integrations.reasoning_gym`)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from argc.tasks import Instance, score

reasoning_gym = pytest.importorskip("reasoning_gym")
adapter = importlib.import_module("argc.integrations.reasoning_gym")

CASES = [
    ("argc_status_query", {"level": 3}),
    ("argc_counter_argument", {"level": 2, "ordering": "weakest-link"}),
    ("argc_norm_answer", {"level": 5}),
    ("argc_kg_deductive", {"depth": 2, "complexity": 1}),
]


@pytest.mark.parametrize(("name", "knobs"), CASES)
def test_entries_are_deterministic_per_seed_and_lazy(name, knobs):
    first = reasoning_gym.create_dataset(name, size=3, seed=11, **knobs)
    again = reasoning_gym.create_dataset(name, size=3, seed=11, **knobs)
    other = reasoning_gym.create_dataset(name, size=3, seed=12, **knobs)
    assert first._instance.cache_info().currsize == 0  # nothing generated before it is read
    assert [first[k] for k in range(3)] == [again[k] for k in range(3)]
    assert first[1]["metadata"]["instance"] == other[0]["metadata"]["instance"]  # seed + k
    assert list(first) == [first[k] for k in range(3)]
    entry = first[2]
    assert entry["metadata"]["source_dataset"] == name
    assert entry["metadata"]["source_index"] == 2
    wanted = {key: knobs[key] for key in ("level", "depth", "complexity") if key in knobs}
    assert entry["metadata"]["difficulty"] == wanted
    instance = Instance.from_record(entry["metadata"]["instance"])
    assert (entry["question"], entry["answer"]) == (instance.prompt, instance.reference)
    with pytest.raises(IndexError):
        first[3]


@pytest.mark.parametrize(("name", "knobs"), CASES)
def test_own_answer_scores_1_garbage_and_none_0(name, knobs):
    data = reasoning_gym.create_dataset(name, size=2, seed=3, **knobs)
    for entry in data:
        assert data.score_answer(entry["answer"], entry) == 1.0
        assert data.score_answer(None, entry) == 0.0
        assert data.score_answer("", entry) == 0.0
        assert data.score_answer("no idea, sorry", entry) == 0.0
    # The score needs nothing but the entry: the score function of a fresh dataset agrees.
    fresh = reasoning_gym.get_score_answer_fn(name)
    assert fresh(data[0]["answer"], data[0]) == 1.0


def test_a_tagged_reply_scores_as_its_answer_region():
    data = reasoning_gym.create_dataset("argc_status_query", size=1, seed=5, level=2)
    entry = data[0]
    reply = f"Reasoning first.\n<answer>{entry['answer']}</answer>"
    assert data.score_answer(reply, entry) == 1.0


def test_a_partial_answer_gets_argc_s_partial_score():
    data = reasoning_gym.create_dataset("argc_status_query", size=1, seed=9, level=6)
    entry = data[0]
    lines = entry["answer"].splitlines()
    assert len(lines) >= 3
    partial = "\n".join(lines[:-1])
    instance = Instance.from_record(entry["metadata"]["instance"])
    expected = score(instance, f"<answer>{partial}</answer>").native
    assert 0.0 < expected < 1.0
    assert data.score_answer(partial, entry) == pytest.approx(expected)


def test_every_task_and_family_is_registered_once():
    from argc.tasks.framework import generated_tasks
    from argc.tasks.kg.families import FAMILIES

    adapter.register_all()  # tasks loaded since the import (another test's task file)
    names = {f"argc_{task}" for task in generated_tasks()}
    names |= {f"argc_kg_{family}" for family in FAMILIES}
    assert names <= set(reasoning_gym.factory.DATASETS)
    assert adapter.register_all() == []  # a second registration adds nothing, raises nothing
    importlib.reload(adapter)


def test_bad_knobs_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="level must be one of 1..15"):
        reasoning_gym.create_dataset("argc_status_query", size=1, seed=0, level=16)
    with pytest.raises(ValueError, match="ordering must be one of"):
        reasoning_gym.create_dataset("argc_status_query", size=1, seed=0, ordering="best-link")
    with pytest.raises(ValueError, match="depth must be in 1..10"):
        reasoning_gym.create_dataset("argc_kg_deductive", size=1, seed=0, depth=11)
    with pytest.raises(ValueError, match="size must be a positive integer"):
        reasoning_gym.create_dataset("argc_norm_answer", size=0, seed=0)


def test_import_argc_imports_no_integration():
    code = (
        "import sys, argc, argc.cli, argc.tasks\n"
        "assert not any(m.startswith(('reasoning_gym', 'argc.integrations')) for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
