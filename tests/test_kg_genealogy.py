"""Possible families and unique golds in KG worlds: the `.kg` checker refuses an impossible
family at its fact (`argc.dsl.kg.genealogy`); asp/kg/genealogy.lp derives the same
violations, and both agree with a brute force on random fact sets, impossible ones
included; generated worlds of every family are possible, analogies have one answer and
inductive chains one relation, checked by the brute force of `kg_brute`."""

from __future__ import annotations

import random

import kg_brute
import pytest

from argc.cli import main
from argc.compiler.cli import EXIT_INPUT_ERROR
from argc.compiler.control import Limits
from argc.compiler.kg.solve import Conflict, ground_kg, solve_kg, solve_kg_many
from argc.dsl.errors import InputError, LimitExceeded
from argc.dsl.kg import KgWorld, KinshipFact, Person
from argc.dsl.kg.genealogy import KINDS, violations
from argc.dsl.kg.parser import parse_kg
from argc.dsl.kg.simulate import Inconsistent, closed_facts
from argc.tasks.kg.families import (
    FAMILIES,
    analogy_answer,
    generate_instance,
    generate_instances,
)

# The language ------------------------------------------------------------------------------


def test_a_cycle_of_fathers_exits_2_at_the_fact_that_closes_it(tmp_path, capsys) -> None:
    path = tmp_path / "w.kg"
    path.write_text("person a: male.\nperson b: male.\nfather(a, b). father(b, a).\n")
    assert main(["check", str(path)]) == EXIT_INPUT_ERROR
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].endswith(
        "w.kg:3:15: father(b, a) closes a cycle of descent (b -> a -> b, each a parent of the"
        " next); nobody is their own ancestor"
    )
    assert lines[-1] == " " * 18 + "^"


@pytest.mark.parametrize(
    ("facts", "message", "line"),
    [
        # The second father is named by a son fact, and reported there.
        ("father(b, c).\nson(c, d).", "son(c, d) makes d a second father of c", 2),
        ("mother(a, c).\nmother(e, c).", "mother(e, c) makes e a second mother of c", 2),
        # The cycle is reported at the fact that closes the first one, not at the last.
        (
            "father(b, c).\nfather(c, b).\nfather(d, f).\nfather(f, d).",
            "father(c, b) closes a cycle of descent",
            2,
        ),
        (
            "father(b, c).\nfather(c, d).\nfather(d, b).",
            "closes a cycle of descent (d -> b -> c -> d",
            3,
        ),
        # Spouses: a parent, a grandchild, a niece, a cousin.
        ("wife(a, b).\nfather(b, a).", "wife(a, b) marries blood relatives (daughter(a, b))", 1),
        (
            "father(b, c).\nfather(c, d).\nhusband(d, a).\nmother(a, b).",
            "husband(d, a) marries blood relatives (mother(a, b), father(b, c), father(c, d))",
            3,
        ),
        (
            "brother(b, c).\nfather(c, e).\nwife(e, b).",
            "wife(e, b) marries blood relatives (brother(b, c), father(c, e))",
            3,
        ),
        (
            "brother(b, c).\nfather(b, d).\nfather(c, e).\nwife(e, d).",
            "wife(e, d) marries blood relatives (son(d, b), brother(b, c), father(c, e))",
            4,
        ),
        # A sibling who is a grandparent.
        (
            "father(b, c).\nfather(c, d).\nbrother(d, b).",
            "brother(d, b) makes siblings of an ancestor and a descendant",
            3,
        ),
    ],
)
def test_impossible_families_are_refused_at_their_fact(facts: str, message: str, line: int):
    persons = "person a: female.\nperson b: male.\nperson c: male.\nperson d: male.\n"
    persons += "person e: female.\nperson f: male.\n"
    with pytest.raises(InputError) as caught:
        parse_kg(persons + facts, "w.kg")
    assert message in caught.value.message
    assert (caught.value.line, caught.value.column) == (6 + line, 1)


@pytest.mark.parametrize(
    "facts",
    [
        # A family of three generations, with in-laws and a friend who is a relative.
        "father(b, c).\nmother(a, c).\nhusband(b, a).\nfather(c, d).\nbrother(d, f).\n"
        "wife(e, f).\nfriend(a, d).\n",
        # The same father written twice, once through a son fact; cousins through their
        # grandfather (four steps: beyond the rule paths) may marry.
        "father(b, c).\nson(c, b).\nfather(b, d).\nfather(c, f).\nfather(d, e).\nwife(e, f).\n",
        # A sibling's spouse, a spouse's sibling.
        "brother(b, c).\nwife(a, c).\nsister(e, a).\nhusband(f, e).\n",
        # Two steps across: no rule path takes them.
        "brother(b, c).\nsister(e, c).\nwife(e, b).\n",
    ],
)
def test_possible_families_are_accepted(facts: str) -> None:
    persons = "person a: female.\nperson b: male.\nperson c: male.\nperson d: male.\n"
    persons += "person e: female.\nperson f: male.\n"
    parse_kg(persons + facts)


def test_the_examples_are_possible_families() -> None:
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples" / "kg"
    for path in examples.glob("*.kg"):
        assert violations(parse_kg(path.read_text())) == []


# Python and ASP against a brute force ------------------------------------------------------

NAMES = ("p0", "p1", "p2", "p3", "p4", "p5")
#: The kinship relations the random fact sets draw from (friendship only now and then).
DRAWN = ("father", "mother", "son", "daughter", "husband", "wife", "brother", "sister")
GENDER = {"father": "male", "son": "male", "husband": "male", "brother": "male"}


def random_family(seed: int) -> KgWorld:
    """3 to 6 persons and 1 to 9 kinship facts (unchecked) that agree with the genders, but
    for one in 15, of any relation."""
    rng = random.Random(seed)
    genders = {name: rng.choice(("female", "male")) for name in NAMES[: rng.randint(3, 6)]}
    facts = []
    for _ in range(rng.randint(1, 9)):
        first, second = rng.sample(sorted(genders), 2)
        fitting = [
            relation
            for relation in DRAWN
            if GENDER.get(relation, "female") == genders[first]
            and not (relation in ("husband", "wife") and genders[first] == genders[second])
        ]
        drawn = DRAWN if rng.random() < 1 / 15 else [*fitting, "friend"]
        facts.append(KinshipFact(rng.choice(drawn), first, second))
    return KgWorld(tuple(Person(n, g) for n, g in genders.items()), facts=tuple(facts))


def asp_violations(world: KgWorld) -> set[tuple[str, tuple[str, ...]]]:
    """The violations asp/kg/genealogy.lp derives, as (kind, sorted persons)."""
    session = ground_kg(world)

    def rows(name: str, arity: int) -> list[tuple[str, ...]]:
        return [tuple(a.string for a in s.arguments) for s in session.atoms(name, arity)]

    found = {(w, (y,)) for w, y in rows("two_parents", 2)}
    found |= {("ancestor", (x,)) for (x,) in rows("own_ancestor", 1)}
    found |= {("spouse", tuple(sorted(pair))) for pair in rows("married_kin", 2)}
    found |= {("sibling", tuple(sorted(pair))) for pair in rows("lineal_sibling", 2)}
    found |= {("gender", (x,)) for _, x in rows("wrong_gender", 2)}
    return found


def wrong_genders(world: KgWorld) -> set[tuple[str, tuple[str, ...]]]:
    """("gender", (x,)) for each person a closed fact gives a relation of the other gender
    (brute force), where argc.dsl.kg.simulate.closed_facts refuses the world."""
    genders = {person.name: person.gender for person in world.persons}
    found = {
        ("gender", (x,))
        for relation, x, _ in kg_brute.closure(world)
        if GENDER.get(relation, "female" if relation != "friend" else genders[x]) != genders[x]
    }
    try:
        closed_facts(world)
    except Inconsistent:
        assert found
    else:
        assert not found
    return found


def python_violations(world: KgWorld) -> set[tuple[str, tuple[str, ...]]]:
    """argc.dsl.kg.genealogy's violations in the same form (a cycle's persons one by one)."""
    found = set()
    for violation in violations(world):
        if violation.kind == "ancestor":
            found |= {("ancestor", (person,)) for person in violation.persons}
        else:
            found.add((violation.kind, violation.persons))
    return found


@pytest.mark.parametrize("block", range(4))
def test_python_asp_and_brute_force_agree_on_random_families(block: int) -> None:
    kinds = set()
    genders = 0
    for seed in range(block * 150, block * 150 + 150):
        world = random_family(seed)
        python = python_violations(world)
        assert python | wrong_genders(world) == asp_violations(world), seed
        assert bool(python) == bool(kg_brute.impossible(world)), seed
        kinds |= {kind for kind, _ in python}
        found = violations(world)
        assert [v.fact for v in found] == sorted(v.fact for v in found)
        genders += bool(wrong_genders(world))
    assert kinds == set(KINDS)  # every kind of violation occurs
    assert 3 <= genders <= 50


def test_half_of_the_random_families_are_possible() -> None:
    possible = sum(not violations(random_family(seed)) for seed in range(200))
    assert 40 <= possible <= 160


def test_solving_an_impossible_family_is_a_conflict() -> None:
    worlds = [random_family(seed) for seed in range(40)]
    impossible = [bool(violations(world)) for world in worlds]
    assert any(impossible) and not all(impossible)
    solved = solve_kg_many(worlds, batch_size=8)
    assert [isinstance(item, Conflict) for item in solved] == impossible
    for world, item in zip(worlds, solved, strict=True):
        if isinstance(item, Conflict):
            assert str(item).startswith("impossible family: ")
            with pytest.raises(Conflict, match="impossible family"):
                solve_kg(world)


def lineage(generations: int, *, closed: bool = False) -> KgWorld:
    """Fathers and sons over the generations, unchecked; `closed`: the last fathers the
    first."""
    persons = tuple(Person(f"p{i}", "male") for i in range(generations))
    facts = [KinshipFact("father", f"p{i}", f"p{i + 1}") for i in range(generations - 1)]
    if closed:
        facts.append(KinshipFact("father", f"p{generations - 1}", "p0"))
    return KgWorld(persons, facts=tuple(facts))


def test_a_long_line_of_descent_is_rooted_without_its_square() -> None:
    # 3,000 generations have 4.5 million ancestor pairs; a line rooted in its first father
    # needs none of them, a cycle all.
    limits = Limits(instantiations=100_000)
    world = lineage(3000)
    assert violations(world) == []
    model = solve_kg(world, limits)
    assert ("great_grandfather", "p0", "p3") in model.relations
    cycle = lineage(3000, closed=True)
    assert [v.kind for v in violations(cycle)] == ["ancestor"]
    with pytest.raises(LimitExceeded, match="more than 100,000"):
        solve_kg(cycle, limits)
    assert asp_violations(lineage(40, closed=True)) == {("ancestor", (f"p{i}",)) for i in range(40)}


# Generated instances -----------------------------------------------------------------------

CELLS = [(1, 1), (2, 1), (4, 2), (6, 3), (9, 5), (10, 6)]


def assert_sound(instance) -> None:
    """A possible family; an analogy with one answer, inductive chains with one relation."""
    assert kg_brute.impossible(instance.world) == []
    assert violations(instance.world) == []
    if instance.family == "analogy":
        assert kg_brute.analogy_problems(instance) == []
    if instance.family == "inductive":
        assert kg_brute.inductive_problems(instance) == []


@pytest.mark.parametrize("split", ["rl", "eval"])
@pytest.mark.parametrize("family", FAMILIES)
def test_generated_instances_are_possible_and_unique(family: str, split: str) -> None:
    requests = [(family, d, t, seed) for d, t in CELLS for seed in (71, 73)]
    for instance in generate_instances(requests, split):
        assert_sound(instance)


def test_the_reproducer_analogy_has_one_answer_now() -> None:
    instance = generate_instance("analogy", 4, 2, 41)
    assert_sound(instance)


@pytest.mark.slow
@pytest.mark.parametrize("split", ["pretrain", "rl", "eval"])
@pytest.mark.parametrize("family", FAMILIES)
def test_many_generated_instances_are_possible_and_unique(family: str, split: str) -> None:
    cells = [(d, t) for d in range(1, 11) for t in range(1, 7)]
    requests = [(family, d, t, seed) for d, t in cells for seed in range(6)]
    for instance in generate_instances(requests, split):
        assert_sound(instance)


def test_analogy_answer() -> None:
    relations = {
        ("grandfather", "a", "b"),
        ("grandfather", "c", "d"),
        ("grandfather", "e", "f"),
        ("grandfather", "e", "g"),
        ("friend", "a", "b"),
        ("friend", "h", "d"),
        ("friend", "c", "d"),
    }
    assert analogy_answer(relations, "a", "b", "c") == "d"
    assert analogy_answer(relations, "a", "b", "e") is None  # two grandchildren, no friend
    assert analogy_answer(relations, "c", "d", "a") == "b"
    assert analogy_answer(relations, "a", "b", "a") is None  # C is A
    assert analogy_answer(relations | {("friend", "c", "a")}, "a", "b", "c") is None
    assert analogy_answer({("uncle", "a", "b"), ("uncle", "b", "a")}, "a", "b", "b") is None
