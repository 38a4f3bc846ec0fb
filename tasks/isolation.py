"""Scoring untrusted answers in worker processes, so that no answer can stall or exhaust the
caller: each worker caps its own memory, and the caller kills a worker whose answer runs past a
wall-clock deadline (scoring it 0 with the reason) and starts a fresh one when next needed.

The engine's limits (tasks' SCORING_LIMITS) stop almost every hostile answer inside the worker
within its time limit; the deadline and the memory cap hold whatever gets past them. Workers
speak JSON lines over pipes: `{"groups": [{"instance": record, "responses": [text, ...]}, ...]}`
in, the scores of each group out. The responses to one instance (a GRPO group) go to a worker
together, and `score_many` sends several groups (the prompts of a GRPO batch) per request, whose
theories the worker solves in batches; a request that breaks its worker is scored again group
by group, and a group one answer at a time, so that only the answer at fault scores 0. The
answers of tasks that only read them and compare them with the target (`Scorer.reads_only`:
a linear-time parse of a bounded text) are scored in the caller's process, with no worker.

    scorer = IsolatedScorer(workers=2)
    scorer.score(instance, response)           # Score(native, success, reason)
    scorer.score_many([(instance, response), ...])
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from argc.tasks.framework import (
    REGISTRY,
    SCORING_LIMITS,
    Instance,
    Score,
    loaded_task_files,
    score_groups,
)

#: Time for a worker to start (import the engine and the tasks) before it counts as broken.
START_SECONDS = 120.0
#: Bytes of a worker's reply at most (a score is a few hundred bytes; a request has a few
#: dozen responses).
MAX_REPLY_BYTES = 1 << 24
#: Responses per request to a worker in `score_many`: enough groups for the theories of
#: their answers to be solved in full batches, few enough that a request that breaks its
#: worker costs little to score again group by group.
POOLED_RESPONSES = 64
#: Per-answer deadlines a request of several answers gets before its worker is killed and the
#: request scored again in parts (groups, then answers, each with its own deadline). Answers
#: take milliseconds, so a request reaches it only through an answer that hangs (then found
#: within a few deadlines, however many answers share its request) or through several answers
#: near the engine's time limit (then scored in parts, each part within its own deadline:
#: correct scores, later).
REQUEST_DEADLINES = 2


@dataclass(frozen=True)
class Isolation:
    """How scoring workers are bounded."""

    #: Wall-clock deadline per answer: the engine's scoring time limit plus a second.
    seconds: float = SCORING_LIMITS.seconds + 1.0
    #: Address-space cap of each worker, in MiB.
    memory_mb: int = 2048
    #: A worker whose address space has passed this share of the cap after a request is
    #: replaced before the next: clingo keeps every symbol it has seen (on the scoring
    #: benchmark's wrong answers a worker held 98 MiB after 512 answers, 194 MiB after
    #: 3,072), and half the cap left free means that memory held for earlier answers cannot
    #: make a later one fail.
    recycle_share: float = 0.5
    #: Answers a worker scores before it is replaced, whatever its memory.
    recycle_after: int = 20_000


class _Broken(Exception):
    """The worker did not answer: it died, overran the deadline or replied nonsense."""


class ScoringWorker:
    """One worker process, used by one thread at a time."""

    def __init__(self, isolation: Isolation, load: Sequence[str]) -> None:
        self.isolation = isolation
        self.load = tuple(load)
        self.process: subprocess.Popen | None = None
        self.scored = 0
        self.address_mb = 0.0  # the worker's address space after its last reply
        self.ready = False  # whether the started process has said it is ready
        self.broke = False  # whether the last request broke the worker (not its start)
        self._buffer = b""

    def score(self, instance: Instance, response: str) -> Score:
        """The worker's score, or 0 with the reason when it does not answer in time."""
        return self.score_groups([(instance, [response])])[0][0]

    def score_groups(self, groups: Sequence[tuple[Instance, Sequence[str]]]) -> list[list[Score]]:
        """The worker's scores of groups of responses (each to one instance), or 0 for each
        with the reason when it does not answer in time (one deadline for a single response,
        REQUEST_DEADLINES for several)."""
        count = sum(len(responses) for _, responses in groups)

        def failed(failure: Score) -> list[list[Score]]:
            return [[failure] * len(responses) for _, responses in groups]

        self.broke = False
        if self.process is not None and self._spent():
            self.close()  # not ready any more: replaced below
        if not self.ready:
            try:
                self._start()
            except _Broken as error:
                self.close()
                return failed(
                    Score(0.0, False, f"scorer error: cannot start a scoring worker: {error}")
                )
        request = {
            "groups": [
                {"instance": instance.record(), "responses": list(responses)}
                for instance, responses in groups
            ]
        }
        seconds = self.isolation.seconds * (1 if count == 1 else REQUEST_DEADLINES)
        try:
            self._send(request)
            reply = self._receive(seconds)
            if "error" in reply:  # the request was refused, the worker is fine
                return failed(_from_reply(reply["error"]))
            scores = [[_from_reply(item) for item in group] for group in reply["groups"]]
            if [len(group) for group in scores] != [len(responses) for _, responses in groups]:
                raise _Broken("scorer error: the worker's reply has the wrong number of scores")
        except (_Broken, KeyError, TypeError) as error:
            self.close()
            self.broke = True
            reason = str(error) if isinstance(error, _Broken) else "scorer error: bad reply"
            return failed(Score(0.0, False, reason))
        self.scored += count
        address = reply.get("address_mb")
        self.address_mb = float(address) if isinstance(address, int | float) else 0.0
        return scores

    def _spent(self) -> bool:
        """Whether the worker has scored or grown enough to be replaced."""
        return (
            self.scored >= self.isolation.recycle_after
            or self.address_mb >= self.isolation.recycle_share * self.isolation.memory_mb
        )

    def close(self) -> None:
        """Stop the worker (killed: it holds nothing worth saving)."""
        process, self.process, self._buffer, self.ready = self.process, None, b"", False
        if process is not None:
            process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                stream.close()

    def _start(self) -> None:
        """Launch the process unless it is launched, and wait until it is ready."""
        self.launch()
        ready = self._receive(START_SECONDS, starting=True)
        if ready.get("ready") is not True:
            raise _Broken(ready.get("error", "the worker did not start"))
        self.ready = True

    def launch(self) -> None:
        """Start the process without waiting for it, so that its start-up runs beside the
        caller's own work (a replaced worker is launched at its next request)."""
        if self.process is not None:
            return
        command = [sys.executable, "-m", "argc.tasks.isolation"]
        command += ["--memory-mb", str(self.isolation.memory_mb)]
        for path in self.load:
            command += ["--load", path]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.scored, self.address_mb, self.ready = 0, 0.0, False

    def _send(self, request: dict) -> None:
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _Broken(self._death()) from None

    def _receive(self, seconds: float, starting: bool = False) -> dict:
        deadline = time.monotonic() + seconds
        stream = self.process.stdout
        with selectors.DefaultSelector() as selector:
            selector.register(stream, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    what = "starting the scorer" if starting else "scoring"
                    raise _Broken(f"scorer error: {what} stopped after more than {seconds:g} s")
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    raise _Broken(self._death())
                self._buffer += chunk
                if len(self._buffer) > MAX_REPLY_BYTES:
                    raise _Broken("scorer error: the worker's reply is too long")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            raise _Broken("scorer error: the worker's reply is not JSON") from None

    def _death(self) -> str:
        code = self.process.wait()
        cause = f"signal {-code}" if code < 0 else f"exit code {code}"
        return f"scorer error: the scoring worker died ({cause})"


def _score_kinds(kind: type[Score] = Score) -> dict[str, type[Score]]:
    """Score and its subclasses (a task's score may carry more, e.g. formalization's S)."""
    kinds = {kind.__name__: kind}
    for subclass in kind.__subclasses__():
        kinds.update(_score_kinds(subclass))
    return kinds


def _to_reply(result: Score) -> dict:
    return {"kind": type(result).__name__, **vars(result)}


def _from_reply(reply: dict) -> Score:
    """The score a worker sent, of the same class; a reply that is not one fails closed."""
    fields = dict(reply)
    kind = _score_kinds().get(fields.pop("kind", None))
    try:
        return kind(**fields)
    except TypeError:
        return Score(0.0, False, "scorer error: the worker's reply is not a score")


def reads_only(instance: Instance) -> bool:
    """Whether an instance's answers are scored in the caller's process: its task only reads
    an answer and compares it with the target (`Scorer.reads_only`)."""
    task = REGISTRY.get(instance.task)
    return task is not None and task.reads_only


def group_indices(pairs: Sequence[tuple[Instance, str]]) -> dict[str, list[int]]:
    """The positions of the responses to each instance (a GRPO group; copies of an instance
    under other ids join it), by `Instance.group_key`, in order of first appearance."""
    groups: dict[str, list[int]] = {}
    for index, (instance, _) in enumerate(pairs):
        groups.setdefault(instance.group_key, []).append(index)
    return groups


class IsolatedScorer:
    """A pool of scoring workers; safe to share between threads."""

    def __init__(
        self, workers: int = 1, isolation: Isolation | None = None, load: Sequence[str] = ()
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.isolation = isolation or Isolation()
        self.load = tuple(load)
        self.owner = os.getpid()
        self._idle: queue.SimpleQueue[ScoringWorker] = queue.SimpleQueue()
        self._all = [ScoringWorker(self.isolation, self.load) for _ in range(workers)]
        for worker in self._all:
            self._idle.put(worker)

    def start(self) -> None:
        """Launch every worker now, without waiting (they start beside the caller's work)."""
        for worker in self._all:
            worker.launch()

    def score(self, instance: Instance, response: str) -> Score:
        return self.score_group(instance, [response])[0]

    def score_group(self, instance: Instance, responses: Sequence[str]) -> list[Score]:
        """Scores of responses to one instance, solved together by one worker; when the
        group breaks its worker (past the deadline, out of memory), each response is scored
        again alone."""
        return self.score_groups([(instance, responses)])[0]

    def score_groups(self, groups: Sequence[tuple[Instance, Sequence[str]]]) -> list[list[Score]]:
        """Scores of several groups, solved together by one worker; when they break the
        worker (past the deadline, out of memory), each group is scored again on its own,
        and a group of one instance answer by answer, so that only the answer at fault
        scores 0. Groups of tasks that only read their answers are scored in this process."""
        local = [k for k, (instance, _) in enumerate(groups) if reads_only(instance)]
        if local:
            found = dict(zip(local, score_groups([groups[k] for k in local]), strict=True))
            rest = [k for k in range(len(groups)) if k not in found]
            if rest:
                found.update(zip(rest, self.score_groups([groups[k] for k in rest]), strict=True))
            return [found[k] for k in range(len(groups))]
        worker = self._idle.get()
        try:
            scores = worker.score_groups(groups)
            broke = worker.broke
        finally:
            self._idle.put(worker)
        if not broke:
            return scores
        if len(groups) > 1:
            return [self.score_group(instance, responses) for instance, responses in groups]
        instance, responses = groups[0]
        if len(responses) > 1:
            return [[self.score(instance, response) for response in responses]]
        return scores

    def score_many(self, pairs: Sequence[tuple[Instance, str]]) -> list[Score]:
        """Scores in the order of `pairs`: the responses to one instance form a group, and
        the groups are shared out among the workers in requests of about
        `POOLED_RESPONSES` responses, each solved together by one worker (the largest
        groups first, each to the request with the fewest responses so far). The groups of
        tasks that only read their answers form one request, scored in this process."""
        groups = list(group_indices(pairs).values())
        local = [indices for indices in groups if reads_only(pairs[indices[0]][0])]
        isolated = [indices for indices in groups if not reads_only(pairs[indices[0]][0])]
        count = sum(map(len, isolated))
        requests: list[list[list[int]]] = [
            [] for _ in range(max(self.workers, -(-count // POOLED_RESPONSES)))
        ]
        sizes = [0] * len(requests)
        for indices in sorted(isolated, key=len, reverse=True):
            smallest = sizes.index(min(sizes))
            requests[smallest].append(indices)
            sizes[smallest] += len(indices)
        requests = [request for request in requests if request] + ([local] if local else [])

        def scored(request: list[list[int]]) -> list[list[Score]]:
            return self.score_groups(
                [(pairs[indices[0]][0], [pairs[i][1] for i in indices]) for indices in request]
            )

        if self.workers == 1 or len(requests) < 2:
            found = [scored(request) for request in requests]
        else:
            with ThreadPoolExecutor(self.workers) as pool:
                found = list(pool.map(scored, requests))
        scores: list[Score | None] = [None] * len(pairs)
        for request, results in zip(requests, found, strict=True):
            for indices, group in zip(request, results, strict=True):
                for index, result in zip(indices, group, strict=True):
                    scores[index] = result
        return scores  # type: ignore[return-value]

    def close(self) -> None:
        for worker in self._all:
            worker.close()

    def __enter__(self) -> IsolatedScorer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


_default: IsolatedScorer | None = None
_default_lock = threading.Lock()
_default_settings: dict = {"workers": 1, "isolation": None}


def configure(
    workers: int = 1,
    isolation: Isolation | None = None,
    *,
    ray_address: bool | str | None = None,
    actors: int = 1,
) -> None:
    """Set up the process's shared scorer: `workers` processes bounded by `isolation`.

    With `ray_address` (True: `ray.init()`, the cluster RAY_ADDRESS names or a local instance;
    a string: the cluster at that address; the `ray` extra) the shared scorer is instead a pool
    of `actors` named Ray actors each holding `workers` such processes
    (`argc.cluster.RayScorer`): every process of the cluster configured alike shares them."""
    global _default
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if actors < 1:
        raise ValueError(f"actors must be at least 1, not {actors}")
    if ray_address is not None and ray_address is not False:
        from argc.cluster import ray_module

        ray_module()  # Ray must be installed: say so now, not at the first reward
    with _default_lock:
        _default_settings.update(
            workers=workers, isolation=isolation, ray_address=ray_address, actors=actors
        )
        if _default is not None:
            _default.close()
            _default = None


def default_scorer() -> IsolatedScorer:
    """The process's shared scorer (one worker unless `configure`d; a `argc.cluster.RayScorer`,
    of the same interface, when configured with a Ray address), restarted when more task files
    are loaded so that its workers know every registered task."""
    global _default
    with _default_lock:
        load = loaded_task_files()
        if _default is not None and _default.owner != os.getpid():
            _default = None  # inherited by a forked process: its workers are the parent's
        if _default is None or _default.load != load:
            if _default is not None:
                _default.close()
            settings = dict(_default_settings)
            ray_address, actors = settings.pop("ray_address", None), settings.pop("actors", 1)
            if ray_address is None or ray_address is False:
                _default = IsolatedScorer(load=load, **settings)
            else:
                from argc.cluster import RayScorer

                _default = RayScorer(ray_address, actors, load=load, **settings)
        return _default


#: The most scoring workers a command starts by default (`scoring_workers`).
MAX_SCORING_WORKERS = 8


def scoring_workers() -> int:
    """The default number of scoring workers of a command that scores many answers: one a
    core, at most MAX_SCORING_WORKERS."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(MAX_SCORING_WORKERS, cores or 1))


#: Answers `score_pairs` hands the shared scorer at a time (its progress bar's step).
SCORING_CHUNK = 512


def score_pairs(
    pairs: Sequence[tuple[Instance, str]],
    desc: str | None = "scoring",
    chunk: int = SCORING_CHUNK,
) -> list[Score]:
    """The shared scorer's scores of (instance, response) pairs, in their order: the answers
    to one instance (under any id) taken together, `chunk` answers at a time through
    `score_many` (groups pooled, each theory solved once), with a progress bar counting
    answers chunk by chunk when there are several chunks (none without `desc`). What every
    command that scores many answers uses."""
    order = sorted(range(len(pairs)), key=lambda index: pairs[index][0].group_key)
    parts = [order[start : start + chunk] for start in range(0, len(order), chunk)]
    scores: list[Score | None] = [None] * len(pairs)
    scorer = default_scorer()
    progress = None
    if desc is not None and len(parts) > 1:
        from tqdm import tqdm

        progress = tqdm(total=len(pairs), desc=desc, unit="answer")
    try:
        for part in parts:
            found = scorer.score_many([pairs[i] for i in part])
            for index, result in zip(part, found, strict=True):
                scores[index] = result
            if progress is not None:
                progress.update(len(part))
    finally:
        if progress is not None:
            progress.close()
    return scores  # type: ignore[return-value]


class ScoringBuffer:
    """Answers scored as they arrive, in batches: `add(instance, response, done)` keeps an
    answer; once `size` answers wait, or `seconds` have passed since the first of them came,
    they are scored together (`score_pairs`, the shared scorer) and each `done(score)` is
    called in arrival order. `flush()` scores what waits; leaving a `with` block flushes.
    For one thread (the command's own: `argc eval` and `argc sample` record there). The
    scores do not depend on the batches; the clock only decides when a batch is scored."""

    def __init__(self, size: int = SCORING_CHUNK, seconds: float = 2.0) -> None:
        self.size, self.seconds = size, seconds
        self._waiting: list[tuple[Instance, str, Callable[[Score], None]]] = []
        self._since = 0.0

    def add(self, instance: Instance, response: str, done: Callable[[Score], None]) -> None:
        if not self._waiting:
            self._since = time.monotonic()
        self._waiting.append((instance, response, done))
        if len(self._waiting) >= self.size or time.monotonic() - self._since >= self.seconds:
            self.flush()

    def flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        if waiting:
            pairs = [(instance, response) for instance, response, _ in waiting]
            found = score_pairs(pairs, desc=None)
            for (_, _, done), result in zip(waiting, found, strict=True):
                done(result)

    def __enter__(self) -> ScoringBuffer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.flush()


@atexit.register
def _close_default() -> None:
    if _default is not None and _default.owner == os.getpid():
        _default.close()


# The worker ----------------------------------------------------------------------------------


def _serve(arguments: Sequence[str]) -> int:
    """The worker's loop: cap memory, load task files, then answer one score per line."""
    import argparse

    from argc.compiler.guard import address_space_mb, cap_memory
    from argc.compiler.solve import prepare_batches
    from argc.tasks import score_groups
    from argc.tasks.framework import load_tasks

    parser = argparse.ArgumentParser(prog="python -m argc.tasks.isolation")
    parser.add_argument("--memory-mb", type=int, default=Isolation.memory_mb)
    parser.add_argument("--load", action="append", default=[])
    options = parser.parse_args(arguments)
    # Ctrl-C is for the caller, which keeps or drops the answers in flight; the worker ends
    # when its input closes or the caller kills it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = sys.stdout
    try:
        cap_memory(options.memory_mb)
        for path in options.load:
            load_tasks(path)
        REGISTRY.load_all()  # the tasks' modules imported before the first request
        prepare_batches()
    except Exception as error:  # noqa: BLE001 - reported to the caller, which decides
        out.write(json.dumps({"ready": False, "error": f"{type(error).__name__}: {error}"}) + "\n")
        return 1
    out.write('{"ready": true}\n')
    out.flush()
    for line in sys.stdin:
        try:
            groups = [
                (
                    Instance.from_record(group["instance"]),
                    [str(response) for response in group["responses"]],
                )
                for group in json.loads(line)["groups"]
            ]
            results = score_groups(groups)
            reply = {
                "groups": [[_to_reply(result) for result in group] for group in results],
                "address_mb": round(address_space_mb(), 1),
            }
        except Exception as error:  # noqa: BLE001 - a malformed request scores 0
            result = Score(0.0, False, f"scorer error: {type(error).__name__}: {error}")
            reply = {"error": _to_reply(result)}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1:]))
