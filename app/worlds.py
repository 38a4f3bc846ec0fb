"""Many worlds in one process, for `argc norms solve` and `argc kg solve`: the inputs (files,
`-` for standard input, or with `--jsonl` JSONL files of rows holding a world's text, as the
generators write them), each world solved within its own time limit and its report printed,
flushed, as soon as it is built, and an error record for a world that fails while the worlds
after it go on (docs/norms.md and docs/kg.md, Many worlds in one call)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import BinaryIO

from argc.compiler.control import Deadline, LimitExceeded, Limits
from argc.compiler.guard import Watchdog, memory_cap
from argc.dsl.errors import InputError
from argc.dsl.parser import STDIN, read_text, source_name

#: The file name of an error raised about text with no file (`InputError`'s default).
UNNAMED = "<input>"
#: The field of a JSONL row holding the world's text (`--field`), and the field naming it.
TEXT_FIELD, ID_FIELD = "world", "id"
#: The longest JSONL line read as a row (a world's text is at most 4,000,000 characters,
#: `argc.dsl.parser.MAX_SOURCE_CHARS`; JSON escapes can double it, UTF-8 quadruple it).
MAX_ROW_BYTES = 32 * 2**20
#: A world that fails exits 2, as one world alone does (bad input or an exceeded limit).
EXIT_OK, EXIT_FAILED = 0, 2


def add_inputs(command: argparse.ArgumentParser, metavar: str) -> None:
    """The WORLD arguments of a solving command, `--jsonl` and `--field`."""
    command.add_argument(
        "worlds",
        nargs="+",
        metavar=metavar,
        help="world files, `-` for standard input; with --jsonl, JSONL files of worlds. One"
        " file: its report alone; several: one report per world, in order, each naming its"
        " world (a JSON record's `world` first, a `==> NAME <==` line above a text)",
    )
    command.add_argument(
        "--jsonl",
        action="store_true",
        help="each argument is a JSONL file (`-`: standard input) with one world per line, its"
        " text in the row's `world` field (--field) and its name in `id` (else FILE:LINE), as"
        " the `generate` commands write them",
    )
    command.add_argument(
        "--field",
        default=TEXT_FIELD,
        metavar="NAME",
        help="with --jsonl: the field holding a world's text",
    )


def one_file(args: argparse.Namespace) -> bool:
    """One world file given (no --jsonl): the command prints what it printed before it took
    several."""
    return len(args.worlds) == 1 and not args.jsonl


@dataclass(frozen=True)
class WorldInput:
    """One world to solve: its `name` in records and messages, and its file (`path`, `-`:
    standard input) or its text (a JSONL row's); `problem`: why a JSONL line holds none."""

    name: str
    path: str | None = None
    text: str | None = None
    problem: str | None = None

    def source(self) -> str:
        """The world's text; InputError when it cannot be read or its line holds none."""
        if self.problem is not None:
            raise InputError(self.problem, filename=self.name)
        if self.text is not None:
            return self.text
        assert self.path is not None
        return read_text(self.path)


def world_inputs(
    sources: Sequence[str], jsonl: bool, field: str = TEXT_FIELD
) -> Iterator[WorldInput]:
    """The worlds of the arguments, in order: each file a world, or with `jsonl` each
    non-blank line of each file a row holding one (read as the worlds are solved)."""
    for source in sources:
        if jsonl:
            yield from _rows(source, field)
        else:
            yield WorldInput(source_name(source), path=source)


def _rows(source: str, field: str) -> Iterator[WorldInput]:
    name = source_name(source)
    number = 0
    try:
        with _opened(source) as handle:
            for number, line in enumerate(_bounded_lines(handle), 1):
                if line is None:
                    where = f"{name}:{number}"
                    yield WorldInput(where, problem=f"a line longer than {MAX_ROW_BYTES:,} bytes")
                elif line.strip():
                    yield _row(line, f"{name}:{number}", field)
    except OSError as error:
        where = f"{name}:{number + 1}" if number else name
        yield WorldInput(where, problem=f"cannot read file: {error.strerror or error}")


def _bounded_lines(handle: BinaryIO) -> Iterator[bytes | None]:
    """The lines of a stream, each read to at most MAX_ROW_BYTES: a longer line is skipped to
    its end, a chunk at a time, and given as None (its row's error), so that one row never
    holds more than that in memory."""
    while line := handle.readline(MAX_ROW_BYTES + 1):
        if len(line) <= MAX_ROW_BYTES or line.endswith(b"\n"):
            yield line
            continue
        while (rest := handle.readline(MAX_ROW_BYTES)) and not rest.endswith(b"\n"):
            pass
        yield None


def _opened(source: str) -> AbstractContextManager[BinaryIO]:
    """The file's bytes, or standard input's (left open)."""
    return nullcontext(sys.stdin.buffer) if source == STDIN else open(source, "rb")


def _row(line: bytes, place: str, field: str) -> WorldInput:
    """The world of one JSONL line: named by the row's id (else `place`, FILE:LINE)."""
    try:
        row = json.loads(line)
    except ValueError as error:  # a JSONDecodeError or a UnicodeDecodeError
        return WorldInput(place, problem=f"not a JSON line ({error})")
    if not isinstance(row, dict):
        return WorldInput(place, problem="the line is not a JSON object")
    ident = row.get(ID_FIELD)
    named = isinstance(ident, str | int) and not isinstance(ident, bool) and str(ident) != ""
    name = str(ident) if named else place
    text = row.get(field)
    if not isinstance(text, str):
        where = f" (line {place})" if named else ""
        return WorldInput(name, problem=f"the row has no {field!r} text{where}")
    return WorldInput(name, text=text)


@contextmanager
def clocked(
    name: str,
    seconds: float,
    max_memory: int,
    watchdog: Watchdog,
    last_words: str | None = None,
    stdout: str | None = None,
) -> Iterator[Limits]:
    """One world's limits, its time counted from now (before its file is read) until the
    block ends, with the watchdog armed to end the process just after the limit if some step
    does not stop (writing `last_words`, by default the limit's line, to stderr and `stdout`
    to stdout). What the block builds is kept only if it ended within the limit; every error
    of the block names the world (LimitExceeded keeping which limit it was)."""
    message = f"{name}: time limit of {seconds:g} s exceeded"
    watchdog.arm(seconds, message if last_words is None else last_words, stdout)
    limits = Limits(seconds=seconds, started=time.monotonic())
    try:
        yield limits
        Deadline(limits.seconds, limits.started).check()
    except InputError as error:
        if error.filename != UNNAMED:
            raise
        raise InputError(error.message, filename=name) from None
    except LimitExceeded as error:
        text = str(error)
        named = text if text.startswith(f"{name}:") else f"{name}: {text}"
        raise LimitExceeded(named, error.limit) from None
    except MemoryError:
        raise LimitExceeded(
            f"{name}: out of memory (--max-memory {max_memory})", "memory"
        ) from None
    finally:
        watchdog.disarm()


#: What a command builds for one world within its limits: its JSON record (with --json) or
#: its text.
Build = Callable[[WorldInput, Limits], "dict | str"]


def solve_each(args: argparse.Namespace, command: str, build: Build) -> int:
    """Solve every world of the arguments in one process under one memory cap, each within
    its own `--time-limit`, printing each one's report (flushed) as soon as it is built: with
    --json its record with `"world"` first, else its text under a `==> NAME <==` header. A
    world that fails prints its error record (`{"world", "error", "limit"?}`, as `argc check
    --json` does; in text, its header and `error: ...`), its message goes to stderr after
    `argc COMMAND: `, and the next world is solved. Exit code 0 when every world was solved,
    else 2. A step that ignores its limit is ended by the watchdog, which ends the process:
    that world's error record is printed, and the worlds after it are not solved."""
    if sum(source == STDIN for source in args.worlds) > 1:
        print(f"argc {command}: standard input (-) can be given once", file=sys.stderr)
        return EXIT_FAILED
    code = EXIT_OK
    with Watchdog() as watchdog, memory_cap(args.max_memory):
        inputs = world_inputs(args.worlds, args.jsonl, args.field)
        for index, item in enumerate(inputs):
            code = max(code, _solve_one(item, index == 0, args, command, build, watchdog))
    return code


def _solve_one(
    item: WorldInput,
    first: bool,
    args: argparse.Namespace,
    command: str,
    build: Build,
    watchdog: Watchdog,
) -> int:
    name = item.name
    stopped = LimitExceeded(f"{name}: time limit of {args.time_limit:g} s exceeded", "time")
    last_words = f"argc {command}: {stopped}; the process ends: no world after it is solved"
    try:
        with clocked(
            name,
            args.time_limit,
            args.max_memory,
            watchdog,
            last_words,
            _failure(name, stopped, first, args.json),
        ) as limits:
            built = build(item, limits)
            if args.json:
                assert isinstance(built, dict)
                report = json.dumps({"world": name, **built})
            else:
                report = _header(name, first) + str(built)
    except (InputError, LimitExceeded) as error:
        print(_failure(name, error, first, args.json), flush=True)
        print(f"argc {command}: {error}", file=sys.stderr, flush=True)
        return EXIT_FAILED
    print(report, flush=True)
    return EXIT_OK


def _header(name: str, first: bool) -> str:
    """The line above a world's text (after a blank line but for the first world)."""
    return ("" if first else "\n") + f"==> {name} <==\n"


def _failure(name: str, error: Exception, first: bool, as_json: bool) -> str:
    """What stdout shows of a world that failed: its error record, or its header and the
    error."""
    if as_json:
        from argc.compiler.report import error_record

        return json.dumps(error_record(name, error, key="world"))
    return _header(name, first) + f"error: {error}"
