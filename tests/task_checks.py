"""The contract every task's scorer must keep on its own instances."""

from __future__ import annotations

from argc.tasks import Instance, Score, score


def check_contract(instance: Instance, corrupted: str | None = None) -> Score | None:
    """The reference answer succeeds (after some reasoning text), an empty response scores 0,
    and a corrupted answer, when given, scores below 1 without success (returned)."""
    best = score(instance, f"thinking...<answer>{instance.reference}</answer>")
    assert (best.native, best.success) == (1.0, True), best.reason
    empty = score(instance, "")
    assert (empty.native, empty.success) == (0.0, False)
    if corrupted is None:
        return None
    worse = score(instance, f"<answer>{corrupted}</answer>")
    assert worse.native < 1.0 and not worse.success, worse.reason
    return worse
