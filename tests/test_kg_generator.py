"""Generated KG worlds: presets, exact depth, name pools per split, rendering and splits."""

from __future__ import annotations

import json
import time
from collections import Counter

import kg_brute
import pytest

from argc.compiler.control import Limits
from argc.compiler.kg.solve import solve_kg
from argc.dsl.kg import depth, parse_kg
from argc.tasks.kg.generator import COMPLEXITIES, DEPTHS, PRESETS, generate_graph
from argc.tasks.kg.names import OBJECT_NAMES, SPLITS, gender, person_pool
from argc.tasks.kg.rendering import VARIANTS, render, sentences
from argc.tasks.kg.splits import PLANS, generate_split, graph_row, split_rows, write_jsonl
from argc.tasks.norms.families import stream


def chain_persons(graph) -> list[set[str]]:
    """The persons taking part in each chain: its declaration and its events."""
    world = graph.world
    found = [set() for _ in graph.chains]
    for declaration in world.declarations:
        found[graph.chains.index(declaration.object)].add(declaration.person)
    for event in world.events:
        for thing in event.objects:
            found[graph.chains.index(thing)].update(event.actors)
    return found


def exchanges(graph) -> int:
    return sum(event.kind == "exchange" for event in graph.world.events)


def test_table_5_presets():
    assert {t: (p.chains, p.persons, p.crossover, p.exchange) for t, p in PRESETS.items()} == {
        1: ({1: 1.0}, (5, 8), 0.0, 0.0),
        2: ({1: 0.5, 2: 0.5}, (8, 12), 0.2, 0.0),
        3: ({2: 1.0}, (10, 15), 0.3, 0.2),
        4: ({3: 1.0}, (12, 18), 0.5, 0.5),
        5: ({4: 1.0}, (15, 22), 0.8, 0.8),
        6: ({5: 1.0}, (18, 25), 1.0, 1.0),
    }


def test_deterministic_in_the_arguments():
    first = generate_graph(6, 5, 11, "eval")
    assert first == generate_graph(6, 5, 11, "eval")
    assert first.world.to_text() == generate_graph(6, 5, 11, "eval").world.to_text()
    assert first.world != generate_graph(6, 5, 12, "eval").world
    assert first.world != generate_graph(6, 5, 11, "rl").world
    rendered = render(first, stream("r", 1))
    assert rendered == render(first, stream("r", 1))


@pytest.mark.parametrize("bad", [(0, 1), (11, 1), (1, 0), (1, 7)])
def test_out_of_range(bad):
    with pytest.raises(ValueError):
        generate_graph(*bad, seed=0)
    with pytest.raises(ValueError):
        generate_graph(1, 1, 0, "test")


def test_depth_exact_in_every_cell():
    limits = Limits(seconds=10)
    for d in DEPTHS:
        for t in COMPLEXITIES:
            for seed in range(3):
                graph = generate_graph(d, t, seed)
                assert (graph.depth, graph.complexity, graph.seed) == (d, t, seed)
                assert graph.target == graph.chains[0]
                assert depth(graph.world, graph.target) == d
                if seed == 0:
                    assert solve_kg(graph.world, limits).depths[graph.target] == d


def test_structure_within_the_presets():
    for t, preset in PRESETS.items():
        counts = Counter()
        crossed = []
        swaps = 0
        for seed in range(40):
            graph = generate_graph(1 + seed % 10, t, seed)
            world = graph.world
            assert preset.persons[0] <= len(world.persons) <= preset.persons[1]
            assert len(world.objects) == len(graph.chains)
            counts[len(graph.chains)] += 1
            crossed.append(len(graph.crossed) / len(graph.chains))
            swaps += exchanges(graph)
            if not graph.crossed and not exchanges(graph):
                groups = chain_persons(graph)
                for index, group in enumerate(groups):
                    for other in groups[index + 1 :]:
                        assert not group & other, "chains share persons without crossover"
        assert set(counts) == set(preset.chains), (t, counts)
        if preset.exchange == 0:
            assert swaps == 0
        else:
            assert swaps > 0
        if preset.crossover in (0, 1):
            assert set(crossed) == {preset.crossover}
    # T2: about one chain in five draws persons from all of them.
    chains = crossed_chains = 0
    for seed in range(200):
        graph = generate_graph(3, 2, seed)
        chains += len(graph.chains)
        crossed_chains += len(graph.crossed)
    assert 0.1 < crossed_chains / chains < 0.3


def test_exchanges_on_the_target_count_toward_its_depth():
    touching = 0
    for seed in range(60):
        graph = generate_graph(2, 6, seed)
        on_target = [e for e in graph.world.events if graph.target in e.objects]
        assert len(on_target) == 2
        touching += any(e.kind == "exchange" for e in on_target)
    assert touching > 0


def test_name_pools_disjoint_and_used():
    pools = {split: set(person_pool(split)) for split in SPLITS}
    assert not pools["pretrain"] & pools["rl"]
    assert not pools["pretrain"] & pools["eval"]
    assert not pools["rl"] & pools["eval"]
    for split in SPLITS:
        for seed in range(5):
            graph = generate_graph(3, 4, seed, split)
            assert graph.split == split
            for person in graph.world.persons:
                assert person.name in pools[split]
                assert person.gender == gender(person.name)
            assert all(thing.name in OBJECT_NAMES for thing in graph.world.objects)


def test_worlds_print_back_and_kinship_is_consistent():
    for t in COMPLEXITIES:
        for seed in range(8):
            graph = generate_graph(1 + seed, t, seed, SPLITS[seed % 3])
            world = graph.world
            assert parse_kg(world.to_text()) == world
            relations = Counter(fact.relation for fact in world.facts)
            assert 1 <= relations["friend"] <= 3
            assert relations["husband"] >= 1 or len({p.gender for p in world.persons}) == 1


def test_every_cell_gives_possible_families():
    for d in DEPTHS:
        for t in COMPLEXITIES:
            for seed in (71, 73):
                world = generate_graph(d, t, seed, SPLITS[(d + t) % 3]).world
                assert kg_brute.impossible(world) == [], (d, t, seed)


def test_renderings_mention_everything_and_use_every_variant():
    used = Counter()
    mixed = 0
    for seed in range(30):
        graph = generate_graph(1 + seed % 10, 1 + seed % 6, seed)
        rng = stream("render", seed)
        said = sentences(graph, rng)
        story = " ".join(sentence.text for sentence in said)
        for person in graph.world.persons:
            first, family = person.name.split("_", 1)
            assert f"{first.capitalize()} {family.capitalize()}" in story
        for thing in graph.world.objects:
            assert thing.name.replace("_", " ") in story
        dynamic = [s for s in said if s.stream == "dynamic"]
        static = [s for s in said if s.stream == "static"]
        world = graph.world
        assert len(dynamic) == len(world.declarations) + len(world.events)
        assert len(static) == len(world.persons) + len(world.facts)
        used.update((s.stream, s.variant) for s in said)
        streams = [sentence.stream for sentence in said]
        mixed += streams.index("static") < len(streams) - streams[::-1].index("dynamic")
    assert mixed > 20, "static sentences come among the events"
    for variant in VARIANTS:
        assert used["dynamic", variant] > 0
        assert used["static", variant] > 0


def test_events_keep_their_order_in_the_story():
    graph = generate_graph(10, 1, 3)
    said = [s for s in sentences(graph, stream("order")) if s.stream == "dynamic"]
    events = graph.world.events
    for sentence, event in zip(said[len(graph.world.declarations) :], events, strict=True):
        for person in event.actors:
            first, family = person.split("_", 1)
            assert f"{first.capitalize()} {family.capitalize()}" in sentence.text


def test_split_plans_and_rows(tmp_path):
    assert len(PLANS["pretrain"].cells) == 8 and PLANS["pretrain"].per_cell == 400_000
    assert len(PLANS["rl"].cells) == 60 and PLANS["rl"].per_cell == 20_000
    assert len(PLANS["eval"].cells) == 60 and PLANS["eval"].per_cell == 80
    graphs = list(generate_split("pretrain", per_cell=2))
    assert [(g.depth, g.complexity) for g in graphs] == [
        cell for cell in PLANS["pretrain"].cells for _ in range(2)
    ]
    assert graphs == list(generate_split("pretrain", per_cell=2))
    assert graphs != list(generate_split("pretrain", per_cell=2, seed=1))
    rows = list(split_rows("eval", per_cell=1))
    assert len(rows) == 60
    path = tmp_path / "eval.jsonl"
    write_jsonl(path, rows)
    read = [json.loads(line) for line in path.read_text().splitlines()]
    assert read == rows
    assert set(read[0]) == {"world", "rendering", "depth", "complexity", "target", "split", "seed"}
    assert all(row["split"] == "eval" for row in read)
    for row in read[::7]:
        assert depth(parse_kg(row["world"]), row["target"]) == row["depth"]
    with pytest.raises(ValueError):
        next(generate_split("test"))


def test_throughput_with_rendering(capsys):
    graphs = 0
    start = time.perf_counter()
    for d in DEPTHS:
        for t in COMPLEXITIES:
            for seed in range(5):
                graph_row(generate_graph(d, t, seed))
                graphs += 1
    seconds = time.perf_counter() - start
    with capsys.disabled():
        print(f"\nKG graphs with rendering: {graphs / seconds:.0f} graphs/s ({graphs} graphs)")
