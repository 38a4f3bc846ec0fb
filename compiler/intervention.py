"""The fewest directives, from a declared candidate space, whose addition to a theory reaches
goal claim statuses while the theory stays consistent: one clingo optimisation over choice
atoms for the candidates, with arguments, defeats and the grounded labelling recomputed for
each choice in the same program (`asp/intervention.lp`), optimised core-guided."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import clingo

from argc.compiler.control import Limits, Session
from argc.compiler.encodings import program_encodings
from argc.compiler.facts import directive_atoms, literal_term, theory_facts
from argc.compiler.solution import STATUSES
from argc.dsl.ir import (
    Directive,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)


@dataclass(frozen=True)
class Minimum:
    """A verified minimum: no subset of the candidates with fewer directives succeeds, and
    `witness` (of `size` directives, in candidate order) does."""

    size: int
    witness: tuple[Directive, ...]


def _introduces(directive: Directive) -> str | None:
    """What a candidate adds that other candidates may name: a rule or a premise."""
    if isinstance(directive, Rule):
        return f"rule:{directive.name}"
    if isinstance(directive, Premise):
        return f"premise:{directive.literal}"
    return None


def _names(directive: Directive) -> list[str]:
    if isinstance(directive, RulePreference):
        return [f"rule:{directive.stronger}", f"rule:{directive.weaker}"]
    if isinstance(directive, PremisePreference):
        return [f"premise:{directive.stronger}", f"premise:{directive.weaker}"]
    return []


def candidate_facts(candidates: Sequence[Directive], theory: Theory) -> str:
    """The candidates as facts conditional on `chosen(K)` (K is the position, from 1), with
    `requires/2` for preferences that name a rule or premise only a candidate introduces."""
    present = {_introduces(directive) for directive in theory.directives()}
    introduced = {
        _introduces(d): k
        for k, d in enumerate(candidates, start=1)
        if _introduces(d) and _introduces(d) not in present
    }
    lines = []
    for k, directive in enumerate(candidates, start=1):
        lines.append(f"candidate({k}).")
        lines += [f"{atom} :- chosen({k})." for atom in directive_atoms(directive)]
        lines += [
            f"requires({k}, {introduced[name]})."
            for name in _names(directive)
            if name in introduced
        ]
    return "\n".join(lines) + "\n"


def fewest_additions(
    theory: Theory,
    candidates: Sequence[Directive],
    goals: Mapping[Literal, str],
    *,
    ordering: Ordering,
    limits: Limits | None = None,
) -> Minimum | None:
    """The minimum over subsets of `candidates` added to `theory` (grounded semantics) that
    give every goal claim its status and leave no literal and its negation both justified;
    None when no subset does. Raises LimitExceeded when the search does not finish within
    the limits (the minimum is then not established), ValueError for an unknown status and
    InputError for a candidate that cannot be added to the theory on its own."""
    for status in goals.values():
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
    for directive in candidates:
        if not isinstance(directive, (RulePreference, PremisePreference)):
            theory.apply([directive])  # preferences may name candidates: checked by requires
    session = Session(limits or Limits())
    session.control.configuration.solve.opt_mode = "opt"
    # Core-guided optimisation: each goal typically needs its own directives, and the
    # unsatisfiable cores prove such lower bounds at once where branch-and-bound enumerates.
    session.control.configuration.solver.opt_strategy = "usc"
    session.load([*program_encodings(ordering, "grounded"), "intervention"])
    goal_facts = "".join(f"goal({literal_term(lit)}, {status}).\n" for lit, status in goals.items())
    session.ground(
        [("base", theory_facts(theory) + candidate_facts(candidates, theory) + goal_facts)]
    )
    found = session.models(_chosen, what="improving models")
    if not found:
        return None
    best = min(found, key=len)
    witness = tuple(candidates[k - 1] for k in sorted(best))
    return Minimum(len(witness), witness)


def _chosen(model: clingo.Model) -> frozenset[int]:
    return frozenset(symbol.arguments[0].number for symbol in model.symbols(shown=True))
