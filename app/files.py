"""Output files written safely, shared by every command that writes one.

- `write_output` writes a whole file: `-` is standard output; a character device, FIFO or
  socket is written straight through; a regular file (or a path that does not exist yet) is
  replaced atomically (a temporary file beside it, synced, then renamed), so a failed write
  leaves neither a partial file nor a temporary one. A symbolic link, a folder or a block
  device is refused. Missing parent folders are created.
- `open_append` and `exclusive` serve files that grow as a job runs (run files, resume files):
  the first opens one for appending, the second keeps a second process off it.
- `check_resume` refuses to resume a file that another request started.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import socket
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO, Literal

from argc.dsl.errors import ArgcError

#: The output path that means standard output.
STDOUT = "-"
#: How `write_output` writes to a path.
Kind = Literal["stdout", "stream", "file"]


class OutputError(ArgcError, OSError):
    """An output that cannot be written as asked (also an OSError, for callers that report
    failed writes as such)."""


class Busy(ArgcError):
    """Another process holds the file."""


class ResumeMismatch(ArgcError):
    """A resume file that another request started."""


def output_kind(path: str | Path) -> Kind:
    """How `write_output` would write `path`; OutputError for a symbolic link, a folder or a
    block device."""
    if str(path) == STDOUT:
        return "stdout"
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "file"
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "stream"
    if stat.S_ISLNK(mode):
        raise OutputError(
            f"{path} is a symbolic link; refusing to replace it (name its target instead)"
        )
    what = "a folder" if stat.S_ISDIR(mode) else "a block device"
    raise OutputError(f"{path} is {what}; refusing to write it")


def regular_output(path: Path) -> None:
    """OutputError unless `path` is a regular file or does not exist yet (files that are read
    back: run files, resume files)."""
    if output_kind(path) != "file":
        raise OutputError(f"{path} must be a regular file")


def write_output(path: str | Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) whole to `path` as `output_kind` says; OutputError naming
    the path when it cannot be written."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    kind = output_kind(path)
    try:
        if kind == "stdout":
            _write_stdout(payload)
        elif kind == "stream":
            _write_stream(Path(path), payload)
        else:
            _replace(Path(path), payload)
    except OSError as error:
        if isinstance(error, OutputError) or (
            isinstance(error, BrokenPipeError) and kind == "stdout"
        ):
            raise
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def write_png(figure: Any, path: str | Path) -> None:
    """A matplotlib figure as a PNG written by `write_output` (no timestamp, so the bytes
    depend on the figure alone)."""
    from io import BytesIO

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    image = BytesIO()
    figure.savefig(image, format="png", dpi=100, metadata={"Software": None})
    write_output(path, image.getvalue())


def _write_stdout(payload: bytes) -> None:
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream stands in for standard output
        sys.stdout.write(payload.decode("utf-8"))
        sys.stdout.flush()
        return
    sys.stdout.flush()
    buffer.flush()
    try:
        descriptor = buffer.fileno()
    except (OSError, ValueError):  # an in-memory stand-in
        buffer.write(payload)
        buffer.flush()
        return
    # os.write, not the buffer: a buffered write that the reader cuts short (`| head`) can
    # return as if whole, where this raises BrokenPipeError as `print` does.
    view = memoryview(payload)
    while view:
        view = view[os.write(descriptor, view) :]


def _write_stream(path: Path, payload: bytes) -> None:
    """Write to a device or FIFO as opened, or send to a listening Unix socket."""
    if stat.S_ISSOCK(os.stat(path).st_mode):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as peer:
            peer.connect(str(path))
            peer.sendall(payload)
        return
    with open(path, "wb") as stream:
        stream.write(payload)


def _replace(path: Path, payload: bytes) -> None:
    """A temporary file beside `path`, synced, then renamed over it; the temporary file is
    removed when anything fails."""
    make_parents(path)
    handle, temporary = _temporary(path)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _sync_folder(path.parent)


def _temporary(path: Path) -> tuple[int, Path]:
    """A new file `.NAME.RANDOM.tmp` beside `path`, opened for writing, with the permissions a
    new file gets (unlike `tempfile.mkstemp`'s owner-only ones)."""
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (where the system allows syncing a folder)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def make_parents(path: Path) -> None:
    """Create the missing folders above `path`; OutputError when one cannot be created."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(
            f"cannot create the folder {path.parent}: {error.strerror or error}"
        ) from None


def open_append(path: Path) -> BinaryIO:
    """`path` opened for appending bytes (created, with its folders, when missing); it must be a
    regular file."""
    regular_output(path)
    make_parents(path)
    try:
        return open(path, "ab")  # noqa: SIM115 - the caller closes it
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold `path` for this process: a non-blocking lock on the file `PATH.lock` beside it,
    removed on leaving; Busy at once when another process holds it."""
    lock = path.with_name(path.name + ".lock")
    make_parents(lock)
    while True:
        try:
            handle = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise OutputError(f"cannot lock {path}: {error.strerror or error}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(handle)
            if error.errno in (errno.EAGAIN, errno.EACCES):
                raise Busy(f"{path} is in use by another process (lock {lock})") from None
            raise OutputError(f"cannot lock {path}: {error.strerror or error}") from None
        if _same_file(handle, lock):
            break
        os.close(handle)  # the holder removed the lock file in between: take the new one
    try:
        yield
    finally:
        with suppress(FileNotFoundError):
            os.unlink(lock)
        os.close(handle)


def _same_file(handle: int, path: Path) -> bool:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(handle)
    return (found.st_dev, found.st_ino) == (mine.st_dev, mine.st_ino)


def check_resume(
    path: Path, started: Mapping[str, Any], wanted: Mapping[str, Any], advice: str
) -> None:
    """ResumeMismatch when the request a resume file was `started` with differs from the one
    `wanted` now, naming each differing field; `advice` says how to start over."""
    differences = [
        f"{key} {started.get(key)!r} (now {wanted.get(key)!r})"
        for key in sorted({*started, *wanted})
        if started.get(key) != wanted.get(key)
    ]
    if differences:
        raise ResumeMismatch(
            f"{path} was started by another request: {', '.join(differences)}; {advice}"
        )


def write_jsonl(path: str | Path, rows: Iterable[dict]) -> None:
    """Rows as JSON lines (sorted keys), written whole as `write_output` writes (atomically
    for a regular file: a temporary file beside `path`, then renamed over it)."""
    write_output(path, "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows))
