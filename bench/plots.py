"""The plots of `argc report` (PNG, matplotlib's Agg renderer): per-task success, curriculum
band profiles (both with 95 % Wilson intervals), and a task × level success heatmap per run."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from matplotlib import colormaps
from matplotlib.figure import Figure

from argc.files import write_png
from argc.tasks.framework import LEVELS

#: The height, in percentage points, of the outline that shows a 0 % bar.
ZERO_MARK = 1.0
Cell = dict[str, Any] | None


def write_plots(
    summaries: list[dict[str, Any]],
    labels: list[str],
    tasks: list[str],
    bands: list[str],
    directory: Path,
) -> list[tuple[str, str]]:
    """Write the plots of the runs' summaries (see `argc.bench.report.summarise`) into
    `directory`; `labels` name the `tasks` on the axes. Returns (title, file name) pairs."""
    figures = [
        ("Complete success per task", "tasks.png", task_bars(summaries, labels, tasks)),
        ("Complete success per curriculum band", "bands.png", band_profiles(summaries, bands)),
    ]
    used: set[str] = set()
    for summary in summaries:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", summary["name"]).strip("-.") or "run"
        name, copy = f"heatmap-{stem}.png", 1
        while name in used:
            copy += 1
            name = f"heatmap-{stem}-{copy}.png"
        used.add(name)
        title = f"Complete success per task and level: {summary['name']}"
        figures.append((title, name, _heatmap(summary, labels, tasks, title)))
    for _, name, figure in figures:
        write_png(figure, directory / name)
    return [(title, name) for title, name, _ in figures]


def _success(cell: Cell) -> float:
    return math.nan if cell is None else cell["success"]


def _errors(cells: list[Cell]) -> list[list[float]]:
    """The distances from each cell's rate down and up to its 95 % interval (0 when missing)."""
    below = [0.0 if cell is None else cell["success"] - cell["success_low"] for cell in cells]
    above = [0.0 if cell is None else cell["success_high"] - cell["success"] for cell in cells]
    return [below, above]


def _mark_zeros(axes: Any, xs: list[float], heights: list[float], width: float, colour) -> None:
    """Show each 0 % bar, which has no height: a thin outlined bar and a "0%" label."""
    for x, height in zip(xs, heights, strict=True):
        if height == 0:
            axes.bar(x, ZERO_MARK, width, fill=False, edgecolor=colour)
            axes.text(
                x,
                2 * ZERO_MARK,
                "0%",
                ha="center",
                va="bottom",
                fontsize="x-small",
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
                zorder=3,
            )


def _label_rates(axes: Any, xs: list[float], cells: list[dict[str, Any] | None]) -> None:
    """Write each bar's rate above its interval (0 % bars get theirs from `_mark_zeros`)."""
    for x, cell in zip(xs, cells, strict=True):
        height = _success(cell)
        if height > 0:
            top = cell["success_high"] if cell is not None else height
            axes.text(x, top + 1, f"{height:.0f}%", ha="center", va="bottom", fontsize="xx-small")


def task_bars(summaries: list[dict[str, Any]], labels: list[str], tasks: list[str]) -> Figure:
    """Success per task, one bar per run, with 95 % intervals and the rate written above
    each; 0 % bars are outlined."""
    figure = Figure(figsize=(max(6.0, 0.9 * len(tasks) + 2), 4.5), layout="constrained")
    axes = figure.add_subplot()
    width = 0.8 / len(summaries)
    for index, summary in enumerate(summaries):
        offset = (index - (len(summaries) - 1) / 2) * width
        xs = [x + offset for x in range(len(tasks))]
        cells = [summary["tasks"].get(task) for task in tasks]
        heights = [_success(cell) for cell in cells]
        bars = axes.bar(
            xs,
            heights,
            width,
            yerr=_errors(cells),
            capsize=2,
            error_kw={"elinewidth": 0.8, "ecolor": "0.25"},
            label=summary["name"],
        )
        _mark_zeros(axes, xs, heights, width, bars.patches[0].get_facecolor())
        _label_rates(axes, xs, cells)
    axes.set_xticks(range(len(tasks)), labels, rotation=45, ha="right")
    axes.set_ylim(0, 108)  # room for the label of a 100 % bar
    axes.set_yticks(range(0, 101, 20))
    axes.set_ylabel("complete success (%)")
    axes.set_title("Complete success per task")
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))
    return figure


def band_profiles(summaries: list[dict[str, Any]], bands: list[str]) -> Figure:
    """Success per curriculum band, one line per run, with 95 % intervals (the runs shifted a
    little sideways so that equal values do not hide each other)."""
    figure = Figure(figsize=(6, 4), layout="constrained")
    axes = figure.add_subplot()
    for index, summary in enumerate(summaries):
        cells = [summary["bands"].get(band) for band in bands]
        values = [_success(cell) for cell in cells]
        shift = (index - (len(summaries) - 1) / 2) * 0.04
        axes.errorbar(
            [position + shift for position in range(len(bands))],
            values,
            yerr=_errors(cells),
            marker="o",
            capsize=3,
            clip_on=False,
            label=summary["name"],
        )
    axes.set_xticks(range(len(bands)), bands)
    axes.set_ylim(0, 100)
    axes.set_xlabel("curriculum band")
    axes.set_ylabel("complete success (%)")
    axes.set_title("Complete success per curriculum band")
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))
    return figure


def _heatmap(summary: dict[str, Any], labels: list[str], tasks: list[str], title: str) -> Figure:
    figure = Figure(figsize=(9, 1.5 + 0.4 * len(tasks)), layout="constrained")
    axes = figure.add_subplot()
    levels = summary["levels"]
    grid = [[_success(levels.get(task, {}).get(str(level))) for level in LEVELS] for task in tasks]
    colours = colormaps["viridis"].with_extremes(bad="lightgrey")
    image = axes.imshow(grid, vmin=0, vmax=100, cmap=colours, aspect="auto")
    for row, values in enumerate(grid):
        for column, value in enumerate(values):
            if not math.isnan(value):
                colour = "white" if value < 50 else "black"
                axes.text(
                    column, row, f"{value:.0f}", ha="center", va="center", fontsize=7, color=colour
                )
    axes.set_xticks(range(len(LEVELS)), [f"L{level}" for level in LEVELS])
    axes.set_yticks(range(len(tasks)), labels)
    axes.set_title(title, fontsize="medium")
    figure.colorbar(image, ax=axes, label="complete success (%)")
    return figure
