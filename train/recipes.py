"""Training recipes: which cells (task × level × ordering × set) to train on, how many fresh
instances of each, and in what order, read from YAML (bundled ones in `train/recipes/`).

`plan(recipe)` lays out the slots of a training run, deterministically: a uniform schedule
shuffles every slot together; a staged one runs its level bands in the order given, each stage
shuffled on its own, and with `replay` ρ a stage after the first draws round(ρ·n) of its n
slots as fresh instances from the cells of the earlier stages (in proportion to their
budgets), so the total budget and each stage's size are those of the uniform plan.

Seeds: the k-th instance of a cell has seed (h + k) mod BENCHMARK_SEED_BASE, with h the SHA-256
of (recipe seed, task, level, ordering, set); so training seeds never reach the frozen
benchmark's (which start at BENCHMARK_SEED_BASE), and the seeds of a cell are distinct. A seed
that fails to generate is replaced by seed + j·RETRY_STRIDE (j = 1, 2, ...; `argc.train.data`).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple

from argc.bench.build import BENCHMARK_SEED_BASE
from argc.dsl.errors import ArgcError
from argc.dsl.ir import PRINCIPLES, SET_COMPARISONS
from argc.tasks import LEVELS, REGISTRY, suite_tasks

PROMPT_FORMATS = ("chat", "text")
SCHEDULES = ("uniform", "staged")
BUDGETS = ("total", "per_task", "per_cell")
#: Index step between a slot's seed and its replacements; a cell holds fewer instances.
RETRY_STRIDE = 10_000_000

_KEYS = {"name", "description", "seed", "prompt_format", "system", "cells", "budget", "schedule"}
_BLOCK_KEYS = {"tasks", "levels", "orderings", "sets"}
_SCHEDULE_KEYS = {"kind", "stages", "replay"}


class RecipeError(ArgcError):
    """A recipe file that cannot be read or does not describe a valid recipe."""


Fail = Callable[[str], RecipeError]


class Cell(NamedTuple):
    """A (task, level, ordering principle, set comparison) cell of the training grid."""

    task: str
    level: int
    ordering: str
    set: str


@dataclass(frozen=True)
class Slot:
    """One instance of a training run: its cell and the seed it is generated from."""

    task: str
    level: int
    ordering: str
    set: str
    seed: int

    @property
    def cell(self) -> Cell:
        return Cell(self.task, self.level, self.ordering, self.set)


@dataclass(frozen=True)
class Budget:
    """How many instances: `total` spread evenly over the cells, `per_task` (one number, or
    (task, number) pairs) spread evenly over each task's cells, or `per_cell`."""

    kind: str
    amount: int | tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Schedule:
    """Uniform mixing, or stages: level bands (inclusive) in training order, with a fraction
    of each later stage replaying the cells of the earlier ones."""

    kind: str = "uniform"
    stages: tuple[tuple[int, int], ...] = ()
    replay: float = 0.0


@dataclass(frozen=True)
class Recipe:
    """A training recipe: its cells (sorted, distinct), budget, schedule and prompt settings;
    `seed` drives the instance seeds and every shuffle."""

    name: str
    description: str
    seed: int
    prompt_format: str
    system: str | None
    cells: tuple[Cell, ...]
    budget: Budget
    schedule: Schedule


# Loading -------------------------------------------------------------------------------------


def recipe_names() -> list[str]:
    """The bundled recipes."""
    folder = files("argc.train").joinpath("recipes")
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".yaml"))


def load_recipe(path_or_name: str | Path) -> Recipe:
    """A recipe from a YAML file, or a bundled one by name ("uniform-bands")."""
    import yaml

    path = Path(path_or_name)
    if path.is_file():
        source, text = str(path), _read(path)
    elif str(path_or_name) in recipe_names():
        resource = files("argc.train").joinpath("recipes", f"{path_or_name}.yaml")
        source, text = f"recipe {path_or_name}", resource.read_text(encoding="utf-8")
    else:
        raise RecipeError(
            f"no recipe file or bundled recipe named '{path_or_name}';"
            f" bundled: {', '.join(recipe_names())}"
        )
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise RecipeError(f"{source}: not valid YAML: {error}") from None
    return parse_recipe(data, source, default_name=path.stem)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RecipeError(f"{path}: cannot read: {error}") from None


def parse_recipe(data: Any, source: str, default_name: str = "recipe") -> Recipe:
    """A recipe from its parsed YAML; errors name `source`."""

    def fail(problem: str) -> RecipeError:
        return RecipeError(f"{source}: {problem}")

    if not isinstance(data, dict):
        raise fail("a recipe is a mapping of keys to values")
    _known(data, _KEYS, "recipe", fail)
    for key in ("cells", "budget"):
        if key not in data:
            raise fail(f"missing '{key}'")
    name = _text(data.get("name", default_name), "name", fail)
    description = _text(data.get("description", ""), "description", fail)
    seed = data.get("seed", 0)
    if not _integer(seed) or seed < 0:
        raise fail(f"seed must be a non-negative integer, not {seed!r}")
    prompt_format = data.get("prompt_format", "chat")
    if prompt_format not in PROMPT_FORMATS:
        raise fail(f"prompt_format must be one of {', '.join(PROMPT_FORMATS)}")
    system = data.get("system")
    if system is not None:
        system = _text(system, "system", fail)
    cells = _cells(data["cells"], fail)
    recipe = Recipe(
        name=name,
        description=description,
        seed=seed,
        prompt_format=prompt_format,
        system=system,
        cells=cells,
        budget=_budget(data["budget"], cells, fail),
        schedule=_schedule(data.get("schedule", {}), cells, fail),
    )
    missed = sorted(set(cells) - {slot.cell for slot in plan(recipe)})
    if missed:
        raise fail(
            f"the budget leaves {len(missed)} of {len(cells)} cells without an instance"
            f" (e.g. {'/'.join(map(str, missed[0]))}); raise it or select fewer cells"
        )
    return recipe


def _known(data: dict, allowed: set[str], what: str, fail: Fail) -> None:
    unknown = sorted(map(str, set(data) - allowed))
    if unknown:
        raise fail(
            f"unknown {what} key(s) {', '.join(unknown)}; known: {', '.join(sorted(allowed))}"
        )


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any, key: str, fail: Fail) -> str:
    if not isinstance(value, str):
        raise fail(f"{key} must be a string")
    return value


def _level_range(value: Any, what: str, fail: Fail) -> tuple[int, int]:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(_integer(level) for level in value)
        and LEVELS[0] <= value[0] <= value[1] <= LEVELS[-1]
    ):
        return value[0], value[1]
    raise fail(
        f"{what} must be [low, high] with {LEVELS[0]} <= low <= high <= {LEVELS[-1]}, not {value!r}"
    )


def _choices(
    value: Any, allowed: Iterable[str], what: str, fail: Fail, every: Iterable[str] | None = None
) -> list[str]:
    """A block's list of choices, or `every` one (default: all allowed) for "all"."""
    allowed = tuple(allowed)
    if value == "all":
        return list(allowed if every is None else every)
    if not isinstance(value, list) or not value:
        raise fail(f"{what} must be 'all' or a non-empty list")
    unknown = [item for item in value if item not in allowed]
    if unknown:
        raise fail(f"unknown {what} {', '.join(map(str, unknown))}; known: {', '.join(allowed)}")
    return value


def _cells(blocks: Any, fail: Fail) -> tuple[Cell, ...]:
    if not isinstance(blocks, list) or not blocks:
        raise fail("cells must be a non-empty list of blocks")
    found: set[Cell] = set()
    for number, block in enumerate(blocks, 1):
        what = f"cells block {number}"
        if not isinstance(block, dict):
            raise fail(f"{what} must be a mapping")
        _known(block, _BLOCK_KEYS, what, fail)
        if "tasks" not in block or "levels" not in block:
            raise fail(f"{what} needs 'tasks' and 'levels'")
        tasks = _choices(
            block["tasks"], sorted(REGISTRY), f"{what}: task(s)", fail, every=suite_tasks()
        )
        low, high = _level_range(block["levels"], f"{what}: levels", fail)
        principles = _choices(
            block.get("orderings", "all"), PRINCIPLES, f"{what}: ordering(s)", fail
        )
        sets = _choices(block.get("sets", "all"), SET_COMPARISONS, f"{what}: set(s)", fail)
        found.update(
            Cell(task, level, principle, comparison)
            for task in tasks
            for level in range(low, high + 1)
            for principle in principles
            for comparison in sets
        )
    return tuple(sorted(found))


def _budget(data: Any, cells: tuple[Cell, ...], fail: Fail) -> Budget:
    if not isinstance(data, dict) or len(data) != 1 or next(iter(data)) not in BUDGETS:
        raise fail(f"budget must have exactly one of {', '.join(BUDGETS)}")
    kind, amount = next(iter(data.items()))
    if kind == "per_task" and isinstance(amount, dict):
        tasks = {cell.task for cell in cells}
        if set(amount) != tasks:
            raise fail(
                f"budget per_task must give a number for each task: {', '.join(sorted(tasks))}"
            )
        if not all(_integer(value) and value > 0 for value in amount.values()):
            raise fail("budget per_task numbers must be positive integers")
        return Budget(kind, tuple(sorted(amount.items())))
    if not _integer(amount) or amount <= 0:
        raise fail(f"budget {kind} must be a positive integer, not {amount!r}")
    return Budget(kind, amount)


def _schedule(data: Any, cells: tuple[Cell, ...], fail: Fail) -> Schedule:
    if not isinstance(data, dict):
        raise fail("schedule must be a mapping")
    _known(data, _SCHEDULE_KEYS, "schedule", fail)
    kind = data.get("kind", "uniform")
    if kind not in SCHEDULES:
        raise fail(f"schedule kind must be one of {', '.join(SCHEDULES)}")
    if kind == "uniform":
        if set(data) - {"kind"}:
            raise fail("stages and replay belong to a staged schedule")
        return Schedule()
    stages_data = data.get("stages")
    if not isinstance(stages_data, list) or not stages_data:
        raise fail("a staged schedule needs stages: a list of level ranges [low, high]")
    stages = tuple(
        _level_range(stage, f"stage {n}", fail) for n, stage in enumerate(stages_data, 1)
    )
    levels = [level for low, high in stages for level in range(low, high + 1)]
    if len(levels) != len(set(levels)):
        raise fail("stages overlap")
    uncovered = sorted({cell.level for cell in cells} - set(levels))
    if uncovered:
        raise fail(f"levels {', '.join(map(str, uncovered))} of the cells are in no stage")
    empty = [
        n
        for n, (low, high) in enumerate(stages, 1)
        if not any(low <= c.level <= high for c in cells)
    ]
    if empty:
        raise fail(f"stage(s) {', '.join(map(str, empty))} hold no cell")
    replay = data.get("replay", 0.0)
    if not isinstance(replay, int | float) or isinstance(replay, bool) or not 0 <= replay < 1:
        raise fail(f"replay must be a fraction in [0, 1), not {replay!r}")
    return Schedule("staged", stages, float(replay))


# Planning ------------------------------------------------------------------------------------


def slot_seed(recipe_seed: int, cell: Cell, index: int) -> int:
    """The seed of a cell's `index`-th instance: below BENCHMARK_SEED_BASE, distinct per index
    (index < BENCHMARK_SEED_BASE)."""
    key = f"argc-train/{recipe_seed}/{cell.task}/{cell.level}/{cell.ordering}/{cell.set}"
    offset = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return (offset + index) % BENCHMARK_SEED_BASE


def _rng(recipe: Recipe, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"argc-train/{recipe.seed}/{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _apportion(total: int, weights: dict[Cell, int], rng: random.Random) -> Counter[Cell]:
    """`total` split in proportion to `weights` (largest remainders; ties drawn by `rng`)."""
    order = sorted(weights)
    rng.shuffle(order)
    whole = sum(weights.values())
    shares = Counter({cell: total * weights[cell] // whole for cell in order})
    left = total - sum(shares.values())
    ranked = sorted(order, key=lambda cell: -(total * weights[cell] % whole))
    shares.update(ranked[:left])
    return shares


def allocation(recipe: Recipe) -> Counter[Cell]:
    """Instances per cell under the budget (the uniform plan; a staged plan has the same stage
    totals)."""
    rng = _rng(recipe, "budget")
    budget = recipe.budget
    if budget.kind == "per_cell":
        return Counter({cell: budget.amount for cell in recipe.cells})
    if budget.kind == "total":
        return _apportion(budget.amount, dict.fromkeys(recipe.cells, 1), rng)
    amounts = dict(budget.amount) if isinstance(budget.amount, tuple) else None
    found: Counter[Cell] = Counter()
    for task in sorted({cell.task for cell in recipe.cells}):
        task_cells = [cell for cell in recipe.cells if cell.task == task]
        amount = amounts[task] if amounts else budget.amount
        found.update(_apportion(amount, dict.fromkeys(task_cells, 1), rng))
    return found


def plan(recipe: Recipe) -> list[Slot]:
    """The slots of a training run in training order; deterministic in the recipe."""
    counts = allocation(recipe)
    schedule = recipe.schedule
    if schedule.kind == "uniform":
        blocks = [counts]
    else:
        blocks, seen = [], Counter()
        for low, high in schedule.stages:
            stage = Counter({c: n for c, n in counts.items() if low <= c.level <= high})
            size = sum(stage.values())
            replayed = int(schedule.replay * size + 0.5) if seen else 0
            rng = _rng(recipe, f"stage/{low}-{high}")
            block = _apportion(size - replayed, stage, rng)
            if replayed:
                block.update(_apportion(replayed, seen, rng))
            blocks.append(block)
            seen.update(stage)
    used: Counter[Cell] = Counter()
    slots: list[Slot] = []
    for number, block in enumerate(blocks):
        drawn = []
        for cell in sorted(block):
            if used[cell] + block[cell] > RETRY_STRIDE:
                raise RecipeError(f"{recipe.name}: more than {RETRY_STRIDE:,} instances of a cell")
            drawn.extend(
                Slot(*cell, seed=slot_seed(recipe.seed, cell, used[cell] + k))
                for k in range(block[cell])
            )
            used[cell] += block[cell]
        _rng(recipe, f"order/{number}").shuffle(drawn)
        slots.extend(drawn)
    return slots
