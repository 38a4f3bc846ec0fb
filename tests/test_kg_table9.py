"""The worked example of the depth-complexity paper's Table 9 (examples/kg/table9.kg): the
target object's timeline and the states of its deductive trace, the second object's chain,
and the planted great-aunt path, in the reference simulator and in ASP."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from test_kg_asp import assert_agrees

from argc.cli import main
from argc.compiler.cli import EXIT_OK
from argc.compiler.kg.solve import solve_kg
from argc.dsl.kg import State, chain, kinship, parse_kg, read_kg
from argc.tasks.kg.names import object_words, person_words

TABLE9 = Path(__file__).resolve().parent.parent / "examples" / "kg" / "table9.kg"
WORLD = read_kg(TABLE9)
TARGET = "ivory_chess_piece"

#: The persons of the story as it writes them.
STORY_PERSONS = {
    "Karen Baylor Sawyer",
    "Esther Delvin Murdoch",
    "Agnes Drummond Fielding",
    "Charity Lark Amberley",
    "Dustin Keith Ravenscroft",
    "Jacqueline Coby Pettigrew",
    "Andrea Bryson McCaffrey",
    "Edward Delvin Clements",
    "Cyril Amias Devonshire",
    "Bella Aether Ainsworth",
    "Andrew Essex Northcott",
    "Eric Aston Fairbanks",
    "Denise Hanley Glendale",
}
#: The deductive trace of Table 9: the initial state, then the state after each of the ten
#: events on the ivory chess piece, as (owner, possessor, integrity) by first name.
TRACE = [
    ("karen", "karen", "intact"),
    ("charity", "charity", "intact"),
    ("charity", "dustin", "intact"),
    ("charity", "charity", "intact"),
    ("charity", "charity", "broken"),
    ("esther", "esther", "broken"),
    ("esther", "esther", "intact"),
    ("esther", "esther", "broken"),
    ("karen", "karen", "broken"),
    ("karen", "karen", "intact"),
    ("eric", "eric", "intact"),
]
#: The planted great-aunt pairs, along (sister, father, mother).
GREAT_AUNTS = {
    ("great_aunt", "agnes_drummond_fielding", "andrea_bryson_mccaffrey"),
    ("great_aunt", "edward_delvin_clements", "andrew_essex_northcott"),
}


def _first_names(state: State) -> tuple[str, ...]:
    return (state.owner.split("_")[0], state.possessor.split("_")[0], state.integrity)


def test_it_names_the_story_s_persons_and_objects() -> None:
    assert {person_words(person.name) for person in WORLD.persons} == {
        name.replace("McCaffrey", "Mccaffrey") for name in STORY_PERSONS
    }
    assert [object_words(thing.name) for thing in WORLD.objects] == [
        "the ivory chess piece",
        "the ebony cane",
    ]
    assert parse_kg(WORLD.to_text()) == WORLD


def test_the_target_has_depth_10_and_the_paper_s_deductive_trace() -> None:
    model = solve_kg(WORLD)
    assert model.depths == {TARGET: 10, "ebony_cane": 4}
    steps = chain(WORLD, TARGET)
    assert [event.kind for _, event, _ in steps] == [
        "sale",
        "loan",
        "return",
        "break",
        "exchange",
        "repair",
        "break",
        "gift",
        "repair",
        "sale",
    ]
    times = [0, *(time for time, _, _ in steps)]
    assert [_first_names(model.timeline[time][TARGET]) for time in times] == TRACE
    assert model.timeline[-1][TARGET].owner == "eric_aston_fairbanks"


def test_the_cane_s_chain_interleaves_as_the_story_tells() -> None:
    """Esther breaks the cane before Charity breaks the chess piece; after the exchange
    Charity repairs the cane, then breaks it."""
    steps = [(time, str(event), state) for time, event, state in chain(WORLD, "ebony_cane")]
    charity, esther = "charity_lark_amberley", "esther_delvin_murdoch"
    assert steps == [
        (4, f"break({esther}, ebony_cane)", State(esther, esther, "broken")),
        (
            6,
            f"exchange({charity}, {esther}, ivory_chess_piece, ebony_cane)",
            State(charity, charity, "broken"),
        ),
        (7, f"repair({charity}, ebony_cane)", State(charity, charity, "intact")),
        (8, f"break({charity}, ebony_cane)", State(charity, charity, "broken")),
    ]
    assert str(WORLD.events[4]) == f"break({charity}, {TARGET})"


def test_the_planted_great_aunt_path() -> None:
    assert WORLD.paths("great_aunt")[-1] == ("sister", "father", "mother")
    assert kinship(WORLD) >= GREAT_AUNTS
    assert solve_kg(WORLD).relations >= GREAT_AUNTS
    assert_agrees(WORLD)
    # Along the standard path (sister, father, father) alone, neither pair is a great-aunt.
    assert not GREAT_AUNTS & kinship(replace(WORLD, rules=()))


def test_argc_check(capsys) -> None:
    assert main(["check", str(TABLE9)]) == EXIT_OK
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("table9.kg: KG world: 13 persons, 2 objects, 13 events")
    assert "depths: ivory_chess_piece 10, ebony_cane 4" in lines
    assert "  great_aunt(agnes_drummond_fielding, andrea_bryson_mccaffrey)" in lines
