"""The example theories: each parses, round-trips, solves, and gives its documented outcome.

The expected statuses below are the ones each example's header comment documents (the
textbook or paper outcome). They are checked against the engine, never adjusted to it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from argc.compiler import query, solve
from argc.dsl import Literal, Ordering, Theory, parse_intervention, parse_theory, read_theory
from argc.tasks import Instance, Score, get_task, score
from argc.tasks.framework import Candidate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(path.name for path in EXAMPLES.glob("*.arg"))


def statuses(text: str) -> dict[Literal, str]:
    """`"a: justified, -b: overruled"` → {Literal: status}."""
    found = {}
    for item in text.split(","):
        claim, status = item.split(":")
        found[Literal.parse(claim)] = status.strip()
    return found


#: The outcome each file's header documents, under the file's own ordering and semantics.
EXPECTED = {
    "modgil_prakken_snores.arg": statuses(
        "misbehaves: justified, professor: justified, -d1: justified,"
        " may_remove: overruled, -may_remove: justified"
    ),
    "modgil_prakken_tweety.arg": statuses(
        "penguin: justified, bird: justified, flies: overruled, -flies: justified"
    ),
    "modgil_prakken_last_vs_weakest_link.arg": statuses(
        "dutch: justified, liable_tax: justified, -liable_tax: overruled"
    ),
    "modgil_prakken_married_bachelor.arg": statuses(
        "wears_ring: justified, parties: justified, married: undecided, bachelor: undecided,"
        " has_wife: undecided, -has_wife: undecided"
    ),
    "arggym_c1_status_query.arg": statuses(
        "ls2: undecided, mo0: justified, ik2: undecided, dv8: overruled, mk7: overruled,"
        " ho7: justified"
    ),
    "arggym_c2_defeat_diagnosis.arg": statuses(
        "im1: overruled, iq0: overruled, -fl4: justified, -so1: justified, -cs7: justified,"
        " -ik2: justified"
    ),
    "arggym_c3_counterargument.arg": statuses(
        "au0: justified, -au0: overruled, lq4: justified, by3: justified, hu0: justified,"
        " -hu0: overruled, kt8: justified, ju8: justified, -ju8: overruled"
    ),
}

#: The header settings each file declares.
ORDERINGS = {
    "modgil_prakken_snores.arg": "last-link elitist",
    "modgil_prakken_tweety.arg": "last-link elitist",
    "modgil_prakken_last_vs_weakest_link.arg": "last-link elitist",
    "modgil_prakken_married_bachelor.arg": None,
    "arggym_c1_status_query.arg": "last-link democratic",
    "arggym_c2_defeat_diagnosis.arg": "last-link democratic",
    "arggym_c3_counterargument.arg": "weakest-link elitist",
}

ORDERING_NAMES = (
    "last-link elitist",
    "last-link democratic",
    "weakest-link elitist",
    "weakest-link democratic",
)


def load(name: str) -> Theory:
    return read_theory(EXAMPLES / name)


def assert_statuses(theory: Theory, expected: dict[Literal, str], **options) -> None:
    solution = solve(theory, **options)
    found = {claim: solution.status(claim) for claim in expected}
    assert found == expected


def without_rules(theory: Theory, *names: str) -> Theory:
    return replace(theory, rules=tuple(rule for rule in theory.rules if rule.name not in names))


# Every example ------------------------------------------------------------------------------


def test_every_example_is_covered():
    assert FILES, "no example theories found"
    assert set(FILES) == set(EXPECTED) == set(ORDERINGS)
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for name in FILES:
        assert f"`{name}`" in readme


@pytest.mark.parametrize("name", FILES)
def test_example_parses_and_round_trips(name):
    theory = load(name)
    assert parse_theory(theory.to_text()) == theory
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert parse_theory(text, name) == theory


@pytest.mark.parametrize("name", FILES)
def test_example_header(name):
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert text.startswith("%"), "an example starts with comments naming its source"
    assert "Source:" in text and "Expected" in text
    theory = load(name)
    assert theory.queries, "an example names its interesting claims in a [query: ...] header"
    ordering = ORDERINGS[name]
    assert theory.ordering == (Ordering.parse(ordering) if ordering else None)


@pytest.mark.parametrize("name", FILES)
def test_example_solves_to_documented_statuses(name):
    theory = load(name)
    solution = solve(theory)
    assert solution.consistent
    assert solution.arguments
    for claim in theory.queries:
        assert claim in solution.statuses
    assert_statuses(theory, EXPECTED[name])


@pytest.mark.parametrize("name", FILES)
def test_documented_statuses_appear_in_the_file(name):
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    for claim, status in EXPECTED[name].items():
        assert f"%   {claim}: {status}" in text


# Modgil & Prakken --------------------------------------------------------------------------


def test_snores_preference_decides_without_the_undercut():
    theory = without_rules(load("modgil_prakken_snores.arg"), "d3")
    assert_statuses(theory, statuses("may_remove: justified, -may_remove: overruled"))


@pytest.mark.parametrize("ordering", ["last-link elitist", "last-link democratic"])
def test_snores_under_last_link(ordering):
    theory = load("modgil_prakken_snores.arg")
    assert_statuses(
        theory, EXPECTED["modgil_prakken_snores.arg"], ordering=Ordering.parse(ordering)
    )


@pytest.mark.parametrize("ordering", ORDERING_NAMES)
def test_tweety_under_every_ordering(ordering):
    theory = load("modgil_prakken_tweety.arg")
    assert_statuses(
        theory, EXPECTED["modgil_prakken_tweety.arg"], ordering=Ordering.parse(ordering)
    )


def test_tweety_without_the_preference_is_undecided():
    theory = replace(load("modgil_prakken_tweety.arg"), rule_preferences=())
    assert_statuses(theory, statuses("flies: undecided, -flies: undecided"))


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("last-link elitist", "liable_tax: justified, -liable_tax: overruled"),
        ("last-link democratic", "liable_tax: justified, -liable_tax: overruled"),
        ("weakest-link elitist", "liable_tax: overruled, -liable_tax: justified"),
        ("weakest-link democratic", "liable_tax: justified, -liable_tax: overruled"),
    ],
)
def test_last_link_and_weakest_link_disagree(ordering, expected):
    theory = load("modgil_prakken_last_vs_weakest_link.arg")
    assert_statuses(
        theory,
        {**statuses("dutch: justified"), **statuses(expected)},
        ordering=Ordering.parse(ordering),
    )


@pytest.mark.parametrize("ordering", ORDERING_NAMES)
def test_married_bachelor_under_every_ordering(ordering):
    theory = load("modgil_prakken_married_bachelor.arg")
    assert_statuses(
        theory,
        EXPECTED["modgil_prakken_married_bachelor.arg"],
        ordering=Ordering.parse(ordering),
    )


def test_married_bachelor_without_transpositions_is_inconsistent():
    theory = without_rules(load("modgil_prakken_married_bachelor.arg"), "t1", "t2")
    solution = solve(theory)
    assert not solution.consistent
    assert solution.status(Literal("has_wife")) == "justified"
    assert solution.status(Literal("has_wife", negated=True)) == "justified"


# ArgGYM ------------------------------------------------------------------------------------

PAPER_DIRECTIVES = {
    "arggym_c1_status_query.arg": """
        [premise: ko9] [axiom: mp0] [premise: -lp3] [premise: kk6] [premise: lp3]
        [defeasible vo8: ko9 => ls2] [defeasible mi1: ls2 => ik2]
        [defeasible hy5: lq8 => dv8] [defeasible hi2: gn5 => -ls2]
        [defeasible ve8: mk7 => lq8]
        [prefer_premise: -mk7 > mk7] [prefer_premise: -lp3 > lp3]
    """,
    "arggym_c2_defeat_diagnosis.arg": """
        [premise: al9] [premise: fl4] [premise: -fl4] [premise: br3] [premise: fv8]
        [defeasible ta7: iq0 => im1] [defeasible so1: bw7 => lp5]
        [defeasible fu0: -ik2 => bw7] [defeasible ve3: mo9 => bv5]
        [defeasible ga3: bv5 => cs7]
        [prefer_premise: -fl4 > fl4] [prefer_premise: -ik2 > ik2] [prefer_rule: vo7 > ga3]
    """,
    "arggym_c3_counterargument.arg": """
        [premise: gv9] [premise: hq8] [premise: jr5] [premise: -kp2] [premise: -ay2]
        [axiom: bv4]
        [defeasible fy9: by3 AND hu0 => lq4] [defeasible za8: -kp2 => gu6]
        [strict hu2: lq4 -> au0] [defeasible ji8: bt8 => by3]
        [defeasible su9: km2 AND gq4 => by7] [strict xi0: bv4 -> kt8]
        [defeasible ha8: cm8 => -ju8]
        [prefer_premise: -kp2 > kp2] [prefer_rule: mi6 > ha8]
    """,
}


@pytest.mark.parametrize("name", sorted(PAPER_DIRECTIVES))
def test_arggym_example_keeps_every_directive_the_paper_shows(name):
    shown = set(parse_intervention(PAPER_DIRECTIVES[name]))
    kept = set(load(name).directives())
    assert shown <= kept


def test_arggym_c1_is_a_level_2_status_query_instance():
    theory = load("arggym_c1_status_query.arg")
    ordering = Ordering.parse("last-link democratic")
    task = get_task("status_query")
    result = query(theory, task.program, ordering=ordering)
    assert result.satisfiable  # the task's gates admit it
    candidate = Candidate(theory)
    target = task.target(candidate, result, ordering)
    paper = "\n".join(
        ["ls2: undecided", "mo0: justified", "ik2: undecided"]
        + ["dv8: overruled", "mk7: overruled", "ho7: justified"]
    )
    assert target == dict(line.split(": ") for line in paper.splitlines())
    assert task.reference(target) == paper
    instance = Instance(
        id="arggym-c1", task="status_query", level=2, ordering=ordering.principle,
        set=ordering.set_comparison, seed=0, theory=theory.to_text(),
        prompt=task.prompt(candidate, target, ordering), reference=task.reference(target),
        target=target, meta={},
    )  # fmt: skip
    assert score(instance, f"<answer>{paper}</answer>") == Score(1.0, True, "all statuses correct")


def test_arggym_c2_failure_points():
    solution = solve(load("arggym_c2_defeat_diagnosis.arg"))
    targets = {argument.name for argument in solution.arguments_for(Literal("im1"))}
    assert len(targets) == 3
    assert all(target not in solution.grounded for target in targets)

    def point(attack):
        argument = solution.arguments[attack.on]
        attacker = solution.arguments[attack.attacker]
        at = str(argument.conclusion) if attack.kind != "undercut" else argument.top_rule
        if attack.kind == "undermine":
            return at, str(attacker.conclusion), attack.kind
        return at, attacker.top_rule, attack.kind

    failures = {
        point(attack)
        for attack in solution.attacks
        if attack.attacked in targets and attack.defeat and attack.attacker in solution.grounded
    }
    assert failures == {
        ("fl4", "-fl4", "undermine"),
        ("so1", "ze6", "undercut"),
        ("cs7", "vo7", "rebut"),
    }

    # ze6 and vo7 are defeated by si5 and pu0, whose attacks are themselves defeated.
    def survives_because(rule: str) -> set[str]:
        (defeater,) = (
            name for name, argument in solution.arguments.items() if argument.top_rule == rule
        )
        assert defeater in solution.grounded
        attackers = {
            attack.attacker
            for attack in solution.attacks
            if attack.attacked == defeater and attack.defeat
        }
        assert attackers and all(solution.label(attacker) == "out" for attacker in attackers)
        return {solution.arguments[attacker].top_rule for attacker in attackers}

    assert survives_because("ze6") == {"si5"}
    assert survives_because("vo7") == {"pu0"}


def test_arggym_c3_reference_intervention():
    theory = load("arggym_c3_counterargument.arg")
    intervention = parse_intervention("[strict cs: gv9 -> -au0]\n[strict u1: gv9 -> -ji8]")
    solution = solve(theory.apply(intervention))
    assert solution.ordering == Ordering.parse("weakest-link elitist")
    assert solution.consistent
    assert solution.status(Literal("au0")) == "overruled"
    assert solution.status(Literal("au0", negated=True)) == "justified"
