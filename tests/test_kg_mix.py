"""The abductive mix (A.2.8): at every depth D >= 2, 3 abductive requests in 4 hide an event
of the target's chain and the others its initial declaration, whatever graphs carry them;
every instance's gold is the only answer the story allows (checked by brute force: every
element at every place that lets the story run gives the target the gold states)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kg_brute import events_on

from argc.dsl.kg import Declaration, Event, KgWorld
from argc.dsl.kg.simulate import INTACT, State, apply, precondition
from argc.dsl.kg.world import DECLARATIONS
from argc.tasks.kg.families import (
    FORMS,
    MASK_EVENT,
    Exhausted,
    KgInstance,
    generate_instances,
    hides_event,
)
from argc.tasks.kg.traces import action

EVENT_FORM, DECLARATION_FORM = FORMS["abductive"]
#: Instances a depth's share is measured on, and how many of them are checked by brute force.
COUNT, CHECKED = 40, 8
#: The band the share of hidden events keeps at every depth D >= 2.
BAND = 0.1


def _instances(depth: int, complexity: int, seeds: range) -> list[KgInstance]:
    found = generate_instances([("abductive", depth, complexity, seed) for seed in seeds])
    assert not any(isinstance(item, Exhausted) for item in found)
    return found  # type: ignore[return-value] - none exhausted


def _target_states(world: KgWorld, events: list[Event], s0: dict, target: str) -> list | None:
    """The target's states, s0 first, then after each event affecting it; None when some
    event fails its precondition."""
    states, found = dict(s0), [s0[target]]
    for event in events:
        if precondition(event, states) is not None:
            return None
        states = apply(event, states)
        if target in event.objects:
            found.append(states[target])
    return found


def _stories(world: KgWorld, target: str, masked) -> Iterator[tuple[object, list, dict]]:
    """Each element that could fill the gap, with a completed story it makes: (element,
    events, s0), every place an event could go."""
    s0 = {d.object: State(d.person, d.person, INTACT) for d in world.declarations}
    if isinstance(masked, Declaration):
        for person in world.persons:
            for kind in DECLARATIONS:
                element = Declaration(kind, person.name, target)
                initial = {**s0, target: State(person.name, person.name, INTACT)}
                yield element, list(world.events), initial
        return
    visible = [event for event in world.events if event is not masked]
    for element in events_on(world, target):
        for place in range(len(visible) + 1):
            yield element, [*visible[:place], element, *visible[place:]], s0


def unique_gold(instance: KgInstance, masked) -> bool:
    """Every element at every place that lets the story run gives the target the hidden
    element's states, and the instance accepts exactly those elements."""
    world, target = instance.world, instance.target
    s0 = {d.object: State(d.person, d.person, INTACT) for d in world.declarations}
    gold = _target_states(world, list(world.events), s0, target)
    consistent = set()
    for element, events, initial in _stories(world, target, masked):
        states = _target_states(world, events, initial, target)
        if states is None:
            continue
        if states != gold:
            return False
        consistent.add(action(element, target).text())
    return consistent == set(instance.accepted)


def _masks(instance: KgInstance) -> list:
    """The world's elements that read as the instance's answer (the hidden one among them)."""
    elements = (*instance.world.declarations, *instance.world.events)
    return [e for e in elements if action(e, instance.target).text() == instance.answer]


def _share(instances: list[KgInstance]) -> float:
    return sum(instance.form == EVENT_FORM for instance in instances) / len(instances)


def check_mix(depth: int, complexity: int, seeds: range, checked: int) -> None:
    instances = _instances(depth, complexity, seeds)
    for seed, instance in zip(seeds, instances, strict=True):
        assert (instance.form == EVENT_FORM) == hides_event(depth, complexity, seed, "rl")
    assert abs(_share(instances) - MASK_EVENT) <= BAND, _share(instances)
    for instance in instances[:checked]:
        assert any(unique_gold(instance, masked) for masked in _masks(instance)), instance.seed


@pytest.mark.parametrize("depth", range(2, 11))
def test_every_depth_hides_events_in_three_requests_of_four_with_unique_golds(depth):
    check_mix(depth, 1 + depth % 2, range(900, 900 + COUNT), CHECKED)


@pytest.mark.slow
@pytest.mark.parametrize("complexity", range(1, 7))
@pytest.mark.parametrize("depth", range(2, 11))
def test_the_mix_holds_in_every_cell(depth, complexity):
    check_mix(depth, complexity, range(5000, 5000 + COUNT), COUNT if complexity <= 3 else 4)


def test_depth_one_hides_the_declaration():
    instances = _instances(1, 2, range(10))
    assert {instance.form for instance in instances} == {DECLARATION_FORM}


@pytest.mark.parametrize("start", [0, 900, 123_456, 2**62 - 17])
def test_any_run_of_consecutive_seeds_keeps_the_share_within_two(start):
    for depth, complexity, split in [(2, 1, "rl"), (6, 3, "pretrain"), (10, 6, "eval")]:
        draws = [hides_event(depth, complexity, seed, split) for seed in range(start, start + 400)]
        for length in (8, 40, 400):
            for first in range(0, len(draws) - length + 1, 7):
                hidden = sum(draws[first : first + length])
                assert abs(hidden - MASK_EVENT * length) <= 2, (length, first, hidden)


def test_hashed_seeds_hide_events_with_the_papers_probability():
    from argc.tasks.kg.splits import graph_seed

    draws = [hides_event(4, 2, graph_seed("rl", 4, 2, index), "rl") for index in range(2000)]
    assert abs(sum(draws) / len(draws) - MASK_EVENT) < 0.03


def test_the_same_seed_gives_the_same_bytes():
    first = [instance.row() for instance in _instances(2, 1, range(20, 26))]
    assert first == [instance.row() for instance in _instances(2, 1, range(20, 26))]


def test_argc_kg_generate_reports_the_mix(tmp_path, capsys):
    import json

    from argc.cli import main

    out = tmp_path / "abd.jsonl"
    args = ["--depth", "3", "--complexity", "1", "--seed", "900", "--count", "8"]
    assert main(["kg", "generate", "--family", "abductive", *args, "--out", str(out)]) == 0
    forms = [json.loads(line)["form"] for line in out.read_text().splitlines()]
    hidden = forms.count(EVENT_FORM)
    assert 0 < hidden < len(forms)
    reported = f"{len(forms)} instances; {EVENT_FORM} {hidden} ({hidden / len(forms):.2f}),"
    assert reported in capsys.readouterr().err


def test_argc_kg_generate_writes_to_stdout_as_generate_does(tmp_path, capsys):
    import json

    from argc.cli import main

    args = ["--family", "deductive", "--depth", "1", "--complexity", "1", "--count", "3"]
    out = tmp_path / "d.jsonl"
    assert main(["kg", "generate", *args, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["kg", "generate", *args]) == 0
    printed = capsys.readouterr()
    assert printed.out == out.read_text()
    assert [json.loads(line)["depth"] for line in printed.out.splitlines()] == [1, 1, 1]
    assert printed.err.startswith("stdout: 3 instances;")
