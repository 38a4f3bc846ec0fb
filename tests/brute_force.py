"""Abstract argumentation semantics straight from their textbook definitions, by enumerating
every subset of arguments (small frameworks only)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

Framework = tuple[frozenset[str], frozenset[tuple[str, str]]]


def _subsets(arguments: frozenset[str]) -> Iterable[frozenset[str]]:
    ordered = sorted(arguments)
    for size in range(len(ordered) + 1):
        for chosen in combinations(ordered, size):
            yield frozenset(chosen)


def _maximal(sets: list[frozenset[str]]) -> set[frozenset[str]]:
    return {s for s in sets if not any(s < other for other in sets)}


def extensions(framework: Framework, semantics: str) -> set[frozenset[str]]:
    """All extensions of `framework` = (arguments, defeats) under `semantics`."""
    arguments, defeats = framework
    attackers = {a: {b for b, c in defeats if c == a} for a in arguments}

    def defeated_by(s: frozenset[str]) -> frozenset[str]:
        return frozenset(c for b, c in defeats if b in s)

    def conflict_free(s: frozenset[str]) -> bool:
        return not any(b in s and c in s for b, c in defeats)

    def defends(s: frozenset[str], a: str) -> bool:
        return attackers[a] <= defeated_by(s)

    def admissible(s: frozenset[str]) -> bool:
        return conflict_free(s) and all(defends(s, a) for a in s)

    def complete(s: frozenset[str]) -> bool:
        return admissible(s) and all(a in s for a in arguments if defends(s, a))

    def range_of(s: frozenset[str]) -> frozenset[str]:
        return s | defeated_by(s)

    def range_maximal(sets: list[frozenset[str]]) -> set[frozenset[str]]:
        ranges = {s: range_of(s) for s in sets}
        return {s for s in sets if not any(ranges[s] < other for other in ranges.values())}

    def largest_admissible_within(bound: frozenset[str]) -> set[frozenset[str]]:
        return _maximal([s for s in all_sets if s <= bound and admissible(s)])

    all_sets = list(_subsets(arguments))
    free = [s for s in all_sets if conflict_free(s)]
    if semantics == "conflict-free":
        return set(free)
    if semantics == "naive":
        return _maximal(free)
    if semantics == "stage":
        return range_maximal(free)
    if semantics == "stable":
        return {s for s in free if range_of(s) == arguments}
    adm = [s for s in free if admissible(s)]
    if semantics == "admissible":
        return set(adm)
    comp = [s for s in adm if complete(s)]
    if semantics == "complete":
        return set(comp)
    if semantics == "grounded":
        return {frozenset.intersection(*comp)}
    if semantics == "preferred":
        return _maximal(adm)
    if semantics == "semi-stable":
        return range_maximal(comp)
    if semantics == "ideal":
        return largest_admissible_within(frozenset.intersection(*_maximal(adm)))
    if semantics == "eager":
        return largest_admissible_within(frozenset.intersection(*range_maximal(comp)))
    raise ValueError(semantics)
