"""Bringing a generated theory to a level's scale (the released taskset's number of
directives) with unrelated derivations, which neither attack nor support anything else."""

from __future__ import annotations

from argc.tasks.builder import Builder


def fill(builder: Builder, size: int, strict_share: float, axiom_share: float) -> int:
    """Unrelated derivations of one to three rules (a junction three times in ten) until the
    builder holds `size` directives; returns how many were added."""
    rng = builder.rng
    count = 0
    while len(builder.directives) < size:
        builder.derivation(rng.randint(1, 3), int(rng.random() < 0.3), strict_share, axiom_share)
        count += 1
    return count
