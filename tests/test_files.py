"""argc.files: atomic replacement of regular files, write-through to devices, FIFOs and
sockets, `-` as standard output, refused symbolic links, missing folders, failed writes that
leave nothing behind, run-file locks and resume checks."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from argc import files
from argc.files import Busy, OutputError, ResumeMismatch


def leftovers(folder: Path) -> list[str]:
    """Names of temporary files left in `folder`."""
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def test_regular_file_is_replaced_atomically(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")
    files.write_output(out, "new é")
    assert out.read_text(encoding="utf-8") == "new é"
    files.write_output(out, b"\x00bytes")
    assert out.read_bytes() == b"\x00bytes"
    assert leftovers(tmp_path) == []


def test_new_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    out = tmp_path / "new.txt"
    files.write_output(out, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_missing_parent_folders_are_created(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "out.jsonl"
    files.write_output(out, "line\n")
    assert out.read_text() == "line\n"


def test_parent_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("")
    with pytest.raises(OutputError, match="out.txt: Not a directory"):
        files.write_output(tmp_path / "a" / "out.txt", "x")


def test_dash_writes_standard_output(capsysbinary) -> None:
    files.write_output("-", "to stdout\n")
    files.write_output(Path("-"), b"bytes\n")
    assert capsysbinary.readouterr().out == b"to stdout\nbytes\n"
    assert not Path("-").exists()


def test_symlink_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("keep")
    link = tmp_path / "link.txt"
    os.symlink(target, link)
    with pytest.raises(OutputError, match="link.txt is a symbolic link"):
        files.write_output(link, "overwrite")
    assert link.is_symlink() and target.read_text() == "keep"
    dangling = tmp_path / "dangling"
    os.symlink(tmp_path / "absent", dangling)
    with pytest.raises(OutputError, match="symbolic link"):
        files.write_output(dangling, "x")
    assert not (tmp_path / "absent").exists()


def test_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a folder"):
        files.write_output(tmp_path, "x")


def test_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    files.write_output(fifo, "through the pipe\n")
    reader.join(timeout=5)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


def test_character_device_stays_a_device(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot create a device here: {error}")
    files.write_output(device, "discarded")
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert os.lstat(device).st_rdev == os.makedev(1, 3)
    assert leftovers(tmp_path) == []


def test_unix_socket_is_written_through(tmp_path: Path) -> None:
    path = tmp_path / "s"
    if len(str(path)) > 100:
        pytest.skip("the temporary folder's path is too long for a Unix socket")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(1)
        received = bytearray()

        def serve() -> None:
            connection, _ = server.accept()
            with connection:
                while chunk := connection.recv(4096):
                    received.extend(chunk)

        thread = threading.Thread(target=serve)
        thread.start()
        files.write_output(path, "over a socket")
        thread.join(timeout=5)
    assert bytes(received) == b"over a socket"
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_failed_write_leaves_no_partial_and_no_temporary_file(tmp_path, monkeypatch) -> None:
    existing, fresh = tmp_path / "existing.txt", tmp_path / "fresh.txt"
    existing.write_text("previous")

    def full(handle: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    for path in (existing, fresh):
        with pytest.raises(OutputError, match="No space left on device") as caught:
            files.write_output(path, "x" * 100_000)
        assert path.name in str(caught.value)
        assert isinstance(caught.value, OSError)
    assert existing.read_text() == "previous" and not fresh.exists()
    assert leftovers(tmp_path) == []


def test_interrupted_write_leaves_no_temporary_file(tmp_path, monkeypatch) -> None:
    def interrupted(source: object, target: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_output(tmp_path / "out.txt", "x")
    assert list(tmp_path.iterdir()) == []


def test_open_append_creates_folders_and_refuses_non_regular_files(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "run.jsonl"
    with files.open_append(run) as sink:
        sink.write(b"one\n")
    with files.open_append(run) as sink:
        sink.write(b"two\n")
    assert run.read_text() == "one\ntwo\n"
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OutputError, match="must be a regular file"):
        files.open_append(tmp_path / "pipe")
    os.symlink(run, tmp_path / "link")
    with pytest.raises(OutputError, match="symbolic link"):
        files.open_append(tmp_path / "link")


def test_exclusive_refuses_a_second_holder_and_cleans_up(tmp_path: Path) -> None:
    run = tmp_path / "sub" / "run.jsonl"
    with files.exclusive(run):
        assert (tmp_path / "sub" / "run.jsonl.lock").exists()
        with (
            pytest.raises(Busy, match="run.jsonl is in use by another process"),
            files.exclusive(run),
        ):
            pass
    assert not (tmp_path / "sub" / "run.jsonl.lock").exists()
    with files.exclusive(run):  # free again
        pass


def test_check_resume_names_every_difference(tmp_path: Path) -> None:
    started = {"task": "a", "level": 3, "seeds": [0, 4]}
    files.check_resume(tmp_path / "x", started, dict(started), "delete it")
    with pytest.raises(ResumeMismatch) as caught:
        files.check_resume(tmp_path / "x", started, {**started, "level": 5}, "delete it")
    message = str(caught.value)
    assert "level 3 (now 5)" in message and "task" not in message and "delete it" in message
