"""The genealogy constraints of asp/kg/genealogy.lp read from a world's ground atoms: the
violations of a world whose kinship facts describe no possible family (docs/kg.md,
"Kinship"; `argc.dsl.kg.genealogy` checks the same in Python)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Each violation predicate (name, arity) and what one of its atoms says.
VIOLATIONS = {
    ("two_parents", 2): "{1} has two {0}s",
    ("own_ancestor", 1): "{0} is their own ancestor",
    ("married_kin", 2): "the spouses {0} and {1} are blood relatives",
    ("lineal_sibling", 2): "the siblings {0} and {1} descend one from the other",
    ("wrong_gender", 2): "{1} is a {0} of the other gender",
}


def family_violations(rows: Callable[[str, int], list[tuple[Any, ...]]]) -> list[str]:
    """What each violation atom says, sorted within each predicate (`rows(name, arity)`:
    the arguments of a predicate's atoms)."""
    return [
        text.format(*arguments)
        for (name, arity), text in VIOLATIONS.items()
        for arguments in sorted(rows(name, arity))
    ]
