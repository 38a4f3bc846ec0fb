"""Genealogy constraints: the kinship facts of a KG world, closed under inverse, describe a
possible family (docs/kg.md, "Kinship").

- **one father, one mother**: nobody has two fathers or two mothers;
- **no cycle of descent**: nobody is their own ancestor (parents are the closed `father` and
  `mother` facts, which the `son` and `daughter` facts close into);
- **no spouse of one's blood**: spouses are not blood relatives within `REACH` steps, a walk
  up to parents, then at most one step across to a sibling, then down to children (each
  part possibly empty), as every kinship rule path between blood relatives runs;
- **siblings of one generation**: nobody is the sibling of their own ancestor within
  `REACH` generations.

`violations(world)` lists every violation, each reported at one written fact: the fact
that gives a person a second father or mother, the fact that closes the first cycle of
descent, the spouse fact, the sibling fact. `asp/kg/genealogy.lp` states the same
constraints in ASP (tests/test_kg_genealogy.py compares the two on random fact sets).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from argc.dsl.graphs import strongly_connected
from argc.dsl.kg.simulate import INVERSE
from argc.dsl.kg.world import KgWorld, KinshipFact

#: The kinds of violation, in the order they are reported at one fact.
KINDS = ("father", "mother", "ancestor", "spouse", "sibling")
#: The most steps a blood relation between spouses, or a line of descent between siblings,
#: spans (the longest rule path).
REACH = 3
#: A closed kinship fact (relation, first person, second person).
Closed = tuple[str, str, str]
#: The parts of a walk between blood relatives, and the closed relations each part steps
#: along (from a person to the next).
PARTS = {"up": ("son", "daughter"), "across": ("brother", "sister"), "down": ("father", "mother")}
#: The parts a walk between blood relatives may take after each: up, then at most one step
#: across, then down.
FOLLOWS = {"up": ("up", "across", "down"), "across": ("down",), "down": ("down",)}
#: A line of descent, walked up from the descendant.
UPWARD = {"up": ("up",)}
#: The part of a walk each closed relation steps along; "spouse" and "friend" are no part.
PART = {
    **{relation: part for part, relations in PARTS.items() for relation in relations},
    "husband": "spouse",
    "wife": "spouse",
    "friend": "friend",
}


@dataclass(frozen=True)
class Violation:
    """A genealogy constraint that the facts break: its kind (`KINDS`), the persons it is
    about (sorted), the index of the written fact it is reported at, and what is wrong."""

    kind: str
    persons: tuple[str, ...]
    fact: int
    message: str


def _line(fact: KinshipFact) -> str:
    return f" (line {fact.position.line})" if fact.position is not None else ""


class _Family:
    """The closed facts of a world, each with the indices of the written facts giving it."""

    def __init__(self, world: KgWorld) -> None:
        self.facts = world.facts
        genders = world.genders
        self.sources: dict[Closed, list[int]] = {}
        for index, fact in enumerate(world.facts):
            inverse = INVERSE[fact.relation][genders.get(fact.second) != "male"]
            for closed in (
                (fact.relation, fact.first, fact.second),
                (inverse, fact.second, fact.first),
            ):
                self.sources.setdefault(closed, []).append(index)
        self.steps: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for relation, first, second in self.sources:
            self.steps.setdefault((first, PART[relation]), []).append((relation, second))

    def following(self, person: str, part: str) -> list[tuple[str, str]]:
        """(relation, person) for each closed fact of `part` from `person`."""
        return self.steps.get((person, part), [])

    def parent_edges(self) -> Iterator[tuple[str, str, int]]:
        """(parent, child, index of the first fact giving it)."""
        for (relation, first, second), indices in self.sources.items():
            if relation in PARTS["down"]:
                yield first, second, indices[0]

    def pairs(self, part: str) -> dict[tuple[str, str], int]:
        """Each unordered pair of persons related by `part` ("across": siblings, "spouse":
        spouses), sorted, with the index of its first fact."""
        found: dict[tuple[str, str], int] = {}
        for (relation, first, second), indices in self.sources.items():
            if PART[relation] == part and first != second:
                pair = (min(first, second), max(first, second))
                found[pair] = min(found.get(pair, indices[0]), indices[0])
        return found


def _parents(family: _Family) -> Iterator[Violation]:
    """A second father or mother: reported at the first fact naming another one than the
    first named."""
    named: dict[tuple[str, str], dict[str, int]] = {}
    for (relation, first, second), indices in family.sources.items():
        if relation in PARTS["down"]:
            named.setdefault((relation, second), {})[first] = indices[0]
    for (relation, child), parents in sorted(named.items()):
        if len(parents) < 2:
            continue
        (one, at), (other, culprit) = sorted(parents.items(), key=lambda item: item[1])[:2]
        fact = family.facts[culprit]
        yield Violation(
            relation,
            (child,),
            culprit,
            f"{fact} makes {other} a second {relation} of {child}, whose {relation} is {one}"
            f"{_line(family.facts[at])}; a person has one {relation}",
        )


def _acyclic(edges: list[tuple[str, str, int]]) -> bool:
    """Whether the directed edges (parent, child, fact) have no cycle (Kahn's algorithm)."""
    children: dict[str, list[str]] = {}
    entering: dict[str, int] = {}
    for parent, child, _ in edges:
        children.setdefault(parent, []).append(child)
        entering[child] = entering.get(child, 0) + 1
    free = [person for person in children if not entering.get(person)]
    removed = 0
    while free:
        person = free.pop()
        for child in children.get(person, ()):
            removed += 1
            entering[child] -= 1
            if not entering[child]:
                free.append(child)
    return removed == len(edges)


def _path(edges: list[tuple[str, str, int]], start: str, end: str) -> list[str]:
    """The persons along a shortest line of descent from `start` to `end` over the edges."""
    children: dict[str, list[str]] = {}
    for parent, child, _ in edges:
        children.setdefault(parent, []).append(child)
    before = {start: start}
    queue = deque([start])
    while queue and end not in before:
        person = queue.popleft()
        for child in children.get(person, ()):
            if child not in before:
                before[child] = person
                queue.append(child)
    path = [end]
    while path[-1] != start:
        path.append(before[path[-1]])
    return path[::-1]


def _ancestors(family: _Family) -> Iterator[Violation]:
    """Each group of persons on cycles of descent, reported at the fact that closes its
    first cycle (the last fact of the shortest prefix of its facts that has a cycle)."""
    edges = list(family.parent_edges())
    children: dict[str, list[str]] = {}
    for parent, child, _ in edges:
        children.setdefault(parent, []).append(child)
    for members in strongly_connected(children):
        if len(members) < 2:
            continue
        inside = sorted(
            (edge for edge in edges if edge[0] in members and edge[1] in members),
            key=lambda edge: edge[2],
        )
        low, high = 2, len(inside)
        while low < high:
            middle = (low + high) // 2
            if _acyclic(inside[:middle]):
                low = middle + 1
            else:
                high = middle
        parent, child, culprit = inside[low - 1]
        cycle = [parent, *_path(inside[:low], child, parent)]
        yield Violation(
            "ancestor",
            tuple(sorted(members)),
            culprit,
            f"{family.facts[culprit]} closes a cycle of descent ({' -> '.join(cycle)}, each a"
            " parent of the next); nobody is their own ancestor",
        )


def _walk(
    family: _Family, start: str, end: str, follows: dict[str, tuple[str, ...]]
) -> list[Closed] | None:
    """The shortest walk of 1 to REACH closed facts from `start` to `end` whose parts come
    in an order `follows` allows (the parts that may come after each, "up" first); None if
    there is none."""
    before: dict[tuple[str, str], tuple[tuple[str, str], Closed] | None] = {(start, "up"): None}
    frontier = [(start, "up")]
    for _ in range(REACH):
        reached = []
        for person, phase in frontier:
            for part in follows[phase]:
                for relation, other in family.following(person, part):
                    state = (other, part)
                    if state in before:
                        continue
                    before[state] = ((person, phase), (relation, person, other))
                    if other == end:
                        steps = []
                        while (back := before[state]) is not None:
                            state, step = back
                            steps.append(step)
                        return steps[::-1]
                    reached.append(state)
        frontier = reached
    return None


def _text(walk: list[Closed]) -> str:
    return ", ".join(f"{relation}({x}, {y})" for relation, x, y in walk)


def _spouses(family: _Family) -> Iterator[Violation]:
    """Spouses who are blood relatives, reported at their first spouse fact."""
    for (one, other), culprit in sorted(family.pairs("spouse").items()):
        walk = _walk(family, one, other, FOLLOWS)
        if walk is not None:
            yield Violation(
                "spouse",
                (one, other),
                culprit,
                f"{family.facts[culprit]} marries blood relatives ({_text(walk)}); spouses are"
                f" not related by blood within {REACH} steps",
            )


def _siblings(family: _Family) -> Iterator[Violation]:
    """Siblings one of whom descends from the other within REACH generations, reported at
    their first sibling fact."""
    for (one, other), culprit in sorted(family.pairs("across").items()):
        line = _walk(family, one, other, UPWARD) or _walk(family, other, one, UPWARD)
        if line is not None:
            yield Violation(
                "sibling",
                (one, other),
                culprit,
                f"{family.facts[culprit]} makes siblings of an ancestor and a descendant"
                f" ({_text(line)}); siblings are of one generation",
            )


def violations(world: KgWorld) -> list[Violation]:
    """Every genealogy constraint the world's kinship facts break, in the order of the facts
    they are reported at (then by `KINDS`)."""
    family = _Family(world)
    found = [
        *_parents(family),
        *_ancestors(family),
        *_spouses(family),
        *_siblings(family),
    ]
    return sorted(found, key=lambda v: (v.fact, KINDS.index(v.kind), v.persons))
