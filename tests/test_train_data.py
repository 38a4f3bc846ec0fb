"""Training recipes and fresh-instance datasets: validation, plans, seeds disjoint from the
frozen benchmark, and datasets identical whatever the number of workers."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import replace

import pytest
import yaml

import argc.bench.build as bench_build
from argc.bench.build import BENCHMARK_SEED_BASE, SEED_BOUND, Cell
from argc.tasks import LEVELS, GenerationFailed, Instance, suite_tasks
from argc.train import data
from argc.train.data import MAX_RETRIES, build_dataset, generate_slot, instances_dataset
from argc.train.recipes import (
    RETRY_STRIDE,
    RecipeError,
    Schedule,
    Slot,
    allocation,
    load_recipe,
    plan,
    recipe_names,
)
from argc.train.rewards import success_reward

os.environ["HF_HUB_OFFLINE"] = "1"

STUDY = (
    "uniform-bands",
    "staged-bands",
    "staged-replay",
    "staged-reverse",
    "staged-levels",
    "depth-heavy",
    "breadth-heavy",
    "shallow-mix",
)


#: The bundled task recipes (the KG recipes, kg-*, are tested in test_kg_recipes.py).
TASK_RECIPES = [name for name in recipe_names() if not name.startswith("kg-")]


def test_bundled_recipes_load_with_descriptions_and_one_budget():
    assert set(STUDY) | {"tiny", "norms-change-records", "norms-tiny"} == set(TASK_RECIPES)
    for name in TASK_RECIPES:
        recipe = load_recipe(name)
        assert recipe.name == name and recipe.description
        assert recipe.prompt_format == "chat"
    totals = {len(plan(load_recipe(name))) for name in STUDY}
    assert totals == {2880}  # the study compares recipes under one fixed budget
    assert len(plan(load_recipe("tiny"))) == 8


def test_plans_are_deterministic_and_seeds_stay_below_the_benchmark():
    for name in TASK_RECIPES:
        first, second = plan(load_recipe(name)), plan(load_recipe(name))
        assert first == second
        seeds_by_cell: dict = {}
        for slot in first:
            assert 0 <= slot.seed < BENCHMARK_SEED_BASE
            for attempt in range(MAX_RETRIES + 1):
                retry = (slot.seed + attempt * RETRY_STRIDE) % BENCHMARK_SEED_BASE
                assert 0 <= retry < BENCHMARK_SEED_BASE
            seeds_by_cell.setdefault(slot.cell, []).append(slot.seed)
        for seeds in seeds_by_cell.values():
            assert len(seeds) == len(set(seeds))
    other = replace(load_recipe("uniform-bands"), seed=1)
    assert [s.seed for s in plan(other)] != [s.seed for s in plan(load_recipe("uniform-bands"))]


def test_the_benchmark_scans_only_seeds_from_its_base(monkeypatch):
    scanned: list[int] = []

    def refuse(task, level, ordering, seed):
        scanned.append(seed)
        raise GenerationFailed("refused")

    monkeypatch.setattr(bench_build, "generate", refuse)
    bench_build.build_cell(Cell("status_query", 1, "last-link", "elitist"))
    assert scanned == list(range(BENCHMARK_SEED_BASE, BENCHMARK_SEED_BASE + SEED_BOUND))


def test_uniform_plan_covers_exactly_the_cells_with_the_budget():
    recipe = load_recipe("shallow-mix")
    counts = Counter(slot.cell for slot in plan(recipe))
    assert set(counts) == set(recipe.cells)
    assert sum(counts.values()) == recipe.budget.amount
    assert max(counts.values()) - min(counts.values()) <= 1
    assert counts == allocation(recipe)
    levels = [slot.level for slot in plan(recipe)]
    assert levels != sorted(levels)  # mixed, not ordered
    assert {cell.task for cell in recipe.cells if cell.level > 5} == {
        "status_query",
        "claim_chain",
        "attack",
        "defence",
    }


def stage_blocks(recipe):
    """The plan cut into its stages (the uniform plan's stage totals)."""
    counts, slots, blocks = allocation(recipe), plan(recipe), []
    for low, high in recipe.schedule.stages:
        size = sum(n for cell, n in counts.items() if low <= cell.level <= high)
        blocks.append(slots[:size])
        slots = slots[size:]
    assert not slots
    return blocks


@pytest.mark.parametrize("name", ["staged-bands", "staged-replay", "staged-levels"])
def test_staged_plan_runs_easy_to_hard_with_replay_from_earlier_stages(name):
    recipe = load_recipe(name)
    stages, replay = recipe.schedule.stages, recipe.schedule.replay
    assert [low for low, _ in stages] == sorted(low for low, _ in stages)
    assert set(Counter(slot.cell for slot in plan(recipe))) == set(recipe.cells)
    for number, (block, (low, high)) in enumerate(zip(stage_blocks(recipe), stages, strict=True)):
        own = [slot for slot in block if low <= slot.level <= high]
        earlier = [slot for slot in block if slot.level < low]
        assert len(own) + len(earlier) == len(block)  # nothing from later stages
        assert len(earlier) == (int(replay * len(block) + 0.5) if number else 0)
        if earlier and number >= 2:  # replay spreads over every earlier stage
            bands = {
                next(i for i, (lo, hi) in enumerate(stages) if lo <= s.level <= hi) for s in earlier
            }
            assert bands == set(range(number))
    if replay == 0:
        levels = [slot.level for slot in plan(recipe)]
        bands = [next(i for i, (lo, hi) in enumerate(stages) if lo <= lv <= hi) for lv in levels]
        assert bands == sorted(bands)


def test_reverse_stages_run_hard_to_easy():
    recipe = load_recipe("staged-reverse")
    first, *_, last = stage_blocks(recipe)
    assert {slot.level for slot in first} == set(range(11, 16))
    assert {slot.level for slot in last} == set(range(1, 6))


def test_replay_keeps_the_stage_sizes_and_adds_fresh_instances():
    plain, replayed = load_recipe("staged-bands"), load_recipe("staged-replay")
    assert [len(b) for b in stage_blocks(plain)] == [len(b) for b in stage_blocks(replayed)]
    slots = plan(replayed)
    assert len({(slot.cell, slot.seed) for slot in slots}) == len(slots)


# Validation ------------------------------------------------------------------------------------

VALID = {
    "name": "mine",
    "description": "a test recipe",
    "cells": [{"tasks": ["status_query"], "levels": [1, 3]}],
    "budget": {"per_cell": 1},
}


def variant(**changes):
    recipe = {**VALID, **changes}
    return {key: value for key, value in recipe.items() if value is not None}


@pytest.mark.parametrize(
    ("recipe", "message"),
    [
        (variant(epochs=3), "unknown recipe key(s) epochs"),
        (variant(cells=[{"tasks": ["no_such_task"], "levels": [1, 2]}]), "unknown"),
        (variant(cells=[{"tasks": "all", "levels": [0, 3]}]), "levels"),
        (variant(cells=[{"tasks": "all", "levels": [5, 2]}]), "levels"),
        (variant(cells=[{"tasks": "all", "levels": [1, LEVELS[-1] + 1]}]), "levels"),
        (variant(cells=[{"tasks": "all", "levels": 3}]), "levels"),
        (variant(cells=[{"tasks": "all", "levels": [1, 2], "depth": 3}]), "unknown cells block"),
        (variant(cells=[{"tasks": "all", "levels": [1, 2], "orderings": ["best"]}]), "ordering"),
        (variant(cells=[]), "cells"),
        (variant(budget={"per_cell": 1, "total": 3}), "exactly one"),
        (variant(budget={"per_task": 0}), "positive"),
        (variant(budget={"total": 2}), "without an instance"),
        (variant(budget={"per_task": {"attack": 3}}), "per_task"),
        (variant(budget=None), "missing 'budget'"),
        (variant(seed=-1), "seed"),
        (variant(prompt_format="markdown"), "prompt_format"),
        (variant(schedule={"kind": "uniform", "replay": 0.1}), "staged"),
        (variant(schedule={"kind": "random"}), "kind"),
        (variant(schedule={"kind": "staged"}), "stages"),
        (variant(schedule={"kind": "staged", "stages": [[1, 2], [2, 3]]}), "overlap"),
        (variant(schedule={"kind": "staged", "stages": [[1, 2]]}), "no stage"),
        (variant(schedule={"kind": "staged", "stages": [[1, 3], [4, 5]]}), "no cell"),
        (variant(schedule={"kind": "staged", "stages": [[1, 3]], "replay": 1.0}), "replay"),
        (variant(schedule={"kind": "staged", "stages": [[1, 3]], "shuffle": 1}), "unknown"),
        ([1, 2], "mapping"),
    ],
)
def test_invalid_recipes_name_the_file(tmp_path, recipe, message):
    path = tmp_path / "bad-recipe.yaml"
    path.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    with pytest.raises(RecipeError) as error:
        load_recipe(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)


def test_loading_by_path_and_unknown_names(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(variant(budget={"per_task": {"status_query": 14}})))
    recipe = load_recipe(path)
    assert len(plan(recipe)) == 14 and recipe.schedule == Schedule()
    (tmp_path / "broken.yaml").write_text("cells: [", encoding="utf-8")
    with pytest.raises(RecipeError, match="broken.yaml: not valid YAML"):
        load_recipe(tmp_path / "broken.yaml")
    with pytest.raises(RecipeError, match="bundled: .*uniform-bands"):
        load_recipe("no-such-recipe")


# Datasets --------------------------------------------------------------------------------------


def test_tiny_dataset_is_identical_with_one_or_two_workers():
    recipe = load_recipe("tiny")
    one, two = build_dataset(recipe, workers=1), build_dataset(recipe, workers=2)
    assert one.to_list() == two.to_list()
    assert one.column_names == ["prompt", "instance", "id", "task", "level", "ordering", "set"]
    slots = plan(recipe)
    for row, slot in zip(one, slots, strict=True):
        instance = Instance.from_record(json.loads(row["instance"]))
        assert (instance.task, instance.level, instance.ordering, instance.set, instance.seed) == (
            slot.task,
            slot.level,
            slot.ordering,
            slot.set,
            slot.seed,
        )
        assert row["id"] == instance.id and isinstance(row["level"], int)
        assert row["prompt"] == [{"role": "user", "content": instance.prompt}]
        answer = f"<answer>{instance.reference}</answer>"
        assert success_reward([[{"role": "assistant", "content": answer}]], [row["instance"]]) == [
            1.0
        ]


def test_prompt_formats_and_system_message():
    slots = plan(load_recipe("tiny"))[:2]
    text = instances_dataset(slots, "text", "Be brief.")
    chat = instances_dataset(slots, "chat", "Be brief.")
    for text_row, chat_row in zip(text, chat, strict=True):
        prompt = Instance.from_record(json.loads(text_row["instance"])).prompt
        assert text_row["prompt"] == f"Be brief.\n\n{prompt}"
        assert chat_row["prompt"] == [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": prompt},
        ]


def test_failed_seeds_move_to_the_next_derived_seed(monkeypatch):
    tried: list[int] = []
    real = data.generate

    def flaky(task, level, ordering, seed):
        tried.append(seed)
        if len(tried) < 3:
            raise GenerationFailed("no candidate")
        return real(task, level, ordering, seed)

    monkeypatch.setattr(data, "generate", flaky)
    slot = Slot("status_query", 1, "last-link", "elitist", BENCHMARK_SEED_BASE - 5)
    instance = generate_slot(slot)
    expected = [(slot.seed + j * RETRY_STRIDE) % BENCHMARK_SEED_BASE for j in range(3)]
    assert tried == expected and instance.seed == expected[-1] < BENCHMARK_SEED_BASE

    def never(task, level, ordering, seed):
        raise GenerationFailed("no candidate")

    monkeypatch.setattr(data, "generate", never)
    with pytest.raises(GenerationFailed, match=f"{MAX_RETRIES} replacements"):
        generate_slot(slot)


def test_every_registered_task_is_a_recipe_task():
    recipe = load_recipe("uniform-bands")
    assert {cell.task for cell in recipe.cells} == set(suite_tasks())
    assert {cell.level for cell in recipe.cells} == set(LEVELS)
