"""placeholder"""

from __future__ import annotations

import random

from argc.dsl.ir import (
    Axiom,
    Literal,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)


def arggym_theory(size: int, index: int) -> Theory:
    """An ArgGYM-like theory with (close to) `size` directives, deterministic per (size, index)."""
    rng = random.Random(size * 1_000 + index)
    depth = 4 if size <= 50 else 5 if size <= 150 else 6
    n_axioms = max(1, round(0.04 * size))
    n_premises = max(2, round(0.20 * size))
    n_defeasible = max(2, round(0.36 * size))
    n_undercutters = max(1, round(0.05 * size))
    n_strict = max(1, round(0.07 * size))

    atoms = iter(f"p{i}" for i in range(10 * size + 100))
    level: dict[Literal, int] = {}
    axioms: list[Literal] = []
    premises: list[Literal] = []
    for _ in range(n_axioms):
        literal = Literal(next(atoms), rng.random() < 0.3)
        axioms.append(literal)
        level[literal] = 0
    for _ in range(n_premises):
        if premises and rng.random() < 0.2:
            literal = rng.choice(premises).complement
            if literal in level:
                continue
        else:
            literal = Literal(next(atoms), rng.random() < 0.3)
        premises.append(literal)
        level[literal] = 0

    by_level: list[list[Literal]] = [list(level)] + [[] for _ in range(depth)]
    rules: list[Rule] = []
    signatures: set[tuple[frozenset[Literal], Literal]] = set()
    defeasible_heads: list[Literal] = []
    firm = set(axioms)

    def body_for(top: int) -> tuple[Literal, ...]:
        chain = rng.choice(by_level[top - 1] or by_level[0])
        body = [chain]
        if rng.random() < 0.3:
            other = rng.choice(by_level[rng.randrange(top)])
            if other != chain:
                body.append(other)
        return tuple(body)

    def add(name: str, body: tuple[Literal, ...], head: Literal, strict: bool) -> bool:
        if (frozenset(body), head) in signatures or head in body or head.complement in body:
            return False
        signatures.add((frozenset(body), head))
        rules.append(Rule(name, body, head, strict=strict))
        top = max(level[b] for b in body) + 1
        if head not in level:
            level[head] = min(top, depth)
            by_level[level[head]].append(head)
        return True

    for i in range(n_defeasible):
        top = 1 + i * depth // n_defeasible
        body = body_for(top)
        roll = rng.random()
        candidates = [h for h in defeasible_heads if level[h] >= top - 1]
        if roll < 0.25 and candidates:
            head = rng.choice(candidates).complement
        elif roll < 0.35 and premises:
            head = rng.choice(premises).complement
        else:
            head = Literal(next(atoms), rng.random() < 0.3)
        if head in firm or head.complement in firm:
            continue
        if add(f"d{i}", body, head, strict=False):
            defeasible_heads.append(head)
    for i in range(n_strict):
        top = rng.randrange(1, depth + 1)
        body = body_for(top)
        if rng.random() < 0.3 and defeasible_heads:
            head = rng.choice(defeasible_heads).complement
        else:
            head = Literal(next(atoms), rng.random() < 0.3)
        if head in firm or head.complement in firm:
            continue
        add(f"s{i}", body, head, strict=True)
    targets = [rule.name for rule in rules if not rule.strict]
    for i, target in enumerate(rng.sample(targets, min(n_undercutters, len(targets)))):
        body = body_for(rng.randrange(1, depth + 1))
        add(f"u{i}", body, Literal(target, negated=True), strict=False)

    knowledge = len(axioms) + len(premises) + len(rules)
    remaining = max(0, size - knowledge)
    defeasible = [rule for rule in rules if not rule.strict]
    rank = {rule.name: rng.random() for rule in defeasible}
    rivals: dict[Literal, list[str]] = {}
    for rule in defeasible:
        rivals.setdefault(rule.head, []).append(rule.name)
    conflicts = [
        (a, b)
        for rule in defeasible
        for a in [rule.name]
        for b in rivals.get(rule.head.complement, []) + (
            [rule.head.atom] if rule.head.negated and rule.head.atom in rank else []
        )
    ]
    rule_pairs: list[tuple[str, str]] = []
    seen: set[frozenset[str]] = set()
    want_rules = min(remaining - remaining // 3, len(defeasible) * (len(defeasible) - 1) // 2)
    attempts = 0
    while len(rule_pairs) < want_rules and attempts < 20 * size:
        attempts += 1
        if conflicts and rng.random() < 0.5:
            a, b = rng.choice(conflicts)
        else:
            a, b = (rule.name for rule in rng.sample(defeasible, 2))
        if frozenset((a, b)) in seen:
            continue
        seen.add(frozenset((a, b)))
        rule_pairs.append((a, b) if rank[a] > rank[b] else (b, a))
    premise_rank = {premise: rng.random() for premise in premises}
    premise_conflicts = [(p, p.complement) for p in premises if p.complement in premise_rank]
    premise_pairs: list[tuple[Literal, Literal]] = []
    seen_premises: set[frozenset[Literal]] = set()
    want_premises = min(remaining - len(rule_pairs), len(premises) * (len(premises) - 1) // 2)
    attempts = 0
    while len(premise_pairs) < want_premises and attempts < 20 * size:
        attempts += 1
        if premise_conflicts and rng.random() < 0.5:
            a, b = rng.choice(premise_conflicts)
        else:
            a, b = rng.sample(premises, 2)
        if frozenset((a, b)) in seen_premises:
            continue
        seen_premises.add(frozenset((a, b)))
        premise_pairs.append((a, b) if premise_rank[a] > premise_rank[b] else (b, a))
    return Theory.from_directives(
        [
            *(Axiom(literal) for literal in axioms),
            *(Premise(literal) for literal in premises),
            *rules,
            *(RulePreference(a, b) for a, b in rule_pairs),
            *(PremisePreference(a, b) for a, b in premise_pairs),
        ]
    )
