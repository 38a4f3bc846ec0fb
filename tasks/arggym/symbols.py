"""Reading the atoms a task query shows back into IR values."""

from __future__ import annotations

import clingo

from argc.dsl.ir import Literal


def literal_of(symbol: clingo.Symbol) -> Literal:
    """`pos("a")` → `a`, `neg("a")` → `-a`."""
    return Literal(symbol.arguments[0].string, negated=symbol.name == "neg")
