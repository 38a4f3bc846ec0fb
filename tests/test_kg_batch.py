"""Batched KG solving: `solve_kg_many` gives `solve_kg`'s models and `abduce_many` the
consistent sets of `abduce` on generated worlds, a world or problem past its limits (or in
conflict) failing alone; instances drawn side by side (`generate_instances`) are the ones
drawn alone, byte for byte the rows the generator gave before batching."""

from __future__ import annotations

import hashlib
import json
import random

import kg_worlds
import pytest
from test_kg_asp import friendship
from test_kg_language import PRELUDE

from argc.compiler.control import Limits
from argc.compiler.kg.abduce import abduce, abduce_many
from argc.compiler.kg.solve import (
    Conflict,
    KgModel,
    solve_kg,
    solve_kg_many,
    solve_timeline,
    solve_timelines,
)
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg import Event, KgWorld, parse_kg
from argc.tasks.kg.families import FAMILIES, Exhausted, generate_instance, generate_instances
from argc.tasks.kg.generator import generate_graph
from argc.tasks.kg.splits import PLANS, graph_seed
from argc.tasks.kg.traces import chain_times


def generated_worlds(count: int) -> list[KgWorld]:
    """Worlds of the pretrain and RL splits, every cell in turn."""
    cells = [("pretrain", cell) for cell in PLANS["pretrain"].cells]
    cells += [("rl", cell) for cell in PLANS["rl"].cells]
    return [
        generate_graph(d, t, graph_seed(split, d, t, index), split).world
        for index in range(count)
        for split, (d, t) in [cells[index % len(cells)]]
    ]


def conflicted() -> KgWorld:
    """A world built without its checks: an object exchanged for itself has two owners."""
    world = parse_kg(PRELUDE)
    exchange = Event("exchange", ("a", "b"), ("o", "o"))
    return KgWorld(world.persons, world.objects, world.declarations, (exchange,))


# solve_kg_many --------------------------------------------------------------------------------


def test_batched_models_equal_single_ones_on_generated_worlds():
    worlds = generated_worlds(200) + [kg_worlds.random_world(seed) for seed in range(20)]
    batched = solve_kg_many(worlds)
    assert all(isinstance(model, KgModel) for model in batched)
    assert batched == [solve_kg(world) for world in worlds]
    assert solve_kg_many(worlds[:20], batch_size=7) == batched[:20]
    assert solve_kg_many([]) == []


def test_a_world_past_its_limits_or_in_conflict_fails_alone():
    worlds = generated_worlds(5)
    limits = Limits(instantiations=50_000)
    found = solve_kg_many(
        [worlds[0], friendship(100), worlds[1], conflicted(), *worlds[2:]], limits
    )
    assert isinstance(found[1], LimitExceeded) and "more than 50,000" in str(found[1])
    assert isinstance(found[3], Conflict) and "o has no single state at time 1" in str(found[3])
    models = [found[0], found[2], *found[4:]]
    assert models == [solve_kg(world, limits) for world in worlds]
    with pytest.raises(ValueError, match="batch size"):
        solve_kg_many(worlds, batch_size=0)


def test_a_timeline_is_the_models_and_an_objects_timeline_its_part():
    """A world's timeline alone is its model's; one object's alone (its events, no kinship)
    gives that object's states and depth and the times of its events as the model does."""
    worlds = generated_worlds(40) + [kg_worlds.random_world(seed) for seed in range(10)]
    models = solve_kg_many(worlds)
    timelines = solve_timelines(worlds)
    assert [(t.timeline, t.affected, t.depths) for t in timelines] == [
        (m.timeline, m.affected, m.depths) for m in models
    ]
    targets = [world.objects[-1].name for world in worlds]
    parts = solve_timelines(worlds, objects=[(target,) for target in targets], batch_size=7)
    for model, part, target in zip(models, parts, targets, strict=True):
        assert [states[target] for states in part.timeline] == [
            states[target] for states in model.timeline
        ]
        assert {tuple(states) for states in part.timeline} == {(target,)}
        assert chain_times(part, target) == chain_times(model, target)
        assert part.depths == {target: model.depths[target]}
    assert solve_timeline(worlds[0], objects=(targets[0],)) == parts[0]
    assert isinstance(solve_timelines([conflicted(), worlds[0]])[0], Conflict)


# abduce_many ----------------------------------------------------------------------------------


def problems(count: int) -> list[tuple[KgWorld, str, object]]:
    """An event of the target's chain, or its declaration, hidden in generated worlds."""
    rng = random.Random(7)
    found = []
    for index in range(count):
        d, t = PLANS["rl"].cells[index * 7 % 60]
        graph = generate_graph(d, t, index, "rl")
        world, target = graph.world, graph.target
        times = chain_times(solve_kg(world), target)
        if rng.random() < 0.75:
            masked = world.events[rng.choice(times) - 1]
        else:
            masked = next(item for item in world.declarations if item.object == target)
        found.append((world, target, masked))
    return found


def test_batched_abductions_equal_single_ones():
    asked = problems(60)
    assert {len(world.events) <= 10 for world, _, _ in asked} == {True, False}  # short and long
    batched = abduce_many(asked)
    assert batched == [abduce(*problem) for problem in asked]
    assert all(problem[2] in found for problem, found in zip(asked, batched, strict=True))
    assert abduce_many(asked[:9], batch_size=4) == batched[:9]


def test_an_abduction_past_its_limits_fails_alone():
    asked = problems(4)
    world, target, masked = asked[0]
    limits = Limits(extensions=1)  # a problem with two consistent elements or more fails
    found = abduce_many(asked, limits)
    singles = []
    for problem in asked:
        try:
            singles.append(abduce(*problem, limits))
        except LimitExceeded as exceeded:
            singles.append(exceeded)
    assert [type(item) for item in found] == [type(item) for item in singles]
    assert any(isinstance(item, LimitExceeded) for item in found)
    assert any(not isinstance(item, LimitExceeded) for item in found)
    assert [item for item in found if isinstance(item, tuple)] == [
        item for item in singles if isinstance(item, tuple)
    ]
    with pytest.raises(ValueError, match="not an object"):
        abduce_many([(world, "nothing", masked)])


# Instances ------------------------------------------------------------------------------------

#: SHA-256 of the rows of each family's instances of seed 0 at the pretrain cells and at the
#: RL cells of depth 1, 5 and 10, as the generator made them one by one before batching (the
#: abductive ones since each request draws its form before its graphs and no event the world
#: has twice is hidden, the inductive and analogy ones since chains are planted only where
#: the family stays possible).
ROWS_BEFORE_BATCHING = {
    "deductive": "11f73f07dfd300e06e08eec5c79201bce609c3740b69235eb386280f61cbcc00",
    "abductive": "c9f56a4ded2d15967ff6e60872ee5ee8612350ebfc94cf2b21bdce55a29a6158",
    "inductive": "5ad7921042f8abde8cdccdd2378e351db1c76036fc02223c0e19add85f1977ef",
    "analogy": "c4b9e8840af133935f6a2c4cb5649247add439035502bfed25cb0074e932d06e",
}


def rows(instances) -> str:
    return "".join(json.dumps(instance.row(), sort_keys=True) + "\n" for instance in instances)


@pytest.mark.parametrize("family", FAMILIES)
def test_instances_drawn_together_are_the_ones_drawn_before(family):
    pretrain = [(family, d, t, 0) for d, t in PLANS["pretrain"].cells]
    rl = [(family, d, t, 0) for d, t in PLANS["rl"].cells if d in (1, 5, 10)]
    text = rows(generate_instances(pretrain, "pretrain") + generate_instances(rl, "rl"))
    assert hashlib.sha256(text.encode()).hexdigest() == ROWS_BEFORE_BATCHING[family]
    alone = [generate_instance(*request, "rl") for request in rl[:4]]
    assert rows(alone) == rows(generate_instances(rl[:4], "rl", batch_size=3))


def test_a_request_without_an_instance_is_exhausted_in_its_place(monkeypatch):
    from argc.tasks.kg import families

    def picky(graph, rng):
        """The analogy builder on graphs of even seeds only (an analogy is always found
        otherwise: on new persons at worst)."""
        if graph.seed % 2:
            raise families.NoInstance("an odd seed")
        return (yield from families.analogy(graph, rng))

    monkeypatch.setattr(families, "ATTEMPTS", 1)
    monkeypatch.setitem(families.BUILDERS, "analogy", picky)
    requests = [("analogy", 3, 2, graph_seed("pretrain", 3, 2, index)) for index in range(12)]
    found = generate_instances(requests, "pretrain")
    exhausted = [index for index, item in enumerate(found) if isinstance(item, Exhausted)]
    assert exhausted and len(exhausted) < len(requests)
    with pytest.raises(Exhausted, match="no analogy instance at D3 T2"):
        generate_instance(*requests[exhausted[0]], "pretrain")
    with pytest.raises(ValueError, match="unknown family"):
        generate_instances([("parable", 1, 1, 0)])
