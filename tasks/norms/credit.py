"""Credit for a change record against the gold one: the three reward geometries the
NormWorlds-CF study compares (answer-only, sparse, MR-aware), as plain functions of the two
records (the JSON form of `argc norms diff`, normalised by the change-record scorer).

MR credit (`mr_credit`), with weights w = MRWeights(family, relation, fields) summing to 1:

    R = (w.family * [same relation family] + w.relation * [same relation] + w.fields * C) * P

The relation family is invariant (surface_invariant, distractor_invariant) or change
(support_delta, priority_delta). C is the mean of the four change fields' credits, each with
precision as well as recall: answer_change exact (1 or 0), and for support, status and
attack changes the F1 of the submitted items against the gold ones (added and removed items,
`rule from -> to` triples), 1 when both are empty. For an invariant gold pair every gold
field is empty, so C is the share of the four fields left empty (the emptiness terms); for a
change pair it is the per-field change credit.

P, the record's precision (`record_precision`), is (c + 1) / (s + 1) for s submitted change
items of which c are in the gold record: 1 for a record that invents nothing, falling with
every invented item, towards 0 for a record that lists every possible change. A field's
credit alone can cost at most its weight, however many items it invents; P makes each
invented item cost. A wrong-family relation still scores below a right-family wrong subtype
with the same fields (P is the same for both), and the sparse reward gives both 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

INVARIANT_RELATIONS = ("surface_invariant", "distractor_invariant")
CHANGE_RELATIONS = ("support_delta", "priority_delta")
CHANGE_FIELDS = ("answer_change", "support_change", "status_change", "attack_change")


@dataclass(frozen=True)
class MRWeights:
    """The weights of the MR credit's terms (non-negative, summing to 1)."""

    family: float = 0.3
    relation: float = 0.3
    fields: float = 0.4

    def __post_init__(self) -> None:
        values = (self.family, self.relation, self.fields)
        if (
            any(not isinstance(v, int | float) or v < 0 for v in values)
            or abs(sum(values) - 1) > 1e-9
        ):
            raise ValueError(f"MR weights must be non-negative and sum to 1, not {values}")


def family(relation: str) -> str:
    """`invariant` or `change` (`unknown` for anything else)."""
    if relation in INVARIANT_RELATIONS:
        return "invariant"
    return "change" if relation in CHANGE_RELATIONS else "unknown"


def _items(record: dict, field: str) -> set[Hashable]:
    """The items of a change field, as a set."""
    value = record[field]
    if field == "answer_change":
        return set() if value is None else {(value["from"], value["to"])}
    if field == "status_change":
        return {(rule, moved["from"], moved["to"]) for rule, moved in value.items()}
    return {
        (key, tuple(item) if isinstance(item, list) else item)
        for key in ("added", "removed")
        for item in value[key]
    }


def f1(found: Iterable[Hashable], gold: Iterable[Hashable]) -> float:
    """F1 of two sets; 1 when both are empty."""
    found, gold = set(found), set(gold)
    if not found and not gold:
        return 1.0
    common = len(found & gold)
    return 2 * common / (len(found) + len(gold))


def field_credit(submitted: dict, gold: dict) -> float:
    """C: the mean of the four change fields' credits (answer change exact, F1 of the
    others), the emptiness terms where the gold pair is invariant."""
    credits = [float(submitted["answer_change"] == gold["answer_change"])]
    credits += [f1(_items(submitted, field), _items(gold, field)) for field in CHANGE_FIELDS[1:]]
    return sum(credits) / len(credits)


def record_precision(submitted: dict, gold: dict) -> float:
    """P: (c + 1) / (s + 1) for the s change items of the submitted record, c of them in the
    gold record; 1 when nothing is invented."""
    found = {(field, item) for field in CHANGE_FIELDS for item in _items(submitted, field)}
    right = {(field, item) for field in CHANGE_FIELDS for item in _items(gold, field)}
    return (len(found & right) + 1) / (len(found) + 1)


def mr_credit(submitted: dict, gold: dict, weights: MRWeights = MRWeights()) -> float:
    """The MR-aware credit in [0, 1]."""
    same_family = family(submitted["relation"]) == family(gold["relation"])
    same_relation = submitted["relation"] == gold["relation"]
    structure = (
        weights.family * same_family
        + weights.relation * same_relation
        + weights.fields * field_credit(submitted, gold)
    )
    return structure * record_precision(submitted, gold)


def answer_credit(submitted: dict, gold: dict) -> float:
    """Answer-only: 1 when the answer change (or its absence) is right."""
    return float(submitted["answer_change"] == gold["answer_change"])


def sparse_credit(submitted: dict, gold: dict) -> float:
    """Sparse: 1 for the exact record (relation and every change field), else 0."""
    return float(submitted == gold)
