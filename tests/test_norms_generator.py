"""Generated normative worlds (argc.tasks.norms): families and their variants checked against
the solver's change records and the brute force of norm_worlds.py, splits by family, surface
variants that keep the verdict, renderings that say every name, and the datasets'
determinism. The full-scale datasets run with ARGC_SLOW=1 (`-m slow`)."""

from __future__ import annotations

import collections
import functools
import json
import os
import random
import re
import subprocess
import sys

import norm_worlds
import pytest

from argc.compiler.norms.changes import change_record
from argc.compiler.norms.verdict import solve_world
from argc.dsl.norms import Query, World, parse_world
from argc.dsl.norms.world import INCOMPATIBLE
from argc.files import write_jsonl
from argc.tasks.norms.datasets import (
    family_plan,
    mr_pairs,
    pair_rows,
    surface_rows,
    surface_set,
)
from argc.tasks.norms.families import (
    FAMILY_TYPES,
    ID_FAMILY_TYPES,
    OOD_FAMILY_TYPES,
    ROLES,
    Family,
    make_family,
    split_of,
)
from argc.tasks.norms.rendering import render
from argc.tasks.norms.surface import canonical_verdict, constants, surface_pair
from argc.tasks.norms.vocabulary import DOMAINS, RULE_PREFIXES

SEEDS = range(12)


@functools.cache
def _family(family_type: str, seed: int) -> Family:
    return make_family(family_type, seed)


def _families() -> list[Family]:
    return [_family(family_type, seed) for family_type in FAMILY_TYPES for seed in SEEDS]


def _lines(rows: list[dict]) -> str:
    return "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows)


def _conflicting(first: str, second: str) -> bool:
    return (first, second) in INCOMPATIBLE or (second, first) in INCOMPATIBLE


def _chain(world: World) -> int:
    """The longest priority path, in edges (by brute force over paths)."""
    below = collections.defaultdict(list)
    for priority in world.priorities:
        below[priority.stronger].append(priority.weaker)

    def longest(name: str) -> int:
        return max((1 + longest(weaker) for weaker in below[name]), default=0)

    return max((longest(name) for name in list(below)), default=0)


# Vocabulary -----------------------------------------------------------------------------------


def test_vocabulary_has_six_domains_of_valid_names() -> None:
    assert len(DOMAINS) >= 6
    assert {"archive", "laboratory", "hospital", "library", "school", "factory"} <= {
        domain.name for domain in DOMAINS
    }
    name = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
    for domain in DOMAINS:
        names = [*domain.people, *domain.roles, *domain.relations, *domain.actions]
        assert all(name.match(n) for n in names), domain.name
        assert all("{x}" in phrase for phrase in domain.roles.values())
        assert all("{x}" in p and "{y}" in p for p in domain.relations.values())
    assert set(RULE_PREFIXES) == {"r", "rule", "n", "reg", "art", "sec"}


# Families against the solver and the brute force ---------------------------------------------


@pytest.mark.parametrize("family_type", FAMILY_TYPES)
def test_variants_have_their_roles_by_solver_and_brute_force(family_type: str) -> None:
    for seed in SEEDS:
        family = _family(family_type, seed)
        root = solve_world(family.root)
        assert root.to_json() == family.root_verdict
        assert norm_worlds.verdict(family.root).answer == root.answer
        assert set(family.variants) == set(ROLES)
        for role, variant in family.variants.items():
            record = change_record(root, solve_world(variant)).to_json()
            assert record["relation"] == role, (family.id, role)
            assert record == family.records[role]["change_record"]
            assert record == norm_worlds.change_record(family.root, variant), (family.id, role)
            assert variant.query == family.root.query
            assert variant != family.root


def test_every_world_prints_back_to_an_equal_world() -> None:
    for family in _families():
        for world in (family.root, *family.variants.values()):
            assert parse_world(world.to_text()) == world


def test_invariant_variants_change_nothing_and_deltas_change_something() -> None:
    for family in _families():
        for role, found in family.records.items():
            record = found["change_record"]
            changed = bool(
                record["answer_change"]
                or any(record["support_change"].values())
                or record["status_change"]
                or any(record["attack_change"].values())
            )
            assert changed == (role in ("support_delta", "priority_delta")), (family.id, role)


def test_surface_invariant_only_reorders() -> None:
    for family in _families():
        root, variant = family.root, family.variants["surface_invariant"]
        assert variant != root
        for group in ("facts", "identities", "norms", "priorities"):
            assert sorted(map(str, getattr(variant, group))) == sorted(
                map(str, getattr(root, group))
            )


def test_distractors_are_about_another_action() -> None:
    for family in _families():
        root, variant = family.root, family.variants["distractor_invariant"]
        added = [norm for norm in variant.norms if norm not in root.norms]
        assert added and set(root.norms) <= set(variant.norms)
        assert all(norm.action.predicate != root.query.action.predicate for norm in added)
        assert len({norm.action.predicate for norm in added}) == 1
        if family.family_type == "distractor_conflict":
            labels = [norm.label for norm in added]
            assert any(_conflicting(a, b) for a in labels for b in labels)
            # the added rules apply: asked about their action, they conflict
            subject = next(
                fact.atom.arguments[0]
                for fact in variant.facts
                if fact.atom.predicate == added[0].body[0].predicate
            )
            action = added[0].action.substitute({"X": subject})
            asked = World.build([*variant.statements()][:-1] + [Query(action)])
            assert len(solve_world(asked).attacks) >= 2
        else:
            assert len(added) == 1


@pytest.mark.parametrize("family_type", ID_FAMILY_TYPES)
def test_in_distribution_worlds_have_short_priority_paths(family_type: str) -> None:
    for seed in SEEDS:
        family = _family(family_type, seed)
        for world in (family.root, *family.variants.values()):
            assert _chain(world) <= 2, family.id


# Root situations --------------------------------------------------------------------------------


def _bearing_conflicts(world: World, verdict) -> list[tuple[str, str]]:
    rules = sorted(verdict.statuses)
    labels = {norm.name: norm.label for norm in world.norms}
    return [(a, b) for a in rules for b in rules if a < b and _conflicting(labels[a], labels[b])]


def test_partial_priority_conflict_roots_order_some_conflicts_only() -> None:
    for seed in SEEDS:
        family = _family("partial_priority_conflict", seed)
        verdict = norm_worlds.verdict(family.root)
        closure = norm_worlds.closure(family.root)
        pairs = _bearing_conflicts(family.root, verdict)
        ordered = [p for p in pairs if p in closure or p[::-1] in closure]
        assert ordered and len(ordered) < len(pairs) and len(pairs) >= 2


def test_unresolved_conflict_roots_are_unresolved() -> None:
    for seed in SEEDS:
        family = _family("unresolved_conflict", seed)
        assert norm_worlds.verdict(family.root).answer == "conflict_unresolved"


def test_multiple_compatible_overrides_roots_have_two_possible_supports() -> None:
    for seed in SEEDS:
        family = _family("multiple_compatible_overrides", seed)
        verdict = norm_worlds.verdict(family.root)
        closure = norm_worlds.closure(family.root)
        labels = {norm.name: norm.label for norm in family.root.norms}
        against = [r for r in verdict.statuses if _conflicting(labels[r], verdict.answer)]
        overriding = [r for r in verdict.decisive if all((r, c) in closure for c in against)]
        assert against and len(overriding) >= 2, family.id


def test_multiple_compatible_overrides_keep_the_answer_and_move_the_support() -> None:
    kept = 0
    for seed in range(16):
        record = _family("multiple_compatible_overrides", seed).records["support_delta"]
        change = record["change_record"]
        kept += change["answer_change"] is None and bool(change["support_change"]["removed"])
    assert kept >= 4


def test_missing_precondition_roots_have_a_rule_that_does_not_apply() -> None:
    for seed in SEEDS:
        family = _family("missing_precondition_distractor", seed)
        verdict = norm_worlds.verdict(family.root)
        idle = [n for n in family.root.norms if n.name not in verdict.statuses]
        assert idle and verdict.statuses
        assert all(n.action.predicate == family.root.query.action.predicate for n in idle)


def test_priority_chain_roots_decide_through_three_edges() -> None:
    for seed in SEEDS:
        family = _family("priority_chain", seed)
        root = family.root
        verdict = norm_worlds.verdict(root)
        direct = {(p.stronger, p.weaker) for p in root.priorities}
        two = {(a, d) for a, b in direct for c, d in direct if b == c}
        decided = [
            (winner, loser)
            for winner in verdict.decisive
            for loser in verdict.defeated
            if (winner, loser) in norm_worlds.closure(root) and (winner, loser) not in direct | two
        ]
        assert decided, family.id


def test_edits_resolve_conflicts_remove_and_introduce_conclusions() -> None:
    found = collections.Counter()
    labels = ("permitted", "forbidden", "obligated")
    for family in _families():
        for role in ("support_delta", "priority_delta"):
            change = family.records[role]["change_record"]["answer_change"]
            if change is None:
                continue
            before, after = change["from"], change["to"]
            if before == "conflict_unresolved" and after in labels:
                found[role, "resolves"] += 1
            elif before in labels and after not in labels:
                found[role, "removes"] += 1
            elif after in labels:
                found[role, "introduces"] += 1
    for role in ("support_delta", "priority_delta"):
        assert found[role, "resolves"] and found[role, "removes"], found
    assert found["support_delta", "introduces"], found


# Splits -----------------------------------------------------------------------------------------


def test_splits_by_family() -> None:
    assert {split_of(f"x-{i}", "priority_chain") for i in range(50)} == {"ood"}
    counts = collections.Counter(
        split_of(f"unresolved_conflict-{i}", "unresolved_conflict") for i in range(4000)
    )
    assert set(counts) == {"train", "dev", "test"}
    assert 0.66 < counts["train"] / 4000 < 0.74
    assert 0.08 < counts["dev"] / 4000 < 0.12
    assert 0.17 < counts["test"] / 4000 < 0.23
    with pytest.raises(ValueError, match="unknown family type"):
        split_of("x-1", "nonsense")


def _check_splits(rows: list[dict], key: str) -> None:
    splits = collections.defaultdict(set)
    for row in rows:
        splits[row[key]].add(row["split"])
        assert (row["split"] == "ood") == (row["family_type"] in OOD_FAMILY_TYPES)
        assert row["split"] == split_of(row[key], row["family_type"])
    assert all(len(found) == 1 for found in splits.values())


def test_pairs_and_renderings_stay_in_their_family_split() -> None:
    pairs = [row for family in _families() for row in pair_rows(family)]
    _check_splits(pairs, "family_id")
    surface = [row for family in _families()[::4] for row in surface_rows(family)]
    _check_splits(surface, "root_id")


# Surface variation and rendering ---------------------------------------------------------------


def _assert_same_verdict_up_to_renaming(world: World, seed: int) -> None:
    variant, renaming = surface_pair(world, random.Random(seed))
    assert parse_world(variant.to_text()) == variant
    before, after = solve_world(world), solve_world(variant)
    assert after.answer == before.answer
    assert canonical_verdict(after.to_json()) == renaming.verdict_json(before)
    back = {new: old for old, new in renaming.rules.items()}
    assert sorted(back[r] for r in after.decisive) == sorted(before.decisive)
    assert sorted(back[r] for r in after.defeated) == sorted(before.defeated)
    assert sorted(back[r] for r in after.support.rules) == sorted(before.support.rules)
    # names all changed, structure kept
    assert not set(constants(world)) & set(constants(variant))
    assert not {n.name for n in world.norms} & {n.name for n in variant.norms}
    assert len(variant.norms) == len(world.norms) and len(variant.facts) == len(world.facts)


def test_surface_variants_keep_the_verdict_of_family_roots() -> None:
    for index, family in enumerate(_families()):
        _assert_same_verdict_up_to_renaming(family.root, index)


@pytest.mark.parametrize("seed", range(40))
def test_surface_variants_keep_the_verdict_of_random_worlds(seed: int) -> None:
    _assert_same_verdict_up_to_renaming(norm_worlds.random_world(seed), seed)


def test_surface_rule_ids_take_another_prefix_and_keep_numbers() -> None:
    family = _family("partial_priority_conflict", 0)
    variant, renaming = surface_pair(family.root, random.Random(1))
    old = {re.match(r"[a-z]+", name).group() for name in renaming.rules}
    new = {re.match(r"[a-z]+", name).group() for name in renaming.rules.values()}
    assert len(old) == len(new) == 1 and old != new and new <= set(RULE_PREFIXES)
    assert all(a[-1] == b[-1] for a, b in renaming.rules.items())
    names = {n.name for n in variant.norms}
    assert {p.stronger for p in variant.priorities} | {
        p.weaker for p in variant.priorities
    } <= names


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", text) is not None


def test_renderings_mention_every_entity_and_rule() -> None:
    worlds = [family.root for family in _families()]
    worlds += [family.variants["distractor_invariant"] for family in _families()]
    worlds += [norm_worlds.random_world(seed) for seed in range(20)]
    for index, world in enumerate(worlds):
        text = render(world, random.Random(index))
        for fact in world.facts:
            assert all(_mentions(text, term) for term in fact.atom.arguments), (fact, text)
        for norm in world.norms:
            assert _mentions(text, norm.name), (norm.name, text)
        for priority in world.priorities:
            assert _mentions(text, priority.stronger) and _mentions(text, priority.weaker)
        assert _mentions(text, world.query.action.arguments[0])


def test_renderings_are_deterministic_per_rng_and_vary() -> None:
    world = _family("multiple_compatible_overrides", 0).root
    assert render(world, random.Random(5)) == render(world, random.Random(5))
    texts = [render(world, random.Random(seed)) for seed in range(30)]
    assert len(set(texts)) == len(texts)
    every = " ".join(texts)
    assert sum(p in every for p in ("takes precedence over", "overrides", "prevails")) >= 2
    assert "Facts:\n" in every and any(not text.startswith("Facts:") for text in texts)


# Datasets ---------------------------------------------------------------------------------------


def test_family_plan_spreads_types_evenly() -> None:
    plan = family_plan(270)
    assert collections.Counter(t for t, _ in plan) == dict.fromkeys(FAMILY_TYPES, 45)
    assert len(family_plan(8)) == 8
    assert not {s for _, s in family_plan(12, 0)} & {s for _, s in family_plan(12, 1)}


def test_families_are_deterministic() -> None:
    first = make_family("priority_chain", 3)
    assert make_family("priority_chain", 3) == first
    assert pair_rows(make_family("priority_chain", 3)) == pair_rows(first)
    assert make_family("priority_chain", 4).root != first.root
    with pytest.raises(ValueError, match="unknown family type"):
        make_family("nonsense", 0)


def test_datasets_are_deterministic_and_differ_by_seed() -> None:
    pairs = mr_pairs(12, seed=0)
    assert len(pairs) == 48
    assert _lines(pairs) == _lines(mr_pairs(12, seed=0))
    assert _lines(pairs) != _lines(mr_pairs(12, seed=1))
    surface = surface_set(6, seed=0)
    assert len(surface) == 24
    assert _lines(surface) == _lines(surface_set(6, seed=0))
    assert _lines(surface) != _lines(surface_set(6, seed=1))
    for row in pairs:
        assert set(row) >= {
            "family_id", "family_type", "split", "role", "root", "variant",
            "root_verdict", "variant_verdict", "change_record",
        }  # fmt: skip
    for row in surface:
        assert set(row) >= {"world", "rendering", "verdict", "root_id", "split"}
        assert parse_world(row["world"]).to_text() == row["world"]


def test_datasets_do_not_depend_on_the_hash_seed() -> None:
    script = (
        "import json, sys\n"
        "from argc.tasks.norms.datasets import mr_pairs, surface_set\n"
        "rows = mr_pairs(6, seed=2) + surface_set(6, seed=2)\n"
        "sys.stdout.write(''.join(json.dumps(r, sort_keys=True) + '\\n' for r in rows))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert outputs == {_lines(mr_pairs(6, seed=2) + surface_set(6, seed=2))}


def test_write_jsonl_writes_whole_lines(tmp_path) -> None:
    rows = mr_pairs(6)
    path = tmp_path / "pairs.jsonl"
    path.write_text("old\n")
    write_jsonl(path, rows)
    assert [json.loads(line) for line in path.read_text().splitlines()] == rows
    assert [p.name for p in tmp_path.iterdir()] == ["pairs.jsonl"]


# Full scale (ARGC_SLOW=1) ------------------------------------------------------------------------


@pytest.mark.slow
def test_full_scale_pairs() -> None:
    rows = mr_pairs()
    assert len(rows) == 1080
    types = collections.Counter(row["family_type"] for row in rows)
    assert types == dict.fromkeys(FAMILY_TYPES, 180)
    assert collections.Counter(row["role"] for row in rows) == dict.fromkeys(ROLES, 270)
    _check_splits(rows, "family_id")
    ids = {row["family_id"]: row["split"] for row in rows}
    counts = collections.Counter(ids.values())
    assert counts["ood"] == 90 and counts["train"] > counts["test"] > counts["dev"] > 0
    for row in rows:
        root, variant = parse_world(row["root"]), parse_world(row["variant"])
        assert row["change_record"]["relation"] == row["role"]
        assert row["change_record"] == norm_worlds.change_record(root, variant), row["pair_id"]


@pytest.mark.slow
def test_full_scale_surface_set() -> None:
    rows = surface_set()
    assert len(rows) == 4000
    assert len({row["root_id"] for row in rows}) == 1000
    _check_splits(rows, "root_id")
    for row in rows:
        world = parse_world(row["world"])
        for fact in world.facts:
            assert all(_mentions(row["rendering"], term) for term in fact.atom.arguments)
        assert all(_mentions(row["rendering"], norm.name) for norm in world.norms)
