"""What the graph of a solved theory is: its arguments and attacks as records and text, the
Graphviz picture, and the abstract framework (arguments and defeats) in the ICCMA formats."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argc.compiler.solution import Argument, Attack, Solution
    from argc.dsl.iccma import Framework

#: The framework formats `export` writes.
EXPORT_FORMATS = ("dot", "apx", "af")

_VERBS = {"undermine": "undermines", "rebut": "rebuts", "undercut": "undercuts"}
_EDGE_COLOURS = {"rebut": "black", "undermine": "blue", "undercut": "darkorange"}
_LABEL_COLOURS = {"in": "palegreen", "out": "lightpink", "undecided": "lightgoldenrod1"}
_LEGEND = (
    "grounded labelling: in green, out red, undecided yellow; attacks: rebut black,"
    " undermine blue, undercut orange; defeats solid, failed attacks dashed"
)


def argument_kinds(solution: Solution) -> dict[str, str]:
    """Each argument's kind: `axiom` or `premise` for a premise argument, else its top rule's
    `strict` or `defeasible`."""
    axioms = set(solution.theory.axioms)
    strict = {rule.name for rule in solution.theory.strict_rules}

    def kind(argument: Argument) -> str:
        if argument.top_rule is None:
            return "axiom" if argument.conclusion in axioms else "premise"
        return "strict" if argument.top_rule in strict else "defeasible"

    return {name: kind(argument) for name, argument in solution.arguments.items()}


def graph_record(solution: Solution) -> dict:
    """The argument graph as JSON-ready lists: arguments, attacks, defeats."""
    kinds = argument_kinds(solution)
    return {
        "arguments": [
            {
                "name": argument.name,
                "conclusion": str(argument.conclusion),
                "top_rule": argument.top_rule,
                "kind": kinds[argument.name],
                "subarguments": list(argument.subarguments),
            }
            for argument in solution.arguments.values()
        ],
        "attacks": [vars(attack) for attack in solution.attacks],
        "defeats": [list(pair) for pair in solution.defeats],
    }


def argument_lines(solution: Solution) -> list[str]:
    """One line per argument: name, conclusion, kind, top rule and direct sub-arguments."""
    width = max((len(name) for name in solution.arguments), default=0)
    kinds = argument_kinds(solution)
    lines = [f"  arguments: {len(solution.arguments)}"]
    for argument in solution.arguments.values():
        row = f"    {argument.name.ljust(width)}  concludes {argument.conclusion}"
        row += f", {kinds[argument.name]}"
        if argument.top_rule is not None:
            row += f" by {argument.top_rule} from {', '.join(argument.subarguments)}"
        lines.append(row)
    return lines


def _attack_text(attack: Attack) -> str:
    where = "" if attack.on == attack.attacked else f" on {attack.on}"
    outcome = "defeat" if attack.defeat else "fails"
    return f"{attack.attacker} {_VERBS[attack.kind]} {attack.attacked}{where}: {outcome}"


def attack_lines(solution: Solution) -> list[str]:
    """One line per attack: who attacks what, on which sub-argument, and whether it
    defeats."""
    lines = [f"  attacks: {len(solution.attacks)} ({len(solution.defeats)} defeats)"]
    return lines + [f"    {_attack_text(attack)}" for attack in solution.attacks]


def _quoted(text: str) -> str:
    """A DOT string: quotes and backslashes escaped, line breaks as `\\n`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def to_dot(solution: Solution) -> str:
    """Graphviz DOT: a node per argument (name and conclusion, filled by its grounded label),
    an edge per attacker, attacked argument and kind (coloured by kind; solid when it
    defeats, dashed when it fails)."""
    lines = [
        "digraph argc {",
        f"  graph [label={_quoted(_LEGEND)}, labelloc=b, fontsize=10];",
        '  node [shape=box, style="rounded,filled"];',
    ]
    for argument in solution.arguments.values():
        label = f"{argument.name}\nclaim: {argument.conclusion}"
        colour = _LABEL_COLOURS[solution.label(argument.name)]
        lines.append(f"  {_quoted(argument.name)} [label={_quoted(label)}, fillcolor={colour}];")
    edges: dict[tuple[str, str, str], bool] = defaultdict(bool)
    for attack in solution.attacks:
        edges[(attack.attacker, attack.attacked, attack.kind)] |= attack.defeat
    for (attacker, attacked, kind), defeat in edges.items():
        style = "solid" if defeat else "dashed"
        lines.append(
            f"  {_quoted(attacker)} -> {_quoted(attacked)}"
            f" [color={_EDGE_COLOURS[kind]}, style={style}, tooltip={_quoted(kind)}];"
        )
    return "\n".join([*lines, "}"]) + "\n"


def framework(solution: Solution) -> tuple[Framework, list[str]]:
    """The abstract framework the semantics run on: the arguments, named a1, a2, ... in the
    sorted order of their canonical names, and the defeats; and the canonical names in
    that order."""
    from argc.dsl.iccma import Framework

    names = sorted(solution.arguments)
    ids = {name: f"a{index}" for index, name in enumerate(names, 1)}
    defeats = tuple((ids[attacker], ids[attacked]) for attacker, attacked in solution.defeats)
    return Framework(tuple(ids.values()), defeats), names


def export(solution: Solution, form: str) -> str:
    """The solution's graph as text in `form`: `dot`, `apx` or `af`. The ICCMA formats start
    with a legend of comments, `a3 = r1(a)` in `.apx` and `3 = r1(a)` in `.af`."""
    from argc.dsl.iccma import to_af, to_apx

    if form == "dot":
        return to_dot(solution)
    found, names = framework(solution)
    if form == "apx":
        return to_apx(found, [f"a{index} = {name}" for index, name in enumerate(names, 1)])
    return to_af(found, [f"{index} = {name}" for index, name in enumerate(names, 1)])
