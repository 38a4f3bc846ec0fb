"""The KG task families: the paper's worked solutions (Tables 9, 14, 15) reproduced and
scored, generated instances over the whole grid checked against the reference simulator,
rewards and hostile completions."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from kg_paper_solutions import (
    TABLE9_ABDUCTIVE,
    TABLE9_ANALOGY,
    TABLE9_DEDUCTIVE,
    TABLE9_INDUCTIVE,
    TABLE14_ABDUCTIVE,
    TABLE14_DEDUCTIVE,
    TABLE15_ANALOGY,
    TABLE15_INDUCTIVE,
)

from argc.compiler.kg.abduce import abduce
from argc.compiler.kg.solve import solve_kg
from argc.dsl.kg import parse_kg, read_kg, simulate
from argc.dsl.kg.world import Event
from argc.tasks import score
from argc.tasks.kg.families import FAMILIES, FORMS, generate_instance, ordinal
from argc.tasks.kg.names import person_words
from argc.tasks.kg.solutions import (
    Analogy,
    Induction,
    answer_match,
    parse_missing,
    parse_solution,
    process_match,
    solution_text,
)
from argc.tasks.kg.traces import abduction, action, deduction, kinship_chain
from argc.train.rewards import kg_answer_reward, kg_process_reward, make_kg_gated_reward

ROOT = Path(__file__).resolve().parent.parent
TABLE9 = ROOT / "examples" / "kg" / "table9.kg"
#: The one name the `.kg` identifiers cannot capitalise as the paper does.
PAPER_NAMES = {"Andrea Bryson McCaffrey": "Andrea Bryson Mccaffrey"}


def _ours(text: str) -> str:
    for paper, ours in PAPER_NAMES.items():
        text = text.replace(paper, ours)
    return text


def _person(name: str) -> str:
    return name.lower().replace(" ", "_")


# The worked example of Table 9


def test_table9_deductive_trace_and_answer_are_the_papers():
    model = solve_kg(read_kg(TABLE9))
    solution = deduction(model, "ivory_chess_piece", 10, "possessor")
    assert solution.answer == "Eric Aston Fairbanks"
    assert solution_text(solution) == _ours(TABLE9_DEDUCTIVE)


def test_table9_abductive_gap_is_the_exchange():
    world = read_kg(TABLE9)
    exchange = next(event for event in world.events if event.kind == "exchange")
    solution = abduction(solve_kg(world), "ivory_chess_piece", exchange)
    assert solution_text(solution) == _ours(TABLE9_ABDUCTIVE)
    accepted = {
        action(e, "ivory_chess_piece").text() for e in abduce(world, "ivory_chess_piece", exchange)
    }
    assert accepted == {
        "Charity Lark Amberley exchanges the ivory chess piece with Esther Delvin Murdoch for"
        " the ebony cane"
    }


STATIC_PERSONS = """
person bonnie_ansel_barncastle: female.
person pauline_beckett_brookhaven: male.
person phyllis_euan_ames: female.
person antonio_beck_harmon: male.
sister(bonnie_ansel_barncastle, pauline_beckett_brookhaven).
father(pauline_beckett_brookhaven, phyllis_euan_ames).
mother(phyllis_euan_ames, antonio_beck_harmon).
"""
GREAT_AUNT = ("sister", "father", "mother")
SUPPORT = (
    (
        "agnes_drummond_fielding",
        "charity_lark_amberley",
        "jacqueline_coby_pettigrew",
        "andrea_bryson_mccaffrey",
    ),
    (
        "edward_delvin_clements",
        "cyril_amias_devonshire",
        "bella_aether_ainsworth",
        "andrew_essex_northcott",
    ),
)
QUERY = (
    "bonnie_ansel_barncastle",
    "pauline_beckett_brookhaven",
    "phyllis_euan_ames",
    "antonio_beck_harmon",
)


def test_table9_inductive_rule_is_great_aunt_along_the_planted_path():
    world = parse_kg(TABLE9.read_text() + STATIC_PERSONS)
    relations = solve_kg(world).relations
    for chain in (*SUPPORT, QUERY):
        assert ("great_aunt", chain[0], chain[-1]) in relations
        for relation, first, second in zip(GREAT_AUNT, chain, chain[1:], strict=False):
            assert (relation, first, second) in relations
    composite = {r for r, x, z in relations if (x, z) == (QUERY[0], QUERY[-1])}
    assert composite == {"great_aunt"}
    solution = Induction(
        tuple(kinship_chain(chain, GREAT_AUNT, "great_aunt") for chain in SUPPORT),
        GREAT_AUNT,
        "great-aunt",
        kinship_chain(QUERY, GREAT_AUNT, "great_aunt"),
        "great-aunt",
    )
    assert solution_text(solution) == _ours(TABLE9_INDUCTIVE)


def test_table9_analogy_answer_is_the_only_person_the_path_reaches():
    model = solve_kg(read_kg(TABLE9))
    source, target = SUPPORT
    reached = {target[0]}
    for relation in GREAT_AUNT:
        reached = {z for r, y, z in model.relations if r == relation and y in reached}
    assert reached == {"andrew_essex_northcott"}
    solution = Analogy(
        kinship_chain(source, GREAT_AUNT, "great_aunt"),
        kinship_chain(target, GREAT_AUNT, "great_aunt"),
        "Andrew Essex Northcott",
    )
    assert solution_text(solution) == _ours(TABLE9_ANALOGY)


# The parsing examples of Tables 14 and 15, scored against gold solutions of their worlds

COPPER_COIN = """
person arthur_brolin_bellingham: male. person mason_kent_glendale: male.
person helen_rufus_oaksworth: female. person amber_blair_houghton: female.
object copper_coin.
own(arthur_brolin_bellingham, copper_coin).
gift(arthur_brolin_bellingham, mason_kent_glendale, copper_coin).
loan(mason_kent_glendale, helen_rufus_oaksworth, copper_coin).
return(helen_rufus_oaksworth, mason_kent_glendale, copper_coin).
sale(mason_kent_glendale, amber_blair_houghton, copper_coin).
"""
LEATHER_BAG = """
person ariana_reef_nelson: female. person connor_arbor_wolcott: male.
object leather_bag.
own(ariana_reef_nelson, leather_bag).
break(ariana_reef_nelson, leather_bag).
loan(ariana_reef_nelson, connor_arbor_wolcott, leather_bag).
return(connor_arbor_wolcott, ariana_reef_nelson, leather_bag).
loan(ariana_reef_nelson, connor_arbor_wolcott, leather_bag).
repair(connor_arbor_wolcott, leather_bag).
"""


def test_table14_deductive_parses_to_the_shown_structure_and_scores_one():
    parsed = parse_solution(TABLE14_DEDUCTIVE, "deductive")
    assert parsed.object == "the copper coin"
    assert [step.action.kind for step in parsed.steps] == ["gift", "loan", "return", "sale"]
    assert [(s.after.owner.split()[0], s.after.possessor.split()[0]) for s in parsed.steps] == [
        ("Mason", "Mason"),
        ("Mason", "Helen"),
        ("Mason", "Mason"),
        ("Amber", "Amber"),
    ]
    assert parsed.answer == "Amber Blair Houghton"
    gold = deduction(solve_kg(parse_kg(COPPER_COIN)), "copper_coin", 4, "possessor")
    assert process_match(parsed, gold)
    assert answer_match(parsed.answer, (gold.answer,), "deductive")


def test_table14_abductive_parses_to_the_shown_structure_and_scores_one():
    parsed = parse_solution(TABLE14_ABDUCTIVE, "abductive")
    assert [step.action.kind for step in parsed.steps] == [
        "repair",
        "loan",
        "return",
        "loan",
        "break",
    ]
    assert parsed.required_initial is not None and parsed.gap is None
    assert parsed.answer == "Ariana Reef Nelson own the leather bag"
    world = parse_kg(LEATHER_BAG)
    declaration = world.declarations[0]
    gold = abduction(solve_kg(world), "leather_bag", declaration)
    accepted = tuple(
        action(e, "leather_bag").text() for e in abduce(world, "leather_bag", declaration)
    )
    assert process_match(parsed, gold)
    assert answer_match(parsed.answer, accepted, "abductive")
    assert set(accepted) == {
        "Ariana Reef Nelson own the leather bag",
        "Ariana Reef Nelson create the leather bag",
    }


def _static(rule: str, path: str, chains: list[tuple[str, ...]]) -> str:
    genders = {}
    facts = []
    relations = path.split(", ")
    for chain in chains:
        for relation, first, second in zip(relations, chain, chain[1:], strict=False):
            facts.append(f"{relation}({_person(first)}, {_person(second)}).")
            genders[first] = "male" if relation == "brother" else "female"
        genders.setdefault(chain[-1], "male")
    persons = "".join(f"person {_person(p)}: {g}.\n" for p, g in genders.items())
    return f"{persons}{''.join(facts)}\nrule {rule}: {path}.\n"


def test_table15_inductive_parses_to_the_shown_structure_and_scores_one():
    parsed = parse_solution(TABLE15_INDUCTIVE, "inductive")
    assert (parsed.path, parsed.rule, parsed.query.rule, parsed.answer) == (
        ("sister", "mother"),
        "aunt",
        "aunt",
        "aunt",
    )
    chains = [example.persons for example in parsed.examples] + [parsed.query.persons]
    world = parse_kg(_static("aunt", "sister, mother", chains))
    relations = solve_kg(world).relations
    assert all(("aunt", _person(c[0]), _person(c[-1])) in relations for c in chains)
    gold = Induction(
        tuple(
            kinship_chain(tuple(map(_person, c)), ("sister", "mother"), "aunt") for c in chains[:2]
        ),
        ("sister", "mother"),
        "aunt",
        kinship_chain(tuple(map(_person, chains[2])), ("sister", "mother"), "aunt"),
        "aunt",
    )
    assert process_match(parsed, gold)
    assert answer_match(parsed.answer, ("aunt",), "inductive")


def test_table15_analogy_parses_to_the_shown_structure_and_scores_one():
    parsed = parse_solution(TABLE15_ANALOGY, "analogy")
    assert (parsed.source.relations, parsed.source.rule, parsed.target.rule) == (
        ("brother", "mother"),
        "uncle",
        "uncle",
    )
    assert parsed.target.persons[-1] == parsed.answer == "Julia Thane Burleigh"
    world = parse_kg(
        _static("uncle", "brother, mother", [parsed.source.persons, parsed.target.persons])
    )
    assert ("uncle", "emma_adair_cromwell", "julia_thane_burleigh") in solve_kg(world).relations
    path = ("brother", "mother")
    gold = Analogy(
        kinship_chain(tuple(map(_person, parsed.source.persons)), path, "uncle"),
        kinship_chain(tuple(map(_person, parsed.target.persons)), path, "uncle"),
        "Julia Thane Burleigh",
    )
    assert process_match(parsed, gold)


# Generated instances over the grid


def _expected_backward(world, target, masked):
    """The abductive trace's states from the definitions: the visible target events from the
    last back, each with its states, until an after-state differs from the next before-state."""
    states = simulate.timeline(world)
    times = [t for t, e in enumerate(world.events, 1) if target in e.objects and e != masked]
    steps, ending = [], None
    for index in range(len(times) - 1, -1, -1):
        time = times[index]
        steps.append((states[time - 1][target], states[time][target]))
        if index + 1 < len(times) and states[time][target] != states[times[index + 1] - 1][target]:
            ending = ("gap", states[time][target], states[times[index + 1] - 1][target])
            break
    else:
        first = states[times[0] - 1][target]
        ending = (
            ("initial", states[0][target], first)
            if isinstance(masked, Event)
            else ("required", first)
        )
    return steps, ending


def _words(state):
    return (person_words(state.owner), person_words(state.possessor), state.integrity)


CELLS = [(d, t) for d in range(1, 11) for t in range(1, 7)]


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_instances_hit_their_cell_and_their_traces_follow_the_simulator(family):
    seen_forms = set()
    for index, (depth, complexity) in enumerate(CELLS):
        instance = generate_instance(family, depth, complexity, index)
        world, target = instance.world, instance.target
        assert (instance.depth, instance.complexity) == (depth, complexity)
        assert simulate.depth(world, target) == depth
        seen_forms.add(instance.form)
        parsed = parse_solution(instance.trace, family)
        assert parsed == instance.solution
        if family == "deductive":
            chain = simulate.chain(world, target)
            steps = len(parsed.steps)
            if instance.form.startswith("final"):
                assert steps == depth
            else:
                assert 1 <= steps < depth and f"the {ordinal(steps)} operation" in instance.question
            assert [(_words(s)) for _, _, s in chain[:steps]] == [
                tuple(s.after) for s in parsed.steps
            ]
            slot = instance.form.split("_", 1)[1]
            last = chain[steps - 1][2]
            value = getattr(last, slot)
            assert instance.answer == (value if slot == "integrity" else person_words(value))
        elif family == "abductive":
            masked = _masked(instance)
            steps, ending = _expected_backward(world, target, masked)
            assert [tuple(map(tuple, (s.before, s.after))) for s in parsed.steps] == [
                (_words(b), _words(a)) for b, a in steps
            ]
            if ending[0] == "required":
                assert tuple(parsed.required_initial) == _words(ending[1])
            else:
                assert tuple(map(tuple, parsed.gap)) == (_words(ending[1]), _words(ending[2]))
            assert instance.answer in instance.accepted
        else:
            kinship = simulate.kinship(world)
            chains = (
                (*parsed.examples, parsed.query)
                if family == "inductive"
                else (parsed.source, parsed.target)
            )
            rule = (parsed.rule if family == "inductive" else parsed.source.rule).replace("-", "_")
            for chain in chains:
                persons = tuple(map(_person, chain.persons))
                assert (rule, persons[0], persons[-1]) in kinship
                for relation, first, second in zip(
                    chain.relations, persons, persons[1:], strict=False
                ):
                    assert (relation, first, second) in kinship
    if family in ("deductive", "abductive"):
        assert seen_forms == set(FORMS[family])


def _masked(instance):
    """The hidden element of an abductive instance: the world's element its story lacks."""
    full = instance.world
    sentence = instance.answer
    for element in (*full.declarations, *full.events):
        if action(element, instance.target).text() == sentence:
            return element
    raise AssertionError(f"no element of the world reads {sentence!r}")


def test_generation_is_deterministic():
    for family in FAMILIES:
        first = json.dumps(generate_instance(family, 5, 3, 11).row(), sort_keys=True)
        assert first == json.dumps(generate_instance(family, 5, 3, 11).row(), sort_keys=True)
        assert first != json.dumps(generate_instance(family, 5, 3, 12).row(), sort_keys=True)


def test_an_abductive_instance_accepts_every_consistent_answer():
    found = None
    for seed in range(40):
        instance = generate_instance("abductive", 4, 2, seed)
        if len(instance.accepted) > 1:
            found = instance
            break
    assert found is not None, "no abductive instance with several consistent answers"
    record = found.instance()
    other = next(answer for answer in found.accepted if answer != found.answer)
    response = found.trace.replace(f"is: {found.answer}.", f"is: {other}.")
    scored = score(record, response)
    assert scored.success, scored.reason
    assert parse_missing(other) != parse_missing(found.answer)


# Rewards and hostile completions


def _rewards(instance, completions):
    records = [instance.instance().to_json()] * len(completions)
    return (
        make_kg_gated_reward()(completions, records),
        kg_answer_reward(completions, records),
        kg_process_reward(completions, records),
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_rewards_gold_wrong_answer_and_broken_trace(family):
    instance = generate_instance(family, 4, 2, 3)
    gold = instance.trace
    wrong = gold.rsplit(instance.answer, 1)[0] + "Nobody Atall."
    gated, answer, process = _rewards(instance, [gold, wrong, _break_trace(gold, family)])
    assert gated == pytest.approx([1.0, 0.0, 0.2])
    assert answer == [1.0, 0.0, 1.0]
    assert process == [1.0, 1.0, 0.0]


def _break_trace(gold: str, family: str) -> str:
    """The gold solution with its process damaged and its answer sentence kept."""
    body, conclusion = gold.rsplit(" Therefore,", 1)
    if family in ("deductive", "abductive"):
        swapped = body.replace("(intact)", "(X)").replace("(broken)", "(intact)")
        return swapped.replace("(X)", "(broken)") + " Therefore," + conclusion
    return body.replace(" then ", " or ", 1) + " Therefore," + conclusion


HOSTILE = [
    "",
    "Therefore, the answer is",
    "x" * 200_000,
    "Step 1: " * 5_000 + "Therefore, the answer is X.",
    "Initial state: " + "A own and possess the b (intact). " * 3_000,
    "\x00\xff" * 1000,
    "Tracing backwards. " + "Previous step: A breaks the b. " * 2_000,
]


@pytest.mark.parametrize("family", FAMILIES)
def test_hostile_completions_score_zero_quickly(family):
    instance = generate_instance(family, 3, 2, 5)
    record = instance.instance()
    started = time.monotonic()
    for completion in HOSTILE:
        scored = score(record, completion)
        assert scored.native == 0.0 and not scored.success
    rewards = _rewards(instance, HOSTILE + [None, 12, ["not", "a", "conversation"]])
    assert all(value == 0.0 for values in rewards for value in values)
    assert time.monotonic() - started < 30


def test_cli_generates_instances_that_argc_score_scores(tmp_path):
    from argc.cli import main

    out = tmp_path / "ded.jsonl"
    assert (
        main(
            [
                "kg",
                "generate",
                "--family",
                "deductive",
                "--depth",
                "3",
                "--complexity",
                "2",
                "--count",
                "3",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {row["family"] for row in rows} == {"deductive"}
    for key in ("depth", "complexity", "world", "question", "trace", "answer"):
        assert all(key in row for row in rows)
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(
        "".join(json.dumps({"id": r["id"], "response": r["trace"]}) + "\n" for r in rows)
    )
    results = tmp_path / "r.jsonl"
    assert main(["score", str(out), str(predictions), "--out", str(results)]) == 0
    assert all(json.loads(line)["success"] for line in results.read_text().splitlines())


def test_cli_solve_reports_the_target_timeline(capsys):
    from argc.cli import main

    assert main(["kg", "solve", str(TABLE9), "--target", "ivory_chess_piece", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["depth"] == 10 and len(record["timeline"]) == 10
    assert record["final"]["ivory_chess_piece"]["owner"] == "eric_aston_fairbanks"
    assert ["great_aunt", "agnes_drummond_fielding", "andrea_bryson_mccaffrey"] in record[
        "relations"
    ]


def test_cli_solve_text_aligns_the_timeline_in_columns(capsys):
    from argc.cli import main

    assert main(["kg", "solve", str(TABLE9), "--target", "ivory_chess_piece"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[1]
    assert header.split() == ["time", "event", "(owner,", "possessor,", "integrity)"]
    rows = lines[2:13]
    assert rows[0].split()[0] == "initial" and rows[-1].split()[0] == "13"
    states = {row.rindex("(") for row in rows}
    assert states == {header.rindex("(")}
    final = lines[lines.index("final states (owner, possessor, integrity):") + 1 :][:2]
    assert len({row.index("(") for row in final}) == 1
