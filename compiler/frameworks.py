"""Abstract argumentation frameworks (read from ICCMA files) solved with the semantics
encodings: the same programs over `arg/1` and `defeat/2` that an ASPIC+ theory's defeat
graph feeds, with arguments numbered 1..N in the framework's order."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import clingo

from argc.compiler.control import LimitExceeded, Limits, Session
from argc.compiler.encodings import SEMANTICS_ENCODINGS
from argc.compiler.reasoning import MAXIMAL_SETS, Question, reason
from argc.compiler.solution import Accepting
from argc.dsl.iccma import Framework


@dataclass(frozen=True, eq=False)
class FrameworkSolution(Accepting):
    """A framework solved under a semantics: its first extensions (all of them unless
    `more_extensions`), and credulous / skeptical acceptance of its arguments over all."""

    framework: Framework
    semantics: str
    extensions: tuple[frozenset[str], ...]
    more_extensions: bool
    credulous: frozenset[str]
    skeptical: frozenset[str]

    def ordered(self, names: Iterable[str]) -> list[str]:
        """Arguments in the order the framework's file declares them (a2 before a11)."""
        position = self.framework.position
        return sorted(names, key=position.__getitem__)


def framework_session(framework: Framework, semantics: str, limits: Limits) -> Session:
    """A grounded Session for `semantics` over the framework, arguments numbered 1..N."""
    if semantics not in SEMANTICS_ENCODINGS:
        raise ValueError(f"unknown semantics {semantics!r}")
    if len(framework.arguments) > limits.arguments:
        raise LimitExceeded(
            f"the framework has more than {limits.arguments:,} arguments", "arguments"
        )
    number = {name: index for index, name in enumerate(framework.arguments, 1)}
    facts = [f"arg(1..{len(number)}).", "#show in/1.", "#show in_range/1."]
    facts += [f"defeat({number[a]},{number[b]})." for a, b in framework.attacks]
    # grounded.lp reads defeats on sub-arguments: here every argument is its own only one.
    facts += [
        "inside(A, A) :- arg(A).",
        "defeats_on(A, B) :- defeat(A, B).",
        "struck(B) :- defeat(_, B).",
    ]
    session = Session(limits, maximal_sets=semantics in MAXIMAL_SETS)
    session.load(("grounded", *SEMANTICS_ENCODINGS[semantics]))
    session.ground([("base", "\n".join(facts))])
    return session


def argument_question(framework: Framework) -> tuple[list[clingo.Symbol], Question]:
    """The argument numbers, and acceptance asked of each argument."""
    numbers = [clingo.Number(index) for index in range(1, len(framework.arguments) + 1)]
    return numbers, Question("in", {number: (number,) for number in numbers})


def solve_framework(
    framework: Framework, semantics: str = "grounded", limits: Limits | None = None
) -> FrameworkSolution:
    """Extensions (the first `limits.extensions`) and exact acceptance under `semantics`.
    Raises LimitExceeded past the time or argument limit."""
    limits = limits or Limits()
    session = framework_session(framework, semantics, limits)
    numbers, question = argument_question(framework)
    outcome = reason(session, semantics, numbers, question, limits.extensions)

    def named(symbols: frozenset[clingo.Symbol]) -> frozenset[str]:
        return frozenset(framework.arguments[symbol.number - 1] for symbol in symbols)

    return FrameworkSolution(
        framework=framework,
        semantics=semantics,
        extensions=tuple(
            sorted(
                (named(found) for found in outcome.extensions),
                key=lambda found: sorted(map(framework.position.__getitem__, found)),
            )
        ),
        more_extensions=outcome.more,
        credulous=named(outcome.verdicts.credulous),
        skeptical=named(outcome.verdicts.skeptical),
    )
