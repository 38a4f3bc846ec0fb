"""One clingo Control under time, argument and extension limits."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import clingo
from clingo import ast

from argc.compiler.encodings import encoding_text
from argc.dsl.errors import ArgcError


class LimitExceeded(ArgcError):
    """Solving stopped at its time, argument or extension limit."""


class ProgramError(ArgcError):
    """An ASP program given by a user (a query) does not parse or ground."""


@dataclass(frozen=True)
class Limits:
    """Bounds on one solve. Exceeding any raises LimitExceeded with the reason."""

    seconds: float = 30.0
    arguments: int = 20_000
    #: Sub-arguments counted over all arguments (with repetition): bounds the relations that
    #: grow with the depth of arguments, which the grounder cannot interrupt cheaply.
    sub_arguments: int = 3_000_000
    extensions: int = 10_000


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(self.end - time.monotonic(), 0.0)

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise LimitExceeded(f"time limit of {self.seconds:g} s exceeded")


class Budget:
    """The grounding callbacks the encodings call: they number arguments and enforce the
    argument limit and the deadline while the grounder runs."""

    def __init__(self, limits: Limits, clock: _Deadline) -> None:
        self.limits = limits
        self.clock = clock
        self.numbers: dict[clingo.Symbol, clingo.Symbol] = {}
        self.structures: list[clingo.Symbol] = []
        self.sizes: list[int] = []  # sub-arguments of argument i + 1, with repetition
        self.sub_arguments = 0
        self.exceeded: LimitExceeded | None = None

    def _fail(self, reason: str) -> None:
        self.exceeded = LimitExceeded(reason)
        raise self.exceeded

    def deadline(self, _argument: clingo.Symbol) -> clingo.Symbol:
        """`@deadline(A) = 1`: fails grounding once the time limit has passed."""
        if time.monotonic() > self.clock.end:
            self._fail(f"time limit of {self.clock.seconds:g} s exceeded")
        return _ONE

    def argument(self, structure: clingo.Symbol) -> clingo.Symbol:
        """`@argument(S)`: the number of an argument's structure (`prem(L)` or `app(R, T)`),
        1, 2, ... in order of construction, so sub-arguments are numbered before parents."""
        number = self.numbers.get(structure)
        if number is None:
            self.deadline(structure)
            if len(self.structures) >= self.limits.arguments:
                self._fail(f"the theory has more than {self.limits.arguments:,} arguments")
            self._count_sub_arguments(structure)
            self.structures.append(structure)
            number = self.numbers[structure] = clingo.Number(len(self.structures))
        return number

    def _count_sub_arguments(self, structure: clingo.Symbol) -> None:
        size = 1
        if structure.name == "app":
            subs = _NUMBERS.findall(str(structure.arguments[1]))
            size += sum(self.sizes[int(sub) - 1] for sub in subs)
        self.sizes.append(size)
        self.sub_arguments += size
        if self.sub_arguments > self.limits.sub_arguments:
            self._fail(
                f"the theory's arguments have more than {self.limits.sub_arguments:,}"
                " sub-arguments in all (too deep to ground)"
            )


_NUMBERS = re.compile(r"\d+")
_ONE = clingo.Number(1)


@cache
def _parsed(name: str) -> tuple[ast.AST, ...]:
    """The statements of `asp/<name>.lp`, parsed once per process."""
    statements: list[ast.AST] = []
    ast.parse_string(encoding_text(name), statements.append)
    return tuple(statements)


class Session:
    """A Control for one theory: grounding and enumeration, each within the limits."""

    def __init__(self, limits: Limits, *, maximal_sets: bool = False) -> None:
        self.limits = limits
        self.deadline = _Deadline(limits.seconds)
        arguments = ["--warn=none", "--models=0"]
        if maximal_sets:
            arguments += ["--heuristic=Domain", "--enum-mode=domRec"]
        self.errors: list[str] = []
        self.control = clingo.Control(arguments, logger=self._log)
        self.budget = Budget(limits, self.deadline)

    def _log(self, _code: clingo.MessageCode, message: str) -> None:
        """Keep clingo's error messages for ProgramError; its notes and warnings (e.g. on
        trivial domRec programs) are not for users."""
        if "error" in message:
            self.errors.append(message.strip())

    def load(self, encodings: Sequence[str]) -> None:
        """Add encodings (by name, pre-parsed) to the program."""
        with ast.ProgramBuilder(self.control) as builder:
            for name in encodings:
                for statement in _parsed(name):
                    builder.add(statement)

    def ground(self, parts: Sequence[tuple[str, str]]) -> None:
        """Add `(part, text)` programs and ground those parts (and `base` on the first call)."""
        names = []
        budget = self.budget
        try:
            for part, text in parts:
                self.control.add(part, [], text)
                if part not in names:
                    names.append(part)
            self.control.ground([(name, []) for name in names], context=budget)
        except RuntimeError:
            if budget.exceeded is not None:
                raise budget.exceeded from None
            if self.errors:
                raise ProgramError("\n".join(self.errors)) from None
            raise
        self.deadline.check()

    def atoms(self, name: str, arity: int) -> list[clingo.Symbol]:
        """The ground atoms of a predicate. For the stratified part of the program they are
        facts after grounding (checked by the tests), so no solving is needed."""
        return [atom.symbol for atom in self.control.symbolic_atoms.by_signature(name, arity)]

    def undecided_atoms(self) -> list[clingo.Symbol]:
        """Ground atoms that grounding did not decide (for tests of stratification)."""
        return [atom.symbol for atom in self.control.symbolic_atoms if not atom.is_fact]

    def models(
        self,
        keep: Callable[[clingo.Model], frozenset[clingo.Symbol]],
        assumptions: Sequence[tuple[clingo.Symbol, bool]] = (),
        what: str = "models",
    ) -> list[frozenset[clingo.Symbol]]:
        """Enumerate models under the configured mode, keeping `keep(model)` of each."""
        found: list[frozenset[clingo.Symbol]] = []
        limit = self.limits.extensions

        def on_model(model: clingo.Model) -> bool:
            found.append(keep(model))
            return len(found) <= limit

        literals = self._assumption_literals(assumptions)
        if literals is None:
            return []
        with self.control.solve(on_model=on_model, assumptions=literals, async_=True) as handle:
            if not handle.wait(self.deadline.remaining()):
                handle.cancel()
                raise LimitExceeded(f"time limit of {self.limits.seconds:g} s exceeded")
            handle.get()
        if len(found) > limit:
            raise LimitExceeded(f"more than {limit:,} {what}")
        return found

    def _assumption_literals(
        self, assumptions: Sequence[tuple[clingo.Symbol, bool]]
    ) -> list[int] | None:
        """Solver literals for assumptions; None when a true assumption names no ground atom.

        An atom absent from the ground program is false, so a false assumption on it holds.
        """
        literals = []
        atoms = self.control.symbolic_atoms
        for symbol, value in assumptions:
            atom = atoms[symbol]
            if atom is None:
                if value:
                    return None
                continue
            literals.append(atom.literal if value else -atom.literal)
        return literals
