"""Prompt pieces shared by the tasks: the theory block, the legend and the answer request."""

from __future__ import annotations

from collections.abc import Iterable

from argc.dsl.ir import Literal, Ordering, Theory

LEGEND = """\
How to read the directives:
  [premise: p]                 an ordinary premise (it can be undermined)
  [axiom: p]                   an axiom (it cannot be attacked)
  [defeasible r: a AND b => c] a defeasible rule named r
  [strict r: a -> c]           a strict rule named r
  -x                           the negation of x; for a rule name r, -r says that r does not apply
  [prefer_rule: r1 > r2]       rule r1 is stronger than rule r2
  [prefer_premise: p > q]      premise p is stronger than premise q"""


def theory_block(theory: Theory, ordering: Ordering, semantics: str = "grounded") -> str:
    """The opening of every prompt: the setting, the directives and their legend."""
    directives = theory.without_header().to_text().rstrip("\n")
    return (
        f"The following is a defeasible argumentation theory (ASPIC+), evaluated under"
        f" {semantics} semantics with the {ordering.principle} {ordering.set_comparison}"
        f" strength ordering.\n\n{directives}\n\n{LEGEND}"
    )


def claim_list(claims: Iterable[Literal]) -> str:
    return ", ".join(str(claim) for claim in claims)


def answer_request(format_lines: str) -> str:
    return (
        f"Answer format: {format_lines}\n"
        "Write your final answer inside <answer></answer>; only the last such region counts."
    )
