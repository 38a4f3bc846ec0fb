"""Brute-force checks of KG worlds and static instances, written apart from argc's own
(`argc.dsl.kg.genealogy`, the generators' checks): the kinship facts closed by hand, every
walk of one to three closed facts enumerated, relations read off the walks' paths; and every
event a story's gap could hold."""

from __future__ import annotations

import re
from collections.abc import Iterator

from argc.dsl.kg import Event
from argc.dsl.kg.world import EVENT_ROLES, KgWorld
from argc.tasks.kg.families import KgInstance
from argc.tasks.kg.names import person_words

#: w(x, y) gives its inverse about y and x, by y's gender.
INVERSES = {
    "father": {"male": "son", "female": "daughter"},
    "mother": {"male": "son", "female": "daughter"},
    "son": {"male": "father", "female": "mother"},
    "daughter": {"male": "father", "female": "mother"},
    "husband": {"male": "wife", "female": "wife"},
    "wife": {"male": "husband", "female": "husband"},
    "brother": {"male": "brother", "female": "sister"},
    "sister": {"male": "brother", "female": "sister"},
    "friend": {"male": "friend", "female": "friend"},
}
#: One letter per closed relation: up to a parent, across to a sibling, down to a child,
#: marriage, friendship.
LETTER = {
    "son": "u",
    "daughter": "u",
    "brother": "a",
    "sister": "a",
    "father": "d",
    "mother": "d",
    "husband": "m",
    "wife": "m",
    "friend": "f",
}
BLOOD = re.compile(r"u*a?d*")


def closure(world: KgWorld) -> set[tuple[str, str, str]]:
    genders = {person.name: person.gender for person in world.persons}
    closed = set()
    for fact in world.facts:
        closed.add((fact.relation, fact.first, fact.second))
        closed.add((INVERSES[fact.relation][genders[fact.second]], fact.second, fact.first))
    return closed


def walks(closed: set[tuple[str, str, str]], start: str, longest: int = 3):
    """Every walk of 1..longest closed facts from `start`: (relations, persons)."""
    found = []
    frontier = [((), (start,))]
    for _ in range(longest):
        frontier = [
            ((*relations, r), (*persons, y))
            for relations, persons in frontier
            for r, x, y in closed
            if x == persons[-1]
        ]
        found += frontier
    return found


def impossible(world: KgWorld) -> list[str]:
    """What makes the family impossible: two fathers or mothers, a person their own
    ancestor, spouses related by a walk of at most three facts up, at most once across,
    then down, siblings one of whom is the other's ancestor within three generations."""
    closed = closure(world)
    problems = []
    for relation in ("father", "mother"):
        children = [y for r, _, y in closed if r == relation]
        problems += [f"two {relation}s of {y}" for y in set(children) if children.count(y) > 1]
    ancestors = {
        p.name: {x for r, x, y in closed if r in ("father", "mother") and y == p.name}
        for p in world.persons
    }
    changed = True
    while changed:
        changed = False
        for found in ancestors.values():
            more = set().union(*(ancestors[a] for a in found)) - found if found else set()
            if more:
                found |= more
                changed = True
    problems += [f"{p} is their own ancestor" for p, found in ancestors.items() if p in found]
    for r, x, y in closed:
        if r in ("husband", "wife") or r in ("brother", "sister"):
            for relations, persons in walks(closed, x):
                letters = "".join(LETTER[relation] for relation in relations)
                if persons[-1] != y:
                    continue
                if r in ("husband", "wife") and BLOOD.fullmatch(letters):
                    problems.append(f"spouses {x} and {y} are blood relatives ({letters})")
                if r in ("brother", "sister") and re.fullmatch("u+", letters):
                    problems.append(f"{y} is a sibling and an ancestor of {x}")
    return problems


def relations(world: KgWorld, closed, start: str) -> dict[str, set[tuple[str, str]]]:
    """For each person `start` reaches, the relations it holds to them: a closed basic fact,
    or a composite relation one of whose paths (standard or declared) the walk follows."""
    paths = {}
    for rule in world.all_rules:
        paths.setdefault(rule.path, set()).add(rule.name)
    held: dict[str, set[str]] = {}
    for path, persons in walks(closed, start):
        end = persons[-1]
        if end == start:
            continue
        names = {path[0]} if len(path) == 1 else paths.get(path, set())
        held.setdefault(end, set()).update(names)
    return held


def _persons(world: KgWorld) -> dict[str, str]:
    return {person_words(p.name): p.name for p in world.persons}


def analogy_problems(instance: KgInstance) -> list[str]:
    """Why an analogy A : B :: C : ? has no single answer D, or a degenerate one."""
    names = _persons(instance.world)
    solution = instance.solution
    a, b = names[solution.source.persons[0]], names[solution.source.persons[-1]]
    c, d = names[solution.target.persons[0]], names[solution.answer]
    problems = []
    if c in (a, b):
        problems.append("C is A or B")
    if d in (a, b, c):
        problems.append("the answer is A, B or C")
    closed = closure(instance.world)
    between = relations(instance.world, closed, a).get(b, set())
    if not between:
        problems.append("A holds no relation to B")
    from_c = relations(instance.world, closed, c)
    for relation in sorted(between):
        reached = {person for person, held in from_c.items() if relation in held}
        if reached != {d}:
            problems.append(f"C reaches {sorted(reached)} along {relation}, not {d} alone")
    return problems


def inductive_problems(instance: KgInstance) -> list[str]:
    """Where a support example's or the query's ends hold another relation than the rule."""
    names = _persons(instance.world)
    solution = instance.solution
    closed = closure(instance.world)
    rule = instance.answer.replace("-", "_")
    problems = []
    for chain in (*solution.examples, solution.query):
        first, last = names[chain.persons[0]], names[chain.persons[-1]]
        held = relations(instance.world, closed, first).get(last, set())
        if held != {rule}:
            problems.append(f"{first} holds {sorted(held)} to {last}, not {rule} alone")
    return problems


def events_on(world: KgWorld, target: str) -> Iterator[Event]:
    """Every operation event involving the target over the world's persons and objects,
    valid or not."""
    persons = [person.name for person in world.persons]
    others = [thing.name for thing in world.objects if thing.name != target]
    for kind, (roles, _) in EVENT_ROLES.items():
        if kind == "exchange":
            for p in persons:
                for q in persons:
                    for other in others:
                        yield Event(kind, (p, q), (target, other))
                        yield Event(kind, (p, q), (other, target))
        elif len(roles) == 2:
            yield from (Event(kind, (p, q), (target,)) for p in persons for q in persons)
        else:
            yield from (Event(kind, (p,), (target,)) for p in persons)
