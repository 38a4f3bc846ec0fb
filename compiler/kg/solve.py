"""A KG world solved with clingo: its facts (`argc.compiler.kg.facts`) grounded with the
encodings asp/kg/state.lp and asp/kg/kinship.lp in one `Session` under `Limits`. Both
programs are stratified, so the model is read from the ground atoms without a search.

`solve_kg_many` grounds a batch of worlds in one program (`argc.compiler.batch`: the world's
number as a first argument of every atom, the encodings rewritten so, each world's steps
counted on its own): a Control and its grounding cost a fixed ~1 ms that dominates the small
worlds of the generators. Nothing joins atoms of two worlds, so each world's part is the
model it has alone.

Grounding counts its work through `@step` (one carried-over object state, one path
extended by a hop) against `Limits.instantiations` and checks the deadline as it goes, so a
hostile world (thousands of persons on kinship paths) stops with LimitExceeded while clingo
grounds. The object states are counted before grounding (`check_states`): a world with more
than `max_states` of them (objects times times), or more carried-over states than the
instantiation limit, stops at once. The steps are at most `max_steps` (MAX_STEPS unless
given, whatever `Limits.instantiations` allows): each derives an atom that grounding keeps.
Both bounds keep a world's memory under 1 GB at the defaults (docs/kg.md, "In ASP").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import clingo

from argc.compiler.batch import BatchSession, tagged_facts
from argc.compiler.control import Limits, Session, StepCounter
from argc.compiler.kg.facts import world_facts
from argc.compiler.kg.genealogy import family_violations
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg.simulate import State, States
from argc.dsl.kg.world import RELATIONS, KgWorld

#: The encodings of a KG world, in loading order.
ENCODINGS = ("kg/state", "kg/kinship", "kg/genealogy")
#: What `@step` counts, for the messages of LimitExceeded.
WORK = ("grounding the world", "object states and kinship path steps")
#: Worlds grounded together by `solve_kg_many` (larger batches save little more).
BATCH_SIZE = 32
#: The largest world solved by default, in object states and times: (objects + 1) x (T_final
#: + 1). Grounded, read into a model and printed, an object state or a time (its event)
#: takes about 2.5 KB, so that worlds at the bound peaked at 0.53-0.55 GB with their parse
#: (`argc check`, 4 to 1,999 objects; docs/kg.md, "In ASP").
MAX_STATES = 200_000
#: The most `@step`s a world's grounding takes by default (the smaller of it and
#: `Limits.instantiations`): a step derives an atom grounding keeps (a carried-over state, a
#: hop of a kinship path, the first included, a step of a line of descent), 0.2-0.5 KB each.
#: Under the 2,000,000 steps `Limits` allows, a family tree of 90,000 persons peaked at 1.18
#: GB; under this bound one of 60,000 solves at 0.85 GB and one of 75,000 stops at 0.79 GB.
MAX_STEPS = 1_000_000
#: The arguments of an atom, and those of every atom of a predicate (name, arity) in one
#: world's model.
Row = tuple[Any, ...]
Rows = Callable[[str, int], list[Row]]


class Conflict(ValueError):
    """The encoding gave an object no state, or two, at some time: the world's events do not
    meet their preconditions; or its kinship facts describe an impossible family
    (asp/kg/genealogy.lp). Only a world built without its checks has one."""


@dataclass(frozen=True)
class KgModel:
    """What the encodings derive for a world: every object's state at each time 0..T_final
    (`timeline[t][o]`), the objects each event affects (`affected[t]`, empty at time 0), each
    object's depth, and the kinship relations (r, x, y): the closed basic facts and the
    composite relations of the rules."""

    world: KgWorld
    timeline: tuple[States, ...]
    affected: tuple[tuple[str, ...], ...]
    depths: dict[str, int]
    relations: frozenset[tuple[str, str, str]]

    @property
    def composite(self) -> list[tuple[str, str, str]]:
        """The relations the rules derive, sorted."""
        return sorted(relation for relation in self.relations if relation[0] not in RELATIONS)

    def record(self, path: str) -> dict:
        """The model as a JSON object: file, the persons with their genders, the stated
        kinship facts, timeline, depths, composite relations."""
        return {
            "file": path,
            "persons": {person.name: person.gender for person in self.world.persons},
            "kinship": [[fact.relation, fact.first, fact.second] for fact in self.world.facts],
            "timeline": [
                {
                    "time": time,
                    "event": str(self.world.events[time - 1]) if time else None,
                    "affects": list(self.affected[time]),
                    "states": {thing: state._asdict() for thing, state in states.items()},
                }
                for time, states in enumerate(self.timeline)
            ],
            "depths": self.depths,
            "relations": [list(relation) for relation in self.composite],
        }

    def summary(self, path: str) -> str:
        """The timeline, one line per time (the event and the states of the objects it
        affects; every object at time 0), the depths and the composite relations."""
        from argc.compiler.report import counted

        world = self.world
        sizes = [
            counted(len(world.persons), "person"),
            counted(len(world.objects), "object"),
            counted(len(world.events), "event"),
        ]
        lines = [f"{path}: KG world: {', '.join(sizes)}"]
        events = ["initial", *(str(event) for event in world.events)]
        width = max(map(len, events))
        for time, states in enumerate(self.timeline):
            things = self.affected[time] if time else tuple(states)
            shown = "; ".join(f"{thing} {states[thing]}" for thing in things)
            lines.append(f"  {time:>{len(str(len(events) - 1))}}  {events[time]:<{width}}  {shown}")
        depths = ", ".join(f"{thing} {depth}" for thing, depth in self.depths.items())
        lines.append(f"depths: {depths or '(no objects)'}")
        composite = self.composite
        lines.append(f"derived relations: {len(composite)}")
        lines += [f"  {relation}({x}, {y})" for relation, x, y in composite]
        return "\n".join(lines)


def check_states(
    objects: int,
    times: int,
    limits: Limits,
    max_states: int = MAX_STATES,
    work: tuple[str, str] = WORK,
) -> None:
    """LimitExceeded, before grounding, where asp/kg/state.lp would give `objects` objects a
    state at each of `times` times past the instantiation limit (a state carried over to
    each time after the first is one `@step` of `work`) or past `max_states` object states
    and times, (objects + 1) x times."""
    if objects * (times - 1) > limits.instantiations:
        raise LimitExceeded(
            f"{work[0]} takes more than {limits.instantiations:,} {work[1]}"
            f" ({objects:,} objects at {times:,} times)",
            "instantiations",
        )
    if (objects + 1) * times > max_states:
        raise LimitExceeded(
            f"the world is too large to solve: {objects:,} objects at {times:,} times make"
            f" {(objects + 1) * times:,} object states and times; the limit is {max_states:,}"
        )


def _check_world(world: KgWorld, limits: Limits, max_states: int) -> None:
    check_states(len(world.objects), len(world.events) + 1, limits, max_states)


def bounded(limits: Limits | None, max_steps: int = MAX_STEPS) -> Limits:
    """`limits` (Limits() when None) with at most `max_steps` instantiations."""
    limits = limits or Limits()
    return replace(limits, instantiations=min(limits.instantiations, max_steps))


def ground_kg(
    world: KgWorld,
    limits: Limits | None = None,
    max_states: int = MAX_STATES,
    max_steps: int = MAX_STEPS,
) -> Session:
    """A Session with the world's facts and the KG encodings grounded within `limits` and
    `max_steps` steps (LimitExceeded before grounding for a world past `max_states`:
    `check_states`)."""
    limits = bounded(limits, max_steps)
    _check_world(world, limits, max_states)
    session = Session(limits)
    StepCounter.on(session, *WORK)
    session.load(ENCODINGS)
    session.ground([("base", world_facts(world))])
    return session


def solve_kg(
    world: KgWorld,
    limits: Limits | None = None,
    max_states: int = MAX_STATES,
    max_steps: int = MAX_STEPS,
) -> KgModel:
    """Ground the world's facts with the KG encodings within `limits`, `max_states` and
    `max_steps` (LimitExceeded past them) and read its model; Conflict when an object's
    state is not unique."""
    session = ground_kg(world, limits, max_states, max_steps)
    return read_model(world, lambda name, arity: list(map(values, session.atoms(name, arity))))


def values(symbol: clingo.Symbol) -> Row:
    """An atom's arguments, read from its text (one call into clingo rather than one per
    argument): strings (names are letters, digits and '_') and numbers."""
    text = str(symbol)
    return tuple(
        part[1:-1] if part[0] == '"' else int(part)
        for part in text[text.index("(") + 1 : -1].split(",")
    )


class WorldCounters:
    """The grounding context of a batch of worlds (or of other problems that count their
    steps): `@step(K, ...)` counts on problem K's own StepCounter, so each has its own
    instantiation limit."""

    def __init__(self, counters: Sequence[StepCounter]) -> None:
        self.counters = counters
        self.exceeded: LimitExceeded | None = None

    def step(self, world: clingo.Symbol, *_terms: clingo.Symbol) -> clingo.Symbol:
        try:
            return self.counters[world.number].step()
        except LimitExceeded as exceeded:
            self.exceeded = exceeded
            raise


def solve_kg_many(
    worlds: Sequence[KgWorld],
    limits: Limits | None = None,
    batch_size: int = BATCH_SIZE,
    max_states: int = MAX_STATES,
    max_steps: int = MAX_STEPS,
) -> list[KgModel | LimitExceeded | Conflict]:
    """The models of worlds, `batch_size` grounded in one program, equal to `solve_kg`'s
    (with the same `limits`, `max_states` and `max_steps`); a world that fails has its
    LimitExceeded or Conflict in its place. Each world's steps are counted against its own
    limits; a batch that stops at a limit is solved again world by world, so a world fails
    alone."""
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    limits = bounded(limits, max_steps)
    results: list[KgModel | LimitExceeded | Conflict] = []
    for start in range(0, len(worlds), batch_size):
        results += _solved(worlds[start : start + batch_size], limits, max_states)
    return results


def _solved(
    batch: Sequence[KgWorld], limits: Limits, max_states: int
) -> list[KgModel | LimitExceeded | Conflict]:
    """A batch grounded together (a world alone by `solve_kg`), or world by world when it
    stops at a limit."""
    if len(batch) > 1:
        with suppress(LimitExceeded):
            return _solve_batch(batch, limits, max_states)
    return [_alone(world, limits, max_states) for world in batch]


def _alone(world: KgWorld, limits: Limits, max_states: int) -> KgModel | LimitExceeded | Conflict:
    try:
        return solve_kg(world, limits, max_states, limits.instantiations)
    except (LimitExceeded, Conflict) as failure:
        return failure


def _solve_batch(
    worlds: Sequence[KgWorld], limits: Limits, max_states: int
) -> list[KgModel | Conflict]:
    """The worlds grounded in one BatchSession and read one by one (LimitExceeded when a
    world is past its size limits or the grounding stops at a limit)."""
    for world in worlds:
        _check_world(world, limits, max_states)
    session = BatchSession(limits, len(worlds))
    counters = [StepCounter(limits, session.deadline, *WORK) for _ in worlds]
    session.budget = WorldCounters(counters)  # type: ignore[assignment] - what @step calls
    session.load(ENCODINGS)
    facts = "".join(tagged_facts(world_facts(world), k) for k, world in enumerate(worlds))
    session.ground([("base", facts)])
    found: dict[tuple[str, int], list[list[Row]]] = {}

    def rows(k: int, name: str, arity: int) -> list[Row]:
        """World k's rows of a predicate (those of every world read at once)."""
        if (name, arity) not in found:
            by_world: list[list[Row]] = [[] for _ in worlds]
            for symbol in session.atoms(name, arity + 1):
                world, *arguments = values(symbol)
                by_world[world].append(tuple(arguments))
            found[name, arity] = by_world
        return found[name, arity][k]

    results: list[KgModel | Conflict] = []
    for k, world in enumerate(worlds):
        try:
            results.append(read_model(world, partial(rows, k)))
        except Conflict as conflict:
            results.append(conflict)
    return results


def read_model(world: KgWorld, rows: Rows) -> KgModel:
    """The model of a world from the arguments of its atoms; Conflict when an object's
    state is not unique or the family is impossible."""
    conflicts = sorted((time, thing) for thing, time in rows("conflict", 2))
    if conflicts:
        time, thing = conflicts[0]
        raise Conflict(f"{thing} has no single state at time {time}")
    impossible = family_violations(rows)
    if impossible:
        more = f" (and {len(impossible) - 1} more)" if len(impossible) > 1 else ""
        raise Conflict(f"impossible family: {impossible[0]}{more}")
    slots = {
        name: {(thing, time): value for thing, value, time in rows(name, 3)}
        for name in ("owner", "possessor", "integrity")
    }
    things = [thing.name for thing in world.objects]
    final = len(world.events)
    timeline = tuple(
        {
            thing: State(
                *(slots[name][thing, time] for name in ("owner", "possessor", "integrity"))
            )
            for thing in things
        }
        for time in range(final + 1)
    )
    found: list[list[str]] = [[] for _ in range(final + 1)]
    for time, thing in rows("affects", 2):
        found[time].append(thing)
    # Each event's objects in the order it names them (the first object of an exchange first).
    affected = (
        (),
        *(
            tuple(sorted(found[time], key=event.objects.index))
            for time, event in enumerate(world.events, 1)
        ),
    )
    depths = dict(rows("depth", 2))
    return KgModel(
        world,
        timeline,
        affected,
        {thing: depths[thing] for thing in things},
        frozenset(rows("related", 3)),
    )
