"""argc's tasks as a verifiers taskset (`verifiers==0.4.0`, its `verifiers.v1` API).

The taskset id is `argc-verifiers`: verifiers imports a taskset id as a module, `-` read as
`_`, so it finds the top-level package `argc_verifiers`, which re-exports this one::

    vf-eval argc-verifiers --env.taskset.task-name status_query --env.taskset.level 3

    import verifiers.v1 as vf
    from argc.integrations.verifiers import ArgcTasksetConfig, load_environment

    env = load_environment(task_name="kg_deductive", depth=2, split="eval", num_tasks=50)
    taskset = vf.load_taskset(ArgcTasksetConfig(task_name="status_query", level=3))
    task = next(iter(taskset))  # task.data.instance: the record; task.data.reference
    await task.score(trace)  # trace.rewards["argc"]: argc's native score of trace.last_reply

`task_name` is an ArgGYM or normative task of argc's registry, or `kg_<family>` for a KG family
(`depth`, `complexity`; `level`, `ordering`, `set_comparison` are for the others). Task k is
generated from seed `seed + k`, as argc's training slots are (the Reasoning Gym adapter's
instances), so a taskset is the same on every machine. Splits hold disjoint instances:

* ArgGYM and normative tasks: `train` uses seeds `seed + k`, `eval` seeds
  `EVAL_SEED_OFFSET + seed + k`, with `seed + num_tasks <= EVAL_SEED_OFFSET` (5,000,000, half
  of RETRY_STRIDE). A seed that generates nothing is replaced by `seed + j * RETRY_STRIDE`
  modulo 10^9, which keeps its residue modulo RETRY_STRIDE, so replacements stay in their
  split. (An offset of 10^9 would not do: slot seeds are taken modulo 10^9.)
* KG families: graph `seed + k` of argc's KG split `rl` (train) or `eval` (held-out graphs).

A rollout is single-turn (a `@stop` ends it before a second model call); its reward `argc` is
argc's native score (partial credit where the task gives it) of the last reply, from the task's
instance record alone, scored off the event loop. Tagged tasks read the last `<answer>` region,
or the whole reply when it has none; KG tasks read the whole reply.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any, Literal, Self

import verifiers.v1 as vf
from pydantic import Field, model_validator

from argc.integrations.instances import (
    check_family,
    check_task,
    kg_instance,
    score_reply,
    task_instance,
)
from argc.tasks import Instance
from argc.train.recipes import RETRY_STRIDE

__all__ = [
    "EVAL_SEED_OFFSET",
    "TASKSET_ID",
    "ArgcData",
    "ArgcTask",
    "ArgcTaskset",
    "ArgcTasksetConfig",
    "load_environment",
]

#: The id verifiers knows the taskset by (`vf-eval argc-verifiers`).
TASKSET_ID = "argc-verifiers"
#: The eval split's seed offset for ArgGYM and normative tasks; also the train split's bound.
EVAL_SEED_OFFSET = RETRY_STRIDE // 2
#: The KG split whose graphs each split draws from.
KG_SPLITS = {"train": "rl", "eval": "eval"}


class ArgcTasksetConfig(vf.TasksetConfig):
    """Which argc task, at which difficulty, how many instances from which seed and split."""

    id: str = TASKSET_ID
    task_name: str = "status_query"
    """An ArgGYM or normative task of argc's registry, or kg_<family> for a KG family."""
    level: int = 1
    """Curriculum level (not for KG)."""
    ordering: str = "last-link"
    """Preference ordering principle (not for KG)."""
    set_comparison: str = "elitist"
    """Set comparison of the ordering (not for KG)."""
    depth: int = 1
    """KG reasoning depth D."""
    complexity: int = 1
    """KG environment complexity T."""
    num_tasks: int = Field(500, ge=1)
    """How many tasks: task k is generated from seed + k."""
    seed: int = Field(0, ge=0)
    """The first task's seed (seed + num_tasks <= EVAL_SEED_OFFSET)."""
    split: Literal["train", "eval"] = "train"
    """train or eval: disjoint instances."""

    @property
    def family(self) -> str | None:
        """The KG family of a `kg_<family>` task, else None."""
        return self.task_name.removeprefix("kg_") if self.task_name.startswith("kg_") else None

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.family is not None:
            check_family(self.family, self.depth, self.complexity)
        else:
            check_task(self.task_name, self.level, self.ordering, self.set_comparison)
        if self.seed + self.num_tasks > EVAL_SEED_OFFSET:
            raise ValueError(f"seed + num_tasks must be at most {EVAL_SEED_OFFSET:,}")
        return self

    def instance(self, k: int) -> Instance:
        """The instance of task k."""
        seed = self.seed + k
        if self.family is not None:
            split = KG_SPLITS[self.split]
            return kg_instance(self.family, self.depth, self.complexity, seed, split)
        if self.split == "eval":
            seed += EVAL_SEED_OFFSET
        return task_instance(self.task_name, self.level, self.ordering, self.set_comparison, seed)


class ArgcData(vf.TaskData):
    """A task's wire data: its prompt, its instance record (JSON form) and reference reply."""

    instance: dict[str, Any]
    reference: str


class ArgcTask(vf.Task[ArgcData, vf.State, vf.TaskConfig]):
    """One argc instance: a single model turn, rewarded with argc's native score."""

    @vf.stop
    async def single_turn(self, trace: vf.Trace) -> bool:
        """Refuse every model call after the first."""
        return trace.num_turns >= 1

    @vf.reward
    async def argc(self, trace: vf.Trace) -> float:
        """argc's native score of the last reply against the task's instance."""
        return await asyncio.to_thread(score_reply, self.data.instance, trace.last_reply)

    async def validate(self, runtime: vf.Runtime) -> bool:
        """Whether the reference reply scores 1.0 (`vf-validate`'s gold check)."""
        found = await asyncio.to_thread(score_reply, self.data.instance, self.data.reference)
        return found == 1.0


class ArgcTaskset(vf.Taskset[ArgcTask, ArgcTasksetConfig]):
    """`num_tasks` instances of one argc task, generated lazily in order."""

    def load(self) -> Iterator[ArgcTask]:
        for k in range(self.config.num_tasks):
            yield ArgcTask(_data(self.config.instance(k)), self.config.task)


def _data(instance: Instance) -> ArgcData:
    return ArgcData(
        id=instance.id,
        prompt=instance.prompt,
        instance=json.loads(instance.to_json()),
        reference=instance.reference,
    )


def load_environment(task_name: str = "status_query", **fields: Any) -> vf.Env:
    """The single-agent verifiers environment over the taskset of `task_name` and `fields`
    (the other fields of ArgcTasksetConfig)."""
    taskset = ArgcTasksetConfig(task_name=task_name, **fields)
    return vf.load_environment(vf.SingleAgentEnvConfig(taskset=taskset))
