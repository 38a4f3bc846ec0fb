"""A KG world solved with clingo: its facts (`argc.compiler.kg.facts`) grounded with the
encodings asp/kg/state.lp and asp/kg/kinship.lp in one `Session` under `Limits`. Both
programs are stratified, so the model is read from the ground atoms without a search.

Grounding counts its work through `@step` (one carried-over object state, one path
extended by a hop) against `Limits.instantiations` and checks the deadline as it goes, so a
hostile world (thousands of persons on kinship paths, very long timelines) stops with
LimitExceeded while clingo grounds.
"""

from __future__ import annotations

from dataclasses import dataclass

from argc.compiler.control import Limits, Session, StepCounter
from argc.compiler.kg.facts import world_facts
from argc.dsl.kg.simulate import State, States
from argc.dsl.kg.world import RELATIONS, KgWorld

#: The encodings of a KG world, in loading order.
ENCODINGS = ("kg/state", "kg/kinship")


class Conflict(ValueError):
    """The encoding gave an object no state, or two, at some time: the world's events do not
    meet their preconditions (a world built without its checks)."""


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
        """The model as a JSON object: file, timeline, depths, composite relations."""
        return {
            "file": path,
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
        world = self.world
        lines = [
            f"{path}: KG world: {len(world.persons)} persons, {len(world.objects)} objects,"
            f" {len(world.events)} events"
        ]
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


def ground_kg(world: KgWorld, limits: Limits | None = None) -> Session:
    """A Session with the world's facts and the KG encodings grounded within `limits`."""
    session = Session(limits or Limits())
    StepCounter.on(session, "grounding the world", "object states and kinship path steps")
    session.load(ENCODINGS)
    session.ground([("base", world_facts(world))])
    return session


def solve_kg(world: KgWorld, limits: Limits | None = None) -> KgModel:
    """Ground the world's facts with the KG encodings within `limits` (LimitExceeded past
    them) and read its model; Conflict when an object's state is not unique."""
    session = ground_kg(world, limits)
    conflicts = sorted(
        (symbol.arguments[1].number, symbol.arguments[0].string)
        for symbol in session.atoms("conflict", 2)
    )
    if conflicts:
        time, thing = conflicts[0]
        raise Conflict(f"{thing} has no single state at time {time}")
    slots: dict[str, dict[tuple[str, int], str]] = {}
    for name in ("owner", "possessor", "integrity"):
        slots[name] = {
            (symbol.arguments[0].string, symbol.arguments[2].number): symbol.arguments[1].string
            for symbol in session.atoms(name, 3)
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
    for symbol in session.atoms("affects", 2):
        found[symbol.arguments[0].number].append(symbol.arguments[1].string)
    # Each event's objects in the order it names them (the first object of an exchange first).
    affected = (
        (),
        *(
            tuple(sorted(found[time], key=event.objects.index))
            for time, event in enumerate(world.events, 1)
        ),
    )
    depths = {
        symbol.arguments[0].string: symbol.arguments[1].number
        for symbol in session.atoms("depth", 2)
    }
    relations = frozenset(
        tuple(argument.string for argument in symbol.arguments)
        for symbol in session.atoms("related", 3)
    )
    return KgModel(
        world,
        timeline,
        affected,
        {thing: depths[thing] for thing in things},
        relations,  # type: ignore[arg-type] - triples of strings
    )
