"""`argc report` on hand-made run files and `argc bench export` on a hand-made benchmark
directory. Every expected number is counted by hand from the records (comments below)."""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml

from argc.bench import export, plots, report
from argc.bench.manifest import sha256, write_manifest
from argc.dsl.ir import Ordering
from argc.tasks import Instance, generate, score

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run_command(register, argv: list[str]) -> int:
    """Run one command through the parser its module registers (as `argc` does)."""
    parser = argparse.ArgumentParser(prog="argc")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def record(task: str, level: int, ordering: str, set_: str, **fields) -> dict:
    """A run record as `argc eval` writes it: a successful, well-formed response unless
    `fields` say otherwise."""
    found = {
        "id": f"{task}-L{level:02d}-{ordering}-{set_}-1000000000",
        "task": task,
        "level": level,
        "ordering": ordering,
        "set": set_,
        "model": "alpha",
        "response": "<answer>\nx: justified\n</answer>",
        "finish_reason": "stop",
        "usage": {"prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300},
        "latency_s": 2.0,
        "attempts": 1,
        "error": None,
        "native": 1.0,
        "success": True,
        "reason": "correct",
        "has_answer": True,
    }
    found.update(fields)
    return found


def failure(native: float, **fields) -> dict:
    return {"native": native, "success": False, "reason": "goals missed: t", **fields}


COUNTER, STRICT = "counter_argument", "counter_argument_strict"

TRUNCATED = {
    "response": "Let me think",
    "finish_reason": "length",
    "usage": {"prompt_tokens": 1000, "completion_tokens": 4096, "total_tokens": 5096},
    "has_answer": False,
    "reason": "no <answer>...</answer> region",
}
ERRORED = {
    "response": "",
    "finish_reason": None,
    "usage": None,
    "latency_s": 0.5,
    "attempts": 3,
    "error": "HTTP 500 after 3 attempts",
    "has_answer": False,
    "reason": "no <answer>...</answer> region",
}


def run_a() -> list[dict]:
    """18 records: 3 tasks × levels 2, 8, 13 × {last-link elitist, weakest-link democratic}.

    status_query: succeeds under last-link, and under weakest-link only at level 2; the two
      weakest-link failures are truncated without an answer region (native 0.5 counted
      anyway, to see it averaged): 4/6 = 66.7 %, native (4 + 2·0.5)/6 = 83.3.
    counter_argument: succeeds at level 2 only: 2/6 = 33.3 %, native (2 + 4·0.25)/6 = 50.0;
      its level-8 last-link failure is unreadable, its level-13 weakest-link one a request
      error.
    counter_argument_strict: succeeds at levels 2 and 8 with native 0.8: 4/6 = 66.7 %,
      native 3.2/6 = 53.3. Strict minus plain: +33.3 success, +3.3 native.
    Overall 10/18 = 55.6 %. Bands: L1–L5 6/6 = 100, L6–L10 3/6 = 50 (status last-link, strict
      twice), L11–L15 1/6 = 16.7. Last-link 6/9 = 66.7, weakest-link 4/9 = 44.4.
    Diagnostics: truncated 2/18 = 11.1; no answer 3/18 = 16.7; errors 1/18 = 5.6; compliance
      (an answer region) 100 − 16.7 = 15/18 = 83.3; readable (18 − 3 − 1 unreadable)/18 = 77.8;
      conditioned 10/15 = 66.7, +11.1 over canonical; latency
      (17·2 + 0.5)/18 = 1.92 s; prompt tokens 1000 over the 17 records with usage.
    """
    records = []
    for level in (2, 8, 13):
        for ordering, set_ in (("last-link", "elitist"), ("weakest-link", "democratic")):
            last = ordering == "last-link"
            status = {} if last or level == 2 else failure(0.5, **TRUNCATED)
            if level == 2:
                counter = {}
            elif level == 8 and last:
                counter = failure(
                    0.25, has_answer=True, reason="unreadable directive: line 1: cannot read"
                )
            elif level == 13 and not last:
                counter = failure(0.25, **ERRORED)
            else:
                counter = failure(0.25)
            strict = {"native": 0.8} if level in (2, 8) else failure(0.0)
            records.append(record("status_query", level, ordering, set_, **status))
            records.append(record("counter_argument", level, ordering, set_, **counter))
            records.append(record("counter_argument_strict", level, ordering, set_, **strict))
    return records


def run_b() -> list[dict]:
    """16 records: status_query and formalization × levels 1, 15 × the four orderings, no
    usage recorded. status_query succeeds at level 1 only (4/8 = 50 %), formalization under
    elitist only (4/8 = 50 %). Overall 8/16 = 50 %; L1–L5 6/8 = 75 %, no L6–L10 instance,
    L11–L15 2/8 = 25 %."""
    records = []
    for task in ("status_query", "formalization"):
        for level in (1, 15):
            for ordering in ("last-link", "weakest-link"):
                for set_ in ("elitist", "democratic"):
                    won = level == 1 if task == "status_query" else set_ == "elitist"
                    outcome = {} if won else failure(0.5)
                    records.append(record(task, level, ordering, set_, usage=None, **outcome))
    return records


def write_run(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records), "utf-8")
    return path


@pytest.fixture(scope="module")
def reported(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("report")
    runs = [
        write_run(directory / "run-a.jsonl", run_a()),
        write_run(directory / "run-b.jsonl", run_b()),
    ]
    out = directory / "out"
    argv = ["report", *map(str, runs), "--out", str(out)]
    assert run_command(report.register, argv) == 0
    return out


def summaries(out: Path) -> dict[str, dict]:
    document = json.loads((out / "report.json").read_text("utf-8"))
    return {summary["name"]: summary for summary in document["runs"]}


def test_runs_with_the_same_model_are_named_by_file(reported):
    assert list(summaries(reported)) == ["run-a", "run-b"]


def test_overall_task_and_band_success(reported):
    a, b = summaries(reported).values()
    assert (a["n"], a["successes"]) == (18, 10)
    assert a["success"] == pytest.approx(100 * 10 / 18)
    assert (a["tasks"]["status_query"]["successes"], a["tasks"]["status_query"]["n"]) == (4, 6)
    assert a["tasks"]["status_query"]["success"] == pytest.approx(100 * 4 / 6)
    assert a["tasks"]["status_query"]["native"] == pytest.approx(100 * 5 / 6)
    assert a["tasks"]["counter_argument"]["native"] == pytest.approx(50.0)
    bands = {band: cell["success"] for band, cell in a["bands"].items()}
    assert bands == pytest.approx({"L1–L5": 100.0, "L6–L10": 50.0, "L11–L15": 100 / 6})
    assert a["orderings"]["last-link"]["success"] == pytest.approx(100 * 6 / 9)
    assert a["orderings"]["weakest-link"]["success"] == pytest.approx(100 * 4 / 9)
    assert b["success"] == pytest.approx(50.0)
    assert set(b["bands"]) == {"L1–L5", "L11–L15"}
    assert b["bands"]["L1–L5"]["success"] == pytest.approx(75.0)
    assert b["orderings"]["elitist"]["success"] == pytest.approx(75.0)
    assert b["orderings"]["democratic"]["success"] == pytest.approx(25.0)


def test_diagnostics_and_counter_contrast(reported):
    a, b = summaries(reported).values()
    diagnostics = a["diagnostics"]
    assert diagnostics["truncated"] == pytest.approx(100 * 2 / 18)
    assert diagnostics["no_answer"] == pytest.approx(100 * 3 / 18)
    assert diagnostics["errors"] == pytest.approx(100 / 18)
    assert diagnostics["compliance"] == pytest.approx(100 * 15 / 18)
    assert diagnostics["compliance"] == pytest.approx(100 - diagnostics["no_answer"])
    assert diagnostics["readable"] == pytest.approx(100 * 14 / 18)
    assert (diagnostics["canonical"]["successes"], diagnostics["canonical"]["n"]) == (10, 18)
    assert (diagnostics["conditioned"]["successes"], diagnostics["conditioned"]["n"]) == (10, 15)
    assert diagnostics["conditioned"]["success"] == pytest.approx(100 * 10 / 15)
    assert diagnostics["conditioned_gain"] == pytest.approx(100 * (10 / 15 - 10 / 18))
    assert diagnostics["latency_s"] == pytest.approx(34.5 / 18)
    assert diagnostics["prompt_tokens"] == pytest.approx(1000)
    assert b["diagnostics"]["total_tokens"] is None
    difference = a["counter"]["difference"]
    assert difference["success"] == pytest.approx(100 * (4 / 6 - 2 / 6))
    assert difference["native"] == pytest.approx(100 * (3.2 / 6 - 0.5))
    assert b["counter"] is None


def interval(successes: int, n: int) -> str:
    """A rate as the report writes it (the interval from `report.wilson`, tested above)."""
    low, high = report.wilson(successes, n)
    return f"{100 * successes / n:.1f} [{100 * low:.1f}–{100 * high:.1f}] ({successes}/{n})"


def test_tables_in_markdown_and_csv(reported):
    text = (reported / "report.md").read_text("utf-8")
    # Paper layout: one row per run, "success | native" cells, one decimal, – when absent;
    # each rate with its 95 % interval and count. Run-b overall 8/16: 50 ± z / (2√(16 + z²)).
    assert "| run-b | 16 | 50.0 [28.0–72.0] (8/16) |" in text
    assert f"| run-a | 18 | {interval(10, 18)} |" in text
    assert f"| run-a | – | {interval(4, 6)} \\| 83.3 |" in text  # no formalization; status
    # Bands of run-a: 6/6 from 6 / (6 + z²) = 61.0; 3/6 = 50 ± 31.2; 1/6: centre
    # (1/6 + z²/12) / (1 + z²/6) = 0.2968, half z / (1 + z²/6) · √(5/216 + z²/144) = 0.2667.
    assert (
        "| run-a | 100.0 [61.0–100.0] (6/6) | 50.0 [18.8–81.2] (3/6) | 16.7 [3.0–56.4] (1/6) |"
        in text
    )
    assert f"| run-b | {interval(6, 8)} | – | {interval(2, 8)} |" in text
    diagnostics = f"{interval(10, 18)} | {interval(10, 15)} | +11.1 | 1.92 | 1000.0 |"
    # Trunc., No answer, Errors, Compliance (100 − No answer), Readable.
    assert "| run-a | 11.1 | 16.7 | 5.6 | 83.3 | 77.8 | " + diagnostics in text
    with open(reported / "counter.csv", encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    plain, strict = report.wilson(2, 6), report.wilson(4, 6)
    assert rows[0] == {
        "run": "run-a",
        "counter_argument success": "33.3",
        "counter_argument success low": f"{100 * plain[0]:.1f}",
        "counter_argument success high": f"{100 * plain[1]:.1f}",
        "counter_argument success successes": "2",
        "counter_argument success n": "6",
        "counter_argument native": "50.0",
        "counter_argument_strict success": "66.7",
        "counter_argument_strict success low": f"{100 * strict[0]:.1f}",
        "counter_argument_strict success high": f"{100 * strict[1]:.1f}",
        "counter_argument_strict success successes": "4",
        "counter_argument_strict success n": "6",
        "counter_argument_strict native": "53.3",
        "difference success": "+33.3",
        "difference native": "+3.3",
    }
    assert set(rows[1].values()) == {"run-b", ""}
    with open(reported / "orderings-analysis.csv", encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    # run-a status_query: last-link 3/3 (lower bound 3 / (3 + z²)); weakest-link 1/3.
    assert rows[0]["status_query last-link"] == "100.0"
    assert rows[0]["status_query last-link low"] == "43.9"
    assert rows[0]["status_query last-link high"] == "100.0"
    assert rows[0]["status_query last-link n"] == "3"
    assert rows[0]["status_query weakest-link"] == "33.3"
    assert rows[0]["status_query weakest-link successes"] == "1"


def test_every_file_is_written_and_plots_are_images(reported):
    document = json.loads((reported / "report.json").read_text("utf-8"))
    for name in [*document["tables"].values(), *document["plots"], "report.md"]:
        assert (reported / name).is_file(), name
    assert {"tasks.png", "bands.png", "heatmap-run-a.png", "heatmap-run-b.png"} <= set(
        document["plots"]
    )
    for name in document["plots"]:
        data = (reported / name).read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 5_000, name
        assert f"]({name})" in (reported / "report.md").read_text("utf-8")
    assert not list(reported.glob("*.tmp"))


def test_report_is_deterministic(reported, tmp_path):
    runs = [
        write_run(tmp_path / "run-a.jsonl", run_a()),
        write_run(tmp_path / "run-b.jsonl", run_b()),
    ]
    out = tmp_path / "again"
    assert run_command(report.register, ["report", *map(str, runs), "--out", str(out)]) == 0
    for name in ("report.md", "report.json", "bands.csv", "diagnostics.csv"):
        mine, theirs = (out / name).read_text("utf-8"), (reported / name).read_text("utf-8")
        assert mine == theirs.replace(str(reported.parent), str(tmp_path)), name


def test_runs_are_named_by_model(tmp_path):
    other = [{**r, "model": "beta"} for r in run_b()]
    runs = [write_run(tmp_path / "a.jsonl", run_a()), write_run(tmp_path / "b.jsonl", other)]
    out = tmp_path / "out"
    assert run_command(report.register, ["report", *map(str, runs), "--out", str(out)]) == 0
    assert list(summaries(out)) == ["alpha", "beta"]


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot read"),
        ("{}\nnot json\n", ":1: record lacks id"),
        (
            json.dumps(record("status_query", 1, "last-link", "elitist")) + "\n{oops\n",
            ":2: not JSON",
        ),
        (
            json.dumps(
                {
                    k: v
                    for k, v in record("attack", 1, "last-link", "elitist").items()
                    if k != "native"
                }
            ),
            ":1: record lacks native",
        ),
        (json.dumps(record("attack", 16, "last-link", "elitist")), ":1: level must be"),
        (
            json.dumps(record("attack", 1, "last-link", "elitist", success=1)),
            ":1: success must be boolean",
        ),
        ("\n", "no records"),
    ],
)
def test_bad_input_exits_2(tmp_path, capsys, content, message):
    path = tmp_path / "run.jsonl"
    if content is not None:
        path.write_text(content, "utf-8")
    argv = ["report", str(path), "--out", str(tmp_path / "out")]
    assert run_command(report.register, argv) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
    assert not (tmp_path / "out").exists()


def test_without_matplotlib_names_the_extra_and_writes_nothing(tmp_path, capsys, monkeypatch):
    real = report.importlib.util.find_spec
    monkeypatch.setattr(
        report.importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "matplotlib" else real(name, *rest),
    )
    run = write_run(tmp_path / "run-a.jsonl", run_a())
    argv = ["report", str(run), "--out", str(tmp_path / "out")]
    assert run_command(report.register, argv) == 2
    error = capsys.readouterr().err
    assert "matplotlib is not installed" in error and "argc[bench]" in error
    assert "Traceback" not in error and not (tmp_path / "out").exists()


Z2 = 1.959963984540054**2  # the squared 97.5 % normal quantile


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # No success: the lower bound is 0, the upper z² / (n + z²); all successes mirror it.
        (0, 2, 0.0, Z2 / (2 + Z2)),
        (2, 2, 2 / (2 + Z2), 1.0),
        # Half: symmetric about 1/2 with half-width z / (2 √(n + z²)).
        (
            1,
            2,
            0.5 - math.sqrt(Z2) / (2 * math.sqrt(2 + Z2)),
            0.5 + math.sqrt(Z2) / (2 * math.sqrt(2 + Z2)),
        ),
        (
            5,
            10,
            0.5 - math.sqrt(Z2) / (2 * math.sqrt(10 + Z2)),
            0.5 + math.sqrt(Z2) / (2 * math.sqrt(10 + Z2)),
        ),
        # Newcombe (1998), Statistics in Medicine 17:857-872, the Wilson score interval.
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_intervals(successes, n, low, high):
    found = report.wilson(successes, n)
    assert found == pytest.approx((low, high), abs=5e-5)
    assert 0.0 <= found[0] <= successes / n <= found[1] <= 1.0


def test_wilson_intervals_hold_the_proportion():
    for n in range(1, 120):
        for successes in range(n + 1):
            low, high = report.wilson(successes, n)
            assert 0.0 <= low <= successes / n <= high <= 1.0, (successes, n)
        assert report.wilson(0, n)[0] == 0.0 and report.wilson(n, n)[1] == 1.0


def test_no_instances_have_no_rate(tmp_path):
    assert report.wilson(0, 0) is None
    # Every response truncated: success among answered responses is 0/0.
    records = [
        record("attack", level, "last-link", "elitist", **failure(0.0, **TRUNCATED))
        for level in (1, 2)
    ]
    out = tmp_path / "out"
    argv = ["report", str(write_run(tmp_path / "run.jsonl", records)), "--out", str(out)]
    assert run_command(report.register, argv) == 0
    (summary,) = summaries(out).values()
    conditioned = summary["diagnostics"]["conditioned"]
    assert conditioned == {
        "n": 0,
        "successes": 0,
        "success": None,
        "success_low": None,
        "success_high": None,
    }
    assert summary["diagnostics"]["conditioned_gain"] is None
    zero = f"0.0 [0.0–{100 * Z2 / (2 + Z2):.1f}] (0/2)"
    assert f"| 100.0 | 100.0 | 0.0 | 0.0 | 0.0 | {zero} | – | – |" in (out / "report.md").read_text(
        "utf-8"
    )


def rates(value, path=()):
    """Every success cell in a summary, with its path."""
    if isinstance(value, dict):
        if "success_low" in value:
            yield path, value
        for key, inner in value.items():
            yield from rates(inner, (*path, key))


def test_every_success_rate_has_its_interval(reported):
    a, b = summaries(reported).values()
    found = dict(rates(a))
    sections = {path[0] if path else "overall" for path in found}
    assert sections == {
        "overall",
        "tasks",
        "bands",
        "task_bands",
        "orderings",
        "task_orderings",
        "levels",
        "counter",
        "diagnostics",
    }
    for summary in (a, b):
        for path, cell in rates(summary):
            n, successes = cell["n"], cell["successes"]
            low, high = report.wilson(successes, n)
            assert cell["success"] == pytest.approx(100 * successes / n), path
            assert (cell["success_low"], cell["success_high"]) == (100 * low, 100 * high), path
    assert found[("bands", "L1–L5")]["success_low"] == pytest.approx(100 * 6 / (6 + Z2))


def test_runs_over_different_instances_are_flagged(tmp_path, capsys):
    records = run_a()
    other = [{**r, "model": "beta"} for r in records[:12]]
    other.append(record("attack", 5, "last-link", "elitist", model="beta"))
    runs = [write_run(tmp_path / "a.jsonl", records), write_run(tmp_path / "b.jsonl", other)]
    out = tmp_path / "out"
    assert run_command(report.register, ["report", *map(str, runs), "--out", str(out)]) == 0
    warning = "the runs cover different instances (alpha 18, beta 13; 12 shared by all)"
    assert warning in capsys.readouterr().err
    assert f"**Warning:** {warning}" in (out / "report.md").read_text("utf-8")
    assert json.loads((out / "report.json").read_text("utf-8"))["warnings"][0].startswith(warning)
    same = [write_run(tmp_path / "c.jsonl", [{**r, "model": "gamma"} for r in records]), runs[0]]
    again = tmp_path / "again"
    assert run_command(report.register, ["report", *map(str, same), "--out", str(again)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert "Warning" not in (again / "report.md").read_text("utf-8")
    assert json.loads((again / "report.json").read_text("utf-8"))["warnings"] == []


def test_zero_percent_bars_are_drawn_and_labelled(tmp_path):
    """run-a: status_query 4/6, counter_argument 2/6, counter_argument_strict 4/6; a second
    run fails every counter_argument: its bar has no height, so an outline and a label show
    it."""
    failed = [{**r, **failure(0.25)} if r["task"] == COUNTER else r for r in run_a()]
    runs = [
        report.Run("a", tmp_path / "a.jsonl", run_a()),
        report.Run("z", tmp_path / "z.jsonl", failed),
    ]
    tasks = ["status_query", COUNTER, STRICT]
    found = [report.summarise(run) for run in runs]
    axes = plots.task_bars(found, tasks, tasks).axes[0]
    labels = [(text.get_position(), text.get_text()) for text in axes.texts]
    # Two runs: bars 0.4 wide, run z's offset +0.2; counter_argument is the second task.
    zero = [label for label in labels if label[1] == "0%"]
    assert zero == [((pytest.approx(1.2), 2 * plots.ZERO_MARK), "0%")]
    # Every other bar has its rate written just above its interval.
    rates = sorted((round(x, 6), text) for (x, _), text in labels if text != "0%")
    assert rates == [(-0.2, "67%"), (0.2, "67%"), (0.8, "33%"), (1.8, "67%"), (2.2, "67%")]
    high = found[0]["tasks"]["status_query"]["success_high"]
    first = next(position for position, text in labels if text != "0%")
    assert first == (pytest.approx(-0.2), pytest.approx(high + 1))
    outlines = [patch for patch in axes.patches if not patch.get_fill()]
    assert len(outlines) == 1
    assert outlines[0].get_x() + outlines[0].get_width() / 2 == pytest.approx(1.2)
    assert outlines[0].get_height() == plots.ZERO_MARK > 0
    filled = sorted(round(p.get_height(), 6) for p in axes.patches if p.get_fill())
    assert filled == sorted(round(100 * k / 6, 6) for k in (4, 2, 4, 4, 0, 4))
    # Error bars span each rate's 95 % interval: run z's counter_argument is 0/6.
    segments = [
        segment
        for collection in axes.collections
        for segment in collection.get_segments()
        if segment[0][0] == pytest.approx(1.2)
    ]
    assert [[y for _, y in segment] for segment in segments] == [
        [0.0, pytest.approx(100 * Z2 / (6 + Z2))]
    ]
    assert [text.get_text() for text in axes.get_legend().get_texts()] == ["a", "z"]


def test_band_profiles_show_the_intervals(tmp_path):
    """run-a's bands: L1–L5 6/6, L6–L10 3/6, L11–L15 1/6 (see `run_a`)."""
    summary = report.summarise(report.Run("a", tmp_path / "a.jsonl", run_a()))
    axes = plots.band_profiles([summary], list(report.BANDS)).axes[0]
    ((line, _, (bars,)),) = axes.containers
    assert list(line.get_ydata()) == pytest.approx([100.0, 50.0, 100 / 6])
    spans = [[y for _, y in segment] for segment in bars.get_segments()]
    half = 100 * math.sqrt(Z2) / (2 * math.sqrt(6 + Z2))  # 3/6: symmetric about 50
    assert spans[:2] == [
        [pytest.approx(100 * 6 / (6 + Z2)), pytest.approx(100.0)],
        [pytest.approx(50 - half), pytest.approx(50 + half)],
    ]


# Export


EXPORTED = [
    ("status_query", 1_000_000_000),
    ("status_query", 1_000_000_001),
    ("claim_chain", 1_000_000_000),
]


def export_register(commands: argparse._SubParsersAction) -> None:
    bench = commands.add_parser("bench").add_subparsers(dest="bench_command", required=True)
    export.register(bench)


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory) -> Path:
    """A small benchmark directory written the way `argc bench build` writes one: rows.jsonl
    (rows sorted by task, level, ordering, seed), cells.json and a manifest with hashes."""
    directory = tmp_path_factory.mktemp("benchmark")
    ordering = Ordering("weakest-link", "democratic")
    rows = sorted(
        (generate(task, 3, ordering, seed) for task, seed in EXPORTED),
        key=lambda row: (row.task, row.seed),
    )
    (directory / "rows.jsonl").write_text("".join(row.to_json() + "\n" for row in rows), "utf-8")
    cells = {
        f"{task}/3/weakest-link/democratic": {
            "accepted": sorted(s for t, s in EXPORTED if t == task)
        }
        for task in ("claim_chain", "status_query")
    }
    (directory / "cells.json").write_text(json.dumps(cells, sort_keys=True, indent=2), "utf-8")
    settings = {
        "taskset": "argc-arggym-v1",
        "argc_version": version("argc"),
        "prompt_version": 1,
        "scoring_version": 1,
        "seed_base": 1_000_000_000,
        "seed_bound": 64,
        "instances_per_cell": 2,
        "rows": len(rows),
        "tasks": ["claim_chain", "status_query"],
        "levels": [3],
    }
    write_manifest(directory, settings, ["rows.jsonl", "cells.json"])
    return directory


def test_export_loads_offline_with_the_rows(benchmark, tmp_path):
    out = tmp_path / "hf"
    argv = ["bench", "export", str(benchmark), "--out", str(out)]
    assert run_command(export_register, argv) == 0
    data = out / "data" / "test-00000-of-00001.parquet"
    load = (
        "import json, sys\n"
        "from datasets import load_dataset\n"
        "rows = load_dataset(sys.argv[1], split='test', cache_dir=sys.argv[2])\n"
        "print(json.dumps({'features': {k: str(v) for k, v in rows.features.items()},"
        " 'rows': rows.to_list()}))\n"
    )
    environment = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    environment["HF_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-c", load, str(out), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert loaded["features"]["level"] == "Value('int64')"
    assert loaded["features"]["target"] == "Value('string')"
    expected = [json.loads(line) for line in (benchmark / "rows.jsonl").read_text().splitlines()]
    assert len(loaded["rows"]) == 3
    for row, want in zip(loaded["rows"], expected, strict=True):
        decoded = {**row, "target": json.loads(row["target"]), "meta": json.loads(row["meta"])}
        assert decoded == want
    # The card's recipe: a loaded row is an instance the scorer accepts.
    instance = Instance.from_record(decoded)
    assert score(instance, f"<answer>{instance.reference}</answer>").success
    card = (out / "README.md").read_text("utf-8")
    assert yaml.safe_load(card.split("---\n")[1]) == {
        "pretty_name": "ArgGYM frozen benchmark (argc-arggym-v1)",
        "license": "mit",
        "language": ["en"],
        "task_categories": ["text-generation", "question-answering"],
        "size_categories": ["n<1K"],
        "tags": ["argumentation", "aspic-plus", "reasoning", "benchmark"],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": "test", "path": "data/test-00000-of-00001.parquet"}],
            }
        ],
    }
    assert "2 tasks × 1 level × 1 ordering × 1–2 instances per cell = 3 rows" in card
    assert "| claim_chain | 1 |" in card and "| status_query | 2 |" in card
    for line in (
        "| taskset | `argc-arggym-v1` |",
        f"| argc_version | `{version('argc')}` |",
        "| prompt_version | `1` |",
        "| scoring_version | `1` |",
        "| seed_base | `1000000000` |",
    ):
        assert line in card
    assert f"`{sha256(data)}`" in card and "argc.tasks.score" in card
    assert f"`{sha256(benchmark / 'rows.jsonl')}`" in card


def test_export_is_deterministic(benchmark, tmp_path):
    for name in ("one", "two"):
        argv = ["bench", "export", str(benchmark), "--out", str(tmp_path / name)]
        assert run_command(export_register, argv) == 0
    for name in ("README.md", "data/test-00000-of-00001.parquet"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_export_refuses_a_directory_that_fails_its_manifest(benchmark, tmp_path, capsys):
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("rows.jsonl", "cells.json", "manifest.json"):
        (copy / name).write_bytes((benchmark / name).read_bytes())
    with open(copy / "rows.jsonl", "a", encoding="utf-8") as stream:
        stream.write("\n")
    out = tmp_path / "hf"
    assert run_command(export_register, ["bench", "export", str(copy), "--out", str(out)]) == 1
    assert "rows.jsonl: sha256 differs" in capsys.readouterr().err
    assert not out.exists()
    (copy / "manifest.json").unlink()
    assert run_command(export_register, ["bench", "export", str(copy), "--out", str(out)]) == 1
    missing = str(tmp_path / "missing")
    assert run_command(export_register, ["bench", "export", missing, "--out", str(out)]) == 2
