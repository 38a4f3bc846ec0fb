"""Solving a theory: ground the chosen encodings, enumerate extensions, read a Solution."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol

import clingo

from argc.compiler.control import Budget, LimitExceeded, Limits, Session, check_program
from argc.compiler.encodings import SEMANTICS_ENCODINGS, program_encodings
from argc.compiler.facts import PREFERENCE_INPUTS, literal_term, theory_facts
from argc.compiler.reasoning import MAXIMAL_SETS, Outcome, Question, Verdicts, reason
from argc.compiler.solution import Argument, Attack, Solution
from argc.dsl.ir import Literal, Ordering, Theory
from argc.dsl.records import dataclass


def _list_items(symbol: clingo.Symbol) -> list[clingo.Symbol]:
    items = []
    while symbol.name == "c":
        head, symbol = symbol.arguments
        items.append(head)
    return items


class _SessionView:
    """A single-theory Session read as rows: the arguments of each atom of a predicate."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.budget = session.budget

    def rows(self, name: str, arity: int) -> list[Sequence[clingo.Symbol]]:
        return [symbol.arguments for symbol in self.session.atoms(name, arity)]


class _Model(Protocol):
    """One theory's ground model: its atoms' arguments by predicate, and its Budget."""

    budget: Budget

    def rows(self, name: str, arity: int) -> list[Sequence[clingo.Symbol]]: ...


class _Reader:
    """Turns ground atoms into typed values, with as few calls into clingo as possible.
    Arguments are numbers in the ground program; `names` maps them to canonical names.
    `texts` holds the text of each literal's symbol once written (readers of theories
    grounded together share it: they name the same literals)."""

    def __init__(
        self, model: _Model, theory: Theory, texts: dict[clingo.Symbol, str] | None = None
    ) -> None:
        self.model = model
        self.heads = {rule.name: rule.head for rule in theory.rules}
        self.literals = {literal_term(literal): literal for literal in theory.claims()}
        self.names: dict[clingo.Symbol, str] = {}
        self.texts = {} if texts is None else texts

    def literal(self, symbol: clingo.Symbol) -> Literal:
        return self.literals[self.text(symbol)]

    def text(self, symbol: clingo.Symbol) -> str:
        """A literal's symbol as the encodings write it (`pos("a")`), written once."""
        text = self.texts.get(symbol)
        if text is None:
            text = self.texts[symbol] = str(symbol)
        return text

    def arguments(self, numbers: list[clingo.Symbol]) -> dict[str, Argument]:
        """Arguments by canonical name. The budget numbered each structure after its
        sub-arguments, so one pass in numbering order names every sub-argument first."""
        budget, names, found = self.model.budget, self.names, {}
        built = set(numbers)
        for structure in budget.structures:
            number = budget.numbers[structure]
            if structure.name == "prem":
                literal = self.literal(structure.arguments[0])
                argument = Argument(str(literal), literal, None, ())
            else:
                rule_symbol, list_symbol = structure.arguments
                rule = rule_symbol.string
                subs = tuple(sorted(names[item] for item in _list_items(list_symbol)))
                argument = Argument(f"{rule}({','.join(subs)})", self.heads[rule], rule, subs)
            names[number] = argument.name
            if number in built:
                found[argument.name] = argument
        return dict(sorted(found.items()))

    def pairs(self, predicate: str) -> list[tuple[str, str]]:
        names = self.names
        return sorted((names[a], names[b]) for a, b in self.model.rows(predicate, 2))

    def defeats(self) -> list[tuple[str, str]]:
        """Defeats on whole arguments: each defeat on a sub-argument defeats every argument
        containing it (the rule of defeat.lp's part `defeats`, applied here from the
        numbering instead of being grounded)."""
        names, budget = self.names, self.model.budget
        found = {
            (names[attacker], names[container])
            for attacker, attacked in self.model.rows("defeats_on", 2)
            for container in budget.containers(attacked.number)
        }
        return sorted(found)

    def direct_attacks(self) -> list[Attack]:
        names = self.names
        succeeded = set(self.pairs("defeats_on"))
        attacks = []
        for a, b, kind in self.model.rows("attacks_on", 3):
            attacker, on = names[a], names[b]
            attacks.append(Attack(attacker, on, on, kind.name, (attacker, on) in succeeded))
        return sorted(attacks, key=lambda x: (x.attacker, x.on, x.kind))

    def claim_question(self) -> Question:
        """Acceptance asked of each claim, held by the arguments concluding it."""
        support: dict[clingo.Symbol, list[clingo.Symbol]] = defaultdict(list)
        for argument, literal in self.model.rows("conc", 2):
            support[literal].append(argument)
        return Question("concluded", {item: tuple(found) for item, found in support.items()})

    def claims(self, symbols: frozenset[clingo.Symbol]) -> frozenset[Literal]:
        return frozenset(self.literal(symbol) for symbol in symbols)

    def statuses(self) -> dict[Literal, str]:
        """The status of every claim, in the order of the claims' text. The three statuses
        partition the claims (statuses.lp), so the overruled ones are those neither justified
        nor undecided, and their atoms need not be read."""
        found = {}
        for status in ("justified", "undecided"):
            for (symbol,) in self.model.rows(status, 1):
                found[self.text(symbol)] = status
        return {claim: found.get(text, "overruled") for text, claim in self.literals.items()}

    def firsts(self, predicate: str) -> frozenset[clingo.Symbol]:
        """The first arguments of a unary predicate's atoms."""
        return frozenset(row[0] for row in self.model.rows(predicate, 1))


def _settings(
    theory: Theory, ordering: Ordering | None, semantics: str | None
) -> tuple[Ordering, str]:
    """The ordering and semantics to solve under: given, else the theory's header, else
    last-link elitist and grounded."""
    ordering = ordering or theory.ordering or Ordering()
    semantics = semantics or theory.semantics or "grounded"
    if semantics not in SEMANTICS_ENCODINGS:
        raise ValueError(f"unknown semantics {semantics!r}")
    return ordering, semantics


#: The predicates a grounded Solution reads from its model (`_ModelSource`): a batch grounds
#: only the rules these depend on.
GROUNDED_READS = frozenset(
    {
        ("arg", 1),
        ("attacks_on", 3),
        ("defeats_on", 2),
        ("grounded_in", 1),
        ("justified", 1),
        ("undecided", 1),
        ("inconsistent", 0),
    }
)


class _ModelSource:
    """A Solution's parts, read from one theory's ground model when first asked (the model,
    and so its clingo Control, lives as long as the Solution)."""

    def __init__(self, reader: _Reader, outcome: Outcome | None) -> None:
        self.reader = reader
        self.outcome = outcome
        self._names: dict[clingo.Symbol, str] | None = None
        self._arguments: dict[str, Argument] | None = None

    def arguments(self) -> dict[str, Argument]:
        if self._arguments is None:
            numbers = [number for (number,) in self.reader.model.rows("arg", 1)]
            self._arguments = self.reader.arguments(numbers)
        return self._arguments

    @property
    def names(self) -> dict[clingo.Symbol, str]:
        self.arguments()
        return self.reader.names

    def direct_attacks(self) -> tuple[Attack, ...]:
        self.arguments()
        return tuple(self.reader.direct_attacks())

    def defeats(self) -> tuple[tuple[str, str], ...]:
        self.arguments()
        return tuple(self.reader.defeats())

    def grounded(self) -> frozenset[str]:
        names = self.names
        return frozenset(names[number] for number in self.reader.firsts("grounded_in"))

    def statuses(self) -> dict[Literal, str]:
        return self.reader.statuses()

    def _outcome(self) -> Outcome:
        """Extensions and acceptance; for grounded semantics, read from the model: a claim
        is accepted either way iff concluded in the grounded extension."""
        if self.outcome is None:
            justified = self.reader.firsts("justified")
            grounded = self.reader.firsts("grounded_in")
            self.outcome = Outcome((grounded,), False, Verdicts(justified, justified))
        return self.outcome

    def extensions(self) -> tuple[frozenset[str], ...]:
        names = self.names
        found = {frozenset(names[a] for a in extension) for extension in self._outcome().extensions}
        return tuple(sorted(found, key=sorted))

    def credulous(self) -> frozenset[Literal]:
        return self.reader.claims(self._outcome().verdicts.credulous)

    def skeptical(self) -> frozenset[Literal]:
        return self.reader.claims(self._outcome().verdicts.skeptical)

    def consistent(self) -> bool:
        return not self.reader.model.rows("inconsistent", 0)


def _solution(
    reader: _Reader, theory: Theory, ordering: Ordering, semantics: str, outcome: Outcome | None
) -> Solution:
    """The Solution of a theory's ground model; `outcome` (extensions and acceptance) is read
    from the model when None, as it is for grounded semantics."""
    more = outcome.more if outcome is not None else False
    return Solution(theory, ordering, semantics, more, _ModelSource(reader, outcome))


def _solve(
    theory: Theory, ordering: Ordering | None, semantics: str | None, limits: Limits | None
) -> tuple[Session, _Reader, Solution]:
    ordering, semantics = _settings(theory, ordering, semantics)
    started = time.perf_counter()
    limits = limits or Limits()
    session = Session(limits, maximal_sets=semantics in MAXIMAL_SETS)
    if semantics == "grounded":
        session.load(program_encodings(ordering, semantics))
        parts = [("base", theory_facts(theory))]
    else:
        session.load((*program_encodings(ordering, semantics), "concluded"))
        shows = "#show in/1. #show in_range/1. #show concluded/1."
        parts = [("base", theory_facts(theory) + shows), ("defeats", "")]
    session.ground(parts)
    grounded_at = time.perf_counter()

    reader = _Reader(_SessionView(session), theory)
    outcome = None
    if semantics != "grounded":
        numbers = [number for (number,) in reader.model.rows("arg", 1)]
        outcome = reason(session, semantics, numbers, reader.claim_question(), limits.extensions)
    solution = _solution(reader, theory, ordering, semantics, outcome)
    solution.timings.update(ground=grounded_at - started, total=time.perf_counter() - started)
    return session, reader, solution


def solve(
    theory: Theory,
    *,
    ordering: Ordering | None = None,
    semantics: str | None = None,
    limits: Limits | None = None,
) -> Solution:
    """Solve a theory under an ordering and a semantics.

    Defaults come from the theory's header directives, then last-link elitist and grounded.
    Raises LimitExceeded when the time, argument or extension limit is hit.
    """
    return _solve(theory, ordering, semantics, limits)[2]


#: Theories grounded together by `solve_many` (larger batches save little more).
BATCH_SIZE = 32


def solve_many(
    theories: Sequence[Theory],
    *,
    ordering: Ordering | None = None,
    semantics: str | None = None,
    limits: Limits | None = None,
    batch_size: int = BATCH_SIZE,
) -> list[Solution | LimitExceeded]:
    """Solve many theories, grounding them in batches (one clingo program per batch, with
    the theory as a first argument of every atom) where they share an ordering and the
    grounded semantics; other semantics are solved one theory at a time.

    Each theory gets its own limits, counted separately while the batch grounds: a theory
    that exceeds them is solved again alone (and fails alone, its LimitExceeded in its
    place in the result), and the rest of the batch is grounded without it. The Solutions
    are equal to those `solve` returns.
    """
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    limits = limits or Limits()
    results: list[Solution | LimitExceeded | None] = [None] * len(theories)
    groups: dict[Ordering, list[int]] = defaultdict(list)
    for index, theory in enumerate(theories):
        chosen_ordering, chosen_semantics = _settings(theory, ordering, semantics)
        if chosen_semantics == "grounded":
            groups[chosen_ordering].append(index)
        else:
            results[index] = _alone(theory, chosen_ordering, chosen_semantics, limits)
    facts = {index: theory_facts(theories[index]) for found in groups.values() for index in found}
    for chosen_ordering, indices in groups.items():
        indices = _variants_together(facts, indices)
        for start in range(0, len(indices), batch_size):
            batch = indices[start : start + batch_size]
            found = _solve_batch(
                [theories[i] for i in batch], [facts[i] for i in batch], chosen_ordering, limits
            )
            for index, result in zip(batch, found, strict=True):
                results[index] = result
    return results  # type: ignore[return-value]


def prepare_batches() -> None:
    """Rewrite the grounded encodings of every ordering for batches now (`solve_many` then
    starts its first batch without it): what a scoring worker does before it says it is
    ready, while its caller still reads its input."""
    from argc.compiler.batch import prepare
    from argc.dsl.ir import ORDERINGS

    for ordering in ORDERINGS:
        prepare(program_encodings(ordering, "grounded"), PREFERENCE_INPUTS, GROUNDED_READS)


def _variants_together(facts: dict[int, str], indices: list[int]) -> list[int]:
    """The indices reordered so that theories that differ only in their preferences follow
    each other (and so share a batch, where they share their arguments)."""
    from argc.compiler.batch import split_facts

    variants: dict[tuple[str, ...], list[int]] = {}
    for index in indices:
        common, _ = split_facts(facts[index], PREFERENCE_INPUTS)
        variants.setdefault(tuple(common), []).append(index)
    return [index for group in variants.values() for index in group]


def _alone(
    theory: Theory, ordering: Ordering, semantics: str, limits: Limits
) -> Solution | LimitExceeded:
    try:
        return solve(theory, ordering=ordering, semantics=semantics, limits=limits)
    except LimitExceeded as exceeded:
        return exceeded


def _solve_batch(
    theories: list[Theory], facts: list[str], ordering: Ordering, limits: Limits
) -> list[Solution | LimitExceeded]:
    """Grounded Solutions of theories sharing an ordering, grounded in one program (theories
    that differ only in their preferences share their arguments); on a limit, the theories
    sharing the arguments that hit it are solved alone and the others batched again (all
    alone when the batch as a whole ran out of time or memory)."""
    if len(theories) == 1:
        return [_alone(theories[0], ordering, "grounded", limits)]
    from argc.compiler.batch import BatchSession  # syntax-tree rewriting: imports clingo.ast

    started = time.perf_counter()
    session = BatchSession(limits, len(theories))
    session.load(
        program_encodings(ordering, "grounded"), varying=PREFERENCE_INPUTS, reads=GROUNDED_READS
    )
    try:
        # `#show.`: the statuses are read from the ground atoms, never from a model, so the
        # grounder need not list every atom for output.
        session.ground([("base", session.facts(facts) + "#show.\n")])
    except LimitExceeded:
        culprit = session.budget.culprit
        if culprit is None:
            return [_alone(theory, ordering, "grounded", limits) for theory in theories]
        alone = {k for k, base in enumerate(session.bases) if base == culprit}
        others = [k for k in range(len(theories)) if k not in alone]
        batch = [theories[k] for k in others], [facts[k] for k in others]
        rest = iter(_solve_batch(*batch, ordering, limits) if others else [])
        return [
            _alone(theory, ordering, "grounded", limits) if k in alone else next(rest)
            for k, theory in enumerate(theories)
        ]
    grounded_at = time.perf_counter()
    solutions: list[Solution | LimitExceeded] = []
    texts: dict[clingo.Symbol, str] = {}
    for k, theory in enumerate(theories):
        reader = _Reader(session.view(k), theory, texts)
        solution = _solution(reader, theory, ordering, "grounded", None)
        share = (grounded_at - started) / len(theories)
        solution.timings.update(ground=share, total=share)
        solutions.append(solution)
    return solutions


@dataclass(frozen=True)
class QueryResult:
    """An ASP query run over a theory's solved model (grounded semantics): whether its
    constraints hold, and the atoms it shows (sorted; empty when unsatisfiable)."""

    solution: Solution
    satisfiable: bool
    shown: tuple[clingo.Symbol, ...]
    #: `<block>:line:column: warning: ...` for each predicate the query reads that has no
    #: atoms whatever the theory (`argc.compiler.predicates`).
    warnings: tuple[str, ...] = ()


def query(
    theory: Theory,
    program: str,
    *,
    ordering: Ordering | None = None,
    limits: Limits | None = None,
) -> QueryResult:
    """Run `program` over the solved model of `theory`.

    The program sees every predicate of the encodings (docs/encodings.md) as facts, plus
    `argument_name(A, Name)` giving each argument number its canonical name. Its integrity
    constraints act as a gate (unsatisfiable: `satisfiable` is False); its `#show`
    statements choose the atoms returned.
    """
    from argc.compiler.predicates import known_predicates, undefined_predicates

    check_program(program)
    session, reader, solution = _solve(theory, ordering, "grounded", limits)
    solution.arguments  # noqa: B018 - numbers the arguments' names
    names = "".join(f'argument_name({number},"{name}").\n' for number, name in reader.names.items())
    session.ground([("defeats", ""), ("query", names), ("query", program)])
    known = known_predicates(program_encodings(solution.ordering, "grounded"))
    known |= {("argument_name", 2)}
    warnings = tuple(undefined_predicates(program, known))
    session.control.configuration.solve.models = 1
    models = session.models(lambda model: frozenset(model.symbols(shown=True)), what="models")
    if not models:
        return QueryResult(solution, False, (), warnings)
    return QueryResult(solution, True, tuple(sorted(models[0])), warnings)
