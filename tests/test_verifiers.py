"""argc's tasks as the verifiers taskset `argc-verifiers` (`argc.integrations.verifiers`)."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys

import pytest

from argc.tasks import Instance, score

pytest.importorskip("verifiers")
vf = importlib.import_module("verifiers.v1")
adapter = importlib.import_module("argc.integrations.verifiers")

CASES = [
    ("status_query", {"level": 3}),
    ("counter_argument", {"level": 2, "ordering": "weakest-link"}),
    ("norm_answer", {"level": 5}),
    ("kg_deductive", {"depth": 2, "complexity": 1}),
]


def load(task_name: str, **fields) -> list:
    """The tasks of a taskset loaded by its id, as `vf-eval argc-verifiers` loads it."""
    raw = {"id": "argc-verifiers", "task_name": task_name, "num_tasks": 2, "seed": 3, **fields}
    config = vf.taskset_config_type("argc-verifiers").model_validate(raw)
    return list(vf.load_taskset(config))


def trace_of(task, reply: str | None = None):
    """A rollout's trace of `task`: its prompt, then the model's `reply` when given."""
    nodes = [vf.MessageNode(message=vf.UserMessage(content=task.data.prompt))]
    if reply is not None:
        message = vf.AssistantMessage(content=reply)
        nodes.append(vf.MessageNode(parent=0, message=message, sampled=True))
    return vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key),
        agent=vf.AgentInfo(config=vf.AgentConfig()),
        nodes=nodes,
    )


def rewards(task, reply: str) -> dict:
    """The rewards the task's own scoring records for a one-turn rollout replying `reply`."""
    trace = trace_of(task, reply)
    asyncio.run(task.score(trace))
    return {name: reward.score for name, reward in trace.rewards.items()}


def test_the_id_resolves_to_the_top_level_module_and_its_taskset():
    module = vf.import_taskset("argc-verifiers")
    assert module.__name__ == "argc_verifiers"
    assert module.ArgcTaskset is adapter.ArgcTaskset
    assert set(module.__all__) == set(adapter.__all__)
    assert vf.taskset_config_type("argc-verifiers") is adapter.ArgcTasksetConfig
    assert vf.task_type("argc-verifiers") is adapter.ArgcTask


@pytest.mark.parametrize(("name", "knobs"), CASES)
def test_reference_scores_1_and_garbage_0_through_task_score(name, knobs):
    for task in load(name, **knobs):
        instance = Instance.from_record(task.data.instance)
        assert (task.data.prompt, task.data.reference) == (instance.prompt, instance.reference)
        assert rewards(task, task.data.reference) == {"argc": 1.0}
        assert rewards(task, "no idea, sorry") == {"argc": 0.0}
        assert rewards(task, "") == {"argc": 0.0}
        assert asyncio.run(task.validate(None)) is True


@pytest.mark.parametrize(("name", "knobs"), CASES)
def test_tasks_are_deterministic_per_seed(name, knobs):
    first, again = load(name, **knobs), load(name, **knobs)
    assert [t.data for t in first] == [t.data for t in again]
    assert [t.key for t in first] == [t.key for t in again]
    shifted = load(name, seed=4, **knobs)
    assert shifted[0].data.instance == first[1].data.instance  # task k has seed + k


@pytest.mark.parametrize(("name", "knobs"), CASES)
def test_train_and_eval_splits_are_disjoint(name, knobs):
    train = load(name, num_tasks=3, **knobs)
    held = load(name, num_tasks=3, split="eval", **knobs)
    assert not {t.data.prompt for t in train} & {t.data.prompt for t in held}
    assert not {t.data.id for t in train} & {t.data.id for t in held}
    for task in held:
        record = task.data.instance
        if name.startswith("kg_"):
            assert record["meta"]["split"] == "eval"
        else:
            assert record["seed"] % (2 * adapter.EVAL_SEED_OFFSET) >= adapter.EVAL_SEED_OFFSET


def test_a_tagged_reply_scores_as_its_answer_region_and_partial_answers_partially():
    (task,) = load("status_query", num_tasks=1, seed=9, level=6)
    reply = f"Reasoning first.\n<answer>{task.data.reference}</answer>"
    assert rewards(task, reply) == {"argc": 1.0}
    partial = "\n".join(task.data.reference.splitlines()[:-1])
    expected = score(Instance.from_record(task.data.instance), f"<answer>{partial}</answer>")
    assert 0.0 < expected.native < 1.0
    assert rewards(task, partial)["argc"] == pytest.approx(expected.native)


def test_a_rollout_stops_after_one_turn():
    from verifiers.v1.session import hook_boundary

    (task,) = load("status_query", num_tasks=1)
    (stop,) = task.hooks("stop")
    assert hook_boundary(stop, allow_trace=True) is vf.Trace
    assert asyncio.run(stop(trace_of(task))) is False
    assert asyncio.run(stop(trace_of(task, "an answer"))) is True


def test_load_environment_builds_the_single_agent_env():
    top = importlib.import_module("argc_verifiers")
    env = top.load_environment(task_name="kg_deductive", depth=2, split="eval", num_tasks=1)
    assert isinstance(env, vf.SingleAgentEnv)
    assert isinstance(env.taskset, adapter.ArgcTaskset)
    assert env.config.taskset.id == "argc-verifiers"
    (task,) = list(env.taskset)
    assert task.data.instance["task"] == "kg_deductive"


def test_bad_fields_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="level must be one of 1..15"):
        adapter.ArgcTasksetConfig(level=16)
    with pytest.raises(ValueError, match="unknown argc task"):
        adapter.ArgcTasksetConfig(task_name="no_such_task")
    with pytest.raises(ValueError, match="depth must be in 1..10"):
        adapter.load_environment(task_name="kg_deductive", depth=11)
    with pytest.raises(ValueError, match="family must be one of"):
        adapter.ArgcTasksetConfig(task_name="kg_nothing")
    with pytest.raises(ValueError, match="seed \\+ num_tasks must be at most"):
        adapter.ArgcTasksetConfig(seed=adapter.EVAL_SEED_OFFSET, num_tasks=1)
    with pytest.raises(ValueError):
        adapter.ArgcTasksetConfig(split="test")


def test_import_argc_imports_no_integration():
    code = (
        "import sys, argc, argc.cli, argc.tasks\n"
        "names = ('verifiers', 'argc_verifiers', 'argc.integrations')\n"
        "assert not any(m.startswith(names) for m in sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
