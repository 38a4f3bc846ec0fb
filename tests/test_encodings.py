"""Properties of the encodings themselves: the stratified part is decided by grounding, and
every ordering's program grounds and reads back consistently."""

from __future__ import annotations

import pytest
from random_theories import random_theory

from argc.compiler.control import Limits, Session
from argc.compiler.encodings import program_encodings
from argc.compiler.facts import literal_term, theory_facts
from argc.dsl.ir import PRINCIPLES, READINGS, SET_COMPARISONS, Ordering

ORDERINGS = [
    Ordering(principle, comparison, reading)
    for principle in PRINCIPLES
    for comparison in SET_COMPARISONS
    for reading in READINGS
]


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_grounding_decides_everything_up_to_the_statuses(ordering: Ordering) -> None:
    """The solver is never needed for arguments, defeats, grounded labels and statuses."""
    for seed in range(40):
        theory = random_theory(seed)
        session = Session(Limits())
        session.load(program_encodings(ordering, "grounded"))
        session.ground([("base", theory_facts(theory))])
        assert session.undecided_atoms() == [], f"seed {seed}\n{theory.to_text()}"
        assert session.atoms("arg", 1) or not (theory.axioms or theory.premises)
        claims = {str(atom.arguments[0]) for atom in session.atoms("claim", 1)}
        assert claims == {literal_term(claim) for claim in theory.claims()}
        labelled = [
            str(symbol)
            for status in ("justified", "overruled", "undecided")
            for (symbol,) in (atom.arguments for atom in session.atoms(status, 1))
        ]
        # The statuses partition the claims (the reader infers the overruled ones from it).
        assert sorted(labelled) == sorted(claims), f"seed {seed}\n{theory.to_text()}"
