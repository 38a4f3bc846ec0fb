"""Hard bounds for a whole process, behind the engine's own limits: a cap on the address space
(an allocation past it fails, which clingo reports as MemoryError) and a watchdog that ends the
process once a deadline has passed by a grace period, for work that checks no limit itself (a
user's query grounding, a blocked read). And the clock every time limit of the engine is
measured on (`now`), which tests can replace (`clock`) to run work as if time were up."""

from __future__ import annotations

import contextlib
import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: How long past its deadline the watchdog lets work run before it ends the process.
GRACE_SECONDS = 1.0
#: The exit code of a process the watchdog ends (an exceeded limit).
EXIT_LIMIT = 2
MIB = 1024 * 1024

#: The source of `now`: the monotonic clock, unless a `clock` block has replaced it.
_source: Callable[[], float] = time.monotonic


def now() -> float:
    """The time, in seconds, that every time limit of the engine is measured on (deadlines,
    `Limits.started`): `time.monotonic()`, or the source of the enclosing `clock` block."""
    return _source()


@contextmanager
def clock(source: Callable[[], float]) -> Iterator[None]:
    """Within the block, measure every time limit on `source` instead of the monotonic clock
    (for tests: a clock that says a deadline is spent shows what depends on time). The
    watchdog keeps real time: it only ends a process."""
    global _source
    previous, _source = _source, source
    try:
        yield
    finally:
        _source = previous


def cap_memory(megabytes: int) -> None:
    """Limit this process's address space to `megabytes` MiB (never above a cap already set).
    Allocations past it fail: clingo raises MemoryError, which the engine reports as an
    exceeded limit. For processes of one's own, such as scoring workers."""
    _set_soft_cap(megabytes * MIB)


@contextmanager
def memory_cap(megabytes: int) -> Iterator[None]:
    """Within the block, let the process's address space grow by at most `megabytes` MiB
    beyond what it has now; the previous cap is restored after."""
    previous = resource.getrlimit(resource.RLIMIT_AS)
    _set_soft_cap(_address_space() + megabytes * MIB)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, previous)


def _set_soft_cap(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            wanted = min(wanted, bound)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def address_space_mb() -> float:
    """This process's address space in MiB, which `cap_memory` bounds (0 where /proc is not
    available)."""
    return _address_space() / MIB


def _address_space() -> int:
    """The process's current address space in bytes (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm", "rb") as handle:  # bytes: no text codec to load
            return int(handle.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


class Watchdog:
    """Ends the process (exit 2) when an armed deadline passes by GRACE_SECONDS, writing the
    armed message to stderr (and an optional line to stdout) first. Arm it before each bounded
    piece of work and disarm it after. The output already printed must have been flushed: the
    watchdog writes straight to the file descriptors."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._deadline: float | None = None
        self._message = ""
        self._stdout: str | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._watch, name="argc-watchdog", daemon=True)
        self._thread.start()

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, *_exc: object) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify()
        self._thread.join()

    def arm(self, seconds: float, message: str, stdout: str | None = None) -> None:
        with self._condition:
            self._deadline = time.monotonic() + seconds + GRACE_SECONDS
            self._message, self._stdout = message, stdout
            self._condition.notify()

    def disarm(self) -> None:
        with self._condition:
            self._deadline = None
            self._condition.notify()

    def _watch(self) -> None:
        with self._condition:
            while not self._closed:
                if self._deadline is None:
                    self._condition.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._condition.wait(left)
                    continue
                if self._stdout is not None:
                    _write(1, self._stdout)
                _write(2, self._message)
                os._exit(EXIT_LIMIT)


def _write(descriptor: int, line: str) -> None:
    with contextlib.suppress(OSError):
        os.write(descriptor, (line + "\n").encode("utf-8", "replace"))
