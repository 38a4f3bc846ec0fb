"""Why a claim has its grounded status: the accepted argument and what defends it, or each
defeater and where it strikes."""

from __future__ import annotations

from argc.compiler.solution import Attack, Solution
from argc.dsl.ir import Literal


def _strike(attack: Attack) -> str:
    where = "" if attack.on == attack.attacked else f" on its sub-argument {attack.on}"
    return f"{attack.attacker} ({attack.kind}{where})"


def _answer(solution: Solution, attacker: str) -> str:
    answer = solution.grounded_defeater(attacker)
    return f"defeated by {answer}" if answer is not None else "not answered"


def _defence(solution: Solution, argument: str) -> list[str]:
    lines = []
    for attack in solution.attacks_on(argument):
        if attack.defeat:
            lines.append(f"    attacked by {_strike(attack)}, {_answer(solution, attack.attacker)}")
        else:
            lines.append(
                f"    attacked by {_strike(attack)}, which fails: the attacker is strictly"
                f" weaker under {solution.ordering}"
            )
    return lines or ["    it has no attackers"]


def _failures(solution: Solution, argument: str, label: str) -> list[str]:
    wanted = "in" if label == "out" else "undecided"
    lines = []
    for attack in solution.attacks_on(argument):
        if attack.defeat and solution.label(attack.attacker) == wanted:
            state = "in the grounded extension" if wanted == "in" else "itself undecided"
            lines.append(f"    defeated by {_strike(attack)}, {state}")
    return lines


def explain(solution: Solution, literal: Literal) -> list[str]:
    """Lines explaining the grounded status of `literal` (and its acceptance when the
    solution's semantics is not grounded)."""
    status = solution.status(literal)
    supporting = [argument.name for argument in solution.arguments_for(literal)]
    lines = [f"{literal} is {status}"]
    if not supporting:
        lines[0] += ": no argument concludes it"
    elif status == "justified":
        accepted = [name for name in supporting if name in solution.grounded]
        lines[0] += f": argument {accepted[0]} is in the grounded extension"
        lines += _defence(solution, accepted[0])
    else:
        lines[0] += (
            ": every argument for it is defeated by the grounded extension"
            if status == "overruled"
            else ": no argument for it is accepted, and not every one is defeated"
        )
        for name in supporting:
            label = solution.label(name)
            lines.append(f"  argument {name} is {label}")
            lines += _failures(solution, name, label)
    if solution.semantics != "grounded":
        acceptance = solution.acceptance(literal)
        held = set(supporting)
        count = sum(1 for extension in solution.extensions if not held.isdisjoint(extension))
        listed = f"{len(solution.extensions)} extensions"
        if solution.more_extensions:
            listed = f"the first {listed} listed (more exist)"
        if not solution.exists:
            lines.append(f"  under {solution.semantics} semantics: no extension exists")
        else:
            lines.append(
                f"  under {solution.semantics} semantics: in {count} of {listed}"
                f" (credulous: {acceptance.credulous}, skeptical: {acceptance.skeptical})"
            )
    return lines
