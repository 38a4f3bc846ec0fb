"""Driving clingo: ground a theory with the chosen encodings, read the solved model."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import clingo

from argc.compiler.encodings import SEMANTICS_ENCODINGS, encoding_text, program_encodings
from argc.compiler.facts import theory_facts
from argc.compiler.solution import Argument, Attack, Solution
from argc.dsl.errors import ArgcError
from argc.dsl.ir import Literal, Ordering, Theory

#: Semantics whose extensions are subset-maximal: enumerated with domain heuristics.
_DOMAIN_HEURISTIC = {"preferred", "naive", "semi-stable", "stage", "eager"}


class LimitExceeded(ArgcError):
    """Solving stopped at its time, argument, attack or extension limit."""


@dataclass(frozen=True)
class Limits:
    """Bounds on one solve. Exceeding any raises LimitExceeded with the reason."""

    seconds: float = 30.0
    arguments: int = 20_000
    attacks: int = 2_000_000
    extensions: int = 10_000


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def check(self) -> None:
        if time.monotonic() > self.end:
            raise LimitExceeded(f"time limit of {self.seconds:g} s exceeded")


class _Budget:
    """Grounding callbacks (`@argument_budget`, `@attack_budget`) that enforce the limits."""

    def __init__(self, limits: Limits, deadline: _Deadline) -> None:
        self.limits = limits
        self.deadline = deadline
        self.arguments = 0
        self.attacks = 0
        self.exceeded: LimitExceeded | None = None

    def _fail(self, error: LimitExceeded) -> None:
        self.exceeded = error
        raise error

    def _admit(self) -> clingo.Symbol:
        try:
            self.deadline.check()
        except LimitExceeded as error:
            self._fail(error)
        return clingo.Number(1)

    def argument_budget(self, _rule: clingo.Symbol) -> clingo.Symbol:
        self.arguments += 1
        if self.arguments > self.limits.arguments:
            self._fail(
                LimitExceeded(f"the theory has more than {self.limits.arguments:,} arguments")
            )
        return self._admit()

    def attack_budget(self, _kind: clingo.Symbol) -> clingo.Symbol:
        self.attacks += 1
        if self.attacks > self.limits.attacks:
            self._fail(LimitExceeded(f"the theory has more than {self.limits.attacks:,} attacks"))
        return self._admit()


def _literal(symbol: clingo.Symbol) -> Literal:
    return Literal(symbol.arguments[0].string, negated=symbol.name == "neg")


def _list_items(symbol: clingo.Symbol) -> list[clingo.Symbol]:
    items = []
    while symbol.name == "c":
        items.append(symbol.arguments[0])
        symbol = symbol.arguments[1]
    return items


def _argument_names(symbols: Iterable[clingo.Symbol]) -> dict[clingo.Symbol, str]:
    """Canonical names of argument terms, computed bottom-up without recursion."""
    names: dict[clingo.Symbol, str] = {}
    for root in symbols:
        stack = [root]
        while stack:
            symbol = stack[-1]
            if symbol in names:
                stack.pop()
                continue
            if symbol.name == "prem":
                names[symbol] = str(_literal(symbol.arguments[0]))
                stack.pop()
                continue
            rule, items = symbol.arguments
            subs = _list_items(items)
            missing = [sub for sub in subs if sub not in names]
            if missing:
                stack.extend(missing)
                continue
            inner = ",".join(sorted(names[sub] for sub in subs))
            names[symbol] = f"{rule.string}({inner})"
            stack.pop()
    return names


def _silent(_code: clingo.MessageCode, _message: str) -> None:
    """clingo's messages (e.g. domRec notes on trivial programs) are not for users."""


class _Session:
    """One clingo Control for one theory, ordering and semantics."""

    def __init__(
        self, theory: Theory, ordering: Ordering, semantics: str, limits: Limits
    ) -> None:
        self.theory = theory
        self.ordering = ordering
        self.semantics = semantics
        self.limits = limits
        self.deadline = _Deadline(limits.seconds)
        arguments = ["--warn=none", "--models=0"]
        if semantics in _DOMAIN_HEURISTIC:
            arguments += ["--heuristic=Domain", "--enum-mode=domRec"]
        self.control = clingo.Control(arguments, logger=_silent)
        self.timings: dict[str, float] = {}

    # grounding ---------------------------------------------------------------------------

    def ground(self, parts: Sequence[tuple[str, str]]) -> None:
        """Add `(part, text)` programs to part `part`s and ground them, within the limits."""
        names = []
        for part, text in parts:
            self.control.add(part, [], text)
            if part not in names:
                names.append(part)
        budget = _Budget(self.limits, self.deadline)
        try:
            self.control.ground([(name, []) for name in names], context=budget)
        except RuntimeError:
            if budget.exceeded is not None:
                raise budget.exceeded from None
            raise
        self.deadline.check()

    def facts(self, name: str, arity: int) -> list[clingo.Symbol]:
        """Ground atoms of a stratified predicate: after grounding they are all facts."""
        found = []
        for atom in self.control.symbolic_atoms.by_signature(name, arity):
            if not atom.is_fact:
                raise AssertionError(f"{atom.symbol} is not decided by grounding")
            found.append(atom.symbol)
        return found

    # solving -----------------------------------------------------------------------------

    def models(
        self,
        assumptions: Sequence[tuple[clingo.Symbol, bool]] = (),
        *,
        keep: Callable[[clingo.Model], frozenset[clingo.Symbol]],
    ) -> list[frozenset[clingo.Symbol]]:
        """Enumerate models (under the configured enumeration mode) within the limits."""
        found: list[frozenset[clingo.Symbol]] = []
        limit = self.limits.extensions

        def on_model(model: clingo.Model) -> bool:
            found.append(keep(model))
            return len(found) <= limit

        literals = self._assumption_literals(assumptions)
        if literals is None:
            return []
        with self.control.solve(on_model=on_model, assumptions=literals, async_=True) as handle:
            if not handle.wait(max(self.deadline.remaining(), 0.0)):
                handle.cancel()
                raise LimitExceeded(f"time limit of {self.limits.seconds:g} s exceeded")
            handle.get()
        if len(found) > limit:
            raise LimitExceeded(f"more than {limit:,} {self.semantics} extensions")
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


def _in_set(model: clingo.Model) -> frozenset[clingo.Symbol]:
    return frozenset(
        symbol.arguments[0] for symbol in model.symbols(shown=True) if symbol.name == "in"
    )


def _range_set(model: clingo.Model) -> frozenset[clingo.Symbol]:
    return frozenset(
        symbol.arguments[0] for symbol in model.symbols(shown=True) if symbol.name == "in_range"
    )


def _range_maximal(session: _Session, arguments: list[clingo.Symbol]) -> list[frozenset]:
    """Semi-stable / stage: one model per maximal range (domRec), then every set with it."""
    ranges = session.models(keep=_range_set)
    session.control.configuration.solve.enum_mode = "auto"
    extensions: list[frozenset] = []
    for found in ranges:
        assumptions = [
            (clingo.Function("in_range", [argument]), argument in found) for argument in arguments
        ]
        extensions += session.models(assumptions, keep=_in_set)
    return extensions


def _admissible_core(session: _Session, parts: Sequence[tuple[str, str]]) -> frozenset:
    session.ground([*parts, ("admissible_core", encoding_text("admissible_core"))])
    return frozenset(symbol.arguments[0] for symbol in session.facts("core_in", 1))


def _extensions(session: _Session, arguments: list[clingo.Symbol]) -> list[frozenset]:
    semantics = session.semantics
    if semantics == "grounded":
        return [frozenset(symbol.arguments[0] for symbol in session.facts("grounded_in", 1))]
    if semantics in ("semi-stable", "stage"):
        return _range_maximal(session, arguments)
    if semantics == "ideal":
        session.control.configuration.solve.enum_mode = "brave"
        credulous = session.models(keep=_in_set)[-1]
        facts = "".join(f"cred({argument}).\n" for argument in credulous)
        return [_admissible_core(session, [("ideal", facts), ("ideal", encoding_text("ideal"))])]
    if semantics == "eager":
        semi_stable = _range_maximal(session, arguments)
        common = frozenset.intersection(*semi_stable) if semi_stable else frozenset()
        facts = "".join(f"within({argument}).\n" for argument in common)
        return [_admissible_core(session, [("eager", facts)])]
    return session.models(keep=_in_set)


def _read_arguments(session: _Session) -> tuple[list[clingo.Symbol], dict[clingo.Symbol, str]]:
    symbols = [symbol.arguments[0] for symbol in session.facts("arg", 1)]
    return symbols, _argument_names(symbols)


def solve(
    theory: Theory,
    *,
    ordering: Ordering | None = None,
    semantics: str | None = None,
    limits: Limits | None = None,
) -> Solution:
    """Solve a theory under an ordering and a semantics.

    Defaults come from the theory's header directives, then last-link elitist and grounded.
    Raises LimitExceeded when the time, argument, attack or extension limit is hit.
    """
    ordering = ordering or theory.ordering or Ordering()
    semantics = semantics or theory.semantics or "grounded"
    if semantics not in SEMANTICS_ENCODINGS:
        raise ValueError(f"unknown semantics {semantics!r}")
    session = _Session(theory, ordering, semantics, limits or Limits())
    started = time.perf_counter()
    program = [("base", theory_facts(theory))]
    program += [("base", encoding_text(name)) for name in program_encodings(ordering, semantics)]
    if semantics != "grounded":
        program.append(("base", "#show in/1. #show in_range/1."))
    session.ground(program)
    grounded_at = time.perf_counter()

    symbols, names = _read_arguments(session)
    arguments = _build_arguments(session, symbols, names)
    succeeded = {(a, b) for a, b in (s.arguments for s in session.facts("defeats_on", 2))}
    attacks = sorted(
        (
            Attack(names[a], names[c], names[b], kind.name, (a, b) in succeeded)
            for a, c, b, kind in (s.arguments for s in session.facts("attack", 4))
        ),
        key=lambda attack: (attack.attacker, attack.attacked, attack.on, attack.kind),
    )
    defeats = sorted(
        (names[a], names[b]) for a, b in (s.arguments for s in session.facts("defeat", 2))
    )
    grounded = frozenset(names[s.arguments[0]] for s in session.facts("grounded_in", 1))
    statuses = {}
    for status in ("justified", "overruled", "undecided"):
        for symbol in session.facts(status, 1):
            statuses[_literal(symbol.arguments[0])] = status
    consistent = not session.facts("inconsistent", 0)

    extensions = _extensions(session, symbols)
    named = sorted({frozenset(names[a] for a in found) for found in extensions}, key=sorted)
    finished = time.perf_counter()
    return Solution(
        theory=theory,
        ordering=ordering,
        semantics=semantics,
        arguments=dict(sorted(arguments.items())),
        attacks=tuple(attacks),
        defeats=tuple(defeats),
        grounded=grounded,
        statuses=dict(sorted(statuses.items(), key=lambda item: str(item[0]))),
        extensions=tuple(named),
        consistent=consistent,
        timings={"ground": grounded_at - started, "total": finished - started},
    )


def _build_arguments(
    session: _Session, symbols: list[clingo.Symbol], names: dict[clingo.Symbol, str]
) -> dict[str, Argument]:
    direct: dict[clingo.Symbol, list[str]] = {}
    for symbol in session.facts("direct", 2):
        parent, child = symbol.arguments
        direct.setdefault(parent, []).append(names[child])
    conclusions = {s.arguments[0]: _literal(s.arguments[1]) for s in session.facts("conc", 2)}
    arguments = {}
    for symbol in symbols:
        top = symbol.arguments[0].string if symbol.name == "app" else None
        arguments[names[symbol]] = Argument(
            names[symbol], conclusions[symbol], top, tuple(sorted(direct.get(symbol, ())))
        )
    return arguments

