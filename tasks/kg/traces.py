"""Gold solutions of the KG tasks, read from the solved world (`argc.compiler.kg.solve_kg`):
the target object's states come from the model's timeline and the events affecting it from
its `affects` atoms; kinship chains are checked against its derived relations. Names are
written out as in stories (`karen_baylor_sawyer` is Karen Baylor Sawyer), composite rules
with hyphens (`great_aunt` is great-aunt).
"""

from __future__ import annotations

from argc.compiler.kg.solve import KgTimeline
from argc.dsl.kg.simulate import State
from argc.dsl.kg.world import Declaration, Event
from argc.tasks.kg.names import object_words, person_words
from argc.tasks.kg.solutions import Abduction, Action, Chain, Deduction, Step

#: The state slots a deductive question asks for, by the State field they read.
SLOTS = ("possessor", "owner", "integrity")


def rule_words(rule: str) -> str:
    """A composite relation as written: `great_aunt` is great-aunt."""
    return rule.replace("_", "-")


def state_words(state: State) -> State:
    """A state with its persons written out."""
    return State(person_words(state.owner), person_words(state.possessor), state.integrity)


def action(element: Event | Declaration, target: str) -> Action:
    """An event or declaration as a sentence names it, from the target's side (an exchange
    names the target first)."""
    if isinstance(element, Declaration):
        return Action(element.kind, (person_words(element.person),), (object_words(target),))
    persons, things = element.actors, element.objects
    if element.kind == "exchange" and things[1] == target:
        persons, things = persons[::-1], things[::-1]
    return Action(element.kind, tuple(map(person_words, persons)), tuple(map(object_words, things)))


def chain_times(model: KgTimeline, target: str) -> list[int]:
    """The times of the events affecting the target, in order."""
    return [time for time, things in enumerate(model.affected) if target in things]


def slot_value(state: State, slot: str) -> str:
    """The answer a slot of a state gives (a person written out, or the integrity)."""
    value = getattr(state, slot)
    return value if slot == "integrity" else person_words(value)


def deduction(model: KgTimeline, target: str, steps: int, slot: str) -> Deduction:
    """The forward trace of the target's first `steps` events and the slot's value after
    them."""
    times = chain_times(model, target)[:steps]
    world = model.world
    trace = tuple(
        Step(action(world.events[time - 1], target), state_words(model.timeline[time][target]))
        for time in times
    )
    final = model.timeline[times[-1] if times else 0][target]
    return Deduction(
        object_words(target),
        state_words(model.timeline[0][target]),
        trace,
        slot_value(final, slot),
    )


def abduction(model: KgTimeline, target: str, masked: Event | Declaration) -> Abduction:
    """The backward trace of the target's visible events when `masked` is hidden: each step
    with the states around it, from the last back to the step after the gap; the gap's states
    (and the initial state when the gap precedes every visible step), or the initial state no
    declaration states when the declaration is hidden. The answer is the hidden element."""
    world, timeline = model.world, model.timeline
    masked_time = world.events.index(masked) + 1 if isinstance(masked, Event) else None
    visible = [time for time in chain_times(model, target) if time != masked_time]
    steps: list[Step] = []
    gap = initial = required = None
    for index in range(len(visible) - 1, -1, -1):
        time = visible[index]
        after = timeline[time][target]
        steps.append(
            Step(
                action(world.events[time - 1], target),
                state_words(after),
                state_words(timeline[time - 1][target]),
            )
        )
        if index < len(visible) - 1:
            following = timeline[visible[index + 1] - 1][target]
            if after != following:
                gap = (state_words(after), state_words(following))
                break
    else:
        first = timeline[visible[0] - 1][target]
        if masked_time is None:
            required = state_words(first)
        else:
            initial = state_words(timeline[0][target])
            gap = (initial, state_words(first))
    return Abduction(
        object_words(target),
        tuple(steps),
        gap,
        initial,
        required,
        action(masked, target).text(),
    )


def kinship_chain(persons: tuple[str, ...], path: tuple[str, ...], rule: str) -> Chain:
    """A chain of persons along a path, written out."""
    return Chain(tuple(map(person_words, persons)), path, rule_words(rule))
