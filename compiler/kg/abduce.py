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

V is given as facts (`visible_facts`: V's event I at time I, gap G after it) and solved in
one grounding within `Limits` (one clock, one count of `@step` units), without a
search: asp/kg/candidates.lp, with asp/kg/state.lp and asp/kg/preconditions.lp over V, finds
the candidates that meet their preconditions in V's state at their gap (and fit the next
visible event that names the target's holder); asp/kg/abduce.lp keeps those that leave every
later event meeting its precondition. A candidate changes the states of the objects it
affects alone, and a precondition asks about each object of its event on its own, so each
affected object is followed from the state the candidate leaves it in through V's later
events on it, and every other object keeps its states in V. The object states of V's times
are counted before grounding (`argc.compiler.kg.solve.check_states`), so a story too large
for the limits stops at once.

`abduce_many` grounds a batch of problems in one program (`argc.compiler.batch`: the
problem's number on every atom), each counting its steps on its own: a Control and its
grounding cost a fixed 1-2 ms that dominates the small stories of the generators.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import replace

import clingo

from argc.compiler.batch import BatchSession, tagged_facts
from argc.compiler.control import Deadline, Limits, Session, StepCounter
from argc.compiler.guard import now
from argc.compiler.kg.facts import quoted, quoted_tuple
from argc.compiler.kg.solve import WorldCounters, bounded, check_states
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg.world import Declaration, Event, KgWorld

#: The encodings of abduction, in loading order: V's states and preconditions, the
#: candidates found in V, and their check in the completed story.
ENCODINGS = ("kg/state", "kg/preconditions", "kg/candidates", "kg/abduce")
#: The encodings that find the candidates alone.
CANDIDATES = ENCODINGS[:3]
#: The consistent elements an abduction derives: (predicate, arity).
CONSISTENT = (("consistent_declaration", 2), ("consistent_event", 3))

Element = Event | Declaration
#: What an abduction's `@step` counts, for the messages of LimitExceeded.
WORK = ("abducing the missing element", "candidate and state steps")


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


def check_size(world: KgWorld, target: str, masked: Element, limits: Limits) -> None:
    """LimitExceeded, before grounding, for a visible story of N events whose object states
    at 2N + 2 times (V's N + 1 and a time for each of its N + 1 gaps, where candidates
    leave states of their own) are past the limits (ValueError as `masked_time`)."""
    shown = len(world.events) - (masked_time(world, target, masked) is not None)
    check_states(len(world.objects), 2 * shown + 2, limits, work=WORK)


def visible_facts(world: KgWorld, target: str, masked: Element) -> str:
    """The visible story as the facts of asp/kg/candidates.lp: persons, objects, the
    target, V's declarations (`init/2`), V's event I at time I (`event/4`), the times 0..N
    and the gaps 0..N of V's N events (gap G between events G and G + 1)."""
    hidden = masked_time(world, target, masked)
    shown = [event for time, event in enumerate(world.events, 1) if time != hidden]
    return "".join(
        [
            f"target({quoted(target)}).\n",
            *(f"person({quoted(person.name)}).\n" for person in world.persons),
            *(f"object({quoted(thing.name)}).\n" for thing in world.objects),
            *(
                f"init({quoted(declaration.object)},{quoted(declaration.person)}).\n"
                for declaration in world.declarations
                if hidden is not None or declaration.object != target
            ),
            *(
                f"event({time},{quoted(event.kind)},{quoted_tuple(event.actors)},"
                f"{quoted_tuple(event.objects)}).\n"
                for time, event in enumerate(shown, 1)
            ),
            f"time(0..{len(shown)}).\ngap(0..{len(shown)}).\n",
        ]
    )


def _element(name: str, arguments: Sequence[clingo.Symbol], target: str) -> Element:
    """The candidate a consistent atom names (its arguments), without a source position."""
    kind, *rest = arguments
    if name == "consistent_declaration":
        return Declaration(kind.string, rest[0].string, target)
    actors, objects = (tuple(name.string for name in names.arguments) for names in rest)
    return Event(kind.string, actors, objects)


def canonical(element: Element) -> tuple:
    """The sort key of the consistent set: declarations first, then events; each by kind,
    persons, objects."""
    return (isinstance(element, Event), element.kind, element.arguments)


def _started(limits: Limits | None) -> Limits:
    """The limits with their clock started (one clock for the grounding of a problem or a
    batch) and at most `argc.compiler.kg.solve.MAX_STEPS` steps."""
    limits = bounded(limits)
    return limits if limits.started is not None else replace(limits, started=now())


def _counter(limits: Limits) -> StepCounter:
    """The count of one abduction's steps."""
    return StepCounter(limits, Deadline(limits.seconds, limits.started), *WORK)


def _consistent(elements: Iterable[Element], limits: Limits) -> tuple[Element, ...]:
    """The consistent set in canonical order; LimitExceeded when it has more than
    `limits.extensions` elements."""
    found = set(elements)
    if len(found) > limits.extensions:
        raise LimitExceeded(f"more than {limits.extensions:,} consistent candidates", "extensions")
    return tuple(sorted(found, key=canonical))


def abduce(
    world: KgWorld, target: str, masked: Element, limits: Limits | None = None
) -> tuple[Element, ...]:
    """The consistent set of the visible story `world` without `masked`, about `target`
    (ValueError for a masked element that is not the world's or not about the target;
    LimitExceeded past `limits`, before or while grounding, or for more consistent elements
    than `limits.extensions`)."""
    limits = _started(limits)
    check_size(world, target, masked, limits)
    session = Session(limits)
    StepCounter.on(session, *WORK)
    session.load(ENCODINGS)
    session.ground([("base", visible_facts(world, target, masked))])
    return _consistent(
        (
            _element(name, symbol.arguments, target)
            for name, arity in CONSISTENT
            for symbol in session.atoms(name, arity)
        ),
        limits,
    )


#: Abductions grounded together by `abduce_many`.
BATCH_SIZE = 32
#: An abduction problem: the world, the target, the masked element.
Problem = tuple[KgWorld, str, Element]


def abduce_many(
    problems: Sequence[Problem], limits: Limits | None = None, batch_size: int = BATCH_SIZE
) -> list[tuple[Element, ...] | LimitExceeded]:
    """The consistent sets of problems, equal to `abduce`'s; a problem past its limits has
    its LimitExceeded in its place (ValueError as `abduce`). The problems are grounded
    `batch_size` at a time in one program (`argc.compiler.batch`), each counting its steps
    on its own; a batch that stops at a limit while grounding is solved again problem by
    problem."""
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    facts = [visible_facts(*problem) for problem in problems]
    results: list[tuple[Element, ...] | LimitExceeded] = []
    for start in range(0, len(problems), batch_size):
        batch = slice(start, start + batch_size)
        results += _abduced(problems[batch], facts[batch], limits)
    return results


def _abduced(
    batch: Sequence[Problem], facts: Sequence[str], limits: Limits | None
) -> list[tuple[Element, ...] | LimitExceeded]:
    """A batch solved together (a problem alone by `abduce`), or problem by problem when it
    stops at a limit."""
    if len(batch) > 1:
        with suppress(LimitExceeded):
            return _abduce_batch(batch, facts, limits)
    return [_alone(problem, limits) for problem in batch]


def _alone(problem: Problem, limits: Limits | None) -> tuple[Element, ...] | LimitExceeded:
    try:
        return abduce(*problem, limits)
    except LimitExceeded as exceeded:
        return exceeded


def _abduce_batch(
    problems: Sequence[Problem], facts: Sequence[str], limits: Limits | None
) -> list[tuple[Element, ...] | LimitExceeded]:
    """The problems grounded in one BatchSession: the problems share no atom, so each one's
    consistent atoms are those it derives alone. LimitExceeded for a problem past its size
    limits, before grounding, or when the grounding stops at a limit; a problem with more
    consistent elements than `limits.extensions` has its LimitExceeded in its place."""
    limits = _started(limits)
    for problem in problems:
        check_size(*problem, limits)
    session = BatchSession(limits, len(problems))
    session.budget = WorldCounters([_counter(limits) for _ in problems])  # type: ignore[assignment]
    session.load(ENCODINGS)
    session.ground([("base", "".join(tagged_facts(text, k) for k, text in enumerate(facts)))])
    found: list[list[Element]] = [[] for _ in problems]
    for name, arity in CONSISTENT:
        for symbol in session.atoms(name, arity + 1):
            k, *arguments = symbol.arguments
            found[k.number].append(_element(name, arguments, problems[k.number][1]))
    results: list[tuple[Element, ...] | LimitExceeded] = []
    for elements in found:
        try:
            results.append(_consistent(elements, limits))
        except LimitExceeded as exceeded:
            results.append(exceeded)
    return results
