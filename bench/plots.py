"""The plots of `argc report` (PNG, matplotlib's Agg renderer): per-task success, curriculum
band profiles, and a task × level success heatmap per run."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from argc.files import write_output
from argc.tasks.framework import LEVELS


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
        ("Complete success per task", "tasks.png", _task_bars(summaries, labels, tasks)),
        ("Complete success per curriculum band", "bands.png", _band_profiles(summaries, bands)),
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
        _save(figure, directory / name)
    return [(title, name) for title, name, _ in figures]


def _save(figure: Figure, path: Path) -> None:
    FigureCanvasAgg(figure)
    image = io.BytesIO()
    figure.savefig(image, format="png", dpi=100, metadata={"Software": None})
    write_output(path, image.getvalue())


def _success(cell: dict[str, Any] | None) -> float:
    return math.nan if cell is None else cell["success"]


def _task_bars(summaries: list[dict[str, Any]], labels: list[str], tasks: list[str]) -> Figure:
    figure = Figure(figsize=(max(6.0, 0.9 * len(tasks) + 2), 4.5), layout="constrained")
    axes = figure.add_subplot()
    width = 0.8 / len(summaries)
    for index, summary in enumerate(summaries):
        offset = (index - (len(summaries) - 1) / 2) * width
        heights = [_success(summary["tasks"].get(task)) for task in tasks]
        axes.bar([x + offset for x in range(len(tasks))], heights, width, label=summary["name"])
    axes.set_xticks(range(len(tasks)), labels, rotation=45, ha="right")
    axes.set_ylim(0, 100)
    axes.set_ylabel("complete success (%)")
    axes.set_title("Complete success per task")
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1, 1))
    return figure


def _band_profiles(summaries: list[dict[str, Any]], bands: list[str]) -> Figure:
    figure = Figure(figsize=(6, 4), layout="constrained")
    axes = figure.add_subplot()
    for summary in summaries:
        values = [_success(summary["bands"].get(band)) for band in bands]
        axes.plot(bands, values, marker="o", label=summary["name"])
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
