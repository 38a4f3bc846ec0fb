"""Minimal supports of a world's answer (asp/norms/support.lp), and whether a given set of
rules is one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import clingo

from argc.compiler.control import Session
from argc.dsl.norms.world import COMPATIBLE, Atom

if TYPE_CHECKING:
    from argc.compiler.norms.verdict import Reading


@dataclass(frozen=True)
class Support:
    """The rules of a minimal support and the facts their justified arguments rest on."""

    rules: tuple[str, ...] = ()
    facts: tuple[Atom, ...] = ()

    def to_json(self) -> dict:
        return {"rules": list(self.rules), "facts": [str(fact) for fact in self.facts]}


class SupportProblem:
    """The optimisation over the justified rules on the answer's side (its label or a label
    compatible with it): which of them, kept alone beside every conflicting rule, sustain
    the answer; fewest rules first, then fewest facts, then the first rules by name (the
    set holding the earliest name where two differ)."""

    def __init__(
        self, reading: Reading, answer: str, justified: Mapping[str, Iterable[str]]
    ) -> None:
        side = {answer, *COMPATIBLE.get(answer, ())}
        self.candidates = {rule for label in side for rule in justified.get(label, ())}
        self.rests_on: dict[str, set[Atom]] = {rule: set() for rule in self.candidates}
        ranked = sorted(self.candidates)
        facts = [f'candidate("{rule}").' for rule in ranked]
        facts += [f"size_level({len(ranked) + 2}).", f"facts_level({len(ranked) + 1})."]
        facts += [f'tie_level("{rule}", {len(ranked) - rank}).' for rank, rule in enumerate(ranked)]
        for argument, rule in reading.rule_of.items():
            label = reading.label_of[argument]
            facts.append(f'uses("{argument}", "{rule}").')
            if label in side:
                facts.append(f'side_argument("{argument}").')
                if rule in self.rests_on and reading.status(argument) == "justified":
                    self.rests_on[rule] |= reading.facts(argument)
            else:
                facts.append(f'conflicting("{argument}").')
            if label == answer:
                facts.append(f'answer_argument("{argument}").')
        for attacker, attacked in reading.solution.defeats:
            if attacker in reading.rule_of and attacked in reading.rule_of:
                facts.append(f'defeats("{attacker}", "{attacked}").')
        for rule, atoms in self.rests_on.items():
            facts.extend(f'rests_on("{rule}", "{atom}").' for atom in atoms)
        self.session = Session(reading.limits)
        self.session.load(("norms/support",))
        self.session.ground([("base", "\n".join(facts))])

    def minimal(self) -> Support:
        """The minimal support: the optimum, unique by the tie levels."""
        self.session.control.configuration.solve.opt_mode = "opt"
        best: list[tuple[str, ...]] = []

        def on_model(model: clingo.Model) -> bool:
            chosen = (symbol.arguments[0].string for symbol in model.symbols(shown=True))
            best[:] = [tuple(sorted(chosen))]
            return True

        self.session.search(on_model)
        if not best:
            raise AssertionError("the justified rules on the answer's side sustain it")
        return Support(best[0], self.facts_of(best[0]))

    def sustains(self, rules: tuple[str, ...]) -> bool:
        """Whether these rules, kept alone beside the conflicting ones, sustain the answer
        (whatever their number)."""
        if not set(rules) <= self.candidates:
            return False
        self.session.control.configuration.solve.opt_mode = "ignore"
        chosen = [
            (clingo.Function("chosen", [clingo.String(rule)]), rule in rules)
            for rule in sorted(self.candidates)
        ]
        found: list[bool] = []
        self.session.search(lambda _model: found.append(True) or False, chosen)
        return bool(found)

    def facts_of(self, rules: tuple[str, ...]) -> tuple[Atom, ...]:
        """The facts the justified arguments of these candidate rules rest on."""
        return tuple(sorted(set().union(*(self.rests_on.get(rule, ()) for rule in rules))))
