"""Strict pass@k against exact combinatorics, SG/CG and correlations on hand-made numbers,
and `argc sample` / `argc sample-metrics` against a fake chat endpoint (resume, torn lines,
several samples per request, deterministic reports)."""

from __future__ import annotations

import argparse
import json
import math
import threading
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from eval_helpers import (
    fast_backoff,  # noqa: F401 - an autouse fixture
    no_ambient_key,  # noqa: F401 - an autouse fixture
    tiny_model,
    write_instances,
)

from argc.dsl.ir import Ordering
from argc.tasks import generate
from argc.train import metrics, sample
from argc.train.metrics import Prompt, pass_at_k

PNG = b"\x89PNG\r\n\x1a\n"
K = 4


def exact_pass_at_k(n: int, c: int, k: int) -> float:
    """The share of the k-subsets of n samples (the first c correct) holding a correct one."""
    subsets = list(combinations(range(n), k))
    return sum(any(i < c for i in subset) for subset in subsets) / len(subsets)


def test_pass_at_k_equals_exact_combinatorics():
    for n in range(1, 11):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(exact_pass_at_k(n, c, k), abs=1e-12)


def test_pass_at_k_edge_cases():
    assert pass_at_k(128, 0, 1) == 0.0 and pass_at_k(128, 0, 128) == 0.0
    assert pass_at_k(128, 128, 1) == 1.0 and pass_at_k(5, 5, 3) == 1.0
    assert pass_at_k(7, 1, 7) == 1.0 and pass_at_k(7, 3, 7) == 1.0  # k = n: any success
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)  # pass@1 = c / n
    assert pass_at_k(200, 1, 100) == pytest.approx(0.5)
    assert 0.0 < pass_at_k(1000, 1, 1) < 1e-2  # stable where the binomials overflow floats
    assert metrics.pass_curve(3, 1) == pytest.approx((1 / 3, 2 / 3, 1.0))
    assert len(metrics.pass_curve(200, 5)) == metrics.MAX_K
    for n, c, k in ((3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)):
        with pytest.raises(ValueError):
            pass_at_k(n, c, k)


def prompt(checkpoint: str, identifier: str, n: int, c: int, task="status_query", level=1):
    return Prompt(checkpoint, identifier, task, level, "last-link", "elitist", n, c)


def test_sg_and_cg_on_hand_made_numbers():
    pre = [prompt("pre", "a", 4, 0), prompt("pre", "b", 4, 2), prompt("pre", "x", 4, 4)]
    post = [prompt("rl", "a", 4, 2), prompt("rl", "b", 4, 4)]
    (gain,) = metrics.gains(post, pre, "cells", 4).values()
    # pass@1: pre (0 + 1/2) / 2, post (1/2 + 1) / 2; pass@4: pre (0 + 1) / 2, post 1.
    # Instance x, sampled by the baseline only, is left out.
    assert gain.prompts == 2 and gain.k == 4
    assert (gain.base_pass1, gain.pass1, gain.sg) == pytest.approx((0.25, 0.75, 0.5))
    assert (gain.base_passk, gain.passk, gain.cg) == pytest.approx((0.5, 1.0, 0.5))
    # The paper's worked example (Appendix A.4): 0.58 vs 0.42 and 0.79 vs 0.64.
    example = metrics.Gain((), 1, 128, 0.58, 0.42, 0.79, 0.64)
    assert (example.sg, example.cg) == pytest.approx((0.16, 0.15))
    with pytest.raises(metrics.ArgcError):
        metrics.gains(post, pre, "cells", 8)


def test_group_pass_at_k_is_the_mean_over_instances():
    prompts = [prompt("m", "a", 4, 1), prompt("m", "b", 8, 8), prompt("m", "c", 4, 0, level=2)]
    groups = metrics.summarise(prompts, "task-levels")
    first = groups["status_query", 1]
    assert first.prompts == 2 and first.samples == 12 and first.min_samples == 4
    assert first.curve == pytest.approx([(pass_at_k(4, 1, k) + 1) / 2 for k in range(1, 5)])
    assert groups["status_query", 2].curve == (0.0,) * 4
    (overall,) = metrics.summarise(prompts, "overall").values()
    assert overall.curve[0] == pytest.approx((0.25 + 1 + 0) / 3)


def test_pearson_and_task_pair_correlations():
    assert metrics.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert metrics.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert metrics.pearson([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert metrics.pearson([0.1, 0.1, 0.1], [1, 2, 3]) is None  # constant
    assert metrics.pearson([1.0], [2.0]) is None

    def gain(value: float) -> metrics.Gain:
        return metrics.Gain((), 1, 1, value, 0.0, 0.0, 0.0)

    table = {
        "r1": {("t1", 1): gain(0.1), ("t1", 2): gain(0.3), ("t2", 1): gain(0.2)},
        "r2": {("t1", 1): gain(0.0), ("t2", 1): gain(0.0), ("t2", 2): gain(0.5)},
    }
    table["r1"][("t2", 2)] = gain(0.6)
    (row,) = metrics.correlations(table, "sg")
    # Observations valid for both: (r1, 1), (r1, 2), (r2, 1); t1 = .1 .3 0, t2 = .2 .6 0.
    assert (row["task_a"], row["task_b"], row["observations"]) == ("t1", "t2", 3)
    assert row["r"] == pytest.approx(metrics.pearson([0.1, 0.3, 0.0], [0.2, 0.6, 0.0]))


# argc sample against a fake endpoint


@pytest.fixture(scope="module")
def instances():
    """Six cheap instances: two tasks, three cells."""
    return [
        generate(task, level, Ordering(principle, "elitist"), 7)
        for task in ("status_query", "attack")
        for level, principle in ((1, "last-link"), (2, "last-link"), (1, "weakest-link"))
    ]


@pytest.fixture
def instance_file(instances, tmp_path: Path) -> Path:
    return write_instances(instances, tmp_path)


class Policy:
    """Answers the reference to the first `right[prompt]` requests of each prompt and garbage
    after (so an instance's successes do not depend on the order of the requests)."""

    def __init__(self, instances, right: dict[str, int]):
        self.references = {i.prompt: f"<answer>\n{i.reference}\n</answer>" for i in instances}
        self.right = {i.prompt: right[i.id] for i in instances}
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, prompt: str) -> tuple[str, str]:
        with self.lock:
            self.seen[prompt] += 1
            number = self.seen[prompt]
        if number <= self.right[prompt]:
            return self.references[prompt], "stop"
        return "I am not sure.", "stop"


class MultiChoiceServer(ChatServer):
    """A chat server that honours `n`: the policy answers each choice."""

    def _reply(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any, dict]:
        status, reply, extra = super()._reply(body, headers)
        if status == 200:
            for index in range(1, body.get("n", 1)):
                content, finish = self.policy(body["messages"][-1]["content"])
                choice = {"index": index, "message": {"role": "assistant", "content": content}}
                reply["choices"].append({**choice, "finish_reason": finish})
        return status, reply, extra


def run_command(adder, runner, *argv: object) -> int:
    parser = argparse.ArgumentParser()
    adder(parser)
    return runner(parser.parse_args([str(arg) for arg in argv]))


def run_sample(*argv: object) -> int:
    return run_command(sample.add_arguments, sample.run, *argv)


def run_metrics(*argv: object) -> int:
    return run_command(sample.add_metrics_arguments, sample.run_metrics, *argv)


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def successes(path: Path) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for record in records(path):
        counts[record["id"]] += record["success"]
    return dict(counts)


def test_sample_then_metrics(instances, instance_file, tmp_path):
    right = {instance.id: number % (K + 1) for number, instance in enumerate(instances)}
    base_right = {instance.id: max(right[instance.id] - 1, 0) for instance in instances}
    out, base = tmp_path / "rl.jsonl", tmp_path / "base.jsonl"
    with ChatServer(Policy(instances, right)) as server:
        options = ("--model", "m", "--label", "rl", "--concurrency", 3, "--temperature", 0.7)
        assert (
            run_sample(instance_file, "--k", K, "--out", out, "--base-url", server.url, *options)
            == 0
        )
        assert len(server.bodies) == K * len(instances)
        assert {body["temperature"] for body in server.bodies} == {0.7}
        assert all("n" not in body for body in server.bodies)
    rows = records(out)
    assert len(rows) == K * len(instances)
    assert Counter((row["id"], row["sample"]) for row in rows) == Counter(
        {(i.id, s): 1 for i in instances for s in range(K)}
    )
    keys = {
        "id",
        "task",
        "level",
        "ordering",
        "set",
        "sample",
        "request",
        "response",
        "finish_reason",
        "native",
        "success",
        "checkpoint",
    }
    assert all(set(row) == keys and row["checkpoint"] == "rl" for row in rows)
    request = {"backend": "endpoint", "system": None, "max_tokens": 65536, "temperature": 0.7}
    assert all(row["request"] == request for row in rows)
    assert all(body["max_tokens"] == 65536 for body in server.bodies)
    assert all(row["native"] == 1.0 for row in rows if row["success"])
    assert successes(out) == right
    with MultiChoiceServer(Policy(instances, base_right)) as server:
        options = ("--model", "base", "--n-per-request", 3)
        assert (
            run_sample(instance_file, "--k", K, "--out", base, "--base-url", server.url, *options)
            == 0
        )
        sizes = Counter(body.get("n", 1) for body in server.bodies)
        assert sizes == {3: len(instances), 1: len(instances)}
    assert successes(base) == base_right
    assert {row["checkpoint"] for row in records(base)} == {"base"}

    report = tmp_path / "report"
    assert run_metrics(out, "--baseline", base, "--out", report) == 0
    data = json.loads((report / "metrics.json").read_text())
    assert data["ceiling_k"] == K and data["checkpoints"] == ["rl"] and data["baseline"] == "base"
    for row in data["pass_at_k"]["cells"]:
        ids = [
            i.id
            for i in instances
            if (i.task, i.level, i.ordering) == (row["task"], row["level"], row["ordering"])
        ]
        table = right if row["checkpoint"] == "rl" else base_right
        expected = [sum(pass_at_k(K, table[i], k) for i in ids) / len(ids) for k in range(1, 5)]
        assert row["pass_at_k"] == pytest.approx(expected, abs=1e-6)
    (overall,) = data["gains"]["overall"]
    assert overall["sg"] == pytest.approx(
        (sum(right.values()) - sum(base_right.values())) / (K * len(instances)), abs=1e-6
    )
    assert overall["cg"] == pytest.approx(
        sum((right[i.id] > 0) - (base_right[i.id] > 0) for i in instances) / len(instances),
        abs=1e-6,
    )
    assert {row["over"] for row in data["correlations"]} == {"cells", "task-levels"}
    figures = sorted(report.glob("*.png"))
    assert report / "heatmap-task-level-cg-rl.png" in figures
    assert report / "heatmap-level-ordering-pass1-base.png" in figures
    assert all(path.read_bytes().startswith(PNG) for path in figures)
    table = (report / "metrics.md").read_text()
    assert "| rl | attack | 1 | last-link | elitist |" in table and "CG" in table
    header = (report / "passk-cells.csv").read_text().splitlines()[0]
    assert header.startswith("checkpoint,task,level,ordering,set,prompts")
    first = {path.name: path.read_bytes() for path in report.iterdir()}
    again = tmp_path / "again"
    assert run_metrics(out, "--baseline", base, "--out", again) == 0
    assert {path.name: path.read_bytes() for path in again.iterdir()} == first


def test_resume_draws_only_missing_samples(instances, instance_file, tmp_path):
    right = dict.fromkeys((instance.id for instance in instances), 1)
    out = tmp_path / "samples.jsonl"
    with ChatServer(Policy(instances, right)) as server:
        common = ("--out", out, "--base-url", server.url, "--model", "m")
        assert run_sample(instance_file, "--k", 2, "--limit", 2, *common) == 0
        assert len(records(out)) == 4
        assert run_sample(instance_file, "--k", 2, "--limit", 2, *common) == 0
        assert len(server.bodies) == 4  # nothing left to draw
        with out.open("a") as sink:
            sink.write('{"id": "torn')
        assert run_sample(instance_file, "--k", K, *common) == 0
        assert len(server.bodies) == K * len(instances)
    rows = records(out)
    pairs = Counter((row["id"], row["sample"]) for row in rows)
    assert set(pairs.values()) == {1} and len(pairs) == K * len(instances)
    assert all(row["checkpoint"] == "m" for row in rows)
    with ChatServer(Policy(instances, right)) as server:
        other = ("--out", out, "--base-url", server.url, "--model", "other")
        assert run_sample(instance_file, "--k", K, *other) == 2  # another checkpoint's file


def test_failed_requests_are_not_recorded_and_are_redrawn(instances, instance_file, tmp_path):
    right = dict.fromkeys((instance.id for instance in instances), 0)
    out = tmp_path / "samples.jsonl"
    common = ("--k", 2, "--limit", 1, "--out", out, "--model", "m", "--retries", 0)
    with ChatServer(Policy(instances, right), status=400) as server:
        assert run_sample(instance_file, *common, "--base-url", server.url) == 1
    assert not out.exists() or out.read_text() == ""
    with ChatServer(Policy(instances, right), fail_first=1) as server:
        assert run_sample(instance_file, *common, "--base-url", server.url) == 1
        assert len(records(out)) == 1
        assert run_sample(instance_file, *common, "--base-url", server.url) == 0
    assert sorted(row["sample"] for row in records(out)) == [0, 1]


def test_bad_options_and_inputs(instance_file, tmp_path, capsys):
    out = tmp_path / "samples.jsonl"
    for option, value in (("--k", 0), ("--temperature", -1), ("--n-per-request", "2.5")):
        with pytest.raises(SystemExit) as exit_code:
            run_sample(instance_file, "--k", 2, option, value, "--out", out, "--base-url", "x")
        assert exit_code.value.code == 2
    assert run_sample(instance_file, "--k", 2, "--out", out, "--base-url", "http://x/v1") == 2
    assert "--model" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run_metrics(empty, "--out", tmp_path / "report") == 2
    assert "no samples" in capsys.readouterr().err


def test_other_settings_and_unknown_tasks_are_refused_before_any_request(
    instances, instance_file, tmp_path, capsys
):
    right = dict.fromkeys((instance.id for instance in instances), 1)
    out = tmp_path / "samples.jsonl"
    with ChatServer(Policy(instances, right)) as server:
        common = ("--k", 1, "--limit", 1, "--out", out, "--base-url", server.url, "--model", "m")
        assert run_sample(instance_file, *common) == 0
        capsys.readouterr()
        assert run_sample(instance_file, *common, "--top-p", 0.5, "--k", 2) == 2
        assert "top_p None (now 0.5)" in capsys.readouterr().err
        rows = [json.loads(line) for line in instance_file.read_text().splitlines()]
        rows[0]["task"] = "made_up"
        instance_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
        assert run_sample(instance_file, *common, "--k", 2) == 2
        assert "unknown task(s) made_up" in capsys.readouterr().err
        assert len(server.bodies) == 1
    assert len(records(out)) == 1


def test_ceiling_falls_back_to_the_fewest_samples():
    prompts = [prompt("rl", "a", 3, 1), prompt("rl", "b", 5, 0)]
    report = metrics.build_report(prompts, [prompt("pre", "a", 4, 0), prompt("pre", "b", 4, 0)])
    assert report["ceiling_k"] == 3
    (row,) = report["gains"]["overall"]
    assert row["cg"] == pytest.approx(0.5) and row["k"] == 3
    assert math.isclose(row["sg"], (1 / 3) / 2, abs_tol=1e-6)


def test_local_backend_draws_k_samples(instances, instance_file, tmp_path):
    prompts = [instance.prompt for instance in instances]
    folder = tiny_model(tmp_path / "tiny", prompts, vocab_size=300, layers=1)
    out = tmp_path / "samples.jsonl"
    options = ("--local", folder, "--limit", 2, "--batch-size", 3, "--max-tokens", 6)
    assert run_sample(instance_file, "--k", 3, "--out", out, *options) == 0
    rows = records(out)
    assert sorted((row["id"], row["sample"]) for row in rows) == sorted(
        (instance.id, s) for instance in instances[:2] for s in range(3)
    )
    assert {row["checkpoint"] for row in rows} == {"tiny"}
    assert all(row["finish_reason"] in {"stop", "length"} for row in rows)
    assert run_sample(instance_file, "--k", 3, "--out", out, *options) == 0
    assert len(records(out)) == 6
