"""Canonical alpha-renaming: invariance under renamings and shuffles, and nothing more."""

from __future__ import annotations

import itertools
import random

import pytest

from argc.dsl import canonical as canonical_module
from argc.dsl.canonical import canonical
from argc.dsl.ir import (
    Axiom,
    Contradictory,
    Contrary,
    Literal,
    Ordering,
    OrderingHeader,
    Premise,
    PremisePreference,
    QueryHeader,
    Rule,
    RulePreference,
    SemanticsHeader,
    Theory,
)
from argc.dsl.parser import parse_theory

EXAMPLE = """
[axiom: a]
[premise: -b]
[premise: c]
[contrary: d ~> c]
[defeasible r1: a AND c => b]
[strict s1: b -> d]
[defeasible u: c => -r1]
[prefer_rule: r1 > u]
[prefer_premise: c > -b]
"""

HANDWRITTEN = {
    "example": EXAMPLE,
    "header": "[ordering: weakest-link democratic]\n[semantics: preferred]\n[query: -b, a, r1]\n"
    + EXAMPLE,
    "symmetric premises": "".join(f"[premise: p{i}]\n" for i in range(9))
    + "[premise: -q]\n[prefer_premise: p0 > -q]\n",
    "twin rules": """
        [premise: a] [premise: b] [premise: c]
        [defeasible d1: a AND b => x] [defeasible d2: a AND c => x]
        [defeasible d3: b AND c => x] [defeasible e1: x => -d1] [defeasible e2: x => -d2]
        [prefer_rule: d1 > d2] [prefer_rule: d2 > d3] [prefer_rule: d3 > d1]
    """,
    "six cycle": "[premise: x0]\n"
    + "".join(f"[defeasible d{i}: x{i} => x{(i + 1) % 6}]\n" for i in range(6)),
    "two three-cycles": "[premise: x0]\n[premise: x3]\n"
    + "".join(f"[defeasible d{i}: x{i} => x{i // 3 * 3 + (i + 1) % 3}]\n" for i in range(6)),
    "cycles of six, three and three": "".join(
        f"[defeasible d{i}: x{i} => x{image}]"
        for i, image in enumerate([1, 2, 3, 4, 5, 0, 7, 8, 6, 10, 11, 9])
    ),
    "rule name as body atom": """
        [premise: p] [defeasible d: p => q] [strict s: d AND q -> -s]
        [defeasible u: q => -d] [contrary: s ~> -u]
    """,
    "contradictories": """
        [premise: a] [premise: b] [premise: c] [defeasible d1: a => x] [defeasible d2: b => y]
        [defeasible d3: c => -z] [contradictory: x <-> y] [contradictory: -z <-> y]
        [contradictory: d1 <-> -x] [contradictory: c <-> -c] [prefer_rule: d1 > d2]
    """,
    "contradictory triangle": """
        [premise: a] [premise: b] [premise: c]
        [contradictory: a <-> b] [contradictory: c <-> b] [contradictory: a <-> c]
    """,
}


# Helpers -----------------------------------------------------------------------------------


def symbols(theory: Theory) -> list[str]:
    """Rule names and atoms, once each."""
    names = dict.fromkeys(rule.name for rule in theory.rules)
    names.update(dict.fromkeys(sorted(literal.atom for literal in theory.literals())))
    return list(names)


def renamed(theory: Theory, mapping: dict[str, str], rng: random.Random | None = None) -> Theory:
    """The theory under a symbol mapping, its directives (and bodies, queries) shuffled."""

    def lit(literal: Literal) -> Literal:
        return Literal(mapping.get(literal.atom, literal.atom), literal.negated)

    def name(text: str) -> str:
        return mapping.get(text, text)

    def shuffled(items):
        items = list(items)
        if rng is not None:
            rng.shuffle(items)
        return tuple(items)

    directives = [
        *(Axiom(lit(x)) for x in theory.axioms),
        *(Premise(lit(x)) for x in theory.premises),
        *(
            Rule(name(r.name), shuffled(lit(x) for x in r.body), lit(r.head), r.strict)
            for r in theory.rules
        ),
        *(RulePreference(name(p.stronger), name(p.weaker)) for p in theory.rule_preferences),
        *(PremisePreference(lit(p.stronger), lit(p.weaker)) for p in theory.premise_preferences),
        *(Contrary(lit(c.attacker), lit(c.attacked)) for c in theory.contraries),
        *(Contradictory(*shuffled((lit(c.first), lit(c.second)))) for c in theory.contradictories),
    ]
    if theory.queries:
        directives.append(QueryHeader(shuffled(lit(x) for x in theory.queries)))
    if theory.ordering is not None:
        directives.append(OrderingHeader(theory.ordering))
    if theory.semantics is not None:
        directives.append(SemanticsHeader(theory.semantics))
    return Theory.from_directives(shuffled(directives))


def random_renaming(theory: Theory, rng: random.Random, *, atoms: bool = True) -> dict[str, str]:
    """A bijective renaming of rule names (and atoms), drawn from a pool that clashes with the
    canonical names on purpose."""
    rules = {rule.name for rule in theory.rules}
    moved = [s for s in symbols(theory) if atoms or s in rules]
    kept = set(symbols(theory)) - set(moved)
    pool = [f"{p}{i}" for p in ("a", "r", "z", "rule_") for i in range(1, 40)]
    pool = [candidate for candidate in pool if candidate not in kept]
    return dict(zip(moved, rng.sample(pool, len(moved)), strict=True))


def random_theory(rng: random.Random, atoms: int = 6, rules: int = 6) -> Theory:
    """A random well-formed theory; rule names are used as atoms (undercutters and more)."""
    names = [f"p{i}" for i in range(rng.randint(2, atoms))]
    rule_names = [f"d{i}" for i in range(rng.randint(1, rules))]
    strict = {n for n in rule_names if rng.random() < 0.3}

    def literal(pool=names) -> Literal:
        return Literal(rng.choice(pool), rng.random() < 0.4)

    everything = names + rule_names
    axioms = list(dict.fromkeys(literal() for _ in range(rng.randint(0, 2))))
    premises = [x for x in dict.fromkeys(literal() for _ in range(rng.randint(1, 4)))]
    premises = [x for x in premises if x not in axioms]
    directives: list = [Axiom(x) for x in axioms] + [Premise(x) for x in premises]
    for rule_name in rule_names:
        body = tuple(dict.fromkeys(literal(everything) for _ in range(rng.randint(1, 3))))
        head = Literal(rng.choice(rule_names), True) if rng.random() < 0.25 else literal()
        directives.append(Rule(rule_name, body, head, rule_name in strict))
    defeasible = [n for n in rule_names if n not in strict]
    for _ in range(rng.randint(0, 3) if len(defeasible) > 1 else 0):
        directives.append(RulePreference(*rng.sample(defeasible, 2)))
    for _ in range(rng.randint(0, 2) if len(premises) > 1 else 0):
        directives.append(PremisePreference(*rng.sample(premises, 2)))
    for _ in range(rng.randint(0, 2)):
        attacker, attacked = literal(everything), literal(everything)
        if attacker != attacked:
            directives.append(Contrary(attacker, attacked))
    for _ in range(rng.randint(0, 2)):
        first, second = literal(everything), literal(everything)
        if first != second:
            directives.append(Contradictory(first, second))
    if rng.random() < 0.5:
        directives.append(QueryHeader(tuple(dict.fromkeys(literal(everything) for _ in range(2)))))
    if rng.random() < 0.3:
        directives.append(OrderingHeader(Ordering("weakest-link", "democratic")))
    return Theory.from_directives(directives)


def normal(theory: Theory) -> tuple:
    """Order-free form of a theory (no renaming)."""
    return (
        frozenset(theory.axioms),
        frozenset(theory.premises),
        frozenset((r.name, frozenset(r.body), r.head, r.strict) for r in theory.rules),
        frozenset((p.stronger, p.weaker) for p in theory.rule_preferences),
        frozenset((p.stronger, p.weaker) for p in theory.premise_preferences),
        frozenset((c.attacker, c.attacked) for c in theory.contraries),
        frozenset(c.pair for c in theory.contradictories),
        frozenset(theory.queries),
        theory.ordering,
        theory.semantics,
    )


def isomorphic(one: Theory, other: Theory) -> bool:
    """Brute force: some bijection of rule names and of atoms maps one theory onto the other."""
    rules_one, rules_other = [r.name for r in one.rules], [r.name for r in other.rules]
    atoms_one = [s for s in symbols(one) if s not in rules_one]
    atoms_other = [s for s in symbols(other) if s not in rules_other]
    if len(rules_one) != len(rules_other) or len(atoms_one) != len(atoms_other):
        return False
    target = normal(other)
    for rule_images in itertools.permutations(rules_other):
        for atom_images in itertools.permutations(atoms_other):
            mapping = dict(zip(rules_one + atoms_one, rule_images + atom_images, strict=True))
            if normal(renamed(one, mapping)) == target:
                return True
    return False


def theories() -> list[Theory]:
    found = [parse_theory(text) for text in HANDWRITTEN.values()]
    rng = random.Random(20240611)
    found += [random_theory(rng) for _ in range(25)]
    found += [doubled(random_theory(rng, atoms=4, rules=4)) for _ in range(5)]
    return found


# Invariance --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", HANDWRITTEN.values(), ids=HANDWRITTEN.keys())
def test_handwritten_invariant_under_renaming_and_shuffle(text: str) -> None:
    theory = parse_theory(text)
    expected = canonical(theory)
    rng = random.Random(7)
    for _ in range(8):
        other = renamed(theory, random_renaming(theory, rng), rng)
        result = canonical(other)
        assert result == expected
        assert result.to_text() == expected.to_text()


@pytest.mark.parametrize("seed", range(40))
def test_random_theories_invariant_under_renaming_and_shuffle(seed: int) -> None:
    rng = random.Random(seed)
    theory = random_theory(rng, atoms=8, rules=8)
    if seed % 4 == 0:
        theory = doubled(theory)
    expected = canonical(theory)
    for _ in range(4):
        assert canonical(renamed(theory, random_renaming(theory, rng), rng)) == expected


def test_directive_order_alone_does_not_matter() -> None:
    lines = [line for line in EXAMPLE.strip().splitlines()]
    expected = canonical(parse_theory(EXAMPLE))
    rng = random.Random(3)
    for _ in range(10):
        rng.shuffle(lines)
        assert canonical(parse_theory("\n".join(lines))) == expected


@pytest.mark.parametrize(
    "text",
    [
        "[premise: a] [premise: b] [defeasible d: a AND -b => c]",  # body polarity
        "[premise: a] [defeasible d: a => b] [defeasible e: a => -c]",  # head polarity
        "[premise: a] [strict s: a -> b] [defeasible d: a => c]",  # strict or defeasible
        "[premise: a] [premise: b] [defeasible d: a => c] [defeasible e: a AND b => c]",
        "[premise: a] [defeasible d: a => b] [defeasible e: a => c] [prefer_rule: d > e]",
        "[premise: a] [premise: b] [prefer_premise: a > b]",
        "[premise: a] [premise: -a] [premise: b] [premise: -b] [prefer_premise: a > -b]"
        " [prefer_premise: -a > b]",
        "[premise: a] [premise: b] [contrary: a ~> b]",  # contrary direction
        "[premise: a] [premise: b] [contrary: a ~> -b] [contrary: -b ~> a]",  # its polarity
        "[premise: a] [premise: b] [contradictory: a <-> -b]",  # contradictory polarity
        "[premise: a] [premise: b] [contradictory: a <-> b] [contrary: a ~> -b]",
        "[premise: a] [contradictory: a <-> -a] [contradictory: b <-> -c]",
        "[axiom: a] [axiom: -b] [premise: c] [premise: -e] [query: f, -g]",  # knowledge roles
        "[premise: a] [defeasible d: a => b] [defeasible e: a => b] [defeasible u: a => -d]",
        "[premise: a] [defeasible d: a => b] [defeasible e: a => c] [strict s: d -> b]",
    ],
)
def test_refinement_alone_separates_asymmetric_theories(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one leaf allowed, the result is invariant only if colour refinement sees every
    role and edge label (polarity, direction, strictness, undercutting)."""
    theory = parse_theory(text)
    expected = canonical(theory)
    monkeypatch.setattr(canonical_module, "LEAF_BOUND", 1)
    rng = random.Random(text)
    for _ in range(10):
        assert canonical(renamed(theory, random_renaming(theory, rng), rng)) == expected


def permutation_theory(images: list[int]) -> Theory:
    """Rules `x_i => x_images[i]`: colour refinement sees only a regular graph."""
    rules = (f"[defeasible d{i}: x{i} => x{image}]" for i, image in enumerate(images))
    return parse_theory("".join(rules))


def cycle_type(images: list[int]) -> list[int]:
    seen: set[int] = set()
    lengths = []
    for start in range(len(images)):
        length = 0
        while start not in seen:
            seen.add(start)
            start = images[start]
            length += 1
        if length:
            lengths.append(length)
    return sorted(lengths)


@pytest.mark.parametrize("seed", range(40))
def test_permutation_theories_equal_exactly_for_equal_cycle_types(seed: int) -> None:
    """Only the individualisation-refinement search tells these apart (or not)."""
    rng = random.Random(seed)
    size = rng.randint(6, 10)
    first = rng.sample(range(size), size)
    if seed % 2:  # conjugate: same cycle type, different numbering
        relabel = rng.sample(range(size), size)
        second = [0] * size
        for i in range(size):
            second[relabel[i]] = relabel[first[i]]
    else:
        second = rng.sample(range(size), size)
    one, other = permutation_theory(first), permutation_theory(second)
    other = renamed(other, random_renaming(other, rng), rng)
    assert (canonical(one) == canonical(other)) == (cycle_type(first) == cycle_type(second))


# Distinctness ------------------------------------------------------------------------------


def variants(text: str, edits: list[tuple[str, str]]) -> list[str]:
    out = []
    for old, new in edits:
        assert old in text, old
        out.append(text.replace(old, new, 1))
    return out


@pytest.mark.parametrize(
    "changed",
    variants(
        EXAMPLE,
        [
            ("[axiom: a]", "[axiom: -a]"),  # polarity of an axiom
            ("a AND c => b", "a AND -c => b"),  # polarity of a body literal
            ("c => -r1", "c => r1"),  # an undercutter becomes support
            ("c => -r1", "c => -u"),  # undercuts another rule (itself)
            ("[prefer_rule: r1 > u]", "[prefer_rule: u > r1]"),  # preference direction
            ("[prefer_premise: c > -b]", "[prefer_premise: -b > c]"),
            ("[contrary: d ~> c]", "[contrary: c ~> d]"),  # contrary direction
            ("[strict s1: b -> d]", "[defeasible s1: b => d]"),  # strict to defeasible
            ("[axiom: a]", "[premise: a]"),  # axiom to premise
            ("[strict s1: b -> d]", "[strict s1: b AND a -> d]"),  # one more antecedent
        ],
    ),
)
def test_one_change_gives_a_different_result(changed: str) -> None:
    assert canonical(parse_theory(changed)) != canonical(parse_theory(EXAMPLE))
    assert canonical(parse_theory(changed)).to_text() != canonical(parse_theory(EXAMPLE)).to_text()


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("[contradictory: a <-> b]", "[contradictory: a <-> -b]"),  # polarity
        ("[contradictory: a <-> b]", "[contrary: a ~> b] [contrary: b ~> a]"),  # the directive
        ("[contradictory: a <-> b]", "[contrary: a ~> b]"),
        ("[contradictory: a <-> -a]", "[contradictory: a <-> -b]"),
        ("[premise: a] [contradictory: a <-> b]", "[premise: a] [contradictory: -a <-> b]"),
    ],
)
def test_contradictory_declarations_are_told_apart(one: str, other: str) -> None:
    assert canonical(parse_theory(one)) != canonical(parse_theory(other))
    assert canonical(parse_theory(one)).to_text() != canonical(parse_theory(other)).to_text()


def test_the_sides_of_a_contradictory_declaration_do_not_matter() -> None:
    one = parse_theory("[premise: a] [defeasible d: a => b] [contradictory: -b <-> c]")
    other = parse_theory("[premise: a] [defeasible d: a => b] [contradictory: c <-> -b]")
    expected = "[premise: a3]\n[contradictory: -a2 <-> a1]\n[defeasible r1: a3 => a2]\n"
    assert canonical(one).to_text() == canonical(other).to_text() == expected


def test_regular_structures_colour_refinement_cannot_tell_apart() -> None:
    """One 6-cycle of rules and two 3-cycles look alike locally; the search tells them apart."""
    six = "".join(f"[defeasible d{i}: x{i} => x{(i + 1) % 6}]" for i in range(6))
    two = "".join(f"[defeasible d{i}: x{i} => x{i // 3 * 3 + (i + 1) % 3}]" for i in range(6))
    assert canonical(parse_theory(six)) != canonical(parse_theory(two))
    assert canonical(parse_theory(six)).to_text() != canonical(parse_theory(two)).to_text()


def test_header_queries_and_settings_count() -> None:
    base = parse_theory(HANDWRITTEN["header"])
    assert canonical(base).ordering == Ordering("weakest-link", "democratic")
    assert canonical(base).semantics == "preferred"
    other = parse_theory(HANDWRITTEN["header"].replace("[query: -b, a, r1]", "[query: b, a, r1]"))
    assert canonical(other) != canonical(base)
    grounded = HANDWRITTEN["header"].replace("preferred", "grounded")
    assert canonical(parse_theory(grounded)) != canonical(base)


def flip_head(theory: Theory, name: str) -> Theory:
    """The theory with rule `name`'s head negated."""
    rule = theory.rule(name)
    flipped = Rule(rule.name, rule.body, rule.head.complement, rule.strict)
    return Theory.from_directives([flipped if d == rule else d for d in theory.directives()])


def doubled(theory: Theory) -> Theory:
    """Two disjoint copies of a theory: symmetric, so only the search can fix names."""
    copy = renamed(theory, {name: f"{name}_b" for name in symbols(theory)})
    return Theory.from_directives([*theory.directives(), *copy.directives()])


@pytest.mark.parametrize("seed", range(150))
def test_equal_results_exactly_for_isomorphic_small_theories(seed: int) -> None:
    """Compared with a brute-force isomorphism check over all renamings."""
    rng = random.Random(1000 + seed)
    choice = seed % 3
    if choice == 0:  # a renaming of itself
        one = random_theory(rng, atoms=3, rules=3)
        other = renamed(one, random_renaming(one, rng), rng)
    elif choice == 1:  # two copies, one rule flipped in each: isomorphic or not
        base = doubled(random_theory(rng, atoms=2, rules=2))
        names = [rule.name for rule in base.rules]
        one = flip_head(base, rng.choice(names))
        other = flip_head(base, rng.choice(names))
        other = renamed(other, random_renaming(other, rng), rng)
    else:  # one rule's head flips polarity
        one = random_theory(rng, atoms=3, rules=3)
        other = flip_head(one, rng.choice(one.rules).name)
    assert (canonical(one) == canonical(other)) == isomorphic(one, other)


# Names -------------------------------------------------------------------------------------


def test_names_are_canonical_and_undercutters_follow_their_rule() -> None:
    result = canonical(parse_theory(EXAMPLE))
    rule_names = {rule.name for rule in result.rules}
    assert rule_names == {"r1", "r2", "r3"}
    atoms = {literal.atom for literal in result.literals()} - rule_names
    assert atoms == {"a1", "a2", "a3", "a4"}
    (undercutter,) = [r for r in result.rules if r.head.atom in rule_names]
    assert undercutter.head.negated
    target = result.rule(undercutter.head.atom)
    assert not target.strict and len(target.body) == 2
    assert any(p.weaker == undercutter.name for p in result.rule_preferences)


def test_rule_name_used_in_a_body_is_renamed_with_its_rule() -> None:
    result = canonical(parse_theory(HANDWRITTEN["rule name as body atom"]))
    names = {rule.name for rule in result.rules}
    (strict,) = result.strict_rules
    assert strict.head.negated and strict.head.atom == strict.name
    assert {literal.atom for literal in strict.body} & names
    assert all(c.attacker.atom == strict.name for c in result.contraries)


def test_rule_bodies_and_groups_are_sorted() -> None:
    result = canonical(random_theory(random.Random(5), atoms=8, rules=8))
    for rule in result.rules:
        assert list(rule.body) == sorted(rule.body, key=str)
    groups = (
        result.axioms,
        result.premises,
        result.rules,
        result.contraries,
        result.contradictories,
    )
    for group in groups:
        assert list(group) == sorted(group, key=str)
    for pair in result.contradictories:
        assert str(pair.first) < str(pair.second)
    assert list(result.queries) == sorted(result.queries, key=str)


def test_keeping_atom_names() -> None:
    theory = parse_theory(EXAMPLE)
    result = canonical(theory, rename_atoms=False)
    rule_names = {rule.name for rule in result.rules}
    assert rule_names == {"r1", "r2", "r3"}
    assert {x.atom for x in result.literals()} - rule_names == {"a", "b", "c", "d"}
    (undercutter,) = [r for r in result.rules if r.head.atom in rule_names]
    assert undercutter.body == (Literal("c"),)
    assert result.rule(undercutter.head.atom).head == Literal("b")
    rng = random.Random(11)
    for _ in range(8):
        mapping = random_renaming(theory, rng, atoms=False)
        assert canonical(renamed(theory, mapping, rng), rename_atoms=False) == result
    swapped = renamed(theory, {"a": "c", "c": "a"})
    assert canonical(swapped, rename_atoms=False) != result
    assert canonical(swapped) == canonical(theory)


def test_keeping_atom_names_avoids_clashes_with_rule_names() -> None:
    theory = parse_theory(
        "[premise: r1] [premise: r2] [defeasible x: r1 => r2] [strict y: r2 -> x]"
    )
    result = canonical(theory, rename_atoms=False)
    assert sorted(rule.name for rule in result.rules) == ["r3", "r4"]
    assert {Literal("r1"), Literal("r2")} <= result.literals()
    assert parse_theory(result.to_text()) == result


# Round trips -------------------------------------------------------------------------------


@pytest.mark.parametrize("rename_atoms", [True, False])
def test_idempotent_and_reparses(rename_atoms: bool) -> None:
    for theory in theories():
        result = canonical(theory, rename_atoms=rename_atoms)
        assert canonical(result, rename_atoms=rename_atoms) == result
        assert parse_theory(result.to_text()) == result
        assert isinstance(result.rules, tuple) and all(
            isinstance(rule.body, tuple) for rule in result.rules
        )


@pytest.mark.parametrize("rename_atoms", [True, False])
def test_result_is_a_renaming_of_the_input(rename_atoms: bool) -> None:
    rng = random.Random(99)
    for _ in range(20):
        theory = random_theory(rng, atoms=3, rules=3)
        assert isomorphic(theory, canonical(theory, rename_atoms=rename_atoms))


def test_empty_theory() -> None:
    assert canonical(Theory()) == Theory()


# Search bound ------------------------------------------------------------------------------


def test_large_symmetric_theory_is_fast_and_invariant() -> None:
    text = "".join(f"[premise: p{i}]\n[defeasible d{i}: p{i} => q]\n" for i in range(30))
    text += "".join(f"[axiom: z{i}]\n" for i in range(30))
    theory = parse_theory(text)
    expected = canonical(theory)
    rng = random.Random(2)
    assert canonical(renamed(theory, random_renaming(theory, rng), rng)) == expected


def test_bound_falls_back_to_first_leaf(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ties that are all automorphisms, the first leaf is already canonical."""
    theory = parse_theory(HANDWRITTEN["symmetric premises"])
    expected = canonical(theory)
    monkeypatch.setattr(canonical_module, "LEAF_BOUND", 1)
    rng = random.Random(4)
    for _ in range(5):
        assert canonical(renamed(theory, random_renaming(theory, rng), rng)) == expected
