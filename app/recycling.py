"""Long jobs in worker processes that are replaced as they go.

clingo keeps every symbol it has seen for the life of a process, so a process that solves
many different theories grows without bound (about 0.3 MiB per generated instance). A job of
more than `per_process` items therefore runs in a `multiprocessing` pool whose workers are
replaced after `per_process` items each, which keeps memory flat however long the job; a short
job on one worker runs in the calling process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Items a worker process handles before it is replaced.
PER_PROCESS = 200


def recycled_map(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    workers: int = 1,
    chunk: int = 4,
    per_process: int = PER_PROCESS,
    initializer: Callable[..., Any] | None = None,
    initargs: tuple = (),
) -> Iterator[Result]:
    """`function(item)` for each item, in order, as each is ready. In the calling process
    when `workers` is 1 and there are at most `per_process` items; otherwise in `workers`
    spawned processes, each replaced after about `per_process` items, which run
    `initializer(*initargs)` first (to set up what the calling process has set up already).
    `function` must be importable by name (spawned workers import it); an exception it raises
    is raised here."""
    if workers < 1 or chunk < 1 or per_process < 1:
        raise ValueError("workers, chunk and per_process must be positive")
    if workers == 1 and len(items) <= per_process:
        yield from map(function, items)
        return
    processes = max(1, min(workers, -(-len(items) // chunk)))
    context = multiprocessing.get_context("spawn")
    with context.Pool(
        processes, initializer, initargs, maxtasksperchild=max(1, per_process // chunk)
    ) as pool:
        yield from pool.imap(function, items, chunksize=chunk)
