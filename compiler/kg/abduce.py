"""Abduction over a KG world, solved with clingo (docs/kg.md, "Abduction").

Given a world W, a target object o* and the masked element m of W (an Event of W.events
that involves o*, or the Declaration of o*), the visible story V is W without m. A
candidate is

- an operation event involving o* (o* among its objects; any of the seven kinds; persons
  among W's persons; for an exchange the other object any other object of W, in either
  object position), inserted at some place among V's events (before the first, between
  two, or after the last), such that every event of the resulting sequence meets its
  precondition (Table 3, as `argc.dsl.kg.simulate.precondition`) from V's initial
  declarations; or
- an initial declaration own(p, o*) or create(p, o*), p any person of W, when V has no
  declaration for o*, such that every event of V meets its precondition from the initial
  state that results.

The consistent set is every such candidate without its place (an event consistent at two
places counts once), in canonical order: declarations first, then events, each by kind,
persons, objects. It always holds m. Own and create by one person are both consistent where
one is, and so are a sale and a gift between the same persons.

V is given as facts (`visible_facts`: V's event I at time 2I, gap G at time 2G + 1) and
solved in two groundings within one `Limits` (one clock, one count of `@step` units):
asp/kg/candidates.lp, with asp/kg/state.lp and asp/kg/preconditions.lp over V alone,
decides by grounding the candidates that meet their preconditions in V's state at their
gap (and fit the next visible event that names the target's holder); asp/kg/abduce.lp then
inserts exactly one of them and asks every event of the completed story to meet its
precondition. The consistent set is read from the models projected onto the shown
candidate. Two groundings because one program over both stories would share state.lp's
predicates between them, and V's states would no longer be facts to prune with.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace

import clingo

from argc.compiler.control import Deadline, Limits, Session, StepCounter
from argc.dsl.kg.world import Declaration, Event, KgWorld

#: The encodings that find the candidates in V, and those that check them in the completed
#: story, in loading order.
CANDIDATES = ("kg/state", "kg/preconditions", "kg/candidates")
ENCODINGS = ("kg/state", "kg/preconditions", "kg/abduce")

Element = Event | Declaration


def masked_time(world: KgWorld, target: str, masked: Element) -> int | None:
    """The time of the masked event among the world's events, or None for the target's
    declaration. ValueError unless `masked` is an element of the world about `target`; an
    event that happens more than once is told by identity (the world's own Event)."""
    if target not in {thing.name for thing in world.objects}:
        raise ValueError(f"{target!r} is not an object of the world")
    if isinstance(masked, Declaration):
        if masked.object != target:
            raise ValueError(f"the masked declaration {masked} is not about {target}")
        if masked not in world.declarations:
            raise ValueError(f"{masked} is not a declaration of the world")
        return None
    if not isinstance(masked, Event):
        raise ValueError(
            f"the masked element is an Event or a Declaration, not {type(masked).__name__}"
        )
    if target not in masked.objects:
        raise ValueError(f"the masked event {masked} does not involve {target}")
    events = list(enumerate(world.events, 1))
    times = [time for time, event in events if event is masked] or [
        time for time, event in events if event == masked
    ]
    if not times:
        raise ValueError(f"{masked} is not an event of the world")
    if len(times) > 1:
        listed = ", ".join(map(str, times))
        raise ValueError(
            f"{masked} happens at times {listed}; pass the world's own event to hide one"
        )
    return times[0]


def _fact(name: str, *arguments: clingo.Symbol) -> str:
    return f"{clingo.Function(name, arguments)}.\n"


def _names(names: Iterable[str]) -> clingo.Symbol:
    return clingo.Tuple_([clingo.String(name) for name in names])


def visible_facts(world: KgWorld, target: str, masked: Element) -> str:
    """The visible story as the facts of asp/kg/candidates.lp: persons, objects, the
    target, V's declarations (`init/2`), V's event I at time 2I (`event/4`), the times
    0..2N+1 and the gaps 0..N of V's N events (gap G, between events G and G + 1, at the odd
    time 2G + 1)."""
    hidden = masked_time(world, target, masked)
    shown = [event for time, event in enumerate(world.events, 1) if time != hidden]
    return "".join(
        [
            _fact("target", clingo.String(target)),
            *(_fact("person", clingo.String(person.name)) for person in world.persons),
            *(_fact("object", clingo.String(thing.name)) for thing in world.objects),
            *(
                _fact("init", clingo.String(declaration.object), clingo.String(declaration.person))
                for declaration in world.declarations
                if hidden is not None or declaration.object != target
            ),
            *(
                _fact(
                    "event",
                    clingo.Number(2 * time),
                    clingo.String(event.kind),
                    _names(event.actors),
                    _names(event.objects),
                )
                for time, event in enumerate(shown, 1)
            ),
            f"time(0..{2 * len(shown) + 1}).\ngap(0..{len(shown)}).\n",
        ]
    )


def _element(symbol: clingo.Symbol, target: str) -> Element:
    """The candidate a shown atom names, without a source position."""
    kind, *rest = symbol.arguments
    if symbol.name == "missing_declaration":
        return Declaration(kind.string, rest[0].string, target)
    actors, objects = (tuple(name.string for name in names.arguments) for names in rest)
    return Event(kind.string, actors, objects)


def canonical(element: Element) -> tuple:
    """The sort key of the consistent set: declarations first, then events; each by kind,
    persons, objects."""
    return (isinstance(element, Event), element.kind, element.arguments)


def _grounded(encodings: tuple[str, ...], facts: str, counter: StepCounter) -> Session:
    """A Session with `facts` and `encodings` grounded, counting its steps on `counter`."""
    session = Session(counter.limits)
    session.budget = counter  # type: ignore[assignment] - the context the program calls
    session.load(encodings)
    session.ground([("base", facts)])
    return session


def abduce(
    world: KgWorld, target: str, masked: Element, limits: Limits | None = None
) -> tuple[Element, ...]:
    """The consistent set of the visible story `world` without `masked`, about `target`
    (ValueError for a masked element that is not the world's or not about the target;
    LimitExceeded past `limits`, while grounding or solving)."""
    facts = visible_facts(world, target, masked)
    limits = limits or Limits()
    if limits.started is None:  # one clock for both groundings and the search
        limits = replace(limits, started=time.monotonic())
    counter = StepCounter(
        limits,
        Deadline(limits.seconds, limits.started),
        "abducing the missing element",
        "candidate and state steps",
    )
    first = _grounded(CANDIDATES, facts, counter)
    candidates = "".join(
        f"{symbol}.\n"
        for name, arity in (("candidate_event", 4), ("candidate_declaration", 2))
        for symbol in first.atoms(name, arity)
    )
    second = _grounded(ENCODINGS, facts + candidates, counter)
    second.control.configuration.solve.project = "show"
    models = second.models(
        lambda model: frozenset(model.symbols(shown=True)), what="consistent candidates"
    )
    found = {_element(symbol, target) for model in models for symbol in model}
    return tuple(sorted(found, key=canonical))
