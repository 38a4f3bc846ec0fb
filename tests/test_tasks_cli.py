"""`argc generate`, `argc score` and `argc curriculum` at the edges: resume files keyed by the
request, outputs that are FIFOs, symbolic links or in missing folders, swapped arguments and
predictions with missing, repeated or unknown ids."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from argc.cli import EXIT_INTERRUPTED, main
from argc.tasks import cli as tasks_cli
from argc.tasks import curriculum

BASE = ["generate", "status_query", "--level", "1", "--seed", "5", "--count", "4"]


def interrupted_generate(out: Path, monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """Run BASE into `out` and interrupt it (Ctrl-C) as instance `after` + 1 is generated."""
    real = tasks_cli.generate_json
    calls = []

    def flaky(job: tuple) -> str:
        calls.append(job)
        if len(calls) > after:
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(tasks_cli, "generate_json", flaky)
    assert main([*BASE, "--out", str(out)]) == EXIT_INTERRUPTED
    monkeypatch.setattr(tasks_cli, "generate_json", real)


def counting_generate(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Seeds generated from now on."""
    real, seeds = tasks_cli.generate_json, []

    def counted(job: tuple) -> str:
        seeds.append(job[3])
        return real(job)

    monkeypatch.setattr(tasks_cli, "generate_json", counted)
    return seeds


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """BASE's output from an uninterrupted run."""
    out = tmp_path_factory.mktemp("fresh") / "fresh.jsonl"
    assert main([*BASE, "--out", str(out)]) == 0
    return out.read_bytes()


def test_matching_resume_continues_byte_identically(tmp_path, monkeypatch, fresh) -> None:
    out = tmp_path / "out.jsonl"
    interrupted_generate(out, monkeypatch, after=2)
    partial = tmp_path / "out.jsonl.partial"
    lines = partial.read_text().splitlines()
    assert json.loads(lines[0])["argc_resume"]["level"] == 1 and len(lines) == 3
    assert not out.exists() and not (tmp_path / "out.jsonl.lock").exists()
    seeds = counting_generate(monkeypatch)
    assert main([*BASE, "--out", str(out)]) == 0
    assert seeds == [7, 8]  # only the seeds the interrupted run had not written
    assert out.read_bytes() == fresh
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.jsonl"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (["--level", "2"], "level"),
        (["--ordering", "weakest-link"], "ordering"),
        (["--set", "democratic"], "set"),
        (["--count", "5"], "count"),
        (["--seed", "6"], "seed"),
    ],
)
def test_resume_by_another_request_is_refused(tmp_path, monkeypatch, capsys, change, field):
    out = tmp_path / "out.jsonl"
    interrupted_generate(out, monkeypatch, after=1)
    partial = tmp_path / "out.jsonl.partial"
    before = partial.read_bytes()
    seeds = counting_generate(monkeypatch)
    capsys.readouterr()
    assert main([*BASE, *change, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{field} " in err and "was started by another request" in err
    assert f"delete {partial} to start over" in err and len(err.splitlines()) == 1
    assert seeds == [] and partial.read_bytes() == before and not out.exists()


def test_resume_of_another_task_is_refused(tmp_path, monkeypatch, capsys) -> None:
    out = tmp_path / "out.jsonl"
    interrupted_generate(out, monkeypatch, after=1)
    other = ["generate", "attack", *BASE[2:], "--out", str(out)]
    assert main(other) == 2
    assert "task 'status_query' (now 'attack')" in capsys.readouterr().err


def test_a_partial_file_without_a_request_is_refused(tmp_path, capsys) -> None:
    out = tmp_path / "out.jsonl"
    (tmp_path / "out.jsonl.partial").write_text('{"seed": 5, "id": "stale"}\n')
    assert main([*BASE, "--out", str(out)]) == 2
    assert "not a resume file of argc generate" in capsys.readouterr().err
    assert not out.exists()


def test_generate_writes_through_a_fifo(tmp_path, fresh) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert main([*BASE, "--out", str(fifo)]) == 0
    reader.join(timeout=10)
    assert received == [fresh]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pipe"]  # no partial beside it


def test_generate_refuses_a_symlink_and_creates_missing_folders(tmp_path, capsys, fresh) -> None:
    target = tmp_path / "target.jsonl"
    target.write_text("keep\n")
    os.symlink(target, tmp_path / "link.jsonl")
    assert main([*BASE, "--out", str(tmp_path / "link.jsonl")]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert target.read_text() == "keep\n"
    nested = tmp_path / "a" / "b" / "out.jsonl"
    assert main([*BASE, "--out", str(nested)]) == 0
    assert nested.read_bytes() == fresh


def test_generate_to_stdout_with_dash(capsysbinary, fresh) -> None:
    assert main([*BASE, "--out", "-"]) == 0
    assert capsysbinary.readouterr().out == fresh


# argc score


@pytest.fixture
def instances(tmp_path: Path, fresh: bytes) -> Path:
    path = tmp_path / "instances.jsonl"
    path.write_bytes(fresh)
    return path


def predictions_file(folder: Path, rows: list[dict]) -> Path:
    path = folder / "predictions.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_swapped_arguments_say_which_file_is_which(instances, tmp_path, capsys) -> None:
    ids = [json.loads(line)["id"] for line in instances.read_text().splitlines()]
    predictions = predictions_file(tmp_path, [{"id": ids[0], "response": "x"}])
    assert main(["score", str(predictions), str(instances)]) == 2
    err = capsys.readouterr().err
    assert "looks like a predictions file" in err and "instances come first" in err
    assert main(["score", str(instances), str(instances)]) == 2
    assert "looks like an instances file" in capsys.readouterr().err


def test_missing_repeated_and_unknown_ids_are_counted(instances, tmp_path, capsys) -> None:
    rows = [json.loads(line) for line in instances.read_text().splitlines()]
    right = f"<answer>{rows[0]['reference']}</answer>"
    predictions = predictions_file(
        tmp_path,
        [
            {"id": rows[0]["id"], "response": "wrong"},
            {"id": rows[0]["id"], "response": right},  # the last counts
            {"id": rows[1]["id"], "response": None},
            {"response": "no id"},
            {"id": "nobody", "response": "x"},
        ],
    )
    out = tmp_path / "results.jsonl"
    assert main(["score", str(instances), str(predictions), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 prediction has no string id" in err
    assert "1 id has several predictions (2 lines); the last of each counts" in err
    assert "1 response is not text" in err
    assert "1 prediction names no instance" in err
    assert "2 instances have no prediction" in err
    results = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert results[rows[0]["id"]]["success"] and not results[rows[1]["id"]]["success"]


def test_score_refuses_unknown_tasks(instances, tmp_path, capsys) -> None:
    rows = [json.loads(line) for line in instances.read_text().splitlines()]
    rows[0]["task"] = "made_up"
    instances.write_text("".join(json.dumps(row) + "\n" for row in rows))
    predictions = predictions_file(tmp_path, [])
    assert main(["score", str(instances), str(predictions)]) == 2
    err = capsys.readouterr().err
    assert "unknown task(s) made_up (1 instances)" in err and "--load" in err


def test_a_broken_task_file_is_a_clear_error(tmp_path, capsys) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    assert main([*BASE, "--load", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "broken.py: cannot load tasks: SyntaxError" in err and "Traceback" not in err


# argc curriculum


def test_curriculum_resume_by_another_request_is_refused(tmp_path, monkeypatch, capsys) -> None:
    cells = []

    def fake(task: str, level: int, count: int) -> dict:
        cells.append((task, level))
        if len(cells) == 3:
            raise KeyboardInterrupt
        return dict.fromkeys(curriculum.COLUMNS, float(level))

    monkeypatch.setattr(curriculum, "cell_statistics", fake)
    out = tmp_path / "curriculum.md"
    command = ["curriculum", "--tasks", "status_query", "--instances", "3", "--out", str(out)]
    assert main(command) == EXIT_INTERRUPTED
    partial = tmp_path / "curriculum.md.partial.json"
    assert set(json.loads(partial.read_text())["results"]["status_query"]) == {"1", "2"}
    capsys.readouterr()
    assert main([*command[:3], "--instances", "4", "--out", str(out)]) == 2
    assert "instances 3 (now 4)" in capsys.readouterr().err
    assert main(command) == 0
    assert cells[3:] == [("status_query", level) for level in range(3, 16)]
    assert "| 15 |" in out.read_text() and not partial.exists()
    said = f"Measured with `argc curriculum --instances 3 --tasks status_query --out {out}`"
    assert said in out.read_text()
