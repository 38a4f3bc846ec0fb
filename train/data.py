"""Fresh-instance datasets for training: the slots of a plan generated in a pool of worker
processes (or as Ray tasks on a cluster, `argc.cluster`) and laid out as TRL's columns, in plan
order. The output depends only on the slots and the prompt settings, not on the number of
workers nor on where they ran.

Columns: `prompt` (the text, or chat messages: an optional system message and the user's),
`instance` (`Instance.to_json()`, read back by the rewards), and `id`, `task`, `level`,
`ordering`, `set` for logging and per-cell metrics.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any, TypeVar

from tqdm import tqdm

from argc.bench.build import BENCHMARK_SEED_BASE
from argc.cluster import RaySetting
from argc.dsl.ir import Ordering
from argc.recycling import recycled_map
from argc.tasks import GenerationFailed, Instance, generate
from argc.tasks.framework import load_all_tasks, loaded_task_files
from argc.train.recipes import RETRY_STRIDE, Recipe, Slot, plan

Result = TypeVar("Result")

#: Replacement seeds tried after a slot's own seed fails to generate.
MAX_RETRIES = 8
#: Slots handed to a worker at a time (a local pool's chunk, a Ray task's shard).
CHUNK = 4
#: Chunks a worker process generates before it is replaced (recycles clingo's symbol memory).
CHUNKS_PER_WORKER = 50


def generate_slot(slot: Slot) -> Instance:
    """The instance of a slot. When its seed fails to generate (GenerationFailed), the seeds
    seed + j·RETRY_STRIDE (j = 1..MAX_RETRIES, modulo BENCHMARK_SEED_BASE) are tried in turn."""
    ordering = Ordering(slot.ordering, slot.set)
    for attempt in range(MAX_RETRIES + 1):
        seed = (slot.seed + attempt * RETRY_STRIDE) % BENCHMARK_SEED_BASE
        try:
            return generate(slot.task, slot.level, ordering, seed)
        except GenerationFailed:
            continue
    raise GenerationFailed(
        f"{slot.task} level {slot.level} {ordering}: no instance from seed {slot.seed} or its"
        f" {MAX_RETRIES} replacements"
    )


def _generate_json(slot: Slot) -> str:
    return generate_slot(slot).to_json()


def _generate_shard(slots: Sequence[Slot]) -> list[str]:
    """The instances of consecutive slots (one Ray task)."""
    return [_generate_json(slot) for slot in slots]


#: Where `build_dataset` generates when not told: None (local processes) or a Ray setting.
_RAY: list[RaySetting | None] = [None]


@contextmanager
def generating_on(ray: RaySetting | None) -> Iterator[None]:
    """Within the block, `build_dataset` generates as Ray tasks (`ray`: True or a cluster
    address; None: in local processes) unless told otherwise; `argc train --ray` uses it."""
    before, _RAY[0] = _RAY[0], ray
    try:
        yield
    finally:
        _RAY[0] = before


def prompt_of(text: str, prompt_format: str, system: str | None) -> str | list[dict[str, str]]:
    """The prompt column: chat messages, or the text (after the system prompt, when given)."""
    if prompt_format == "text":
        return f"{system}\n\n{text}" if system else text
    messages = [{"role": "system", "content": system}] if system else []
    return [*messages, {"role": "user", "content": text}]


def row(instance: Instance, prompt_format: str, system: str | None) -> dict[str, Any]:
    """One dataset row for an instance."""
    return {
        "prompt": prompt_of(instance.prompt, prompt_format, system),
        "instance": instance.to_json(),
        "id": instance.id,
        "task": instance.task,
        "level": instance.level,
        "ordering": instance.ordering,
        "set": instance.set,
    }


def instances_dataset(
    slots: Sequence[Slot],
    prompt_format: str = "chat",
    system: str | None = None,
    workers: int = 1,
    ray: RaySetting | None = None,
):
    """A `datasets.Dataset` with one row per slot, in order; `workers` > 1 generates in that
    many processes, `ray` (True or a cluster address) as Ray tasks of CHUNK slots each."""
    from datasets import Dataset

    if ray is not None:
        records = _generate_on_ray(slots, ray, _progress(len(slots)))
    else:
        records = generate_locally(_generate_json, slots, workers)
    rows = [
        row(Instance.from_record(json.loads(record)), prompt_format, system) for record in records
    ]
    return Dataset.from_list(rows)


def _progress(total: int, desc: str = "instances") -> dict[str, Any]:
    return {"total": total, "desc": desc, "unit": "instance", "disable": None}


def generate_locally(
    job: Callable[[Slot], Result], slots: Sequence[Slot], workers: int = 1, desc: str = "instances"
) -> list[Result]:
    """`job(slot)` for every slot, in order, in `workers` local processes (replaced every
    CHUNKS_PER_WORKER chunks; the caller's task files loaded), with a progress bar. `job` must
    be importable by name and generate the slot's instance (`generate_slot`)."""
    found = recycled_map(
        job,
        slots,
        workers=max(1, min(workers, len(slots))),
        chunk=CHUNK,
        per_process=CHUNK * CHUNKS_PER_WORKER,
        initializer=load_all_tasks,
        initargs=(loaded_task_files(),),
    )
    return list(tqdm(found, **_progress(len(slots), desc)))


def _generate_on_ray(slots: Sequence[Slot], ray: RaySetting, progress: dict[str, Any]) -> list[str]:
    """The instances of `slots`, in order, generated as Ray tasks of CHUNK slots."""
    from argc.cluster import connect, run_tasks

    connect(ray)  # before the progress bar: starting Ray takes seconds
    shards = [slots[start : start + CHUNK] for start in range(0, len(slots), CHUNK)]
    found: list[list[str] | None] = [None] * len(shards)
    tasks = run_tasks(_generate_shard, shards, ray, max_calls=CHUNKS_PER_WORKER)
    with closing(tasks) as results, tqdm(**progress) as bar:
        for index, records in results:
            found[index] = records
            bar.update(len(records))
    return [record for records in found for record in records]


def build_dataset(recipe: Recipe, workers: int = 1, ray: RaySetting | None = None):
    """The dataset of a recipe, in plan order: generated in `workers` local processes, or as
    Ray tasks when `ray` is given (True or a cluster address; by default the setting of
    `generating_on`), with the same rows either way."""
    ray = _RAY[0] if ray is None else ray
    return instances_dataset(plan(recipe), recipe.prompt_format, recipe.system, workers, ray)
