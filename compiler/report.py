"""Presenting a solution: the JSON record of `argc check --json` and the human summary."""

from __future__ import annotations

from argc.compiler.explain import explain
from argc.compiler.solution import Solution
from argc.dsl.ir import Literal

#: Extensions listed in the human summary before "... and N more".
SHOWN_EXTENSIONS = 20


def as_record(solution: Solution, filename: str, explained: list[Literal] = ()) -> dict:
    """The JSON object of one checked file (lists sorted, arguments named canonically)."""
    claims = solution.theory.claims()
    record = {
        "file": filename,
        "ordering": solution.ordering.principle,
        "set": solution.ordering.set_comparison,
        "comparison": solution.ordering.reading,
        "semantics": solution.semantics,
        "arguments": sorted(solution.arguments),
        "defeats": [list(pair) for pair in solution.defeats],
        "extensions": [sorted(extension) for extension in solution.extensions],
        "statuses": {str(literal): solution.status(literal) for literal in claims},
        "acceptance": {str(literal): vars(solution.acceptance(literal)) for literal in claims},
        "consistent": solution.consistent,
    }
    if explained:
        record["explanations"] = {str(literal): explain(solution, literal) for literal in explained}
    return record


def summary(solution: Solution, filename: str, explained: list[Literal] = ()) -> str:
    """A readable report: counts, statuses (and acceptance), extensions, explanations."""
    kinds = solution.attacks_by_kind()
    lines = [
        f"{filename}: {solution.ordering}, {solution.semantics} semantics",
        f"  {len(solution.arguments)} arguments; {len(solution.attacks)} attacks"
        f" ({', '.join(f'{count} {kind}' for kind, count in kinds.items())});"
        f" {len(solution.defeats)} defeats",
    ]
    queried = set(solution.theory.queries)
    width = max((len(str(literal)) for literal in solution.theory.claims()), default=0)
    grounded_only = solution.semantics == "grounded"
    header = "grounded status" if grounded_only else "grounded status  credulous  skeptical"
    lines.append(f"  {'claim'.ljust(width)}  {header}")
    for literal in solution.theory.claims():
        row = f"  {str(literal).ljust(width)}  {solution.status(literal):<15}"
        if not grounded_only:
            acceptance = solution.acceptance(literal)
            row += f"  {'yes' if acceptance.credulous else 'no':<9}  "
            row += "yes" if acceptance.skeptical else "no"
        if literal in queried:
            row += "  (queried)"
        lines.append(row.rstrip())
    count = len(solution.extensions)
    if count == 0:
        lines.append(f"  no {solution.semantics} extension exists")
    else:
        lines.append(f"  {solution.semantics} extensions: {count}")
        for extension in solution.extensions[:SHOWN_EXTENSIONS]:
            lines.append("    {" + ", ".join(sorted(extension)) + "}")
        if count > SHOWN_EXTENSIONS:
            lines.append(f"    ... and {count - SHOWN_EXTENSIONS} more (see --json)")
    lines.append(
        "  consistent"
        if solution.consistent
        else "  INCONSISTENT: a literal and its contradictory are both justified"
    )
    for literal in explained:
        lines += ["", *explain(solution, literal)]
    return "\n".join(lines)
