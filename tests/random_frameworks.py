"""Random abstract argumentation frameworks for property tests (deterministic per seed)."""

from __future__ import annotations

import random

from argc.dsl.iccma import Framework


def random_framework(seed: int, most: int = 8) -> Framework:
    """Up to `most` arguments a0, a1, ... with attacks (self-attacks included) drawn at a
    density chosen per framework."""
    rng = random.Random(seed)
    names = [f"a{index}" for index in range(rng.randint(0, most))]
    density = rng.choice((0.1, 0.2, 0.3, 0.5))
    attacks = [(a, b) for a in names for b in names if rng.random() < density]
    return Framework(tuple(names), tuple(attacks))
