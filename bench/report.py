"""`argc report`: the tables of ArgGYM's evaluation (§4 and Appendix D) for run files of
`argc eval`, as Markdown, JSON and CSV (one file per table), with plots."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argc.dsl.errors import ArgcError
from argc.dsl.ir import PRINCIPLES, SET_COMPARISONS
from argc.files import write_output
from argc.tasks.framework import LEVELS, is_unreadable

EXIT_OK, EXIT_INPUT_ERROR = 0, 2

#: The fields of a run record and the JSON types each may hold.
FIELDS = {
    "id": "string",
    "task": "string",
    "level": "integer",
    "ordering": "string",
    "set": "string",
    "model": "string",
    "response": "string",
    "finish_reason": "string|null",
    "usage": "object|null",
    "latency_s": "number|null",
    "attempts": "integer",
    "error": "string|null",
    "native": "number",
    "success": "boolean",
    "reason": "string",
    "has_answer": "boolean",
}
_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "object": lambda value: isinstance(value, dict),
    "null": lambda value: value is None,
}
TOKENS = ("prompt_tokens", "completion_tokens", "total_tokens")

#: The paper's two task groups in its column order, with its column names.
TASK_GROUPS = {
    "analysis": {
        "formalization": "Formal.",
        "claim_chain": "Chain",
        "defeat_diagnosis": "Diagnosis",
        "status_query": "Status",
        "semantics_query": "Semantics",
        "perturbation": "Perturb.",
    },
    "constructive": {
        "preference_construction": "Pref.",
        "counter_argument": "Counter",
        "counter_argument_strict": "Counter+S",
        "attack": "Attack",
        "defence": "Defence",
        "attack_defense": "Attack–Def.",
    },
}
BANDS = {"L1–L5": range(1, 6), "L6–L10": range(6, 11), "L11–L15": range(11, 16)}
COUNTER, STRICT = "counter_argument", "counter_argument_strict"
MISSING = "–"


@dataclass(frozen=True)
class Run:
    """The records of one run file and the name the report gives the run."""

    name: str
    path: Path
    records: list[dict[str, Any]]


def register(commands: argparse._SubParsersAction) -> None:
    """Add `report` to the `argc` command line."""
    report = commands.add_parser(
        "report",
        help="tables and plots of evaluation runs",
        description="Write report.md, report.json, one CSV per table and PNG plots of one or"
        " more run files of `argc eval` (one row per run in every table).",
    )
    report.set_defaults(handler=_report)
    report.add_argument("runs", type=Path, nargs="+", metavar="RUN.jsonl")
    report.add_argument("--out", type=Path, required=True, metavar="DIR")


def _report(args: argparse.Namespace) -> int:
    try:
        runs = load_runs(args.runs)
    except ArgcError as error:
        print(f"argc report: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        summaries = write_report(runs, args.out)
    except OSError as error:
        print(f"argc report: cannot write {args.out}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    for run, summary in zip(runs, summaries, strict=True):
        print(
            f"{run.name}: {summary['success']:.1f}% complete success"
            f" ({summary['successes']}/{summary['instances']})"
        )
    print(f"report: {args.out / 'report.md'}")
    return EXIT_OK


# Reading runs


def read_run(path: Path) -> list[dict[str, Any]]:
    """The records of a run file; a bad line is an ArgcError naming the file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ArgcError(f"{path}: cannot read the run file: {error}") from None
    records: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ArgcError(f"{path}:{number}: not JSON: {error.msg}") from None
        problem = _problem(record)
        if problem is None and record["id"] in seen:
            problem = f"instance {record['id']} already recorded on line {seen[record['id']]}"
        if problem is not None:
            raise ArgcError(f"{path}:{number}: {problem}")
        seen[record["id"]] = number
        records.append(record)
    if not records:
        raise ArgcError(f"{path}: no records")
    return records


def _problem(record: Any) -> str | None:
    """What is wrong with a run record, or None."""
    if not isinstance(record, dict):
        return "expected a JSON object"
    missing = [name for name in FIELDS if name not in record]
    if missing:
        return f"record lacks {', '.join(missing)}"
    for name, kinds in FIELDS.items():
        if not any(_TYPES[kind](record[name]) for kind in kinds.split("|")):
            return f"{name} must be {kinds.replace('|', ' or ')}, not {record[name]!r:.40}"
    allowed = {"level": LEVELS, "ordering": PRINCIPLES, "set": SET_COMPARISONS}
    for name, values in allowed.items():
        if record[name] not in values:
            return f"{name} must be one of {', '.join(map(str, values))}, not {record[name]!r}"
    return None


def load_runs(paths: list[Path]) -> list[Run]:
    """Read run files; a run is named by its model, or by its file when models repeat."""
    if len({path.resolve() for path in paths}) < len(paths):
        raise ArgcError("a run file is given twice")
    loaded = [read_run(path) for path in paths]
    names = []
    for path, records in zip(paths, loaded, strict=True):
        models = {record["model"] for record in records}
        names.append(models.pop() if len(models) == 1 else path.stem)
    for rename in (lambda path: path.stem, str):
        repeated = {name for name, count in Counter(names).items() if count > 1}
        names = [
            rename(path) if name in repeated else name
            for path, name in zip(paths, names, strict=True)
        ]
    return [Run(*fields) for fields in zip(names, paths, loaded, strict=True)]


# Measures


def _percent(records: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> float | None:
    return 100 * sum(map(test, records)) / len(records) if records else None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _cell(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Instances, complete success (%) and native score × 100 of a slice of a run."""
    return {
        "n": len(records),
        "success": _percent(records, lambda record: record["success"]),
        "native": 100 * sum(record["native"] for record in records) / len(records),
    }


Key = Callable[[dict[str, Any]], Any]


def _group(records: list[dict[str, Any]], key: Key) -> dict[Any, list[dict[str, Any]]]:
    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return dict(sorted(groups.items()))


def _cells(records: list[dict[str, Any]], key: Key) -> dict[Any, dict[str, Any]]:
    return {name: _cell(group) for name, group in _group(records, key).items()}


def _nested(records: list[dict[str, Any]], outer: Key, inner: Key) -> dict[Any, dict]:
    return {name: _cells(group, inner) for name, group in _group(records, outer).items()}


def _band(record: dict[str, Any]) -> str:
    return next(name for name, levels in BANDS.items() if record["level"] in levels)


def _task(record: dict[str, Any]) -> str:
    return record["task"]


def summarise(run: Run) -> dict[str, Any]:
    """Every number of the report for one run (JSON values)."""
    records = run.records
    tasks = _cells(records, _task)
    orderings = {
        **_cells(records, lambda record: record["ordering"]),
        **_cells(records, lambda record: record["set"]),
        **_cells(records, lambda record: f"{record['ordering']} {record['set']}"),
    }
    counter = None
    if COUNTER in tasks or STRICT in tasks:
        plain, strict = tasks.get(COUNTER), tasks.get(STRICT)
        counter = {
            COUNTER: plain,
            STRICT: strict,
            "difference": None
            if plain is None or strict is None
            else {key: strict[key] - plain[key] for key in ("success", "native")},
        }
    return {
        "name": run.name,
        "file": str(run.path),
        "models": sorted({record["model"] for record in records}),
        "instances": len(records),
        "successes": sum(record["success"] for record in records),
        "success": _percent(records, lambda record: record["success"]),
        "tasks": tasks,
        "bands": _cells(records, _band),
        "task_bands": _nested(records, _band, _task),
        "orderings": orderings,
        "task_orderings": _nested(records, _task, lambda record: record["ordering"]),
        "levels": _nested(records, _task, lambda record: str(record["level"])),
        "counter": counter,
        "diagnostics": _diagnostics(records),
    }


def _diagnostics(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Generation and answer-protocol diagnostics (the paper's Table 16) and usage."""
    answered = [record for record in records if record["has_answer"]]
    canonical = _percent(records, lambda record: record["success"])
    conditioned = _percent(answered, lambda record: record["success"])
    usages = [record["usage"] for record in records if record["usage"] is not None]
    return {
        "truncated": _percent(records, lambda record: record["finish_reason"] == "length"),
        "no_answer": _percent(records, lambda record: not record["has_answer"]),
        "errors": _percent(records, lambda record: record["error"] is not None),
        "compliance": _percent(
            records,
            lambda record: record["has_answer"] and not is_unreadable(record["reason"]),
        ),
        "canonical": canonical,
        "conditioned": conditioned,
        "conditioned_gain": None if conditioned is None else conditioned - canonical,
        "latency_s": _mean([r["latency_s"] for r in records if r["latency_s"] is not None]),
        **{
            name: _mean([usage[name] for usage in usages if _number(usage.get(name))])
            for name in TOKENS
        },
    }


def _number(value: Any) -> bool:
    return _TYPES["number"](value)


# Tables


@dataclass(frozen=True)
class Column:
    """A column of a table: a value read from a run's summary at a path of keys, or a pair
    of them (a paper's "x | y" cell, split into two columns in CSV)."""

    key: str
    title: str
    paths: tuple[tuple[str, ...], ...]
    kind: str = "percent"  # percent | signed | count | seconds | number
    parts: tuple[str, ...] = ()

    def values(self, summary: dict[str, Any]) -> list[Any]:
        found = []
        for path in self.paths:
            value: Any = summary
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            found.append(value)
        return found


@dataclass(frozen=True)
class Table:
    slug: str
    title: str
    caption: str
    columns: list[Column]


def _format(value: Any, kind: str) -> str:
    if value is None:
        return ""
    formats = {"percent": "{:.1f}", "signed": "{:+.1f}", "seconds": "{:.2f}", "number": "{:.1f}"}
    return formats.get(kind, "{}").format(value)


def task_order(summaries: list[dict[str, Any]]) -> list[str]:
    """The tasks of the runs: the paper's column order, then any other task by name."""
    present = {task for summary in summaries for task in summary["tasks"]}
    known = [task for group in TASK_GROUPS.values() for task in group if task in present]
    return known + sorted(present - set(known))


def _groups(tasks: list[str]) -> dict[str, dict[str, str]]:
    groups = {
        name: {task: title for task, title in members.items() if task in tasks}
        for name, members in TASK_GROUPS.items()
    }
    known = {task for members in TASK_GROUPS.values() for task in members}
    groups["other"] = {task: task for task in tasks if task not in known}
    return {name: members for name, members in groups.items() if members}


def _pairs(section: str, members: dict[str, str], parts: tuple[str, str], keys=None) -> list:
    """One "x | y" column per task: `parts` of each task's entry in a summary section."""
    keys = keys or [(part,) for part in parts]
    return [
        Column(task, title, tuple((*section, task, *key) for key in keys), parts=parts)
        for task, title in members.items()
    ]


def build_tables(summaries: list[dict[str, Any]]) -> list[Table]:
    """The report's tables, one row per run, in the paper's layout."""
    groups = _groups(task_order(summaries))
    cell = "Each cell: complete success (%) | task-native score × 100."
    score = ("success", "native")
    tables = [
        Table(
            "overall",
            "Overall performance",
            "Complete-task success (%) over every instance of the run (paper Table 2).",
            [
                Column("instances", "Instances", (("instances",),), "count"),
                Column("successes", "Successes", (("successes",),), "count"),
                Column("success", "Success (%)", (("success",),)),
            ],
        )
    ]
    for group, members in groups.items():
        tables.append(
            Table(
                f"tasks-{group}",
                f"Task-level performance: {group} tasks",
                f"{cell} Native scores compare only within a task (paper Tables 4–5).",
                _pairs(("tasks",), members, score),
            )
        )
    tables.append(
        Table(
            "bands",
            "Curriculum bands",
            "Complete-task success (%) per band of curriculum levels (paper Table 6).",
            [Column(band, band, (("bands", band, "success"),)) for band in BANDS],
        )
    )
    for band in BANDS:
        for group, members in groups.items():
            tables.append(
                Table(
                    f"bands-{band.replace('–', '-')}-{group}",
                    f"Curriculum band {band}: {group} tasks",
                    f"{cell} Levels {band} only (paper Tables 7–12).",
                    _pairs(("task_bands", band), members, score),
                )
            )
    combined = [
        f"{principle} {comparison}" for principle in PRINCIPLES for comparison in SET_COMPARISONS
    ]
    tables.append(
        Table(
            "orderings",
            "Argument and set orderings",
            "Complete-task success (%) per argument ordering principle, per set comparison,"
            " and per combination (paper Table 13).",
            [
                Column(name, name.capitalize(), (("orderings", name, "success"),))
                for name in (*PRINCIPLES, *reversed(SET_COMPARISONS), *combined)
            ],
        )
    )
    for group, members in groups.items():
        tables.append(
            Table(
                f"orderings-{group}",
                f"Last-link and weakest-link per task: {group} tasks",
                "Each cell: complete success (%) under last-link | under weakest-link"
                " (paper Tables 14–15).",
                _pairs(
                    ("task_orderings",), members, PRINCIPLES, [(p, "success") for p in PRINCIPLES]
                ),
            )
        )
    if any(summary["counter"] for summary in summaries):
        tables.append(_counter_table())
    tables.append(_diagnostics_table())
    return tables


def _counter_table() -> Table:
    columns = [
        Column(f"{task} {key}", f"{title} {label}", (("counter", task, key),))
        for task, title in ((COUNTER, "Counter"), (STRICT, "Counter+S"))
        for key, label in (("success", "success (%)"), ("native", "native × 100"))
    ]
    columns += [
        Column(f"difference {key}", f"Δ {label}", (("counter", "difference", key),), "signed")
        for key, label in (("success", "success"), ("native", "native"))
    ]
    return Table(
        "counter",
        "Matched counter-argument contrast",
        "counter_argument against counter_argument_strict (the same theories and goals,"
        " strict rules also permitted); Δ is strict minus plain, in points.",
        columns,
    )


def _diagnostics_table() -> Table:
    def column(key: str, title: str, kind: str = "percent") -> Column:
        return Column(key, title, (("diagnostics", key),), kind)

    return Table(
        "diagnostics",
        "Generation and answer-protocol diagnostics",
        "Trunc.: generations cut at the length limit; No answer: responses without an"
        " `<answer>` region; Errors: requests that failed; Compliance: an answer region that the"
        " scorer could read; Cond.: success among responses with an answer region, Δ its"
        " difference to canonical success in points (paper Table 16). Latency and tokens are"
        " means per instance where recorded.",
        [
            column("truncated", "Trunc."),
            column("no_answer", "No answer"),
            column("errors", "Errors"),
            column("compliance", "Compliance"),
            column("canonical", "Canonical"),
            column("conditioned", "Cond."),
            column("conditioned_gain", "Δ", "signed"),
            column("latency_s", "Latency (s)", "seconds"),
            column("prompt_tokens", "Prompt tok.", "number"),
            column("completion_tokens", "Completion tok.", "number"),
            column("total_tokens", "Total tok.", "number"),
        ],
    )


def markdown(table: Table, summaries: list[dict[str, Any]]) -> str:
    """A table as a Markdown section: title, caption, one row per run."""

    def escape(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        f"## {table.title}",
        "",
        escape(table.caption),
        "",
        "| Run | " + " | ".join(escape(column.title) for column in table.columns) + " |",
        "|---|" + "---:|" * len(table.columns),
    ]
    for summary in summaries:
        cells = []
        for column in table.columns:
            values = column.values(summary)
            shown = [_format(value, column.kind) or MISSING for value in values]
            cells.append(MISSING if all(value is None for value in values) else " | ".join(shown))
        lines.append(f"| {escape(summary['name'])} | " + " | ".join(map(escape, cells)) + " |")
    return "\n".join(lines) + "\n"


def csv_text(table: Table, summaries: list[dict[str, Any]]) -> str:
    """A table as CSV: a pair column becomes one column per part; empty when missing."""
    header = ["run"]
    for column in table.columns:
        parts = column.parts or ("",)
        header += [f"{column.key} {part}".strip() for part in parts]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for summary in summaries:
        row = [summary["name"]]
        for column in table.columns:
            row += [_format(value, column.kind) for value in column.values(summary)]
        writer.writerow(row)
    return buffer.getvalue()


# Writing


def _write(path: Path, text: str) -> None:
    write_output(path, text)


def write_report(runs: list[Run], directory: Path) -> list[dict[str, Any]]:
    """Write report.md, report.json, one CSV per table and the plots into `directory`;
    return the runs' summaries."""
    summaries = [summarise(run) for run in runs]
    tasks = task_order(summaries)
    tables = build_tables(summaries)
    titles = {task: title for group in _groups(tasks).values() for task, title in group.items()}
    labels = [titles[task] for task in tasks]
    from argc.bench import plots  # matplotlib: loaded only when a report is drawn

    figures = plots.write_plots(summaries, labels, tasks, list(BANDS), directory)
    for table in tables:
        _write(directory / f"{table.slug}.csv", csv_text(table, summaries))
    document = {
        "runs": summaries,
        "tasks": tasks,
        "bands": {band: [levels[0], levels[-1]] for band, levels in BANDS.items()},
        "tables": {table.slug: f"{table.slug}.csv" for table in tables},
        "plots": [name for _, name in figures],
    }
    _write(directory / "report.json", json.dumps(document, sort_keys=True, indent=2) + "\n")
    _write(directory / "report.md", _document(runs, summaries, tables, figures))
    return summaries


def _document(
    runs: list[Run],
    summaries: list[dict[str, Any]],
    tables: list[Table],
    figures: list[tuple[str, str]],
) -> str:
    parts = [
        "# ArgGYM evaluation report",
        "",
        "Complete-task success is the benchmark score; native scores keep task-specific"
        " meanings and are never averaged across tasks. Percentages have one decimal;"
        f" {MISSING} marks a slice a run has no instances in.",
        "",
        "| Run | File | Models | Instances |",
        "|---|---|---|---:|",
    ]
    for run, summary in zip(runs, summaries, strict=True):
        models = ", ".join(summary["models"]).replace("|", "\\|")
        name = run.name.replace("|", "\\|")
        parts.append(f"| {name} | `{run.path.name}` | {models} | {summary['instances']} |")
    parts.append("")
    for table in tables:
        parts += [markdown(table, summaries), f"CSV: `{table.slug}.csv`", ""]
    parts += ["## Plots", ""]
    parts += [f"![{title}]({name})\n" for title, name in figures]
    return "\n".join(parts)
