"""The KG evaluation metrics of `argc.train.metrics` on hand-computable numbers: strict pass@k
and SG/CG per (task, depth, complexity) cell against exact binomials, the recipes' mean ranks
with ties, the in/out-of-recipe split, the pooled task-pair Pearson against numpy, and
`argc sample-metrics` on KG sample files (grids, heatmaps, recipe cells, bad input)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy
import pytest

from argc.train import metrics, sample
from argc.train.metrics import Gain, Prompt

PNG = b"\x89PNG\r\n\x1a\n"
DED, ABD = "kg_deductive", "kg_abductive"


def kg(checkpoint: str, identifier: str, n: int, c: int, depth: int, complexity: int, task=DED):
    return Prompt(checkpoint, identifier, task, None, None, None, n, c, depth, complexity)


def binomial_pass(n: int, c: int, k: int) -> float:
    """pass@k from the binomials themselves: 1 - C(n - c, k) / C(n, k)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def cg_table(values: dict[str, dict[tuple, float]]) -> dict[str, dict[tuple, Gain]]:
    """Gains keyed (task, depth, complexity) whose CG is the given value."""
    return {
        recipe: {key: Gain(key, 1, 128, 0.0, 0.0, cg, 0.0) for key, cg in cells.items()}
        for recipe, cells in values.items()
    }


def test_pass_at_k_and_gains_per_kg_cell_and_family():
    post = [kg("rl", "a", 128, 3, 2, 1), kg("rl", "b", 128, 0, 2, 1), kg("rl", "c", 128, 64, 5, 6)]
    pre = [kg("pre", "a", 128, 1, 2, 1), kg("pre", "b", 128, 0, 2, 1), kg("pre", "c", 128, 0, 5, 6)]
    report = metrics.build_report(post, pre)
    assert set(report["pass_at_k"]) == {"kg-cells", "tasks", "overall"}
    rows = {
        (r["checkpoint"], r["depth"], r["complexity"]): r for r in report["pass_at_k"]["kg-cells"]
    }
    first = rows["rl", 2, 1]["pass_at_k"]
    assert len(first) == 128
    for k in (1, 2, 7, 64, 128):
        expected = (binomial_pass(128, 3, k) + binomial_pass(128, 0, k)) / 2
        assert first[k - 1] == pytest.approx(expected, abs=1e-6)
    (family,) = [r for r in report["pass_at_k"]["tasks"] if r["checkpoint"] == "rl"]
    assert family["task"] == DED and family["prompts"] == 3
    assert family["pass_at_k"][9] == pytest.approx(
        sum(binomial_pass(128, c, 10) for c in (3, 0, 64)) / 3, abs=1e-6
    )
    gains = {(r["depth"], r["complexity"]): r for r in report["gains"]["kg-cells"]}
    assert gains[2, 1]["k"] == 128
    assert gains[2, 1]["sg"] == pytest.approx((3 / 128 - 1 / 128) / 2, abs=1e-6)
    assert gains[2, 1]["cg"] == pytest.approx(0.0, abs=1e-6)  # a ceiling of 1/2 either way
    assert gains[5, 6]["sg"] == pytest.approx(0.5) and gains[5, 6]["cg"] == pytest.approx(1.0)


def test_descending_ranks_share_ties():
    assert metrics.descending_ranks({"a": 3, "b": 5, "c": 5, "d": 1}) == {
        "a": 3,
        "b": 1.5,
        "c": 1.5,
        "d": 4,
    }
    assert metrics.descending_ranks({"a": 0.1, "b": 0.1, "c": 0.1}) == dict.fromkeys("abc", 2.0)
    assert metrics.descending_ranks({"a": 0.3, "b": 0.1 + 0.2}) == {"a": 1.5, "b": 1.5}


#: CG of three recipes on four cells (depth, complexity); (3, 1) only two recipes have.
CG = {
    "r1": {(1, 1): 0.6, (1, 2): 0.0, (2, 1): 0.2, (2, 2): 0.2, (3, 1): 0.9},
    "r2": {(1, 1): 0.3, (1, 2): 0.3, (2, 1): 0.0, (2, 2): 0.0, (3, 1): -0.9},
    "r3": {(1, 1): 0.1, (1, 2): 0.1, (2, 1): 0.5, (2, 2): -0.1},
}


def keyed(task: str, values: dict[tuple, float]) -> dict[tuple, float]:
    return {(task, *cell): value for cell, value in values.items()}


def test_mean_ranks_on_hand_made_numbers():
    table = cg_table({recipe: keyed(DED, cells) for recipe, cells in CG.items()})
    rows = {row["checkpoint"]: row for row in metrics.mean_ranks(table)}
    # D1: means .3 .3 .1 -> 1.5 1.5 3; D2: .2 0 .2 -> 1.5 3 1.5 (cell (3, 1) is not in Ω).
    # T1: .4 .15 .3 -> 1 3 2; T2: .1 .15 0 -> 2 1 3.
    assert {name: row["depth_rank"] for name, row in rows.items()} == {
        "r1": 1.5,
        "r2": 2.25,
        "r3": 2.25,
    }
    assert {name: row["complexity_rank"] for name, row in rows.items()} == {
        "r1": 1.5,
        "r2": 2.0,
        "r3": 2.5,
    }
    assert rows["r1"]["cells"] == 4 and rows["r1"]["depths"] == 2
    assert rows["r1"]["complexities"] == 2 and rows["r1"]["task"] == DED


def test_in_and_out_of_recipe_cg():
    table = cg_table({recipe: keyed(DED, cells) for recipe, cells in CG.items()})
    trained = {"r1": [[1, 1], [1, 2]], "r2": {(2, 1), (9, 6)}, "other": [(1, 1)]}
    rows = {row["checkpoint"]: row for row in metrics.recipe_split(table, trained)}
    assert set(rows) == {"r1", "r2", None}  # r3 has no training cells
    assert (rows["r1"]["in_cells"], rows["r1"]["out_cells"]) == (2, 3)
    assert rows["r1"]["in_cg"] == pytest.approx(0.3)
    assert rows["r1"]["out_cg"] == pytest.approx((0.2 + 0.2 + 0.9) / 3)
    assert (rows["r2"]["in_cells"], rows["r2"]["in_cg"]) == (1, 0.0)  # (9, 6) not evaluated
    assert rows["r2"]["out_cg"] == pytest.approx((0.3 + 0.3 + 0.0 - 0.9) / 4)
    pooled = rows[None]
    assert (pooled["in_cells"], pooled["out_cells"]) == (3, 7)
    assert pooled["in_cg"] == pytest.approx(0.6 / 3)
    assert pooled["out_cg"] == pytest.approx((1.3 - 0.3) / 7)
    only_out = metrics.recipe_split(table, {"r3": []})
    assert only_out[0]["in_cells"] == 0 and only_out[0]["in_cg"] is None


def test_task_pair_pearson_over_pooled_recipe_cells():
    abductive = {
        "r1": {(1, 1): 0.4, (1, 2): 0.1, (2, 1): 0.3, (2, 2): -0.2},
        "r2": {(1, 1): 0.2, (1, 2): 0.5, (2, 1): 0.1, (3, 1): 0.0},
        "r3": {(1, 1): 0.0, (1, 2): 0.3, (2, 1): 0.2, (2, 2): 0.1},
    }
    table = cg_table(
        {r: {**keyed(DED, CG[r]), **keyed(ABD, abductive[r])} for r in ("r1", "r2", "r3")}
    )

    def pooled(recipes: list[str]) -> tuple[list[float], list[float], int]:
        units = [(r, cell) for r in recipes for cell in sorted(CG[r]) if cell in abductive[r]]
        xs = [abductive[r][cell] for r, cell in units]
        ys = [CG[r][cell] for r, cell in units]
        return xs, ys, len(units)

    for recipes in (None, ["r1", "r3"]):
        (row,) = metrics.correlations(table, "cg", recipes)
        xs, ys, count = pooled(recipes or ["r1", "r2", "r3"])
        assert (row["task_a"], row["task_b"], row["observations"]) == (ABD, DED, count)
        assert row["r"] == pytest.approx(numpy.corrcoef(xs, ys)[0, 1], abs=1e-6)
    assert pooled(["r1", "r2", "r3"])[2] == 12  # (3, 1) of r1, (2, 2) of r2: one task only


def test_mixed_report_keeps_arggym_scopes_and_adds_kg():
    arg = [Prompt("rl", "x", "attack", 1, "last-link", "elitist", 4, 2)]
    base = [Prompt("pre", "x", "attack", 1, "last-link", "elitist", 4, 1)]
    arg += [kg("rl", "k", 4, 4, 3, 2), kg("rl", "m", 4, 0, 3, 2, ABD)]
    base += [kg("pre", "k", 4, 0, 3, 2), kg("pre", "m", 4, 4, 3, 2, ABD)]
    report = metrics.build_report(arg, base, recipe_groups={"one": ["rl"]})
    assert list(report["pass_at_k"]) == list(metrics.SCOPES)
    assert [row["task"] for row in report["pass_at_k"]["cells"] if row["checkpoint"] == "rl"] == [
        "attack"
    ]
    kg_rows = report["gains"]["kg-cells"]
    assert {(r["task"], r["cg"]) for r in kg_rows} == {(DED, 1.0), (ABD, -1.0)}
    assert {(r["over"], r["recipes"]) for r in report["correlations"]} == {
        ("kg-cells", "all"),
        ("kg-cells", "one"),
    }
    assert [(r["task"], r["depth_rank"]) for r in report["mean_ranks"]] == [(ABD, 1), (DED, 1)]
    assert report["recipe_gains"] == []
    with pytest.raises(metrics.ArgcError, match="not sampled: nope"):
        metrics.build_report(arg, base, recipe_groups={"g": ["nope"]})
    with pytest.raises(metrics.ArgcError, match="need a baseline"):
        metrics.build_report(arg, recipe_cells={"rl": [(1, 1)]})
    with pytest.raises(metrics.ArgcError, match="name no checkpoint"):
        metrics.build_report(arg, base, recipe_cells={"other": [(1, 1)]})


# argc sample-metrics on KG sample files

#: Successes out of N samples per (depth, complexity) cell and checkpoint.
N = 4
SUCCESSES = {
    "pre": {(1, 1): 2, (1, 2): 1, (4, 6): 0},
    "r1": {(1, 1): 4, (1, 2): 0, (4, 6): 1},
    "r2": {(1, 1): 1, (1, 2): 3, (4, 6): 2},
}


def write_samples(path: Path, checkpoint: str, extra: dict[str, Any]) -> Path:
    lines = [
        {
            "checkpoint": checkpoint,
            "id": f"{depth}-{complexity}",
            "task": DED,
            "depth": depth,
            "complexity": complexity,
            "sample": index,
            "success": index < right,
            **extra,
        }
        for (depth, complexity), right in SUCCESSES[checkpoint].items()
        for index in range(N)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def run_metrics(*argv: object) -> int:
    parser = argparse.ArgumentParser()
    sample.add_metrics_arguments(parser)
    return sample.run_metrics(parser.parse_args([str(arg) for arg in argv]))


@pytest.fixture
def kg_files(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    pre = write_samples(tmp_path / "pre.jsonl", "pre", {})
    first = write_samples(tmp_path / "r1.jsonl", "r1", {"level": 0, "ordering": "-"})
    second = write_samples(tmp_path / "r2.jsonl", "r2", {"level": None, "set": None})
    cells = tmp_path / "cells.yaml"
    cells.write_text("r1: [[1, 1], [1, 2]]\nr2:\n  - [4, 6]\n")
    return pre, first, second, cells


def test_sample_metrics_on_kg_samples(kg_files, tmp_path):
    pre, first, second, cells = kg_files
    out = tmp_path / "report"
    options = ("--baseline", pre, "--recipe-cells", cells, "--recipe-group", "g=r1,r2")
    assert run_metrics(first, second, *options, "--out", out) == 0
    data = json.loads((out / "metrics.json").read_text())
    cg = {
        (r["checkpoint"], r["depth"], r["complexity"]): r["cg"] for r in data["gains"]["kg-cells"]
    }
    assert cg == {("r1", 1, 1): 0, ("r1", 1, 2): -1, ("r1", 4, 6): 1} | {
        ("r2", 1, 1): 0,
        ("r2", 1, 2): 0,
        ("r2", 4, 6): 1,
    }
    # D1: r1 -0.5, r2 0 -> 2 1; D4: tie -> 1.5 1.5. T1: tie; T2: r2 first; T6: tie.
    ranks = {r["checkpoint"]: (r["depth_rank"], r["complexity_rank"]) for r in data["mean_ranks"]}
    assert ranks["r1"] == pytest.approx((1.75, 5 / 3), abs=1e-6)
    assert ranks["r2"] == pytest.approx((1.25, 4 / 3), abs=1e-6)
    # Pooled: in-recipe units -1, 0 (r1) and 1 (r2); out-of-recipe 1 (r1), 0, 0 (r2).
    split = {r["checkpoint"]: (r["in_cg"], r["out_cg"]) for r in data["recipe_gains"]}
    assert split == {"r1": (-0.5, 1.0), "r2": (1.0, 0.0), None: (0.0, pytest.approx(1 / 3))}
    figures = {path.name for path in out.glob("*.png")}
    assert "heatmap-depth-complexity-cg-r1.png" in figures
    assert "heatmap-depth-complexity-pass4-pre.png" in figures
    assert not any(name.startswith("heatmap-task-level") for name in figures)
    assert all((out / name).read_bytes().startswith(PNG) for name in figures)
    assert {"mean-ranks.csv", "recipe-gains.csv", "passk-kg-cells.csv"} <= {
        path.name for path in out.iterdir()
    }
    text = (out / "metrics.md").read_text()
    grid = text.split("### CG: kg_deductive, r1\n\n")[1].split("\n\n")[0].splitlines()
    assert grid[0] == "| D \\ T | T1 | T2 | T3 | T4 | T5 | T6 |"
    assert [line.split(" | ")[0] for line in grid[2:]] == [f"| D{d}" for d in range(1, 11)]
    assert grid[2] == "| D1 | +0.000 | -1.000 | – | – | – | – |"
    assert grid[5] == "| D4 | – | – | – | – | – | +1.000 |"
    assert "| kg_deductive | all | 3 | +0.000 | 3 | +0.333 |" in text
    assert "| kg_deductive | r1 | 3 | 2 | 3 | 1.75 | 1.67 |" in text


def test_depth_complexity_grid_places_cells():
    grid = metrics.depth_complexity_grid(
        {(DED, 10, 6): 0.5, (DED, 1, 3): 0.25, (ABD, 1, 1): 1}, DED
    )
    assert len(grid) == 10 and {len(row) for row in grid} == {6}
    assert grid[9][5] == 0.5 and grid[0][2] == 0.25
    assert sum(value is not None for row in grid for value in row) == 2


def test_bad_kg_input_is_a_clear_error(kg_files, tmp_path, capsys):
    pre, first, _, cells = kg_files
    out = tmp_path / "report"
    rows = [json.loads(line) for line in first.read_text().splitlines()]
    for field, value, message in (
        ("depth", 11, "depth must be in 1..10, not 11"),
        ("complexity", "2", "complexity must be int"),
    ):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps({**rows[0], field: value}) + "\n")
        assert run_metrics(bad, "--out", out) == 2
        assert message in capsys.readouterr().err
    moved = tmp_path / "moved.jsonl"
    moved.write_text(json.dumps(rows[0]) + "\n" + json.dumps({**rows[1], "depth": 2}) + "\n")
    assert run_metrics(moved, "--out", out) == 2
    assert "recorded in two cells" in capsys.readouterr().err
    for text, message in (
        ("r1: [[1, 7]]\n", "not a [depth, complexity] pair"),
        ("r1: [[1, 1]\n", "not valid YAML or JSON"),
        ("- [1, 1]\n", "expected a mapping"),
        ("1: [[1, 1]]\n", "quote numeric names"),
        ("a: " + "[" * 50_000 + "]" * 50_000, "nested too deeply"),
        ('{"elsewhere": [[1, 1]]}', "name no checkpoint"),
    ):
        cells.write_text(text)
        assert run_metrics(first, "--baseline", pre, "--recipe-cells", cells, "--out", out) == 2
        assert message in capsys.readouterr().err
    assert run_metrics(first, "--baseline", pre, "--recipe-group", "all=r1", "--out", out) == 2
    assert "may not be named all" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run_metrics(first, "--recipe-group", "nameless", "--out", out)
