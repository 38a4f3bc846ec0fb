"""`argc sample`: k scored samples per instance from an OpenAI-compatible endpoint or a local
transformers model, appended to a JSONL file one record per (instance, sample) as they arrive
(resumable); and `argc sample-metrics`: strict pass@k, SG/CG, heatmaps and gain correlations
of sample files (see `argc.train.metrics`)."""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.bench.endpoint import ChatClient, Completion, RequestFailed, backoff, parse_reply
from argc.bench.evaluate import RunWriter, load_instances, read_run
from argc.dsl.errors import ArgcError, InputError
from argc.tasks import Instance, score
from argc.train import metrics

EXIT_OK, EXIT_FAILURES, EXIT_INPUT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
#: The token budget of the local backend when --max-tokens is not given.
LOCAL_MAX_TOKENS = 1024
#: A sample to draw: an instance and the sample indices wanted from one request.
Job = tuple[Instance, list[int]]
#: Receives (instance, sample index, completion) on the main thread.
Record = Callable[[Instance, int, Completion], None]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `argc sample`."""
    parser.description = (
        "Draw K samples per instance from an OpenAI-compatible chat endpoint (--base-url) or a"
        " local transformers model (--local), score each with the task's scorer and append one"
        " record per (instance, sample) to SAMPLES.jsonl. A rerun draws only the samples"
        " missing (a larger --k adds samples). Exit 1 when some requests failed (rerun to"
        " retry them), 130 when interrupted."
    )
    parser.add_argument("instances", type=Path, metavar="INSTANCES.jsonl|DIR")
    parser.add_argument("--k", type=int, required=True, metavar="K", help="samples per instance")
    parser.add_argument("--out", type=Path, required=True, metavar="SAMPLES.jsonl")
    backend = parser.add_mutually_exclusive_group(required=True)
    backend.add_argument("--base-url", metavar="URL", help="e.g. http://127.0.0.1:8000/v1")
    backend.add_argument("--local", type=Path, metavar="MODEL_DIR", help="a transformers folder")
    parser.add_argument("--model", help="the model name (required with --base-url)")
    parser.add_argument(
        "--label", metavar="NAME", help="the checkpoint named in the records (default: model)"
    )
    parser.add_argument("--api-key-env", metavar="VAR", help="environment variable with the key")
    parser.add_argument("--temperature", type=float, default=1.0, metavar="T", help="default 1")
    parser.add_argument("--top-p", type=float, metavar="P")
    parser.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help=f"default: the server's; {LOCAL_MAX_TOKENS} with --local",
    )
    parser.add_argument("--concurrency", type=int, default=8, metavar="N", help="requests at once")
    parser.add_argument(
        "--n-per-request",
        type=int,
        default=1,
        metavar="N",
        help="samples asked of one request (the `n` field, for servers that support it; the"
        " samples a server does not return are asked for again)",
    )
    parser.add_argument("--batch-size", type=int, default=8, metavar="N", help="with --local")
    parser.add_argument("--seed", type=int, default=0, help="the sampling seed with --local")
    parser.add_argument("--system", metavar="PROMPT", help="a system message before each prompt")
    parser.add_argument("--extra-body", metavar="JSON", help="fields merged into each request")
    parser.add_argument(
        "--timeout", type=float, default=600.0, metavar="SECONDS", help="per request socket"
    )
    parser.add_argument(
        "--retries", type=int, default=5, metavar="N", help="retries of transient failures"
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N instances")


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `argc sample-metrics`."""
    parser.description = (
        "Strict pass@k (complete success only; unbiased estimator) per cell, task and level,"
        " and task, for every checkpoint in the sample files; with --baseline, the single-sample"
        " gain SG and ceiling gain CG of each checkpoint against it and the task-pair Pearson"
        " correlations of the gains. Writes metrics.md, metrics.json, CSV tables and heatmaps."
    )
    parser.add_argument("samples", type=Path, nargs="+", metavar="SAMPLES.jsonl")
    parser.add_argument("--baseline", type=Path, metavar="BASE_SAMPLES.jsonl")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR")
    parser.add_argument(
        "--max-k", type=int, default=metrics.MAX_K, metavar="K", help="largest k shown"
    )
    parser.add_argument(
        "--ceiling-k",
        type=int,
        default=metrics.CEILING_K,
        metavar="K",
        help="the k of CG (fewer when instances have fewer samples)",
    )


# argc sample


@dataclass
class Outcome:
    """What a sampling run did."""

    written: int = 0
    failed: int = 0
    first_error: str | None = None


def run(args: argparse.Namespace) -> int:
    """`argc sample`; returns the exit code."""
    try:
        _check_numbers(args)
        label = args.label or _model_name(args)
        instances = load_instances(args.instances)[: args.limit]
        done = prepare_samples(args.out, label)
        jobs = plan_jobs(instances, done, args.k, args.n_per_request if args.local is None else 1)
        draw = _backend(args, jobs)
        writer = RunWriter(args.out)
    except (ArgcError, ValueError) as error:
        print(f"argc sample: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except OSError as error:
        print(f"argc sample: cannot write {args.out}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    total = sum(len(indices) for _, indices in jobs)
    outcome = Outcome()
    stop = threading.Event()
    with writer, tqdm(total=total, desc=f"sample {label}", disable=not total) as progress:

        def record(instance: Instance, index: int, completion: Completion) -> None:
            if completion.error is None:
                writer.write(sample_record(instance, index, completion, label))
                outcome.written += 1
            else:
                outcome.failed += 1
                outcome.first_error = outcome.first_error or completion.error
            progress.update()
            progress.set_postfix(failed=outcome.failed, refresh=False)

        try:
            draw(jobs, record, stop)
        except KeyboardInterrupt:
            stop.set()
    if stop.is_set():
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


def _check_numbers(args: argparse.Namespace) -> None:
    for name, least in (
        ("k", 1),
        ("concurrency", 1),
        ("n_per_request", 1),
        ("batch_size", 1),
        ("max_tokens", 1),
        ("retries", 0),
        ("limit", 0),
    ):
        value = getattr(args, name)
        if value is not None and value < least:
            raise ArgcError(f"--{name.replace('_', '-')} is out of range: {value}")
    if args.timeout <= 0:
        raise ArgcError(f"--timeout must be positive, not {args.timeout}")
    if args.temperature < 0:
        raise ArgcError(f"--temperature must be >= 0, not {args.temperature}")


def _model_name(args: argparse.Namespace) -> str:
    if args.model is not None:
        return args.model
    if args.local is None:
        raise ArgcError("--model is required with --base-url")
    return args.local.resolve().name


def sample_record(
    instance: Instance, index: int, completion: Completion, checkpoint: str
) -> dict[str, Any]:
    """The record of one sample, scored by the task's scorer."""
    result = score(instance, completion.response)
    return {
        "id": instance.id,
        "task": instance.task,
        "level": instance.level,
        "ordering": instance.ordering,
        "set": instance.set,
        "sample": index,
        "response": completion.response,
        "finish_reason": completion.finish_reason,
        "native": round(result.native, 6),
        "success": result.success,
        "checkpoint": checkpoint,
    }


def prepare_samples(path: Path, checkpoint: str) -> set[tuple[str, int]]:
    """The (id, sample) pairs already in the samples file, which must be the same
    checkpoint's; a torn last line is dropped (the file is rewritten atomically)."""
    records, torn = read_run(path)
    for number, record in enumerate(records, start=1):
        if not isinstance(record.get("sample"), int) or isinstance(record["sample"], bool):
            raise InputError(f"record {number} has no sample index", filename=str(path))
    others = sorted({str(record.get("checkpoint")) for record in records} - {checkpoint})
    if others:
        raise InputError(
            f"holds samples of another checkpoint ({', '.join(others)}), not {checkpoint};"
            " write to another file or pass --label",
            filename=str(path),
        )
    if torn:
        _rewrite(path, records)
    return {(record["id"], record["sample"]) for record in records}


def _rewrite(path: Path, records: list[dict[str, Any]]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as sink:
        sink.writelines(
            json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n" for record in records
        )
        sink.flush()
        os.fsync(sink.fileno())
    os.replace(temporary, path)


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
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        start = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            try:
                reply = self._post(data)
                answers = [parse_reply({**reply, "choices": [c]}) for c in _choices(reply)]
                if not answers:
                    parse_reply(reply)  # raises the retryable "no choices" failure
            except RequestFailed as failure:
                if not failure.retryable or attempts > self.retries:
                    elapsed = time.monotonic() - start
                    return [Completion("", None, None, elapsed, attempts, str(failure))]
                time.sleep(backoff(attempts, failure.retry_after))
                continue
            latency = time.monotonic() - start
            return [
                Completion(text, finish, usage, latency, attempts)
                for text, finish, usage in answers[:n]
            ]


def _choices(reply: Any) -> list[dict[str, Any]]:
    """The reply's choices in index order."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list):
        return []
    found = [choice for choice in choices if isinstance(choice, dict)]
    return sorted(found, key=lambda choice: _index(choice.get("index")))


def _index(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _backend(args: argparse.Namespace, jobs: list[Job]) -> Draw:
    if args.local is not None:
        return _local_backend(args, jobs)
    if not args.base_url.startswith(("http://", "https://")):
        raise ArgcError(f"--base-url must be an http(s) URL, not {args.base_url!r}")
    api_key = None
    if args.api_key_env is not None:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ArgcError(f"environment variable {args.api_key_env} is not set")
    client = SamplingClient(
        args.base_url,
        args.model,
        api_key=api_key,
        system=args.system,
        params=_params(args),
        timeout=args.timeout,
        retries=args.retries,
    )

    def draw(jobs: list[Job], record: Record, stop: threading.Event) -> None:
        draw_concurrently(jobs, client.complete_many, record, stop, args.concurrency)

    return draw


def _params(args: argparse.Namespace) -> dict[str, Any]:
    params = {
        key: value
        for key, value in (
            ("max_tokens", args.max_tokens),
            ("temperature", args.temperature),
            ("top_p", args.top_p),
        )
        if value is not None
    }
    if args.extra_body is not None:
        try:
            extra = json.loads(args.extra_body)
        except json.JSONDecodeError as error:
            raise ArgcError(f"--extra-body is not JSON: {error}") from None
        if not isinstance(extra, dict):
            raise ArgcError("--extra-body must be a JSON object")
        params.update(extra)
    return params


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
    pending_jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
    results: queue.SimpleQueue[tuple[Instance, int, Completion]] = queue.SimpleQueue()
    for job in jobs:
        pending_jobs.put(job)

    def work() -> None:
        while not stop.is_set():
            try:
                instance, indices = pending_jobs.get_nowait()
            except queue.Empty:
                return
            while indices and not stop.is_set():
                try:
                    completions = complete(instance.prompt, len(indices))
                except Exception as error:  # noqa: BLE001 - recorded; the run goes on
                    completions = [_failure(error)]
                if completions[0].error is not None:
                    completions = completions[:1] * len(indices)
                for index, completion in zip(indices, completions, strict=False):
                    results.put((instance, index, completion))
                indices = indices[len(completions) :]

    workers = [threading.Thread(target=work, daemon=True) for _ in range(concurrency)]
    for worker in workers[: len(jobs)]:
        worker.start()
    pending = sum(len(indices) for _, indices in jobs)
    while pending and not stop.is_set():
        try:
            instance, index, completion = results.get(timeout=0.2)
        except queue.Empty:
            continue
        record(instance, index, completion)
        pending -= 1


def _failure(error: BaseException) -> Completion:
    return Completion("", None, None, 0.0, 1, f"{type(error).__name__}: {error}")


def _local_backend(args: argparse.Namespace, jobs: list[Job]) -> Draw:
    from argc.bench.local import LocalModel, MissingBackend

    if not args.local.is_dir():
        raise ArgcError(f"--local: not a model folder: {args.local}")
    if not jobs:
        return lambda jobs, record, stop: None
    try:
        model = LocalModel(
            args.local,
            max_tokens=args.max_tokens or LOCAL_MAX_TOKENS,
            temperature=args.temperature,
            top_p=args.top_p,
            system=args.system,
        )
    except MissingBackend as error:
        raise ArgcError(f"--local: {error}") from None
    except (OSError, ValueError) as error:
        raise ArgcError(f"--local: cannot load {args.local}: {error}") from None

    def draw(jobs: list[Job], record: Record, stop: threading.Event) -> None:
        model.torch.manual_seed(args.seed)
        samples = [(instance, index) for instance, indices in jobs for index in indices]
        samples.sort(key=lambda sample: len(sample[0].prompt), reverse=True)
        for start in range(0, len(samples), args.batch_size):
            if stop.is_set():
                return
            batch = samples[start : start + args.batch_size]
            try:
                completions = model.complete_batch([instance.prompt for instance, _ in batch])
            except Exception as error:  # noqa: BLE001 - e.g. out of memory: recorded
                completions = [_failure(error)] * len(batch)
            for (instance, index), completion in zip(batch, completions, strict=True):
                record(instance, index, completion)

    return draw


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
        for name in ("max_k", "ceiling_k"):
            if getattr(args, name) < 1:
                raise ArgcError(f"--{name.replace('_', '-')} must be at least 1")
        prompts = [prompt for path in args.samples for prompt in metrics.read_samples(path)]
        if len({(p.checkpoint, p.id) for p in prompts}) < len(prompts):
            raise ArgcError("an instance of one checkpoint appears in two sample files")
        baseline = metrics.read_samples(args.baseline) if args.baseline else None
        report = metrics.build_report(prompts, baseline, max_k=args.max_k, ceiling_k=args.ceiling_k)
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
