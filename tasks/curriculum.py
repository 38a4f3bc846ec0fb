"""`argc curriculum`: measured structural statistics per task and level, as a Markdown report.

For every task and level it generates instances (cycling through the four orderings), solves
each theory once more and averages what the curriculum is meant to vary. Results per
(task, level) are kept in FILE.partial.json so that an interrupted run of the same request
(instances, tasks, argc version) resumes; another request is refused until it is deleted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from itertools import cycle
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc import __version__
from argc.compiler import Solution, solve
from argc.dsl.errors import ArgcError
from argc.dsl.ir import ORDERINGS
from argc.files import ResumeMismatch, check_resume, exclusive, output_kind, write_output
from argc.options import positive_int
from argc.tasks.framework import LEVELS, Instance, generate, get_task, suite_tasks

COLUMNS = {
    "directives": "directives",
    "arguments": "arguments",
    "defeats": "defeats",
    "depth": "depth",
    "undermine": "undermines",
    "rebut": "rebuts",
    "undercut": "undercuts",
    "strict": "strict rules",
    "preferences": "preferences",
    "rejected": "rejected candidates",
}
#: Measured for the constructive tasks only.
INTERVENTION_COLUMNS = {"minimum": "verified minimum", "space": "candidate space"}


def _depth(solution: Solution) -> int:
    """The most rule applications on a branch of any argument."""
    heights: dict[str, int] = {}
    for name in sorted(solution.arguments, key=len):  # sub-argument names are shorter
        argument = solution.arguments[name]
        heights[name] = 1 + max((heights[sub] for sub in argument.subarguments), default=-1)
    return max(heights.values(), default=0)


def measure(instance: Instance) -> dict[str, float]:
    """Structural statistics of one instance's theory."""
    theory = instance.parsed_theory
    solution = solve(theory, ordering=instance.strength)
    kinds = solution.attacks_by_kind()
    return {
        "directives": len(list(theory.without_header().directives())),
        "arguments": len(solution.arguments),
        "defeats": len(solution.defeats),
        "depth": _depth(solution),
        **kinds,
        "strict": len(theory.strict_rules),
        "preferences": len(theory.rule_preferences) + len(theory.premise_preferences),
        "rejected": sum(instance.meta.get("rejections", {}).values()),
        **intervention_measures(instance),
    }


def intervention_measures(instance: Instance) -> dict[str, float]:
    """The verified minimum and the candidate-space size of a constructive instance."""
    target = instance.target
    if not isinstance(target, dict) or "min_directives" not in target:
        return {}
    return {"minimum": target["min_directives"], "space": target["candidate_space_size"]}


def cell_statistics(task: str, level: int, count: int) -> dict[str, Any]:
    """Mean statistics over `count` instances of a task level (for constructive tasks also
    the distribution of verified minima, as minimum → count)."""
    rows = [
        measure(generate(task, level, ordering, seed))
        for seed, ordering in zip(range(count), cycle(ORDERINGS), strict=False)
    ]
    keys = [key for key in {**COLUMNS, **INTERVENTION_COLUMNS} if key in rows[0]]
    found: dict[str, Any] = {
        key: round(statistics.fmean(row[key] for row in rows), 1) for key in keys
    }
    if "minimum" in rows[0]:
        minima = Counter(int(row["minimum"]) for row in rows)
        found["minima"] = {str(size): minima[size] for size in sorted(minima)}
    return found


def command_line(count: int, tasks: list[str], out: Path) -> str:
    """The `argc curriculum` command that measures `tasks` (all of them when the default)."""
    chosen = "" if sorted(tasks) == sorted(suite_tasks()) else f" --tasks {' '.join(tasks)}"
    return f"argc curriculum --instances {count}{chosen} --out {out}"


def report(results: dict[str, dict[str, dict[str, float]]], count: int, command: str) -> str:
    """The Markdown report of `results`, saying the `command` that measured them."""
    lines = [
        "# Curriculum",
        "",
        f"Measured with `{command}`: for each task and level, the mean over {count}"
        " generated instances (seeds 0.., the four orderings in turn) of the theory's size and"
        " structure. *depth* is the most rule applications on a branch of an argument;"
        " attacks are counted per attacked argument and sub-argument; *rejected* is the number"
        " of candidates the gates rejected per accepted instance.",
    ]
    for task in sorted(results):
        lines += ["", f"## {task}", "", "Parameters per level:", ""]
        parameters = [get_task(task).parameters(level) for level in LEVELS]
        keys = sorted({key for entry in parameters for key in entry})
        lines.append("| level | " + " | ".join(keys) + " |")
        lines.append("|---" * (len(keys) + 1) + "|")
        for level, entry in zip(LEVELS, parameters, strict=True):
            lines.append(f"| {level} | " + " | ".join(str(entry.get(k, "")) for k in keys) + " |")
        lines += ["", "Measured:", ""]
        first = results[task][str(LEVELS[0])]
        columns = {k: v for k, v in {**COLUMNS, **INTERVENTION_COLUMNS}.items() if k in first}
        lines.append("| level | " + " | ".join(columns.values()) + " |")
        lines.append("|---" * (len(columns) + 1) + "|")
        for level in LEVELS:
            row = results[task][str(level)]
            lines.append(f"| {level} | " + " | ".join(f"{row[k]:g}" for k in columns) + " |")
        if "minima" in first:
            lines += ["", minima_table({task: results[task]})]
    return "\n".join(lines) + "\n"


def minima_table(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Distribution of verified minima per task and level: `size×count` entries."""
    lines = ["| task | " + " | ".join(f"L{level}" for level in LEVELS) + " |"]
    lines.append("|---" * (len(LEVELS) + 1) + "|")
    for task in sorted(results):
        cells = [
            " ".join(f"{size}×{n}" for size, n in results[task][str(level)]["minima"].items())
            for level in LEVELS
        ]
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def register(commands: argparse._SubParsersAction) -> None:
    """Add `curriculum` to the `argc` command line."""
    parser = commands.add_parser(
        "curriculum",
        help="measure structural statistics per task and level (Markdown)",
        description=__doc__,
    )
    parser.set_defaults(handler=_run)
    parser.add_argument("--instances", type=positive_int, default=50, help="per task and level")
    parser.add_argument("--tasks", nargs="+", choices=suite_tasks(), default=suite_tasks())
    parser.add_argument("--out", type=Path, default=Path("curriculum.md"), metavar="FILE.md|-")


def _run(args: argparse.Namespace) -> int:
    command = command_line(args.instances, args.tasks, args.out)
    try:
        if output_kind(args.out) != "file":
            write_output(args.out, report(_measure(args, None), args.instances, command))
            return 0
        with exclusive(args.out):
            partial = args.out.with_name(args.out.name + ".partial.json")
            results = _measure(args, partial)
            write_output(args.out, report(results, args.instances, command))
            partial.unlink()
    except ArgcError as error:
        print(f"argc curriculum: {error}", file=sys.stderr)
        return 2
    return 0


def _measure(args: argparse.Namespace, partial: Path | None) -> dict[str, Any]:
    """The statistics of every cell of the request, resumed from and kept in `partial`."""
    request = {
        "command": "curriculum",
        "instances": args.instances,
        "tasks": sorted(args.tasks),
        "argc_version": __version__,
    }
    results = _resumed(partial, request) if partial is not None else {}
    cells = [(task, level) for task in args.tasks for level in LEVELS]
    for task, level in tqdm(cells, desc="curriculum"):
        if str(level) in results.get(task, {}):
            continue
        results.setdefault(task, {})[str(level)] = cell_statistics(task, level, args.instances)
        if partial is not None:
            write_output(partial, json.dumps({"request": request, "results": results}))
    return results


def _resumed(partial: Path, request: dict[str, Any]) -> dict[str, Any]:
    """The results an interrupted run of the same request kept; ResumeMismatch for another."""
    if not partial.exists():
        return {}
    advice = f"delete {partial} to start over, or rerun the command that started it"
    try:
        found = json.loads(partial.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("request"), dict):
        raise ResumeMismatch(f"{partial} is not a resume file of argc curriculum; {advice}")
    check_resume(partial, found["request"], request, advice)
    return found.get("results") or {}
