"""`argc sample`: k scored samples per instance from an OpenAI-compatible endpoint or a local
transformers model, appended to a JSONL file one record per (instance, sample) as they arrive
(resumable with the same settings); and `argc sample-metrics`: strict pass@k, SG/CG, heatmaps
and gain correlations of sample files (see `argc.train.metrics`)."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.bench.endpoint import ChatClient, Completion, failure, parse_choices
from argc.bench.evaluate import (
    EXIT_FAILURES,
    EXIT_INPUT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    RunWriter,
    add_backend_options,
    check_owner,
    check_requests,
    endpoint_client,
    input_error,
    instance_fields,
    model_name,
    read_run,
    read_tasks_and_instances,
    request_record,
    rewrite_run,
    work_concurrently,
)
from argc.bench.local import load_local
from argc.dsl.errors import ArgcError, InputError
from argc.files import exclusive
from argc.options import positive_int
from argc.tasks import Instance, Score
from argc.tasks.isolation import ScoringBuffer
from argc.train import metrics

#: A sample to draw: an instance and the sample indices wanted from one request.
Job = tuple[Instance, list[int]]
#: Receives (instance, sample index, completion) on the main thread.
Record = Callable[[Instance, int, Completion], None]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `argc sample`."""
    parser.description = (
        "Draw K samples per instance from an OpenAI-compatible chat endpoint (--base-url) or a"
        " local transformers model (--local), score each with the task's scorer and append one"
        " record per (instance, sample) to SAMPLES.jsonl, with the request settings that"
        " produced it. A rerun draws only the samples missing (a larger --k adds samples) and"
        " refuses other settings; one process at a time writes a samples file. Exit 1 when some"
        " requests failed (rerun to retry them), 2 on bad input, 130 when interrupted."
    )
    parser.add_argument("instances", type=Path, metavar="INSTANCES.jsonl|DIR")
    parser.add_argument(
        "--k", type=positive_int, required=True, metavar="K", help="samples per instance"
    )
    parser.add_argument("--out", type=Path, required=True, metavar="SAMPLES.jsonl")
    parser.add_argument(
        "--label", metavar="NAME", help="the checkpoint named in the records (default: model)"
    )
    add_backend_options(parser, temperature=1.0, temperature_help="default 1")
    parser.add_argument(
        "--n-per-request",
        type=positive_int,
        default=1,
        metavar="N",
        help="samples asked of one request (the `n` field, for servers that support it; the"
        " samples a server does not return are asked for again)",
    )


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `argc sample-metrics`."""
    parser.description = (
        "Strict pass@k (complete success only; unbiased estimator) per cell, task and level,"
        " and task, for every checkpoint in the sample files; with --baseline, the single-sample"
        " gain SG and ceiling gain CG of each checkpoint against it and the task-pair Pearson"
        " correlations of the gains. KG samples (records with depth and complexity) are also"
        " reported per (task, depth, complexity) cell, as depth x complexity grids, with the"
        " recipes' depth- and complexity-axis mean ranks of CG and, with --recipe-cells, their"
        " in-recipe and out-of-recipe CG. Writes metrics.md, metrics.json, CSV tables and"
        " heatmaps."
    )
    parser.add_argument("samples", type=Path, nargs="+", metavar="SAMPLES.jsonl")
    parser.add_argument("--baseline", type=Path, metavar="BASE_SAMPLES.jsonl")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR")
    parser.add_argument(
        "--max-k", type=positive_int, default=metrics.MAX_K, metavar="K", help="largest k shown"
    )
    parser.add_argument(
        "--ceiling-k",
        type=positive_int,
        default=metrics.CEILING_K,
        metavar="K",
        help="the k of CG (fewer when instances have fewer samples)",
    )
    parser.add_argument(
        "--recipe-cells",
        type=Path,
        metavar="CELLS.yaml|json",
        help="each recipe's training cells: a mapping of checkpoint to a list of"
        " [depth, complexity] pairs (for the in-recipe / out-of-recipe CG of KG samples)",
    )
    parser.add_argument(
        "--recipe-group",
        type=recipe_group,
        action="append",
        default=[],
        metavar="NAME=CHECKPOINT,...",
        help="also correlate the gains over these checkpoints only (repeatable)",
    )


def recipe_group(text: str) -> tuple[str, tuple[str, ...]]:
    """A --recipe-group value: NAME=CHECKPOINT[,CHECKPOINT...]."""
    name, _, members = text.partition("=")
    checkpoints = tuple(member.strip() for member in members.split(",") if member.strip())
    if not name.strip() or not checkpoints:
        raise argparse.ArgumentTypeError(f"expected NAME=CHECKPOINT[,CHECKPOINT...], not {text!r}")
    return name.strip(), checkpoints


# argc sample


@dataclass
class Outcome:
    """What a sampling run did."""

    written: int = 0
    failed: int = 0
    first_error: str | None = None


def run(args: argparse.Namespace) -> int:
    """`argc sample`; returns the exit code."""
    with ExitStack() as stack:
        try:
            label = args.label or model_name(args)
            instances = read_tasks_and_instances(args)
            stack.enter_context(exclusive(args.out))
            request = request_record(args)
            done = prepare_samples(args.out, label, request)
            per_request = args.n_per_request if args.local is None else 1
            jobs = plan_jobs(instances, done, args.k, per_request)
            draw = _backend(args, jobs)
            writer = stack.enter_context(RunWriter(args.out))
        except (ArgcError, ValueError, OSError) as error:
            return input_error("sample", args.out, error)
        outcome, stopped = _draw(jobs, draw, writer, label, request)
    total = sum(len(indices) for _, indices in jobs)
    if stopped:
        print(
            f"argc sample: interrupted; {outcome.written} of {total} samples written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    _summary(args.out, label, {instance.id for instance in instances}, args.k)
    if outcome.failed:
        print(
            f"argc sample: {outcome.failed} samples failed ({outcome.first_error}); rerun to"
            " draw them",
            file=sys.stderr,
        )
        return EXIT_FAILURES
    return EXIT_OK


def _draw(
    jobs: list[Job], draw: Draw, writer: RunWriter, label: str, request: dict[str, Any]
) -> tuple[Outcome, bool]:
    """Draw the jobs' samples, appending a record for each that succeeded; returns what was
    done and whether the run was interrupted."""
    total = sum(len(indices) for _, indices in jobs)
    outcome = Outcome()
    stop = threading.Event()
    with tqdm(total=total, desc=f"sample {label}", disable=not total) as progress:
        scoring = ScoringBuffer()

        def counted() -> None:
            progress.update()
            progress.set_postfix(failed=outcome.failed, refresh=False)

        def record(instance: Instance, index: int, completion: Completion) -> None:
            if completion.error is not None:
                outcome.failed += 1
                outcome.first_error = outcome.first_error or completion.error
                counted()
                return

            def write(result: Score) -> None:
                writer.write(sample_record(instance, index, completion, label, request, result))
                outcome.written += 1
                counted()

            scoring.add(instance, completion.response, write)

        try:
            with scoring:
                draw(jobs, record, stop)
        except KeyboardInterrupt:
            stop.set()
    return outcome, stop.is_set()


def sample_record(
    instance: Instance,
    index: int,
    completion: Completion,
    checkpoint: str,
    request: dict[str, Any],
    result: Score,
) -> dict[str, Any]:
    """The record of one sample, with its score (the task's scorer's)."""
    return {
        **instance_fields(instance),
        "sample": index,
        "request": request,
        "response": completion.response,
        "finish_reason": completion.finish_reason,
        "native": round(result.native, 6),
        "success": result.success,
        "checkpoint": checkpoint,
    }


def prepare_samples(path: Path, checkpoint: str, request: dict[str, Any]) -> set[tuple[str, int]]:
    """The (id, sample) pairs already in the samples file, which must be the same
    checkpoint's with the same request settings; a torn last line is dropped (the file is
    rewritten atomically)."""
    records, torn = read_run(path)
    for number, record in enumerate(records, start=1):
        if not isinstance(record.get("sample"), int) or isinstance(record["sample"], bool):
            raise InputError(f"record {number} has no sample index", filename=str(path))
    advice = "write to another file or pass --label"
    check_owner(path, records, "checkpoint", checkpoint, what="samples", advice=advice)
    check_requests(path, records, request, advice="write to another file")
    if torn:
        rewrite_run(path, records)
    return {(record["id"], record["sample"]) for record in records}


def plan_jobs(
    instances: list[Instance], done: set[tuple[str, int]], k: int, per_request: int
) -> list[Job]:
    """The missing samples 0..k-1 of each instance, in chunks of `per_request` indices."""
    jobs = []
    for instance in instances:
        missing = [index for index in range(k) if (instance.id, index) not in done]
        jobs += [
            (instance, missing[start : start + per_request])
            for start in range(0, len(missing), per_request)
        ]
    return jobs


# Backends


Draw = Callable[[list[Job], Record, threading.Event], None]


class SamplingClient(ChatClient):
    """A chat client that asks one request for several samples (the `n` field) and returns
    every choice the server sent."""

    def complete_many(self, prompt: str, n: int) -> list[Completion]:
        """Up to n completions of `prompt` (servers that ignore `n` return one), or one
        Completion carrying the error when the request failed after its retries."""
        body = self.body(prompt)
        if n > 1:
            body["n"] = n
        return self.request(body, parse_choices)[:n]


def _backend(args: argparse.Namespace, jobs: list[Job]) -> Draw:
    if args.local is None:
        client = endpoint_client(args, SamplingClient)
        return lambda jobs, record, stop: draw_concurrently(
            jobs, client.complete_many, record, stop, args.concurrency
        )
    model = load_local(args, bool(jobs))
    if model is None:
        return lambda jobs, record, stop: None

    def draw(jobs: list[Job], record: Record, stop: threading.Event) -> None:
        samples = [(instance, index) for instance, indices in jobs for index in indices]
        model.complete_in_batches(
            samples,
            lambda sample: sample[0].prompt,
            lambda sample, completion: record(*sample, completion),
            stop,
            args.batch_size,
        )

    return draw


def draw_concurrently(
    jobs: list[Job],
    complete: Callable[[str, int], list[Completion]],
    record: Record,
    stop: threading.Event,
    concurrency: int,
) -> None:
    """Draw the jobs' samples on `concurrency` threads, recording each on this thread. A
    request that returns fewer samples than asked is followed by one for the rest; a failed
    request fails all its samples. When `stop` is set nothing more is sent."""

    def work(job: Job) -> Iterator[tuple[Instance, int, Completion]]:
        instance, indices = job
        while indices and not stop.is_set():
            try:
                completions = complete(instance.prompt, len(indices))
            except Exception as error:  # noqa: BLE001 - recorded; the run goes on
                completions = [failure(error)]
            if completions[0].error is not None:
                completions = completions[:1] * len(indices)
            for index, completion in zip(indices, completions, strict=False):
                yield instance, index, completion
            indices = indices[len(completions) :]

    def size(job: Job) -> int:
        return len(job[1])

    work_concurrently(jobs, work, record, stop, concurrency, size=size, await_in_flight=False)


def _summary(path: Path, checkpoint: str, selected: set[str], k: int) -> None:
    """Per-task instances, samples, pass@1 and pass@k of this checkpoint's samples."""
    prompts = [
        p for p in metrics.read_samples(path) if p.checkpoint == checkpoint and p.id in selected
    ]
    by_task = metrics.summarise(prompts, "tasks", k)
    print(f"{'task':<26} {'inst.':>6} {'samples':>8} {'pass@1':>7} {'pass@k':>7} {'k':>4}")
    for (task,), group in by_task.items():
        print(
            f"{task:<26} {group.prompts:>6} {group.samples:>8} {group.curve[0]:>7.3f}"
            f" {group.curve[-1]:>7.3f} {len(group.curve):>4}"
        )


# argc sample-metrics


def run_metrics(args: argparse.Namespace) -> int:
    """`argc sample-metrics`; returns the exit code."""
    try:
        prompts = [prompt for path in args.samples for prompt in metrics.read_samples(path)]
        if len({(p.checkpoint, p.id) for p in prompts}) < len(prompts):
            raise ArgcError("an instance of one checkpoint appears in two sample files")
        baseline = metrics.read_samples(args.baseline) if args.baseline else None
        cells = metrics.read_recipe_cells(args.recipe_cells) if args.recipe_cells else None
        groups = dict(args.recipe_group)
        if len(groups) < len(args.recipe_group):
            raise ArgcError("two --recipe-group options share a name")
        report = metrics.build_report(
            prompts,
            baseline,
            max_k=args.max_k,
            ceiling_k=args.ceiling_k,
            recipe_cells=cells,
            recipe_groups=groups,
        )
    except ArgcError as error:
        print(f"argc sample-metrics: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    try:
        metrics.write_report(report, args.out)
    except OSError as error:
        print(f"argc sample-metrics: cannot write {args.out}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    k = report["ceiling_k"]
    gains = {row["checkpoint"]: row for row in report["gains"].get("overall", [])}
    for row in report["pass_at_k"]["overall"]:
        line = f"{row['checkpoint']}: pass@1 {row['pass_at_k'][0]:.3f}"
        line += f", pass@{k} {row['pass_at_k'][k - 1]:.3f} over {row['prompts']} instances"
        if row["checkpoint"] in gains:
            gain = gains[row["checkpoint"]]
            line += f"; SG {gain['sg']:+.3f}, CG {gain['cg']:+.3f}"
        print(line)
    print(f"metrics: {args.out / 'metrics.md'}")
    return EXIT_OK
