"""IR → ASP facts: the input predicates the encodings in `argc.asp` read."""

from __future__ import annotations

from argc.dsl.ir import (
    Axiom,
    Contrary,
    Directive,
    Literal,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)


def literal_term(literal: Literal) -> str:
    """`a` → `pos("a")`, `-a` → `neg("a")`."""
    return f'{"neg" if literal.negated else "pos"}("{literal.atom}")'


def directive_atoms(directive: Directive) -> list[str]:
    """The input atoms (without the final period) one knowledge, rule, preference or
    contrary directive stands for; header directives stand for none."""
    match directive:
        case Axiom(literal=literal):
            return [f"axiom({literal_term(literal)})"]
        case Premise(literal=literal):
            return [f"premise({literal_term(literal)})"]
        case Rule(name=name, body=body, head=head):
            return [
                f'rule("{name}", {literal_term(head)})',
                f'{directive.kind}("{name}")',
                f'body_size("{name}", {len(body)})',
                *(
                    f'body("{name}", {index}, {literal_term(literal)})'
                    for index, literal in enumerate(body, start=1)
                ),
            ]
        case RulePreference(stronger=stronger, weaker=weaker):
            return [f'rule_pref("{weaker}", "{stronger}")']
        case PremisePreference(stronger=stronger, weaker=weaker):
            return [f"premise_pref({literal_term(weaker)}, {literal_term(stronger)})"]
        case Contrary(attacker=attacker, attacked=attacked):
            return [f"contrary({literal_term(attacker)}, {literal_term(attacked)})"]
    return []


def theory_facts(theory: Theory) -> str:
    """The theory as ASP facts, one per line."""
    lines = [atom for directive in theory.directives() for atom in directive_atoms(directive)]
    lines += [f"query({literal_term(literal)})" for literal in theory.queries]
    return "".join(f"{line}.\n" for line in lines)
