"""Many theories in one clingo program.

Grounding has a fixed cost per Control (creating it, adding the encodings, instantiating the
theory-independent rules) that dominates small theories. A batch pays it once: every atom of
the encodings gets the id of its theory as a first argument (a rewrite of the parsed
encodings, so the `.lp` files stay written for one theory), the facts of theory k carry k,
and the callbacks the encodings call are routed to the limits of the theory they are called
for. Nothing joins atoms of different theories, so each theory's part of the model is the
model it would have alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cache

import clingo
from clingo import ast

from argc.compiler.control import Budget, Deadline, Limits, Session, parsed_encoding
from argc.dsl.errors import LimitExceeded

#: The variable that carries the theory id through every rule of the rewritten encodings.
THEORY_VARIABLE = "ArgcTheory"
#: The domain of theory ids, for rules whose body binds no atom positively.
THEORY_DOMAIN = "theory_id"


class _Tagger(ast.Transformer):
    """Adds the theory variable as the first argument of every atom and every external
    function call, and grounds it in `theory_id/1` where the body would leave it unbound."""

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        function = node.symbol
        if function.ast_type != ast.ASTType.Function:
            raise ValueError(f"cannot tag the atom {node}")
        arguments = [self(argument) for argument in function.arguments]
        tagged = function.update(arguments=[_theory(function.location), *arguments])
        return node.update(symbol=tagged)

    def visit_Function(self, node: ast.AST) -> ast.AST:
        node = node.update(**self.visit_children(node))
        if node.external:
            return node.update(arguments=[_theory(node.location), *node.arguments])
        return node

    def visit_ShowSignature(self, node: ast.AST) -> ast.AST:
        return node.update(arity=node.arity + 1)

    def visit_Rule(self, node: ast.AST) -> ast.AST:
        return _bound(node.update(**self.visit_children(node)))

    def visit_Heuristic(self, node: ast.AST) -> ast.AST:
        return _bound(node.update(**self.visit_children(node)))

    def visit_Minimize(self, node: ast.AST) -> ast.AST:
        return _bound(node.update(**self.visit_children(node)))


def _theory(location: ast.Location) -> ast.AST:
    return ast.Variable(location, THEORY_VARIABLE)


def _bound(statement: ast.AST) -> ast.AST:
    """The statement, with `theory_id(ArgcTheory)` added unless a positive body atom binds
    the theory variable already."""
    for literal in statement.body:
        if (
            literal.ast_type == ast.ASTType.Literal
            and literal.sign == ast.Sign.NoSign
            and literal.atom.ast_type == ast.ASTType.SymbolicAtom
        ):
            return statement
    location = statement.location
    domain = ast.SymbolicAtom(ast.Function(location, THEORY_DOMAIN, [_theory(location)], 0))
    return statement.update(body=[*statement.body, ast.Literal(location, ast.Sign.NoSign, domain)])


@cache
def tagged_encoding(name: str) -> tuple[ast.AST, ...]:
    """The statements of `asp/<name>.lp` with every atom tagged by its theory."""
    tagger = _Tagger()
    return tuple(tagger(statement) for statement in parsed_encoding(name))


def tagged_facts(facts: str, theory: int) -> str:
    """Facts (one `name(arguments).` per line, as `theory_facts` writes them) for theory
    number `theory`, preceded by its `theory_id/1` fact."""
    lines = [f"{THEORY_DOMAIN}({theory})."]
    for line in facts.splitlines():
        name, bracket, rest = line.partition("(")
        lines.append(f"{name}({theory},{rest}" if bracket else f"{line[:-1]}({theory}).")
    return "\n".join(lines) + "\n"


class TheoryBudgets:
    """The grounding context of a batch: each callback the encodings call receives the
    theory id first and goes to that theory's own Budget, so every theory has its own
    argument, instantiation and attack limits. `culprit` is the theory whose own limit was
    hit (None when the batch as a whole ran out of time)."""

    def __init__(self, limits: Limits, clock: Deadline, count: int) -> None:
        self.clock = clock
        self.budgets = [Budget(limits, clock) for _ in range(count)]
        self.culprit: int | None = None
        self.out_of_time: LimitExceeded | None = None

    @property
    def exceeded(self) -> LimitExceeded | None:
        if self.culprit is None:
            return self.out_of_time
        return self.budgets[self.culprit].exceeded

    def __getattr__(self, name: str) -> Callable[..., clingo.Symbol]:
        """The callback `name`, routed (made once, then found as an attribute)."""
        method = getattr(Budget, name)

        def routed(theory: clingo.Symbol, *arguments: clingo.Symbol) -> clingo.Symbol:
            budget = self.budgets[theory.number]
            try:
                return method(budget, *arguments)
            except LimitExceeded as exceeded:
                if self.clock.remaining() > 0:
                    self.culprit = theory.number
                else:
                    self.out_of_time = exceeded
                raise

        setattr(self, name, routed)
        return routed


class BatchSession(Session):
    """A Session grounding several theories at once; `view(k)` reads theory k's part."""

    def __init__(self, limits: Limits, count: int) -> None:
        super().__init__(limits)
        self.budget = TheoryBudgets(limits, self.deadline, count)
        self._rows: dict[tuple[str, int], dict[int, list[Sequence[clingo.Symbol]]]] = {}

    def load(self, encodings: Sequence[str]) -> None:
        with ast.ProgramBuilder(self.control) as builder:
            for name in encodings:
                for statement in tagged_encoding(name):
                    builder.add(statement)

    def rows(self, name: str, arity: int) -> dict[int, list[Sequence[clingo.Symbol]]]:
        """The arguments (theory id removed) of every atom of a predicate, by theory."""
        key = (name, arity)
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = defaultdict(list)
            for atom in self.control.symbolic_atoms.by_signature(name, arity + 1):
                theory, *arguments = atom.symbol.arguments
                found[theory.number].append(arguments)
        return found

    def view(self, theory: int) -> TheoryView:
        return TheoryView(self, theory)


class TheoryView:
    """One theory's part of a batch, read like a Session of its own (`rows`, `budget`)."""

    def __init__(self, session: BatchSession, theory: int) -> None:
        self.session = session
        self.theory = theory
        self.budget = session.budget.budgets[theory]

    def rows(self, name: str, arity: int) -> list[Sequence[clingo.Symbol]]:
        return self.session.rows(name, arity).get(self.theory, [])
