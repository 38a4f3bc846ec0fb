"""Which `.lp` encodings make up the program for an ordering and a semantics."""

from __future__ import annotations

import os
from functools import cache

from argc.dsl.ir import Ordering

#: Argument construction, attacks, grounded labelling and claim statuses.
_STRUCTURE = ("language", "arguments", "attacks", "preferences", "sets")
_OUTCOME = ("defeat", "grounded", "statuses")

#: The guess-and-check programs for each semantics, on top of the structure. Ideal and eager
#: add the program parts `ideal` and `admissible_core` once their candidates are known.
SEMANTICS_ENCODINGS: dict[str, tuple[str, ...]] = {
    "grounded": (),
    "conflict-free": ("conflict_free",),
    "naive": ("conflict_free", "maximise_in"),
    "admissible": ("conflict_free", "range", "admissible"),
    "complete": ("conflict_free", "range", "admissible", "complete"),
    "preferred": ("conflict_free", "range", "admissible", "complete", "maximise_in"),
    "stable": ("conflict_free", "range", "stable"),
    "semi-stable": ("conflict_free", "range", "admissible", "complete", "maximise_range"),
    "stage": ("conflict_free", "range", "maximise_range"),
    "ideal": ("conflict_free", "range", "admissible"),
    "eager": ("conflict_free", "range", "admissible", "complete", "maximise_range"),
}


def ordering_encodings(ordering: Ordering) -> tuple[str, ...]:
    """The principle file and the set-ordering files for an ordering."""
    principle = ordering.principle.replace("-", "_")
    if ordering.reading == "mp2013":
        return (principle, "mp2013", f"{ordering.set_comparison}_mp2013")
    return (principle, ordering.set_comparison)


def program_encodings(ordering: Ordering, semantics: str) -> tuple[str, ...]:
    """All encodings, in loading order, for solving under an ordering and a semantics."""
    return _STRUCTURE + ordering_encodings(ordering) + _OUTCOME + SEMANTICS_ENCODINGS[semantics]


@cache
def encoding_text(name: str) -> str:
    """The text of `asp/<name>.lp`: read from the package's folder, where the package is one
    (`importlib.resources`, which takes a few milliseconds to import, reads it otherwise)."""
    import argc.asp

    folder = os.path.dirname(argc.asp.__file__ or "")
    try:
        with open(os.path.join(folder, f"{name}.lp"), encoding="utf-8") as handle:
            return handle.read()
    except OSError:  # not a folder (a zip archive): the package's resource reader
        from importlib.resources import files

        return files("argc.asp").joinpath(f"{name}.lp").read_text(encoding="utf-8")
