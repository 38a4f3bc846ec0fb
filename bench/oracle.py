"""PyArg 2.0.2 as the reference oracle: an argc theory built in PyArg, solved there, and its
results named the way argc names them (canonical argument names, literal text). PyArg ships in
the `bench` extra; only the audit and the tests import this module."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

from py_arg.abstract_argumentation_classes.abstract_argumentation_framework import (
    AbstractArgumentationFramework,
)
from py_arg.abstract_argumentation_classes.argument import Argument as PyArgArgument
from py_arg.abstract_argumentation_classes.defeat import Defeat
from py_arg.algorithms.semantics.get_admissible_sets import get_admissible_sets
from py_arg.algorithms.semantics.get_complete_extensions import get_complete_extensions
from py_arg.algorithms.semantics.get_conflict_free_extensions import (
    apply as get_conflict_free_extensions,
)
from py_arg.algorithms.semantics.get_eager_extension import get_eager_extension
from py_arg.algorithms.semantics.get_grounded_extension import get_grounded_extension
from py_arg.algorithms.semantics.get_ideal_extension import get_ideal_extension
from py_arg.algorithms.semantics.get_naive_extensions import apply as get_naive_extensions
from py_arg.algorithms.semantics.get_preferred_extensions import get_preferred_extensions
from py_arg.algorithms.semantics.get_semistable_extensions import get_semistable_extensions
from py_arg.algorithms.semantics.get_stable_extensions import get_stable_extensions
from py_arg.aspic_classes.argumentation_system import ArgumentationSystem
from py_arg.aspic_classes.argumentation_theory import ArgumentationTheory
from py_arg.aspic_classes.defeasible_rule import DefeasibleRule
from py_arg.aspic_classes.literal import Literal as PyArgLiteral
from py_arg.aspic_classes.orderings.argument_orderings.last_link_ordering import (
    LastLinkDemocraticOrdering,
    LastLinkElitistOrdering,
    LastLinkOrdering,
)
from py_arg.aspic_classes.orderings.argument_orderings.weakest_link_ordering import (
    WeakestLinkDemocraticOrdering,
    WeakestLinkElitistOrdering,
    WeakestLinkOrdering,
)
from py_arg.aspic_classes.orderings.preference_preorder import PreferencePreorder
from py_arg.aspic_classes.strict_rule import StrictRule

from argc.dsl.ir import Literal, Ordering, Theory


class _ModgilPrakken2013:
    """Set comparison of Modgil & Prakken (2013, Def. 19), written from the definition: a
    non-strict comparison over the reflexive element order, and its strict counterpart.
    Mixed into PyArg's argument orderings, which keep their principle logic."""

    democratic = False

    def _at_most(self, order: PreferencePreorder, first: set, second: set) -> bool:
        if not first:
            return False
        if not second:
            return True

        def le(x, y) -> bool:
            return x == y or order.is_weaker_than(x, y)

        if self.democratic:
            return all(any(le(x, y) for y in second) for x in first)
        return any(all(le(x, y) for y in second) for x in first)

    def _strictly(self, order: PreferencePreorder, first: set, second: set) -> bool:
        return self._at_most(order, first, second) and not self._at_most(order, second, first)

    def rule_set_is_strictly_weaker_than(self, first, second) -> bool:
        return self._strictly(self.defeasible_rule_preferences, first, second)

    def ordinary_premise_set_is_strictly_weaker_than(self, first, second) -> bool:
        return self._strictly(self.ordinary_premise_preferences, first, second)


def _mp2013(principle: type, democratic: bool) -> type:
    return type(
        principle.__name__ + "MP2013", (_ModgilPrakken2013, principle), {"democratic": democratic}
    )


ORDERINGS = {
    ("last-link", "elitist", "pyarg"): LastLinkElitistOrdering,
    ("last-link", "democratic", "pyarg"): LastLinkDemocraticOrdering,
    ("weakest-link", "elitist", "pyarg"): WeakestLinkElitistOrdering,
    ("weakest-link", "democratic", "pyarg"): WeakestLinkDemocraticOrdering,
    ("last-link", "elitist", "mp2013"): _mp2013(LastLinkOrdering, False),
    ("last-link", "democratic", "mp2013"): _mp2013(LastLinkOrdering, True),
    ("weakest-link", "elitist", "mp2013"): _mp2013(WeakestLinkOrdering, False),
    ("weakest-link", "democratic", "mp2013"): _mp2013(WeakestLinkOrdering, True),
}

SEMANTICS: dict[str, Callable] = {
    "complete": get_complete_extensions,
    "preferred": get_preferred_extensions,
    "stable": get_stable_extensions,
    "semi-stable": get_semistable_extensions,
    "ideal": get_ideal_extension,
    "eager": get_eager_extension,
    "admissible": get_admissible_sets,
    "conflict-free": get_conflict_free_extensions,
    "naive": get_naive_extensions,
}


def transitive_closure(pairs: list[tuple]) -> list[tuple]:
    """Close (weaker, stronger) pairs transitively; PyArg's preorder does not."""
    closed = set(pairs)
    while True:
        extra = {(a, d) for a, b in closed for c, d in closed if b == c} - closed
        if not extra:
            return sorted(closed, key=str)
        closed |= extra


@dataclass
class OracleResult:
    """PyArg's view of a theory under one ordering, in argc's names."""

    arguments: dict[str, str]  # canonical name -> conclusion text
    defeats: set[tuple[str, str]]
    framework: AbstractArgumentationFramework

    def grounded(self) -> frozenset[str]:
        return frozenset(argument.name for argument in get_grounded_extension(self.framework))

    def extensions(self, semantics: str) -> set[frozenset[str]]:
        found = SEMANTICS[semantics](self.framework)
        return {frozenset(argument.name for argument in extension) for extension in found}

    def statuses(self, claims: list[Literal]) -> dict[str, str]:
        """ArgGYM's claim statuses from PyArg's grounded extension."""
        grounded = self.grounded()
        defeated = {b for a, b in self.defeats if a in grounded}
        result = {}
        for claim in claims:
            supporting = [name for name, conc in self.arguments.items() if conc == str(claim)]
            if any(name in grounded for name in supporting):
                result[str(claim)] = "justified"
            elif all(name in defeated for name in supporting):
                result[str(claim)] = "overruled"
            else:
                result[str(claim)] = "undecided"
        return result


def _canonical(argument) -> str:
    if argument.top_rule is None:
        return str(argument.conclusion)
    subs = sorted(_canonical(sub) for sub in argument.direct_sub_arguments)
    return f"{argument.top_rule.id}({','.join(subs)})"


def build(theory: Theory) -> ArgumentationTheory:
    """The theory as a PyArg ArgumentationTheory (literals created once, preferences closed)."""
    atoms = {literal.atom for literal in theory.literals()}
    atoms |= {rule.name for rule in theory.defeasible_rules}
    language = {}
    for atom, negated in product(sorted(atoms), (False, True)):
        text = str(Literal(atom, negated))
        language[text] = PyArgLiteral(text)
    contraries: dict[str, set] = {text: set() for text in language}
    for atom in atoms:
        contraries[atom].add(language[f"-{atom}"])
        contraries[f"-{atom}"].add(language[atom])
    for contrary in theory.contraries:
        contraries[str(contrary.attacked)].add(language[str(contrary.attacker)])
    for contradictory in theory.contradictories:  # each listed as the other's contrary
        first, second = str(contradictory.first), str(contradictory.second)
        contraries[first].add(language[second])
        contraries[second].add(language[first])

    def rule_object(rule):
        kind = StrictRule if rule.strict else DefeasibleRule
        return kind(rule.name, {language[str(b)] for b in rule.body}, language[str(rule.head)])

    rules = {rule.name: rule_object(rule) for rule in theory.rules}
    rule_pairs = transitive_closure(
        [(rules[p.weaker], rules[p.stronger]) for p in theory.rule_preferences]
    )
    premise_pairs = transitive_closure(
        [(language[str(p.weaker)], language[str(p.stronger)]) for p in theory.premise_preferences]
    )
    system = ArgumentationSystem(
        language,
        contraries,
        [rules[rule.name] for rule in theory.strict_rules],
        [rules[rule.name] for rule in theory.defeasible_rules],
        PreferencePreorder(rule_pairs),
        add_defeasible_rule_literals=False,
    )
    return ArgumentationTheory(
        system,
        [language[str(axiom)] for axiom in theory.axioms],
        [language[str(premise)] for premise in theory.premises],
        PreferencePreorder(premise_pairs),
    )


def oracle(theory: Theory, ordering: Ordering) -> OracleResult:
    """Arguments and defeats by PyArg, with a fresh abstract framework for the semantics."""
    built = build(theory)
    order = ORDERINGS[(ordering.principle, ordering.set_comparison, ordering.reading)](
        built.argumentation_system.rule_preferences, built.ordinary_premise_preferences
    )
    arguments = {_canonical(a): str(a.conclusion) for a in built.all_arguments}
    defeats = {
        (_canonical(d.from_argument), _canonical(d.to_argument))
        for d in built.recompute_all_defeats(order)
    }
    nodes = {name: PyArgArgument(name) for name in arguments}
    framework = AbstractArgumentationFramework(
        "oracle", list(nodes.values()), [Defeat(nodes[a], nodes[b]) for a, b in sorted(defeats)]
    )
    return OracleResult(arguments, defeats, framework)
