"""The benchmark pipeline end to end through the `argc` command line, on two tasks (one
analysis, one constructive) × every level and ordering: build, audit, eval against a local
OpenAI-compatible server (answering with the references, with garbage, and truncating),
an interrupted eval that resumes, report and export."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chat_server import ChatServer

from argc.cli import main

# The whole frozen-benchmark pipeline (build, audit, eval, report, export): about a minute,
# so run with ARGC_SLOW=1; tests/test_bench_build.py checks building in the quick run.
pytestmark = pytest.mark.slow

TASKS = ("status_query", "attack")


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bench") / "benchmark"
    assert (
        main(["bench", "build", "--out", str(directory), "--workers", "2", "--tasks", *TASKS]) == 0
    )
    return directory


def rows(benchmark: Path) -> list[dict]:
    return [json.loads(line) for line in (benchmark / "rows.jsonl").read_text().splitlines()]


def references(benchmark: Path) -> dict[str, str]:
    """Prompt → the reference answer, for a server that answers correctly."""
    return {row["prompt"]: f"<answer>{row['reference']}</answer>" for row in rows(benchmark)}


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in run.read_text().splitlines()]


def evaluate(benchmark: Path, server: ChatServer, run: Path, *extra: str) -> int:
    return main(
        ["eval", str(benchmark), "--base-url", server.url, "--model", run.stem,
         "--out", str(run), "--concurrency", "4", "--retries", "1", *extra]
    )  # fmt: skip


def test_build_has_every_cell(benchmark: Path) -> None:
    found = rows(benchmark)
    assert len(found) == len(TASKS) * 15 * 4 * 2
    manifest = json.loads((benchmark / "manifest.json").read_text())
    assert manifest["rows"] == len(found) and set(manifest["files"]) >= {"rows.jsonl"}


def test_audit_finds_no_failure(benchmark: Path, tmp_path: Path) -> None:
    report = tmp_path / "audit.md"
    assert main(["bench", "audit", str(benchmark), "--workers", "2", "--out", str(report)]) == 0
    assert report.read_text().strip()


def test_eval_report_and_export(benchmark: Path, tmp_path: Path) -> None:
    answers = references(benchmark)
    right, garbage, cut = (
        tmp_path / "right.jsonl",
        tmp_path / "garbage.jsonl",
        tmp_path / "cut.jsonl",
    )
    with ChatServer(lambda prompt: (answers[prompt], "stop")) as server:
        # Interrupted after 30 instances, then resumed: every instance once.
        assert evaluate(benchmark, server, right, "--limit", "30") == 0
        assert evaluate(benchmark, server, right) == 0
        assert len(server.bodies) == len(answers)
    with ChatServer(lambda prompt: ("I think the answer is 42.", "stop")) as server:
        assert evaluate(benchmark, server, garbage) == 0
    with ChatServer(lambda prompt: (answers[prompt][:20], "length")) as server:
        assert evaluate(benchmark, server, cut) == 0
    done = records(right)
    assert sorted(r["id"] for r in done) == sorted(row["id"] for row in rows(benchmark))
    assert all(r["success"] for r in done)
    assert not any(r["success"] for r in records(garbage))

    out = tmp_path / "report"
    assert main(["report", str(right), str(garbage), str(cut), "--out", str(out)]) == 0
    summaries = {run["name"]: run for run in json.loads((out / "report.json").read_text())["runs"]}
    assert summaries["right"]["success"] == 100.0
    assert summaries["garbage"]["success"] == 0.0
    assert summaries["garbage"]["diagnostics"]["no_answer"] == 100.0
    assert summaries["cut"]["diagnostics"]["truncated"] == 100.0
    assert summaries["cut"]["success"] == 0.0
    assert (out / "report.md").read_text().count("|") > 100
    assert list(out.glob("*.png")) and list(out.glob("*.csv"))

    exported = tmp_path / "hf"
    assert main(["bench", "export", str(benchmark), "--out", str(exported)]) == 0
    loaded = subprocess.run(
        [sys.executable, "-c", "import datasets, sys;"
         " print(len(datasets.load_dataset(sys.argv[1], split='test')))", str(exported)],
        capture_output=True, text=True, check=True,
        env={**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
             "HF_HOME": str(tmp_path / "hf-home")},
    )  # fmt: skip
    assert int(loaded.stdout.strip().splitlines()[-1]) == len(answers)
