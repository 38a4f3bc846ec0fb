"""Fresh-instance datasets for training: the slots of a plan generated in a pool of worker
processes (or as Ray tasks on a cluster, `argc.cluster`) and laid out as TRL's columns, in plan
order. The output depends only on the slots and the prompt settings, not on the number of
workers nor on where they ran.

Columns: `prompt` (the text, or chat messages: an optional system message and the user's),
`instance` (`Instance.to_json()`, read back by the rewards), and `id`, `task`, `level`,
`ordering`, `set` for logging and per-cell metrics.

A KG recipe's slots are instances of its families on its split's pool graphs (the RL pool
unless the recipe says `split: pretrain`; `argc.tasks.kg.families.generate_instance`); its rows
add `depth` and `complexity` (`level` is 0, `ordering` and `set` "-"). Given a cache file
(`argc train` keeps KG_INSTANCES in its output folder), the instances are appended to
CACHE.partial as they are made, so an interrupted build resumes where it stopped, then written
whole to the cache, which later builds of the same plan read back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from argc import __version__
from argc.bench.build import BENCHMARK_SEED_BASE
from argc.cluster import RaySetting
from argc.dsl.errors import InputError
from argc.dsl.ir import Ordering
from argc.files import ResumeMismatch, check_resume, exclusive, open_append, write_output
from argc.recycling import recycled_map
from argc.tasks import GenerationFailed, Instance, generate
from argc.tasks.framework import load_all_tasks, loaded_task_files
from argc.tasks.kg.families import generate_instance
from argc.train.recipes import RETRY_STRIDE, AnyRecipe, KgRecipe, KgSlot, Slot, plan

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


def generate_kg_slot(slot: KgSlot) -> Instance:
    """The instance of a KG slot: its family's instance on its split's graph of its seed."""
    return generate_instance(
        slot.family, slot.depth, slot.complexity, slot.seed, slot.split
    ).instance()


def _generate_json(slot: Slot | KgSlot) -> str:
    made = generate_kg_slot(slot) if isinstance(slot, KgSlot) else generate_slot(slot)
    return made.to_json()


def _generate_shard(slots: Sequence[Slot | KgSlot]) -> list[str]:
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

    rows = [
        row(Instance.from_record(json.loads(record)), prompt_format, system)
        for record in _records(slots, workers, ray)
    ]
    return Dataset.from_list(rows)


def _records(
    slots: Sequence[Slot | KgSlot], workers: int, ray: RaySetting | None, done: int = 0
) -> Iterator[str]:
    """The instance records of the slots, in order, as they are made (locally or on Ray),
    with a progress bar that counts `done` records made before."""
    progress = _progress(done + len(slots), initial=done)
    if ray is not None:
        return _generate_on_ray(slots, ray, progress)
    return iter(tqdm(_locally(_generate_json, slots, workers), **progress))


def _progress(total: int, desc: str = "instances", initial: int = 0) -> dict[str, Any]:
    return {"total": total, "desc": desc, "unit": "instance", "disable": None, "initial": initial}


def generate_locally(
    job: Callable[[Slot], Result], slots: Sequence[Slot], workers: int = 1, desc: str = "instances"
) -> list[Result]:
    """`job(slot)` for every slot, in order, in `workers` local processes (replaced every
    CHUNKS_PER_WORKER chunks; the caller's task files loaded), with a progress bar. `job` must
    be importable by name and generate the slot's instance (`generate_slot`)."""
    return list(tqdm(_locally(job, slots, workers), **_progress(len(slots), desc)))


def _locally(job: Callable[[Any], Result], slots: Sequence[Any], workers: int) -> Iterator[Result]:
    """`job(slot)` for every slot, in order, as each is ready, in recycled local processes."""
    return recycled_map(
        job,
        slots,
        workers=max(1, min(workers, len(slots))),
        chunk=CHUNK,
        per_process=CHUNK * CHUNKS_PER_WORKER,
        initializer=load_all_tasks,
        initargs=(loaded_task_files(),),
    )


def _generate_on_ray(
    slots: Sequence[Slot | KgSlot], ray: RaySetting, progress: dict[str, Any]
) -> Iterator[str]:
    """The instances of `slots`, in order as soon as the shards before are in, generated as
    Ray tasks of CHUNK slots."""
    from argc.cluster import connect, run_tasks

    connect(ray)  # before the progress bar: starting Ray takes seconds
    shards = [slots[start : start + CHUNK] for start in range(0, len(slots), CHUNK)]
    waiting: dict[int, list[str]] = {}
    following = 0
    tasks = run_tasks(_generate_shard, shards, ray, max_calls=CHUNKS_PER_WORKER)
    with closing(tasks) as results, tqdm(**progress) as bar:
        for index, records in results:
            waiting[index] = records
            bar.update(len(records))
            while following in waiting:
                yield from waiting.pop(following)
                following += 1


def build_dataset(
    recipe: AnyRecipe,
    workers: int = 1,
    ray: RaySetting | None = None,
    cache: Path | None = None,
):
    """The dataset of a recipe, in plan order: generated in `workers` local processes, or as
    Ray tasks when `ray` is given (True or a cluster address; by default the setting of
    `generating_on`), with the same rows either way. A KG recipe's instances are kept in
    `cache` when given (resumable; see the module's description)."""
    ray = _RAY[0] if ray is None else ray
    if isinstance(recipe, KgRecipe):
        return kg_dataset(recipe, workers, ray, cache)
    return instances_dataset(plan(recipe), recipe.prompt_format, recipe.system, workers, ray)


# KG recipes ----------------------------------------------------------------------------------

#: The file `argc train` keeps a KG recipe's instances in, inside its output folder.
KG_INSTANCES = "kg-instances.jsonl"
#: The key of a KG cache's first line: the request that made it.
CACHE_KEY = "argc_kg_dataset"


def kg_row(instance: Instance, prompt_format: str, system: str | None) -> dict[str, Any]:
    """One dataset row for a KG instance: `row`'s columns, depth and complexity."""
    meta = instance.meta
    return {
        **row(instance, prompt_format, system),
        "depth": meta["depth"],
        "complexity": meta["complexity"],
    }


def kg_dataset(
    recipe: KgRecipe, workers: int = 1, ray: RaySetting | None = None, cache: Path | None = None
):
    """A `datasets.Dataset` of a KG recipe's slots, in plan order; with `cache`, the
    instances are kept there (resumable)."""
    from datasets import Dataset

    slots = plan(recipe)
    if cache is None:
        records = list(_records(slots, workers, ray))
    else:
        with exclusive(cache):
            records = _cached(slots, Path(cache), workers, ray)
    rows = [
        kg_row(Instance.from_record(json.loads(record)), recipe.prompt_format, recipe.system)
        for record in records
    ]
    return Dataset.from_list(rows)


def dataset_of(instances: Sequence[Instance], prompt_format: str, system: str | None):
    """A `datasets.Dataset` of given instances, one row each in order (a KG instance's row
    with its depth and complexity)."""
    from datasets import Dataset

    return Dataset.from_list(
        [
            (kg_row if "depth" in instance.meta else row)(instance, prompt_format, system)
            for instance in instances
        ]
    )


def _slot_key(slot: KgSlot) -> str:
    """A slot in a cache's plan: family/D/T/index, then /split unless the RL pool's."""
    key = f"{slot.family}/{slot.depth}/{slot.complexity}/{slot.index}"
    return key if slot.split == "rl" else f"{key}/{slot.split}"


def kg_request(slots: Sequence[KgSlot]) -> dict[str, Any]:
    """What identifies a KG cache: the plan (a SHA-256 of its slots) and argc's version."""
    listed = "".join(f"{_slot_key(s)}\n" for s in slots)
    return {
        "slots": len(slots),
        "plan": hashlib.sha256(listed.encode()).hexdigest(),
        "argc_version": __version__,
    }


def _cached(slots: Sequence[KgSlot], cache: Path, workers: int, ray: RaySetting | None) -> list:
    """The slots' instance records from the cache, or made (resuming CACHE.partial) and
    written there."""
    request = kg_request(slots)
    advice = "delete it to build the dataset again"
    if cache.exists():
        done = _cache_lines(cache, request, advice)
        if len(done) != len(slots):
            raise ResumeMismatch(f"{cache} holds {len(done)} of {len(slots)} instances; {advice}")
        return done
    partial = cache.with_name(cache.name + ".partial")
    done = _cache_lines(partial, request, advice) if partial.exists() else []
    header = json.dumps({CACHE_KEY: request}, sort_keys=True)
    write_output(partial, _joined([header, *done]))  # without a torn last line
    with open_append(partial) as sink:
        for record in _records(slots[len(done) :], workers, ray, done=len(done)):
            sink.write((record + "\n").encode("utf-8"))
            sink.flush()
            done.append(record)
    write_output(cache, _joined([header, *done]))
    partial.unlink()
    return done


def _cache_lines(path: Path, request: dict[str, Any], advice: str) -> list[str]:
    """The instance records of a cache (or its partial file) made for `request`, up to a torn
    last line; ResumeMismatch when another request made it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the KG dataset cache: {error}", filename=str(path)) from None
    started = _parsed(lines[0]) if lines else None
    made = started.get(CACHE_KEY) if isinstance(started, dict) else None
    if not isinstance(made, dict):
        raise ResumeMismatch(f"{path} is not a KG dataset cache; {advice}")
    check_resume(path, made, request, f"{advice} ({path})")
    records = []
    for line in lines[1:]:
        if not isinstance(_parsed(line), dict):
            break  # a torn last line: made again
        records.append(line)
    return records


def _parsed(line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None


def _joined(lines: Iterable[str]) -> str:
    return "".join(line + "\n" for line in lines)
