"""IR → ASP facts: the input predicates the encodings in `argc.asp` read."""

from __future__ import annotations

from argc.dsl.ir import Literal, Theory


def literal_term(literal: Literal) -> str:
    """`a` → `pos("a")`, `-a` → `neg("a")`."""
    return f'{"neg" if literal.negated else "pos"}("{literal.atom}")'


def theory_facts(theory: Theory) -> str:
    """The theory as ASP facts, one per line."""
    lines: list[str] = []
    lines += [f"axiom({literal_term(literal)})." for literal in theory.axioms]
    lines += [f"premise({literal_term(literal)})." for literal in theory.premises]
    for rule in theory.rules:
        name = f'"{rule.name}"'
        lines.append(f"rule({name}, {literal_term(rule.head)}).")
        lines.append(f"{rule.kind}({name}).")
        lines.append(f"body_size({name}, {len(rule.body)}).")
        lines += [
            f"body({name}, {index}, {literal_term(literal)})."
            for index, literal in enumerate(rule.body, start=1)
        ]
    lines += [
        f'rule_pref("{preference.weaker}", "{preference.stronger}").'
        for preference in theory.rule_preferences
    ]
    lines += [
        f"premise_pref({literal_term(preference.weaker)}, {literal_term(preference.stronger)})."
        for preference in theory.premise_preferences
    ]
    lines += [
        f"contrary({literal_term(contrary.attacker)}, {literal_term(contrary.attacked)})."
        for contrary in theory.contraries
    ]
    lines += [f"query({literal_term(literal)})." for literal in theory.queries]
    return "\n".join(lines) + "\n"
