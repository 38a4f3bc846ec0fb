"""The compiler: IR → ASP facts, encodings, clingo, typed solutions, and the `argc` CLI."""

from argc.compiler.solution import Acceptance, Argument, Attack, Solution
from argc.compiler.solve import LimitExceeded, Limits, solve

__all__ = ["Acceptance", "Argument", "Attack", "LimitExceeded", "Limits", "Solution", "solve"]
