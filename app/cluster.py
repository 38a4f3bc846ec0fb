"""argc's work on a Ray cluster (the optional `ray` extra; Ray is imported only when asked for).

Two uses:

- `run_tasks` runs the work units of a local process pool — the benchmark's cells, its audit's
  rows, a dataset's shards — as Ray tasks and hands their results back to the caller as they
  finish; the caller writes them exactly as the local path does, so the output does not depend
  on where the units ran. `argc bench build|audit --ray [ADDRESS]` and `argc train --ray
  [ADDRESS]` (its dataset) use it.
- `RayScorer` is a pool of Ray actors that score untrusted answers with the interface of
  `argc.tasks.isolation.IsolatedScorer` (`start`, `score`, `score_many`, `close`, a context
  manager).
  Each actor holds an IsolatedScorer of its own, so every answer is still scored in a worker
  process with a memory cap, killed at the deadline, on whichever node the actor runs. The
  actors are named (`argc-scoring-0`, `argc-scoring-1`, ... in the namespace `argc`): every
  process of the cluster that asks for the pool by its name shares the same actors
  (`argc.tasks.isolation.configure(ray_address=...)` makes it the process's default scorer).

A Ray setting is True (`ray.init()`: the cluster that RAY_ADDRESS names, else a new local
instance) or an address (`auto`, `HOST:6379`, `ray://HOST:10001`). A process already connected
to Ray keeps its connection. Every node needs the same argc (and clingo) as the driver: the
benchmark's cell files carry the argc version, and a cell built by another version is refused.

`python -m argc.cluster start|stop` starts or stops a scoring pool that outlives the command
(detached actors), for training processes on any node to attach to by name.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import multiprocessing
import os
import socket
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from functools import cache
from typing import Any

from argc.dsl.errors import ArgcError
from argc.tasks.framework import Instance, Score
from argc.tasks.isolation import START_SECONDS, IsolatedScorer, Isolation, group_indices

#: True for `ray.init()`, or a cluster address.
RaySetting = bool | str
#: The scoring pool's actors are named POOL_NAME-0, POOL_NAME-1, ... in NAMESPACE.
POOL_NAME = "argc-scoring"
NAMESPACE = "argc"
#: Calls one scoring actor serves at once (its IsolatedScorer shares its workers among them).
CALLS_PER_ACTOR = 16
#: Seconds to wait for a TCP connection to a cluster's address before calling it unreachable.
CONNECT_SECONDS = 10.0
#: Seconds `RayScorer.close` waits for the names of the actors it ended to be released.
NAME_RELEASE_SECONDS = 10.0
#: Ray tasks in flight per CPU of the cluster: enough to keep every core busy while results
#: are written, few enough that a million-unit job neither floods the scheduler nor holds all
#: its results in the object store.
IN_FLIGHT_PER_CPU = 2
#: How often (in finished tasks) the number of CPUs of the cluster is read again.
RESIZE_EVERY = 256


class RayUnavailable(ArgcError):
    """Ray is not installed, or the cluster cannot be reached."""


def ray_module() -> Any:
    """The `ray` module; RayUnavailable (one line) when it is not installed."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'argc[ray]'") from None
    return ray


def connect(address: RaySetting = True) -> Any:
    """The `ray` module, connected: an existing connection is kept, else `ray.init()` (True) or
    `ray.init(address=address)`."""
    ray = ray_module()
    if not ray.is_initialized():
        if isinstance(address, str):
            _check_reachable(address)
        options = {} if address is True else {"address": address}
        try:
            ray.init(**options)
        except Exception as error:  # noqa: BLE001 - any failure to connect is one line
            where = "a local Ray instance" if address is True else f"Ray at {address}"
            raise RayUnavailable(f"cannot start or reach {where}: {_one_line(error)}") from None
    return ray


def _check_reachable(address: str) -> None:
    """Refuse at once a `HOST:PORT` or `ray://HOST:PORT` address where nothing listens (Ray
    itself retries such an address for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # `auto`, or a form Ray reads itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise RayUnavailable(
            f"cannot reach Ray at {address}: {error.strerror or type(error).__name__}"
        ) from None


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def add_ray_option(parser: argparse.ArgumentParser, what: str) -> None:
    """`--ray [ADDRESS]` on a command whose work units run as Ray tasks."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const=True,
        default=None,
        metavar="ADDRESS",
        help=f"run {what} as Ray tasks (the ray extra): without ADDRESS on the cluster that"
        " RAY_ADDRESS names or else a new local Ray instance, with ADDRESS on that cluster"
        " (auto, HOST:6379, ray://HOST:10001); --workers is then ignored. Without ADDRESS it"
        " must not be followed by a positional argument (or write --ray=ADDRESS)",
    )


# Work units as Ray tasks -------------------------------------------------------------------


@cache
def _remote(function: Callable[[Any], Any], max_calls: int) -> Any:
    return ray_module().remote(max_calls=max_calls)(function)


def run_tasks(
    function: Callable[[Any], Any],
    units: Iterable[Any],
    address: RaySetting = True,
    *,
    max_calls: int = 0,
) -> Iterator[tuple[int, Any]]:
    """`function(unit)` for every unit as a Ray task, yielding `(index of the unit, result)` as
    each finishes (in any order). Units are submitted in order, a few per CPU of the cluster at
    a time. A worker process is replaced after `max_calls` units (0: never), as a local pool's
    `maxtasksperchild`. An exception raised by `function` is raised again here as itself;
    closing the iterator (or an error) cancels the tasks not yet finished.

    `function` must be importable on every node (a module-level function of argc): Ray sends it
    by reference."""
    ray = connect(address)
    remote = _remote(function, max_calls)
    queued = enumerate(units)
    pending: dict[Any, int] = {}
    finished = resize_at = 0
    try:
        while True:
            if finished >= resize_at:
                limit = max(2, IN_FLIGHT_PER_CPU * int(ray.cluster_resources().get("CPU", 1)))
                resize_at = finished + RESIZE_EVERY
            for index, unit in itertools.islice(queued, max(0, limit - len(pending))):
                pending[remote.remote(unit)] = index
            if not pending:
                return
            waiting = list(pending)
            first, _ = ray.wait(waiting, num_returns=1)
            # Everything finished by now, so that a wide cluster needs few waits.
            ready, _ = ray.wait(waiting, num_returns=len(waiting), timeout=0)
            for reference in ready or first:
                index = pending.pop(reference)
                result = _result(ray, reference)
                finished += 1
                yield index, result
    finally:
        for reference in pending:
            ray.cancel(reference)


def _result(ray: Any, reference: Any) -> Any:
    """A task's result; its own exception when it raised one, else a one-line ArgcError."""
    try:
        return ray.get(reference)
    except ray.exceptions.RayTaskError as error:
        cause = getattr(error, "cause", None)
        if isinstance(cause, Exception) and not isinstance(cause, ray.exceptions.RayError):
            raise cause from None
        raise ArgcError(f"a Ray task failed: {_one_line(cause or error)}") from None
    except ray.exceptions.RayError as error:
        raise ArgcError(f"a Ray task failed: {_one_line(error)}") from None


# The scoring pool ----------------------------------------------------------------------------


class ScoringActor:
    """The body of one scoring actor: an IsolatedScorer of its own (worker processes on the
    actor's node, each with its memory cap and deadline)."""

    def __init__(self, token: str, workers: int, isolation: Isolation, load: Sequence[str]) -> None:
        self.token = token
        self.scorer = IsolatedScorer(workers, isolation, load)

    def settings(self) -> tuple[str, tuple[str, ...]]:
        """The token of the process that created the actor, and the task files it loads."""
        return self.token, self.scorer.load

    def score_many(self, pairs: Sequence[tuple[Instance, str]]) -> list[Score]:
        return self.scorer.score_many(pairs)

    def close(self) -> None:
        self.scorer.close()


class RayScorer:
    """A pool of `actors` named Ray actors, each scoring with `workers` processes: the interface
    of IsolatedScorer. Actors of the pool that already exist (same `name` and `namespace`) are
    used as they are; the others are created, and `close` ends only those. `detached` actors
    outlive the process that created them (end them with `stop_pool`)."""

    def __init__(
        self,
        address: RaySetting = True,
        actors: int = 1,
        workers: int = 1,
        isolation: Isolation | None = None,
        load: Sequence[str] = (),
        *,
        name: str = POOL_NAME,
        namespace: str = NAMESPACE,
        detached: bool = False,
    ) -> None:
        if actors < 1 or workers < 1:
            raise ValueError(f"actors and workers must be at least 1, not {actors}, {workers}")
        ray = connect(address)
        self.workers = workers
        self.isolation = isolation or Isolation()
        self.load = tuple(load)
        self.owner = os.getpid()
        self.names = [f"{name}-{index}" for index in range(actors)]
        self.namespace = namespace
        token = uuid.uuid4().hex
        actor = ray.remote(ScoringActor)
        self._actors = [
            actor.options(
                name=actor_name,
                namespace=namespace,
                get_if_exists=True,
                lifetime="detached" if detached else None,
                num_cpus=workers,
                max_concurrency=CALLS_PER_ACTOR,
                max_restarts=-1,
            ).remote(token, workers, self.isolation, self.load)
            for actor_name in self.names
        ]
        calls = [handle.settings.remote() for handle in self._actors]
        _, waiting = ray.wait(calls, num_returns=len(calls), timeout=START_SECONDS)
        if waiting:
            for handle, call in zip(self._actors, calls, strict=True):
                if call in waiting:  # created here and never started
                    with contextlib.suppress(Exception):
                        ray.kill(handle)
            raise RayUnavailable(
                f"the scoring actors did not start within {START_SECONDS:g} s: the cluster needs"
                f" {workers} free CPU(s) for each of the {actors} actor(s)"
            )
        found = ray.get(calls)
        self._created = [
            (actor_name, handle)
            for actor_name, handle, (owner, _) in zip(self.names, self._actors, found, strict=True)
            if owner == token
        ]
        other = [n for n, (_, load) in zip(self.names, found, strict=True) if load != self.load]
        if other:
            self.close()
            raise ArgcError(
                f"the scoring actor(s) {', '.join(other)} load other task files than this"
                f" process ({', '.join(self.load) or 'none'})"
            )

    def start(self) -> None:
        """Nothing to do: the actors were started with the pool."""

    def score(self, instance: Instance, response: str) -> Score:
        return self.score_many([(instance, response)])[0]

    def score_group(self, instance: Instance, responses: Sequence[str]) -> list[Score]:
        """Scores of responses to one instance, scored together by one actor."""
        return self.score_many([(instance, response) for response in responses])

    def score_many(self, pairs: Sequence[tuple[Instance, str]]) -> list[Score]:
        """Scores in the order of `pairs`, spread over the actors: the responses to one
        instance (a GRPO group) go to one actor together, whose IsolatedScorer scores them as
        it would locally. Never raises: the answers of an actor that fails score 0 with the
        reason. Each answer is bounded by its actor's IsolatedScorer; an actor whose node is
        lost fails when Ray notices it."""
        ray = ray_module()
        pairs = list(pairs)
        groups = group_indices(pairs)
        # The largest groups first, each to the actor with the fewest answers so far.
        shares: list[list[int]] = [[] for _ in self._actors]
        for indices in sorted(groups.values(), key=len, reverse=True):
            min(shares, key=len).extend(indices)
        calls = [
            (handle.score_many.remote([pairs[i] for i in share]), share)
            for handle, share in zip(self._actors, shares, strict=True)
            if share
        ]
        found: list[Score | None] = [None] * len(pairs)
        for call, share in calls:
            try:
                scores = ray.get(call)
            except Exception as error:  # noqa: BLE001 - a reward must never stop training
                reason = f"scorer error: the scoring actor failed: {_one_line(error)}"
                scores = [Score(0.0, False, reason)] * len(share)
            for index, score in zip(share, scores, strict=True):
                found[index] = score
        return found  # type: ignore[return-value]

    def close(self) -> None:
        """End the actors this scorer created (the pool's other actors are left running), and
        wait until their names are free, so that a pool of the same name can start at once."""
        created, self._created = self._created, []
        if not created:
            return
        ray = ray_module()
        if not ray.is_initialized():
            return
        for _, handle in created:
            with contextlib.suppress(Exception):  # already gone
                ray.kill(handle)
        names = {actor_name for actor_name, _ in created}
        deadline = time.monotonic() + NAME_RELEASE_SECONDS
        while names and time.monotonic() < deadline:
            for name in list(names):
                try:
                    ray.get_actor(name, namespace=self.namespace)
                except ValueError:
                    names.discard(name)
            if names:
                time.sleep(0.05)

    def __enter__(self) -> RayScorer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def stop_pool(
    address: RaySetting = True, name: str = POOL_NAME, namespace: str = NAMESPACE
) -> list[str]:
    """End the actors of a scoring pool (detached or not); returns the names ended."""
    ray = connect(address)
    stopped = []
    for index in itertools.count():
        actor_name = f"{name}-{index}"
        try:
            handle = ray.get_actor(actor_name, namespace=namespace)
        except ValueError:
            break
        ray.kill(handle)
        stopped.append(actor_name)
    return stopped


# `python -m argc.cluster start|stop` ------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Start a detached scoring pool on a cluster, or stop one."""
    parser = argparse.ArgumentParser(
        prog="python -m argc.cluster",
        description="Start or stop a scoring pool (named Ray actors) that outlives the command;"
        " processes anywhere in the cluster use it with"
        " argc.tasks.isolation.configure(ray_address=..., actors=N).",
    )
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("--address", default="auto", help="the cluster (default: auto)")
    parser.add_argument("--actors", type=int, default=1, help="actors (default: 1)")
    parser.add_argument(
        "--workers", type=int, default=1, help="scoring processes per actor (default: 1)"
    )
    parser.add_argument("--name", default=POOL_NAME, help=f"default: {POOL_NAME}")
    parser.add_argument("--namespace", default=NAMESPACE, help=f"default: {NAMESPACE}")
    args = parser.parse_args(argv)
    try:
        if args.action == "stop":
            stopped = stop_pool(args.address, args.name, args.namespace)
            print(f"stopped {len(stopped)} actor(s): {', '.join(stopped) or 'none'}")
            return 0
        pool = RayScorer(
            args.address,
            args.actors,
            args.workers,
            name=args.name,
            namespace=args.namespace,
            detached=True,
        )
    except (ArgcError, ValueError) as error:
        print(f"python -m argc.cluster: {error}", file=sys.stderr)
        return 2
    print(f"scoring pool {', '.join(pool.names)} in namespace {pool.namespace}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def unordered_results(
    function: Callable[[Any], Any],
    items: Sequence[Any],
    workers: int,
    ray: RaySetting | None,
    per_worker: int,
) -> Iterator[Any]:
    """`function(item)` for every item, as each finishes: as Ray tasks when `ray` is set,
    else in `workers` spawned processes, each replaced after `per_worker` items."""
    if ray is not None:
        with closing(run_tasks(function, items, ray, max_calls=per_worker)) as results:
            for _, result in results:
                yield result
        return
    context = multiprocessing.get_context("spawn")
    processes = max(1, min(workers, len(items)))
    with context.Pool(processes, maxtasksperchild=per_worker) as pool:
        yield from pool.imap_unordered(function, items)
