"""Warnings about well-formed theories that probably do not say what their author meant:
preferences that form a cycle (so none of them is strict), rules named like atoms the theory
uses for something else (a rule's name is a literal: `-r` undercuts the rule `r`) and
contradictory declarations that signed negation already makes (`a <-> -a`)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

from argc.dsl.graphs import strongly_connected
from argc.dsl.ir import Literal, Position, Theory
from argc.dsl.records import dataclass


@dataclass(frozen=True)
class TheoryWarning:
    message: str
    position: Position | None = None

    def located(self, filename: str) -> str:
        """The warning as `file:line:col: warning: ...`."""
        where = filename
        if self.position is not None:
            where += f":{self.position.line}:{self.position.column}"
        return f"{where}: warning: {self.message}"


def theory_warnings(theory: Theory) -> list[TheoryWarning]:
    """What looks unintended in a theory, in source order of the directives concerned."""
    rule_pairs = [(p.stronger, p.weaker, p.position) for p in theory.rule_preferences]
    premise_pairs = [(p.stronger, p.weaker, p.position) for p in theory.premise_preferences]
    found = _cycles(rule_pairs, "rule") + _cycles(premise_pairs, "premise")
    found += _rules_named_like_atoms(theory)
    found += _redundant_contradictories(theory)
    return found


def _cycles(pairs: Sequence[tuple[Hashable, Hashable, Position | None]], what: str) -> list:
    """One warning per group of preferences that reach each other (a strongly connected
    component of the stronger → weaker graph with more than one member)."""
    graph: dict[Hashable, list[Hashable]] = {}
    for stronger, weaker, _ in pairs:
        graph.setdefault(stronger, []).append(weaker)
        graph.setdefault(weaker, [])
    cycles = [component for component in strongly_connected(graph) if len(component) > 1]
    cycle_of = {item: index for index, component in enumerate(cycles) for item in component}
    first: dict[int, Position | None] = {}
    for stronger, weaker, position in pairs:
        index = cycle_of.get(stronger)
        if index is not None and index == cycle_of.get(weaker):
            first.setdefault(index, position)
    warnings = []
    for index, component in enumerate(cycles):
        members = ", ".join(sorted(str(item) for item in component))
        warnings.append(
            TheoryWarning(
                f"the {what} preferences among {members} form a cycle: none of these"
                f" {what}s is strictly preferred to another",
                first[index],
            )
        )
    return warnings


def _rules_named_like_atoms(theory: Theory) -> list[TheoryWarning]:
    """Defeasible rules whose name the theory also uses as a positive axiom, premise or
    antecedent: there `r` stands for "rule r applies", which is rarely what is meant (`-r`,
    anywhere, is the intended undercut). Strict rules, which have no applicability literal
    and cannot be undercut, are flagged for any use of their name as an atom."""
    anywhere = {literal.atom for literal in theory.literals()}
    used = _knowledge_and_antecedents(theory)
    positive = {literal.atom for literal in used if not literal.negated}
    warnings = []
    for rule in theory.rules:
        if rule.name not in (anywhere if rule.strict else positive):
            continue
        meaning = (
            f"-{rule.name} does not undercut a strict rule: it is an unrelated atom"
            if rule.strict
            else f"{rule.name} there means that the rule applies (-{rule.name} undercuts it)"
        )
        warnings.append(
            TheoryWarning(
                f"rule '{rule.name}' is named like the atom {rule.name} the theory also uses;"
                f" {meaning}",
                rule.position,
            )
        )
    return warnings


def _knowledge_and_antecedents(theory: Theory) -> Iterable[Literal]:
    yield from theory.axioms
    yield from theory.premises
    for rule in theory.rules:
        yield from rule.body


def _redundant_contradictories(theory: Theory) -> list[TheoryWarning]:
    """`[contradictory: a <-> -a]`: an atom and its negation are contradictory anyway."""
    return [
        TheoryWarning(
            f"'{c.first}' and '{c.second}' are contradictory anyway (an atom and its"
            " negation): the declaration is redundant",
            c.position,
        )
        for c in theory.contradictories
        if c.first == c.second.complement
    ]
