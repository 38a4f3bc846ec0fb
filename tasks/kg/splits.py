"""The split plans of generated KG worlds, their rows and their task corpora.

A split enumerates its (D, T) cells and draws a fixed number of graphs per cell (Appendix
A.2.7 of the paper): `pretrain` D1-D4 x T1-T2 with 400,000 graphs a cell (3.2M), `rl`
D1-D10 x T1-T6 with 20,000 a cell (1.2M) and `eval` the same 60 cells with 80 a cell
(4,800). Graph i of cell (D, T) has the seed given by a sha256 of the split, the cell, i and
the plan's seed, and its rendering a stream seeded the same way, so a split is deterministic
cell by cell. `write_jsonl` (`argc.files`) writes rows atomically.

A corpus (`build_corpus`, `argc kg corpus`) is a task instance for each graph of a split:
row i of cell (D, T) is the instance of a family at (D, T) whose first graph is graph i
(`graph_seed`), the families taking turns in the proportions of a mix (Table 16's
140:60:10:10 by default) over the split's rows in order. A row is the instance's record
(`KgInstance.row`) with its pretraining text, the prompt and the gold trace. Rows are made
in chunks (index ranges of one cell; a local process or a Ray task each, its instances
solved in batches) and written in order, streaming, to `OUT.partial`; `OUT.progress` records
each chunk written, so a rerun continues an interrupted build, and `OUT` appears, renamed,
only once complete. A shard i/n is the i-th of n equal ranges of the split's rows: the
shards' files, concatenated in order, are the whole corpus.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from argc.files import (
    check_resume,
    exclusive,
    open_append,
    regular_output,
    write_jsonl,
    write_output,
)
from argc.recycling import recycled_map
from argc.tasks.kg.families import Exhausted, KgInstance, generate_instances
from argc.tasks.kg.generator import COMPLEXITIES, DEPTHS, KgGraph, generate_graph
from argc.tasks.kg.rendering import render
from argc.tasks.norms.families import stream

if TYPE_CHECKING:
    from argc.cluster import RaySetting

__all__ = [
    "FAMILY_MIX",
    "PLANS",
    "SplitPlan",
    "build_corpus",
    "corpus_chunks",
    "generate_split",
    "graph_row",
    "split_rows",
    "write_jsonl",
]


@dataclass(frozen=True)
class SplitPlan:
    """The cells of a split and its default number of graphs per cell."""

    split: str
    depths: tuple[int, ...]
    complexities: tuple[int, ...]
    per_cell: int

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(D, T) of each cell, D major."""
        return [(d, t) for d in self.depths for t in self.complexities]


PLANS: dict[str, SplitPlan] = {
    "pretrain": SplitPlan("pretrain", (1, 2, 3, 4), (1, 2), 400_000),
    "rl": SplitPlan("rl", tuple(DEPTHS), tuple(COMPLEXITIES), 20_000),
    "eval": SplitPlan("eval", tuple(DEPTHS), tuple(COMPLEXITIES), 80),
}


def graph_seed(split: str, depth: int, complexity: int, index: int, seed: int = 0) -> int:
    """The seed of graph `index` of cell (D, T) of a split: a sha256 of them (63 bits)."""
    key = f"kg-split:{split}:{depth}:{complexity}:{index}:{seed}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


def generate_split(split: str, per_cell: int | None = None, seed: int = 0) -> Iterator[KgGraph]:
    """The graphs of a split, cell by cell (`per_cell` graphs a cell, the plan's by
    default), with a progress bar on long runs."""
    if split not in PLANS:
        raise ValueError(f"unknown split {split!r}: one of {', '.join(PLANS)}")
    plan = PLANS[split]
    count = plan.per_cell if per_cell is None else per_cell
    if count < 0:
        raise ValueError("the number of graphs per cell is not negative")
    total = count * len(plan.cells)
    with tqdm(total=total, desc=f"kg {split}", disable=total < 1000) as progress:
        for depth, complexity in plan.cells:
            for index in range(count):
                yield generate_graph(
                    depth, complexity, graph_seed(split, depth, complexity, index, seed), split
                )
                progress.update()


def graph_row(graph: KgGraph) -> dict:
    """A graph as a JSON-ready row: its world text, its story, D, T, target, split, seed."""
    rng = stream("kg-render", graph.split, graph.depth, graph.complexity, graph.seed)
    return {
        "world": graph.world.to_text(),
        "rendering": render(graph, rng),
        "depth": graph.depth,
        "complexity": graph.complexity,
        "target": graph.target,
        "split": graph.split,
        "seed": graph.seed,
    }


def split_rows(split: str, per_cell: int | None = None, seed: int = 0) -> Iterator[dict]:
    """The rows of a split's graphs, in order."""
    return map(graph_row, generate_split(split, per_cell, seed))


# Task corpora --------------------------------------------------------------------------------

#: Table 16's task mix: 140K deductive, 60K abductive, 10K inductive and 10K analogy tasks.
FAMILY_MIX = {"deductive": 140, "abductive": 60, "inductive": 10, "analogy": 10}
#: Rows of a chunk, the unit of work (a local process's or a Ray task's).
CHUNK = 128
#: Chunks a worker process makes before it is replaced (clingo keeps every symbol it saw).
CHUNKS_PER_WORKER = 40
#: The key of a progress file's first line: the build that started it.
PROGRESS_KEY = "argc_kg_corpus"


@cache
def turns(mix: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """One period of the families' turns, each family `weight` times in a period of the
    weights' sum (divided by their gcd), spread evenly (smooth weighted round robin)."""
    divisor = math.gcd(*(weight for _, weight in mix))
    weights = [(family, weight // divisor) for family, weight in mix]
    total = sum(weight for _, weight in weights)
    current = dict.fromkeys((family for family, _ in weights), 0)
    order = []
    for _ in range(total):
        for family, weight in weights:
            current[family] += weight
        chosen = max(current, key=current.__getitem__)
        current[chosen] -= total
        order.append(chosen)
    return tuple(order)


@dataclass(frozen=True)
class CorpusChunk:
    """Rows `start`..`stop` - 1 of cell number `cell` of a split's corpus."""

    split: str
    per_cell: int
    seed: int
    mix: tuple[tuple[str, int], ...]
    cell: int
    start: int
    stop: int

    def requests(self) -> list[tuple[str, int, int, int]]:
        """(family, D, T, seed) of each row: the families' turns over the split's rows."""
        depth, complexity = PLANS[self.split].cells[self.cell]
        order = turns(self.mix)
        first = self.cell * self.per_cell
        return [
            (
                order[(first + index) % len(order)],
                depth,
                complexity,
                graph_seed(self.split, depth, complexity, index, self.seed),
            )
            for index in range(self.start, self.stop)
        ]


def corpus_line(instance: KgInstance) -> str:
    """An instance's corpus row, one JSON line: its record and its pretraining text (the
    prompt, then the gold trace)."""
    row = {**instance.row(), "text": f"{instance.prompt} {instance.trace}"}
    return json.dumps(row, sort_keys=True) + "\n"


def corpus_rows(chunk: CorpusChunk) -> tuple[str, int]:
    """A chunk's rows as JSON lines (sorted keys), and the number of rows left out: a
    request whose family no graph of its attempts carries (`Exhausted`)."""
    made = generate_instances(chunk.requests(), chunk.split)
    lines = [corpus_line(instance) for instance in made if not isinstance(instance, Exhausted)]
    return "".join(lines), len(made) - len(lines)


def corpus_chunks(
    split: str,
    per_cell: int | None = None,
    mix: Mapping[str, int] = FAMILY_MIX,
    seed: int = 0,
    shard: tuple[int, int] = (0, 1),
    size: int = CHUNK,
    cells: Collection[tuple[int, int]] | None = None,
) -> list[CorpusChunk]:
    """The chunks of shard i/n of a split's corpus: its rows (cell by cell, `per_cell` a
    cell, the plan's by default) from i * total // n to (i + 1) * total // n, cut at the
    cells' ends and every `size` rows. With `cells`, (D, T) pairs, only the rows of those
    cells of the split (each row as in the whole corpus)."""
    if split not in PLANS:
        raise ValueError(f"unknown split {split!r}: one of {', '.join(PLANS)}")
    plan = PLANS[split]
    count = plan.per_cell if per_cell is None else per_cell
    index, shards = shard
    if count < 1 or size < 1 or not 0 <= index < shards:
        raise ValueError("the rows per cell and a chunk's size are positive; a shard is i/n, i < n")
    if not mix or any(weight < 1 for weight in mix.values()):
        raise ValueError("the family mix names families with positive weights")
    pairs = tuple(mix.items())
    chosen = [n for n, cell in enumerate(plan.cells) if cells is None or cell in cells]
    if not chosen:
        raise ValueError(f"no cell of the {split} split is selected")
    total = count * len(chosen)
    first, last = index * total // shards, (index + 1) * total // shards
    chunks = []
    for row in range(first, last):
        slot, position = divmod(row, count)
        if position % size == 0 or row == first:
            stop = min(count, (position // size + 1) * size, last - slot * count)
            chunks.append(CorpusChunk(split, count, seed, pairs, chosen[slot], position, stop))
    return chunks


@dataclass(frozen=True)
class CorpusSummary:
    """What a corpus build wrote: its rows, and the requests left out (`corpus_rows`)."""

    rows: int
    skipped: int


def build_corpus(
    out: str | Path,
    chunks: Sequence[CorpusChunk],
    workers: int = 1,
    ray: RaySetting | None = None,
) -> CorpusSummary:
    """Write the rows of `chunks` in order to `out` (see the module's description): made in
    `workers` local processes or as Ray tasks (`ray`: True or a cluster address), the same
    bytes either way; resumed from `OUT.partial` and `OUT.progress` when a build of the same
    chunks left them; `OUT` replaced atomically once every chunk is written."""
    out = Path(out)
    regular_output(out)
    if ray is not None:
        from argc.cluster import connect

        connect(ray)  # before any file is written: one line when Ray is missing or unreachable
    partial = out.with_name(out.name + ".partial")
    progress = out.with_name(out.name + ".progress")
    with exclusive(out):
        done = _resume(partial, progress, _settings(chunks))
        made = _made(chunks[done["chunks"] :], workers, ray)
        done = _append(partial, progress, chunks, done, made)
        os.replace(partial, out)
        progress.unlink()
    return CorpusSummary(done["rows"], done["skipped"])


def _append(
    partial: Path,
    progress: Path,
    chunks: Sequence[CorpusChunk],
    done: dict[str, int],
    made: Iterator[tuple[str, int]],
) -> dict[str, int]:
    """Append the rows of each chunk made to the partial file, then its record (what is
    written so far) to the progress file, with a progress bar; the last record, once the
    partial file is synced."""
    sizes = [chunk.stop - chunk.start for chunk in chunks]
    initial = sum(sizes[: done["chunks"]])
    bar = tqdm(total=sum(sizes), initial=initial, desc="kg corpus", unit="row", disable=None)
    with open_append(partial) as sink, open_append(progress) as log, bar:
        for text, skipped in made:
            data = text.encode("utf-8")
            sink.write(data)
            sink.flush()
            done = {
                "chunks": done["chunks"] + 1,
                "bytes": done["bytes"] + len(data),
                "rows": done["rows"] + text.count("\n"),
                "skipped": done["skipped"] + skipped,
            }
            log.write((json.dumps(done, sort_keys=True) + "\n").encode())
            log.flush()
            bar.update(sizes[done["chunks"] - 1])
        os.fsync(sink.fileno())
    return done


def _settings(chunks: Sequence[CorpusChunk]) -> dict[str, Any]:
    """What identifies a build: argc's version and its chunks (a SHA-256 of them)."""
    listed = json.dumps([asdict(chunk) for chunk in chunks], sort_keys=True).encode()
    return {
        "argc_version": version("argc"),
        "chunks": len(chunks),
        "plan": hashlib.sha256(listed).hexdigest(),
    }


def _resume(partial: Path, progress: Path, settings: dict[str, Any]) -> dict[str, int]:
    """The last chunk record of an interrupted build of the same settings that the partial
    file holds in full (the partial file cut back to it), or a fresh start; ResumeMismatch
    when another build left them."""
    advice = f"delete {partial.name} and {progress.name} to start over"
    found = partial.exists() and progress.exists()
    records = _records(progress, settings, advice) if found else []
    size = partial.stat().st_size if records else 0
    kept = [record for record in records if record["bytes"] <= size]
    done = kept[-1] if kept else {"chunks": 0, "bytes": 0, "rows": 0, "skipped": 0}
    with open_append(partial) as sink:
        sink.truncate(done["bytes"])
    lines = [{PROGRESS_KEY: settings}, *kept]
    write_output(progress, "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    return done


def _records(progress: Path, settings: dict[str, Any], advice: str) -> list[dict[str, int]]:
    """The chunk records of a progress file, up to a torn last line; ResumeMismatch when
    another build started it."""
    found: list[Any] = []
    for line in progress.read_text(encoding="utf-8").splitlines():
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:
            break  # torn by a build that was stopped while writing it
    started = found[0].get(PROGRESS_KEY) if found and isinstance(found[0], dict) else None
    check_resume(progress, started if isinstance(started, dict) else {}, settings, advice)
    return found[1:]


def _made(
    chunks: Sequence[CorpusChunk], workers: int, ray: RaySetting | None
) -> Iterator[tuple[str, int]]:
    """`corpus_rows` of each chunk, in order: in `workers` recycled local processes, or as
    Ray tasks."""
    if ray is None:
        yield from recycled_map(
            corpus_rows, chunks, workers=workers, chunk=1, per_process=CHUNKS_PER_WORKER
        )
        return
    from argc.cluster import run_tasks

    waiting: dict[int, tuple[str, int]] = {}
    following = 0
    with closing(run_tasks(corpus_rows, chunks, ray, max_calls=CHUNKS_PER_WORKER)) as results:
        for index, result in results:
            waiting[index] = result
            while following in waiting:
                yield waiting.pop(following)
                following += 1
