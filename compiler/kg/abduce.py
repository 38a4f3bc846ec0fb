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
predicates between them, and V's states would no longer be facts to prune with. The object
states of V's times are counted before grounding (`argc.compiler.kg.solve.check_states`), so
a story too large for the limits stops at once.

`abduce_many` solves a batch of problems with one program per grounding (`argc.compiler.batch`:
the problem's number on every atom), each counting its steps on its own: a Control and its
grounding cost a fixed 1-2 ms that dominates the small stories of the generators. The
consistent sets are read from one search for the batch's brave consequences.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import replace

import clingo

from argc.compiler.batch import BatchSession, tagged_facts
from argc.compiler.control import Deadline, Limits, Session, StepCounter
from argc.compiler.guard import now
from argc.compiler.kg.solve import WorldCounters, bounded, check_states
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg.world import Declaration, Event, KgWorld

#: The encodings that find the candidates in V, and those that check them in the completed
#: story, in loading order.
CANDIDATES = ("kg/state", "kg/preconditions", "kg/candidates")
ENCODINGS = ("kg/state", "kg/preconditions", "kg/abduce")

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
    """LimitExceeded, before grounding, for a visible story whose object states (every object
    at V's times 0..2N+1) are past the limits (ValueError as `masked_time`)."""
    shown = len(world.events) - (masked_time(world, target, masked) is not None)
    check_states(len(world.objects), 2 * shown + 2, limits, work=WORK)


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


def _shown(model: clingo.Model) -> frozenset[clingo.Symbol]:
    return frozenset(model.symbols(shown=True))


def _started(limits: Limits | None) -> Limits:
    """The limits with their clock started (one clock for both groundings and the search)
    and at most `argc.compiler.kg.solve.MAX_STEPS` steps."""
    limits = bounded(limits)
    return limits if limits.started is not None else replace(limits, started=now())


def _counter(limits: Limits) -> StepCounter:
    """The count of one abduction's steps, over both of its groundings."""
    return StepCounter(limits, Deadline(limits.seconds, limits.started), *WORK)


def _grounded(
    session: Session, encodings: tuple[str, ...], facts: str, budget: StepCounter | WorldCounters
) -> Session:
    """The session with `facts` and `encodings` grounded, counting its steps on `budget`."""
    session.budget = budget  # type: ignore[assignment] - the context the program calls
    session.load(encodings)
    session.ground([("base", facts)])
    return session


def _candidates(session: Session, tagged: bool = False) -> str:
    """The candidates the first grounding found, as facts for the second (with the problem's
    number first when `tagged`)."""
    return "".join(
        f"{symbol}.\n"
        for name, arity in (("candidate_event", 4), ("candidate_declaration", 2))
        for symbol in session.atoms(name, arity + tagged)
    )


def abduce(
    world: KgWorld, target: str, masked: Element, limits: Limits | None = None
) -> tuple[Element, ...]:
    """The consistent set of the visible story `world` without `masked`, about `target`
    (ValueError for a masked element that is not the world's or not about the target;
    LimitExceeded past `limits`, before grounding, while grounding or solving)."""
    limits = _started(limits)
    check_size(world, target, masked, limits)
    facts = visible_facts(world, target, masked)
    counter = _counter(limits)
    first = _grounded(Session(limits), CANDIDATES, facts, counter)
    second = _grounded(Session(limits), ENCODINGS, facts + _candidates(first), counter)
    second.control.configuration.solve.project = "show"
    models = second.models(_shown, what="consistent candidates")
    found = {_element(symbol, target) for model in models for symbol in model}
    return tuple(sorted(found, key=canonical))


#: Abductions grounded together by `abduce_many`.
BATCH_SIZE = 32
#: The longest world (in events) whose abduction `abduce_many` batches: past it, a problem's
#: own grounding and search outweigh the fixed costs a batch saves, and a batch's search for
#: its brave consequences grows with the batch (measured on generated worlds: a batch of 16
#: problems took 0.3 of their time alone at 4 events a world, 0.65 at 8, 1.0 at 12 and 1.3
#: at 20 and 28).
BATCHED_EVENTS = 10
#: An abduction problem: the world, the target, the masked element.
Problem = tuple[KgWorld, str, Element]


class _Unsatisfiable(Exception):
    """A batch without a model: some problem has no consistent element."""


def abduce_many(
    problems: Sequence[Problem], limits: Limits | None = None, batch_size: int = BATCH_SIZE
) -> list[tuple[Element, ...] | LimitExceeded]:
    """The consistent sets of problems, equal to `abduce`'s; a problem past its limits has
    its LimitExceeded in its place (ValueError as `abduce`). The problems of worlds of at
    most BATCHED_EVENTS events are grounded `batch_size` at a time, in one program per
    grounding (`argc.compiler.batch`), each counting its steps on its own; a batch that
    stops at a limit, or has no model, is solved again problem by problem. The others are
    solved alone."""
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    facts = [visible_facts(*problem) for problem in problems]
    alone = [len(world.events) > BATCHED_EVENTS for world, _, _ in problems]
    short = [index for index, flag in enumerate(alone) if not flag]
    groups = [short[start : start + batch_size] for start in range(0, len(short), batch_size)]
    groups += [[index] for index, flag in enumerate(alone) if flag]
    results: list[tuple[Element, ...] | LimitExceeded] = [()] * len(problems)
    for group in groups:
        found = _abduced([problems[i] for i in group], [facts[i] for i in group], limits)
        for index, answer in zip(group, found, strict=True):
            results[index] = answer
    return results


def _abduced(
    batch: Sequence[Problem], facts: Sequence[str], limits: Limits | None
) -> list[tuple[Element, ...] | LimitExceeded]:
    """A batch solved together (a problem alone by `abduce`), or problem by problem when it
    stops at a limit or has no model."""
    if len(batch) > 1:
        with suppress(LimitExceeded, _Unsatisfiable):
            return _abduce_batch(batch, facts, limits)
    return [_alone(problem, limits) for problem in batch]


def _alone(problem: Problem, limits: Limits | None) -> tuple[Element, ...] | LimitExceeded:
    try:
        return abduce(*problem, limits)
    except LimitExceeded as exceeded:
        return exceeded


def _abduce_batch(
    problems: Sequence[Problem], facts: Sequence[str], limits: Limits | None
) -> list[tuple[Element, ...]]:
    """Both groundings of a batch, then one search for the brave consequences: the problems
    share no atom, so an element is shown in some model of the batch exactly where it is
    in some model of its problem alone, which is what the projected enumeration of `abduce`
    finds (one model per element, counted against the extension limit). LimitExceeded for
    a problem past its size limits, before grounding."""
    limits = _started(limits)
    for problem in problems:
        check_size(*problem, limits)
    program = "".join(tagged_facts(text, k) for k, text in enumerate(facts))
    counters = WorldCounters([_counter(limits) for _ in problems])
    first = _grounded(BatchSession(limits, len(problems)), CANDIDATES, program, counters)
    second = BatchSession(limits, len(problems))
    _grounded(second, ENCODINGS, program + _candidates(first, tagged=True), counters)
    second.control.configuration.solve.enum_mode = "brave"
    models = second.models(_shown, what="consistent candidates")
    if not models:
        raise _Unsatisfiable
    found: list[set[Element]] = [set() for _ in problems]
    for symbol in models[-1]:
        k, *arguments = symbol.arguments
        target = problems[k.number][1]
        found[k.number].add(_element(clingo.Function(symbol.name, arguments), target))
    if max(map(len, found)) > limits.extensions:
        raise LimitExceeded(f"more than {limits.extensions:,} consistent candidates")
    return [tuple(sorted(elements, key=canonical)) for elements in found]
