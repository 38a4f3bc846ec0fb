"""Diagnostics of a built benchmark (`argc bench diagnose`), each beside ArgGYM's figures.

- Principle switch (paper, Appendix D.4): every row's theory, as given in the row, solved under
  its own ordering and under the other link principle with the same set comparison; the rows
  whose grounded status map (the status of every claim of the theory) changes, per task.
- Set switch (Appendix D.4): the theory solved under its own principle with the other set
  comparison; the rows whose defeat relation changes, per task and principle. The paper finds
  the same defeat relation under last-link on eleven of its twelve tasks, status_query being
  the designed exception.
- Matched pair (§A.3): counter_argument and counter_argument_strict rows of the same level,
  ordering and seed; the recorded minimum of each arm per value and the gap per pair.
- Scale: per task and level band, the median directives, arguments and queried claims.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.bench.evaluate import load_instances
from argc.bench.report import BANDS, COUNTER, STRICT, TASK_GROUPS
from argc.compiler import Solution, solve
from argc.dsl.errors import ArgcError
from argc.dsl.ir import PRINCIPLES, SET_COMPARISONS, Ordering, Theory
from argc.files import write_output
from argc.options import positive_int
from argc.tasks import Instance
from argc.tasks.framework import GENERATION_LIMITS

#: Rows one worker process solves before it is replaced (recycles clingo's symbol memory).
ROWS_PER_WORKER = 40
EXIT_OK, EXIT_INPUT_ERROR = 0, 2
MISSING = "—"
#: The paper's twelve tasks, in its column order.
PAPER_TASKS = tuple(task for group in TASK_GROUPS.values() for task in group)
#: Appendix D.4: rows (of 120 per task) whose grounded status map changes with the principle.
PAPER_PRINCIPLE_SWITCH = {
    "status_query": 107,
    "defeat_diagnosis": 101,
    "claim_chain": 120,
    "perturbation": 120,
    "preference_construction": 120,
}
PAPER_ROWS_PER_TASK = 120
#: Appendix D.4: the one task whose defeat relation under last-link depends on the set
#: comparison; on the other eleven, elitist and democratic induce the same defeat relation.
PAPER_SET_EXCEPTION = "status_query"
#: §A.3: the recorded minima of the 120 matched pairs per value, and the gaps per value.
PAPER_PAIR = {
    "ordinary": {3: 40, 4: 48, 5: 24, 6: 8},
    "strict": {2: 48, 3: 40, 4: 24, 5: 8},
    "gap": {1: 112, 2: 8},
}
PAPER_PAIRS = 120


@dataclass(frozen=True)
class Switches:
    """One row's switches: whether the grounded status map changes with the other link
    principle, and whether the defeat relation changes with the other set comparison."""

    principle: bool
    set_comparison: bool


def other(value: str, choices: Sequence[str]) -> str:
    """The other of two choices."""
    (found,) = (choice for choice in choices if choice != value)
    return found


def status_map(theory: Theory, solution: Solution) -> dict[str, str]:
    """The grounded status of every claim of the theory."""
    return {str(claim): solution.status(claim) for claim in theory.claims()}


def switched(theory: Theory, ordering: Ordering) -> tuple[Solution, Solution, Solution]:
    """The theory solved under its ordering, the other link principle and the other set
    comparison."""
    own, principle, comparison = (
        solve(theory, ordering=variant, limits=GENERATION_LIMITS)
        for variant in (
            ordering,
            replace(ordering, principle=other(ordering.principle, PRINCIPLES)),
            replace(ordering, set_comparison=other(ordering.set_comparison, SET_COMPARISONS)),
        )
    )
    return own, principle, comparison


def switches(theory: Theory, ordering: Ordering) -> Switches:
    """Whether the status map changes with the principle and the defeats with the set
    comparison."""
    own, principle, comparison = switched(theory, ordering)
    return Switches(
        principle=status_map(theory, own) != status_map(theory, principle),
        set_comparison=set(own.defeats) != set(comparison.defeats),
    )


def _switch_job(job: tuple[int, Theory, Ordering]) -> tuple[int, Switches | str]:
    """A worker's row: its switches, or why it could not be solved."""
    index, theory, ordering = job
    try:
        return index, switches(theory, ordering)
    except ArgcError as error:
        return index, str(error)


def solve_switches(
    theories: Sequence[Theory], orderings: Sequence[Ordering], workers: int
) -> list[Switches]:
    """Every row's switches in a pool of worker processes, largest theories first; ArgcError
    naming the rows that could not be solved."""
    jobs = sorted(
        zip(range(len(theories)), theories, orderings, strict=True),
        key=lambda job: (-len(job[1].rules), job[0]),
    )
    results: list[Switches | str] = [""] * len(jobs)
    context = multiprocessing.get_context("spawn")
    with (
        context.Pool(max(1, min(workers, len(jobs))), maxtasksperchild=ROWS_PER_WORKER) as pool,
        tqdm(total=len(jobs), desc="rows", unit="row") as progress,
    ):
        for index, result in pool.imap_unordered(_switch_job, jobs):
            results[index] = result
            progress.update()
    failed = [(index, result) for index, result in enumerate(results) if isinstance(result, str)]
    if failed:
        index, reason = failed[0]
        raise ArgcError(f"{len(failed)} row(s) could not be solved; row {index + 1}: {reason}")
    return results  # type: ignore[return-value]


# Tables ------------------------------------------------------------------------------------


def task_order(tasks: Iterable[str]) -> list[str]:
    """The paper's tasks in its order, then any others by name."""
    present = set(tasks)
    return [t for t in PAPER_TASKS if t in present] + sorted(present - set(PAPER_TASKS))


def principle_switch(instances: Sequence[Instance], found: Sequence[Switches]) -> dict[str, Any]:
    """Per task: rows whose status map changes with the principle, rows, the paper's count."""
    table: dict[str, Any] = {}
    for task in task_order(instance.task for instance in instances):
        mine = [s for i, s in zip(instances, found, strict=True) if i.task == task]
        paper = PAPER_PRINCIPLE_SWITCH.get(task)
        table[task] = {
            "changed": sum(s.principle for s in mine),
            "rows": len(mine),
            "paper": None if paper is None else {"changed": paper, "rows": PAPER_ROWS_PER_TASK},
        }
    return table


def set_switch(instances: Sequence[Instance], found: Sequence[Switches]) -> dict[str, Any]:
    """Per task and principle: rows whose defeat relation changes with the set comparison;
    the paper's last-link finding ("same" on all rows, or "differs" on some)."""
    table: dict[str, Any] = {}
    for task in task_order(instance.task for instance in instances):
        entry: dict[str, Any] = {}
        for principle in PRINCIPLES:
            mine = [
                s
                for i, s in zip(instances, found, strict=True)
                if i.task == task and i.ordering == principle
            ]
            entry[principle] = {"changed": sum(s.set_comparison for s in mine), "rows": len(mine)}
        paper = None
        if task in PAPER_TASKS:
            paper = "differs" if task == PAPER_SET_EXCEPTION else "same"
        entry["paper_last_link"] = paper
        table[task] = entry
    return table


def _minimum(instance: Instance, key: str) -> int:
    """A recorded minimum of a matched-pair row; ArgcError when the row records none."""
    target = instance.target
    value = target.get(key) if isinstance(target, dict) else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgcError(f"row {instance.id} records no integer {key}")
    return value


def matched_pair(instances: Sequence[Instance]) -> dict[str, Any]:
    """The counter_argument / counter_argument_strict pairs (same level, ordering, seed): the
    minima of each arm per value over its rows, the gap per value over the pairs, the rows
    without a partner, and the pairs whose rows record each other's minimum differently."""
    arms: dict[str, dict[tuple, Instance]] = {COUNTER: {}, STRICT: {}}
    for instance in instances:
        if instance.task in arms:
            key = (instance.level, instance.ordering, instance.set, instance.seed)
            arms[instance.task][key] = instance
    ordinary = Counter(_minimum(i, "min_directives") for i in arms[COUNTER].values())
    strict = Counter(_minimum(i, "min_directives") for i in arms[STRICT].values())
    paired = sorted(arms[COUNTER].keys() & arms[STRICT].keys())
    gaps: Counter[int] = Counter()
    disagreeing = 0
    for key in paired:
        high, low = (_minimum(arms[task][key], "min_directives") for task in (COUNTER, STRICT))
        gaps[high - low] += 1
        recorded = tuple(
            _minimum(arms[task][key], "paired_min_directives") for task in (COUNTER, STRICT)
        )
        disagreeing += recorded != (low, high)
    return {
        "pairs": len(paired),
        "unpaired": {task: len(arm.keys() - set(paired)) for task, arm in arms.items()},
        "disagreeing": disagreeing,
        "ordinary": _by_value(ordinary),
        "strict": _by_value(strict),
        "gap": _by_value(gaps),
        "paper": {
            "pairs": PAPER_PAIRS,
            **{name: _by_value(counts) for name, counts in PAPER_PAIR.items()},
        },
    }


def _by_value(counts: dict[int, int]) -> dict[str, int]:
    """Counts keyed by value as text, in numeric order."""
    return {str(value): counts[value] for value in sorted(counts)}


def directives(theory: Theory) -> int:
    """The theory's directives, header settings aside."""
    return sum(1 for _ in theory.without_header().directives())


def _median(values: list[int]) -> float | None:
    return statistics.median(values) if values else None


def scale(instances: Sequence[Instance], theories: Sequence[Theory]) -> dict[str, Any]:
    """Per task and level band: rows and the median directives, arguments (as the row's meta
    records them) and queried claims (in the theory's query header, where it has one)."""
    table: dict[str, Any] = {}
    for task in task_order(instance.task for instance in instances):
        table[task] = {}
        for band, levels in BANDS.items():
            rows = [
                (i, t)
                for i, t in zip(instances, theories, strict=True)
                if i.task == task and i.level in levels
            ]
            if not rows:
                continue
            arguments = [i.meta["arguments"] for i, _ in rows if "arguments" in i.meta]
            queried = [len(t.queries) for _, t in rows if t.queries]
            table[task][band] = {
                "rows": len(rows),
                "directives": _median([directives(t) for _, t in rows]),
                "arguments": _median(arguments),
                "queried": _median(queried),
            }
    return table


# Diagnosis ---------------------------------------------------------------------------------


def row_theory(instance: Instance) -> tuple[Theory, Ordering]:
    """A row's theory and ordering; ArgcError naming the row (in one line) when either is
    unreadable."""
    try:
        return instance.parsed_theory, instance.strength
    except (ArgcError, ValueError) as error:
        raise ArgcError(f"row {instance.id}: {str(error).splitlines()[0]}") from None


def diagnose(path: Path, workers: int) -> dict[str, Any]:
    """Every diagnostic of a benchmark folder (or a JSONL file of instances)."""
    if not path.exists():
        raise ArgcError(f"{path}: no such benchmark folder or instances file")
    instances = load_instances(path)
    if not instances:
        raise ArgcError(f"{path}: no rows")
    theories, orderings = zip(*(row_theory(instance) for instance in instances), strict=True)
    found = solve_switches(theories, orderings, workers)
    return {
        "rows": len(instances),
        "principle_switch": principle_switch(instances, found),
        "set_switch": set_switch(instances, found),
        "matched_pair": matched_pair(instances),
        "scale": scale(instances, theories),
    }


# Report ------------------------------------------------------------------------------------


def _count(entry: dict[str, int] | None) -> str:
    return MISSING if entry is None else f"{entry['changed']}/{entry['rows']}"


def _number(value: float | None) -> str:
    return MISSING if value is None else f"{value:g}"


def markdown(result: dict[str, Any], source: str) -> str:
    """The diagnostics as a Markdown report, argc's figures beside the paper's."""
    lines = [f"# Benchmark diagnostics: {source}", "", f"{result['rows']} rows.", ""]
    lines += _principle_lines(result["principle_switch"])
    lines += _set_lines(result["set_switch"])
    lines += _pair_lines(result["matched_pair"])
    lines += _scale_lines(result["scale"])
    return "\n".join(lines).rstrip("\n") + "\n"


def _principle_lines(table: dict[str, Any]) -> list[str]:
    lines = [
        "## Principle switch (paper, Appendix D.4)",
        "",
        "Rows whose grounded status map changes when the row's theory is solved under the other"
        " link principle with the same set comparison.",
        "",
        "| task | argc | paper |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {task} | {_count(entry)} | {_count(entry['paper'])} |" for task, entry in table.items()
    ]
    return [*lines, ""]


def _set_lines(table: dict[str, Any]) -> list[str]:
    words = {"same": "0 (same relation)", "differs": "> 0 (the designed exception)"}
    lines = [
        "## Set switch (paper, Appendix D.4)",
        "",
        "Rows whose defeat relation changes when the row's theory is solved under its principle"
        " with the other set comparison (elitist ↔ democratic).",
        "",
        "| task | last-link, argc | last-link, paper | weakest-link, argc |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {task} | {_count(entry['last-link'])} |"
        f" {words.get(entry['paper_last_link'], MISSING)} | {_count(entry['weakest-link'])} |"
        for task, entry in table.items()
    ]
    return [*lines, ""]


def _pair_lines(pair: dict[str, Any]) -> list[str]:
    paper = pair["paper"]
    values = sorted({int(v) for name in PAPER_PAIR for v in (*pair[name], *paper[name])})
    lines = [
        "## Matched pair counter_argument / counter_argument_strict (paper, §A.3)",
        "",
        f"{pair['pairs']} pairs (paper {paper['pairs']}); rows without a partner:"
        f" {pair['unpaired'][COUNTER]} {COUNTER}, {pair['unpaired'][STRICT]} {STRICT}; pairs"
        f" whose rows record each other's minimum differently: {pair['disagreeing']}.",
        "",
        "Recorded minima (directives) per value: counter_argument (ordinary), its strict"
        " twin (strict), and the gap ordinary − strict of each pair.",
        "",
        "| value | ordinary, argc | ordinary, paper | strict, argc | strict, paper | gap, argc |"
        " gap, paper |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for value in values:
        cells = [
            str(source[name].get(str(value), 0)) for name in PAPER_PAIR for source in (pair, paper)
        ]
        lines.append(f"| {value} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _scale_lines(table: dict[str, Any]) -> list[str]:
    lines = [
        "## Scale",
        "",
        "Medians per task and level band: directives of the theory, arguments (as the row's"
        " meta records them) and queried claims (in the theory's query header; — where the"
        " task's theories have none).",
        "",
        "| task | band | rows | directives | arguments | queried claims |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for task, bands in table.items():
        for band, entry in bands.items():
            numbers = " | ".join(
                _number(entry[key]) for key in ("directives", "arguments", "queried")
            )
            lines.append(f"| {task} | {band} | {entry['rows']} | {numbers} |")
    return [*lines, ""]


# Command line ------------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction) -> None:
    """Add `diagnose` to `argc bench`."""
    command = commands.add_parser(
        "diagnose",
        help="the paper's diagnostics of a built benchmark",
        description="Solve every row's theory again under the other link principle and the"
        " other set comparison, count per task the rows whose grounded statuses (principle)"
        " or defeats (set comparison) change, count the matched counter_argument pair's"
        " minima and gaps, and give the median scale per task and level band, each beside"
        " the paper's figures. Prints a Markdown report; --out writes it and the numbers as"
        " JSON beside it (REPORT.json).",
    )
    command.set_defaults(handler=_diagnose_command)
    command.add_argument("directory", type=Path, metavar="DIR")
    command.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, metavar="N")
    command.add_argument("--out", type=Path, metavar="REPORT.md")


def _json_path(out: Path) -> Path:
    """Where the numbers go beside a Markdown report."""
    if str(out) == "-" or out.suffix == ".json":
        raise ArgcError(f"--out names the Markdown report (REPORT.md), not '{out}'")
    return out.with_suffix(".json")


def _diagnose_command(args: argparse.Namespace) -> int:
    try:
        numbers = None if args.out is None else _json_path(args.out)
        result = diagnose(args.directory, args.workers)
        text = markdown(result, str(args.directory))
        sys.stdout.write(text)
        if args.out is not None:
            write_output(args.out, text)
            write_output(numbers, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    except ArgcError as error:
        print(f"argc bench diagnose: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    return EXIT_OK
