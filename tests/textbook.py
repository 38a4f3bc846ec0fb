"""ASPIC+ written a second time, directly from Modgil & Prakken's definitions, as a brute-force
check where argc departs from PyArg. Rules are identified by their names; arguments never
repeat a conclusion on a branch (as in PyArg); set comparisons follow the chosen reading."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from argc.dsl.ir import Literal, Ordering, Rule, Theory


@dataclass(frozen=True)
class Arg:
    name: str
    conclusion: Literal
    rule: Rule | None
    subs: tuple[Arg, ...]

    def all_subs(self) -> set[Arg]:
        found = {self}
        for sub in self.subs:
            found |= sub.all_subs()
        return found

    def sub_conclusions(self) -> set[Literal]:
        return {sub.conclusion for sub in self.all_subs()}

    def premises(self, ordinary: set[Literal]) -> frozenset[Literal]:
        return frozenset(s.conclusion for s in self.all_subs() if s.rule is None) & ordinary

    def defeasible_rules(self) -> frozenset[str]:
        return frozenset(s.rule.name for s in self.all_subs() if s.rule and not s.rule.strict)

    def last_rules(self) -> frozenset[str]:
        if self.rule is None:
            return frozenset()
        if not self.rule.strict:
            return frozenset({self.rule.name})
        return frozenset().union(*(sub.last_rules() for sub in self.subs))


def arguments(theory: Theory) -> dict[str, Arg]:
    """Every argument, built to a fixpoint, keyed by its canonical name."""
    built = {str(p): Arg(str(p), p, None, ()) for p in (*theory.axioms, *theory.premises)}
    changed = True
    while changed:
        changed = False
        for rule in theory.rules:
            options = [
                [
                    a
                    for a in built.values()
                    if a.conclusion == b and rule.head not in a.sub_conclusions()
                ]
                for b in rule.body
            ]
            for subs in product(*options):
                name = f"{rule.name}({','.join(sorted(s.name for s in subs))})"
                if name not in built:
                    built[name] = Arg(name, rule.head, rule, tuple(subs))
                    changed = True
    return built


class Preferences:
    """Element orders (transitively closed) and set comparisons under a reading."""

    def __init__(self, theory: Theory, ordering: Ordering) -> None:
        pairs = {(p.weaker, p.stronger) for p in theory.rule_preferences}
        pairs |= {(p.weaker, p.stronger) for p in theory.premise_preferences}
        while extra := {(a, d) for a, b in pairs for c, d in pairs if b == c} - pairs:
            pairs |= extra
        self.pairs = pairs
        self.ordering = ordering

    def below(self, x, y) -> bool:
        return (x, y) in self.pairs and (y, x) not in self.pairs

    def at_most(self, x, y) -> bool:
        return x == y or (x, y) in self.pairs

    def set_weaker(self, first: frozenset, second: frozenset) -> bool:
        if not first:
            return False
        if not second:
            return True
        democratic = self.ordering.set_comparison == "democratic"
        if self.ordering.reading == "mp2013":
            return self._set_at_most(first, second, democratic) and not self._set_at_most(
                second, first, democratic
            )
        if democratic:
            return all(any(self.below(x, y) for y in second) for x in first)
        return any(all(self.below(x, y) for y in second) for x in first)

    def _set_at_most(self, first: frozenset, second: frozenset, democratic: bool) -> bool:
        if not first:
            return False
        if not second:
            return True
        if democratic:
            return all(any(self.at_most(x, y) for y in second) for x in first)
        return any(all(self.at_most(x, y) for y in second) for x in first)


def defeats(theory: Theory, ordering: Ordering) -> set[tuple[str, str]]:
    """Defeats between arguments, from the definitions of attack, preference and defeat."""
    args = arguments(theory)
    ordinary = set(theory.premises)
    defeasible = {rule.name for rule in theory.defeasible_rules}
    # Declared conflicts: contraries one way, contradictory pairs both ways.
    declared = {(c.attacker, c.attacked) for c in theory.contraries}
    declared |= {(c.first, c.second) for c in theory.contradictories}
    declared |= {(c.second, c.first) for c in theory.contradictories}
    prefs = Preferences(theory, ordering)

    def opposes(x: Literal, y: Literal) -> bool:
        return x == y.complement or (x, y) in declared

    def weaker(a: Arg, b: Arg) -> bool:
        pa, pb = a.premises(ordinary), b.premises(ordinary)
        if ordering.principle == "last-link":
            la, lb = a.last_rules(), b.last_rules()
            return prefs.set_weaker(la, lb) or (not la and not lb and prefs.set_weaker(pa, pb))
        ra, rb = a.defeasible_rules(), b.defeasible_rules()
        if not ra and not rb:
            return prefs.set_weaker(pa, pb)
        if not pa and not pb:
            return prefs.set_weaker(ra, rb)
        return prefs.set_weaker(pa, pb) and prefs.set_weaker(ra, rb)

    def defeats_on(a: Arg, b: Arg) -> bool:
        x = a.conclusion
        if b.rule is not None and b.rule.name in defeasible and opposes(x, Literal(b.rule.name)):
            return True  # undercut
        on_premise = b.rule is None and b.conclusion in ordinary
        on_defeasible = b.rule is not None and not b.rule.strict
        if not (on_premise or on_defeasible) or not opposes(x, b.conclusion):
            return False
        if not opposes(b.conclusion, x):
            return True  # contrary: preference-independent
        return not weaker(a, b)

    return {
        (a.name, c.name)
        for a in args.values()
        for c in args.values()
        if any(defeats_on(a, b) for b in c.all_subs())
    }


def grounded(names: set[str], defeat: set[tuple[str, str]]) -> frozenset[str]:
    """Least fixpoint of the characteristic function."""
    current: frozenset[str] = frozenset()
    while True:
        beaten = {c for b, c in defeat if b in current}
        following = frozenset(a for a in names if all(b in beaten for b, c in defeat if c == a))
        if following == current:
            return current
        current = following
