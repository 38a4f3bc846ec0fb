"""Many theories in one clingo program.

Grounding has a fixed cost per Control (creating it, adding the encodings, instantiating the
theory-independent rules) that dominates small theories. A batch pays it once: every atom of
the encodings gets an id as a first argument (a rewrite of the parsed encodings, so the `.lp`
files stay written for one theory), the facts of each theory carry their ids, and the
callbacks the encodings call are routed to the limits of the theory they are called for.
Nothing joins atoms of different theories, so each theory's part of the model is the model it
would have alone.

Theories that differ only in some input facts (the preferences: the answers of a GRPO group
that order the same arguments differently) share a base. The predicates that depend on those
inputs vary and carry the theory's id; every other predicate (arguments, attacks, the sets
that comparisons look at) carries the id of the base, the first theory of the batch with the
same other facts, and is grounded once for all the theories that share it; `base_of(T, B)`
joins the two where a rule mixes them. The callbacks always receive the base, whose limits
count the shared arguments once.

A batch read for some predicates only (`solve_many` reads grounded Solutions: arguments,
attacks, defeats, labels, statuses) loads only the rules those predicates depend on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import cache

import clingo
from clingo import ast

from argc.compiler.control import (
    Budget,
    Deadline,
    Limits,
    Session,
    TimeLimitExceeded,
    parsed_encoding,
)
from argc.dsl.errors import LimitExceeded

#: A predicate: its name and arity.
Signature = tuple[str, int]

#: The variables that carry the theory id and the id of its base through the rewritten rules.
THEORY_VARIABLE, BASE_VARIABLE = "ArgcTheory", "ArgcBase"
#: The domains of the ids, for rules whose body binds no atom positively, and the relation
#: `base_of(Theory, Base)`.
THEORY_DOMAIN, BASE_DOMAIN, BASE_OF = "theory_id", "base_id", "base_of"


class _Atoms(ast.Transformer):
    """Collects the signatures of the atoms of a statement."""

    def __init__(self) -> None:
        self.found: set[Signature] = set()

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        symbol = node.symbol
        if symbol.ast_type == ast.ASTType.Function:
            self.found.add((symbol.name, len(symbol.arguments)))
        return node


def _signatures(nodes: Iterable[ast.AST]) -> set[Signature]:
    collector = _Atoms()
    for node in nodes:
        collector(node)
    return collector.found


@cache
def _rule_atoms(name: str) -> tuple[tuple[frozenset[Signature], frozenset[Signature]], ...]:
    """For each rule of `asp/<name>.lp`: the predicates of its head, and of all its atoms."""
    found = []
    for statement in parsed_encoding(name):
        if statement.ast_type == ast.ASTType.Rule:
            heads = frozenset(_signatures([statement.head]))
            found.append((heads, heads | _signatures(statement.body)))
    return tuple(found)


@cache
def varying_predicates(encodings: tuple[str, ...], inputs: frozenset[str]) -> frozenset[Signature]:
    """The predicates of the encodings whose atoms depend, through any rule (positively or
    not, in bodies, conditions or aggregates), on an input predicate named in `inputs`."""
    rules = [rule for name in encodings for rule in _rule_atoms(name)]
    varying = {sig for _, atoms in rules for sig in atoms if sig[0] in inputs}
    grown = True
    while grown:
        grown = False
        for heads, atoms in rules:
            if not heads <= varying and not atoms.isdisjoint(varying):
                varying |= heads
                grown = True
    return frozenset(varying)


@cache
def needed_predicates(
    encodings: tuple[str, ...], reads: frozenset[Signature]
) -> frozenset[Signature]:
    """The predicates in `reads` and those their atoms depend on through any rule of the
    encodings (positively or not, in bodies, conditions or aggregates)."""
    rules = [rule for name in encodings for rule in _rule_atoms(name)]
    needed = set(reads)
    grown = True
    while grown:
        grown = False
        for heads, atoms in rules:
            if not heads.isdisjoint(needed) and not atoms <= needed:
                needed |= atoms
                grown = True
    return frozenset(needed)


def _defines_any(statement: ast.AST, needed: frozenset[Signature]) -> bool:
    """Whether a statement is to be kept for the predicates `needed`: a rule that defines one
    of them, an integrity constraint, or a statement other than a rule."""
    if statement.ast_type != ast.ASTType.Rule:
        return True
    heads = _signatures([statement.head])
    return not heads or not heads.isdisjoint(needed)


class _Tagger(ast.Transformer):
    """Adds the theory variable (varying predicates) or the base variable (every other
    predicate, and every external function call) as the first argument, and binds them
    where the body would leave them unbound."""

    def __init__(self, varying: frozenset[Signature]) -> None:
        self.varying = varying
        self.used: set[str] = set()

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        function = node.symbol
        if function.ast_type != ast.ASTType.Function:
            raise ValueError(f"cannot tag the atom {node}")
        arguments = [self(argument) for argument in function.arguments]
        signature = (function.name, len(function.arguments))
        variable = THEORY_VARIABLE if signature in self.varying else BASE_VARIABLE
        tag = self._id(function.location, variable)
        return node.update(symbol=function.update(arguments=[tag, *arguments]))

    def visit_Function(self, node: ast.AST) -> ast.AST:
        node = node.update(**self.visit_children(node))
        if node.external:
            return node.update(arguments=[self._id(node.location, BASE_VARIABLE), *node.arguments])
        return node

    def visit_ShowSignature(self, node: ast.AST) -> ast.AST:
        return node.update(arity=node.arity + 1)

    def visit_Rule(self, node: ast.AST) -> ast.AST:
        return self._bound(node)

    def visit_Heuristic(self, node: ast.AST) -> ast.AST:
        return self._bound(node)

    def visit_Minimize(self, node: ast.AST) -> ast.AST:
        return self._bound(node)

    def _id(self, location: ast.Location, name: str) -> ast.AST:
        self.used.add(name)
        return ast.Variable(location, name)

    def _bound(self, statement: ast.AST) -> ast.AST:
        """The statement tagged, with `base_of(ArgcTheory, ArgcBase)` added where it uses
        both ids, or else the domain of the id it uses unless a positive body atom binds it."""
        self.used = set()
        statement = statement.update(**self.visit_children(statement))
        location = statement.location
        if self.used == {THEORY_VARIABLE, BASE_VARIABLE}:
            bound = _atom(location, BASE_OF, THEORY_VARIABLE, BASE_VARIABLE)
        elif self.used:
            (variable,) = self.used
            if _binds(statement.body, variable):
                return statement
            domain = THEORY_DOMAIN if variable == THEORY_VARIABLE else BASE_DOMAIN
            bound = _atom(location, domain, variable)
        else:
            return statement
        return statement.update(body=[*statement.body, bound])


def _atom(location: ast.Location, name: str, *variables: str) -> ast.AST:
    arguments = [ast.Variable(location, variable) for variable in variables]
    return ast.Literal(
        location, ast.Sign.NoSign, ast.SymbolicAtom(ast.Function(location, name, arguments, 0))
    )


def _binds(body: Sequence[ast.AST], variable: str) -> bool:
    """Whether a positive atom of the body (not inside a condition) carries the variable."""
    return any(
        literal.ast_type == ast.ASTType.Literal
        and literal.sign == ast.Sign.NoSign
        and literal.atom.ast_type == ast.ASTType.SymbolicAtom
        and str(literal.atom.symbol.arguments[0]) == variable
        for literal in body
    )


def tagged_encoding(
    name: str,
    varying: frozenset[Signature] = frozenset(),
    needed: frozenset[Signature] | None = None,
) -> tuple[ast.AST, ...]:
    """The statements of `asp/<name>.lp` with every atom tagged by its theory (the predicates
    in `varying`) or by its theory's base (the others), without the rules that define none
    of the predicates `needed` (None: every rule); rewritten once per process for each set
    of its own predicates that vary and are needed (the files every ordering loads, once)."""
    own = _encoding_signatures(name)
    return _tagged(name, varying & own, None if needed is None else needed & own)


@cache
def _encoding_signatures(name: str) -> frozenset[Signature]:
    return frozenset(_signatures(parsed_encoding(name)))


@cache
def _tagged(
    name: str, varying: frozenset[Signature], needed: frozenset[Signature] | None
) -> tuple[ast.AST, ...]:
    tagger = _Tagger(varying)
    return tuple(
        tagger(statement)
        for statement in parsed_encoding(name)
        if needed is None or _defines_any(statement, needed)
    )


def prepare(
    encodings: Sequence[str], varying: Collection[str] = (), reads: Collection[Signature] = ()
) -> None:
    """Rewrite the encodings for batches now, as `BatchSession.load` would (cached for the
    process), so that the first batch does not pay for it."""
    signatures = varying_predicates(tuple(encodings), frozenset(varying))
    needed = needed_predicates(tuple(encodings), frozenset(reads)) if reads else None
    for name in encodings:
        tagged_encoding(name, signatures, needed)


def _tagged_lines(lines: Iterable[str], key: int) -> Iterator[str]:
    for line in lines:
        name, bracket, rest = line.partition("(")
        yield f"{name}({key},{rest}\n" if bracket else f"{line[:-1]}({key}).\n"


def tagged_facts(facts: str, theory: int) -> str:
    """Facts (one `name(arguments).` per line, as `theory_facts` writes them) for theory
    number `theory`, its own base, preceded by its ids."""
    ids = f"{THEORY_DOMAIN}({theory}).\n{BASE_DOMAIN}({theory}).\n{BASE_OF}({theory},{theory}).\n"
    return ids + "".join(_tagged_lines(facts.splitlines(), theory))


def split_facts(facts: str, varying: Collection[str]) -> tuple[list[str], list[str]]:
    """A theory's fact lines (as `theory_facts` writes them) in two: those it may share with
    a base, and those of the predicates named in `varying`, its own."""
    common: list[str] = []
    own: list[str] = []
    for line in facts.splitlines():
        (own if line.partition("(")[0].rstrip(".") in varying else common).append(line)
    return common, own


def shared_facts(facts: Sequence[str], varying: Collection[str]) -> tuple[str, list[int]]:
    """The tagged facts of a batch's theories and each theory's base: theories whose facts
    agree except in the predicates named in `varying` share the base of the first of them,
    whose other facts are written once."""
    text: list[str] = []
    bases: list[int] = []
    first: dict[tuple[str, ...], int] = {}
    for theory, lines in enumerate(facts):
        common, own = split_facts(lines, varying)
        base = first.setdefault(tuple(common), theory)
        bases.append(base)
        text.append(f"{THEORY_DOMAIN}({theory}).\n{BASE_OF}({theory},{base}).\n")
        if base == theory:
            text.append(f"{BASE_DOMAIN}({theory}).\n")
            text.extend(_tagged_lines(common, theory))
        text.extend(_tagged_lines(own, theory))
    return "".join(text), bases


class TheoryBudgets:
    """The grounding context of a batch: each callback the encodings call receives the id of
    a base first and goes to that theory's own Budget, so every base has its own argument,
    instantiation and attack limits. `culprit` is the base whose own limit was hit (None
    when the batch as a whole ran out of time)."""

    def __init__(self, limits: Limits, clock: Deadline, count: int) -> None:
        self.budgets = [Budget(limits, clock) for _ in range(count)]
        #: The budgets by the id the callbacks receive, looked up without reading the number.
        self.by_id = {clingo.Number(k): budget for k, budget in enumerate(self.budgets)}
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
            budget = self.by_id[theory]
            try:
                return method(budget, *arguments)
            except LimitExceeded as exceeded:
                if isinstance(exceeded, TimeLimitExceeded):
                    self.out_of_time = exceeded
                else:
                    self.culprit = theory.number
                raise

        setattr(self, name, routed)
        return routed


class BatchSession(Session):
    """A Session grounding several theories at once; `view(k)` reads theory k's part.

    `load(encodings, varying, reads)` names the input predicates in which theories sharing a
    base may differ, and the predicates the batch is read for, where it is read for some
    only (the rules that none of them depends on are then not grounded); `facts(...)` tags
    the theories' facts and finds their bases."""

    def __init__(self, limits: Limits, count: int) -> None:
        super().__init__(limits)
        self.budget = TheoryBudgets(limits, self.deadline, count)
        self.bases = list(range(count))
        self.inputs: frozenset[str] = frozenset()
        self.varying: frozenset[Signature] = frozenset()
        #: The predicates grounded, where the batch is read for some only (None: all).
        self.needed: frozenset[Signature] | None = None
        #: The ids of the theories, as the first argument of their atoms.
        self.ids = [clingo.Number(k) for k in range(count)]
        self._rows: dict[tuple[str, int], dict[clingo.Symbol, list[Sequence[clingo.Symbol]]]] = {}

    def load(
        self,
        encodings: Sequence[str],
        varying: Collection[str] = (),
        reads: Collection[Signature] = (),
    ) -> None:
        self.inputs = frozenset(varying)
        self.varying = varying_predicates(tuple(encodings), self.inputs)
        if reads:
            self.needed = needed_predicates(tuple(encodings), frozenset(reads))
        with ast.ProgramBuilder(self.control) as builder:
            for name in encodings:
                for statement in tagged_encoding(name, self.varying, self.needed):
                    builder.add(statement)

    def facts(self, facts: Sequence[str]) -> str:
        """The facts of the batch's theories (theory k's at k), tagged; sets `bases`."""
        text, self.bases = shared_facts(facts, self.inputs)
        return text

    def rows(self, name: str, arity: int) -> dict[clingo.Symbol, list[Sequence[clingo.Symbol]]]:
        """The arguments (id removed) of every atom of a predicate, by the id of their theory
        or base (a symbol of `ids`)."""
        key = (name, arity)
        found = self._rows.get(key)
        if found is None:
            if self.needed is not None and key not in self.needed:
                raise ValueError(f"{name}/{arity} is not among the predicates the batch reads")
            found = self._rows[key] = defaultdict(list)
            for atom in self.control.symbolic_atoms.by_signature(name, arity + 1):
                owner, *arguments = atom.symbol.arguments
                found[owner].append(arguments)
        return found

    def view(self, theory: int) -> TheoryView:
        return TheoryView(self, theory)


class TheoryView:
    """One theory's part of a batch, read like a Session of its own (`rows`, `budget`): the
    varying predicates under its id, the others and the Budget under its base's."""

    def __init__(self, session: BatchSession, theory: int) -> None:
        self.session = session
        self.theory = theory
        self.base = session.bases[theory]
        self.budget = session.budget.budgets[self.base]

    def rows(self, name: str, arity: int) -> list[Sequence[clingo.Symbol]]:
        owner = self.theory if (name, arity) in self.session.varying else self.base
        return self.session.rows(name, arity).get(self.session.ids[owner], [])
