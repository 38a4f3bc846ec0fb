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

KG recipes (a `kg:` block instead of `cells` and `budget`; the depth/complexity study, Section
2.4 and Appendix A.3.5) select (D, T) cells of the KG grid and split a budget per task family
(140K deductive, 60K abductive, 10K inductive, 10K analogy by default, times `scale`) evenly
over them; a family's share of a cell is a bucket. A bucket's instances come from the cell's RL
pool (KG_POOL graphs, Appendix A.2.7), or with `split: pretrain` in the `kg` block from the
pretraining split's graphs of the cell (its 400,000, whose persons a model pretrained on that
split's corpus has seen; only its cells D1-D4 x T1-T2): its k-th instance is the graph of pool
index i_k, seeded `argc.tasks.kg.splits.graph_seed(split, D, T, i_k)`, where i_0, i_1, ... is a
permutation of the pool seeded by (recipe seed, family, D, T) (drawn without replacement;
indices past the pool follow in order when a bucket holds more instances than the pool). So
recipes with the same seed that share a cell train on the same instances there, and a pool
index always gives the same instance. A staged KG schedule runs groups of cells in order, as a
staged schedule runs level bands, with replay drawn per family.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from argc.bench.build import BENCHMARK_SEED_BASE
from argc.dsl.errors import ArgcError
from argc.dsl.ir import PRINCIPLES, SET_COMPARISONS
from argc.files import write_output
from argc.tasks import LEVELS, REGISTRY, suite_tasks
from argc.tasks.kg.families import FAMILIES as KG_FAMILIES
from argc.tasks.kg.generator import COMPLEXITIES, DEPTHS
from argc.tasks.kg.splits import PLANS as KG_PLANS
from argc.tasks.kg.splits import graph_seed

PROMPT_FORMATS = ("chat", "text")
SCHEDULES = ("uniform", "staged")
BUDGETS = ("total", "per_task", "per_cell")
#: Index step between a slot's seed and its replacements; a cell holds fewer instances.
RETRY_STRIDE = 10_000_000

#: Graphs per (D, T) cell in the shared RL pool of the KG environment (Appendix A.2.7).
KG_POOL = KG_PLANS["rl"].per_cell
#: The KG post-training budget per task family at scale 1 (Section 2.4): 220K tasks.
KG_BUDGET = {"deductive": 140_000, "abductive": 60_000, "inductive": 10_000, "analogy": 10_000}

_HEADER_KEYS = {"name", "description", "seed", "prompt_format", "system", "schedule"}
_KEYS = _HEADER_KEYS | {"cells", "budget"}
_BLOCK_KEYS = {"tasks", "levels", "orderings", "sets"}
_SCHEDULE_KEYS = {"kind", "stages", "replay"}
_KG_KEYS = {"cells", "budget", "scale", "split"}
#: The splits a KG recipe draws its graphs from (the eval split is held out).
KG_TRAIN_SPLITS = ("rl", "pretrain")
_REGION_KEYS = {"depths", "complexities"}


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
    """Uniform mixing, or stages in training order, with a fraction of each later stage
    replaying the cells of the earlier ones. A stage is a level band (low, high), inclusive; in
    a KG recipe, the (D, T) cells it trains on."""

    kind: str = "uniform"
    stages: tuple[Any, ...] = ()
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


class KgCell(NamedTuple):
    """A (depth D, complexity T) cell of the KG grid."""

    depth: int
    complexity: int

    def __str__(self) -> str:
        return f"D{self.depth} T{self.complexity}"


class KgBucket(NamedTuple):
    """A task family's share of a KG cell."""

    family: str
    depth: int
    complexity: int

    @property
    def cell(self) -> KgCell:
        return KgCell(self.depth, self.complexity)


@dataclass(frozen=True)
class KgSlot:
    """One instance of a KG training run: its family, its cell, its index in the cell's pool
    and the split whose graphs the pool holds."""

    family: str
    depth: int
    complexity: int
    index: int
    split: str = "rl"

    @property
    def cell(self) -> KgCell:
        return KgCell(self.depth, self.complexity)

    @property
    def seed(self) -> int:
        """The seed of the pool's graph (`argc.tasks.kg.splits.graph_seed`)."""
        return graph_seed(self.split, self.depth, self.complexity, self.index)


@dataclass(frozen=True)
class KgRecipe:
    """A KG recipe: its (D, T) cells (sorted, distinct), its budget per family at scale 1
    (in the order of KG_FAMILIES), the scale, the schedule and prompt settings, and the split
    whose graphs its pools hold; `seed` drives the pool draws and every shuffle."""

    name: str
    description: str
    seed: int
    prompt_format: str
    system: str | None
    cells: tuple[KgCell, ...]
    budget: tuple[tuple[str, int], ...]
    scale: float
    schedule: Schedule
    split: str = "rl"

    @property
    def pool(self) -> int:
        """Graphs per cell in the split's pool."""
        return KG_PLANS[self.split].per_cell

    def family_totals(self) -> dict[str, int]:
        """Instances per family: the budget times the scale, rounded half up."""
        return {family: int(amount * self.scale + 0.5) for family, amount in self.budget}


AnyRecipe = Recipe | KgRecipe


# Loading -------------------------------------------------------------------------------------


def recipe_names() -> list[str]:
    """The bundled recipes."""
    folder = files("argc.train").joinpath("recipes")
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".yaml"))


def load_recipe(path_or_name: str | Path) -> AnyRecipe:
    """A recipe from a YAML file, or a bundled one by name ("uniform-bands", "kg-baseline")."""
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


def parse_recipe(data: Any, source: str, default_name: str = "recipe") -> AnyRecipe:
    """A recipe from its parsed YAML (a KG recipe when it has a `kg` block); errors name
    `source`."""

    def fail(problem: str) -> RecipeError:
        return RecipeError(f"{source}: {problem}")

    if not isinstance(data, dict):
        raise fail("a recipe is a mapping of keys to values")
    if "kg" in data:
        return _kg_recipe(data, fail, default_name)
    _known(data, _KEYS | {"kg"}, "recipe", fail)
    for key in ("cells", "budget"):
        if key not in data:
            raise fail(f"missing '{key}'")
    cells = _cells(data["cells"], fail)
    recipe = Recipe(
        **_header(data, fail, default_name),
        cells=cells,
        budget=_budget(data["budget"], cells, fail),
        schedule=_schedule(
            data.get("schedule", {}),
            fail,
            "level ranges [low, high]",
            lambda stages: _level_stages(stages, cells, fail),
        ),
    )
    _check_covered(recipe, fail)
    return recipe


def _header(data: dict, fail: Fail, default_name: str) -> dict[str, Any]:
    """The settings every recipe has: name, description, seed, prompt format and system."""
    seed = data.get("seed", 0)
    if not _integer(seed) or seed < 0:
        raise fail(f"seed must be a non-negative integer, not {seed!r}")
    prompt_format = data.get("prompt_format", "chat")
    if prompt_format not in PROMPT_FORMATS:
        raise fail(f"prompt_format must be one of {', '.join(PROMPT_FORMATS)}")
    system = data.get("system")
    return {
        "name": _text(data.get("name", default_name), "name", fail),
        "description": _text(data.get("description", ""), "description", fail),
        "seed": seed,
        "prompt_format": prompt_format,
        "system": None if system is None else _text(system, "system", fail),
    }


def _check_covered(recipe: AnyRecipe, fail: Fail) -> None:
    """Refuse a budget that leaves a selected cell without an instance."""
    covered = {_cell_of(key) for key, count in allocation(recipe).items() if count}
    missed = sorted(set(recipe.cells) - covered)
    if missed:
        example = missed[0] if isinstance(missed[0], KgCell) else "/".join(map(str, missed[0]))
        raise fail(
            f"the budget leaves {len(missed)} of {len(recipe.cells)} cells without an instance"
            f" (e.g. {example}); raise it or select fewer cells"
        )


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
    return _range(value, LEVELS, what, fail)


def _range(value: Any, axis: Sequence[int], what: str, fail: Fail) -> tuple[int, int]:
    """An inclusive range [low, high] of an axis (levels, depths, complexities)."""
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(_integer(point) for point in value)
        and axis[0] <= value[0] <= value[1] <= axis[-1]
    ):
        return value[0], value[1]
    raise fail(
        f"{what} must be [low, high] with {axis[0]} <= low <= high <= {axis[-1]}, not {value!r}"
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
            block["tasks"], REGISTRY.names(), f"{what}: task(s)", fail, every=suite_tasks()
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


def _schedule(
    data: Any, fail: Fail, what: str, stages_of: Callable[[list], tuple[Any, ...]]
) -> Schedule:
    """The schedule block; `stages_of` reads and checks a staged schedule's list of stages
    (`what`, as the error names it)."""
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
        raise fail(f"a staged schedule needs stages: a list of {what}")
    stages = stages_of(stages_data)
    replay = data.get("replay", 0.0)
    if not isinstance(replay, int | float) or isinstance(replay, bool) or not 0 <= replay < 1:
        raise fail(f"replay must be a fraction in [0, 1), not {replay!r}")
    return Schedule("staged", stages, float(replay))


def _level_stages(data: list, cells: tuple[Cell, ...], fail: Fail) -> tuple[tuple[int, int], ...]:
    """Level bands that cover the cells' levels, each holding a cell, without overlap."""
    stages = tuple(_level_range(stage, f"stage {n}", fail) for n, stage in enumerate(data, 1))
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
    return stages


# KG recipes ----------------------------------------------------------------------------------


def _kg_recipe(data: dict, fail: Fail, default_name: str) -> KgRecipe:
    """A recipe with a `kg` block: cells, budget per family and scale."""
    _known(data, _HEADER_KEYS | {"kg"}, "KG recipe", fail)
    block = data["kg"]
    if not isinstance(block, dict):
        raise fail("kg must be a mapping of cells, budget and scale")
    _known(block, _KG_KEYS, "kg", fail)
    if "cells" not in block:
        raise fail("kg: missing 'cells'")
    cells = _kg_cells(block["cells"], fail)
    scale = block.get("scale", 1)
    if not isinstance(scale, int | float) or isinstance(scale, bool) or not scale > 0:
        raise fail(f"kg scale must be a positive number, not {scale!r}")
    split = _kg_split(block.get("split", "rl"), cells, fail)
    recipe = KgRecipe(
        **_header(data, fail, default_name),
        cells=cells,
        budget=_kg_budget(block.get("budget", KG_BUDGET), fail),
        scale=float(scale),
        schedule=_schedule(
            data.get("schedule", {}),
            fail,
            "regions {depths: [low, high], complexities: [low, high]} or cells [D, T]",
            lambda stages: _kg_stages(stages, cells, fail),
        ),
        split=split,
    )
    if not any(recipe.family_totals().values()):
        raise fail(f"the kg budget holds no instance at scale {scale}")
    _check_covered(recipe, fail)
    return recipe


def _kg_split(split: Any, cells: tuple[KgCell, ...], fail: Fail) -> str:
    """The split a KG recipe draws from: one of KG_TRAIN_SPLITS holding every cell."""
    if split not in KG_TRAIN_SPLITS:
        raise fail(
            f"kg split must be one of {', '.join(KG_TRAIN_SPLITS)} (eval is held out),"
            f" not {split!r}"
        )
    outside = [cell for cell in cells if tuple(cell) not in KG_PLANS[split].cells]
    if outside:
        raise fail(f"the {split} split has no cell {outside[0]} ({len(outside)} cells outside it)")
    return split


def _region(value: Any, what: str, fail: Fail) -> set[KgCell]:
    """The cells of a cell [D, T] or of a region {depths: [low, high], complexities: [low,
    high]} (an axis left out is whole)."""
    if isinstance(value, list) and len(value) == 2 and all(map(_integer, value)):
        if value[0] not in DEPTHS or value[1] not in COMPLEXITIES:
            raise fail(
                f"{what}: no cell {value} in the grid D{DEPTHS[0]}-D{DEPTHS[-1]} x"
                f" T{COMPLEXITIES[0]}-T{COMPLEXITIES[-1]}"
            )
        return {KgCell(*value)}
    if not isinstance(value, dict) or not value:
        raise fail(
            f"{what} must be a cell [D, T] or a region {{depths: [low, high], complexities:"
            " [low, high]}"
        )
    _known(value, _REGION_KEYS, what, fail)
    depths = _axis(value, "depths", DEPTHS, what, fail)
    complexities = _axis(value, "complexities", COMPLEXITIES, what, fail)
    return {KgCell(depth, complexity) for depth in depths for complexity in complexities}


def _axis(region: dict, key: str, axis: Sequence[int], what: str, fail: Fail) -> range:
    """The points of a region's range on one axis (the whole axis when not given)."""
    low, high = _range(region.get(key, [axis[0], axis[-1]]), axis, f"{what}: {key}", fail)
    return range(low, high + 1)


def _kg_cells(blocks: Any, fail: Fail) -> tuple[KgCell, ...]:
    if not isinstance(blocks, list) or not blocks:
        raise fail("kg cells must be a non-empty list of regions and cells")
    found: set[KgCell] = set()
    for number, block in enumerate(blocks, 1):
        found |= _region(block, f"kg cells block {number}", fail)
    return tuple(sorted(found))


def _kg_budget(data: Any, fail: Fail) -> tuple[tuple[str, int], ...]:
    """Instances per family at scale 1; a family left out gets none."""
    if not isinstance(data, dict) or not data:
        raise fail(f"kg budget must map task families ({', '.join(KG_FAMILIES)}) to counts")
    unknown = sorted(map(str, set(data) - set(KG_FAMILIES)))
    if unknown:
        raise fail(
            f"kg budget: unknown family {', '.join(unknown)}; known: {', '.join(KG_FAMILIES)}"
        )
    for family, amount in data.items():
        if not _integer(amount) or amount < 0:
            raise fail(f"kg budget {family} must be a non-negative integer, not {amount!r}")
    return tuple((family, data[family]) for family in KG_FAMILIES if family in data)


def _kg_stages(data: list, cells: tuple[KgCell, ...], fail: Fail) -> tuple[tuple[KgCell, ...], ...]:
    """The recipe's cells of each stage region: every cell in exactly one stage, no stage
    empty."""
    regions = [_region(stage, f"stage {n}", fail) for n, stage in enumerate(data, 1)]
    stages = tuple(tuple(cell for cell in cells if cell in region) for region in regions)
    placed = Counter(cell for stage in stages for cell in stage)
    twice = sorted(cell for cell, count in placed.items() if count > 1)
    if twice:
        raise fail(f"stages overlap (e.g. at {twice[0]})")
    missing = [cell for cell in cells if cell not in placed]
    if missing:
        raise fail(f"{len(missing)} cells are in no stage (e.g. {missing[0]})")
    empty = [str(n) for n, stage in enumerate(stages, 1) if not stage]
    if empty:
        raise fail(f"stage(s) {', '.join(empty)} hold no cell")
    return stages


def recipe_cells(path_or_name: str | Path) -> set[KgCell]:
    """The (D, T) cells a KG recipe trains on (its in-recipe cells)."""
    recipe = load_recipe(path_or_name)
    if not isinstance(recipe, KgRecipe):
        raise RecipeError(f"{path_or_name}: not a KG recipe (it has no kg block)")
    return set(recipe.cells)


def add_cells_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "recipes",
        nargs="+",
        metavar="[NAME=]RECIPE",
        help="a bundled KG recipe or a recipe file, optionally under a checkpoint NAME",
    )
    parser.add_argument("--out", default="-", help="the JSON file ('-': standard output)")


def run_cells(args: argparse.Namespace) -> int:
    """The `argc recipe-cells` command; returns the exit code."""
    try:
        mapping = cells_mapping(args.recipes)
        body = ",\n".join(f"  {json.dumps(name)}: {cells}" for name, cells in mapping.items())
        write_output(args.out, "{\n" + body + "\n}\n")
    except ArgcError as error:
        print(f"argc recipe-cells: {error}", file=sys.stderr)
        return 2
    return 0


def cells_mapping(specs: Iterable[str]) -> dict[str, list[list[int]]]:
    """Checkpoint name -> sorted [D, T] cells, for `NAME=RECIPE` specs (or `RECIPE`, named
    after the recipe's name): the in-recipe cells `argc sample-metrics --recipe-cells` reads."""
    found: dict[str, list[list[int]]] = {}
    for spec in specs:
        name, _, source = spec.rpartition("=")
        name = name or load_recipe(source).name
        if name in found:
            raise RecipeError(f"checkpoint {name} is named twice")
        found[name] = [list(cell) for cell in sorted(recipe_cells(source))]
    return found


# Planning ------------------------------------------------------------------------------------


def slot_seed(recipe_seed: int, cell: Cell, index: int) -> int:
    """The seed of a cell's `index`-th instance: below BENCHMARK_SEED_BASE, distinct per index
    (index < BENCHMARK_SEED_BASE)."""
    key = f"argc-train/{recipe_seed}/{cell.task}/{cell.level}/{cell.ordering}/{cell.set}"
    offset = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return (offset + index) % BENCHMARK_SEED_BASE


def pool_indices(recipe_seed: int, bucket: KgBucket, count: int, pool: int = KG_POOL) -> list[int]:
    """The pool indices of a bucket's first `count` instances: the start of a permutation
    of the cell's pool (0 .. pool-1, the RL pool's KG_POOL by default) seeded by the recipe
    seed, the family and the cell, so without replacement, and prefix-stable (a larger count
    extends a smaller one's indices); past `pool` instances, the indices pool, pool+1, ... in
    order."""
    key = f"argc-train-kg/{recipe_seed}/{bucket.family}/{bucket.depth}/{bucket.complexity}"
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    moved: dict[int, int] = {}  # a lazy Fisher-Yates shuffle: position -> index held there
    found = []
    for position in range(min(count, pool)):
        pick = rng.randrange(position, pool)
        found.append(moved.get(pick, pick))
        moved[pick] = moved.get(position, position)
    return found + list(range(pool, count))


def _rng(recipe: AnyRecipe, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"argc-train/{recipe.seed}/{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


Key = TypeVar("Key", Cell, KgBucket)


def _apportion(total: int, weights: dict[Key, int], rng: random.Random) -> Counter[Key]:
    """`total` split in proportion to `weights` (largest remainders; ties drawn by `rng`)."""
    order = sorted(weights)
    rng.shuffle(order)
    whole = sum(weights.values())
    shares = Counter({cell: total * weights[cell] // whole for cell in order})
    left = total - sum(shares.values())
    ranked = sorted(order, key=lambda cell: -(total * weights[cell] % whole))
    shares.update(ranked[:left])
    return shares


def allocation(recipe: AnyRecipe) -> Counter:
    """Instances per cell under the budget, per bucket (family, D, T) in a KG recipe (the
    uniform plan; a staged plan has the same stage totals)."""
    rng = _rng(recipe, "budget")
    if isinstance(recipe, KgRecipe):
        found: Counter = Counter()
        for family, total in recipe.family_totals().items():
            buckets = [KgBucket(family, *cell) for cell in recipe.cells]
            found.update(_apportion(total, dict.fromkeys(buckets, 1), rng))
        return found
    budget = recipe.budget
    if budget.kind == "per_cell":
        return Counter({cell: budget.amount for cell in recipe.cells})
    if budget.kind == "total":
        return _apportion(budget.amount, dict.fromkeys(recipe.cells, 1), rng)
    amounts = dict(budget.amount) if isinstance(budget.amount, tuple) else None
    found = Counter()
    for task in sorted({cell.task for cell in recipe.cells}):
        task_cells = [cell for cell in recipe.cells if cell.task == task]
        amount = amounts[task] if amounts else budget.amount
        found.update(_apportion(amount, dict.fromkeys(task_cells, 1), rng))
    return found


def _cell_of(key: Cell | KgBucket) -> Cell | KgCell:
    return key.cell if isinstance(key, KgBucket) else key


def _group(key: Cell | KgBucket) -> str:
    """What replay keeps apart: a KG recipe's families (each keeps its total)."""
    return key.family if isinstance(key, KgBucket) else ""


def _blocks(recipe: AnyRecipe, counts: Counter) -> list[Counter]:
    """Instances per cell (bucket) of each stage, in training order: one block for a uniform
    schedule, a `_stage_block` per stage for a staged one."""
    schedule = recipe.schedule
    if schedule.kind == "uniform":
        return [counts]
    kg = isinstance(recipe, KgRecipe)
    blocks, seen = [], Counter()
    for number, stage in enumerate(schedule.stages):
        own = Counter({key: n for key, n in counts.items() if _in_stage(key, stage)})
        rng = _rng(recipe, f"kg-stage/{number}" if kg else f"stage/{stage[0]}-{stage[1]}")
        blocks.append(_stage_block(own, seen, schedule.replay, rng))
        seen.update(own)
    return blocks


def _in_stage(key: Cell | KgBucket, stage: Any) -> bool:
    return key.cell in stage if isinstance(key, KgBucket) else stage[0] <= key.level <= stage[1]


def _stage_block(own: Counter, seen: Counter, replay: float, rng: random.Random) -> Counter:
    """A stage's instances per cell (bucket): the n of each group (a KG family, or all) in
    its own cells, of which round(replay·n) go instead to fresh instances of the group's cells
    in the earlier stages (`seen`), in proportion to their allocation."""
    block: Counter = Counter()
    for group in sorted({_group(key) for key in own}):
        mine = {key: n for key, n in own.items() if _group(key) == group}
        before = {key: n for key, n in seen.items() if _group(key) == group and n}
        size = sum(mine.values())
        if not size:
            continue
        replayed = int(replay * size + 0.5) if before else 0
        block.update(_apportion(size - replayed, mine, rng))
        if replayed:
            block.update(_apportion(replayed, before, rng))
    return block


def _maker(recipe: AnyRecipe, totals: Counter) -> Callable[[Any, int], Slot | KgSlot]:
    """The slot of a cell's (bucket's) `k`-th instance, for `totals` instances of each."""
    if isinstance(recipe, KgRecipe):
        pool = recipe.pool
        draws = {bucket: pool_indices(recipe.seed, bucket, n, pool) for bucket, n in totals.items()}
        return lambda bucket, k: KgSlot(*bucket, index=draws[bucket][k], split=recipe.split)
    if totals and max(totals.values()) > RETRY_STRIDE:
        raise RecipeError(f"{recipe.name}: more than {RETRY_STRIDE:,} instances of a cell")
    return lambda cell, k: Slot(*cell, seed=slot_seed(recipe.seed, cell, k))


def plan(recipe: AnyRecipe) -> list:
    """The slots of a training run in training order (KgSlot for a KG recipe), each stage
    shuffled; deterministic in the recipe."""
    blocks = _blocks(recipe, allocation(recipe))
    make = _maker(recipe, sum(blocks, Counter()))
    used: Counter = Counter()
    slots: list = []
    for number, block in enumerate(blocks):
        drawn = []
        for key in sorted(block):
            drawn.extend(make(key, used[key] + k) for k in range(block[key]))
            used[key] += block[key]
        _rng(recipe, f"order/{number}").shuffle(drawn)
        slots.extend(drawn)
    return slots
