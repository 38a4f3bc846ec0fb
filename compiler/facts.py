"""IR → ASP facts: the input predicates the encodings in `argc.asp` read."""

from __future__ import annotations

from collections.abc import Iterable

from argc.dsl.ir import (
    Axiom,
    Contradictory,
    Contrary,
    Directive,
    Literal,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)

#: The input predicates of preferences: theories that differ only in these share their
#: arguments and attacks (`argc.compiler.batch`).
PREFERENCE_INPUTS = ("rule_pref", "premise_pref")


def literal_term(literal: Literal) -> str:
    """`a` → `pos("a")`, `-a` → `neg("a")`."""
    return f'{"neg" if literal.negated else "pos"}("{literal.atom}")'


def directive_atoms(directive: Directive) -> list[str]:
    """The input atoms (without the final period) one knowledge, rule, preference, contrary or
    contradictory directive stands for; header directives stand for none."""
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
        case Contradictory(first=first, second=second):
            return [f"contradictory({literal_term(first)}, {literal_term(second)})"]
    return []


def cyclic_components(rules: Iterable[Rule]) -> list[list[Literal]]:
    """The strongly connected components of the literal dependency graph (an edge from each
    antecedent of a rule to its head) that contain a cycle: more than one literal, or one
    literal that a rule derives from itself. Only inside such a component can an argument
    for an antecedent contain the rule's head, so only there the encodings check that no
    conclusion repeats on a branch. Tarjan's algorithm, iterative, linear in the rules."""
    number: dict[Literal, int] = {}
    literals: list[Literal] = []
    successors: list[list[int]] = []
    looped: set[int] = set()
    for rule in rules:
        head = number.get(rule.head)
        if head is None:
            head = number[rule.head] = len(literals)
            literals.append(rule.head)
            successors.append([])
        for literal in rule.body:
            node = number.get(literal)
            if node is None:
                node = number[literal] = len(literals)
                literals.append(literal)
                successors.append([])
            successors[node].append(head)
            if node == head:
                looped.add(node)
    unseen = -1
    index = [unseen] * len(literals)
    lowest = [0] * len(literals)
    on_stack = [False] * len(literals)
    stack: list[int] = []
    found: list[list[Literal]] = []
    counter = 0
    for root in range(len(literals)):
        if index[root] != unseen:
            continue
        index[root] = lowest[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, iter(successors[root]))]
        while work:
            node, pending = work[-1]
            for child in pending:
                if index[child] == unseen:
                    index[child] = lowest[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack[child] = True
                    work.append((child, iter(successors[child])))
                    break
                if on_stack[child] and index[child] < lowest[node]:
                    lowest[node] = index[child]
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    if lowest[node] < lowest[parent]:
                        lowest[parent] = lowest[node]
                if lowest[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack[member] = False
                        component.append(literals[member])
                        if member == node:
                            break
                    if len(component) > 1 or node in looped:
                        found.append(component)
    return found


def component_atoms(rules: Iterable[Rule]) -> list[str]:
    """`component(L, K)` for each literal L on a cycle of the dependency graph, K (from 1)
    numbering its component (see `cyclic_components`)."""
    return [
        f"component({literal_term(literal)}, {number})"
        for number, component in enumerate(cyclic_components(rules), start=1)
        for literal in component
    ]


def theory_facts(theory: Theory) -> str:
    """The theory as ASP facts, one per line, with the cyclic components of its rules."""
    lines = [atom for directive in theory.directives() for atom in directive_atoms(directive)]
    lines += [f"query({literal_term(literal)})" for literal in theory.queries]
    lines += component_atoms(theory.rules)
    return "".join(f"{line}.\n" for line in lines)
