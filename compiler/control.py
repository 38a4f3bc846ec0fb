"""One clingo Control under time, argument and extension limits."""

from __future__ import annotations

import atexit
import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING

import clingo

from argc.compiler.encodings import encoding_text
from argc.compiler.guard import now
from argc.dsl.errors import ArgcError, LimitExceeded
from argc.dsl.records import dataclass

if TYPE_CHECKING:
    from clingo import ast

__all__ = [
    "Deadline",
    "LimitExceeded",
    "Limits",
    "MachineLimitExceeded",
    "MemoryLimitExceeded",
    "ProgramError",
    "Session",
    "TimeLimitExceeded",
    "parsed_encoding",
]


class ProgramError(ArgcError):
    """An ASP program given by a user (a query) does not parse or ground."""


class MachineLimitExceeded(LimitExceeded):
    """A limit that the machine decides, not the work: the time limit or the memory. Where it
    fires depends on the machine's speed, load and free memory, so what is produced must never
    depend on it (generation fails on it instead of rejecting a candidate). The other
    LimitExceeded are counts (arguments, instantiations, attacks, conflicts, extensions...),
    reached at the same point on every machine."""


class TimeLimitExceeded(MachineLimitExceeded):
    """The time limit passed."""


class MemoryLimitExceeded(MachineLimitExceeded):
    """An allocation failed (the process's memory cap, or the machine's memory)."""


#: The limits that count work (fields of Limits), each with a `--max-...` option.
COUNTED_LIMITS = ("arguments", "sub_arguments", "instantiations", "attacks", "extensions")


@dataclass(frozen=True)
class Limits:
    """Bounds on one solve, enforced while clingo grounds (by the callbacks the encodings
    call) and while it solves. Exceeding any raises LimitExceeded with the reason."""

    seconds: float = 30.0
    arguments: int = 20_000
    #: Sub-arguments counted over all arguments with repetition: the size of the arguments
    #: written out in full. It bounds the canonical names the compiler builds (and sub/2 where
    #: a query asks for it), which grow with the square of the depth for a chain of rules and
    #: exponentially where arguments share sub-arguments; counted as each argument is built.
    sub_arguments: int = 10_000_000
    #: Partial rule instantiations and no-repeat questions considered while building
    #: arguments: a rule whose antecedents each have many arguments multiplies them before a
    #: single complete argument is counted.
    instantiations: int = 2_000_000
    #: Attacks counted on every argument that contains the attacked one (the size of the
    #: attack relation on sub-arguments, from which defeats follow).
    attacks: int = 2_000_000
    extensions: int = 10_000
    #: Conflicts one search (one clingo solve call) may take, counted by clingo; None: a
    #: search is bounded by the time limit alone. Generation sets it, so that a hard search
    #: stops at the same point on every machine.
    conflicts: int | None = None
    #: When the time limit began (a `guard.now()` value, which is `time.monotonic()`):
    #: reading and parsing an input can count toward it; None starts the clock when solving
    #: starts.
    started: float | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.seconds, int | float) and 0 < self.seconds < float("inf")):
            raise ValueError(f"the time limit must be a positive finite number, not {self.seconds}")
        counts = list(COUNTED_LIMITS)
        if self.conflicts is not None:
            counts.append("conflicts")
        for name in counts:
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"the {name.replace('_', '-')} limit must be a positive integer")


class Deadline:
    """The end of a time limit of `seconds`, counted from `started` (a `guard.now()` value;
    None counts from now), on the clock `guard.now`."""

    def __init__(self, seconds: float, started: float | None = None) -> None:
        self.seconds = seconds
        self.end = (now() if started is None else started) + seconds

    def remaining(self) -> float:
        """Seconds left before the end, 0 once it has passed."""
        return max(self.end - now(), 0.0)

    def passed(self) -> bool:
        return now() > self.end

    def exceeded(self, detail: str = "") -> TimeLimitExceeded:
        """The error saying that this time limit passed (`detail` in parentheses)."""
        return TimeLimitExceeded(
            f"time limit of {self.seconds:g} s exceeded" + (f" ({detail})" if detail else ""),
            "time",
        )

    def check(self) -> None:
        """TimeLimitExceeded once the end has passed."""
        if self.passed():
            raise self.exceeded()


class Budget:
    """The grounding callbacks the encodings call: they number arguments, hand the grounder
    the attackers and containing arguments of attacked arguments, and count the grounder's
    work against the limits, checking the deadline as they go, so that grounding stops at a
    limit instead of running on until it finishes."""

    def __init__(self, limits: Limits, clock: Deadline) -> None:
        self.limits = limits
        self.clock = clock
        self.numbers: dict[clingo.Symbol, clingo.Symbol] = {}
        self.structures: list[clingo.Symbol] = []
        self.symbols: list[clingo.Symbol] = []  # the number of argument i + 1, as a symbol
        self.sizes: list[int] = []  # sub-arguments of argument i + 1, with repetition
        self.parents: list[list[int]] = []  # arguments with argument i + 1 as a direct sub
        self.above: dict[int, list[clingo.Symbol]] = {}  # arguments containing i (memo)
        self.concluding: dict[clingo.Symbol, list[clingo.Symbol]] = {}  # arguments per literal
        self.conclusions: list[clingo.Symbol] = []  # the conclusion of argument i + 1
        self.subs: list[list[int]] = []  # the direct sub-arguments of argument i + 1
        #: For an argument with its conclusion on a cycle: its component and the conclusions
        #: in that component of it and its sub-arguments (see `note`).
        self.cyclic: dict[int, tuple[clingo.Symbol, frozenset[clingo.Symbol]]] = {}
        self.sub_arguments = 0
        self.instantiations = 0
        self.attacks = 0
        self.exceeded: LimitExceeded | None = None

    def _fail(self, reason: str | LimitExceeded, limit: str | None = None) -> None:
        self.exceeded = LimitExceeded(reason, limit) if isinstance(reason, str) else reason
        raise self.exceeded

    def _tick(self) -> None:
        if self.clock.passed():
            self._fail(self.clock.exceeded())

    def argument(
        self,
        structure: clingo.Symbol,
        conclusion: clingo.Symbol,
        uses: clingo.Symbol,
        subs: clingo.Symbol,
    ) -> clingo.Symbol:
        """`@argument(S, C, N, T)`: the number of an argument's structure (`prem(L)` or
        `app(R, T)`), 1, 2, ... in order of construction, so sub-arguments are numbered before
        parents. The new argument concludes C, N rules can use it (each a partial
        instantiation, counted), and T lists its direct sub-arguments (`nil` for a premise)."""
        number = self.numbers.get(structure)
        if number is None:
            self._tick()
            if len(self.structures) >= self.limits.arguments:
                self._fail(
                    f"the theory has more than {self.limits.arguments:,} arguments", "arguments"
                )
            self.subs.append(self._record_subs(subs))
            self._count_instantiations(uses.number)
            self.conclusions.append(conclusion)
            self.structures.append(structure)
            number = self.numbers[structure] = clingo.Number(len(self.structures))
            self.symbols.append(number)
            self.concluding.setdefault(conclusion, []).append(number)
        return number

    def note(self, argument: clingo.Symbol, component: clingo.Symbol) -> clingo.Symbol:
        """`@note(A, K) = 1`: argument A concludes a literal in the cyclic component K; note
        the conclusions in K of A and its sub-arguments (counted). Only a sub-argument in K
        can conclude a literal of K, and those are noted before A is built."""
        number = argument.number
        if number not in self.cyclic:
            found = {self.conclusions[number - 1]}
            for sub in self.subs[number - 1]:
                noted = self.cyclic.get(sub)
                if noted is not None and noted[0] == component:
                    found |= noted[1]
            self._count_instantiations(len(found), cycles=True)
            self._tick()
            self.cyclic[number] = (component, frozenset(found))
        return _ONE

    def avoids(self, argument: clingo.Symbol, head: clingo.Symbol) -> clingo.Symbol:
        """`@avoids(A, H) = 1`: the noted argument A (its conclusion in the component of H)
        has no sub-argument concluding H, so a rule with head H may use it. Counted."""
        self._count_instantiations(1, cycles=True)
        self._tick()
        return _ZERO if head in self.cyclic[argument.number][1] else _ONE

    def step(self, _argument: clingo.Symbol, _partial: clingo.Symbol) -> clingo.Symbol:
        """`@step(X, Y) = 1`: one partial instantiation beyond a rule's first antecedent, or
        one no-repeat question passed down to a sub-argument."""
        self._count_instantiations(1)
        self._tick()
        return _ONE

    def _count_instantiations(self, amount: int, cycles: bool = False) -> None:
        self.instantiations += amount
        if self.instantiations > self.limits.instantiations:
            if cycles:
                self._fail(
                    f"building the arguments takes more than {self.limits.instantiations:,}"
                    " partial rule instantiations and no-repeat checks (long cycles of rules)",
                    "instantiations",
                )
            self._fail(
                f"building the arguments takes more than {self.limits.instantiations:,}"
                " partial rule instantiations (rules whose antecedents have many arguments)",
                "instantiations",
            )

    def attack(self, literal: clingo.Symbol, attacked: clingo.Symbol) -> list[clingo.Symbol]:
        """`A = @attack(X, B)`: the arguments for X, which attack B and so every argument
        containing B. These attacks are counted against the limit before the grounder spells
        them out."""
        attackers = self.concluding.get(literal, [])
        if attackers:
            self.attacks += len(attackers) * len(self.containers(attacked.number))
            if self.attacks > self.limits.attacks:
                self._fail(
                    f"the theory has more than {self.limits.attacks:,} attacks on sub-arguments",
                    "attacks",
                )
            if self.attacks * _SECONDS_PER_ATTACK > self.clock.remaining():
                self._fail(
                    self.clock.exceeded(
                        f"the {self.attacks:,} attacks on sub-arguments counted so far cannot"
                        " be spelled out in time"
                    )
                )
        return attackers

    def tick(self, _stage: clingo.Symbol) -> clingo.Symbol:
        """`@tick(S) = 1`: a deadline check between the stages that follow the attacks (once
        the comparisons needed are known, and once the defeats are)."""
        self._tick()
        return _ONE

    def _record_subs(self, listed: clingo.Symbol) -> list[int]:
        """Count the sub-arguments of a new argument (with repetition) against the limit and
        note it as a parent of its direct sub-arguments, which it returns (read from their
        list `c(A1, c(A2, ... nil))`, a term of numbers, in one call into clingo)."""
        self.parents.append([])
        subs = []
        if listed != _NIL:
            subs = [int(sub) for sub in _NUMBERS.findall(str(listed))]
            number = len(self.structures) + 1
            for sub in set(subs):
                self.parents[sub - 1].append(number)
        size = 1 + sum(self.sizes[sub - 1] for sub in subs)
        self.sizes.append(size)
        self.sub_arguments += size
        if self.sub_arguments > self.limits.sub_arguments:
            self._fail(
                f"the theory's arguments have more than {self.limits.sub_arguments:,}"
                " sub-arguments in all (too deep to ground)",
                "sub_arguments",
            )
        return subs

    def containers(self, number: int) -> list[clingo.Symbol]:
        """The arguments that contain argument `number` (itself included), as numbers."""
        found = self.above.get(number)
        if found is None:
            seen, stack = {number}, [number]
            while stack:
                for parent in self.parents[stack.pop() - 1]:
                    if parent not in seen:
                        seen.add(parent)
                        stack.append(parent)
            symbols = self.symbols
            found = self.above[number] = [symbols[item - 1] for item in seen]
        return found


_NUMBERS = re.compile(r"\d+")
#: A lower bound on the time per attack on a sub-argument once the attacks are counted: what
#: follows each (the comparison it needs, its defeat, the labelling over the defeats; an
#: attack/4 atom for a query) cost about 5 µs on a 2-core AMD EPYC (a rebut storm of 524,288
#: attacks: 0.44 s to the attacks, 3.0 s in all); 2 µs leaves room for a faster machine. Used
#: to stop at once a theory whose counted attacks cannot be worked out before the deadline,
#: since no callback runs while they are.
_SECONDS_PER_ATTACK = 2e-6
_ONE, _ZERO = clingo.Number(1), clingo.Number(0)
_NIL = clingo.Function("nil")

#: The encodings some Control of this process has loaded. The first Control to load one adds
#: its text, which clingo parses in C++ (about 0.9 ms for the grounded program), where
#: importing clingo.ast takes 2-4 ms and building the syntax trees about 3 ms: what a
#: one-shot `argc check` would pay. Later Controls add the trees, parsed once (0.16 ms).
_ADDED: set[str] = set()


@cache
def parsed_encoding(name: str) -> tuple[ast.AST, ...]:
    """The statements of `asp/<name>.lp` without its comments, parsed once per process
    (shared by every later Control that loads the encoding, and by batches, which rewrite
    them)."""
    from clingo import ast

    statements: list[ast.AST] = []
    ast.parse_string(encoding_text(name), statements.append)
    return tuple(s for s in statements if s.ast_type != ast.ASTType.Comment)


# Free the trees at exit while clingo.ast is still there: it is imported after this module,
# and trees freed once it is torn down print "Exception ignored in AST.__del__" (seen at the
# end of pytest runs).
atexit.register(parsed_encoding.cache_clear)


def check_program(text: str) -> None:
    """ProgramError unless `text` is a plain ASP program that is safe to ground over a solved
    model: it must parse, embed no script (`#script` runs code) and call no external function
    (`@f(...)`: the engine's callbacks are not for queries)."""
    from clingo import ast

    errors: list[str] = []
    found: list[str] = []

    def walk(node: ast.AST) -> None:
        if node.ast_type == ast.ASTType.Script:
            found.append(f"{_at(node)}: error: #script is not allowed in a query")
        elif node.ast_type == ast.ASTType.Function and node.external:
            found.append(f"{_at(node)}: error: external function @{node.name} is not allowed")
        for key in node.child_keys:
            child = getattr(node, key)
            for item in child if isinstance(child, Sequence) else [child]:
                if isinstance(item, ast.AST):
                    walk(item)

    try:
        ast.parse_string(text, walk, logger=lambda _code, message: errors.append(message.strip()))
    except RuntimeError:
        message = "\n".join(errors) or "<block>: error: the program does not parse"
        raise ProgramError(message.replace("<string>", "<block>")) from None
    if found:
        raise ProgramError("\n".join(found))


def _at(node: ast.AST) -> str:
    """Where a statement or term begins, as clingo writes it (`<block>:line:column`)."""
    begin = node.location.begin
    return f"<block>:{begin.line}:{begin.column}"


class StepCounter:
    """A grounding context for programs that count their own work: each `@step(...) = 1`
    is one unit of grounding work (`units`, e.g. "partial rule instantiations"), counted
    against `Limits.instantiations`, the deadline checked every 64 units. A Session grounding
    such a program takes it as its `budget`."""

    def __init__(self, limits: Limits, deadline: Deadline, work: str, units: str) -> None:
        self.limits = limits
        self.deadline = deadline
        self.work = work
        self.units = units
        self.count = 0
        self.exceeded: LimitExceeded | None = None

    def step(self, *_terms: clingo.Symbol) -> clingo.Symbol:
        self.count += 1
        try:
            if self.count > self.limits.instantiations:
                raise LimitExceeded(
                    f"{self.work} takes more than {self.limits.instantiations:,} {self.units}",
                    "instantiations",
                )
            if self.count % 64 == 0:
                self.deadline.check()
        except LimitExceeded as exceeded:
            self.exceeded = exceeded
            raise
        return _ONE

    @classmethod
    def on(cls, session: Session, work: str, units: str) -> StepCounter:
        """A counter made the budget of `session` (its limits and deadline)."""
        counter = cls(session.limits, session.deadline, work, units)
        session.budget = counter  # type: ignore[assignment] - the context the program calls
        return counter


class Session:
    """A Control for one theory: grounding and enumeration, each within the limits."""

    def __init__(self, limits: Limits, *, maximal_sets: bool = False) -> None:
        self.limits = limits
        self.deadline = Deadline(limits.seconds, limits.started)
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
        """Add encodings (by name) to the program, in order: as text the first time this
        process loads each (see `_ADDED`), as its parsed statements from then on."""
        for name in encodings:
            if name in _ADDED:
                from clingo import ast

                with ast.ProgramBuilder(self.control) as builder:
                    for statement in parsed_encoding(name):
                        builder.add(statement)
            else:
                self.control.add("base", [], encoding_text(name))
                _ADDED.add(name)

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
        except MemoryError:
            raise MemoryLimitExceeded("out of memory while grounding", "memory") from None
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
        """Enumerate models under the configured mode, keeping `keep(model)` of each;
        LimitExceeded past the extension limit."""
        found: list[frozenset[clingo.Symbol]] = []
        limit = self.limits.extensions

        def on_model(model: clingo.Model) -> bool:
            found.append(keep(model))
            return len(found) <= limit

        self.search(on_model, assumptions)
        if len(found) > limit:
            raise LimitExceeded(f"more than {limit:,} {what}", "extensions")
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

    def search(
        self,
        on_model: Callable[[clingo.Model], bool],
        assumptions: Sequence[tuple[clingo.Symbol, bool]] = (),
    ) -> None:
        """Solve once under the configured mode within the deadline and the conflict limit;
        `on_model` sees each model and returns False to stop. No model when a true assumption
        names no ground atom."""
        literals = self._assumption_literals(assumptions)
        if literals is None:
            return
        solving = self.control.configuration.solve
        conflicts = self.limits.conflicts
        solving.solve_limit = "umax" if conflicts is None else str(conflicts)
        wanted = int(solving.models)  # 0: every model
        models, stopped = 0, False

        def counted(model: clingo.Model) -> bool:
            nonlocal models, stopped
            models += 1
            stopped = not on_model(model)
            return not stopped

        try:
            with self.control.solve(on_model=counted, assumptions=literals, async_=True) as handle:
                # `wait` may also return early without a result (clingo's timed wait returns
                # after any wake-up), so only the clock says whether the time is up.
                while not handle.wait(self.deadline.remaining()):
                    if self.deadline.passed():
                        handle.cancel()
                        raise self.deadline.exceeded()
                result = handle.get()
        except MemoryError:
            raise MemoryLimitExceeded("out of memory while solving", "memory") from None
        finished = result.exhausted or stopped or 0 < wanted <= models
        if conflicts is not None and not finished:
            raise LimitExceeded(f"a search takes more than {conflicts:,} conflicts")
