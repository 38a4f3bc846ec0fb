"""Datasets of generated normative worlds, as JSON-ready rows.

- `mr_pairs(families=270, seed=0)`: root-level metamorphic pairs, the families spread evenly
  over the six family types, four pairs (one per role) a family: 1,080 rows by default.
- `surface_set(roots=1000, seed=0)`: each family root with four surface variants (renamed,
  reordered) and their English renderings: 4,000 rows by default.

Both are pure and deterministic: the same arguments give rows whose
`json.dumps(row, sort_keys=True)` are byte-identical. A family's rows are in its family's
split. `argc.files.write_jsonl` writes rows to a file atomically.
"""

from __future__ import annotations

from collections.abc import Iterator

from tqdm import tqdm

from argc.compiler import MachineLimitExceeded
from argc.compiler.norms.verdict import solve_world
from argc.tasks.framework import generation_stopped
from argc.tasks.norms.families import (
    FAMILY_TYPES,
    ROLES,
    Family,
    family_id,
    make_family,
    stream,
)
from argc.tasks.norms.rendering import render
from argc.tasks.norms.surface import canonical_verdict, surface_pair

#: Family seeds of one dataset seed: seed * SEED_STRIDE + index (index < SEED_STRIDE).
SEED_STRIDE = 1_000_000
#: Surface variants of each root in `surface_set`.
SURFACE_VARIANTS = 4


def family_plan(count: int, seed: int = 0) -> list[tuple[str, int]]:
    """(family type, family seed) of `count` families spread evenly over the family types (the
    first types take one more when `count` does not divide evenly)."""
    if count < 0:
        raise ValueError("the number of families is not negative")
    per_type, extra = divmod(count, len(FAMILY_TYPES))
    if per_type + 1 > SEED_STRIDE:
        raise ValueError(f"at most {SEED_STRIDE * len(FAMILY_TYPES)} families a seed")
    return [
        (family_type, seed * SEED_STRIDE + index)
        for position, family_type in enumerate(FAMILY_TYPES)
        for index in range(per_type + (position < extra))
    ]


def generate_families(count: int, seed: int = 0, *, desc: str = "families") -> Iterator[Family]:
    """The families of `family_plan(count, seed)`, in order."""
    plan = family_plan(count, seed)
    for family_type, family_seed in tqdm(plan, desc=desc, disable=len(plan) < 50):
        try:
            family = make_family(family_type, family_seed)
        except MachineLimitExceeded as exceeded:
            raise generation_stopped(family_id(family_type, family_seed), exceeded) from exceeded
        yield family


def pair_rows(family: Family) -> list[dict]:
    """The four canonical-to-variant pairs of a family."""
    root = family.root.to_text()
    return [
        {
            "pair_id": f"{family.id}/{role}",
            "family_id": family.id,
            "family_type": family.family_type,
            "split": family.split,
            "domain": family.domain,
            "role": role,
            "root": root,
            "variant": family.variants[role].to_text(),
            "root_verdict": family.root_verdict,
            "variant_verdict": family.records[role]["variant_verdict"],
            "change_record": family.records[role]["change_record"],
        }
        for role in ROLES
    ]


def mr_pairs(families: int = 270, seed: int = 0) -> list[dict]:
    """Root-level metamorphic pairs: four a family (1,080 for the default 270 families)."""
    found = generate_families(families, seed, desc="mr pairs")
    return [row for family in found for row in pair_rows(family)]


def surface_rows(family: Family, variants: int = SURFACE_VARIANTS) -> list[dict]:
    """Surface variants of a family's root, each with its text, English rendering, verdict and
    the renaming; checked to keep the root's verdict up to the renaming."""
    rng = stream("norm-surface", family.id)
    root_verdict = solve_world(family.root)
    rows = []
    for number in range(variants):
        world, renaming = surface_pair(family.root, rng)
        verdict = solve_world(world)
        expected = renaming.verdict_json(root_verdict)
        if canonical_verdict(verdict.to_json()) != expected:
            raise AssertionError(f"{family.id}: surface variant {number} changes the verdict")
        rows.append(
            {
                "id": f"{family.id}/surface{number}",
                "root_id": family.id,
                "family_type": family.family_type,
                "split": family.split,
                "domain": family.domain,
                "world": world.to_text(),
                "rendering": render(world, rng),
                "verdict": verdict.to_json(),
                "renaming": {"entities": renaming.entities, "rules": renaming.rules},
            }
        )
    return rows


def surface_set(roots: int = 1000, seed: int = 0) -> list[dict]:
    """Surface-varied roots: four instances a root (4,000 for the default 1,000 roots)."""
    found = generate_families(roots, seed, desc="surface set")
    return [row for family in found for row in surface_rows(family)]
