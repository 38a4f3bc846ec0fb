"""Building the frozen benchmark: `argc bench build` and `argc bench merge`.

A cell is (task, level, ordering). For each cell the build scans the seeds
`BENCHMARK_SEED_BASE + k`, k = 0..SEED_BOUND-1, in order and keeps the first
INSTANCES_PER_CELL that generate. Cells are built in a pool of worker processes; each finished
cell is written at once to `OUT/cells/<task>-L<level>-<principle>-<set>.json` (level on two
digits), so a rerun skips the cells already there (resume). Once every cell is present the
build writes `rows.jsonl`, `rows.parquet`, `cells.json` and `manifest.json`. The cell files
stay in `cells/` (they are the input of a resumed build and of a merge) and are not listed in
the manifest of a benchmark.

A shard `i/n` builds the cells whose index in the sorted list of cells is `i` modulo `n`; its
directory holds its cell files and a shard manifest (the shard, its cells and their hashes).
`merge` combines the shards `0..n-1` of one build into the benchmark that a single build
writes, byte for byte.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, fields
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.bench.manifest import canonical_json, read_manifest, verify, write_manifest
from argc.cluster import RaySetting, add_ray_option, connect, ray_module
from argc.dsl.errors import ArgcError
from argc.dsl.ir import ORDERINGS, Ordering
from argc.files import write_output as write_atomic
from argc.options import positive_int
from argc.tasks import REGISTRY, GenerationFailed, Instance, generate, suite_tasks
from argc.tasks.framework import LEVELS

TASKSET = "argc-arggym-v2"
PROMPT_VERSION = 2
SCORING_VERSION = 2
#: Benchmark seeds start here; training and fresh instances use seeds below it.
BENCHMARK_SEED_BASE = 1_000_000_000
SEED_BOUND = 64
INSTANCES_PER_CELL = 2
#: The files of a benchmark directory that the manifest lists.
FILES = ("rows.jsonl", "rows.parquet", "cells.json")
CELLS = "cells"
#: Cells one worker process builds before it is replaced (recycles clingo's symbol memory).
CELLS_PER_WORKER = 8
#: Instance fields stored as canonical JSON strings in the Parquet file.
JSON_COLUMNS = ("target", "meta")
INTEGER_COLUMNS = ("level", "seed")
#: Rows are sorted by these fields.
ROW_ORDER = ("task", "level", "ordering", "set", "seed")
EXIT_OK, EXIT_FAILED, EXIT_INPUT_ERROR = 0, 1, 2


class IncompleteCells(ArgcError):
    """Some cells found fewer than INSTANCES_PER_CELL instances within SEED_BOUND seeds."""


@dataclass(frozen=True, order=True)
class Cell:
    task: str
    level: int
    principle: str
    set_comparison: str

    @property
    def key(self) -> str:
        return f"{self.task}/{self.level}/{self.principle}/{self.set_comparison}"

    @property
    def filename(self) -> str:
        return f"{self.task}-L{self.level:02d}-{self.principle}-{self.set_comparison}.json"

    @property
    def ordering(self) -> Ordering:
        return Ordering(self.principle, self.set_comparison)


def select_cells(
    tasks: Sequence[str] | None = None, levels: Sequence[int] | None = None
) -> list[Cell]:
    """The sorted cells of a build: every registered ArgGYM task (or `tasks`) × level ×
    ordering."""
    tasks = suite_tasks() if tasks is None else sorted(set(tasks))
    levels = LEVELS if levels is None else sorted(set(levels))
    unknown = [task for task in tasks if task not in REGISTRY]
    if unknown:
        known = ", ".join(REGISTRY.names())
        raise ArgcError(f"unknown task(s) {', '.join(unknown)}; known: {known}")
    if not tasks or not set(levels) <= set(LEVELS):
        raise ArgcError(f"tasks must be given and levels must lie in 1..{LEVELS[-1]}")
    return sorted(
        Cell(task, level, ordering.principle, ordering.set_comparison)
        for task in tasks
        for level in levels
        for ordering in ORDERINGS
    )


def parse_shard(text: str) -> tuple[int, int]:
    """`i/n` with 0 <= i < n."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ArgcError(f"a shard is i/n (e.g. 0/4), not '{text}'") from None
    if not 0 <= index < count:
        raise ArgcError(f"shard {text}: need 0 <= i < n")
    return index, count


def settings(cells: Sequence[Cell]) -> dict[str, Any]:
    """What identifies a build: versions, seed scan and its tasks (and levels, when not all)."""
    found: dict[str, Any] = {
        "taskset": TASKSET,
        "argc_version": version("argc"),
        "prompt_version": PROMPT_VERSION,
        "scoring_version": SCORING_VERSION,
        "seed_base": BENCHMARK_SEED_BASE,
        "seed_bound": SEED_BOUND,
        "instances_per_cell": INSTANCES_PER_CELL,
        "tasks": sorted({cell.task for cell in cells}),
    }
    levels = sorted({cell.level for cell in cells})
    if tuple(levels) != LEVELS:
        found["levels"] = levels
    return found


def _cell_settings() -> dict[str, Any]:
    """What a cell file was built with; a cell file built otherwise is rebuilt."""
    return {
        "taskset": TASKSET,
        "prompt_version": PROMPT_VERSION,
        "argc_version": version("argc"),
        "seed_base": BENCHMARK_SEED_BASE,
        "seed_bound": SEED_BOUND,
        "instances_per_cell": INSTANCES_PER_CELL,
    }


def build_cell(cell: Cell) -> dict[str, Any]:
    """Scan a cell's seeds: its rows (JSON lines), accepted and rejected seeds, the generator's
    rejections by reason summed over the accepted instances, and the seeds scanned."""
    rows: list[str] = []
    accepted: list[int] = []
    rejected: list[dict[str, Any]] = []
    rejections: Counter[str] = Counter()
    scanned = 0
    for seed in range(BENCHMARK_SEED_BASE, BENCHMARK_SEED_BASE + SEED_BOUND):
        scanned += 1
        try:
            instance = generate(cell.task, cell.level, cell.ordering, seed)
        except GenerationFailed as error:
            rejected.append({"seed": seed, "reason": str(error)})
            continue
        rows.append(instance.to_json())
        accepted.append(seed)
        rejections.update(instance.meta["rejections"])
        if len(accepted) == INSTANCES_PER_CELL:
            break
    return {
        "cell": cell.key,
        "settings": _cell_settings(),
        "accepted": accepted,
        "rejected": rejected,
        "rejections": dict(sorted(rejections.items())),
        "scanned": scanned,
        "rows": rows,
    }


def _read_cell(directory: Path, cell: Cell) -> dict[str, Any] | None:
    """A finished cell of this build, or None when it is missing or from other settings."""
    try:
        found = json.loads((directory / CELLS / cell.filename).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if found.get("cell") != cell.key or found.get("settings") != _cell_settings():
        return None
    return found


def _build_cells(
    out: Path, cells: Sequence[Cell], workers: int, ray: RaySetting | None = None
) -> None:
    """Build the cells not yet in `out/cells`, writing each as it completes: in a local process
    pool, or as Ray tasks (`ray`: True or a cluster address, `argc.cluster`)."""
    todo = [cell for cell in cells if _read_cell(out, cell) is None]
    # The highest levels take longest: start them first so that no worker finishes alone.
    todo.sort(key=lambda cell: (-cell.level, cell))
    if not todo:
        return
    if ray is not None:
        connect(ray)  # before any output and the progress bar: starting Ray takes seconds
    (out / CELLS).mkdir(parents=True, exist_ok=True)
    by_key = {cell.key: cell for cell in todo}
    with (
        closing(_cell_results(todo, workers, ray)) as results,
        tqdm(total=len(todo), desc="cells", unit="cell") as progress,
    ):
        for result in results:
            _write_cell(out, by_key[result["cell"]], result)
            progress.update()


def _cell_results(
    todo: Sequence[Cell], workers: int, ray: RaySetting | None
) -> Iterator[dict[str, Any]]:
    """The results of `build_cell` over `todo`, as they finish."""
    from argc.cluster import unordered_results

    return unordered_results(build_cell, todo, workers, ray, CELLS_PER_WORKER)


def _write_cell(out: Path, cell: Cell, result: dict[str, Any]) -> None:
    """Write a finished cell; refuse one built with other settings (another argc version on a
    node of a cluster), which a rerun would not accept."""
    if result["settings"] != _cell_settings():
        differing = sorted(
            key
            for key in result["settings"].keys() | _cell_settings().keys()
            if result["settings"].get(key) != _cell_settings().get(key)
        )
        raise ArgcError(
            f"cell {cell.key} was built with other settings ({', '.join(differing)}) than this"
            " machine's: every node must run the same argc"
        )
    write_atomic(out / CELLS / cell.filename, canonical_json(result))


def parquet_bytes(records: list[dict[str, Any]]) -> bytes:
    """The rows as Parquet bytes with a fixed schema (JSON columns as canonical strings)."""
    pa, pq = _pyarrow()
    names = [field.name for field in fields(Instance)]
    schema = pa.schema(
        [(name, pa.int64() if name in INTEGER_COLUMNS else pa.string()) for name in names]
    )
    columns = {
        name: [
            json.dumps(record[name], sort_keys=True, ensure_ascii=False)
            if name in JSON_COLUMNS
            else record[name]
            for record in records
        ]
        for name in names
    }
    sink = io.BytesIO()
    pq.write_table(pa.table(columns, schema=schema), sink, compression="zstd")
    return sink.getvalue()


def parquet_records(path: Path) -> list[dict[str, Any]]:
    """The rows of a `rows.parquet` as Instance records (JSON columns decoded)."""
    records = _pyarrow()[1].read_table(path).to_pylist()
    for record in records:
        for name in JSON_COLUMNS:
            record[name] = json.loads(record[name])
    return records


def _pyarrow() -> tuple[Any, Any]:
    """pyarrow and pyarrow.parquet (the `bench` extra), imported when first needed."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ArgcError("Parquet files need pyarrow: pip install 'argc[bench]'") from None
    return pyarrow, pyarrow.parquet


def _assemble(out: Path, cells: Sequence[Cell], header: dict[str, Any]) -> dict[str, Any]:
    """Write rows.jsonl, rows.parquet, cells.json and manifest.json from the cell files."""
    found = {cell: _read_cell(out, cell) for cell in cells}
    missing = [cell.key for cell, result in found.items() if result is None]
    if missing:
        raise ArgcError(f"{out}: cells missing: {', '.join(missing)}")
    short = [cell.key for cell, result in found.items() if len(result["rows"]) < INSTANCES_PER_CELL]
    if short:
        raise IncompleteCells(
            f"{len(short)} cell(s) found fewer than {INSTANCES_PER_CELL} instances in"
            f" {SEED_BOUND} seeds (see {out / CELLS}): {', '.join(short)}"
        )
    lines = [line for result in found.values() for line in result["rows"]]
    records = [json.loads(line) for line in lines]
    order = sorted(range(len(lines)), key=lambda i: tuple(records[i][key] for key in ROW_ORDER))
    write_atomic(out / "rows.jsonl", "".join(lines[i] + "\n" for i in order))
    write_atomic(out / "rows.parquet", parquet_bytes([records[i] for i in order]))
    summary = {
        cell.key: {key: result[key] for key in ("accepted", "rejected", "rejections", "scanned")}
        for cell, result in found.items()
    }
    write_atomic(out / "cells.json", canonical_json(summary))
    return write_manifest(out, {**header, "rows": len(lines)}, FILES)


def build(
    out: Path,
    workers: int = os.cpu_count() or 1,
    shard: tuple[int, int] | None = None,
    *,
    tasks: Sequence[str] | None = None,
    levels: Sequence[int] | None = None,
    ray: RaySetting | None = None,
) -> None:
    """Build the benchmark (or one shard of it) into `out`, resuming from its cell files; the
    cells are built in `workers` local processes, or as Ray tasks when `ray` is given (True or
    a cluster address), with the same files as the result."""
    cells = select_cells(tasks, levels)
    header = settings(cells)
    if shard is None:
        _build_cells(out, cells, workers, ray)
        _assemble(out, cells, header)
        return
    index, count = shard
    if not 0 <= index < count:
        raise ArgcError(f"shard {index}/{count}: need 0 <= i < n")
    mine = cells[index::count]
    _build_cells(out, mine, workers, ray)
    shard_header = {
        **header,
        "shard": {"index": index, "count": count},
        "cells": [cell.key for cell in mine],
        "rows": sum(len(json.loads((out / CELLS / c.filename).read_text())["rows"]) for c in mine),
    }
    write_manifest(out, shard_header, [f"{CELLS}/{cell.filename}" for cell in mine])


def merge(shard_dirs: Sequence[Path], out: Path) -> None:
    """Combine the shards 0..n-1 of one build into a benchmark in `out`; refuses shards that
    are incomplete, overlapping, tampered with or from different builds."""
    if not shard_dirs:
        raise ArgcError("no shard directories given")
    shards: dict[int, Path] = {}
    common: dict[str, Any] | None = None
    count = 0
    for directory in shard_dirs:
        manifest = read_manifest(directory)
        if "shard" not in manifest:
            raise ArgcError(f"{directory}: not a shard (its manifest names no shard)")
        problems = verify(directory, manifest)
        if problems:
            raise ArgcError(f"{directory}: " + "; ".join(problems))
        if common is None:
            common, count = _without_shard(manifest), manifest["shard"]["count"]
        elif _without_shard(manifest) != common or manifest["shard"]["count"] != count:
            raise ArgcError(f"{directory} and {shard_dirs[0]} are shards of different builds")
        index = manifest["shard"]["index"]
        if index in shards:
            raise ArgcError(
                f"overlapping shards: {shards[index]} and {directory} are both {index}/{count}"
            )
        cells = select_cells(common["tasks"], common.get("levels"))
        if manifest["cells"] != [cell.key for cell in cells[index::count]]:
            raise ArgcError(f"{directory}: its cells are not those of shard {index}/{count}")
        shards[index] = directory
    absent = sorted(set(range(count)) - set(shards))
    if absent:
        names = ", ".join(f"{index}/{count}" for index in absent)
        raise ArgcError(f"incomplete shards: {names} missing")
    (out / CELLS).mkdir(parents=True, exist_ok=True)
    for index, directory in sorted(shards.items()):
        for cell in cells[index::count]:
            data = (directory / CELLS / cell.filename).read_bytes()
            write_atomic(out / CELLS / cell.filename, data)
    _assemble(out, cells, settings(cells))


def _without_shard(manifest: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in manifest.items() if k not in ("shard", "cells", "rows", "files")}


# Command line ------------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction) -> None:
    """Add `build` and `merge` to `argc bench`."""
    make = commands.add_parser(
        "build",
        help="build the frozen benchmark",
        description="Build the frozen benchmark: rows.jsonl, rows.parquet, cells.json and"
        " manifest.json in DIR. Finished cells are kept in DIR/cells, so an interrupted build"
        " resumes where it stopped. With --shard i/n only every n-th cell is built (from the"
        " i-th, counting from 0: shards 0/n to n-1/n); `argc bench merge` combines the shards.",
    )
    make.set_defaults(handler=_build_command)
    make.add_argument("--out", type=Path, required=True, metavar="DIR")
    make.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, metavar="N")
    make.add_argument("--shard", metavar="i/n", help="i from 0 to n-1")
    make.add_argument("--tasks", nargs="+", metavar="T", help="only these tasks (default: all)")
    make.add_argument(
        "--levels", nargs="+", type=int, metavar="L", help="only these levels (default: all)"
    )
    add_ray_option(make, "the cells")
    join = commands.add_parser(
        "merge",
        help="merge benchmark shards",
        description="Combine the shard directories 0/n..n-1/n of one build into the benchmark.",
    )
    join.set_defaults(handler=_merge_command)
    join.add_argument("shards", nargs="+", type=Path, metavar="SHARD_DIR")
    join.add_argument("--out", type=Path, required=True, metavar="DIR")


def _build_command(args: argparse.Namespace) -> int:
    def run() -> None:
        shard = parse_shard(args.shard) if args.shard else None
        _pyarrow()  # fail before building when the output cannot be written
        if args.ray is not None:
            ray_module()  # Ray must be installed
        build(args.out, args.workers, shard, tasks=args.tasks, levels=args.levels, ray=args.ray)

    return _reporting("build", run, args.out)


def _merge_command(args: argparse.Namespace) -> int:
    return _reporting("merge", lambda: merge(args.shards, args.out), args.out)


def _reporting(name: str, run: Callable[[], None], out: Path) -> int:
    """Run a command body: exit 1 for incomplete cells, 2 for bad input, else a summary."""
    try:
        run()
    except IncompleteCells as error:
        print(f"argc bench {name}: {error}", file=sys.stderr)
        return EXIT_FAILED
    except (ArgcError, OSError) as error:
        print(f"argc bench {name}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    print(f"argc bench {name}: wrote {_summary(out)}")
    return EXIT_OK


def _summary(directory: Path) -> str:
    manifest = read_manifest(directory)
    if "shard" in manifest:
        shard = manifest["shard"]
        return (
            f"{directory}: shard {shard['index']}/{shard['count']}, {manifest['rows']} rows in"
            f" {len(manifest['cells'])} cells"
        )
    return f"{directory}: {manifest['rows']} rows, {', '.join(sorted(manifest['files']))}"
