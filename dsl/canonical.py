"""Canonical alpha-renaming of theories, for comparing them up to the names they use.

`canonical(t)` renames rules to `r1, r2, ...` and atoms to `a1, a2, ...` so that two theories that
differ only by a bijective renaming (and by the order of their directives, of rule antecedents, of
queries and of the two sides of a contradictory declaration) become equal. Rule names and atoms
share one namespace: the literal `-r1` undercuts rule `r1`, so a symbol that is both a rule name
and an atom is renamed once, as a rule. The renaming is found by colour refinement (1-dimensional
Weisfeiler-Leman) over a graph of symbols, followed by individualisation-refinement with
automorphism pruning; the result is the renamed theory whose text is lexicographically smallest
over the search tree's leaves.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from argc.dsl.ir import (
    Contradictory,
    Contrary,
    Literal,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)

__all__ = ["LEAF_BOUND", "canonical"]

#: Most leaves the individualisation-refinement search visits; past it the first leaf is used.
LEAF_BOUND = 2_000

Colours = tuple[int, ...]
Edge = tuple[tuple[str, int, int], int]


def canonical(theory: Theory, *, rename_atoms: bool = True) -> Theory:
    """The theory with canonical names, sorted directive groups, rule bodies, queries and
    contradictory pairs.

    Rules become `r1, r2, ...` everywhere, including where a rule name is used as a literal.
    With `rename_atoms` the remaining atoms become `a1, a2, ...`; without it they keep their
    names (and rule names skip any `r<k>` already taken by an atom). The ordering and semantics
    headers are kept. Equal results mean the theories are renamings of each other (the result
    is always a bijective renaming of the input). Conversely renamings give equal results as
    long as the search stays within `LEAF_BOUND` leaves; beyond it the first leaf found is
    used, which is still exact whenever the remaining ties are automorphisms.
    """
    graph = _Graph(theory, rename_atoms)
    search = _Search(graph)
    return search.run()


class _Graph:
    """Symbols (atoms and rule names) as nodes with role colours and labelled edges."""

    def __init__(self, theory: Theory, rename_atoms: bool) -> None:
        self.theory = theory
        self.rename_atoms = rename_atoms
        self.rules = {rule.name: rule for rule in theory.rules}
        names = dict.fromkeys(rule.name for rule in theory.rules)
        names.update(dict.fromkeys(sorted(literal.atom for literal in theory.literals())))
        self.symbols: list[str] = list(names)
        self.index = {name: position for position, name in enumerate(self.symbols)}
        self.edges: list[list[Edge]] = [[] for _ in self.symbols]
        for rule in theory.rules:
            for literal in rule.body:
                self._link(rule.name, "body", literal.atom, 0, int(literal.negated))
            self._link(rule.name, "head", rule.head.atom, 0, int(rule.head.negated))
        for preference in theory.rule_preferences:
            self._link(preference.stronger, "prefer_rule", preference.weaker, 0, 0)
        for preference in theory.premise_preferences:
            stronger, weaker = preference.stronger, preference.weaker
            signs = int(stronger.negated), int(weaker.negated)
            self._link(stronger.atom, "prefer_premise", weaker.atom, *signs)
        for contrary in theory.contraries:
            attacker, attacked = contrary.attacker, contrary.attacked
            signs = int(attacker.negated), int(attacked.negated)
            self._link(attacker.atom, "contrary", attacked.atom, *signs)
        for contradictory in theory.contradictories:
            # Unordered: a link each way, so that neither side is told apart.
            first, second = contradictory.first, contradictory.second
            for one, other in ((first, second), (second, first)):
                signs = int(one.negated), int(other.negated)
                self._link(one.atom, "contradictory", other.atom, *signs)
        self.fixed = frozenset(
            () if rename_atoms else (name for name in self.symbols if name not in self.rules)
        )
        self.initial = _ranks(self._role(name) for name in self.symbols)

    def _link(self, source: str, label: str, target: str, first: int, second: int) -> None:
        """An edge both ways; each end sees the label from its own side."""
        self.edges[self.index[source]].append(((label + ">", first, second), self.index[target]))
        self.edges[self.index[target]].append(((label + "<", second, first), self.index[source]))

    def _role(self, name: str) -> tuple[int, int, int, tuple[int, ...], str]:
        """Name-independent initial colour (the name itself only for an atom kept as is)."""
        rule = self.rules.get(name)
        theory = self.theory
        knowledge = tuple(
            int(Literal(name, negated) in group)
            for group in (theory.axioms, theory.premises, theory.queries)
            for negated in (False, True)
        )
        kept = name if not self.rename_atoms and rule is None else ""
        if rule is None:
            return (0, 0, 0, knowledge, kept)
        return (1, int(rule.strict), len(rule.body), knowledge, kept)

    def refine(self, colours: Colours) -> Colours:
        """Colour refinement to a stable colouring; cells keep their relative order."""
        while True:
            signatures = [
                (colours[node], tuple(sorted((label, colours[other]) for label, other in edges)))
                for node, edges in enumerate(self.edges)
            ]
            refined = _ranks(signatures)
            if len(set(refined)) == len(set(colours)):
                return refined
            colours = refined

    def rename(self, colours: Colours) -> Theory:
        """The theory renamed along a discrete colouring, every group sorted by its text."""
        mapping: dict[str, str] = {name: name for name in self.fixed}
        rule_names = _fresh("r", self.fixed)
        atom_names = _fresh("a", self.fixed)
        for node in sorted(range(len(self.symbols)), key=colours.__getitem__):
            name = self.symbols[node]
            if name in self.rules:
                mapping[name] = next(rule_names)
            elif name not in self.fixed:
                mapping[name] = next(atom_names)
        return _renamed(self.theory, mapping)


def _renamed(theory: Theory, mapping: dict[str, str]) -> Theory:
    """Apply a symbol mapping and sort every group by its printed text."""

    def lit(literal: Literal) -> Literal:
        return Literal(mapping[literal.atom], literal.negated)

    def ordered(items: Iterable[object]) -> tuple:
        return tuple(sorted(items, key=str))

    rules = (
        Rule(mapping[rule.name], ordered(lit(x) for x in rule.body), lit(rule.head), rule.strict)
        for rule in theory.rules
    )
    return Theory(
        axioms=ordered(lit(x) for x in theory.axioms),
        premises=ordered(lit(x) for x in theory.premises),
        rules=ordered(rules),
        rule_preferences=ordered(
            RulePreference(mapping[p.stronger], mapping[p.weaker]) for p in theory.rule_preferences
        ),
        premise_preferences=ordered(
            PremisePreference(lit(p.stronger), lit(p.weaker)) for p in theory.premise_preferences
        ),
        contraries=ordered(Contrary(lit(c.attacker), lit(c.attacked)) for c in theory.contraries),
        contradictories=ordered(
            Contradictory(*ordered((lit(c.first), lit(c.second)))) for c in theory.contradictories
        ),
        ordering=theory.ordering,
        semantics=theory.semantics,
        queries=ordered(lit(x) for x in theory.queries),
    )


@dataclass
class _Leaf:
    path: tuple[int, ...]
    colours: Colours
    text: str
    theory: Theory


class _BoundReached(Exception):
    """The search visited `LEAF_BOUND` leaves."""


class _Search:
    """Individualisation-refinement keeping the leaf with the smallest text.

    Leaves with equal text reveal automorphisms: the search then jumps back to the deepest
    common ancestor (the subtree is a copy of one already seen) and skips children that lie in
    one orbit, under the automorphisms found that fix the current path, with a child explored.
    """

    def __init__(self, graph: _Graph) -> None:
        self.graph = graph
        self.first: _Leaf | None = None
        self.best: _Leaf | None = None
        self.automorphisms: list[dict[int, int]] = []
        self.leaves = 0

    def run(self) -> Theory:
        try:
            self._visit(self.graph.refine(self.graph.initial), ())
        except _BoundReached:
            assert self.first is not None
            return self.first.theory
        assert self.best is not None
        return self.best.theory

    def _visit(self, colours: Colours, path: tuple[int, ...]) -> int | None:
        """Explore below a node; a depth to jump back to, or None to go on."""
        cell = _first_tied_cell(colours)
        if not cell:
            return self._leaf(colours, path)
        explored: list[int] = []
        orbits = _Orbits(frozenset(path))
        for node in cell:
            if explored and orbits.meets(node, explored, self.automorphisms):
                continue
            explored.append(node)
            split = tuple(
                2 * colour + (colour == colours[node] and other != node)
                for other, colour in enumerate(colours)
            )
            target = self._visit(self.graph.refine(_ranks(split)), (*path, node))
            if target is not None and target < len(path):
                return target
        return None

    def _leaf(self, colours: Colours, path: tuple[int, ...]) -> int | None:
        self.leaves += 1
        if self.leaves > LEAF_BOUND:
            raise _BoundReached
        theory = self.graph.rename(colours)
        leaf = _Leaf(path, colours, theory.to_text(), theory)
        if self.first is None:
            self.first = self.best = leaf
            return None
        assert self.best is not None
        for known in (self.first, self.best):
            if leaf.text == known.text:
                self.automorphisms.append(_mapping(known.colours, leaf.colours))
                return _common_prefix(known.path, leaf.path)
        if leaf.text < self.best.text:
            self.best = leaf
        return None


class _Orbits:
    """Orbits of the found automorphisms that fix a path pointwise, updated as more are found."""

    def __init__(self, fixed: frozenset[int]) -> None:
        self.fixed = fixed
        self.parent: dict[int, int] = {}
        self.used = 0

    def find(self, item: int) -> int:
        while (up := self.parent.get(item, item)) != item:
            self.parent[item] = self.parent.get(up, up)
            item = up
        return item

    def meets(
        self, node: int, explored: Sequence[int], automorphisms: list[dict[int, int]]
    ) -> bool:
        """Whether `node` shares an orbit with an explored child."""
        for moved in automorphisms[self.used :]:
            if self.fixed.isdisjoint(moved):
                for item, image in moved.items():
                    self.parent[self.find(item)] = self.find(image)
        self.used = len(automorphisms)
        root = self.find(node)
        return any(self.find(child) == root for child in explored)


def _ranks(values: Iterable[Hashable]) -> Colours:
    """Each value replaced by its rank among the distinct values, in sorted order."""
    items = list(values)
    order: dict = {value: rank for rank, value in enumerate(sorted(set(items)))}  # type: ignore[type-var]
    return tuple(order[value] for value in items)


def _first_tied_cell(colours: Colours) -> list[int]:
    """Nodes of the smallest colour shared by two or more nodes (empty when discrete)."""
    counts: dict[int, int] = {}
    for colour in colours:
        counts[colour] = counts.get(colour, 0) + 1
    tied = [colour for colour, count in counts.items() if count > 1]
    if not tied:
        return []
    chosen = min(tied)
    return [node for node, colour in enumerate(colours) if colour == chosen]


def _mapping(source: Colours, target: Colours) -> dict[int, int]:
    """The permutation taking each node of one discrete colouring to its twin in another,
    as the nodes it moves."""
    by_colour = {colour: node for node, colour in enumerate(target)}
    moved = ((node, by_colour[colour]) for node, colour in enumerate(source))
    return {node: image for node, image in moved if node != image}


def _common_prefix(first: tuple[int, ...], second: tuple[int, ...]) -> int:
    length = 0
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        length += 1
    return length


def _fresh(prefix: str, taken: frozenset[str]) -> Iterator[str]:
    """`prefix1, prefix2, ...`, skipping names in `taken`."""
    number = 0
    while True:
        number += 1
        name = f"{prefix}{number}"
        if name not in taken:
            yield name
