"""Surface variation of a normative world: the same structure under other names and in
another order.

`surface_variant` renames every constant (consistently, to people of the vocabulary the
world does not name), gives the rule ids another prefix (`r3` -> `sec3`; priorities follow)
and reorders the facts, identity rules, norms and priorities. The verdict is the same up to
the renaming: a rule keeps its number, so rule ids sort as before and the minimal support's
tie-break (the first by sorted rule names) picks the same rules.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from argc.compiler.norms.verdict import Verdict
from argc.dsl.norms import Atom, Fact, IdentityRule, Norm, Priority, Query, World
from argc.dsl.norms.world import is_variable
from argc.tasks.norms.vocabulary import PEOPLE, RULE_PREFIXES

_NUMBERED = re.compile(r"(.*?)(\d+)\Z")


def reorder(world: World, rng: random.Random) -> World:
    """The world with its facts, identity rules, norms and priorities shuffled (each group
    in itself; identifiers and rule bodies unchanged)."""
    groups = [list(world.facts), list(world.identities), list(world.norms), list(world.priorities)]
    for group in groups:
        rng.shuffle(group)
    facts, identities, norms, priorities = (tuple(group) for group in groups)
    return World(facts, identities, norms, priorities, world.query)


def constants(world: World) -> list[str]:
    """The constants a world names, sorted."""
    atoms = [fact.atom for fact in world.facts]
    atoms += [atom for rule in world.identities for atom in (*rule.body, rule.head)]
    atoms += [atom for norm in world.norms for atom in (*norm.body, norm.action)]
    atoms += [world.query.action] if world.query is not None else []
    return sorted({term for atom in atoms for term in atom.arguments if not is_variable(term)})


@dataclass(frozen=True)
class Renaming:
    """Old name -> new name, for constants and for rule ids."""

    entities: dict[str, str]
    rules: dict[str, str]

    def atom(self, atom: Atom) -> Atom:
        return Atom(atom.predicate, tuple(self.entities.get(t, t) for t in atom.arguments))

    def world(self, world: World) -> World:
        atoms = self.atom
        return World(
            tuple(Fact(atoms(fact.atom)) for fact in world.facts),
            tuple(
                IdentityRule(tuple(map(atoms, rule.body)), atoms(rule.head))
                for rule in world.identities
            ),
            tuple(
                Norm(self.rules[n.name], tuple(map(atoms, n.body)), n.label, atoms(n.action))
                for n in world.norms
            ),
            tuple(Priority(self.rules[p.stronger], self.rules[p.weaker]) for p in world.priorities),
            None if world.query is None else Query(atoms(world.query.action)),
        )

    def verdict_json(self, verdict: Verdict) -> dict:
        """The verdict's JSON with every name renamed (lists sorted again)."""
        rule = self.rules.get

        def pairs(found) -> list[list[str]]:
            return sorted([rule(a, a), rule(b, b)] for a, b in found)

        return canonical_verdict(
            {
                "query": str(self.atom(verdict.query)),
                "answer": verdict.answer,
                "labels": {label: [rule(r, r) for r in rs] for label, rs in verdict.labels.items()},
                "decisive": [rule(r, r) for r in verdict.decisive],
                "defeated": [rule(r, r) for r in verdict.defeated],
                "statuses": {rule(r, r): status for r, status in verdict.statuses.items()},
                "attacks": pairs(verdict.attacks),
                "defeats": pairs(verdict.defeats),
                "support": {
                    "rules": [rule(r, r) for r in verdict.support.rules],
                    "facts": [str(self.atom(fact)) for fact in verdict.support.facts],
                },
            }
        )


def canonical_verdict(found: dict) -> dict:
    """A verdict's JSON with every list sorted and every mapping in key order."""
    return {
        **found,
        "labels": {label: sorted(rules) for label, rules in sorted(found["labels"].items())},
        "decisive": sorted(found["decisive"]),
        "defeated": sorted(found["defeated"]),
        "statuses": dict(sorted(found["statuses"].items())),
        "attacks": sorted(found["attacks"]),
        "defeats": sorted(found["defeats"]),
        "support": {key: sorted(values) for key, values in found["support"].items()},
    }


def _rule_renaming(world: World, rng: random.Random) -> dict[str, str]:
    """Rule ids under another prefix. Ids `PREFIX<number>` with one prefix keep their numbers;
    other ids are numbered in their sorted order, zero-padded, so the order is kept."""
    names = [norm.name for norm in world.norms]
    matches = [_NUMBERED.match(name) for name in names]
    prefixes = {match.group(1) for match in matches if match is not None}
    if names and all(matches) and len(prefixes) == 1:
        numbers = [match.group(2) for match in matches if match is not None]
    else:
        width = len(str(len(names)))
        numbers = [str(sorted(names).index(name) + 1).zfill(width) for name in names]
    taken = {fact.atom.predicate for fact in world.facts if not fact.atom.arguments}
    options = [prefix for prefix in RULE_PREFIXES if prefix not in prefixes]
    rng.shuffle(options)
    for prefix in options:
        renamed = {name: f"{prefix}{number}" for name, number in zip(names, numbers, strict=True)}
        if not taken & set(renamed.values()):
            return renamed
    raise ValueError("no rule prefix gives ids that differ from the world's 0-ary facts")


def surface_renaming(world: World, rng: random.Random) -> Renaming:
    """A renaming of the world's constants to people it does not name, and of its rule ids
    to another prefix."""
    names = constants(world)
    used = set(names) | {norm.name for norm in world.norms}
    pool = [person for person in PEOPLE if person not in used]
    if len(pool) < len(names):
        raise ValueError(f"the vocabulary has too few people to rename {len(names)} constants")
    return Renaming(
        dict(zip(names, rng.sample(pool, len(names)), strict=True)), _rule_renaming(world, rng)
    )


def surface_pair(world: World, rng: random.Random) -> tuple[World, Renaming]:
    """A surface variant of the world and the renaming that made it."""
    renaming = surface_renaming(world, rng)
    return reorder(renaming.world(world), rng), renaming


def surface_variant(world: World, rng: random.Random) -> World:
    """The world renamed (constants, rule ids) and reordered; same verdict up to the
    renaming."""
    return surface_pair(world, rng)[0]
