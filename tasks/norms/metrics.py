"""Metrics of change-record answers (NormWorlds-CF §4): per answer from the submitted and the
gold record, over a run, and an exact McNemar test between two runs on the same items.

Per answer: relation accuracy (four-way exact), relation-family accuracy (invariant against
change), wrong-family error, all-changes exact (the four change fields, relation aside),
change presence (the share of the four change fields whose emptiness matches the gold one:
answer kind and non-empty slots, items aside) and class-conditioned MR (`credit.mr_credit`).
An unreadable answer is wrong on every count and a wrong-family error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from math import comb

from argc.tasks.norms.credit import CHANGE_FIELDS, family, mr_credit

#: The exact (0/1) metrics, each a rate over a run.
EXACT = ("relation", "relation_family", "wrong_family", "all_changes_exact")
#: The soft metrics, each a mean over a run.
SOFT = ("change_presence", "class_conditioned_mr")


def _empty(record: dict, field: str) -> bool:
    value = record[field]
    if value is None or value == {}:
        return True
    return (
        isinstance(value, dict) and set(value) == {"added", "removed"} and not any(value.values())
    )


def answer_metrics(submitted: dict | None, gold: dict) -> dict[str, float]:
    """Every metric of one answer (1.0 or 0.0 for the exact ones)."""
    if submitted is None:
        return {**dict.fromkeys(EXACT, 0.0), "wrong_family": 1.0, **dict.fromkeys(SOFT, 0.0)}
    same_family = family(submitted["relation"]) == family(gold["relation"])
    return {
        "relation": float(submitted["relation"] == gold["relation"]),
        "relation_family": float(same_family),
        "wrong_family": float(not same_family),
        "all_changes_exact": float(all(submitted[f] == gold[f] for f in CHANGE_FIELDS)),
        "change_presence": sum(_empty(submitted, f) == _empty(gold, f) for f in CHANGE_FIELDS)
        / len(CHANGE_FIELDS),
        "class_conditioned_mr": mr_credit(submitted, gold),
    }


def run_metrics(answers: Sequence[tuple[dict | None, dict]]) -> dict:
    """The metrics over a run's (submitted or None, gold) answers: rates and means, and per
    gold relation the number of items and how many got the relation right."""
    rows = [answer_metrics(submitted, gold) for submitted, gold in answers]
    n = len(rows)
    totals = {name: sum(row[name] for row in rows) / n if n else None for name in EXACT + SOFT}
    relations: Counter[str] = Counter(gold["relation"] for _, gold in answers)
    right: Counter[str] = Counter(
        gold["relation"] for (_, gold), row in zip(answers, rows, strict=True) if row["relation"]
    )
    return {
        "n": n,
        **totals,
        "per_relation": {
            name: {"n": relations[name], "right": right[name]} for name in sorted(relations)
        },
    }


def mcnemar(first: Sequence[bool], second: Sequence[bool]) -> dict:
    """The exact McNemar test of two paired 0/1 outcomes: b items right only in the first,
    c only in the second, and the two-sided p-value of the binomial test of b against
    b + c trials at 1/2 (1 when no item differs)."""
    if len(first) != len(second):
        raise ValueError("McNemar's test needs the same items in both runs")
    b = sum(1 for x, y in zip(first, second, strict=True) if x and not y)
    c = sum(1 for x, y in zip(first, second, strict=True) if y and not x)
    n = b + c
    tail = sum(comb(n, k) for k in range(min(b, c) + 1)) / 2**n if n else 1.0
    return {"b": b, "c": c, "p": min(1.0, 2 * tail)}
