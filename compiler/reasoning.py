"""Extensions and acceptance under every semantics, over `arg/1`, `defeat/2` and the guess
`in/1` of the semantics encodings, in one Session (an ASPIC+ theory or an abstract framework).

Extensions are enumerated up to a limit. Acceptance is exact either way: from the extensions
when all of them were enumerated, otherwise without enumerating them (`accepted`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cached_property, partial

import clingo

from argc.compiler.control import Session
from argc.compiler.encodings import encoding_text
from argc.dsl.records import dataclass

#: Semantics whose extensions are subset-maximal sets or ranges: their sessions enumerate
#: with domain heuristics (`--enum-mode=domRec`).
MAXIMAL_SETS = frozenset({"preferred", "naive", "semi-stable", "stage", "eager"})
#: Semantics whose extensions are exactly the models of their program.
_MODELS = frozenset({"conflict-free", "admissible", "complete", "stable"})
#: Semantics with exactly one extension.
_UNIQUE = frozenset({"grounded", "ideal", "eager"})

Extension = frozenset[clingo.Symbol]
Assumptions = Sequence[tuple[clingo.Symbol, bool]]


@dataclass(frozen=True)
class Question:
    """What acceptance is asked of: items `predicate(X)`, which the programs derive for a
    guessed set, and for each item the arguments whose membership makes it hold (for a
    claim, the arguments concluding it; for an argument, itself)."""

    predicate: str
    support: dict[clingo.Symbol, tuple[clingo.Symbol, ...]]

    @cached_property
    def _items_of(self) -> dict[clingo.Symbol, list[clingo.Symbol]]:
        items = defaultdict(list)
        for item, arguments in self.support.items():
            for argument in arguments:
                items[argument].append(item)
        return items

    def held(self, extension: Extension) -> frozenset[clingo.Symbol]:
        """The items an extension makes hold."""
        items_of = self._items_of
        return frozenset(item for argument in extension for item in items_of.get(argument, ()))


@dataclass(frozen=True)
class Verdicts:
    """Credulous: items held by some extension; skeptical: by every extension. With no
    extension at all nothing is accepted either way."""

    credulous: frozenset[clingo.Symbol]
    skeptical: frozenset[clingo.Symbol]


_NOTHING = Verdicts(frozenset(), frozenset())


@dataclass(frozen=True)
class Outcome:
    """The first extensions found (at most the limit), whether more exist, and acceptance
    over all of them."""

    extensions: tuple[Extension, ...]
    more: bool
    verdicts: Verdicts


def reason(
    session: Session,
    semantics: str,
    arguments: list[clingo.Symbol],
    question: Question,
    limit: int,
) -> Outcome:
    """Enumerate up to `limit` extensions; acceptance from them when that is all of them,
    otherwise by `accepted`."""
    found = extensions(session, semantics, arguments, limit + 1)
    if len(found) <= limit:
        return Outcome(tuple(found), False, from_extensions(question, found))
    verdicts = accepted(session, semantics, arguments, question, found)
    return Outcome(tuple(found[:limit]), True, verdicts)


def from_extensions(question: Question, found: Sequence[Extension]) -> Verdicts:
    """Acceptance when `found` is every extension."""
    held = [question.held(extension) for extension in found]
    if not held:
        return _NOTHING
    return Verdicts(frozenset().union(*held), frozenset.intersection(*held))


# Solving ---------------------------------------------------------------------------------


def _members(name: str) -> Callable[[clingo.Model], Extension]:
    def keep(model: clingo.Model) -> Extension:
        return frozenset(
            symbol.arguments[0] for symbol in model.symbols(shown=True) if symbol.name == name
        )

    return keep


_in_set, _range_set = _members("in"), _members("in_range")


def _collect(
    session: Session,
    keep: Callable[[clingo.Model], Extension],
    mode: str,
    assumptions: Assumptions = (),
    count: int | None = None,
) -> list[Extension]:
    """`keep(model)` of each model in enumeration mode `mode`, stopping after `count`."""
    session.control.configuration.solve.enum_mode = mode
    found: list[Extension] = []

    def on_model(model: clingo.Model) -> bool:
        found.append(keep(model))
        return count is None or len(found) < count

    session.search(on_model, assumptions)
    return found


def _consequences(
    session: Session, mode: str, predicate: str, assumptions: Assumptions = ()
) -> Extension | None:
    """The brave or cautious (`mode`) consequences among the items `predicate(X)`; None when
    the program has no model."""
    session.control.configuration.solve.enum_mode = mode
    last: list[Extension] = []
    keep = _members(predicate)

    def on_model(model: clingo.Model) -> bool:
        last[:] = [keep(model)]
        return True

    session.search(on_model, assumptions)
    return last[0] if last else None


# Extensions ------------------------------------------------------------------------------


def extensions(
    session: Session, semantics: str, arguments: list[clingo.Symbol], count: int
) -> list[Extension]:
    """Up to `count` extensions of `semantics` (every one when there are fewer)."""
    if semantics in _UNIQUE:
        return [_unique(session, semantics, arguments)]
    if semantics in ("semi-stable", "stage"):
        found: list[Extension] = []
        for assumptions in _range_assumptions(session, arguments):
            found += _collect(session, _in_set, "auto", assumptions, count - len(found))
            if len(found) >= count:
                break
        return found
    mode = "domRec" if semantics in MAXIMAL_SETS else "auto"
    return _collect(session, _in_set, mode, count=count)


def _unique(session: Session, semantics: str, arguments: list[clingo.Symbol]) -> Extension:
    """The grounded, ideal or eager extension."""
    if semantics == "grounded":
        return frozenset(symbol.arguments[0] for symbol in session.atoms("grounded_in", 1))
    if semantics == "ideal":
        credulous = _consequences(session, "brave", "in") or frozenset()
        facts = "".join(f"cred({argument}).\n" for argument in credulous)
        return _admissible_core(session, [("ideal", facts), ("ideal", encoding_text("ideal"))])
    common = frozenset(arguments)
    for assumptions in _range_assumptions(session, arguments):
        common &= _consequences(session, "cautious", "in", assumptions) or frozenset()
    facts = "".join(f"within({argument}).\n" for argument in common)
    return _admissible_core(session, [("eager", facts)])


def _admissible_core(session: Session, parts: list[tuple[str, str]]) -> Extension:
    """The largest admissible subset of the candidates `within/1` that `parts` define."""
    session.ground([*parts, ("admissible_core", encoding_text("admissible_core"))])
    return frozenset(symbol.arguments[0] for symbol in session.atoms("core_in", 1))


def _range_assumptions(session: Session, arguments: list[clingo.Symbol]) -> list[Assumptions]:
    """For each subset-maximal range (one domRec model each), assumptions that fix it."""
    ranges = _collect(session, _range_set, "domRec")
    return [
        [(clingo.Function("in_range", [argument]), argument in found) for argument in arguments]
        for found in ranges
    ]


# Acceptance without enumeration ----------------------------------------------------------


def accepted(
    session: Session,
    semantics: str,
    arguments: list[clingo.Symbol],
    question: Question,
    known: Sequence[Extension] = (),
) -> Verdicts:
    """Exact acceptance without enumerating the extensions; `known` are some of them.

    Where the extensions are the program's models, brave and cautious consequences. Under
    preferred and naive semantics, credulous acceptance is that of the program's models
    (each lies inside a maximal one); skeptical acceptance is a counterexample-guided search
    under preferred semantics (`_PreferredSearch`) and one search per item under naive
    semantics (`_in_every_naive`). Under semi-stable and stage semantics, the consequences
    of the sets with each maximal range.
    """
    if semantics in _UNIQUE:
        return from_extensions(question, [_unique(session, semantics, arguments)])
    if semantics in ("semi-stable", "stage"):
        return _per_range(session, arguments, question)
    credulous = _consequences(session, "brave", question.predicate)
    if credulous is None:
        return _NOTHING
    if semantics in _MODELS:
        skeptical = _consequences(session, "cautious", question.predicate) or frozenset()
        return Verdicts(credulous, skeptical)
    if semantics == "naive":
        session.ground([("blocked", encoding_text("blocked"))])
        in_every = partial(_in_every_naive, session, question)
    else:
        in_every = _PreferredSearch(session, question, known).in_every
    return Verdicts(credulous, frozenset(item for item in credulous if in_every(item)))


def _in_every_naive(session: Session, question: Question, item: clingo.Symbol) -> bool:
    """Whether every naive extension holds `item`: no conflict-free set without the item's
    arguments blocks each of them (a maximal conflict-free set around it would lack them
    all, and a naive extension without the item blocks them all)."""
    assumptions = [
        (clingo.Function(name, [argument]), name == "blocked")
        for argument in question.support[item]
        for name in ("in", "blocked")
    ]
    return not _collect(session, _in_set, "auto", assumptions, count=1)


def _per_range(session: Session, arguments: list[clingo.Symbol], question: Question) -> Verdicts:
    """Acceptance under semi-stable or stage semantics: the union of the brave and the
    intersection of the cautious consequences of the sets with each maximal range."""
    credulous: set[clingo.Symbol] = set()
    cautious: list[Extension] = []
    predicate = question.predicate
    for assumptions in _range_assumptions(session, arguments):
        credulous |= _consequences(session, "brave", predicate, assumptions) or set()
        cautious.append(_consequences(session, "cautious", predicate, assumptions) or frozenset())
    if not cautious:
        return _NOTHING
    return Verdicts(frozenset(credulous), frozenset.intersection(*cautious))


class _PreferredSearch:
    """Skeptical preferred acceptance by counterexample, within the item's region: its
    arguments and every argument with a path of defeats to them. Preferred semantics is
    directional: the extensions' parts in a region are the preferred extensions of the
    region alone, so an item is in every extension iff every preferred extension of its
    region holds one of its arguments.

    A candidate is a set of the program without the item's arguments whose part in the
    region lies inside none of the region's preferred extensions found so far; none means
    yes. A candidate is grown to a preferred extension (domRec under assumptions that keep
    its members in), whose part in the region is new: if it lacks the item's arguments, no;
    otherwise a constraint, active while that region is searched (external `searching(N)`),
    excludes the sets whose part in the region lies inside it. The constraints stay sound
    for every item asked later: a found part that lacks an item's arguments answers before
    any search."""

    def __init__(self, session: Session, question: Question, known: Sequence[Extension]) -> None:
        self.session = session
        self.question = question
        self.known = known
        self.defeaters: dict[clingo.Symbol, list[clingo.Symbol]] = defaultdict(list)
        for defeat in session.atoms("defeat", 2):
            attacker, attacked = defeat.arguments
            self.defeaters[attacked].append(attacker)
        self.parts: dict[frozenset[clingo.Symbol], list[Extension]] = {}
        self.guards: dict[frozenset[clingo.Symbol], clingo.Symbol] = {}

    def _region(self, avoided: frozenset[clingo.Symbol]) -> frozenset[clingo.Symbol]:
        region, stack = set(avoided), list(avoided)
        while stack:
            for attacker in self.defeaters.get(stack.pop(), ()):
                if attacker not in region:
                    region.add(attacker)
                    stack.append(attacker)
        return frozenset(region)

    def in_every(self, item: clingo.Symbol) -> bool:
        """Whether every preferred extension holds `item`."""
        avoided = frozenset(self.question.support[item])
        region = self._region(avoided)
        if not all(part & avoided for part in self._parts(region)):
            return False
        absent = [(clingo.Function("in", [argument]), False) for argument in avoided]
        absent.append((self.guards[region], True))
        while candidate := _collect(self.session, _in_set, "auto", absent, count=1):
            present = [(clingo.Function("in", [argument]), True) for argument in candidate[0]]
            grown = _collect(self.session, _in_set, "domRec", present, count=1)[0]
            if not self._add(region, grown) & avoided:
                return False
        return True

    def _parts(self, region: frozenset[clingo.Symbol]) -> list[Extension]:
        """The parts in `region` of the preferred extensions found; on the first visit, its
        external `searching(N)` and the parts of the extensions known beforehand."""
        if region not in self.parts:
            self.parts[region] = []
            guard = self.guards[region] = clingo.Function(
                "searching", [clingo.Number(len(self.guards))]
            )
            with self.session.control.backend() as backend:
                backend.add_external(backend.add_atom(guard), clingo.TruthValue.Free)
            for extension in self.known:
                self._add(region, extension)
        return self.parts[region]

    def _add(self, region: frozenset[clingo.Symbol], extension: Extension) -> Extension:
        """Record the part in `region` of a preferred extension and exclude its subsets while
        the region is searched; return the part."""
        part = extension & region
        self.parts[region].append(part)
        atoms = self.session.control.symbolic_atoms
        outside = [atoms[clingo.Function("in", [argument])] for argument in region - part]
        body = [atoms[self.guards[region]].literal]
        body += [-atom.literal for atom in outside if atom is not None]
        with self.session.control.backend() as backend:
            backend.add_rule([], body)
        return part
