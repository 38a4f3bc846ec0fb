"""argc's tasks as Reasoning Gym datasets.

Importing this module registers `argc_<task>` for every task of argc's registry (ArgGYM's
twelve, the normative-world tasks, tasks loaded before the import) and `argc_kg_<family>`
for the KG families, once per process::

    import reasoning_gym
    import argc.integrations.reasoning_gym  # noqa: F401 - registers the datasets

    data = reasoning_gym.create_dataset("argc_status_query", size=100, seed=7, level=3)
    kg = reasoning_gym.create_dataset("argc_kg_deductive", size=10, seed=0, depth=2, complexity=1)
    score = data.score_answer(answer, entry=data[0])

Entry k is generated, when first asked for, from seed `seed + k` (argc's training slots:
a seed that generates nothing is replaced by the same later seeds everywhere), so a dataset
is the same on every machine. `answer` is the instance's reference answer;
`metadata["instance"]` the instance's record, from which alone `score_answer` scores, with
argc's native score (partial credit where the task gives it). Tagged tasks take the text of
an `<answer>` region or the bare answer; KG tasks the whole solution.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

from argc.integrations.instances import (
    check_family,
    check_task,
    kg_instance,
    score_reply,
    task_instance,
)
from argc.tasks import Instance
from argc.tasks.framework import generated_tasks
from argc.tasks.kg.families import FAMILIES

__all__ = ["ArgcConfig", "ArgcDataset", "KgConfig", "register_all"]

#: Instances kept per dataset object (an entry is generated once however often it is read).
CACHED = 1024


@dataclasses.dataclass
class ArgcConfig:
    """An argc task at one curriculum level and preference ordering."""

    task: str = "status_query"
    level: int = 1
    ordering: str = "last-link"
    set_comparison: str = "elitist"
    seed: int | None = None
    size: int = 500

    def validate(self) -> None:
        check_task(self.task, self.level, self.ordering, self.set_comparison)
        _check_size(self.size)

    def instance(self, seed: int) -> Instance:
        return task_instance(self.task, self.level, self.ordering, self.set_comparison, seed)

    def difficulty(self) -> dict[str, Any]:
        return {"level": self.level}


@dataclasses.dataclass
class KgConfig:
    """A KG task family at reasoning depth D and environment complexity T."""

    family: str = "deductive"
    depth: int = 1
    complexity: int = 1
    split: str = "rl"
    seed: int | None = None
    size: int = 500

    def validate(self) -> None:
        check_family(self.family, self.depth, self.complexity)
        if self.split not in ("pretrain", "rl", "eval"):
            raise ValueError("split must be pretrain, rl or eval")
        _check_size(self.size)

    def instance(self, seed: int) -> Instance:
        return kg_instance(self.family, self.depth, self.complexity, seed, self.split)

    def difficulty(self) -> dict[str, Any]:
        return {"depth": self.depth, "complexity": self.complexity}


def _check_size(size: int) -> None:
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be a positive integer, not {size!r}")


class ArgcDataset(ProceduralDataset):
    """Entries of one argc task (or KG family), generated lazily, deterministic per seed."""

    def __init__(self, config: ArgcConfig | KgConfig) -> None:
        super().__init__(config=config, seed=config.seed, size=config.size)
        self.name = _name(config)
        self._instance = lru_cache(maxsize=CACHED)(config.instance)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        if not 0 <= idx < self.size:
            raise IndexError(f"{self.name} has {self.size} entries, not index {idx}")
        instance = self._instance(self.seed + idx)
        return {
            "question": instance.prompt,
            "answer": instance.reference,
            "metadata": {
                "source_dataset": self.name,
                "source_index": idx,
                "instance": instance.record(),
                "difficulty": self.config.difficulty(),
            },
        }

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """argc's native score of `answer` against the entry's own instance; 0.0 for None."""
        return score_entry(answer, entry)


def score_entry(answer: str | None, entry: dict[str, Any]) -> float:
    """The native score of an answer to an entry, from `entry["metadata"]["instance"]`."""
    return score_reply(entry["metadata"]["instance"], answer)


def _name(config: ArgcConfig | KgConfig) -> str:
    if isinstance(config, KgConfig):
        return f"argc_kg_{config.family}"
    return f"argc_{config.task}"


def _config_class(base: type, field: str, value: str) -> type:
    """`base` with `field` defaulting to `value`: the config of one registered dataset."""
    name = f"{base.__name__}_{value}"
    return dataclasses.make_dataclass(
        name, [(field, str, dataclasses.field(default=value))], bases=(base,)
    )


def register_all() -> list[str]:
    """Register every task and KG family not registered yet; return the names registered."""
    added = []
    for task in generated_tasks():
        name = f"argc_{task}"
        if name not in DATASETS:
            register_dataset(name, ArgcDataset, _config_class(ArgcConfig, "task", task))
            added.append(name)
    for family in FAMILIES:
        name = f"argc_kg_{family}"
        if name not in DATASETS:
            register_dataset(name, ArgcDataset, _config_class(KgConfig, "family", family))
            added.append(name)
    return added


register_all()
