"""KG worlds: the `.kg` language (round trips, every check with file:line:col and a caret,
damaged texts), the event semantics of Table 3 by hand-computed states, and kinship by
inverse closure and the 23 standard rules, on the reference simulator."""

from __future__ import annotations

import contextlib
from pathlib import Path

import kg_worlds
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argc.dsl.errors import InputError
from argc.dsl.kg import (
    STANDARD_RULES,
    Event,
    KgWorld,
    Person,
    State,
    chain,
    depth,
    kinship,
    parse_kg,
    read_kg,
    state,
    timeline,
)
from argc.dsl.kg.simulate import closed_facts
from argc.dsl.kg.world import EVENT_ROLES, RELATION_GENDER, RELATIONS

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kg"
WORKED = EXAMPLES / "worked_example.kg"

#: Persons a, b, c (female, male, male) and objects o (a's) and k (b's).
PRELUDE = """person a: female.
person b: male.
person c: male.
object o.
object k.
own(a, o).
create(b, k).
"""


def _states(events: str, thing: str = "o") -> list[tuple[str, str, str]]:
    world = parse_kg(PRELUDE + events)
    return [tuple(states[thing]) for states in timeline(world)]


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as caught:
        parse_kg(text, "w.kg")
    return caught.value


# The language -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.kg")), ids=lambda p: p.name)
def test_examples_print_back_to_equal_worlds(path: Path) -> None:
    world = read_kg(path)
    assert parse_kg(world.to_text()) == world


def test_the_worked_example() -> None:
    world = read_kg(WORKED)
    assert [object.name for object in world.objects] == ["red_ball", "old_lamp"]
    assert depth(world, "red_ball") == 5
    assert depth(world, "old_lamp") == 4
    assert state(world, "red_ball", 0) == State("alice_smith", "alice_smith", "intact")
    assert state(world, "red_ball", 5) == State("dan_brown", "dan_brown", "broken")
    assert state(world, "red_ball", 8) == State("bob_jones", "bob_jones", "intact")
    assert state(world, "old_lamp", 8) == State("dan_brown", "eve_black", "intact")
    assert [time for time, _, _ in chain(world, "old_lamp")] == [2, 4, 7, 8]
    relations = kinship(world)
    assert ("grandfather", "george_brown", "frank_brown") in relations
    assert ("cousin", "ian_brown", "frank_brown") in relations
    assert ("friends_wife", "carol_white", "alice_smith") in relations


def test_keywords_are_names_too() -> None:
    world = parse_kg("person person: male.\nobject object.\nown(person, object).\n")
    assert parse_kg(world.to_text()) == world
    assert world.persons == (Person("person", "male"),)


def test_positions_do_not_count_for_equality() -> None:
    spaced = parse_kg("\n\n  " + PRELUDE.replace("\n", "\n   ") + "  gift(a, b, o).")
    assert spaced == parse_kg(PRELUDE + "gift(a, b, o).")


def test_a_repeated_kinship_fact_is_kept_once() -> None:
    world = parse_kg(PRELUDE + "father(b, c).\nfather(b, c).")
    assert len(world.facts) == 1


@pytest.mark.parametrize("seed", range(60))
def test_random_worlds_print_back_and_follow_table_3(seed: int) -> None:
    world = kg_worlds.random_world(seed)
    assert parse_kg(world.to_text()) == world
    states = timeline(world)
    assert len(states) == len(world.events) + 1
    for time, event in enumerate(world.events, 1):
        before, after = states[time - 1], states[time]
        for thing in before:
            if thing not in event.objects:
                assert after[thing] == before[thing], "inertia"
        for thing in event.objects:
            old, new = before[thing], after[thing]
            if event.kind in ("gift", "sale", "exchange"):
                assert old.owner == old.possessor != new.owner == new.possessor
                assert new.integrity == old.integrity
            elif event.kind in ("loan", "return"):
                assert new.owner == old.owner and new.integrity == old.integrity
                assert new.possessor != old.possessor
            else:
                assert (new.owner, new.possessor) == (old.owner, old.possessor)
                assert new.integrity != old.integrity
    for thing in world.objects:
        assert depth(world, thing.name) == len(chain(world, thing.name))
    relations = kinship(world)
    assert {(fact.relation, fact.first, fact.second) for fact in world.facts} <= relations


def test_random_worlds_have_events() -> None:
    assert sum(len(kg_worlds.random_world(seed).events) for seed in range(60)) > 200


# Checks -----------------------------------------------------------------------------------

P2 = "person a: female.\nperson b: male.\n"
OBJ = "object o.\nown(a, o).\n"


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("person a: female", "unexpected end of input", 1, 11),
        ("person a female.", "unexpected 'female'; expected ':'", 1, 10),
        ("person a: female.\nobject o\n", "expected '.'", 2, 8),
        ("person a: female.\nobject 1o.", "unexpected character '1'", 2, 8),
        ("person a: wizard.", "unknown gender 'wizard'", 1, 11),
        (P2 + "person a: male.", "'a' is already declared as a person (line 1)", 3, 8),
        (P2 + "object o.\nobject o.\nown(a, o).", "'o' is already declared as an object", 4, 8),
        (P2 + "object b.", "'b' is already declared as a person (line 2)", 3, 8),
        (P2 + "object o.", "the object 'o' has no initial declaration", 3, 8),
        (P2 + OBJ + "create(b, o).", "a second initial declaration of 'o' (line 4)", 5, 1),
        (P2 + "object o.\nown(z, o).", "unknown person 'z' in own(z, o)", 4, 5),
        (P2 + "object o.\nown(a, z).", "unknown object 'z' in own(a, z)", 4, 8),
        (P2 + "object o.\nown(o, o).", "'o' is an object, not a person", 4, 5),
        (P2 + OBJ + "gift(a, c, o).", "unknown person 'c' in gift(a, c, o)", 5, 9),
        (P2 + OBJ + "gift(a, b, q).", "unknown object 'q' in gift(a, b, q)", 5, 12),
        (P2 + OBJ + "gift(a, b, a).", "'a' is a person, not an object", 5, 12),
        (P2 + "father(b, z).", "unknown person 'z' in father(b, z)", 3, 11),
        (P2 + OBJ + "father(b, o).", "'o' is an object, not a person", 5, 11),
        (P2 + OBJ + "gift(a, o).", "gift takes 3 arguments (giver, receiver, object), not 2", 5, 1),
        (
            P2 + OBJ + "exchange(a, b, o).",
            "exchange takes 4 arguments (first holder, second holder, first object, second"
            " object), not 3",
            5,
            1,
        ),
        (P2 + OBJ + "break(a, b, o).", "break takes 2 arguments (breaker, object), not 3", 5, 1),
        (P2 + "object o.\nown(o).", "own takes 2 arguments (owner, object), not 1", 4, 1),
        (P2 + "father(b, a, a).", "father takes 2 arguments", 3, 1),
        (P2 + "cousin_of(a, b).", "unknown relation 'cousin_of'", 3, 1),
        (P2 + "uncle(b, a).", "'uncle' is a composite relation", 3, 1),
        (P2 + "rule step: father, wife.\nstep(b, a).", "'step' is a composite relation", 4, 1),
        ("rule r: father, parent.", "unknown relation 'parent' in the path of rule 'r'", 1, 17),
        (
            "rule r: father.",
            "rule 'r' has a path of 1 relation(s); a composite rule has 2 or 3",
            1,
            6,
        ),
        ("rule r: son, son, son, son.", "rule 'r' has a path of 4 relation(s)", 1, 6),
        ("rule r: son, son.\nrule r: son, son.", "a second rule 'r' with the same path", 2, 6),
        (
            "rule cousin: son, brother, father.\nrule r: son, son.\n"
            "rule cousin: son, brother, father.",
            "a second rule 'cousin' with the same path son, brother, father (line 1)",
            3,
            6,
        ),
        ("rule friend: son, son.", "'friend' is a basic relation", 1, 6),
        (P2 + "father(a, b).", "father(a, b): a is female, but a father is male", 3, 8),
        (P2 + "son(a, b).", "son(a, b): a is female, but a son is male", 3, 5),
        (P2 + "sister(b, a).", "sister(b, a): b is male, but a sister is female", 3, 8),
        (
            P2 + "person c: male.\nhusband(b, c).",
            "husband(b, c): its inverse is wife(c, b), and c is male, but a wife is female",
            4,
            12,
        ),
        (P2 + "wife(a, a).", "wife(a, a) relates a to themself", 3, 9),
        (
            P2 + "person c: male.\nfather(b, c).\nfather(c, b).",
            "father(c, b) closes a cycle of descent (c -> b -> c, each a parent of the next)",
            5,
            1,
        ),
        (
            P2 + "person c: male.\nfather(b, a).\nfriend(a, c).\ndaughter(a, c).",
            "daughter(a, c) makes c a second father of a, whose father is b (line 4)",
            6,
            1,
        ),
        (
            P2 + "person c: male.\nhusband(c, a).\nmother(a, c).",
            "husband(c, a) marries blood relatives (mother(a, c))",
            4,
            1,
        ),
        (
            P2 + "person c: male.\nfather(b, c).\nbrother(b, c).",
            "brother(b, c) makes siblings of an ancestor and a descendant (son(c, b))",
            5,
            1,
        ),
    ],
)
def test_checks_point_at_the_culprit(text: str, message: str, line: int, column: int) -> None:
    error = _error(text)
    assert message in error.message
    assert (error.filename, error.line, error.column) == ("w.kg", line, column)
    shown = str(error).split("\n")
    assert shown[0] == f"w.kg:{line}:{column}: {error.message}"
    assert shown[1] == "    " + text.split("\n")[line - 1]
    assert shown[2] == " " * (3 + column) + "^"


def test_the_precondition_error_names_the_event_its_time_and_the_state_it_met() -> None:
    text = (
        "person alice_smith: female.\nperson carol_white: female.\nperson dan_brown: male.\n"
        "object red_ball.\nown(alice_smith, red_ball).\n"
        "loan(alice_smith, carol_white, red_ball).\n"
        "break(carol_white, red_ball).\n"
        "gift(carol_white, dan_brown, red_ball).\n"
    )
    error = _error(text)
    assert error.message == (
        "event 3 gift(carol_white, dan_brown, red_ball): red_ball is owned by alice_smith and"
        " held by carol_white, not owned and held by carol_white"
    )
    assert (error.line, error.column) == (8, 1)
    assert str(error).endswith("    gift(carol_white, dan_brown, red_ball).\n    ^")


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (
            "sale(b, c, o).",
            "event 1 sale(b, c, o): o is owned and held by a, not owned and held by b",
        ),
        ("gift(a, a, o).", "event 1 gift(a, a, o): the giver and the receiver are both a"),
        (
            "loan(a, b, o).\nloan(b, c, o).",
            "event 2 loan(b, c, o): o is owned by a and held by b, not owned and held by b",
        ),
        (
            "loan(a, b, o).\nsale(a, c, o).",
            "o is owned by a and held by b, not owned and held by a",
        ),
        ("return(b, a, o).", "event 1 return(b, a, o): o is owned and held by a, not owned by a"),
        ("loan(a, b, o).\nreturn(c, a, o).", "not owned by a and held by c"),
        ("return(a, a, o).", "the borrower and the owner are both a"),
        ("break(b, o).", "event 1 break(b, o): o is held by a, not by b"),
        ("break(a, o).\nbreak(a, o).", "event 2 break(a, o): o is already broken"),
        ("repair(c, o).", "event 1 repair(c, o): o is intact, not broken"),
        ("exchange(a, b, k, o).", "k is owned and held by b, not owned and held by a"),
        ("exchange(a, c, o, k).", "k is owned and held by b, not owned and held by c"),
        ("exchange(a, b, o, o).", "o cannot be exchanged for itself"),
        ("exchange(a, a, o, k).", "the first holder and the second holder are both a"),
    ],
)
def test_failed_preconditions(events: str, message: str) -> None:
    error = _error(PRELUDE + events)
    assert message in error.message
    assert error.line == PRELUDE.count("\n") + events.count("\n") + 1


def test_typed_statements_are_checked_too() -> None:
    with pytest.raises(InputError, match="'Alice' is not a name"):
        KgWorld.build([Person("Alice", "female")])
    with pytest.raises(InputError, match="unknown relation 'steal'"):
        KgWorld.build([Person("a", "female"), Event("steal", ("a",), ("o",))])
    with pytest.raises(InputError, match="an object has one"):
        prelude = parse_kg(PRELUDE)
        KgWorld.build([*prelude.statements(), *prelude.declarations])


def test_an_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        read_kg(tmp_path / "missing.kg")


_PIECES = [
    "person",
    "object",
    "rule",
    "own",
    "gift",
    "exchange",
    "father",
    "(",
    ")",
    ",",
    ".",
    ":",
    " ",
    "\n",
    "%",
    "a",
    "o",
    "male",
    "female",
    "break",
    "repair",
    "son",
    "x1",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=0, max_value=2000),
    st.integers(min_value=0, max_value=30),
    st.lists(st.sampled_from(_PIECES), max_size=8).map("".join) | st.text(max_size=6),
)
def test_damaged_texts_give_a_world_or_an_input_error(start: int, cut: int, insert: str) -> None:
    text = WORKED.read_text(encoding="utf-8")
    start = start % (len(text) + 1)
    damaged = text[:start] + insert + text[start + cut :]
    try:
        world = parse_kg(damaged)
    except InputError:
        return
    assert parse_kg(world.to_text()) == world


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_token_soup_gives_a_world_or_an_input_error(text: str) -> None:
    with contextlib.suppress(InputError):
        parse_kg(text)


# Event semantics (Table 3) ----------------------------------------------------------------

A, B, C = "a", "b", "c"
INTACT, BROKEN = "intact", "broken"


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ("", [(A, A, INTACT)]),
        ("sale(a, b, o).", [(A, A, INTACT), (B, B, INTACT)]),
        ("gift(a, c, o).\ngift(c, b, o).", [(A, A, INTACT), (C, C, INTACT), (B, B, INTACT)]),
        ("loan(a, b, o).", [(A, A, INTACT), (A, B, INTACT)]),
        ("loan(a, b, o).\nreturn(b, a, o).", [(A, A, INTACT), (A, B, INTACT), (A, A, INTACT)]),
        ("break(a, o).", [(A, A, INTACT), (A, A, BROKEN)]),
        ("loan(a, b, o).\nbreak(b, o).", [(A, A, INTACT), (A, B, INTACT), (A, B, BROKEN)]),
        ("break(a, o).\nrepair(c, o).", [(A, A, INTACT), (A, A, BROKEN), (A, A, INTACT)]),
        (
            "break(a, o).\ngift(a, b, o).\nloan(b, c, o).",
            [(A, A, INTACT), (A, A, BROKEN), (B, B, BROKEN), (B, C, BROKEN)],
        ),
        ("exchange(a, b, o, k).", [(A, A, INTACT), (B, B, INTACT)]),
        ("gift(b, c, k).", [(A, A, INTACT), (A, A, INTACT)]),
    ],
)
def test_event_semantics(events: str, expected: list[tuple[str, str, str]]) -> None:
    assert _states(events) == expected


def test_exchange_moves_both_objects_and_keeps_their_integrity() -> None:
    events = "break(b, k).\nexchange(a, b, o, k)."
    assert _states(events, "k") == [(B, B, INTACT), (B, B, BROKEN), (A, A, BROKEN)]
    assert _states(events, "o") == [(A, A, INTACT), (A, A, INTACT), (B, B, INTACT)]
    world = parse_kg(PRELUDE + events)
    assert depth(world, "o") == 1 and depth(world, "k") == 2


def test_depth_counts_only_the_events_on_the_object() -> None:
    world = parse_kg(PRELUDE + "loan(a, b, o).\ngift(b, c, k).\nreturn(b, a, o).\nbreak(a, o).")
    assert depth(world, "o") == 3
    assert depth(world, "k") == 1
    assert [(time, event.kind) for time, event, _ in chain(world, "o")] == [
        (1, "loan"),
        (3, "return"),
        (4, "break"),
    ]


def test_every_event_kind_is_covered() -> None:
    assert set(EVENT_ROLES) == {"sale", "gift", "exchange", "loan", "return", "break", "repair"}


# Kinship ----------------------------------------------------------------------------------


def _family(path: tuple[str, ...]) -> KgWorld:
    """Persons p0, ..., pn with wi(p(i-1), pi): each gendered as its relations need."""
    genders = []
    for index in range(len(path) + 1):
        gender = RELATION_GENDER.get(path[index], "male") if index < len(path) else "male"
        if index > 0 and path[index - 1] in ("husband", "wife"):
            gender = "female" if path[index - 1] == "husband" else "male"
        genders.append(gender)
    text = "".join(f"person p{i}: {gender}.\n" for i, gender in enumerate(genders))
    text += "".join(f"{relation}(p{i}, p{i + 1}).\n" for i, relation in enumerate(path))
    return parse_kg(text)


def test_the_standard_rules_are_table_4() -> None:
    assert len(STANDARD_RULES) == 23
    assert len({rule.name for rule in STANDARD_RULES}) == 23
    assert sum(rule.hop == 2 for rule in STANDARD_RULES) == 14
    assert {relation for rule in STANDARD_RULES for relation in rule.path} <= set(RELATIONS)


@pytest.mark.parametrize("rule", STANDARD_RULES, ids=lambda rule: rule.name)
def test_each_standard_rule_is_derived_on_its_family(rule) -> None:
    world = _family(rule.path)
    last = f"p{rule.hop}"
    assert (rule.name, "p0", last) in kinship(world)


def test_rules_apply_over_the_inverse_closure() -> None:
    # Written with fathers only: son(p2, p1) and brother(p1, p3) come from the closure.
    text = (
        "person g: male.\nperson u: male.\nperson f: male.\nperson x: female.\nperson z: male.\n"
        "father(g, u).\nfather(g, f).\nfather(u, x).\nfather(f, z).\nbrother(u, f).\n"
    )
    relations = kinship(parse_kg(text))
    assert ("cousin", "z", "x") in relations  # son(z, f), brother(f, u), father(u, x)
    assert ("cousin", "x", "z") not in relations  # x is a daughter
    assert ("granddaughter", "x", "g") in relations
    assert ("uncle", "f", "x") in relations


@pytest.mark.parametrize(
    ("fact", "genders", "inverse"),
    [
        ("father(m, f)", "mf", ("daughter", "f", "m")),
        ("father(m, n)", "mm", ("son", "n", "m")),
        ("mother(f, n)", "fm", ("son", "n", "f")),
        ("son(m, f)", "mf", ("mother", "f", "m")),
        ("daughter(f, n)", "fm", ("father", "n", "f")),
        ("husband(m, f)", "mf", ("wife", "f", "m")),
        ("wife(f, m)", "fm", ("husband", "m", "f")),
        ("brother(m, f)", "mf", ("sister", "f", "m")),
        ("sister(f, n)", "fm", ("brother", "n", "f")),
        ("friend(f, n)", "fm", ("friend", "n", "f")),
    ],
)
def test_inverse_closure(fact: str, genders: str, inverse: tuple[str, str, str]) -> None:
    first, second = fact[fact.index("(") + 1 : -1].split(", ")
    names = {"m": "male", "f": "female", "n": "male"}
    text = f"person {first}: {names[genders[0]]}.\nperson {second}: {names[genders[1]]}.\n"
    world = parse_kg(text + fact + ".")
    relation = fact[: fact.index("(")]
    assert closed_facts(world) == {(relation, first, second), inverse}


def test_a_relation_may_have_several_paths() -> None:
    """A further path of a standard relation, a declared relation with two paths of other
    lengths, and a standard rule declared again with its own path (which changes nothing)."""
    text = (
        "person s: female.\nperson f: male.\nperson m: female.\nperson x: male.\n"
        "sister(s, f).\nfather(f, m).\nmother(m, x).\n"
        "rule great_aunt: sister, father, mother.\nrule linked: friend, friend.\n"
        "rule linked: sister, father, mother.\nrule cousin: son, brother, father.\n"
    )
    world = parse_kg(text)
    standard = ("sister", "father", "father")
    assert world.paths("great_aunt") == (standard, ("sister", "father", "mother"))
    assert world.paths("linked") == (("friend", "friend"), ("sister", "father", "mother"))
    assert world.paths("cousin") == (("son", "brother", "father"),)
    assert world.paths("nobody") == ()
    assert [rule.name for rule in world.all_rules[23:]] == ["great_aunt", "linked", "linked"]
    relations = kinship(world)
    assert {("great_aunt", "s", "x"), ("linked", "s", "x")} <= relations
    assert parse_kg(world.to_text()) == world
    # The canonical path alone does not reach x: the further path derives it.
    assert ("great_aunt", "s", "x") not in kinship(parse_kg(text.split("rule")[0]))


def test_declared_rules_and_no_self_relations() -> None:
    text = (
        "person a: male.\nperson b: male.\nperson w: female.\n"
        "brother(a, b).\nwife(w, b).\n"
        "rule sibling_of_sibling: brother, brother.\nrule brothers_wife: wife, brother.\n"
        "rule grandfather: father, father.\n"
    )
    world = parse_kg(text)
    assert [rule.name for rule in world.all_rules][-2:] == ["sibling_of_sibling", "brothers_wife"]
    relations = kinship(world)
    assert ("brothers_wife", "w", "a") in relations
    assert not any(name == "sibling_of_sibling" for name, _, _ in relations)
    assert parse_kg(world.to_text()) == world
