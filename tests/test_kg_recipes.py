"""KG training recipes: the 15 recipes of Table 16 (cells and budgets), the allocation and the
RL-pool draws, staged schedules, the resumable KG dataset, `argc recipe-cells` and a CPU
smoke run of `train/configs/kg-tiny-cpu.yaml`."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
import yaml

from argc.files import ResumeMismatch
from argc.tasks import score
from argc.tasks.framework import Instance
from argc.tasks.kg.splits import graph_seed
from argc.train import data
from argc.train.recipes import (
    KG_BUDGET,
    KG_POOL,
    KgBucket,
    KgRecipe,
    KgSlot,
    RecipeError,
    allocation,
    cells_mapping,
    load_recipe,
    parse_recipe,
    plan,
    pool_indices,
    recipe_cells,
    recipe_names,
)

os.environ["HF_HUB_OFFLINE"] = "1"

CONFIGS = Path(__file__).resolve().parent.parent / "train" / "configs"


def region(depths: tuple[int, int], complexities: tuple[int, int]) -> set[tuple[int, int]]:
    return {
        (d, t)
        for d in range(depths[0], depths[1] + 1)
        for t in range(complexities[0], complexities[1] + 1)
    }


GRID = region((1, 10), (1, 6))
PRETRAIN = region((1, 4), (1, 2))
#: Table 16: recipe -> (coverage region, number of cells).
TABLE_16 = {
    "kg-baseline": (PRETRAIN, 8),
    "kg-cmplx-mid": (region((1, 4), (3, 4)), 8),
    "kg-cmplx-high": (region((1, 4), (5, 6)), 8),
    "kg-cmplx-intersect": (region((1, 4), (2, 3)), 8),
    "kg-cmplx-uniform": (region((1, 4), (1, 6)), 24),
    "kg-depth-mid": (region((5, 7), (1, 2)), 6),
    "kg-depth-high": (region((8, 10), (1, 2)), 6),
    "kg-depth-intersect": (region((4, 6), (1, 2)), 6),
    "kg-depth-uniform": (region((1, 10), (1, 2)), 20),
    "kg-diag-mid": (region((5, 7), (3, 4)), 6),
    "kg-diag-high": (region((8, 10), (5, 6)), 6),
    "kg-deep-mix": (region((5, 10), (3, 6)), 24),
    "kg-shallow-mix": (region((1, 4), (1, 6)) | region((5, 10), (1, 2)), 36),
    "kg-offbase-mix": (GRID - PRETRAIN, 52),
    "kg-full-coverage": (GRID, 60),
}
KG_NAMES = [name for name in recipe_names() if name.startswith("kg-")]


def scaled(name: str, scale: float, **changes) -> KgRecipe:
    """A bundled KG recipe at another scale (and other top-level settings)."""
    resource = Path(__file__).resolve().parent.parent / "train" / "recipes" / f"{name}.yaml"
    text = yaml.safe_load(resource.read_text(encoding="utf-8"))
    text["kg"]["scale"] = scale
    recipe = parse_recipe({**text, **changes}, name)
    assert isinstance(recipe, KgRecipe)
    return recipe


def family_sums(counts: Counter) -> dict[str, int]:
    found: Counter = Counter()
    for bucket, count in counts.items():
        found[bucket.family] += count
    return dict(found)


# The recipes ---------------------------------------------------------------------------------


def test_table_16_regions_and_cell_counts() -> None:
    assert [len(cells) for cells, _ in TABLE_16.values()] == [n for _, n in TABLE_16.values()]
    assert [n for _, n in TABLE_16.values()] == [8, 8, 8, 8, 24, 6, 6, 6, 20, 6, 6, 24, 36, 52, 60]
    for name, (cells, _) in TABLE_16.items():
        recipe = load_recipe(name)
        assert isinstance(recipe, KgRecipe) and recipe.name == name and recipe.description
        assert recipe_cells(name) == cells, name
        assert recipe.schedule.kind == "uniform" and recipe.prompt_format == "text"
        assert dict(recipe.budget) == KG_BUDGET and recipe.scale == 1


def test_budgets_split_evenly_and_sum_to_the_family_totals() -> None:
    for name in KG_NAMES:
        recipe = load_recipe(name)
        counts = allocation(recipe)
        assert family_sums(counts) == recipe.family_totals(), name
        assert {bucket.cell for bucket, n in counts.items() if n} == set(recipe.cells)
        for family in recipe.family_totals():
            shares = [counts[KgBucket(family, *cell)] for cell in recipe.cells]
            assert max(shares) - min(shares) <= 1, (name, family)
        if name != "kg-tiny":
            assert recipe.family_totals() == KG_BUDGET  # 220K tasks at scale 1


def test_scale_shrinks_the_budget_and_the_plan_keeps_it() -> None:
    recipe = scaled("kg-full-coverage", 0.001)
    assert recipe.family_totals() == {
        "deductive": 140,
        "abductive": 60,
        "inductive": 10,
        "analogy": 10,
    }
    slots = plan(recipe)
    assert len(slots) == 220 == len(set(slots))
    assert Counter(slot.family for slot in slots) == Counter(recipe.family_totals())
    assert {slot.cell for slot in slots} == GRID  # deductive alone covers every cell
    assert Counter((s.family, *s.cell) for s in slots) == +allocation(recipe)
    cells = [slot.cell for slot in slots]
    assert cells != sorted(cells)  # mixed, not in cell order


# Pool draws ----------------------------------------------------------------------------------


def test_pool_draws_are_without_replacement_prefix_stable_and_overflow_in_order() -> None:
    bucket = KgBucket("deductive", 5, 1)
    few, many = pool_indices(0, bucket, 50), pool_indices(0, bucket, 5000)
    assert many[:50] == few and len(set(many)) == 5000
    assert all(0 <= index < KG_POOL for index in many)
    assert pool_indices(1, bucket, 50) != few  # the recipe seed draws another sample
    assert pool_indices(0, KgBucket("abductive", 5, 1), 50) != few
    # Depth-Mid at scale 1: 140K / 6 cells = 23,334 > 20,000 deductive instances per cell
    whole = pool_indices(0, bucket, KG_POOL + 3)
    assert sorted(whole[:KG_POOL]) == list(range(KG_POOL))
    assert whole[KG_POOL:] == [KG_POOL, KG_POOL + 1, KG_POOL + 2]
    assert max(allocation(load_recipe("kg-depth-mid")).values()) == 23_334


def test_plans_are_deterministic_and_recipes_share_their_pool() -> None:
    base, mix = scaled("kg-baseline", 0.01), scaled("kg-shallow-mix", 0.01)
    assert plan(base) == plan(scaled("kg-baseline", 0.01))
    shared = KgBucket("deductive", 1, 1)
    mine = [s.index for s in plan(base) if (s.family, *s.cell) == shared]
    theirs = [s.index for s in plan(mix) if (s.family, *s.cell) == shared]
    assert len(mine) == 175 and len(theirs) == 39  # 1,400 deductive over 8 and 36 cells
    assert set(theirs) <= set(mine)  # the same seed draws the same start of the pool
    other = {s.index for s in plan(scaled("kg-baseline", 0.01, seed=7)) if s.family == "deductive"}
    assert other != set(mine)
    slot = KgSlot("deductive", 1, 1, theirs[0])
    assert slot.seed == graph_seed("rl", 1, 1, theirs[0])


def test_the_same_pool_index_gives_the_same_instance_in_two_recipes() -> None:
    def recipe(cells: list) -> KgRecipe:
        found = parse_recipe({"kg": {"cells": cells, "budget": {"deductive": 4}}}, "test")
        assert isinstance(found, KgRecipe)
        return found

    one = data.build_dataset(recipe([[1, 1], [2, 1]]))
    two = data.build_dataset(recipe([[1, 1], [1, 2]]))
    first = {row["id"]: row["instance"] for row in one if row["depth"] == 1}
    second = {row["id"]: row["instance"] for row in two if row["complexity"] == 1}
    assert len(first) == 2 and first == second


# Staged schedules ----------------------------------------------------------------------------


def stages_of(recipe: KgRecipe) -> list[list[KgSlot]]:
    """The plan cut into its stages (the stage totals of the uniform plan)."""
    counts, slots, found = allocation(recipe), plan(recipe), []
    for stage in recipe.schedule.stages:
        size = sum(n for bucket, n in counts.items() if bucket.cell in stage)
        found.append(slots[:size])
        slots = slots[size:]
    assert not slots
    return found


def test_staged_curricula_run_their_stages_in_order() -> None:
    e2h, h2e = scaled("kg-cmplx-3block", 0.01), scaled("kg-cmplx-3block-h2e", 0.01)
    assert allocation(e2h) == allocation(scaled("kg-cmplx-uniform", 0.01))
    blocks = [{slot.complexity for slot in stage} for stage in stages_of(e2h)]
    assert blocks == [{1, 2}, {3, 4}, {5, 6}]
    blocks = [{slot.complexity for slot in stage} for stage in stages_of(h2e)]
    assert blocks == [{5, 6}, {3, 4}, {1, 2}]
    depths = [{slot.depth for slot in stage} for stage in stages_of(scaled("kg-depth-10block", 1))]
    assert depths == [{d} for d in range(1, 11)]


def test_replay_draws_fresh_instances_of_earlier_stages_per_family() -> None:
    recipe = scaled("kg-depth-3block-replay", 0.01)
    slots = plan(recipe)
    assert Counter(slot.family for slot in slots) == Counter(recipe.family_totals())
    assert len(set(slots)) == len(slots)  # replayed instances are fresh pool draws
    stages = recipe.schedule.stages
    for number, block in enumerate(stages_of(recipe)):
        earlier = [s for s in block if not any(s.cell in stage for stage in stages[number:])]
        assert all(s.cell in stages[number] for s in block if s not in earlier)
        for family in KG_BUDGET:
            size = sum(1 for s in block if s.family == family)
            replayed = sum(1 for s in earlier if s.family == family)
            assert replayed == (int(0.2 * size + 0.5) if number else 0), (number, family)


# Validation ----------------------------------------------------------------------------------

VALID = {"name": "mine", "kg": {"cells": [[1, 1], [2, 1]], "budget": {"deductive": 2}}}


def kg(**changes) -> dict:
    block = {key: value for key, value in {**VALID["kg"], **changes}.items() if value is not None}
    return {**VALID, "kg": block}


@pytest.mark.parametrize(
    ("recipe", "message"),
    [
        (kg(cells=[[11, 1]]), "no cell [11, 1] in the grid D1-D10 x T1-T6"),
        (kg(cells=[[1, 7]]), "no cell [1, 7]"),
        (kg(cells=[{"depths": [0, 3]}]), "depths must be [low, high] with 1 <= low"),
        (kg(cells=[{"complexities": [2, 1]}]), "complexities must be [low, high]"),
        (kg(cells=[{"depth": [1, 2]}]), "unknown kg cells block 1 key(s) depth"),
        (kg(cells=[]), "non-empty list"),
        (kg(cells=None), "missing 'cells'"),
        (kg(budget={"deductive": -5}), "kg budget deductive must be a non-negative integer"),
        (kg(budget={"deduction": 5}), "unknown family deduction; known: deductive, abductive"),
        (kg(budget={"deductive": 0}), "holds no instance"),
        (kg(budget={"deductive": 1}), "leaves 1 of 2 cells without an instance (e.g. D"),
        (kg(scale=0), "scale must be a positive number"),
        (kg(scale=0.0001), "holds no instance at scale"),
        (kg(epochs=1), "unknown kg key(s) epochs"),
        ({**VALID, "budget": {"total": 3}}, "unknown KG recipe key(s) budget"),
        ({**VALID, "kg": [1, 2]}, "kg must be a mapping"),
        (
            {**VALID, "schedule": {"kind": "staged", "stages": [{"depths": [1, 2]}, [2, 1]]}},
            "stages overlap (e.g. at D2 T1)",
        ),
        (
            {**VALID, "schedule": {"kind": "staged", "stages": [[1, 1]]}},
            "1 cells are in no stage (e.g. D2 T1)",
        ),
        (
            {**VALID, "schedule": {"kind": "staged", "stages": [[1, 1], [2, 1], [3, 1]]}},
            "stage(s) 3 hold no cell",
        ),
        (
            {**VALID, "schedule": {"kind": "staged", "stages": {"depths": [1, 2]}}},
            "a list of regions",
        ),
    ],
)
def test_bad_kg_recipes_say_what_is_wrong(tmp_path: Path, recipe: dict, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    with pytest.raises(RecipeError) as error:
        load_recipe(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)


def test_recipe_cells_refuses_a_task_recipe() -> None:
    with pytest.raises(RecipeError, match="not a KG recipe"):
        recipe_cells("tiny")
    with pytest.raises(RecipeError, match="named twice"):
        cells_mapping(["a=kg-baseline", "a=kg-depth-high"])


# Datasets ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny() -> tuple[KgRecipe, object]:
    recipe = load_recipe("kg-tiny")
    assert isinstance(recipe, KgRecipe)
    return recipe, data.build_dataset(recipe, workers=2)


def test_tiny_dataset_rows_score_one_with_their_reference(tiny) -> None:
    recipe, dataset = tiny
    assert dataset.column_names == [
        "prompt",
        "instance",
        "id",
        "task",
        "level",
        "ordering",
        "set",
        "depth",
        "complexity",
    ]
    assert Counter(dataset["task"]) == Counter(
        {f"kg_{f}": 2 for f in ("deductive", "abductive", "inductive", "analogy")}
    )
    for row, slot in zip(dataset, plan(recipe), strict=True):
        instance = Instance.from_record(json.loads(row["instance"]))
        assert (instance.task, row["depth"], row["complexity"]) == (
            f"kg_{slot.family}",
            slot.depth,
            slot.complexity,
        )
        assert instance.meta["split"] == "rl" and row["prompt"] == instance.prompt
        assert score(instance, instance.reference).success, instance.id


def test_tiny_dataset_is_byte_identical_whatever_the_workers(tiny) -> None:
    recipe, dataset = tiny
    again = data.build_dataset(recipe, workers=1)
    assert json.dumps(again.to_list()) == json.dumps(dataset.to_list())


def test_the_cache_resumes_an_interrupted_build_and_is_read_back(
    tiny, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recipe, dataset = tiny
    cache = tmp_path / "run" / data.KG_INSTANCES
    lines = [json.dumps({data.CACHE_KEY: data.kg_request(plan(recipe))}, sort_keys=True)]
    lines += [row["instance"] for row in dataset.select(range(3))]
    partial = cache.with_name(cache.name + ".partial")
    partial.parent.mkdir()
    partial.write_text("\n".join(lines) + '\n{"id": "torn', encoding="utf-8")
    made: list[KgSlot] = []
    original = data.generate_kg_slot
    monkeypatch.setattr(data, "generate_kg_slot", lambda slot: made.append(slot) or original(slot))
    resumed = data.build_dataset(recipe, cache=cache)
    assert made == plan(recipe)[3:]  # only the missing instances are made
    assert resumed.to_list() == dataset.to_list()
    assert not partial.exists() and len(cache.read_text().splitlines()) == 9
    made.clear()
    assert data.build_dataset(recipe, cache=cache).to_list() == dataset.to_list()
    assert not made  # read back
    other = parse_recipe({"kg": {"cells": [[1, 1]], "budget": {"analogy": 1}}}, "other")
    with pytest.raises(ResumeMismatch, match="delete it to build the dataset again"):
        data.build_dataset(other, cache=cache)


def test_recipe_cells_command_writes_the_mapping(tmp_path: Path) -> None:
    from argc.cli import main
    from argc.train.metrics import read_recipe_cells

    out = tmp_path / "cells.json"
    assert main(["recipe-cells", "kg-baseline", "high=kg-depth-high", "--out", str(out)]) == 0
    found = json.loads(out.read_text())
    assert list(found) == ["kg-baseline", "high"]
    assert read_recipe_cells(out)["high"] == TABLE_16["kg-depth-high"][0]  # what metrics read
    assert found["kg-baseline"] == sorted(found["kg-baseline"])
    assert main(["recipe-cells", "tiny", "--out", str(tmp_path / "no.json")]) == 2


# Training ------------------------------------------------------------------------------------


def test_kg_tiny_cpu_config_trains_and_logs_the_kg_rewards(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from argc.cli import main

    out = tmp_path / "run"
    config = CONFIGS / "kg-tiny-cpu.yaml"
    assert main(["train", "--config", str(config), "--output-dir", str(out)]) == 0
    steps = [e for e in json.loads((out / "log_history.json").read_text()) if "loss" in e]
    assert len(steps) == 3
    for name in ("kg_gated_reward", "kg_answer_reward", "kg_process_reward"):
        assert all(f"rewards/{name}/mean" in entry for entry in steps), name
    assert (out / data.KG_INSTANCES).is_file() and (out / "model.safetensors").is_file()
