"""`argc bench export`: a verified benchmark directory as a Hugging Face `datasets` folder, a
Parquet data file (split `test`) and a dataset card."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from argc.bench.build import INTEGER_COLUMNS, parquet_bytes
from argc.bench.manifest import read_manifest, sha256, verify, write_atomic
from argc.dsl.errors import ArgcError
from argc.dsl.ir import ORDERINGS
from argc.tasks import Instance

EXIT_OK, EXIT_FAILED, EXIT_INPUT_ERROR = 0, 1, 2
DATA_FILE = "data/test-00000-of-00001.parquet"
#: Manifest entries the dataset card states.
VERSIONS = ("taskset", "argc_version", "prompt_version", "scoring_version", "seed_base")
COLUMN_NOTES = {
    "id": "instance identifier `<task>-L<level>-<principle>-<set>-<seed>`",
    "task": "task name",
    "level": "curriculum level, 1–15",
    "ordering": "argument ordering principle: `last-link` or `weakest-link`",
    "set": "set comparison: `elitist` or `democratic`",
    "seed": "generator seed",
    "theory": "the theory in argc's `.arg` directives",
    "prompt": "the prompt shown to the model",
    "reference": "an answer (text inside `<answer>`) that scores complete success",
    "target": "what the scorer compares against (JSON string)",
    "meta": "curriculum and generator parameters, arguments, defeats, rejections (JSON string)",
}


def register(commands: argparse._SubParsersAction) -> None:
    """Add `export` to `argc bench`."""
    export = commands.add_parser(
        "export",
        help="export a benchmark directory as a Hugging Face dataset folder",
        description="Write HF_DIR/data/test-00000-of-00001.parquet and a dataset card"
        " HF_DIR/README.md from a benchmark directory whose manifest verifies.",
    )
    export.set_defaults(handler=_export)
    export.add_argument("directory", type=Path, metavar="DIR")
    export.add_argument("--out", type=Path, required=True, metavar="HF_DIR")


def _export(args: argparse.Namespace) -> int:
    if not args.directory.is_dir():
        print(f"argc bench export: {args.directory}: not a directory", file=sys.stderr)
        return EXIT_INPUT_ERROR
    try:
        manifest = read_manifest(args.directory)
    except ArgcError as error:
        print(f"argc bench export: {error}", file=sys.stderr)
        return EXIT_FAILED
    problems = verify(args.directory, manifest, required=("rows.jsonl",))
    problems += [f"manifest lacks {key}" for key in VERSIONS if key not in manifest]
    if problems:
        for problem in problems:
            print(f"argc bench export: {args.directory}: {problem}", file=sys.stderr)
        print("argc bench export: the manifest check failed; nothing exported", file=sys.stderr)
        return EXIT_FAILED
    try:
        text = (args.directory / "rows.jsonl").read_text(encoding="utf-8")
        rows = [Instance.from_record(json.loads(line)) for line in text.splitlines() if line]
        export(rows, manifest, args.out)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"argc bench export: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    print(f"exported {len(rows)} rows to {args.out}")
    return EXIT_OK


def export(rows: list[Instance], manifest: dict[str, Any], out: Path) -> None:
    """Write the data file and the dataset card into `out`."""
    (out / DATA_FILE).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out / DATA_FILE, parquet_bytes([row.record() for row in rows]))
    write_atomic(out / "README.md", card(rows, manifest, sha256(out / DATA_FILE)))


def _size_category(n: int) -> str:
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
    bounds += [(1_000_000, "100K<n<1M")]
    return next((name for bound, name in bounds if n < bound), "1M<n<10M")


def _composition(rows: list[Instance]) -> str:
    """tasks × levels × orderings × instances per cell, with the number of rows."""
    tasks = {row.task for row in rows}
    levels = {row.level for row in rows}
    orderings = {(row.ordering, row.set) for row in rows}
    per_cell = Counter((row.task, row.level, row.ordering, row.set) for row in rows).values()
    low, high = min(per_cell, default=0), max(per_cell, default=0)
    instances = f"{low}" if low == high else f"{low}–{high}"
    return (
        f"{_count(len(tasks), 'task')} × {_count(len(levels), 'level')} ×"
        f" {_count(len(orderings), 'ordering')} × {instances} instance{'s' if high > 1 else ''}"
        f" per cell = {_count(len(rows), 'row')}"
    )


def _span(levels: list[int]) -> str:
    """Levels as `first–last` when they run without a gap, else listed."""
    if len(levels) > 2 and levels == list(range(levels[0], levels[-1] + 1)):
        return f"{levels[0]}–{levels[-1]}"
    return ", ".join(map(str, levels))


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def card(rows: list[Instance], manifest: dict[str, Any], digest: str) -> str:
    """The dataset card: YAML front matter, composition, versions and scoring contract."""
    taskset = manifest["taskset"]
    tasks = Counter(row.task for row in rows)
    levels = sorted({row.level for row in rows})
    orderings = [
        f"{ordering.principle} {ordering.set_comparison}"
        for ordering in ORDERINGS
        if (ordering.principle, ordering.set_comparison) in {(r.ordering, r.set) for r in rows}
    ]
    front = [
        "---",
        f"pretty_name: {json.dumps(f'ArgGYM frozen benchmark ({taskset})')}",
        "license: mit",
        "language:",
        "- en",
        "task_categories:",
        "- text-generation",
        "- question-answering",
        "size_categories:",
        f"- {_size_category(len(rows))}",
        "tags:",
        *[f"- {tag}" for tag in ("argumentation", "aspic-plus", "reasoning", "benchmark")],
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: test",
        f"    path: {DATA_FILE}",
        "---",
    ]
    versions = [f"| {key} | `{manifest[key]}` |" for key in VERSIONS]
    versions += [
        f"| {key} | `{manifest[key]}` |"
        for key in ("seed_bound", "instances_per_cell")
        if key in manifest
    ]
    body = [
        f"# ArgGYM frozen benchmark ({taskset})",
        "",
        "Structured defeasible reasoning over ASPIC+ theories: ArgGYM's tasks of analysis and"
        " construction, each instance generated and verified by argc (an argumentation"
        " compiler solving theories with clingo). The rows are fixed; fresh instances come"
        " from the generators with seeds below the benchmark's seed base.",
        "",
        "## Composition",
        "",
        f"{_composition(rows)}; levels {_span(levels)}; orderings {', '.join(orderings)}.",
        "",
        "| task | rows |",
        "|---|---:|",
        *[f"| {task} | {count:,} |" for task, count in sorted(tasks.items())],
        "",
        "## Versions",
        "",
        "| | |",
        "|---|---|",
        *versions,
        "",
        "## Columns",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
        *[
            f"| {name} | {'int64' if name in INTEGER_COLUMNS else 'string'} | {note} |"
            for name, note in COLUMN_NOTES.items()
        ],
        "",
        "## Scoring",
        "",
        "A model's response is scored on the text of its last `<answer>…</answer>` region"
        " only; a response without one scores 0. Every task returns a native score in [0, 1]"
        " (task-specific partial credit, comparable only within a task) and complete success"
        " (the task's whole output contract met: exact structured answers, or for"
        " constructive tasks an intervention that, once executed, reaches every goal with the"
        " theory consistent). The benchmark score is complete success. Score with argc's"
        " scorer, `argc.tasks.score(instance, response)` in Python or `argc score"
        " INSTANCES.jsonl PREDICTIONS.jsonl` on the command line:",
        "",
        "```python",
        "import json",
        "from datasets import load_dataset",
        "from argc.tasks import Instance, score",
        "",
        'rows = load_dataset("PATH", split="test")',
        "row = rows[0]",
        'instance = Instance.from_record({**row, "target": json.loads(row["target"]),'
        ' "meta": json.loads(row["meta"])})',
        'result = score(instance, "<answer>" + instance.reference + "</answer>")',
        "print(result.native, result.success, result.reason)",
        "```",
        "",
        "## Files",
        "",
        "| file | sha256 |",
        "|---|---|",
        f"| `{DATA_FILE}` | `{digest}` |",
        *[
            f"| `{name}` (benchmark directory) | `{value}` |"
            for name, value in sorted(manifest["files"].items())
        ],
    ]
    return "\n".join(front + [""] + body) + "\n"
