"""A KG world as ASP facts (docs/kg.md, "In ASP"). Names are strings.

person(P).  gender(P, G).          persons and their genders
object(O).  init(O, P).            objects; s0(O) = (P, P, intact) by own or create
event(T, Kind, Actors, Objects).   the operation event at time T, its persons and
                                   objects as tuples: event(1, "sale", ("a", "b"), ("o",))
time(T).                           the times 0..T_final
kin(W, X, Y).                      the kinship fact W(X, Y), as written
rule(R, K, I, W).                  relation I (1, 2, 3) of path K (1, 2, ...) of the
                                   composite relation R, for the standard rules and the
                                   declared paths
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator

from argc.dsl.kg.world import KgWorld


def quoted(name: str) -> str:
    """A name as an ASP string (names are letters, digits and '_')."""
    return '"' + name + '"'


def quoted_tuple(names: Iterable[str]) -> str:
    """Names as an ASP tuple of strings: `("a","b",)`."""
    return "(" + "".join(f"{quoted(name)}," for name in names) + ")"


def _persons(world: KgWorld) -> Iterator[str]:
    for person in world.persons:
        name = quoted(person.name)
        yield f"person({name})."
        yield f"gender({name}, {quoted(person.gender)})."


def _timeline(world: KgWorld, objects: Collection[str] | None = None) -> Iterator[str]:
    def named(things: Iterable[str]) -> bool:
        return objects is None or any(thing in objects for thing in things)

    for thing in world.objects:
        if named([thing.name]):
            yield f"object({quoted(thing.name)})."
    for declaration in world.declarations:
        if named([declaration.object]):
            yield f"init({quoted(declaration.object)}, {quoted(declaration.person)})."
    for time, event in enumerate(world.events, 1):
        if named(event.objects):
            yield (
                f"event({time}, {quoted(event.kind)}, {quoted_tuple(event.actors)},"
                f" {quoted_tuple(event.objects)})."
            )
    yield f"time(0..{len(world.events)})."


def _kinship(world: KgWorld) -> Iterator[str]:
    for fact in world.facts:
        yield f"kin({quoted(fact.relation)}, {quoted(fact.first)}, {quoted(fact.second)})."
    paths: Counter[str] = Counter()
    for rule in world.all_rules:
        paths[rule.name] += 1
        name, number = quoted(rule.name), paths[rule.name]
        for index, relation in enumerate(rule.path, 1):
            yield f"rule({name}, {number}, {index}, {quoted(relation)})."


def world_facts(world: KgWorld) -> str:
    """The ASP facts of a world, one fact per line (as `argc.compiler.batch.tagged_facts`
    reads them)."""
    lines = (*_persons(world), *_timeline(world), *_kinship(world))
    return "".join(f"{line}\n" for line in lines)


def timeline_facts(world: KgWorld, objects: Collection[str] | None = None) -> str:
    """The facts of a world's timeline alone (objects, declarations, events, times), as
    `world_facts` writes them; of `objects` alone where given (their objects and
    declarations, the events that affect one of them, every time)."""
    return "".join(f"{line}\n" for line in _timeline(world, objects))
