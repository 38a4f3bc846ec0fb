"""The tasks' commands: `argc generate` and `argc score`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.dsl.errors import ArgcError, InputError
from argc.dsl.ir import PRINCIPLES, SET_COMPARISONS, Ordering
from argc.tasks.framework import (
    LEVELS,
    REGISTRY,
    Instance,
    Score,
    generate,
    get_task,
    load_tasks,
    score,
)

EXIT_OK, EXIT_INPUT_ERROR = 0, 2


def register(commands: argparse._SubParsersAction) -> None:
    """Add `generate` and `score` to the `argc` command line."""
    make = commands.add_parser(
        "generate",
        help="generate task instances (JSONL)",
        description="Generate instances of a task for a level, ordering and seeds S..S+N-1."
        " With --out the file is written atomically; an interrupted run resumes from"
        " FILE.partial.",
    )
    make.set_defaults(handler=_generate)
    make.add_argument("task", help=f"one of {', '.join(sorted(REGISTRY))}, or a loaded task")
    make.add_argument("--level", type=int, required=True, choices=LEVELS, metavar="1..15")
    make.add_argument("--ordering", choices=PRINCIPLES, default="last-link")
    make.add_argument("--set", choices=SET_COMPARISONS, default="elitist")
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--count", type=int, default=1)
    make.add_argument("--out", type=Path, metavar="FILE.jsonl")
    _add_load(make)
    grade = commands.add_parser(
        "score",
        help="score predictions against instances",
        description="Score predictions ({id, response} per line) against instances; print a"
        " per-task table and write {id, task, native, success, reason} rows.",
    )
    grade.set_defaults(handler=_score)
    grade.add_argument("instances", type=Path, metavar="INSTANCES.jsonl")
    grade.add_argument("predictions", type=Path, metavar="PREDICTIONS.jsonl")
    grade.add_argument("--out", type=Path, metavar="RESULTS.jsonl")
    _add_load(grade)


def _add_load(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--load",
        action="append",
        default=[],
        type=Path,
        metavar="TASKS.py",
        help="import a Python file that registers more tasks (repeatable)",
    )


def _load(args: argparse.Namespace) -> None:
    for path in args.load:
        load_tasks(path)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """JSON objects, one per non-empty line; a bad line is an InputError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read file: {error}", filename=str(path)) from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(
                f"not JSON: {error.msg}", filename=str(path), line=number, column=error.colno
            ) from None
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", filename=str(path), line=number, column=1)
        rows.append(row)
    return rows


def write_jsonl(path: Path, lines: list[str]) -> None:
    """Write lines atomically: a temporary file beside `path`, then a rename."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    os.replace(temporary, path)


def _resumable(partial: Path | None) -> dict[int, str]:
    """Instances (by seed) that an interrupted run already wrote to FILE.partial."""
    done: dict[int, str] = {}
    if partial is None or not partial.exists():
        return done
    for line in partial.read_text(encoding="utf-8").splitlines():
        try:
            done[json.loads(line)["seed"]] = line
        except (json.JSONDecodeError, KeyError, TypeError):
            break  # a torn last line: regenerate from there
    return done


def _generate(args: argparse.Namespace) -> int:
    try:
        _load(args)
        get_task(args.task)
    except ArgcError as error:
        print(f"argc generate: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    ordering = Ordering(args.ordering, args.set)
    seeds = range(args.seed, args.seed + args.count)
    partial = args.out.with_name(args.out.name + ".partial") if args.out else None
    done = _resumable(partial)
    lines: list[str] = []
    progress = tqdm(seeds, desc=f"{args.task} L{args.level}", disable=args.count < 2)
    with open(partial, "w", encoding="utf-8") if partial else nullcontext() as sink:
        for seed in progress:
            try:
                line = done.get(seed) or generate(args.task, args.level, ordering, seed).to_json()
            except ArgcError as error:
                print(f"argc generate: {error}", file=sys.stderr)
                return EXIT_INPUT_ERROR
            lines.append(line)
            if sink is not None:
                sink.write(line + "\n")
                sink.flush()
    if args.out is None:
        sys.stdout.write("".join(f"{line}\n" for line in lines))
    else:
        write_jsonl(args.out, lines)
        partial.unlink()
    return EXIT_OK


def _score(args: argparse.Namespace) -> int:
    try:
        _load(args)
        instances = [Instance.from_record(row) for row in read_jsonl(args.instances)]
        predictions = {
            str(row.get("id")): str(row.get("response", "")) for row in read_jsonl(args.predictions)
        }
    except (ArgcError, KeyError, TypeError) as error:
        print(f"argc score: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    rows, table = [], defaultdict(list)
    for instance in tqdm(instances, desc="scoring", disable=len(instances) < 50):
        if instance.id in predictions:
            result = score(instance, predictions[instance.id])
        else:
            result = Score(0.0, False, "no prediction for this instance")
        table[instance.task].append(result)
        rows.append(
            json.dumps(
                {
                    "id": instance.id,
                    "task": instance.task,
                    "native": round(result.native, 6),
                    "success": result.success,
                    "reason": result.reason,
                }
            )
        )
    unknown = sorted(set(predictions) - {instance.id for instance in instances})
    if unknown:
        print(f"argc score: {len(unknown)} predictions name no instance", file=sys.stderr)
    print(f"{'task':<20} {'n':>5} {'success':>8} {'native':>8}")
    for task, results in sorted(table.items()):
        success = sum(result.success for result in results) / len(results)
        native = sum(result.native for result in results) / len(results)
        print(f"{task:<20} {len(results):>5} {success:>8.3f} {native:>8.3f}")
    if args.out is not None:
        write_jsonl(args.out, rows)
    return EXIT_OK
