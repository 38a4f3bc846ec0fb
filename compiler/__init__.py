"""The compiler: IR → ASP facts, encodings, clingo, typed solutions, and the `argc` CLI."""

from argc.compiler.control import (
    LimitExceeded,
    Limits,
    MachineLimitExceeded,
    MemoryLimitExceeded,
    TimeLimitExceeded,
)
from argc.compiler.solution import Acceptance, Argument, Attack, Solution
from argc.compiler.solve import QueryResult, query, solve, solve_many

__all__ = [
    "Acceptance",
    "Argument",
    "Attack",
    "LimitExceeded",
    "Limits",
    "MachineLimitExceeded",
    "MemoryLimitExceeded",
    "QueryResult",
    "Solution",
    "TimeLimitExceeded",
    "query",
    "solve",
    "solve_many",
]
