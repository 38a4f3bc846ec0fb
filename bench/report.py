"""`argc report`: the tables of ArgGYM's evaluation (§4 and Appendix D) for run files of
`argc eval`, as Markdown, JSON and CSV (one file per table), with plots."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import math
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
from argc.tasks.norms.metrics import EXACT, SOFT, answer_metrics, mcnemar, run_metrics

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
#: The standard normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054


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
    if importlib.util.find_spec("matplotlib") is None:
        print(
            "argc report: matplotlib is not installed; the plots need the bench extra"
            " (pip install 'argc[bench]')",
            file=sys.stderr,
        )
        return EXIT_INPUT_ERROR
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
    warning = coverage_warning(runs)
    if warning is not None:
        print(f"argc report: warning: {warning}", file=sys.stderr)
    for run, summary in zip(runs, summaries, strict=True):
        print(
            f"{run.name}: {summary['success']:.1f}% complete success"
            f" [{summary['success_low']:.1f}–{summary['success_high']:.1f}]"
            f" ({summary['successes']}/{summary['n']})"
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


def coverage_warning(runs: list[Run]) -> str | None:
    """A warning when the runs do not cover the same instances (by id): how many each run has
    and how many all of them share; None when they cover the same ones."""
    ids = [{record["id"] for record in run.records} for run in runs]
    if all(found == ids[0] for found in ids):
        return None
    counts = ", ".join(f"{run.name} {len(found)}" for run, found in zip(runs, ids, strict=True))
    shared = len(set.intersection(*ids))
    return (
        f"the runs cover different instances ({counts}; {shared} shared by all), so their"
        " rows compare different items"
    )


# Measures

Record = dict[str, Any]


def _percent(records: list[Record], test: Callable[[Record], bool]) -> float | None:
    return 100 * sum(map(test, records)) / len(records) if records else None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of the proportion successes / n (fractions in [0, 1]), 95 % by
    default; None when n is 0. The bounds hold the proportion despite rounding, so 0 and n
    successes give a bound of exactly 0 and 1."""
    if n == 0:
        return None
    share, spread = successes / n, z * z / n
    centre = (share + spread / 2) / (1 + spread)
    half = z / (1 + spread) * math.sqrt(share * (1 - share) / n + spread / (4 * n))
    return max(0.0, min(share, centre - half)), min(1.0, max(share, centre + half))


def _rate(records: list[Record]) -> dict[str, Any]:
    """The complete success of `records`: n, successes, the rate and the bounds of its 95 %
    Wilson interval, in percent (None without records)."""
    successes = sum(record["success"] for record in records)
    interval = wilson(successes, len(records))
    low, high = (None, None) if interval is None else (100 * interval[0], 100 * interval[1])
    return {
        "n": len(records),
        "successes": successes,
        "success": 100 * (successes / len(records)) if records else None,
        "success_low": low,
        "success_high": high,
    }


def _cell(records: list[Record]) -> dict[str, Any]:
    """The success rate (`_rate`) and native score × 100 of a non-empty slice of a run."""
    return {
        **_rate(records),
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
        **_rate(records),
        "tasks": tasks,
        "bands": _cells(records, _band),
        "task_bands": _nested(records, _band, _task),
        "orderings": orderings,
        "task_orderings": _nested(records, _task, lambda record: record["ordering"]),
        "levels": _nested(records, _task, lambda record: str(record["level"])),
        "counter": counter,
        "diagnostics": _diagnostics(records),
        "change_records": _change_records(records),
    }


#: The task whose answers are change records, with their own metrics.
CHANGE_RECORD_TASK = "norm_change_record"


def _record_answers(records: list[dict[str, Any]]) -> dict[str, tuple[dict | None, dict | None]]:
    """Per item id, the submitted change record (None when unreadable) and the gold one
    (None where the record holds no details: no answer region, a failed request)."""
    found = {}
    for record in records:
        if record["task"] == CHANGE_RECORD_TASK:
            details = record.get("details") or {}
            found[record["id"]] = (details.get("submitted"), details.get("gold"))
    return found


def _change_records(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The change-record metrics of a run (percentages), None without such records. An
    answer whose gold is not recorded counts as wrong and in no relation's count."""
    answers = _record_answers(records)
    if not answers:
        return None
    known = [(submitted, gold) for submitted, gold in answers.values() if gold is not None]
    metrics = run_metrics(known)
    unknown = len(answers) - len(known)
    found: dict[str, Any] = {"n": len(answers), "per_relation": metrics["per_relation"]}
    for name in (*EXACT, *SOFT):
        total = (metrics[name] or 0.0) * len(known) + (unknown if name == "wrong_family" else 0)
        found[name] = 100 * total / len(answers)
    return found


def paired_tests(runs: list[Run]) -> list[dict[str, Any] | None]:
    """Per run, exact McNemar tests of its change-record metrics against the first run's,
    on the items both answered (None for the first run and runs without such items)."""
    base = _record_answers(runs[0].records) if runs else {}
    found: list[dict[str, Any] | None] = [None]
    for run in runs[1:]:
        answers = _record_answers(run.records)
        shared = sorted(key for key in base.keys() & answers.keys() if base[key][1] is not None)
        if not shared:
            found.append(None)
            continue
        tests: dict[str, Any] = {"n": len(shared)}
        for name in ("relation", "relation_family", "all_changes_exact"):
            first = [answer_metrics(*base[key])[name] == 1.0 for key in shared]
            second = [answer_metrics(answers[key][0], base[key][1])[name] == 1.0 for key in shared]
            tests[name] = mcnemar(first, second)
        found.append(tests)
    return found


def _diagnostics(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Generation and answer-protocol diagnostics (the paper's Table 16) and usage."""
    answered = [record for record in records if record["has_answer"]]
    canonical, conditioned = _rate(records), _rate(answered)
    usages = [record["usage"] for record in records if record["usage"] is not None]
    return {
        "truncated": _percent(records, lambda record: record["finish_reason"] == "length"),
        "no_answer": _percent(records, lambda record: not record["has_answer"]),
        "errors": _percent(records, lambda record: record["error"] is not None),
        "compliance": _percent(records, lambda record: record["has_answer"]),
        "readable": _percent(
            records,
            lambda record: record["has_answer"] and not is_unreadable(record["reason"]),
        ),
        "canonical": canonical,
        "conditioned": conditioned,
        "conditioned_gain": None
        if conditioned["success"] is None
        else conditioned["success"] - canonical["success"],
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
class Value:
    """One value a table shows: where it is in a run's summary and how it is shown. A `rate` is
    a success cell (`_rate`): its percentage, 95 % interval and count."""

    path: tuple[str, ...]
    kind: str = "rate"  # rate | percent | signed | count | seconds | number
    part: str = ""  # its name in CSV headers when a column shows several values

    def read(self, summary: dict[str, Any]) -> Any:
        value: Any = summary
        for key in self.path:
            value = value.get(key) if isinstance(value, dict) else None
        if self.kind == "rate" and (value is None or value["success"] is None):
            return None
        return value


@dataclass(frozen=True)
class Column:
    """A column of a table: one value, or several shown as the paper's "x | y" cell (one CSV
    column each)."""

    key: str
    title: str
    values: tuple[Value, ...]


@dataclass(frozen=True)
class Table:
    slug: str
    title: str
    caption: str
    columns: list[Column]


_FORMATS = {
    "percent": "{:.1f}",
    "signed": "{:+.1f}",
    "seconds": "{:.2f}",
    "number": "{:.1f}",
    "p-value": "{:.3g}",
}


def _format(value: Any, kind: str) -> str:
    if value is None:
        return ""
    if kind == "rate":
        low, high = value["success_low"], value["success_high"]
        return f"{value['success']:.1f} [{low:.1f}–{high:.1f}] ({value['successes']}/{value['n']})"
    return _FORMATS.get(kind, "{}").format(value)


#: The CSV columns of a rate: its fields and their header suffixes.
_RATE_FIELDS = (
    ("success", "", "percent"),
    ("success_low", " low", "percent"),
    ("success_high", " high", "percent"),
    ("successes", " successes", "count"),
    ("n", " n", "count"),
)


def _csv_header(column: Column) -> list[str]:
    header = []
    for value in column.values:
        name = f"{column.key} {value.part}".strip()
        suffixes = [suffix for _, suffix, _ in _RATE_FIELDS] if value.kind == "rate" else [""]
        header += [name + suffix for suffix in suffixes]
    return header


def _csv_cells(value: Value, summary: dict[str, Any]) -> list[str]:
    found = value.read(summary)
    if value.kind != "rate":
        return [_format(found, value.kind)]
    if found is None:
        return [""] * len(_RATE_FIELDS)
    return [_format(found[key], kind) for key, _, kind in _RATE_FIELDS]


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


def _per_task(members: dict[str, str], values: Callable[[str], tuple[Value, ...]]) -> list:
    """One column per task, showing `values(task)`."""
    return [Column(task, title, values(task)) for task, title in members.items()]


def _score(*section: str) -> Callable[[str], tuple[Value, ...]]:
    """A task's "success | native" values in a section of the summary."""
    return lambda task: (
        Value((*section, task), "rate", "success"),
        Value((*section, task, "native"), "percent", "native"),
    )


def build_tables(summaries: list[dict[str, Any]]) -> list[Table]:
    """The report's tables, one row per run, in the paper's layout."""
    groups = _groups(task_order(summaries))
    cell = (
        "Each cell: complete success (%) [95 % interval] (successes/instances) | task-native"
        " score × 100."
    )
    tables = [
        Table(
            "overall",
            "Overall performance",
            "Complete-task success (%) over every instance of the run, with its 95 % interval"
            " and successes/instances (paper Table 2).",
            [
                Column("n", "Instances", (Value(("n",), "count"),)),
                Column("success", "Success (%)", (Value(()),)),
            ],
        )
    ]
    for group, members in groups.items():
        tables.append(
            Table(
                f"tasks-{group}",
                f"Task-level performance: {group} tasks",
                f"{cell} Native scores compare only within a task (paper Tables 4–5).",
                _per_task(members, _score("tasks")),
            )
        )
    tables.append(
        Table(
            "bands",
            "Curriculum bands",
            "Complete-task success (%) [95 % interval] (successes/instances) per band of"
            " curriculum levels (paper Table 6).",
            [Column(band, band, (Value(("bands", band)),)) for band in BANDS],
        )
    )
    for band in BANDS:
        for group, members in groups.items():
            tables.append(
                Table(
                    f"bands-{band.replace('–', '-')}-{group}",
                    f"Curriculum band {band}: {group} tasks",
                    f"{cell} Levels {band} only (paper Tables 7–12).",
                    _per_task(members, _score("task_bands", band)),
                )
            )
    combined = [
        f"{principle} {comparison}" for principle in PRINCIPLES for comparison in SET_COMPARISONS
    ]
    tables.append(
        Table(
            "orderings",
            "Argument and set orderings",
            "Complete-task success (%) [95 % interval] (successes/instances) per argument"
            " ordering principle, per set comparison, and per combination (paper Table 13).",
            [
                Column(name, name.capitalize(), (Value(("orderings", name)),))
                for name in (*PRINCIPLES, *reversed(SET_COMPARISONS), *combined)
            ],
        )
    )
    for group, members in groups.items():
        tables.append(
            Table(
                f"orderings-{group}",
                f"Last-link and weakest-link per task: {group} tasks",
                "Each cell: complete success (%) [95 % interval] (successes/instances) under"
                " last-link | under weakest-link (paper Tables 14–15).",
                _per_task(
                    members,
                    lambda task: tuple(
                        Value(("task_orderings", task, p), "rate", p) for p in PRINCIPLES
                    ),
                ),
            )
        )
    if any(summary["counter"] for summary in summaries):
        tables.append(_counter_table())
    if any(summary["change_records"] for summary in summaries):
        tables += _change_record_tables(summaries)
    tables.append(_diagnostics_table())
    return tables


def _change_record_tables(summaries: list[dict[str, Any]]) -> list[Table]:
    def column(key: str, title: str, kind: str = "percent") -> Column:
        return Column(key, title, (Value(("change_records", key), kind),))

    relations = sorted(
        {
            name
            for s in summaries
            if s["change_records"]
            for name in s["change_records"]["per_relation"]
        }
    )
    tables = [
        Table(
            "change-records",
            "Change records (normative worlds)",
            "Over the norm_change_record items: relation accuracy (four-way exact), relation"
            " family (invariant or change) accuracy, wrong-family errors, all four change fields"
            " exact, change presence (fields whose emptiness matches the gold) and"
            " class-conditioned MR credit, in %; then per gold relation, items whose relation was"
            " right / items (docs/norms.md).",
            [
                column("n", "Items", "count"),
                column("relation", "Relation"),
                column("relation_family", "Family"),
                column("wrong_family", "Wrong family"),
                column("all_changes_exact", "All changes exact"),
                column("change_presence", "Change presence"),
                column("class_conditioned_mr", "Class MR"),
                *(
                    Column(
                        name,
                        name,
                        (
                            Value(
                                ("change_records", "per_relation", name, "right"), "count", "right"
                            ),
                            Value(("change_records", "per_relation", name, "n"), "count", "n"),
                        ),
                    )
                    for name in relations
                ),
            ],
        )
    ]
    if any(summary.get("paired") for summary in summaries):
        tables.append(
            Table(
                "change-records-mcnemar",
                "Change records against the first run (exact McNemar tests)",
                "On the items both runs answered: b items right only in the first run, c only in"
                " this run, and the two-sided exact p-value, for relation accuracy, relation"
                " family and all changes exact.",
                [
                    Column("n", "Items", (Value(("paired", "n"), "count"),)),
                    *(
                        Column(
                            name,
                            title,
                            (
                                Value(("paired", name, "b"), "count", "b"),
                                Value(("paired", name, "c"), "count", "c"),
                                Value(("paired", name, "p"), "p-value", "p"),
                            ),
                        )
                        for name, title in (
                            ("relation", "Relation"),
                            ("relation_family", "Family"),
                            ("all_changes_exact", "All changes exact"),
                        )
                    ),
                ],
            )
        )
    return tables


def _counter_table() -> Table:
    columns = [
        column
        for task, title in ((COUNTER, "Counter"), (STRICT, "Counter+S"))
        for column in (
            Column(f"{task} success", f"{title} success (%)", (Value(("counter", task)),)),
            Column(
                f"{task} native",
                f"{title} native × 100",
                (Value(("counter", task, "native"), "percent"),),
            ),
        )
    ]
    columns += [
        Column(
            f"difference {key}", f"Δ {label}", (Value(("counter", "difference", key), "signed"),)
        )
        for key, label in (("success", "success"), ("native", "native"))
    ]
    return Table(
        "counter",
        "Matched counter-argument contrast",
        "counter_argument against counter_argument_strict (the same theories and goals,"
        " strict rules also permitted): success (%) [95 % interval] (successes/instances) and"
        " native score × 100; Δ is strict minus plain, in points.",
        columns,
    )


def _diagnostics_table() -> Table:
    def column(key: str, title: str, kind: str = "percent") -> Column:
        return Column(key, title, (Value(("diagnostics", key), kind),))

    return Table(
        "diagnostics",
        "Generation and answer-protocol diagnostics",
        "Trunc.: generations cut at the length limit; No answer: responses without an"
        " `<answer>` region; Errors: requests that failed; Compliance: responses with an"
        " `<answer>` region (100 − No answer); Readable: an answer region that the task's reader"
        " accepts; Canonical: complete success [95 % interval] (successes/instances);"
        " Cond.: the same among responses with an answer region, Δ its difference to canonical"
        " success in points (paper Table 16). Latency and tokens are means per instance where"
        " recorded.",
        [
            column("truncated", "Trunc."),
            column("no_answer", "No answer"),
            column("errors", "Errors"),
            column("compliance", "Compliance"),
            column("readable", "Readable"),
            column("canonical", "Canonical", "rate"),
            column("conditioned", "Cond.", "rate"),
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
            found = [(value.read(summary), value.kind) for value in column.values]
            shown = [_format(value, kind) or MISSING for value, kind in found]
            cells.append(MISSING if all(value is None for value, _ in found) else " | ".join(shown))
        lines.append(f"| {escape(summary['name'])} | " + " | ".join(map(escape, cells)) + " |")
    return "\n".join(lines) + "\n"


def csv_text(table: Table, summaries: list[dict[str, Any]]) -> str:
    """A table as CSV: one column per value (a rate: its percentage, interval bounds,
    successes and n); empty when missing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run"] + [name for column in table.columns for name in _csv_header(column)])
    for summary in summaries:
        cells = [
            cell
            for column in table.columns
            for v in column.values
            for cell in _csv_cells(v, summary)
        ]
        writer.writerow([summary["name"], *cells])
    return buffer.getvalue()


# Writing


def _write(path: Path, text: str) -> None:
    write_output(path, text)


def write_report(runs: list[Run], directory: Path) -> list[dict[str, Any]]:
    """Write report.md, report.json, one CSV per table and the plots into `directory`;
    return the runs' summaries."""
    summaries = [summarise(run) for run in runs]
    for summary, tests in zip(summaries, paired_tests(runs), strict=True):
        summary["paired"] = tests
    tasks = task_order(summaries)
    tables = build_tables(summaries)
    titles = {task: title for group in _groups(tasks).values() for task, title in group.items()}
    labels = [titles[task] for task in tasks]
    from argc.bench import plots  # matplotlib: loaded only when a report is drawn

    figures = plots.write_plots(summaries, labels, tasks, list(BANDS), directory)
    for table in tables:
        _write(directory / f"{table.slug}.csv", csv_text(table, summaries))
    warning = coverage_warning(runs)
    document = {
        "warnings": [] if warning is None else [warning],
        "runs": summaries,
        "tasks": tasks,
        "bands": {band: [levels[0], levels[-1]] for band, levels in BANDS.items()},
        "tables": {table.slug: f"{table.slug}.csv" for table in tables},
        "plots": [name for _, name in figures],
    }
    _write(directory / "report.json", json.dumps(document, sort_keys=True, indent=2) + "\n")
    _write(directory / "report.md", _document(runs, summaries, tables, figures, warning))
    return summaries


def _document(
    runs: list[Run],
    summaries: list[dict[str, Any]],
    tables: list[Table],
    figures: list[tuple[str, str]],
    warning: str | None,
) -> str:
    parts = [
        "# ArgGYM evaluation report",
        "",
        "Complete-task success is the benchmark score; native scores keep task-specific"
        " meanings and are never averaged across tasks. Percentages have one decimal; every"
        " success rate is followed by its 95 % Wilson score interval in brackets and by"
        " successes/instances, so a rate over few instances reads as uncertain as it is;"
        f" {MISSING} marks a slice a run has no instances in.",
        "",
        "| Run | File | Models | Instances |",
        "|---|---|---|---:|",
    ]
    for run, summary in zip(runs, summaries, strict=True):
        models = ", ".join(summary["models"]).replace("|", "\\|")
        name = run.name.replace("|", "\\|")
        parts.append(f"| {name} | `{run.path.name}` | {models} | {summary['n']} |")
    parts.append("")
    if warning is not None:
        parts += [f"**Warning:** {warning}.", ""]
    for table in tables:
        parts += [markdown(table, summaries), f"CSV: `{table.slug}.csv`", ""]
    parts += ["## Plots", ""]
    parts += [f"![{title}]({name})\n" for title, name in figures]
    return "\n".join(parts)
