"""Strict pass@k, single-sample gain (SG) and ceiling gain (CG) over scored samples (the records
of `argc sample`), per cell, per task and level, and per task; heatmaps of them and task-pair
Pearson correlations of the gains. A sample record is an ArgGYM one, whose cell is (task,
level, ordering, set), or a KG one, whose cell is (task, depth D, complexity T); for KG
samples also the depth-axis and complexity-axis mean ranks of the recipes and their
in-recipe / out-of-recipe CG. The definitions follow the RLVR depth-complexity paper:
strict correctness and pass@k in §2.3 ("Strict Correctness"), SG, CG, the global mean rank,
local cell CG, the in/out-of-recipe split and the task-pair correlation in Appendix A.4
("Strict pass@k, SG, and CG", "Global Mean Rank", "Local Cell CG", "Task-Pair Pearson
Correlation"). matplotlib and yaml are imported only when used."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from argc.bench.evaluate import read_run
from argc.dsl.errors import ArgcError, InputError
from argc.dsl.ir import ORDERINGS
from argc.files import write_output, write_png
from argc.tasks.framework import LEVELS
from argc.tasks.kg.generator import COMPLEXITIES, DEPTHS

#: The largest k reported (the paper reports k = 1..128, §2.3).
MAX_K = 128
#: The k of the sampled ceiling: CG = pass@128(post) - pass@128(pre) (Appendix A.4).
CEILING_K = 128
#: The groupings of prompts: the fields of a group's key. An ArgGYM cell is (task, level,
#: ordering, set), the analogue of the paper's (D, T) cell of one task family; a KG cell is
#: the paper's (task family, D, T). A prompt belongs to the scopes whose fields it has.
SCOPES: dict[str, tuple[str, ...]] = {
    "cells": ("task", "level", "ordering", "set"),
    "task-levels": ("task", "level"),
    "kg-cells": ("task", "depth", "complexity"),
    "tasks": ("task",),
    "overall": (),
}
#: The granularities of the task-pair correlations: an observation is (checkpoint, *rest of
#: the key), as the paper pools recipe-cell observations u = (r, d, t) (Appendix A.4).
CORRELATION_SCOPES = ("cells", "task-levels", "kg-cells")
#: The scopes drawn as heatmaps.
GRID_SCOPES = ("task-levels", "cells", "kg-cells")
GAINS = ("sg", "cg")
DECIMALS = 6
#: The label of the correlations pooled over every recipe (a recipe group may not take it).
ALL_RECIPES = "all"
#: The fields every sample record must carry, with their types.
SAMPLE_FIELDS: dict[str, type] = {
    "checkpoint": str,
    "id": str,
    "task": str,
    "sample": int,
    "success": bool,
}
#: The cell fields of an ArgGYM record and of a KG record (one with a depth or complexity).
ARGGYM_CELL: dict[str, type] = {"level": int, "ordering": str, "set": str}
KG_CELL: dict[str, type] = {"depth": int, "complexity": int}
#: The values a KG record's cell fields may take.
KG_RANGES: dict[str, range] = {"depth": DEPTHS, "complexity": COMPLEXITIES}
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
    (complete success). An ArgGYM instance has a level, ordering and set; a KG instance a
    depth and complexity instead (the other cell fields are None)."""

    checkpoint: str
    id: str
    task: str
    level: int | None
    ordering: str | None
    set: str | None
    n: int
    c: int
    depth: int | None = None
    complexity: int | None = None

    def key(self, scope: str) -> tuple | None:
        """The prompt's group in a scope; None when it lacks the scope's fields."""
        key = tuple(getattr(self, name) for name in SCOPES[scope])
        return None if None in key else key

    @property
    def instance(self) -> tuple:
        """The instance, whoever sampled it."""
        return (
            self.task,
            self.level,
            self.ordering,
            self.set,
            self.depth,
            self.complexity,
            self.id,
        )


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
    id, sample) counts once; every record of an instance must agree on its cell). A record
    with a depth or complexity is a KG record: its cell is (task, depth, complexity) and its
    level, ordering and set, if any, are ignored; any other record is an ArgGYM record."""
    records, _ = read_run(path)
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    samples: dict[tuple[str, str], dict[int, bool]] = defaultdict(dict)
    for number, record in enumerate(records, start=1):
        problem = _problem(record)
        key = (record.get("checkpoint"), record.get("id"))
        if problem is None and cells.setdefault(key, _cell(record)) != _cell(record):
            problem = f"instance {key[1]} is recorded in two cells"
        if problem is not None:
            raise InputError(f"record {number}: {problem}", filename=str(path))
        samples[key].setdefault(record["sample"], record["success"])
    empty = dict.fromkeys([*ARGGYM_CELL, *KG_CELL])
    return [
        Prompt(
            checkpoint=checkpoint,
            id=identifier,
            **{**empty, **cells[checkpoint, identifier]},
            n=len(outcomes),
            c=sum(outcomes.values()),
        )
        for (checkpoint, identifier), outcomes in sorted(samples.items())
    ]


def _cell_fields(record: dict[str, Any]) -> dict[str, type]:
    kg = record.get("depth") is not None or record.get("complexity") is not None
    return KG_CELL if kg else ARGGYM_CELL


def _cell(record: dict[str, Any]) -> dict[str, Any]:
    """The task and cell fields of a valid record."""
    return {name: record[name] for name in ("task", *_cell_fields(record))}


def _problem(record: dict[str, Any]) -> str | None:
    fields = {**SAMPLE_FIELDS, **_cell_fields(record)}
    for name, kind in fields.items():
        value = record.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"{name} must be {kind.__name__}, not {value!r:.40}"
    if record["sample"] < 0:
        return f"sample must be >= 0, not {record['sample']}"
    for name, allowed in KG_RANGES.items():
        if name in fields and record[name] not in allowed:
            return f"{name} must be in {allowed[0]}..{allowed[-1]}, not {record[name]}"
    return None


def read_recipe_cells(path: Path) -> dict[str, frozenset[tuple[int, int]]]:
    """The training cells of each recipe: a YAML or JSON file mapping a checkpoint to a list
    of [depth, complexity] pairs."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ArgcError(f"{path}: cannot read: {error}") from None
    except yaml.YAMLError as error:
        raise ArgcError(f"{path}: not valid YAML or JSON: {error}") from None
    except RecursionError:
        raise ArgcError(f"{path}: nested too deeply") from None
    return parse_recipe_cells(data, str(path))


def parse_recipe_cells(data: Any, source: str) -> dict[str, frozenset[tuple[int, int]]]:
    """The recipe cells of a parsed mapping of checkpoint to [depth, complexity] pairs."""
    if not isinstance(data, dict) or not data:
        raise ArgcError(f"{source}: expected a mapping of checkpoint to [depth, complexity] pairs")
    cells = {}
    for checkpoint, pairs in data.items():
        if not isinstance(checkpoint, str) or not isinstance(pairs, list):
            raise ArgcError(
                f"{source}: {checkpoint!r:.40}: expected a checkpoint name (quote numeric"
                " names) and a list of [depth, complexity] pairs"
            )
        cells[checkpoint] = frozenset(
            _recipe_cell(pair, f"{source}: {checkpoint}") for pair in pairs
        )
    return cells


def _recipe_cell(pair: Any, where: str) -> tuple[int, int]:
    if (
        isinstance(pair, list)
        and len(pair) == 2
        and all(type(value) is int for value in pair)
        and pair[0] in DEPTHS
        and pair[1] in COMPLEXITIES
    ):
        return pair[0], pair[1]
    raise ArgcError(
        f"{where}: {pair!r:.40} is not a [depth, complexity] pair with depth in"
        f" {DEPTHS[0]}..{DEPTHS[-1]} and complexity in {COMPLEXITIES[0]}..{COMPLEXITIES[-1]}"
    )


# Measures


def summarise(prompts: Iterable[Prompt], scope: str, max_k: int = MAX_K) -> dict[tuple, Group]:
    """pass@k per group of one checkpoint's prompts, keyed by the scope's fields (prompts
    without them are left out)."""
    grouped: dict[tuple, list[Prompt]] = defaultdict(list)
    for prompt in prompts:
        if (key := prompt.key(scope)) is not None:
            grouped[key].append(prompt)
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


def correlations(
    by_checkpoint: dict[str, dict[tuple, Gain]],
    metric: str,
    recipes: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """Pearson's r of a gain between every pair of tasks, computed once over the pooled
    observations (checkpoint, rest of the group key) valid for both tasks, not averaged per
    checkpoint (Appendix A.4); `recipes` restricts the observations to those checkpoints."""
    values: dict[str, dict[tuple, float]] = defaultdict(dict)
    for checkpoint, table in by_checkpoint.items():
        if recipes is not None and checkpoint not in recipes:
            continue
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


def descending_ranks(values: Mapping[str, float]) -> dict[str, float]:
    """Rank 1 for the largest value; values equal to DECIMALS places tie and share the mean
    of the ranks they span (3, 5, 5, 1 rank 3, 1.5, 1.5, 4)."""
    rounded = {name: round(value, DECIMALS) for name, value in values.items()}
    ranks, position = {}, 0
    for _, tied in groupby(sorted(rounded, key=lambda name: -rounded[name]), rounded.get):
        members = list(tied)
        ranks.update(dict.fromkeys(members, position + (len(members) + 1) / 2))
        position += len(members)
    return ranks


def _cell_cg(by_checkpoint: dict[str, dict[tuple, Gain]]) -> dict[str, dict[str, dict]]:
    """CG by task, checkpoint and (depth, complexity) of gains keyed (task, depth, complexity)."""
    found: dict[str, dict[str, dict]] = defaultdict(lambda: defaultdict(dict))
    for checkpoint, table in by_checkpoint.items():
        for (task, *cell), gain in table.items():
            found[task][checkpoint][tuple(cell)] = gain.cg
    return found


def mean_ranks(by_checkpoint: dict[str, dict[tuple, Gain]]) -> list[dict[str, Any]]:
    """The depth-axis and complexity-axis mean ranks MR^D and MR^T of every recipe per task
    (Appendix A.4, "Global Mean Rank") from the cell CG keyed (task, depth, complexity):
    within each depth (complexity) slice the recipes are ranked by their mean CG over the
    slice's cells, descending (`descending_ranks`: rank 1 best, ties share the mean rank),
    and a recipe's mean rank is the mean of its slice ranks. A task's cells Ω are those
    every recipe with CG on the task has, so the recipes are ranked on the same cells."""
    rows = []
    for task, by_recipe in sorted(_cell_cg(by_checkpoint).items()):
        cells = set.intersection(*(set(values) for values in by_recipe.values()))
        if not cells:
            continue
        ranks = [_axis_ranks(by_recipe, cells, axis) for axis in (0, 1)]
        rows += [
            {
                "task": task,
                "checkpoint": recipe,
                "cells": len(cells),
                "depths": len({cell[0] for cell in cells}),
                "complexities": len({cell[1] for cell in cells}),
                "depth_rank": _round(ranks[0][recipe]),
                "complexity_rank": _round(ranks[1][recipe]),
            }
            for recipe in sorted(by_recipe)
        ]
    return rows


def _axis_ranks(
    by_recipe: dict[str, dict[tuple, float]], cells: set[tuple], axis: int
) -> dict[str, float]:
    """Each recipe's mean over the slices of one axis (0 depth, 1 complexity) of its rank by
    mean CG over the slice's cells."""
    ranks: dict[str, list[float]] = defaultdict(list)
    for value in sorted({cell[axis] for cell in cells}):
        members = [cell for cell in cells if cell[axis] == value]
        means = {
            recipe: math.fsum(cg[cell] for cell in members) / len(members)
            for recipe, cg in by_recipe.items()
        }
        for recipe, rank in descending_ranks(means).items():
            ranks[recipe].append(rank)
    return {recipe: math.fsum(found) / len(found) for recipe, found in ranks.items()}


def recipe_split(
    by_checkpoint: dict[str, dict[tuple, Gain]],
    recipe_cells: Mapping[str, Collection[Sequence[int]]],
) -> list[dict[str, Any]]:
    """In-recipe and out-of-recipe CG (Section 4, Appendix A.4): the mean CG over the
    evaluated cells, keyed (task, depth, complexity), inside and outside a recipe's training
    cells (depth, complexity), per task and recipe, then per task over the recipe-cell units
    of every recipe pooled (checkpoint None). Checkpoints without training cells are left
    out; a side without cells has a mean of None."""
    units: dict[tuple[str, str | None], tuple[list[float], list[float]]] = defaultdict(
        lambda: ([], [])
    )
    for task, by_recipe in _cell_cg(by_checkpoint).items():
        for recipe, values in by_recipe.items():
            if recipe not in recipe_cells:
                continue
            trained = {tuple(cell) for cell in recipe_cells[recipe]}
            for cell, cg in values.items():
                for who in (recipe, None):
                    units[task, who][cell not in trained].append(cg)
    return [
        {
            "task": task,
            "checkpoint": who,
            "in_cells": len(inside),
            "in_cg": _round(_mean(inside)),
            "out_cells": len(outside),
            "out_cg": _round(_mean(outside)),
        }
        for (task, who), (inside, outside) in sorted(
            units.items(), key=lambda item: (item[0][0], item[0][1] is None, item[0][1] or "")
        )
    ]


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


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
    recipe_cells: Mapping[str, Collection[Sequence[int]]] | None = None,
    recipe_groups: Mapping[str, Collection[str]] | None = None,
) -> dict[str, Any]:
    """Everything the report shows, as JSON values: pass@k per scope and checkpoint, and with
    a baseline SG/CG per scope and their task-pair correlations (over every checkpoint, and
    over each of `recipe_groups`); with KG samples also the recipes' mean ranks and, given
    each recipe's training cells `recipe_cells`, their in/out-of-recipe CG. Only the scopes
    some prompt has are reported."""
    if not prompts:
        raise ArgcError("no samples")
    checkpoints = sorted({p.checkpoint for p in prompts})
    base_names = sorted({p.checkpoint for p in baseline or []})
    if baseline is not None and len(base_names) != 1:
        raise ArgcError(f"the baseline must hold one checkpoint, not {base_names or 'none'}")
    if set(base_names) & set(checkpoints):
        raise ArgcError(f"the baseline's checkpoint {base_names[0]} is among the samples")
    _check_recipes(prompts, baseline, recipe_cells, recipe_groups or {})
    everything = [*prompts, *(baseline or [])]
    scopes = [scope for scope in SCOPES if any(p.key(scope) is not None for p in everything)]
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
                _group_row(name, SCOPES[scope], group)
                for name, members in by_checkpoint.items()
                for group in summarise(members, scope, max_k).values()
            ]
            for scope in scopes
        },
        "gains": {},
        "correlations": [],
        "mean_ranks": [],
        "recipe_gains": [],
    }
    if baseline is None:
        return report
    tables = {
        scope: {name: gains(by_checkpoint[name], baseline, scope, k) for name in checkpoints}
        for scope in scopes
    }
    report["gains"] = {
        scope: [
            _gain_row(name, base_names[0], SCOPES[scope], gain)
            for name in checkpoints
            for gain in tables[scope][name].values()
        ]
        for scope in scopes
    }
    groups = {ALL_RECIPES: None, **(recipe_groups or {})}
    report["correlations"] = [
        {"metric": metric, "over": scope, "recipes": group, **row}
        for metric in GAINS
        for scope in CORRELATION_SCOPES
        if scope in tables
        for group, members in groups.items()
        for row in correlations(tables[scope], metric, members)
    ]
    if "kg-cells" in tables:
        report["mean_ranks"] = mean_ranks(tables["kg-cells"])
        report["recipe_gains"] = recipe_split(tables["kg-cells"], recipe_cells or {})
    return report


def _check_recipes(
    prompts: Sequence[Prompt],
    baseline: Sequence[Prompt] | None,
    recipe_cells: Mapping[str, Collection[Sequence[int]]] | None,
    recipe_groups: Mapping[str, Collection[str]],
) -> None:
    """Recipe cells and groups need a baseline (they split and correlate gains), recipe cells
    KG samples of a checkpoint they name, and a group sampled checkpoints."""
    if (recipe_cells or recipe_groups) and baseline is None:
        raise ArgcError("recipe cells and recipe groups need a baseline")
    checkpoints = {p.checkpoint for p in prompts}
    if recipe_cells is not None:
        kg = {p.checkpoint for p in prompts if p.depth is not None}
        if not kg & set(recipe_cells):
            raise ArgcError(
                "the recipe cells name no checkpoint with KG samples (depth and complexity);"
                f" those are: {', '.join(sorted(kg)) or 'none'}"
            )
    for name, members in recipe_groups.items():
        if name == ALL_RECIPES:
            raise ArgcError(f"a recipe group may not be named {ALL_RECIPES} (every recipe)")
        unknown = sorted(set(members) - checkpoints)
        if not members or unknown:
            problem = f"not sampled: {', '.join(unknown)}" if unknown else "no checkpoints"
            raise ArgcError(f"recipe group {name}: {problem}")


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
    for scope in report["pass_at_k"]:
        files[f"passk-{scope}.csv"] = _passk_csv(report, scope)
        if report["gains"]:
            files[f"gains-{scope}.csv"] = _csv(report["gains"][scope])
    for name in ("correlations", "mean_ranks", "recipe_gains"):
        if report[name]:
            files[f"{name.replace('_', '-')}.csv"] = _csv(report[name])
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


def _section(title: str, note: str, header: list[str], rows: Iterable[list[Any]]) -> list[str]:
    return [f"## {title}", "", note, "", *_table(header, rows)]


def _where(row: dict[str, Any], fields: tuple[str, ...]) -> list[Any]:
    return [row[name] for name in fields]


def markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: pass@k per task and per cell, SG/CG, correlations, the KG
    depth × complexity grids, mean ranks and in/out-of-recipe CG, figures."""
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
        if scope not in report["pass_at_k"]:
            continue
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
            if scope not in report["gains"]:
                continue
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
        lines += _section(
            "Task-pair correlations of the gains",
            "Pearson's r over the (checkpoint, cell) or (checkpoint, level) observations both"
            " tasks have, pooled once over the recipes (checkpoints) named (Appendix A.4); – where"
            " a vector is constant or too short.",
            ["gain", "over", "recipes", "task a", "task b", "observations", "r"],
            (
                [
                    row["metric"].upper(),
                    row["over"],
                    row["recipes"],
                    row["task_a"],
                    row["task_b"],
                    row["observations"],
                    _fmt(row["r"]),
                ]
                for row in report["correlations"]
            ),
        )
    lines += _kg_markdown(report)
    if report.get("figures"):
        lines += ["## Figures", ""]
        for figure in report["figures"]:
            lines += [f"![{figure['title']}]({figure['file']})", ""]
    return "\n".join(lines)


def _kg_markdown(report: dict[str, Any]) -> list[str]:
    """The depth × complexity grids of the KG tasks, the recipes' mean ranks and their
    in/out-of-recipe CG."""
    lines = []
    grids = [
        (name, metric, label, by_scope["kg-cells"])
        for name, metric, label, by_scope in _series(report)
        if by_scope.get("kg-cells")
    ]
    if grids:
        lines += [
            "## KG worlds: depth × complexity",
            "",
            "One grid per checkpoint and task: depth D down, complexity T across; – where a cell"
            " was not evaluated.",
            "",
        ]
    for name, metric, label, values in grids:
        for task in sorted({key[0] for key in values}):
            lines += [f"### {label}: {task}, {name}", ""]
            lines += _table(
                ["D \\ T", *(f"T{t}" for t in COMPLEXITIES)],
                (
                    [f"D{depth}", *(_fmt(value, metric in GAINS) for value in row)]
                    for depth, row in zip(DEPTHS, depth_complexity_grid(values, task), strict=True)
                ),
            )
    if report["mean_ranks"]:
        lines += _section(
            "Mean ranks of the recipes",
            "Within each depth (complexity) slice the recipes are ranked by mean CG over the"
            " slice's cells, descending (rank 1 best; ties share the mean of the ranks they"
            " span); MR^D (MR^T) is the mean over the slices (Appendix A.4). The cells are those"
            " every recipe of the task has.",
            ["task", "recipe", "cells", "depths", "complexities", "MR^D", "MR^T"],
            (
                [
                    *_where(row, ("task", "checkpoint", "cells", "depths", "complexities")),
                    f"{row['depth_rank']:.2f}",
                    f"{row['complexity_rank']:.2f}",
                ]
                for row in report["mean_ranks"]
            ),
        )
    if report["recipe_gains"]:
        lines += _section(
            "In-recipe and out-of-recipe CG",
            "Mean CG over the evaluated cells inside and outside each recipe's training cells;"
            f" {ALL_RECIPES} pools the recipe-cell units of every recipe with training cells.",
            ["task", "recipe", "in cells", "in-recipe CG", "out cells", "out-of-recipe CG"],
            (
                [
                    row["task"],
                    ALL_RECIPES if row["checkpoint"] is None else row["checkpoint"],
                    row["in_cells"],
                    _fmt(row["in_cg"], True),
                    row["out_cells"],
                    _fmt(row["out_cg"], True),
                ]
                for row in report["recipe_gains"]
            ),
        )
    return lines


# Heatmaps


def _stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "checkpoint"


def _values(
    rows: list[dict[str, Any]], fields: tuple[str, ...], name: str, pick: Any
) -> dict[tuple, float]:
    """A checkpoint's values by group key."""
    return {
        tuple(row[field] for field in fields): v
        for row in rows
        if row["checkpoint"] == name and (v := pick(row)) is not None
    }


def _by_scope(table: dict[str, list], name: str, pick: Any) -> dict[str, dict[tuple, float]]:
    return {
        scope: _values(table[scope], SCOPES[scope], name, pick)
        for scope in GRID_SCOPES
        if scope in table
    }


def _series(report: dict[str, Any]) -> list[tuple[str, str, str, dict[str, dict]]]:
    """(checkpoint, file metric, label, values by grid scope and key) of every series of
    heatmaps: pass@1 and pass@ceiling of every checkpoint, SG and CG against the baseline."""
    k = report["ceiling_k"]
    passes, gained = report["pass_at_k"], report["gains"]
    series = []
    for name in [*report["checkpoints"], *([report["baseline"]] if report["baseline"] else [])]:
        for j in sorted({1, k}):

            def pick(row: dict[str, Any], j: int = j) -> float | None:
                return row["pass_at_k"][j - 1] if len(row["pass_at_k"]) >= j else None

            series.append((name, f"pass{j}", f"pass@{j}", _by_scope(passes, name, pick)))
    for name in report["checkpoints"] if gained else []:
        for metric in GAINS:
            values = _by_scope(gained, name, itemgetter(metric))
            series.append((name, metric, metric.upper(), values))
    return series


def depth_complexity_grid(values: dict[tuple, float], task: str) -> list[list[float | None]]:
    """A task's values keyed (task, depth, complexity) as rows of depth 1..10 by columns of
    complexity 1..6 (None where a cell has no value)."""
    return [[values.get((task, depth, t)) for t in COMPLEXITIES] for depth in DEPTHS]


#: A panel of a heatmap: its title, row labels and rows of values.
Panel = tuple[str, list[str], list[list]]


def _views(values: dict[str, dict]) -> list[tuple[str, str, str, list[Panel], list[str]]]:
    """(file view, what, cell scope of the colour scale, panels, column labels) of the
    heatmaps of one series: task × level and ordering × level per task for ArgGYM tasks,
    depth × complexity per task for KG tasks."""
    views = []
    levels, cells, kg = (values.get(scope, {}) for scope in GRID_SCOPES)
    columns = [f"L{level}" for level in LEVELS]
    if levels:
        tasks = sorted({key[0] for key in levels})
        grid = [[levels.get((task, level)) for level in LEVELS] for task in tasks]
        views.append(("task-level", "task and level", "cells", [("", tasks, grid)], columns))
        orders = _orderings(cells)
        panels = [
            (
                task,
                [f"{p} {s}" for p, s in orders],
                [[cells.get((task, level, p, s)) for level in LEVELS] for p, s in orders],
            )
            for task in tasks
        ]
        views.append(("level-ordering", "ordering and level", "cells", panels, columns))
    if kg:
        depths = [f"D{depth}" for depth in DEPTHS]
        panels = [
            (task, depths, depth_complexity_grid(kg, task))
            for task in sorted({key[0] for key in kg})
        ]
        complexities = [f"T{t}" for t in COMPLEXITIES]
        views.append(("depth-complexity", "depth and complexity", "kg-cells", panels, complexities))
    return views


def write_heatmaps(report: dict[str, Any], directory: Path) -> list[tuple[str, str]]:
    """Task × level and (per task) ordering × level heatmaps of the ArgGYM tasks and (per
    task) depth × complexity heatmaps of the KG tasks, of pass@1, pass@ceiling, SG and CG per
    checkpoint; returns (title, file name) pairs. Gains share one colour scale per gain and
    kind of cell across checkpoints, centred at 0."""
    written: list[tuple[str, str]] = []
    stems: dict[str, str] = {}
    for name, metric, label, values in _series(report):
        stem = stems.setdefault(name, _unique(_stem(name), set(stems.values())))
        for view, what, scope, panels, columns in _views(values):
            title = f"{label} per {what}: {name}"
            file = f"heatmap-{view}-{metric}-{stem}.png"
            scale = _scale(report, metric, scope)
            figure = _figure(panels, columns, label, title, scale, metric in GAINS)
            write_png(figure, directory / file)
            written.append((title, file))
    return written


def _scale(report: dict[str, Any], metric: str, scope: str) -> tuple[float, float]:
    """0..1 for pass@k; for a gain ± its largest magnitude over the scope's cells."""
    if metric not in GAINS:
        return (0.0, 1.0)
    bound = max([0.01, *(abs(row[metric]) for row in report["gains"].get(scope, []))])
    return (-bound, bound)


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
    panels: list[Panel],
    columns: list[str],
    label: str,
    title: str,
    scale: tuple[float, float],
    gain: bool,
) -> Any:
    """One heatmap per panel (rows × columns), stacked, sharing the colour scale: viridis for
    pass@k, a diverging map for gains (red = gain, blue = loss); grey = not sampled."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    colours = colormaps["RdBu_r" if gain else "viridis"].with_extremes(bad="lightgrey")
    heights = [max(len(rows), 1) for _, rows, _ in panels]
    figure = Figure(
        figsize=(1.6 + 0.56 * len(columns), 1.2 + 0.35 * sum(heights) + 0.4 * len(panels)),
        layout="constrained",
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
        axes.set_xticks(range(len(columns)), columns, fontsize=7)
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
