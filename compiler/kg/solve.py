"""A KG world solved with clingo: its facts (`argc.compiler.kg.facts`) grounded with the
encodings asp/kg/state.lp, asp/kg/timeline.lp, asp/kg/kinship.lp and asp/kg/genealogy.lp in
one `Session` under `Limits`. The programs are stratified, so the model is read from the
ground atoms without a search; the timeline from each object's states where they may change
(asp/kg/timeline.lp), carried over between.

`solve_timeline` and `solve_timelines` solve a world's timeline alone (state.lp and
timeline.lp over its objects, declarations and events), of some objects alone where asked:
what the dynamic tasks read, which ask about an object, not the kinship.

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

from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import clingo

from argc.compiler.batch import BatchSession, tagged_facts
from argc.compiler.control import Limits, Session, StepCounter
from argc.compiler.kg.facts import timeline_facts, world_facts
from argc.compiler.kg.genealogy import family_violations
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg.simulate import State, States
from argc.dsl.kg.world import RELATIONS, KgWorld

#: The encodings of a KG world's timeline alone (its object states, no kinship), in
#: loading order.
TIMELINE = ("kg/state", "kg/timeline")
#: The encodings of a KG world, in loading order.
ENCODINGS = (*TIMELINE, "kg/kinship", "kg/genealogy")
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
class KgTimeline:
    """What asp/kg/state.lp derives for a world: every object's state at each time
    0..T_final (`timeline[t][o]`), the objects each event affects (`affected[t]`, empty at
    time 0) and each object's depth. A timeline solved for some objects alone
    (`solve_timeline`) holds their states and depths, and the objects of the events that
    affect them (the others' left empty)."""

    world: KgWorld
    timeline: tuple[States, ...]
    affected: tuple[tuple[str, ...], ...]
    depths: dict[str, int]


@dataclass(frozen=True)
class KgModel(KgTimeline):
    """What the encodings derive for a world: its timeline (`KgTimeline`) and the kinship
    relations (r, x, y): the closed basic facts and the composite relations of the rules."""

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
    kinship: bool = True,
    objects: Collection[str] | None = None,
) -> Session:
    """A Session with the world's facts and the KG encodings grounded within `limits` and
    `max_steps` steps (LimitExceeded before grounding for a world past `max_states`:
    `check_states`); without `kinship`, the timeline's alone (TIMELINE), of `objects`
    alone when given (`timeline_facts`)."""
    limits = bounded(limits, max_steps)
    _check_world(world, limits, max_states)
    session = Session(limits)
    StepCounter.on(session, *WORK)
    session.load(ENCODINGS if kinship else TIMELINE)
    facts = world_facts(world) if kinship else timeline_facts(world, objects)
    session.ground([("base", facts)])
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


def solve_timeline(
    world: KgWorld,
    limits: Limits | None = None,
    max_states: int = MAX_STATES,
    max_steps: int = MAX_STEPS,
    objects: Collection[str] | None = None,
) -> KgTimeline:
    """The world's timeline, as `solve_kg` reads it, without its kinship (neither closed nor
    checked): for the dynamic tasks, which ask about objects. With `objects`, the timeline
    of those objects alone: an object's states follow from its own events alone, so they
    are the ones the whole world gives it (`KgTimeline`)."""
    session = ground_kg(world, limits, max_states, max_steps, kinship=False, objects=objects)
    return read_timeline(
        world, lambda name, arity: list(map(values, session.atoms(name, arity))), objects
    )


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
    jobs = [_Job(world, True) for world in worlds]
    return _many(jobs, limits, batch_size, max_states, max_steps)  # type: ignore[return-value]


def solve_timelines(
    worlds: Sequence[KgWorld],
    limits: Limits | None = None,
    batch_size: int = BATCH_SIZE,
    max_states: int = MAX_STATES,
    max_steps: int = MAX_STEPS,
    objects: Sequence[Collection[str] | None] | None = None,
) -> list[KgTimeline | LimitExceeded | Conflict]:
    """The timelines of worlds (of `objects[k]` alone for world k, where given), as
    `solve_kg_many` gives their models; each equal to `solve_timeline`'s."""
    chosen = objects if objects is not None else [None] * len(worlds)
    jobs = [_Job(world, False, named) for world, named in zip(worlds, chosen, strict=True)]
    return _many(jobs, limits, batch_size, max_states, max_steps)


@dataclass(frozen=True)
class _Job:
    """What is solved of a world: its model (`kinship`), or its timeline, of `objects`
    alone where given."""

    world: KgWorld
    kinship: bool
    objects: Collection[str] | None = None

    def facts(self) -> str:
        return world_facts(self.world) if self.kinship else timeline_facts(self.world, self.objects)

    def read(self, rows: Rows) -> KgTimeline:
        if self.kinship:
            return read_model(self.world, rows)
        return read_timeline(self.world, rows, self.objects)

    def alone(self, limits: Limits, max_states: int) -> KgTimeline:
        if self.kinship:
            return solve_kg(self.world, limits, max_states, limits.instantiations)
        return solve_timeline(self.world, limits, max_states, limits.instantiations, self.objects)


def _many(
    jobs: Sequence[_Job], limits: Limits | None, batch_size: int, max_states: int, max_steps: int
) -> list[KgTimeline | LimitExceeded | Conflict]:
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    limits = bounded(limits, max_steps)
    results: list[KgTimeline | LimitExceeded | Conflict] = []
    for start in range(0, len(jobs), batch_size):
        results += _solved(jobs[start : start + batch_size], limits, max_states)
    return results


def _solved(
    batch: Sequence[_Job], limits: Limits, max_states: int
) -> list[KgTimeline | LimitExceeded | Conflict]:
    """A batch grounded together (a world alone by `solve_kg` or `solve_timeline`), or world
    by world when it stops at a limit."""
    if len(batch) > 1:
        with suppress(LimitExceeded):
            return _solve_batch(batch, limits, max_states)
    return [_alone(job, limits, max_states) for job in batch]


def _alone(job: _Job, limits: Limits, max_states: int) -> KgTimeline | LimitExceeded | Conflict:
    try:
        return job.alone(limits, max_states)
    except (LimitExceeded, Conflict) as failure:
        return failure


def _solve_batch(
    jobs: Sequence[_Job], limits: Limits, max_states: int
) -> list[KgTimeline | Conflict]:
    """The worlds grounded in one BatchSession and read one by one (LimitExceeded when a
    world is past its size limits or the grounding stops at a limit). The jobs of a batch
    are all models or all timelines."""
    for job in jobs:
        _check_world(job.world, limits, max_states)
    session = BatchSession(limits, len(jobs))
    counters = [StepCounter(limits, session.deadline, *WORK) for _ in jobs]
    session.budget = WorldCounters(counters)  # type: ignore[assignment] - what @step calls
    session.load(ENCODINGS if jobs[0].kinship else TIMELINE)
    facts = "".join(tagged_facts(job.facts(), k) for k, job in enumerate(jobs))
    session.ground([("base", facts)])
    found: dict[tuple[str, int], list[list[Row]]] = {}

    def rows(k: int, name: str, arity: int) -> list[Row]:
        """World k's rows of a predicate (those of every world read at once)."""
        if (name, arity) not in found:
            by_world: list[list[Row]] = [[] for _ in jobs]
            for symbol in session.atoms(name, arity + 1):
                world, *arguments = values(symbol)
                by_world[world].append(tuple(arguments))
            found[name, arity] = by_world
        return found[name, arity][k]

    results: list[KgTimeline | Conflict] = []
    for k, job in enumerate(jobs):
        try:
            results.append(job.read(partial(rows, k)))
        except Conflict as conflict:
            results.append(conflict)
    return results


def read_model(world: KgWorld, rows: Rows) -> KgModel:
    """The model of a world from the arguments of its atoms; Conflict when an object's
    state is not unique or the family is impossible."""
    timeline = read_timeline(world, rows)
    impossible = family_violations(rows)
    if impossible:
        more = f" (and {len(impossible) - 1} more)" if len(impossible) > 1 else ""
        raise Conflict(f"impossible family: {impossible[0]}{more}")
    return KgModel(
        world,
        timeline.timeline,
        timeline.affected,
        timeline.depths,
        frozenset(rows("related", 3)),
    )


def read_timeline(world: KgWorld, rows: Rows, objects: Collection[str] | None = None) -> KgTimeline:
    """The timeline of a world (of `objects` alone where given) from the arguments of its
    atoms (asp/kg/timeline.lp: each object's state at time 0 and where an event affects it,
    carried over between); Conflict when an object's state is not unique."""
    conflicts = sorted((time, thing) for thing, time in rows("conflict", 2))
    if conflicts:
        time, thing = conflicts[0]
        raise Conflict(f"{thing} has no single state at time {time}")
    things = [thing.name for thing in world.objects if objects is None or thing.name in objects]
    final = len(world.events)
    changes: list[States] = [{} for _ in range(final + 1)]
    for thing, owner, possessor, integrity, time in rows("state", 5):
        changes[time][thing] = State(owner, possessor, integrity)
    states = {thing: changes[0][thing] for thing in things}
    timeline = [states]
    for time in range(1, final + 1):
        states = {**states, **changes[time]}
        timeline.append(states)
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
    return KgTimeline(world, tuple(timeline), affected, {thing: depths[thing] for thing in things})
