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
from collections.abc import Iterable, Iterator

from argc.dsl.kg.world import KgWorld


def _string(name: str) -> str:
    return '"' + name + '"'  # names are letters, digits and '_'


def _tuple(names: Iterable[str]) -> str:
    return "(" + "".join(f"{_string(name)}," for name in names) + ")"


def _facts(world: KgWorld) -> Iterator[str]:
    for person in world.persons:
        name = _string(person.name)
        yield f"person({name})."
        yield f"gender({name}, {_string(person.gender)})."
    for thing in world.objects:
        yield f"object({_string(thing.name)})."
    for declaration in world.declarations:
        yield f"init({_string(declaration.object)}, {_string(declaration.person)})."
    for time, event in enumerate(world.events, 1):
        yield (
            f"event({time}, {_string(event.kind)}, {_tuple(event.actors)},"
            f" {_tuple(event.objects)})."
        )
    yield f"time(0..{len(world.events)})."
    for fact in world.facts:
        yield f"kin({_string(fact.relation)}, {_string(fact.first)}, {_string(fact.second)})."
    paths: Counter[str] = Counter()
    for rule in world.all_rules:
        paths[rule.name] += 1
        name, number = _string(rule.name), paths[rule.name]
        for index, relation in enumerate(rule.path, 1):
            yield f"rule({name}, {number}, {index}, {_string(relation)})."


def world_facts(world: KgWorld) -> str:
    """The ASP facts of a world, one fact per line (as `argc.compiler.batch.tagged_facts`
    reads them)."""
    return "".join(f"{line}\n" for line in _facts(world))
