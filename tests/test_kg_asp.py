"""KG worlds in ASP (asp/kg, argc.compiler.kg): the encodings' timelines, depths and
kinship relations equal the reference simulator's on the worked example and random worlds;
every row of Table 3, each standard rule and declared rules by hand; stratification and the
conflict check; grounding limits on hostile worlds; `argc check world.kg`."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import kg_worlds
import pytest
from margins import GRACE
from test_kg_language import PRELUDE

from argc.cli import main
from argc.compiler.cli import EXIT_INPUT_ERROR, EXIT_OK
from argc.compiler.control import Limits
from argc.compiler.kg.facts import world_facts
from argc.compiler.kg.solve import Conflict, ground_kg, solve_kg
from argc.dsl.errors import LimitExceeded
from argc.dsl.kg import Declaration, Event, KgWorld, KinshipFact, Object, Person, Rule
from argc.dsl.kg.parser import parse_kg, read_kg
from argc.dsl.kg.simulate import State, depth, kinship, timeline
from argc.dsl.kg.world import RELATION_GENDER, STANDARD_RULES

WORKED = Path(__file__).resolve().parent.parent / "examples" / "kg" / "worked_example.kg"


def assert_agrees(world: KgWorld) -> None:
    """The encodings' model equals the simulator's timeline, depths and kinship."""
    model = solve_kg(world)
    assert list(model.timeline) == timeline(world)
    assert model.depths == {thing.name: depth(world, thing.name) for thing in world.objects}
    assert model.relations == kinship(world)
    assert model.affected == ((), *(event.objects for event in world.events))


# Agreement with the simulator --------------------------------------------------------------


def test_the_worked_example() -> None:
    world = read_kg(WORKED)
    assert_agrees(world)
    model = solve_kg(world)
    assert model.timeline[5]["red_ball"] == State("dan_brown", "dan_brown", "broken")
    assert model.timeline[7]["old_lamp"] == State("dan_brown", "dan_brown", "intact")
    assert model.depths == {"red_ball": 5, "old_lamp": 4}
    assert ("cousin", "ian_brown", "frank_brown") in model.relations
    assert ("grandfather", "george_brown", "frank_brown") in model.relations
    assert ("friends_wife", "carol_white", "alice_smith") in model.composite


@pytest.mark.parametrize("block", range(4))
def test_random_worlds_agree_with_the_simulator(block: int) -> None:
    for seed in range(block * 60, block * 60 + 60):
        assert_agrees(kg_worlds.random_world(seed))


def test_the_programs_are_stratified_and_without_conflicts() -> None:
    """Grounding decides every atom (no search), and no valid world has a conflict."""
    for world in (read_kg(WORKED), *(kg_worlds.random_world(seed, 12) for seed in range(40))):
        session = ground_kg(world)
        assert session.undecided_atoms() == []
        assert session.atoms("conflict", 2) == []


def test_facts_name_everything_as_strings() -> None:
    facts = world_facts(parse_kg(PRELUDE + "exchange(a, b, o, k).\nfather(b, c).\n"))
    assert 'event(1, "exchange", ("a","b",), ("o","k",)).' in facts
    assert 'init("o", "a").' in facts and 'gender("a", "female").' in facts
    assert "time(0..1)." in facts and 'kin("father", "b", "c").' in facts
    assert 'rule("cousin", 1, 3, "father").' in facts


def test_facts_number_the_paths_of_a_relation() -> None:
    world = parse_kg(
        "rule great_aunt: sister, father, mother.\nrule cousin: son, brother, father.\n"
        "rule linked: friend, friend.\nrule linked: son, son, son.\n"
    )
    facts = world_facts(world).splitlines()
    assert 'rule("great_aunt", 1, 3, "father").' in facts
    assert 'rule("great_aunt", 2, 3, "mother").' in facts
    assert not any(fact.startswith('rule("cousin", 2,') for fact in facts)
    assert 'rule("linked", 1, 2, "friend").' in facts
    assert 'rule("linked", 2, 3, "son").' in facts
    assert sum(fact.startswith("rule(") for fact in facts) == 14 * 2 + 9 * 3 + 3 + 2 + 3


# Table 3 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ("", [("a", "a", "intact")]),
        ("sale(a, b, o).", [("a", "a", "intact"), ("b", "b", "intact")]),
        ("gift(a, c, o).", [("a", "a", "intact"), ("c", "c", "intact")]),
        ("loan(a, b, o).", [("a", "a", "intact"), ("a", "b", "intact")]),
        (
            "loan(a, b, o). return(b, a, o).",
            [("a", "a", "intact"), ("a", "b", "intact"), ("a", "a", "intact")],
        ),
        ("break(a, o).", [("a", "a", "intact"), ("a", "a", "broken")]),
        (
            "break(a, o). repair(c, o).",
            [("a", "a", "intact"), ("a", "a", "broken"), ("a", "a", "intact")],
        ),
        (
            "loan(a, b, o). break(b, o). sale(b, c, k).",
            [
                ("a", "a", "intact"),
                ("a", "b", "intact"),
                ("a", "b", "broken"),
                ("a", "b", "broken"),
            ],
        ),
        (
            "break(a, o). gift(a, c, o).",
            [("a", "a", "intact"), ("a", "a", "broken"), ("c", "c", "broken")],
        ),
        (
            "break(a, o). exchange(a, b, o, k).",
            [("a", "a", "intact"), ("a", "a", "broken"), ("b", "b", "broken")],
        ),
    ],
)
def test_table_3_rows(events: str, expected: list[tuple[str, str, str]]) -> None:
    world = parse_kg(PRELUDE + events)
    model = solve_kg(world)
    assert [tuple(states["o"]) for states in model.timeline] == expected
    assert_agrees(world)


def test_exchange_swaps_both_objects_and_keeps_their_integrities() -> None:
    world = parse_kg(PRELUDE + "break(b, k). exchange(a, b, o, k).")
    model = solve_kg(world)
    assert model.timeline[2] == {"o": State("b", "b", "intact"), "k": State("a", "a", "broken")}
    assert model.affected[2] == ("o", "k")
    assert model.depths == {"o": 1, "k": 2}


def test_inertia_other_objects_keep_their_state() -> None:
    world = parse_kg(PRELUDE + "loan(b, c, k). sale(a, c, o). break(c, k). return(c, b, k).")
    model = solve_kg(world)
    assert [tuple(states["k"]) for states in model.timeline] == [
        ("b", "b", "intact"),
        ("b", "c", "intact"),
        ("b", "c", "intact"),
        ("b", "c", "broken"),
        ("b", "b", "broken"),
    ]
    assert model.affected == ((), ("k",), ("o",), ("k",), ("k",))


def test_two_owners_are_a_conflict_not_a_model() -> None:
    """A world built without its checks, exchanging an object for itself, would give it two
    owners: the encoding flags it and solve_kg refuses it."""
    world = parse_kg(PRELUDE)
    broken = KgWorld(
        world.persons,
        world.objects,
        world.declarations,
        (Event("exchange", ("a", "b"), ("o", "o")),),
    )
    assert [str(atom) for atom in ground_kg(broken).atoms("conflict", 2)] == ['conflict("o",1)']
    with pytest.raises(Conflict, match="o has no single state at time 1"):
        solve_kg(broken)


# Kinship ------------------------------------------------------------------------------------

#: The gender an inverse forces on the second person of a fact, where one does.
SECOND_GENDER = {"husband": "female", "wife": "male"}


def path_world(rule: Rule, declared: bool = False) -> KgWorld:
    """Persons p0, ..., pn with the facts path[i](p_i, p_(i+1)), genders as the path needs."""
    hops = len(rule.path)
    genders = [RELATION_GENDER.get(relation, "male") for relation in rule.path]
    genders.append(SECOND_GENDER.get(rule.path[-1], "male"))
    persons = [Person(f"p{index}", gender) for index, gender in enumerate(genders)]
    facts = [
        KinshipFact(relation, f"p{index}", f"p{index + 1}")
        for index, relation in enumerate(rule.path)
    ]
    assert len(persons) == hops + 1
    return KgWorld.build([*persons, *facts, *([rule] if declared else [])])


@pytest.mark.parametrize("rule", STANDARD_RULES, ids=lambda rule: rule.name)
def test_each_standard_rule(rule: Rule) -> None:
    world = path_world(rule)
    model = solve_kg(world)
    assert (rule.name, "p0", f"p{rule.hop}") in model.relations
    assert model.relations == kinship(world)


def test_inverse_closure_follows_genders() -> None:
    world = parse_kg(
        "person m: female. person d: female. person s: male. person h: male. person f: male.\n"
        "mother(m, d). father(h, s). wife(m, h). sister(d, s). friend(f, m).\n"
    )
    closed = {
        relation
        for relation in solve_kg(world).relations
        if relation[0] in RELATION_GENDER or relation[0] == "friend"
    }
    assert closed == {
        ("mother", "m", "d"),
        ("daughter", "d", "m"),
        ("father", "h", "s"),
        ("son", "s", "h"),
        ("wife", "m", "h"),
        ("husband", "h", "m"),
        ("sister", "d", "s"),
        ("brother", "s", "d"),
        ("friend", "f", "m"),
        ("friend", "m", "f"),
    }


def test_declared_rules() -> None:
    world = parse_kg(
        "person a: male. person b: male. person c: female. person d: male.\n"
        "friend(a, b). friend(b, d). sister(c, a).\n"
        "rule pal_of_pal: friend, friend.\n"
        "rule sisters_pal_of_pal: sister, friend, friend.\n"
        "rule uncle: brother, father.\n"
    )
    model = solve_kg(world)
    mine = {relation for relation in model.relations if relation[0].endswith("pal")}
    # x != z: friend(a, b), friend(b, a) does not make a their own pal of a pal.
    assert mine == {
        ("pal_of_pal", "a", "d"),
        ("pal_of_pal", "d", "a"),
        ("sisters_pal_of_pal", "c", "a"),
        ("sisters_pal_of_pal", "c", "d"),
    }
    assert model.relations == kinship(world)


def test_each_path_is_followed_on_its_own() -> None:
    """linked has two paths of different lengths: neither's prefix completes the other, and
    no path mixes their relations (friend, brother, friend would give linked(b, c))."""
    world = parse_kg(
        "person a: male. person b: male. person c: male.\n"
        "person d: male. person e: male. person f: male.\n"
        "friend(a, b). father(b, c). brother(d, e). brother(e, a). father(a, f). friend(e, c).\n"
        "rule linked: friend, father.\nrule linked: brother, brother, friend.\n"
    )
    model = solve_kg(world)
    assert {(x, y) for relation, x, y in model.composite if relation == "linked"} == {
        ("a", "c"),
        ("b", "f"),
        ("d", "b"),
        ("a", "b"),
        ("e", "c"),
    }
    assert model.relations == kinship(world)


def test_random_worlds_derive_along_further_paths() -> None:
    """The random worlds of the agreement tests derive relations along paths beyond each
    relation's first."""
    further = 0
    for seed in range(240):
        world = kg_worlds.random_world(seed)
        first = {rule.name: rule for rule in reversed(world.all_rules)}
        single = replace(
            world, rules=tuple(rule for rule in world.rules if first[rule.name] == rule)
        )
        further += kinship(single) < kinship(world)
    assert further >= 50


# Limits -------------------------------------------------------------------------------------


def friendship(persons: int) -> KgWorld:
    """A complete friendship graph with a declared three-hop rule along it."""
    names = [f"p{index}" for index in range(persons)]
    return KgWorld(
        tuple(Person(name, "male") for name in names),
        facts=tuple(
            KinshipFact("friend", x, y) for i, x in enumerate(names) for y in names[i + 1 :]
        ),
        rules=(Rule("pal3", ("friend", "friend", "friend")),),
    )


def test_kinship_paths_stop_at_the_time_limit() -> None:
    world = friendship(300)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="time limit of 1.5 s"):
        solve_kg(world, Limits(seconds=1.5))
    assert time.monotonic() - started < 1.5 + GRACE


def test_kinship_paths_stop_at_the_instantiation_limit() -> None:
    with pytest.raises(LimitExceeded, match="more than 50,000"):
        solve_kg(friendship(100), Limits(instantiations=50_000))


def test_long_timelines_stop_at_the_limits() -> None:
    objects = [f"o{index}" for index in range(1000)]
    world = KgWorld(
        (Person("a", "female"), Person("b", "male")),
        tuple(map(Object, objects)),
        tuple(Declaration("own", "a", thing) for thing in objects),
        tuple(
            Event(
                "loan" if t % 2 == 0 else "return",
                ("a", "b") if t % 2 == 0 else ("b", "a"),
                ("o0",),
            )
            for t in range(3000)
        ),
    )
    started = time.monotonic()
    with pytest.raises(LimitExceeded):
        solve_kg(world, Limits(seconds=1.5))
    assert time.monotonic() - started < 1.5 + GRACE
    with pytest.raises(LimitExceeded, match="more than 100,000"):
        solve_kg(world, Limits(instantiations=100_000))


# argc check world.kg --------------------------------------------------------------------------


def test_check_prints_the_timeline_and_relations(capsys) -> None:
    assert main(["check", str(WORKED)]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("worked_example.kg: KG world: 9 persons, 2 objects, 8 events")
    words = [" ".join(line.split()) for line in lines[1:10]]
    assert words[0] == (
        "0 initial red_ball (alice_smith, alice_smith, intact);"
        " old_lamp (bob_jones, bob_jones, intact)"
    )
    assert words[7] == (
        "7 exchange(dan_brown, bob_jones, red_ball, old_lamp)"
        " red_ball (bob_jones, bob_jones, intact); old_lamp (dan_brown, dan_brown, intact)"
    )
    assert (
        words[8] == "8 loan(dan_brown, eve_black, old_lamp) old_lamp (dan_brown, eve_black, intact)"
    )
    assert lines[10] == "depths: red_ball 5, old_lamp 4"
    assert lines[11] == "derived relations: 14"
    assert "  cousin(ian_brown, frank_brown)" in lines[12:]
    assert "  friends_wife(carol_white, alice_smith)" in lines[12:]
    assert len(lines) == 26


def test_check_json(capsys) -> None:
    assert main(["check", "--json", str(WORKED)]) == EXIT_OK
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {"file", "persons", "kinship", "timeline", "depths", "relations"}
    assert record["persons"]["alice_smith"] == "female" and len(record["persons"]) == 9
    assert ["father", "dan_brown", "frank_brown"] in record["kinship"]
    assert record["file"].endswith("worked_example.kg")
    assert len(record["timeline"]) == 9
    assert record["timeline"][0]["event"] is None
    assert record["timeline"][7] == {
        "time": 7,
        "event": "exchange(dan_brown, bob_jones, red_ball, old_lamp)",
        "affects": ["red_ball", "old_lamp"],
        "states": {
            "red_ball": {"owner": "bob_jones", "possessor": "bob_jones", "integrity": "intact"},
            "old_lamp": {"owner": "dan_brown", "possessor": "dan_brown", "integrity": "intact"},
        },
    }
    assert record["depths"] == {"red_ball": 5, "old_lamp": 4}
    assert ["cousin", "ian_brown", "frank_brown"] in record["relations"]
    assert all(relation[0] not in RELATION_GENDER for relation in record["relations"])
    assert len(record["relations"]) == 14


def test_check_reports_input_errors_with_exit_2(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.kg"
    bad.write_text("person a: male.\nobject o.\nown(a, o).\nbreak(a, o).\nrepair(a, k).\n")
    assert main(["check", str(bad)]) == EXIT_INPUT_ERROR
    assert "bad.kg:5:11: unknown object 'k'" in capsys.readouterr().err
    assert main(["check", "--json", str(bad)]) == EXIT_INPUT_ERROR
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {"file", "error"}


def test_check_stops_a_hostile_world_at_its_time_limit(tmp_path) -> None:
    path = tmp_path / "friends.kg"
    path.write_text(friendship(150).to_text())
    done = subprocess.run(
        [str(Path(sys.executable).with_name("argc")), "check", "--time-limit", "2", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == EXIT_INPUT_ERROR
    assert "friends.kg: time limit of 2 s exceeded" in done.stderr


def test_check_warns_about_options_that_only_theories_use(capsys) -> None:
    assert main(["check", str(WORKED), "--semantics", "preferred", "--explain", "x"]) == 0
    err = capsys.readouterr().err
    assert "--semantics applies to theories, not to KG worlds" in err
    assert "--explain applies to theories" in err
    assert main(["check", str(WORKED)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_check_counts_agree_in_number(tmp_path, capsys) -> None:
    path = tmp_path / "one.kg"
    path.write_text(
        "person alice_smith: female.\nobject red_ball.\nown(alice_smith, red_ball).\n"
        "break(alice_smith, red_ball).\n",
        encoding="utf-8",
    )
    assert main(["check", str(path)]) == EXIT_OK
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .endswith("one.kg: KG world: 1 person, 1 object, 1 event")
    )
