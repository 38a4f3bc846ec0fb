"""`argc eval`: run a model on instances and write a run file, one scored record per
instance with the request settings that produced it, appended as each answer arrives
(resumable with the same settings; interrupted runs keep what they wrote; one writer at a
time)."""

from __future__ import annotations

import argparse
import json
import operator
import os
import queue
import signal
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from tqdm import tqdm

from argc.bench.endpoint import MAX_REPLY_BYTES, ChatClient, Completion, failure
from argc.bench.local import LOCAL_MAX_TOKENS, LOCAL_TEMPERATURE, PROMPT_FORMATS, load_local
from argc.dsl.errors import ArgcError, InputError
from argc.files import (
    ResumeMismatch,
    check_resume,
    exclusive,
    open_append,
    regular_output,
    write_output,
)
from argc.options import natural_int, nonnegative_float, positive_int, seconds, unit_interval
from argc.tasks import Instance, Score
from argc.tasks.answers import answer_region
from argc.tasks.cli import add_load_option, load_task_files, read_instances, require_known_tasks
from argc.tasks.isolation import ScoringBuffer

EXIT_OK, EXIT_FAILURES, EXIT_INPUT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
Client = TypeVar("Client", bound=ChatClient)
Job = TypeVar("Job")


#: ArgGYM's evaluation settings (its Table 3): temperature 1.0 and a 65,536-token output
#: budget for every model; the defaults of --temperature and --max-tokens with --base-url.
DEFAULT_TEMPERATURE = 1.0
DEFAULT_MAX_TOKENS = 65536
#: The environment variable read for the key when --api-key-env is not given.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def register(commands: argparse._SubParsersAction) -> None:
    """Add `eval` to the `argc` command line."""
    run = commands.add_parser(
        "eval",
        help="run a model on instances and score its answers (JSONL run file)",
        description="Send each instance's prompt to an OpenAI-compatible chat endpoint"
        " (--base-url) or a local transformers model (--local), score the answers and append"
        " one record per instance to the run file, with the request settings that produced it."
        " A rerun skips the instances already in it (and refuses other settings);"
        " --retry-errors reruns those whose requests failed. One process at a time writes a"
        " run file. Exit 1 when some requests failed, 2 on bad input, 130 when interrupted.",
    )
    run.set_defaults(handler=_eval)
    run.add_argument("instances", type=Path, metavar="INSTANCES.jsonl|DIR")
    run.add_argument("--out", type=Path, required=True, metavar="RUN.jsonl")
    add_backend_options(
        run,
        temperature=None,
        temperature_help=f"default {DEFAULT_TEMPERATURE:g} (ArgGYM's setting); 0 (greedy)"
        " with --local",
    )
    run.add_argument("--reasoning-effort", metavar="EFFORT")
    run.add_argument(
        "--retry-errors", action="store_true", help="rerun the instances recorded with an error"
    )


def add_backend_options(
    parser: argparse.ArgumentParser, *, temperature: float | None, temperature_help: str
) -> None:
    """The options `argc eval` and `argc sample` share: the backend, the request settings,
    the limits of each request and --load."""
    backend = parser.add_mutually_exclusive_group(required=True)
    backend.add_argument("--base-url", metavar="URL", help="e.g. http://127.0.0.1:8000/v1")
    backend.add_argument("--local", type=Path, metavar="MODEL_DIR", help="a transformers folder")
    parser.add_argument("--model", help="the model name (required with --base-url)")
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help=f"environment variable with the key (default: {DEFAULT_KEY_ENV} when set; the"
        " key is sent to --base-url)",
    )
    parser.add_argument(
        "--temperature",
        type=nonnegative_float,
        default=temperature,
        metavar="T",
        help=temperature_help,
    )
    parser.add_argument("--top-p", type=unit_interval, metavar="P", help="default: unset")
    parser.add_argument(
        "--max-tokens",
        type=positive_int,
        metavar="N",
        help=f"default {DEFAULT_MAX_TOKENS} (ArgGYM's budget; lower it for a server with a"
        f" shorter context), {LOCAL_MAX_TOKENS} with --local",
    )
    parser.add_argument("--system", metavar="PROMPT", help="a system message before each prompt")
    parser.add_argument(
        "--prompt-format",
        choices=PROMPT_FORMATS,
        help="with --local: the prompt itself (raw) or in the tokenizer's chat template (chat);"
        " default: chat when the tokenizer has a template, else raw (a model pretrained on"
        " plain text by argc kg pretrain has none)",
    )
    parser.add_argument("--extra-body", metavar="JSON", help="fields merged into each request")
    parser.add_argument(
        "--seed", type=natural_int, default=0, help="the sampling seed with --local"
    )
    parser.add_argument(
        "--concurrency", type=positive_int, default=8, metavar="N", help="requests at once"
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=8, metavar="N", help="with --local"
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=600.0,
        metavar="SECONDS",
        help="total time of one attempt: connecting, waiting and reading the whole reply"
        " (default 600)",
    )
    parser.add_argument(
        "--max-reply-bytes",
        type=positive_int,
        default=MAX_REPLY_BYTES,
        metavar="N",
        help=f"a larger reply fails its request, without retries (default {MAX_REPLY_BYTES})",
    )
    parser.add_argument(
        "--retries",
        type=natural_int,
        default=5,
        metavar="N",
        help="retries of connection errors, timeouts, 429 and 5xx (with backoff)",
    )
    parser.add_argument("--limit", type=natural_int, metavar="N", help="only the first N instances")
    add_load_option(parser)


def _eval(args: argparse.Namespace) -> int:
    with ExitStack() as stack:
        try:
            model = model_name(args)
            instances = read_tasks_and_instances(args)
            selected = {instance.id for instance in instances}
            stack.enter_context(exclusive(args.out))
            request = request_record(args)
            done = prepare_run(args.out, model, request, selected, args.retry_errors)
            todo = [instance for instance in instances if instance.id not in done]
            answer = _backend(args, todo)
            writer = stack.enter_context(RunWriter(args.out))
        except (ArgcError, ValueError, OSError) as error:
            return input_error("eval", args.out, error)
        return _run_eval(args, model, request, instances, todo, answer, writer)


def _run_eval(
    args: argparse.Namespace,
    model: str,
    request: dict[str, Any],
    instances: list[Instance],
    todo: list[Instance],
    answer: Answer,
    writer: RunWriter,
) -> int:
    """Answer `todo`, appending a record for each; returns the exit code."""
    with _interrupts() as stop:
        progress = tqdm(total=len(todo), desc=f"eval {model}", disable=not todo)
        errors = 0

        scoring = ScoringBuffer()

        def record(instance: Instance, completion: Completion) -> None:
            def write(result: Score) -> None:
                nonlocal errors
                errors += completion.error is not None
                writer.write(run_record(instance, model, completion, request, result))
                progress.update()
                progress.set_postfix(errors=errors, refresh=False)

            scoring.add(instance, completion.response, write)

        try:
            with scoring:
                answer(todo, record, stop)
        except KeyboardInterrupt:
            stop.set()
        progress.close()
    if stop.is_set():
        print(
            f"argc eval: interrupted; {progress.n} of {len(todo)} answers written to {args.out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    _summary(args.out, {instance.id for instance in instances})
    if errors:
        print(f"argc eval: {errors} requests failed; rerun with --retry-errors", file=sys.stderr)
        return EXIT_FAILURES
    return EXIT_OK


Answer = Callable[[list[Instance], Callable[[Instance, Completion], None], threading.Event], None]


def read_tasks_and_instances(args: argparse.Namespace) -> list[Instance]:
    """Check what a run needs before anything is sent: the run file is a regular file (or
    new), the task files of --load load, and the first --limit instances all have known
    tasks; also make the sampling defaults explicit (they are recorded). Returns the
    instances."""
    regular_output(args.out)
    load_task_files(args.load)
    explicit_defaults(args)
    instances = load_instances(args.instances)[: args.limit]
    require_known_tasks(instances, args.instances)
    return instances


def explicit_defaults(args: argparse.Namespace) -> None:
    """Set --max-tokens and --temperature when not given: ArgGYM's settings with an endpoint,
    greedy decoding and a short budget with --local."""
    local = args.local is not None
    if args.max_tokens is None:
        args.max_tokens = LOCAL_MAX_TOKENS if local else DEFAULT_MAX_TOKENS
    if args.temperature is None:
        args.temperature = LOCAL_TEMPERATURE if local else DEFAULT_TEMPERATURE


def model_name(args: argparse.Namespace) -> str:
    """The model named in the records: --model, else the local model's folder name."""
    if args.model is not None:
        return args.model
    if args.local is None:
        raise ArgcError("--model is required with --base-url")
    return args.local.resolve().name


def input_error(command: str, out: Path, error: Exception) -> int:
    """Report an error found before any request (an OSError: `out` cannot be written);
    returns EXIT_INPUT_ERROR."""
    if isinstance(error, (ArgcError, ValueError)):
        print(f"argc {command}: {error}", file=sys.stderr)
    else:
        print(f"argc {command}: cannot write {out}: {error}", file=sys.stderr)
    return EXIT_INPUT_ERROR


def _backend(args: argparse.Namespace, todo: list[Instance]) -> Answer:
    """A function answering instances with the chosen backend."""
    if args.local is None:
        client = endpoint_client(args, ChatClient)
        return lambda todo, record, stop: answer_concurrently(
            todo, client.complete, record, stop, args.concurrency
        )
    model = load_local(args, bool(todo))
    if model is None:
        return lambda todo, record, stop: None
    prompt = operator.attrgetter("prompt")
    return lambda todo, record, stop: model.complete_in_batches(
        todo, prompt, record, stop, args.batch_size
    )


def endpoint_client(args: argparse.Namespace, client_class: type[Client]) -> Client:
    """A client of --base-url with the key and the request options of `args`."""
    if not args.base_url.startswith(("http://", "https://")):
        raise ArgcError(f"--base-url must be an http(s) URL, not {args.base_url!r}")
    return client_class(
        args.base_url,
        args.model,
        api_key=api_key(args.api_key_env),
        system=args.system,
        params=request_params(args),
        timeout=args.timeout,
        retries=args.retries,
        max_reply_bytes=args.max_reply_bytes,
    )


def api_key(variable: str | None) -> str | None:
    """The key in environment variable `variable` (which must be set), else in
    OPENAI_API_KEY when that is set, else None."""
    if variable is None:
        return os.environ.get(DEFAULT_KEY_ENV) or None
    key = os.environ.get(variable)
    if not key:
        raise ArgcError(f"environment variable {variable} is not set")
    return key


def request_params(args: argparse.Namespace) -> dict[str, Any]:
    """The request fields of the sampling options (--max-tokens, --temperature, --top-p when
    given, --reasoning-effort where the command has it), then those of --extra-body."""
    params = {
        key: value
        for key, value in (
            ("max_tokens", args.max_tokens),
            ("temperature", args.temperature),
            ("top_p", args.top_p),
            ("reasoning_effort", getattr(args, "reasoning_effort", None)),
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


def request_record(args: argparse.Namespace) -> dict[str, Any]:
    """Every setting that shapes the answers, recorded with each record: the backend and system
    prompt, then the request fields (with --local: the generation settings and seed)."""
    if args.local is None:
        return {"backend": "endpoint", "system": args.system, **request_params(args)}
    return {
        "backend": "local",
        "system": args.system,
        "max_tokens": args.max_tokens,
        "temperature": args.temperature,
        "top_p": args.top_p,
        "seed": args.seed,
        **({"prompt_format": args.prompt_format} if getattr(args, "prompt_format", None) else {}),
    }


def answer_concurrently(
    todo: list[Instance],
    complete: Callable[[str], Completion],
    record: Callable[[Instance, Completion], None],
    stop: threading.Event,
    concurrency: int,
) -> None:
    """Answer instances on `concurrency` threads, recording each answer on this thread. When
    `stop` is set nothing more is sent and the requests in flight are awaited; a
    KeyboardInterrupt (a second Ctrl-C) abandons them."""

    def work(instance: Instance) -> list[tuple[Instance, Completion]]:
        try:
            completion = complete(instance.prompt)
        except Exception as error:  # noqa: BLE001 - recorded; the run goes on
            completion = failure(error)
        return [(instance, completion)]

    work_concurrently(todo, work, record, stop, concurrency)


def work_concurrently(
    jobs: list[Job],
    work: Callable[[Job], Iterable[tuple[Any, ...]]],
    record: Callable[..., None],
    stop: threading.Event,
    concurrency: int,
    *,
    size: Callable[[Job], int] = lambda job: 1,
    await_in_flight: bool = True,
) -> None:
    """Run `work` on the jobs on `concurrency` threads, calling `record(*result)` on this thread
    for each of the `size(job)` results a job yields. Once `stop` is set no job is started and
    the jobs in flight are awaited (with `await_in_flight`, else left)."""
    waiting: queue.SimpleQueue[Job] = queue.SimpleQueue()
    results: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
    for job in jobs:
        waiting.put(job)

    def worker() -> None:
        while not stop.is_set():
            try:
                job = waiting.get_nowait()
            except queue.Empty:
                return
            for result in work(job):
                results.put(result)

    for _ in range(min(concurrency, len(jobs))):
        threading.Thread(target=worker, daemon=True).start()
    pending = sum(size(job) for job in jobs)
    while pending:
        if stop.is_set():
            if not await_in_flight:
                return
            pending -= sum(size(job) for job in _drain(waiting))
            if not pending:
                return
        try:
            result = results.get(timeout=0.2)
        except queue.Empty:
            continue
        record(*result)
        pending -= 1


def _drain(jobs: queue.SimpleQueue[Job]) -> list[Job]:
    """Empty the queue of unsent jobs; returns them."""
    drained = []
    try:
        while True:
            drained.append(jobs.get_nowait())
    except queue.Empty:
        return drained


@contextmanager
def _interrupts() -> Iterator[threading.Event]:
    """An event set by the first Ctrl-C (stop sending, keep what is in flight); a second one
    raises KeyboardInterrupt as usual."""
    stop = threading.Event()

    def handle(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print(
            "\nargc eval: stopping; waiting for the answers in flight (Ctrl-C again to leave them)",
            file=sys.stderr,
        )

    try:
        previous = signal.signal(signal.SIGINT, handle)
    except ValueError:  # not the main thread: Ctrl-C keeps its usual meaning
        yield stop
        return
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def run_record(
    instance: Instance,
    model: str,
    completion: Completion,
    request: dict[str, Any],
    result: Score,
) -> dict[str, Any]:
    """The run file's record of one answered instance, with its score."""
    return {
        **instance_fields(instance),
        "model": model,
        "request": request,
        "response": completion.response,
        "finish_reason": completion.finish_reason,
        "usage": completion.usage,
        "latency_s": round(completion.latency_s, 3),
        "attempts": completion.attempts,
        "error": completion.error,
        "native": round(result.native, 6),
        "success": result.success,
        "reason": result.reason,
        "has_answer": answer_region(completion.response) is not None,
        "details": result.details(),
    }


#: The cell of a KG instance (its meta), repeated by records beside the ArgGYM cell fields.
KG_CELL = ("depth", "complexity")


def instance_fields(instance: Instance) -> dict[str, Any]:
    """The fields of an instance that records repeat: id, task, level, ordering and set, and
    a KG instance's depth and complexity."""
    return {
        "id": instance.id,
        "task": instance.task,
        "level": instance.level,
        "ordering": instance.ordering,
        "set": instance.set,
        **{name: instance.meta[name] for name in KG_CELL if name in instance.meta},
    }


def load_instances(path: Path) -> list[Instance]:
    """The instances of a JSONL file, or of DIR/rows.jsonl for a benchmark folder."""
    return read_instances(path / "rows.jsonl" if path.is_dir() else path)


def read_run(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """The records of a run file and whether its last line was torn (an interrupted write:
    not a complete JSON line); any other bad line is an InputError."""
    if not path.exists():
        return [], False
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read run file: {error}", filename=str(path)) from None
    lines = text.split("\n")
    torn = lines.pop() != ""  # a complete file ends with a newline
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                raise ValueError
        except ValueError:
            if number == len(lines) and not torn:
                torn = True  # a torn last line, then a newline: dropped all the same
                break
            raise InputError(
                "not a run record", filename=str(path), line=number, column=1
            ) from None
        records.append(record)
    return records, torn


def prepare_run(
    path: Path, model: str, request: dict[str, Any], selected: set[str], retry_errors: bool
) -> set[str]:
    """Ids already answered in the run file, which must be the same model's with the same
    request settings. A torn last line is dropped, and with `retry_errors` the failed records
    of selected instances too (the file is rewritten atomically)."""
    records, torn = read_run(path)
    check_owner(path, records, "model", model, what="answers", advice="write to another run file")
    check_requests(path, records, request, advice="write to another run file")
    kept = [
        record
        for record in records
        if not (retry_errors and record.get("error") is not None and record["id"] in selected)
    ]
    if torn or len(kept) < len(records):
        rewrite_run(path, kept)
    return {record["id"] for record in kept}


def check_owner(
    path: Path, records: list[dict[str, Any]], field: str, owner: str, *, what: str, advice: str
) -> None:
    """InputError when a record's `field` is not `owner`: the file holds another's `what`."""
    others = sorted({str(record.get(field)) for record in records} - {owner})
    if others:
        raise InputError(
            f"holds {what} of another {field} ({', '.join(others)}), not {owner}; {advice}",
            filename=str(path),
        )


def check_requests(
    path: Path, records: list[dict[str, Any]], request: dict[str, Any], advice: str
) -> None:
    """ResumeMismatch when a record was produced with other request settings than `request`."""
    started = {json.dumps(record.get("request"), sort_keys=True) for record in records}
    for text in sorted(started):
        found = json.loads(text)
        if not isinstance(found, dict):
            raise ResumeMismatch(f"{path} holds records without their request settings; {advice}")
        check_resume(path, found, request, advice)


def rewrite_run(path: Path, records: list[dict[str, Any]]) -> None:
    """Replace the file's lines with these records, atomically."""
    write_output(path, "".join(_line(record) for record in records))


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"


class RunWriter:
    """Appends records to the run file (opened at once, with its folders; closed on leaving a
    `with`), one line each, flushed and synced before returning; safe to call from several
    threads."""

    def __init__(self, path: Path):
        self.sink: BinaryIO = open_append(path)
        self.lock = threading.Lock()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sink.close()

    def write(self, record: dict[str, Any]) -> None:
        with self.lock:
            self.sink.write(_line(record).encode("utf-8"))
            self.sink.flush()
            os.fsync(self.sink.fileno())


def _summary(path: Path, selected: set[str]) -> None:
    """Per-task success, native score and errors over the run's records of these instances."""
    table: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in read_run(path)[0]:
        if record["id"] in selected:
            table[str(record.get("task"))].append(record)
    print(f"{'task':<22} {'n':>5} {'success':>8} {'native':>8} {'errors':>7}")
    for task, records in sorted(table.items()):
        n = len(records)
        success = sum(bool(record.get("success")) for record in records) / n
        native = sum(float(record.get("native") or 0.0) for record in records) / n
        errors = sum(record.get("error") is not None for record in records)
        print(f"{task:<22} {n:>5} {success:>8.3f} {native:>8.3f} {errors:>7}")
