"""Presenting a solution: the JSON record of `argc check --json` and the human summary, and
the same for an abstract framework solved by `argc af`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from argc.compiler.explain import explain
from argc.compiler.graph import argument_lines, attack_lines, graph_record
from argc.dsl.errors import LimitExceeded

if TYPE_CHECKING:
    from argc.compiler.frameworks import FrameworkSolution
    from argc.compiler.solution import Accepting, Solution
    from argc.dsl.ir import Literal

#: Extensions listed in the human summary before "... and N more".
SHOWN_EXTENSIONS = 20
#: What `--show` can add to the human summary, and the lines it adds.
SHOWABLE = {"arguments": argument_lines, "attacks": attack_lines}


def as_record(
    solution: Solution, filename: str, explained: Sequence[Literal] = (), graph: bool = False
) -> dict:
    """The JSON object of one checked file (lists sorted, arguments named canonically);
    `more_extensions` appears when only the first extensions are listed, `graph` (arguments,
    attacks, defeats) when asked for."""
    claims = solution.theory.claims()
    record = {
        "file": filename,
        "ordering": solution.ordering.principle,
        "set": solution.ordering.set_comparison,
        "comparison": solution.ordering.reading,
        "semantics": solution.semantics,
        "arguments": sorted(solution.arguments),
        "defeats": [list(pair) for pair in solution.defeats],
        **_extensions_record(solution),
        "statuses": {str(literal): solution.status(literal) for literal in claims},
        "acceptance": {str(literal): vars(solution.acceptance(literal)) for literal in claims},
        "consistent": solution.consistent,
    }
    if explained:
        record["explanations"] = {str(literal): explain(solution, literal) for literal in explained}
    if graph:
        record["graph"] = graph_record(solution)
    return record


def error_record(
    name: str, error: Exception, message: str | None = None, key: str = "file"
) -> dict:
    """The JSON object of an input that failed: `{key: name, "error": message}` (the error's
    text unless `message` is given), with `"limit"` when it stopped at a limit: a field of
    Limits, `time`, `memory` or `other` (`argc check --json`, `argc norms solve` and `argc kg
    solve` with several worlds, where the key is `world`)."""
    record = {key: name, "error": str(error) if message is None else message}
    if isinstance(error, LimitExceeded):
        record["limit"] = error.limit or "other"
    return record


def _extensions_record(solution: Accepting) -> dict:
    record: dict = {"extensions": [solution.ordered(found) for found in solution.extensions]}
    if solution.more_extensions:
        record["more_extensions"] = True
    return record


def summary(
    solution: Solution,
    filename: str,
    explained: Sequence[Literal] = (),
    show: Sequence[str] = (),
) -> str:
    """A readable report: counts, the arguments and attacks asked for by `show`, statuses
    (and acceptance), extensions, explanations."""
    kinds = solution.attacks_by_kind()
    lines = [
        f"{filename}: {solution.ordering}, {solution.semantics} semantics",
        f"  {counted(len(solution.arguments), 'argument')};"
        f" {counted(len(solution.attacks), 'attack')}"
        f" ({', '.join(f'{count} {kind}' for kind, count in kinds.items())});"
        f" {counted(len(solution.defeats), 'defeat')}",
    ]
    for part in dict.fromkeys(show):
        lines += SHOWABLE[part](solution)
    queried = set(solution.theory.queries)
    concluded = {argument.conclusion for argument in solution.arguments.values()}
    claims = solution.theory.claims()
    width = max([len("claim"), *(len(str(literal)) for literal in claims)])
    grounded_only = solution.semantics == "grounded"
    header = "grounded status" if grounded_only else "grounded status  credulous  skeptical"
    lines.append(f"  {'claim'.ljust(width)}  {header}")
    for literal in claims:
        row = f"  {str(literal).ljust(width)}  {solution.status(literal):<15}"
        if not grounded_only:
            acceptance = solution.acceptance(literal)
            row += f"  {_yes(acceptance.credulous):<9}  {_yes(acceptance.skeptical)}"
        marks = (("queried", literal in queried), ("no argument", literal not in concluded))
        notes = [note for note, holds in marks if holds]
        if notes:
            row += f"  ({', '.join(notes)})"
        lines.append(row.rstrip())
    if any(literal not in concluded for literal in claims):
        lines.append("  (no argument: nothing concludes the claim, so it is overruled)")
    lines += _extension_lines(solution, solution.semantics)
    lines.append("  consistent" if solution.consistent else "  " + inconsistency(solution))
    for literal in explained:
        lines += ["", *explain(solution, literal)]
    return "\n".join(lines)


def counted(number: int, noun: str) -> str:
    """`1 attack`, `2 attacks`, `0 attacks`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def inconsistency(solution: Solution) -> str:
    """Which literals are justified together with their contradictories."""
    both = [
        (literal, literal.complement) for literal in solution.theory.claims() if not literal.negated
    ] + [(pair.first, pair.second) for pair in solution.theory.contradictories]
    pairs = ", ".join(
        f"{first} and {second}"
        for first, second in both
        if solution.status(first) == "justified" and solution.status(second) == "justified"
    )
    return f"INCONSISTENT: {pairs} are both justified"


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _extension_lines(solution: Accepting, semantics: str) -> list[str]:
    """How many extensions, then the first SHOWN_EXTENSIONS of them."""
    count = len(solution.extensions)
    if not solution.exists:
        return [f"  no {semantics} extension exists: nothing is accepted"]
    if solution.more_extensions:
        head = f"  {semantics} extensions: the first {count} found (more exist; acceptance"
        head += " counts every extension)"
    else:
        head = f"  {semantics} extensions: {count}"
    lines = [head]
    lines += [
        "    {" + ", ".join(solution.ordered(found)) + "}"
        for found in solution.extensions[:SHOWN_EXTENSIONS]
    ]
    if count > SHOWN_EXTENSIONS:
        lines.append(f"    ... and {count - SHOWN_EXTENSIONS} more (see --json)")
    return lines


# Abstract frameworks ---------------------------------------------------------------------


def framework_record(
    solution: FrameworkSolution, filename: str, queries: Sequence[tuple[str, str]] = ()
) -> dict:
    """The JSON object of one solved framework; `answers` for the `(mode, argument)` queries
    (mode `credulous` or `skeptical`) when there are any."""
    record = {
        "file": filename,
        "semantics": solution.semantics,
        "arguments": len(solution.framework.arguments),
        "attacks": len(solution.framework.attacks),
        **_extensions_record(solution),
        "exists": solution.exists,
        "credulous": solution.ordered(solution.credulous),
        "skeptical": solution.ordered(solution.skeptical),
    }
    if queries:
        record["answers"] = [
            {"argument": argument, "mode": mode, "accepted": _answer(solution, mode, argument)}
            for mode, argument in queries
        ]
    return record


def _answer(solution: FrameworkSolution, mode: str, argument: str) -> bool:
    return getattr(solution.acceptance(argument), mode)


def framework_summary(
    solution: FrameworkSolution, filename: str, queries: Sequence[tuple[str, str]] = ()
) -> str:
    """A readable report of a solved framework: sizes, extensions, the accepted arguments and
    the answers to the queries."""
    semantics = solution.semantics
    lines = [
        f"{filename}: {counted(len(solution.framework.arguments), 'argument')},"
        f" {counted(len(solution.framework.attacks), 'attack')}; {semantics} semantics",
        *_extension_lines(solution, semantics),
    ]
    if solution.exists:
        for mode in ("credulous", "skeptical"):
            accepted = solution.ordered(getattr(solution, mode))
            lines.append(f"  {mode}ly accepted: {', '.join(accepted) if accepted else 'none'}")
    for mode, argument in queries:
        answer = _yes(_answer(solution, mode, argument))
        if not solution.exists:
            answer += f" (no {semantics} extension exists)"
        lines.append(f"  {argument} {mode}: {answer}")
    return "\n".join(lines)
