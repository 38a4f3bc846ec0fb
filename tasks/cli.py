"""The tasks' commands: `argc generate` and `argc score`, and the instance and task-file
helpers that the evaluation and sampling commands share."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from argc import __version__
from argc.dsl.errors import ArgcError, InputError
from argc.dsl.ir import PRINCIPLES, SET_COMPARISONS, Ordering
from argc.files import (
    STDOUT,
    ResumeMismatch,
    check_resume,
    exclusive,
    open_append,
    output_kind,
    write_output,
)
from argc.options import natural_int, positive_int
from argc.recycling import recycled_map
from argc.tasks.framework import (
    LEVELS,
    REGISTRY,
    Instance,
    Score,
    generate_json,
    get_task,
    load_all_tasks,
    load_tasks,
    loaded_task_files,
)
from argc.tasks.isolation import (
    MAX_SCORING_WORKERS,
    configure,
    default_scorer,
    reads_only,
    score_pairs,
    scoring_workers,
)

EXIT_OK, EXIT_INPUT_ERROR = 0, 2
#: The fields every instance record has.
INSTANCE_FIELDS = tuple(Instance.__dataclass_fields__)
#: The key of a resume file's first line: the request that started it.
RESUME_KEY = "argc_resume"


def register(commands: argparse._SubParsersAction) -> None:
    """Add `generate` and `score` to the `argc` command line."""
    make = commands.add_parser(
        "generate",
        help="generate task instances (JSONL)",
        description="Generate instances of a task for a level, ordering and seeds S..S+N-1."
        " With --out FILE the file is written atomically; an interrupted run resumes from"
        " FILE.partial, which records the request that started it (task, level, ordering, set,"
        " seeds, argc version, loaded task files): another request is refused until the partial"
        " file is deleted. --out - (the default) writes to standard output.",
    )
    make.set_defaults(handler=_generate)
    make.add_argument("task", help=f"one of {', '.join(REGISTRY.names())}, or a loaded task")
    make.add_argument("--level", type=int, required=True, choices=LEVELS, metavar="1..15")
    make.add_argument("--ordering", choices=PRINCIPLES, default="last-link")
    make.add_argument("--set", choices=SET_COMPARISONS, default="elitist")
    make.add_argument("--seed", type=natural_int, default=0)
    make.add_argument("--count", type=positive_int, default=1)
    make.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="worker processes (default: 1); more than 200 instances are generated in worker"
        " processes replaced every 200 instances, which keeps memory flat",
    )
    make.add_argument("--out", type=Path, default=Path(STDOUT), metavar="FILE.jsonl|-")
    add_load_option(make)
    grade = commands.add_parser(
        "score",
        help="score predictions against instances",
        description="Score predictions ({id, response} per line) against instances; print a"
        " per-task table and write {id, task, native, success, reason} rows. Warns about"
        " predictions without an id, ids predicted twice (the last counts), predictions naming"
        " no instance and instances without a prediction.",
    )
    grade.set_defaults(handler=_score)
    grade.add_argument("instances", type=Path, metavar="INSTANCES.jsonl")
    grade.add_argument("predictions", type=Path, metavar="PREDICTIONS.jsonl")
    grade.add_argument("--out", type=Path, metavar="RESULTS.jsonl|-")
    grade.add_argument(
        "--workers",
        type=positive_int,
        default=scoring_workers(),
        help="scoring worker processes, each answer isolated in one (default: the cores, at"
        f" most {MAX_SCORING_WORKERS}: {scoring_workers()} here)",
    )
    add_load_option(grade)


def add_load_option(parser: argparse.ArgumentParser) -> None:
    """The repeatable `--load TASKS.py` option."""
    parser.add_argument(
        "--load",
        action="append",
        default=[],
        type=Path,
        metavar="TASKS.py",
        help="import a Python file that registers more tasks (repeatable)",
    )


def load_task_files(paths: Iterable[Path]) -> None:
    """Import the task files of --load; ArgcError naming the file when one fails (a task file
    is user code: whatever it raises is reported, not shown as a traceback)."""
    for path in paths:
        try:
            load_tasks(path)
        except ArgcError:
            raise
        except Exception as error:  # noqa: BLE001 - user code
            raise ArgcError(f"{path}: cannot load tasks: {type(error).__name__}: {error}") from None


def require_known_tasks(instances: list[Instance], source: Path) -> None:
    """ArgcError when an instance's task is not registered (before any work is done)."""
    unknown = Counter(instance.task for instance in instances if instance.task not in REGISTRY)
    if unknown:
        named = ", ".join(f"{task} ({count} instances)" for task, count in sorted(unknown.items()))
        raise ArgcError(
            f"{source}: unknown task(s) {named}; register them with --load TASKS.py"
            f" (known: {', '.join(REGISTRY.names())})"
        )


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


def read_instances(path: Path) -> list[Instance]:
    """The instances of a JSONL file; an InputError names a row that is not one (saying so
    when the file holds predictions instead) and a repeated id."""
    instances = []
    for number, row in enumerate(read_jsonl(path), start=1):
        missing = [name for name in INSTANCE_FIELDS if name not in row]
        if missing and _looks_like_predictions(row):
            raise InputError(
                "looks like a predictions file ({id, response} lines), not instances; the"
                " instances come first",
                filename=str(path),
            )
        if missing:
            raise InputError(
                f"row {number} is not an instance: it lacks {', '.join(missing)}",
                filename=str(path),
            )
        instances.append(Instance.from_record(row))
    seen: set[str] = set()
    for instance in instances:
        if instance.id in seen:
            raise InputError(f"duplicate instance id {instance.id}", filename=str(path))
        seen.add(instance.id)
    return instances


def _looks_like_predictions(row: dict[str, Any]) -> bool:
    return "response" in row and "prompt" not in row and "theory" not in row


# argc generate


def _generate(args: argparse.Namespace) -> int:
    try:
        load_task_files(args.load)
        get_task(args.task)
        if output_kind(args.out) == "file":
            with exclusive(args.out):
                _generate_resumably(args)
        else:
            write_output(args.out, _joined(_instances(args, {}, None)))
    except ArgcError as error:
        print(f"argc generate: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    return EXIT_OK


def _generate_resumably(args: argparse.Namespace) -> None:
    """Generate into --out through FILE.partial, resuming what an interrupted run wrote."""
    partial = args.out.with_name(args.out.name + ".partial")
    request = generate_request(args)
    done = _resumed(partial, request)
    write_output(partial, _joined([json.dumps({RESUME_KEY: request}), *done.values()]))
    with open_append(partial) as sink:
        lines = _instances(args, done, sink)
    write_output(args.out, _joined(lines))
    partial.unlink()


def generate_request(args: argparse.Namespace) -> dict[str, Any]:
    """What identifies a run of `argc generate`: its resume file holds no other's instances."""
    return {
        "command": "generate",
        "task": args.task,
        "level": args.level,
        "ordering": args.ordering,
        "set": args.set,
        "seed": args.seed,
        "count": args.count,
        "argc_version": __version__,
        "loaded": [_digest(path) for path in args.load],
    }


def _digest(path: Path) -> str:
    """The SHA-256 of a loaded task file (it was read when loaded, so it can be read now)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        raise ArgcError(f"{path}: cannot read: {error}") from None


def _resumed(partial: Path, request: dict[str, Any]) -> dict[int, str]:
    """Instance lines (by seed) that an interrupted run of the same request wrote; a torn last
    line is dropped. ResumeMismatch when another request started the file."""
    if not partial.exists():
        return {}
    try:
        lines = partial.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the resume file: {error}", filename=str(partial)) from None
    advice = f"delete {partial} to start over, or rerun the command that started it"
    started = _header(lines[0]) if lines else None
    if started is None:
        raise ResumeMismatch(f"{partial} is not a resume file of argc generate; {advice}")
    check_resume(partial, started, request, advice)
    done: dict[int, str] = {}
    for line in lines[1:]:
        try:
            done[json.loads(line)["seed"]] = line
        except (json.JSONDecodeError, KeyError, TypeError):
            break  # a torn last line: regenerate from there
    return done


def _header(line: str) -> dict[str, Any] | None:
    """The request recorded on a resume file's first line, or None."""
    try:
        found = json.loads(line)
    except json.JSONDecodeError:
        return None
    request = found.get(RESUME_KEY) if isinstance(found, dict) else None
    return request if isinstance(request, dict) else None


def _instances(args: argparse.Namespace, done: dict[int, str], sink: BinaryIO | None) -> list[str]:
    """The JSON lines of seeds --seed .. --seed+--count-1, taken from `done` or generated (and
    appended to `sink`, flushed, as each is made)."""
    from tqdm import tqdm

    ordering = Ordering(args.ordering, args.set)
    seeds = range(args.seed, args.seed + args.count)
    jobs = [(args.task, args.level, ordering, seed) for seed in seeds if seed not in done]
    made = recycled_map(
        generate_json,
        jobs,
        workers=args.workers,
        chunk=1,
        initializer=load_all_tasks,
        initargs=(loaded_task_files(),),
    )
    lines: list[str] = []
    for seed in tqdm(seeds, desc=f"{args.task} L{args.level}", disable=args.count < 2):
        line = done.get(seed)
        if line is None:
            line = next(made)
            if sink is not None:
                sink.write((line + "\n").encode("utf-8"))
                sink.flush()
        lines.append(line)
    return lines


def _joined(lines: Iterable[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


# argc score


def _score(args: argparse.Namespace) -> int:
    try:
        load_task_files(args.load)
        configure(workers=args.workers)
        instances = read_instances(args.instances)
        require_known_tasks(instances, args.instances)
        if not all(map(reads_only, instances)):
            default_scorer().start()  # the workers start while the predictions are read
        predictions, warnings = read_predictions(args.predictions)
        if args.out is not None:
            output_kind(args.out)  # refuse an unwritable output before scoring
    except ArgcError as error:
        print(f"argc score: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    warnings += coverage_warnings(instances, predictions)
    for warning in warnings:
        print(f"argc score: {warning}", file=sys.stderr)
    rows, table = scored(instances, predictions)
    print(f"{'task':<20} {'n':>5} {'success':>8} {'native':>8}")
    for task, results in sorted(table.items()):
        success = sum(result.success for result in results) / len(results)
        native = sum(result.native for result in results) / len(results)
        print(f"{task:<20} {len(results):>5} {success:>8.3f} {native:>8.3f}")
    if args.out is not None:
        try:
            write_output(args.out, _joined(rows))
        except ArgcError as error:
            print(f"argc score: {error}", file=sys.stderr)
            return EXIT_INPUT_ERROR
    return EXIT_OK


def coverage_warnings(instances: list[Instance], predictions: dict[str, str]) -> list[str]:
    """Predictions that name no instance, and instances without a prediction."""
    ids = {instance.id for instance in instances}
    unknown = len(set(predictions) - ids)
    unanswered = len(ids - set(predictions))
    warnings = []
    if unknown:
        warnings.append(
            f"{_number(unknown, 'prediction names', 'predictions name')} no instance (ignored)"
        )
    if unanswered:
        warnings.append(
            f"{_number(unanswered, 'instance has', 'instances have')} no prediction (scored 0)"
        )
    return warnings


def _number(count: int, one: str, many: str) -> str:
    """`1 id has`, `2 ids have`: a count with the words that agree with it."""
    return f"{count} {one if count == 1 else many}"


def read_predictions(path: Path) -> tuple[dict[str, str], list[str]]:
    """Responses by id, and warnings (`prediction_rows`). InputError when the file holds
    instances instead."""
    rows = list(read_jsonl(path))
    for row in rows:
        if "response" not in row and "prompt" in row and "theory" in row:
            raise InputError(
                "looks like an instances file, not predictions ({id, response} lines); the"
                " predictions come second",
                filename=str(path),
            )
    return prediction_rows(rows)


def prediction_rows(rows: Iterable[Any]) -> tuple[dict[str, str], list[str]]:
    """Responses by id, and warnings: rows without an id, ids given twice (the last counts),
    responses that are not text (scored as empty)."""
    predictions: dict[str, str] = {}
    lines: Counter[str] = Counter()
    without_id = not_text = 0
    for row in rows:
        if not isinstance(row, dict):
            without_id += 1
            continue
        identifier, response = row.get("id"), row.get("response")
        if not isinstance(identifier, str):
            without_id += 1
            continue
        if not isinstance(response, str):
            not_text += 1
            response = ""
        lines[identifier] += 1
        predictions[identifier] = response
    repeated = {identifier: count for identifier, count in lines.items() if count > 1}
    warnings = []
    if without_id:
        warnings.append(
            f"{_number(without_id, 'prediction has', 'predictions have')} no string id (ignored)"
        )
    if repeated:
        warnings.append(
            f"{_number(len(repeated), 'id has', 'ids have')} several predictions"
            f" ({sum(repeated.values())} lines);"
            " the last of each counts"
        )
    if not_text:
        warnings.append(
            f"{_number(not_text, 'response is', 'responses are')} not text (scored as empty)"
        )
    return predictions, warnings


def prediction_scores(instances: Sequence[Instance], predictions: dict[str, str]) -> list[Score]:
    """Each instance's score, as `argc score` computes it: its prediction scored by the
    shared scorer in batches (`score_pairs`), 0 without a prediction."""
    answered = [instance for instance in instances if instance.id in predictions]
    found = dict(
        zip(
            (id(instance) for instance in answered),
            score_pairs([(instance, predictions[instance.id]) for instance in answered]),
            strict=True,
        )
    )
    missing = Score(0.0, False, "no prediction for this instance")
    return [found.get(id(instance), missing) for instance in instances]


def scored(
    instances: list[Instance], predictions: dict[str, str]
) -> tuple[list[str], dict[str, list[Score]]]:
    """Result rows (JSON lines) and the results by task."""
    rows, table = [], defaultdict(list)
    for instance, result in zip(instances, prediction_scores(instances, predictions), strict=True):
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
    return rows, table
