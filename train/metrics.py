"""Strict pass@k, single-sample gain (SG) and ceiling gain (CG) over scored samples (the records
of `argc sample`), per cell, per task and level, and per task; heatmaps of them and task-pair
Pearson correlations of the gains. The definitions follow the RLVR depth-complexity paper:
strict correctness and pass@k in §2.3 ("Strict Correctness"), SG, CG, local cell CG and the
task-pair correlation in Appendix A.4 ("Strict pass@k, SG, and CG", "Local Cell CG",
"Task-Pair Pearson Correlation"). matplotlib is imported only when figures are drawn."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from operator import itemgetter
from pathlib import Path
from typing import Any

from argc.bench.evaluate import read_run
from argc.dsl.errors import ArgcError, InputError
from argc.dsl.ir import ORDERINGS
from argc.files import write_output, write_png
from argc.tasks.framework import LEVELS

#: The largest k reported (the paper reports k = 1..128, §2.3).
MAX_K = 128
#: The k of the sampled ceiling: CG = pass@128(post) - pass@128(pre) (Appendix A.4).
CEILING_K = 128
#: The groupings of prompts: the fields of a group's key. A cell is (task, level, ordering,
#: set), the analogue of the paper's (D, T) cell of one task family.
SCOPES: dict[str, tuple[str, ...]] = {
    "cells": ("task", "level", "ordering", "set"),
    "task-levels": ("task", "level"),
    "tasks": ("task",),
    "overall": (),
}
#: The granularities of the task-pair correlations: an observation is (checkpoint, *rest of
#: the key), as the paper pools recipe-cell observations u = (r, d, t) (Appendix A.4).
CORRELATION_SCOPES = ("cells", "task-levels")
GAINS = ("sg", "cg")
DECIMALS = 6
#: The fields a sample record must carry, with their types.
SAMPLE_FIELDS: dict[str, type] = {
    "checkpoint": str,
    "id": str,
    "task": str,
    "level": int,
    "ordering": str,
    "set": str,
    "sample": int,
    "success": bool,
}
ORDER_LABELS = [(o.principle, o.set_comparison) for o in ORDERINGS]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator of Chen et al. (2021) for one prompt with n samples of
    which c are correct: 1 - C(n-c, k) / C(n, k), computed stably as
    1 - prod_{i=n-c+1}^{n} (1 - k / i)."""
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, not n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


@lru_cache(maxsize=4096)
def pass_curve(n: int, c: int, max_k: int = MAX_K) -> tuple[float, ...]:
    """pass@k for k = 1..min(n, max_k) of one prompt."""
    return tuple(pass_at_k(n, c, k) for k in range(1, min(n, max_k) + 1))


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r as in Appendix A.4 (N_ab / (Z_a Z_b)); None when fewer than two
    observations or either vector is constant (r undefined)."""
    if len(xs) != len(ys):
        raise ValueError("pearson needs vectors of equal length")
    if len(xs) < 2 or min(xs) == max(xs) or min(ys) == max(ys):
        return None
    mean_x, mean_y = math.fsum(xs) / len(xs), math.fsum(ys) / len(ys)
    dx = [x - mean_x for x in xs]
    dy = [y - mean_y for y in ys]
    z = math.sqrt(math.fsum(d * d for d in dx)) * math.sqrt(math.fsum(d * d for d in dy))
    if z == 0.0:
        return None
    return max(-1.0, min(1.0, math.fsum(a * b for a, b in zip(dx, dy, strict=True)) / z))


@dataclass(frozen=True)
class Prompt:
    """The samples of one instance by one checkpoint: n samples, c of them strictly correct
    (complete success)."""

    checkpoint: str
    id: str
    task: str
    level: int
    ordering: str
    set: str
    n: int
    c: int

    def key(self, scope: str) -> tuple:
        return tuple(getattr(self, name) for name in SCOPES[scope])

    @property
    def instance(self) -> tuple:
        """The instance, whoever sampled it."""
        return (*self.key("cells"), self.id)


@dataclass(frozen=True)
class Group:
    """Strict pass@k of a group of prompts: the mean over its prompts of their pass@k (the
    paper's p^(k)(S) for an evaluation subset S), for k = 1..min(n of its prompts, MAX_K)."""

    key: tuple
    prompts: int
    samples: int
    successes: int
    min_samples: int
    curve: tuple[float, ...]


@dataclass(frozen=True)
class Gain:
    """SG and CG of a checkpoint against the baseline on one group (Appendix A.4), over the
    prompts sampled by both."""

    key: tuple
    prompts: int
    k: int
    pass1: float
    base_pass1: float
    passk: float
    base_passk: float

    @property
    def sg(self) -> float:
        return self.pass1 - self.base_pass1

    @property
    def cg(self) -> float:
        return self.passk - self.base_passk


# Reading samples


def read_samples(path: Path) -> list[Prompt]:
    """The prompts of a samples file (a torn last line is ignored; a repeated (checkpoint,
    id, sample) counts once; every record of an instance must agree on its cell)."""
    records, _ = read_run(path)
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    samples: dict[tuple[str, str], dict[int, bool]] = defaultdict(dict)
    for number, record in enumerate(records, start=1):
        problem = _problem(record)
        key = (record.get("checkpoint"), record.get("id"))
        if problem is None and key in seen:
            first = seen[key]
            if any(first[name] != record[name] for name in ("task", "level", "ordering", "set")):
                problem = f"instance {key[1]} is recorded in two cells"
        if problem is not None:
            raise InputError(f"record {number}: {problem}", filename=str(path))
        seen.setdefault(key, record)
        samples[key].setdefault(record["sample"], record["success"])
    return [
        Prompt(
            checkpoint=checkpoint,
            id=identifier,
            task=seen[checkpoint, identifier]["task"],
            level=seen[checkpoint, identifier]["level"],
            ordering=seen[checkpoint, identifier]["ordering"],
            set=seen[checkpoint, identifier]["set"],
            n=len(outcomes),
            c=sum(outcomes.values()),
        )
        for (checkpoint, identifier), outcomes in sorted(samples.items())
    ]


def _problem(record: dict[str, Any]) -> str | None:
    for name, kind in SAMPLE_FIELDS.items():
        value = record.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"{name} must be {kind.__name__}, not {value!r:.40}"
    if record["sample"] < 0:
        return f"sample must be >= 0, not {record['sample']}"
    return None


# Measures


def summarise(prompts: Iterable[Prompt], scope: str, max_k: int = MAX_K) -> dict[tuple, Group]:
    """pass@k per group of one checkpoint's prompts, keyed by the scope's fields."""
    grouped: dict[tuple, list[Prompt]] = defaultdict(list)
    for prompt in prompts:
        grouped[prompt.key(scope)].append(prompt)
    groups = {}
    for key, members in sorted(grouped.items()):
        width = min(min(p.n for p in members), max_k)
        curves = [pass_curve(p.n, p.c, max_k) for p in members]
        groups[key] = Group(
            key=key,
            prompts=len(members),
            samples=sum(p.n for p in members),
            successes=sum(p.c for p in members),
            min_samples=min(p.n for p in members),
            curve=tuple(math.fsum(c[k] for c in curves) / len(members) for k in range(width)),
        )
    return groups


def gains(
    prompts: Sequence[Prompt], baseline: Sequence[Prompt], scope: str, k: int
) -> dict[tuple, Gain]:
    """SG = pass@1 - pass@1(baseline) and CG = pass@k - pass@k(baseline) per group, over the
    instances both sampled (k = 128 in the paper; every prompt needs at least k samples)."""
    common = {p.instance for p in prompts} & {p.instance for p in baseline}
    post = summarise([p for p in prompts if p.instance in common], scope, k)
    pre = summarise([p for p in baseline if p.instance in common], scope, k)
    result = {}
    for key, group in post.items():
        base = pre[key]
        if len(group.curve) < k or len(base.curve) < k:
            raise ArgcError(f"CG at k={k} needs {k} samples of every instance")
        result[key] = Gain(
            key,
            group.prompts,
            k,
            group.curve[0],
            base.curve[0],
            group.curve[k - 1],
            base.curve[k - 1],
        )
    return result


def correlations(by_checkpoint: dict[str, dict[tuple, Gain]], metric: str) -> list[dict[str, Any]]:
    """Pearson's r of a gain between every pair of tasks, pooled over the observations
    (checkpoint, rest of the group key) valid for both tasks (Appendix A.4)."""
    values: dict[str, dict[tuple, float]] = defaultdict(dict)
    for checkpoint, table in by_checkpoint.items():
        for key, gain in table.items():
            values[key[0]][(checkpoint, *key[1:])] = getattr(gain, metric)
    rows = []
    for first, second in combinations(sorted(values), 2):
        shared = sorted(set(values[first]) & set(values[second]))
        r = pearson([values[first][u] for u in shared], [values[second][u] for u in shared])
        rows.append(
            {"task_a": first, "task_b": second, "observations": len(shared), "r": _round(r)}
        )
    return rows


# The report


def ceiling(prompts: Iterable[Prompt], requested: int = CEILING_K) -> int:
    """The k of the ceiling: `requested`, or fewer when some instance has fewer samples."""
    return min([requested, *(p.n for p in prompts)])


def build_report(
    prompts: Sequence[Prompt],
    baseline: Sequence[Prompt] | None = None,
    *,
    max_k: int = MAX_K,
    ceiling_k: int = CEILING_K,
) -> dict[str, Any]:
    """Everything the report shows, as JSON values: pass@k per scope and checkpoint, and with
    a baseline SG/CG per scope and their task-pair correlations."""
    if not prompts:
        raise ArgcError("no samples")
    checkpoints = sorted({p.checkpoint for p in prompts})
    base_names = sorted({p.checkpoint for p in baseline or []})
    if baseline is not None and len(base_names) != 1:
        raise ArgcError(f"the baseline must hold one checkpoint, not {base_names or 'none'}")
    if set(base_names) & set(checkpoints):
        raise ArgcError(f"the baseline's checkpoint {base_names[0]} is among the samples")
    everything = [*prompts, *(baseline or [])]
    k = ceiling(everything, min(ceiling_k, max_k))
    by_checkpoint = {
        name: [p for p in everything if p.checkpoint == name]
        for name in [*checkpoints, *base_names]
    }
    report: dict[str, Any] = {
        "checkpoints": checkpoints,
        "baseline": base_names[0] if base_names else None,
        "max_k": max_k,
        "ceiling_k": k,
        "correct": "complete success only (strict correctness)",
        "pass_at_k": {
            scope: [
                _group_row(name, fields, group)
                for name, members in by_checkpoint.items()
                for group in summarise(members, scope, max_k).values()
            ]
            for scope, fields in SCOPES.items()
        },
        "gains": {},
        "correlations": [],
    }
    if baseline is None:
        return report
    tables = {
        scope: {name: gains(by_checkpoint[name], baseline, scope, k) for name in checkpoints}
        for scope in SCOPES
    }
    report["gains"] = {
        scope: [
            _gain_row(name, base_names[0], SCOPES[scope], gain)
            for name in checkpoints
            for gain in tables[scope][name].values()
        ]
        for scope in SCOPES
    }
    report["correlations"] = [
        {"metric": metric, "over": scope, **row}
        for metric in GAINS
        for scope in CORRELATION_SCOPES
        for row in correlations(tables[scope], metric)
    ]
    return report


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS) + 0.0


def _group_row(checkpoint: str, fields: tuple[str, ...], group: Group) -> dict[str, Any]:
    return {
        "checkpoint": checkpoint,
        **dict(zip(fields, group.key, strict=True)),
        "prompts": group.prompts,
        "samples": group.samples,
        "successes": group.successes,
        "min_samples": group.min_samples,
        "pass_at_k": [_round(value) for value in group.curve],
    }


def _gain_row(checkpoint: str, base: str, fields: tuple[str, ...], gain: Gain) -> dict[str, Any]:
    return {
        "checkpoint": checkpoint,
        "baseline": base,
        **dict(zip(fields, gain.key, strict=True)),
        "prompts": gain.prompts,
        "k": gain.k,
        "pass1": _round(gain.pass1),
        "base_pass1": _round(gain.base_pass1),
        "sg": _round(gain.sg),
        "passk": _round(gain.passk),
        "base_passk": _round(gain.base_passk),
        "cg": _round(gain.cg),
    }


# Writing


def write_report(report: dict[str, Any], directory: Path) -> list[str]:
    """Write metrics.md, metrics.json, the CSV tables and the heatmaps into `directory`;
    returns the file names written. The same report gives byte-identical files."""
    directory.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for scope in SCOPES:
        files[f"passk-{scope}.csv"] = _passk_csv(report, scope)
        if report["gains"]:
            files[f"gains-{scope}.csv"] = _csv(report["gains"][scope])
    if report["correlations"]:
        files["correlations.csv"] = _csv(report["correlations"])
    figures = write_heatmaps(report, directory)
    report = {**report, "figures": [{"title": title, "file": name} for title, name in figures]}
    files["metrics.json"] = json.dumps(report, indent=1, sort_keys=True, allow_nan=False) + "\n"
    files["metrics.md"] = markdown(report)
    for name, text in files.items():
        write_output(directory / name, text)
    return sorted([*files, *(name for _, name in figures)])


def _csv(rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
    writer.writeheader()
    writer.writerows(
        {key: "" if value is None else value for key, value in row.items()} for row in rows
    )
    return buffer.getvalue()


def _passk_csv(report: dict[str, Any], scope: str) -> str:
    """One line per group and k (long format)."""
    rows = []
    for row in report["pass_at_k"][scope]:
        head = {key: value for key, value in row.items() if key != "pass_at_k"}
        rows += [{**head, "k": k, "pass_at_k": v} for k, v in enumerate(row["pass_at_k"], 1)]
    return _csv(rows)


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _table(header: list[str], rows: Iterable[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _where(row: dict[str, Any], fields: tuple[str, ...]) -> list[Any]:
    return [row[name] for name in fields]


def markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: pass@k per task and per cell, SG/CG, correlations, figures."""
    k = report["ceiling_k"]
    longest = max(len(row["pass_at_k"]) for row in report["pass_at_k"]["tasks"])
    powers = sorted({2**i for i in range(8) if 2**i <= longest} | {k})
    lines = [
        "# Strict pass@k",
        "",
        "A sample counts as correct only on complete success (strict correctness, §2.3 of the"
        " RLVR depth-complexity paper). pass@k is the unbiased estimator 1 − C(n−c, k)/C(n, k)"
        " per instance, averaged over the instances of a group; a group shows k up to its"
        f" fewest samples per instance. The ceiling is pass@{k}"
        + (" (the paper's is pass@128)." if k != CEILING_K else "."),
        "",
    ]
    for scope, title in (
        ("overall", "All tasks"),
        ("tasks", "Per task"),
        ("task-levels", "Per task and level"),
        ("cells", "Per cell"),
    ):
        fields = ("checkpoint", *SCOPES[scope])
        shown = powers if scope in ("overall", "tasks") else sorted({1, k})
        lines += [f"## pass@k: {title.lower()}", ""]
        lines += _table(
            [*fields, "instances", "samples", *(f"pass@{j}" for j in shown)],
            (
                [
                    *_where(row, fields),
                    row["prompts"],
                    row["samples"],
                    *(
                        _fmt(row["pass_at_k"][j - 1]) if j <= len(row["pass_at_k"]) else "–"
                        for j in shown
                    ),
                ]
                for row in report["pass_at_k"][scope]
            ),
        )
    if report["gains"]:
        lines += [
            f"## Gains against {report['baseline']}",
            "",
            f"SG = pass@1 − pass@1(baseline); CG = pass@{k} − pass@{k}(baseline) (Appendix A.4),"
            " over the instances both sampled.",
            "",
        ]
        for scope in ("overall", "tasks", "task-levels", "cells"):
            fields = ("checkpoint", *SCOPES[scope])
            lines += [f"### {scope}", ""]
            lines += _table(
                [*fields, "instances", "pass@1", "base", "SG", f"pass@{k}", "base", "CG"],
                (
                    [
                        *_where(row, fields),
                        row["prompts"],
                        _fmt(row["pass1"]),
                        _fmt(row["base_pass1"]),
                        _fmt(row["sg"], True),
                        _fmt(row["passk"]),
                        _fmt(row["base_passk"]),
                        _fmt(row["cg"], True),
                    ]
                    for row in report["gains"][scope]
                ),
            )
        lines += [
            "## Task-pair correlations of the gains",
            "",
            "Pearson's r over the (checkpoint, cell) or (checkpoint, level) observations both"
            " tasks have (Appendix A.4); – where a vector is constant or too short.",
            "",
        ]
        lines += _table(
            ["gain", "over", "task a", "task b", "observations", "r"],
            (
                [
                    row["metric"].upper(),
                    row["over"],
                    row["task_a"],
                    row["task_b"],
                    row["observations"],
                    _fmt(row["r"]),
                ]
                for row in report["correlations"]
            ),
        )
    if report.get("figures"):
        lines += ["## Figures", ""]
        for figure in report["figures"]:
            lines += [f"![{figure['title']}]({figure['file']})", ""]
    return "\n".join(lines)


# Heatmaps


def _stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "checkpoint"


def _values(rows: list[dict[str, Any]], name: str, pick: Any) -> dict[tuple, float]:
    """A checkpoint's values by (task, level) or (task, level, ordering, set)."""
    return {
        (row["task"], row["level"], *([row["ordering"], row["set"]] if "set" in row else [])): v
        for row in rows
        if row["checkpoint"] == name and (v := pick(row)) is not None
    }


def _families(report: dict[str, Any]) -> list[tuple[str, str, str, dict, dict]]:
    """(checkpoint, file metric, label, values by task and level, values by cell) of every
    pair of heatmaps: pass@1 and pass@ceiling of every checkpoint, SG and CG against the
    baseline."""
    k = report["ceiling_k"]
    passes, gained = report["pass_at_k"], report["gains"]
    families = []
    for name in [*report["checkpoints"], *([report["baseline"]] if report["baseline"] else [])]:
        for j in sorted({1, k}):

            def pick(row: dict[str, Any], j: int = j) -> float | None:
                return row["pass_at_k"][j - 1] if len(row["pass_at_k"]) >= j else None

            levels, cells = (_values(passes[s], name, pick) for s in ("task-levels", "cells"))
            families.append((name, f"pass{j}", f"pass@{j}", levels, cells))
    for name in report["checkpoints"] if gained else []:
        for metric in GAINS:
            pick = itemgetter(metric)
            levels, cells = (_values(gained[s], name, pick) for s in ("task-levels", "cells"))
            families.append((name, metric, metric.upper(), levels, cells))
    return families


def write_heatmaps(report: dict[str, Any], directory: Path) -> list[tuple[str, str]]:
    """Task × level and (per task) ordering × level heatmaps of pass@1, pass@ceiling, SG and
    CG per checkpoint; returns (title, file name) pairs. Gains share one colour scale per
    gain across checkpoints, centred at 0."""
    scales = {"pass": (0.0, 1.0)}
    for metric in GAINS:
        bound = max([0.01, *(abs(row[metric]) for row in report["gains"].get("cells", []))])
        scales[metric] = (-bound, bound)
    written: list[tuple[str, str]] = []
    stems: dict[str, str] = {}
    for name, metric, label, levels, cells in _families(report):
        stem = stems.setdefault(name, _unique(_stem(name), set(stems.values())))
        scale = scales.get(metric, scales["pass"])
        tasks = sorted({key[0] for key in levels})
        panels = [("", tasks, [[levels.get((t, level)) for level in LEVELS] for t in tasks])]
        orders = _orderings(cells)
        panels_by_task = [
            (
                task,
                [f"{p} {s}" for p, s in orders],
                [[cells.get((task, level, p, s)) for level in LEVELS] for p, s in orders],
            )
            for task in tasks
        ]
        for view, shown, what in (
            ("task-level", panels, "task and level"),
            ("level-ordering", panels_by_task, "ordering and level"),
        ):
            title = f"{label} per {what}: {name}"
            file = f"heatmap-{view}-{metric}-{stem}.png"
            write_png(_figure(shown, label, title, scale, metric in GAINS), directory / file)
            written.append((title, file))
    return written


def _unique(stem: str, used: set[str]) -> str:
    name, copy = stem, 1
    while name in used:
        copy += 1
        name = f"{stem}-{copy}"
    return name


def _orderings(cells: dict[tuple, float]) -> list[tuple[str, str]]:
    present = {(key[2], key[3]) for key in cells}
    return [o for o in ORDER_LABELS if o in present] + sorted(present - set(ORDER_LABELS))


def _figure(
    panels: list[tuple[str, list[str], list[list]]],
    label: str,
    title: str,
    scale: tuple[float, float],
    gain: bool,
) -> Any:
    """One heatmap per panel (rows × levels), stacked, sharing the colour scale: viridis for
    pass@k, a diverging map for gains (red = gain, blue = loss); grey = not sampled."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    colours = colormaps["RdBu_r" if gain else "viridis"].with_extremes(bad="lightgrey")
    heights = [max(len(rows), 1) for _, rows, _ in panels]
    figure = Figure(
        figsize=(10, 1.2 + 0.35 * sum(heights) + 0.4 * len(panels)), layout="constrained"
    )
    axes_list = figure.subplots(len(panels), 1, squeeze=False, height_ratios=heights)[:, 0]
    image = None
    for axes, (name, rows, grid) in zip(axes_list, panels, strict=True):
        data = [[math.nan if v is None else v for v in row] for row in grid] or [[math.nan]]
        image = axes.imshow(data, vmin=scale[0], vmax=scale[1], cmap=colours, aspect="auto")
        for y, row in enumerate(grid):
            for x, value in enumerate(row):
                if value is not None:
                    text = f"{value:+.2f}" if gain else f"{value:.2f}"
                    axes.text(
                        x,
                        y,
                        text,
                        ha="center",
                        va="center",
                        fontsize=6,
                        color=_ink(value, scale, gain),
                    )
        axes.set_xticks(range(len(LEVELS)), [f"L{level}" for level in LEVELS], fontsize=7)
        axes.set_yticks(range(len(rows)), rows, fontsize=7)
        if name:
            axes.set_title(name, fontsize="small")
    figure.suptitle(title, fontsize="medium")
    if image is not None:
        figure.colorbar(image, ax=list(axes_list), label=label)
    return figure


def _ink(value: float, scale: tuple[float, float], gain: bool) -> str:
    if gain:
        return "white" if abs(value) > 0.6 * scale[1] else "black"
    return "white" if value < 0.5 else "black"


# Training logs -------------------------------------------------------------------------------

#: TRL's GRPO metric: the share of a step's prompt groups whose rewards have zero standard
#: deviation (no ranking signal for those groups).
ZERO_STD = "frac_reward_zero_std"
_REWARD_MEAN = re.compile(r"rewards/(.+)/mean")


@dataclass(frozen=True)
class ZeroStd:
    """The zero-std fraction of each logged step, as (step, fraction), and their mean (None
    when no step logged it)."""

    steps: tuple[tuple[int, float], ...]
    mean: float | None


def read_log_history(path: Path) -> list[dict[str, Any]]:
    """A trainer's `log_history.json`: a list of log entries (mappings)."""
    try:
        history = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ArgcError(f"{path}: cannot read: {error.strerror}") from None
    except ValueError as error:
        raise ArgcError(f"{path}: not JSON: {error}") from None
    if not isinstance(history, list) or not all(isinstance(entry, dict) for entry in history):
        raise ArgcError(f"{path}: expected a list of log entries")
    return history


def zero_std(history: Path | Sequence[dict[str, Any]]) -> ZeroStd:
    """The zero-std fraction per logged step of a GRPO log history (a `log_history.json` path
    or its entries) and its mean over those steps."""
    entries = read_log_history(history) if isinstance(history, str | Path) else history
    steps = tuple(
        (int(entry.get("step", index)), float(entry[ZERO_STD]))
        for index, entry in enumerate(entries, 1)
        if isinstance(entry.get(ZERO_STD), int | float)
    )
    return ZeroStd(steps, sum(value for _, value in steps) / len(steps) if steps else None)


def reward_means(history: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each reward function's `rewards/<name>/mean`, averaged over the logged steps."""
    found: dict[str, list[float]] = defaultdict(list)
    for entry in history:
        for key, value in entry.items():
            match = _REWARD_MEAN.fullmatch(key)
            if match and isinstance(value, int | float):
                found[match.group(1)].append(float(value))
    return {name: sum(values) / len(values) for name, values in found.items()}
