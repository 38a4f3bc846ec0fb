"""Paired-world change records: how a variant world's verdict differs from its root's.

The relation names the mechanism of change, computed from the two worlds and their solved
theories:

- `surface_invariant`: the same facts, rules, priorities and query (order aside);
- `support_delta`: the arguments bearing on the queried action differ (a rule applies or
  stops applying, or rests on other facts);
- `priority_delta`: those arguments are the same but the priorities between their rules
  (closed transitively) differ;
- `distractor_invariant`: the worlds differ only in what bears on no argument about the
  queried action.

The change fields come from the two verdicts: `answer_change` (`{"from", "to"}`, or None),
`support_change` (rules and facts `added` to and `removed` from the minimal support),
`status_change` (rule: `{"from", "to"}`, `inapplicable` where the rule does not bear on the
action in one world) and `attack_change` (rule-level attacks `added` and `removed`).
"""

from __future__ import annotations

from dataclasses import dataclass

from argc.compiler.control import Limits
from argc.compiler.norms.theory import priority_closure
from argc.compiler.norms.verdict import Verdict, solve_world
from argc.dsl.norms.world import World

RELATIONS = ("surface_invariant", "support_delta", "priority_delta", "distractor_invariant")
#: Relations under which nothing about the queried action changes.
INVARIANT = ("surface_invariant", "distractor_invariant")
#: The status of a rule that does not bear on the queried action in a world.
INAPPLICABLE = "inapplicable"


@dataclass(frozen=True)
class ChangeRecord:
    relation: str
    answer_change: dict[str, str] | None
    support_change: dict[str, list[str]]
    status_change: dict[str, dict[str, str]]
    attack_change: dict[str, list[list[str]]]

    def to_json(self) -> dict:
        return {
            "relation": self.relation,
            "answer_change": self.answer_change,
            "support_change": self.support_change,
            "status_change": self.status_change,
            "attack_change": self.attack_change,
        }


def _content(world: World) -> tuple[frozenset, ...]:
    """A world's statements as sets (order aside)."""
    return (
        frozenset(world.facts),
        frozenset(world.identities),
        frozenset(world.norms),
        frozenset(world.priorities),
        frozenset([world.query]),
    )


def _arguments(verdict: Verdict) -> frozenset[tuple]:
    """The arguments bearing on the queried action: rule, label and the facts each rests on."""
    reading = verdict.reading
    return frozenset(
        (rule, reading.label_of[argument], frozenset(reading.facts(argument)))
        for argument, rule in reading.rule_of.items()
    )


def _priorities(world: World, verdict: Verdict) -> frozenset[tuple[str, str]]:
    """The transitive priorities between rules bearing on the queried action."""
    rules = set(verdict.statuses)
    return frozenset(
        (stronger, weaker)
        for stronger, weaker in priority_closure(world)
        if stronger in rules and weaker in rules
    )


def relation(before: Verdict, after: Verdict) -> str:
    """The relation between the worlds of two verdicts (see the module's docstring)."""
    if _content(before.world) == _content(after.world):
        return "surface_invariant"
    if _arguments(before) != _arguments(after):
        return "support_delta"
    if _priorities(before.world, before) != _priorities(after.world, after):
        return "priority_delta"
    return "distractor_invariant"


def _support_items(verdict: Verdict) -> set[str]:
    return {*verdict.support.rules, *(str(fact) for fact in verdict.support.facts)}


def _added_removed(before: set, after: set) -> dict[str, list]:
    return {"added": sorted(after - before), "removed": sorted(before - after)}


def change_record(before: Verdict, after: Verdict) -> ChangeRecord:
    """The change record from a root world's verdict to a variant's."""
    if before.query != after.query:
        raise ValueError(
            f"the worlds ask about different actions: {before.query} and {after.query}"
        )
    statuses = {}
    for rule in sorted({*before.statuses, *after.statuses}):
        old = before.statuses.get(rule, INAPPLICABLE)
        new = after.statuses.get(rule, INAPPLICABLE)
        if old != new:
            statuses[rule] = {"from": old, "to": new}
    attacks = _added_removed(set(before.attacks), set(after.attacks))
    return ChangeRecord(
        relation(before, after),
        None if before.answer == after.answer else {"from": before.answer, "to": after.answer},
        _added_removed(_support_items(before), _support_items(after)),
        statuses,
        {key: [list(pair) for pair in pairs] for key, pairs in attacks.items()},
    )


def diff_worlds(root: World, variant: World, limits: Limits | None = None) -> ChangeRecord:
    """Solve two worlds and compare them."""
    return change_record(solve_world(root, limits), solve_world(variant, limits))
