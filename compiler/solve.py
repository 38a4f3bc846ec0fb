"""Solving a theory: ground the chosen encodings, enumerate extensions, read a Solution."""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass

import clingo

from argc.compiler.control import Limits, Session, check_program
from argc.compiler.encodings import SEMANTICS_ENCODINGS, program_encodings
from argc.compiler.facts import literal_term, theory_facts
from argc.compiler.reasoning import MAXIMAL_SETS, Outcome, Question, Verdicts, reason
from argc.compiler.solution import STATUSES, Argument, Attack, Solution
from argc.dsl.ir import Literal, Ordering, Theory


def _list_items(symbol: clingo.Symbol) -> list[clingo.Symbol]:
    items = []
    while symbol.name == "c":
        head, symbol = symbol.arguments
        items.append(head)
    return items


class _Reader:
    """Turns ground atoms into typed values, with as few calls into clingo as possible.
    Arguments are numbers in the ground program; `names` maps them to canonical names."""

    def __init__(self, session: Session, theory: Theory) -> None:
        self.session = session
        self.heads = {rule.name: rule.head for rule in theory.rules}
        self.literals = {literal_term(literal): literal for literal in theory.claims()}
        self.names: dict[clingo.Symbol, str] = {}

    def literal(self, symbol: clingo.Symbol) -> Literal:
        return self.literals[str(symbol)]

    def arguments(self, numbers: list[clingo.Symbol]) -> dict[str, Argument]:
        """Arguments by canonical name. The budget numbered each structure after its
        sub-arguments, so one pass in numbering order names every sub-argument first."""
        budget, names, found = self.session.budget, self.names, {}
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
        return sorted(
            (names[a], names[b])
            for a, b in (symbol.arguments for symbol in self.session.atoms(predicate, 2))
        )

    def direct_attacks(self) -> list[Attack]:
        names = self.names
        succeeded = set(self.pairs("defeats_on"))
        attacks = []
        for symbol in self.session.atoms("attacks_on", 3):
            a, b, kind = symbol.arguments
            attacker, on = names[a], names[b]
            attacks.append(Attack(attacker, on, on, kind.name, (attacker, on) in succeeded))
        return sorted(attacks, key=lambda x: (x.attacker, x.on, x.kind))

    def claim_question(self) -> Question:
        """Acceptance asked of each claim, held by the arguments concluding it."""
        support: dict[clingo.Symbol, list[clingo.Symbol]] = defaultdict(list)
        for symbol in self.session.atoms("conc", 2):
            argument, literal = symbol.arguments
            support[literal].append(argument)
        return Question("concluded", {item: tuple(found) for item, found in support.items()})

    def claims(self, symbols: frozenset[clingo.Symbol]) -> frozenset[Literal]:
        return frozenset(self.literal(symbol) for symbol in symbols)

    def statuses(self) -> dict[Literal, str]:
        found = {}
        for status in STATUSES:
            for symbol in self.session.atoms(status, 1):
                found[self.literal(symbol.arguments[0])] = status
        return dict(sorted(found.items(), key=lambda item: str(item[0])))


def _solve(
    theory: Theory, ordering: Ordering | None, semantics: str | None, limits: Limits | None
) -> tuple[Session, _Reader, Solution]:
    ordering = ordering or theory.ordering or Ordering()
    semantics = semantics or theory.semantics or "grounded"
    if semantics not in SEMANTICS_ENCODINGS:
        raise ValueError(f"unknown semantics {semantics!r}")
    started = time.perf_counter()
    limits = limits or Limits()
    session = Session(limits, maximal_sets=semantics in MAXIMAL_SETS)
    if semantics == "grounded":
        session.load(program_encodings(ordering, semantics))
        shows = ""
    else:
        session.load((*program_encodings(ordering, semantics), "concluded"))
        shows = "#show in/1. #show in_range/1. #show concluded/1."
    session.ground([("base", theory_facts(theory) + shows)])
    grounded_at = time.perf_counter()

    reader = _Reader(session, theory)
    numbers = [symbol.arguments[0] for symbol in session.atoms("arg", 1)]
    arguments = reader.arguments(numbers)
    grounded = frozenset(symbol.arguments[0] for symbol in session.atoms("grounded_in", 1))
    if semantics == "grounded":  # accepted either way: concluded in the grounded extension
        justified = frozenset(symbol.arguments[0] for symbol in session.atoms("justified", 1))
        outcome = Outcome((grounded,), False, Verdicts(justified, justified))
    else:
        outcome = reason(session, semantics, numbers, reader.claim_question(), limits.extensions)
    solution = Solution(
        theory=theory,
        ordering=ordering,
        semantics=semantics,
        arguments=arguments,
        direct_attacks=tuple(reader.direct_attacks()),
        defeats=tuple(reader.pairs("defeat")),
        grounded=frozenset(reader.names[number] for number in grounded),
        statuses=reader.statuses(),
        extensions=tuple(
            sorted(
                {frozenset(reader.names[a] for a in found) for found in outcome.extensions},
                key=sorted,
            )
        ),
        more_extensions=outcome.more,
        credulous=reader.claims(outcome.verdicts.credulous),
        skeptical=reader.claims(outcome.verdicts.skeptical),
        consistent=not session.atoms("inconsistent", 0),
    )
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


@dataclass(frozen=True)
class QueryResult:
    """An ASP query run over a theory's solved model (grounded semantics): whether its
    constraints hold, and the atoms it shows (sorted; empty when unsatisfiable)."""

    solution: Solution
    satisfiable: bool
    shown: tuple[clingo.Symbol, ...]


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
    check_program(program)
    session, reader, solution = _solve(theory, ordering, "grounded", limits)
    names = "".join(f'argument_name({number},"{name}").\n' for number, name in reader.names.items())
    session.ground([("query", names), ("query", program)])
    session.control.configuration.solve.models = 1
    models = session.models(lambda model: frozenset(model.symbols(shown=True)), what="models")
    if not models:
        return QueryResult(solution, False, ())
    return QueryResult(solution, True, tuple(sorted(models[0])))
