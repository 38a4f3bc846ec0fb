"""defeat_diagnosis: every cell generates; references succeed; the gold agrees with PyArg and
with the paper's worked instance (C.2); the gates reject ambiguous gold; the scorer follows
Appendix B; the answer grammar is tolerant of form and strict about content; generation is
deterministic."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from oracle import oracle
from task_checks import check_contract

import argc.tasks.arggym.defeat_diagnosis as dd
from argc.compiler import query, solve
from argc.dsl import parse_theory
from argc.dsl.ir import ORDERINGS, Literal, Ordering, Theory
from argc.tasks import Instance, generate, get_task, score
from argc.tasks.answers import UnreadableAnswer
from argc.tasks.framework import CELLS, Candidate

TASK = "defeat_diagnosis"
EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture(scope="module")
def instances() -> dict[tuple[int, str], Instance]:
    return {(level, str(o)): generate(TASK, level, o, seed=level) for level, o in CELLS}


def _corrupt(reference: str) -> str:
    first, *rest = reference.splitlines()
    other = "undecided" if first.endswith("overruled") else "overruled"
    return "\n".join([f"status: {other}", *rest])


# Every cell --------------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(instances, level: int, ordering: Ordering) -> None:
    instance = instances[(level, str(ordering))]
    worse = check_contract(instance, _corrupt(instance.reference))
    assert worse.native == 0.85
    dropped = score(instance, f"<answer>{instance.reference.rsplit(chr(10), 1)[0]}</answer>")
    if len(instance.target["failures"]) > 1:
        assert dropped.native < 1.0 and not dropped.success

    knobs = dd.curriculum(level)
    target = instance.target
    assert target["status"] in ("overruled", "undecided")
    # As released: one record per route (1 to level 3, then 3), of as many kinds; from level
    # 5 a survival record on each of the two routes attacked by a rule.
    assert len(target["failures"]) == len({f["kind"] for f in target["failures"]})
    assert len(target["failures"]) == (1 if level <= 3 else 3)
    survivals = [f for f in target["failures"] if f["survives_because"]]
    assert len(survivals) == (0 if level < 5 else 2)
    if knobs.height == 0:
        assert "survives_because" not in instance.prompt
    else:
        assert "survives_because" in instance.prompt
    assert f"The claim {target['claim']} is not justified" in instance.prompt
    assert f"{ordering.principle} {ordering.set_comparison}" in instance.prompt


def test_both_statuses_occur_across_levels(instances) -> None:
    statuses = [instance.target["status"] for instance in instances.values()]
    assert statuses.count("overruled") >= 15 and statuses.count("undecided") >= 10
    upper = [i.target["status"] for (level, _), i in instances.items() if level >= 8]
    assert set(upper) == {"overruled", "undecided"}


def test_acceptance_is_cheap(instances) -> None:
    attempts = [instance.meta["attempts"] for instance in instances.values()]
    assert max(attempts) <= 20 and sum(attempts) / len(attempts) <= 3


# The gold against PyArg --------------------------------------------------------------------


def _parts(name: str) -> tuple[str, list[str]]:
    """A canonical argument name `rule(sub1,sub2)` (or a premise literal) split."""
    if "(" not in name:
        return name, []
    top, inner = name[: name.index("(")], name[name.index("(") + 1 : -1]
    subs, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            subs.append(inner[start:index])
            start = index + 1
    return top, [*subs, inner[start:]]


def _subs(name: str) -> list[str]:
    return [name, *(s for sub in _parts(name)[1] for s in _subs(sub))]


def _opposite(text: str) -> str:
    return text[1:] if text.startswith("-") else f"-{text}"


def pyarg_diagnosis(theory: Theory, ordering: Ordering, claim: str) -> dict:
    """The diagnosis recomputed from PyArg's arguments, defeats and grounded extension."""
    found = oracle(theory, ordering)
    grounded = found.grounded()
    out = {b for a, b in found.defeats if a in grounded}
    status = found.statuses([Literal.parse(claim)])[claim]
    defeasible = {rule.name for rule in theory.defeasible_rules}
    premises = {str(p) for p in theory.premises}

    def point(attacker: str, attacked: str) -> tuple[str, str] | None:
        """(kind, defeated_at) of the direct attack of `attacker` on `attacked`, if any."""
        said, top = found.arguments[attacker], _parts(attacked)[0]
        if attacked in premises and said == _opposite(attacked):
            return "undermine", attacked
        if top in defeasible and attacked not in premises:
            if said == f"-{top}":
                return "undercut", top
            if said == _opposite(found.arguments[attacked]):
                return "rebut", found.arguments[attacked]
        return None

    def name(argument: str) -> str:
        return _parts(argument)[0]

    def effective(argument: str) -> bool:
        return argument in grounded if status == "overruled" else argument not in out

    records: dict[tuple[str, str], tuple[str, set[str]]] = {}
    for supporting in (n for n, c in found.arguments.items() if c == claim):
        for sub in _subs(supporting):
            for attacker, attacked in sorted(found.defeats):
                hit = point(attacker, sub) if attacked == sub and effective(attacker) else None
                if hit is None:
                    continue
                rescuers = {name(c) for c, a in found.defeats if a == attacker and c in out}
                kind, at = hit
                records[(at, name(attacker))] = (kind, rescuers)
    return {
        "status": status,
        "failures": {key: kind for key, (kind, _) in records.items()},
        "survives": {key: r for key, (_, r) in records.items() if r},
    }


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_gold_agrees_with_pyarg(instances, level: int, ordering: Ordering) -> None:
    instance = instances[(level, str(ordering))]
    target = instance.target
    expected = pyarg_diagnosis(instance.parsed_theory, ordering, target["claim"])
    assert expected["status"] == target["status"]
    assert expected["failures"] == {
        (f["defeated_at"], f["defeater"]): f["kind"] for f in target["failures"]
    }
    assert expected["survives"] == {
        (f["defeated_at"], f["defeater"]): {f["survives_because"]}
        for f in target["failures"]
        if f["survives_because"]
    }


# The paper's worked instance (Appendix C.2) -------------------------------------------------

C2_REFERENCE = """status: overruled
defeated_at: fl4; defeater: -fl4; kind: undermine
defeated_at: so1; defeater: ze6; kind: undercut;
             survives_because: si5
defeated_at: cs7; defeater: vo7; kind: rebut;
             survives_because: pu0"""


def _c2() -> tuple[Candidate, object]:
    theory = parse_theory((EXAMPLES / "arggym_c2_defeat_diagnosis.arg").read_text())
    candidate = Candidate(theory, {"want": "overruled", "level": 5, "survivals": 2})
    task = get_task(TASK)
    result = query(theory, task.gate_program(candidate), ordering=theory.ordering)
    assert result.satisfiable
    return candidate, task.target(candidate, result, theory.ordering)


def _instance(target: dict, level: int = 5) -> Instance:
    return Instance(
        id="t", task=TASK, level=level, ordering="last-link", set="democratic", seed=0,
        theory="", prompt="", reference="", target=target, meta={},
    )  # fmt: skip


def test_the_paper_instance_gives_the_paper_diagnosis() -> None:
    candidate, target = _c2()
    task = get_task(TASK)
    # By hand, from the reconstruction: im1 has three routes. -fl4 > fl4 undermines route 1
    # (a premise: no survival); ze6 undercuts so1 and survives the undercut by si5, which ny2
    # undercuts; vo7 (> ga3) rebuts cs7 and survives the undercut by pu0, which ru2
    # undercuts. All three defeaters are grounded.
    assert target == {
        "claim": "im1",
        "status": "overruled",
        "failures": [
            {"defeated_at": "cs7", "defeater": "vo7", "kind": "rebut", "survives_because": "pu0"},
            {
                "defeated_at": "fl4",
                "defeater": "-fl4",
                "kind": "undermine",
                "survives_because": None,
            },
            {
                "defeated_at": "so1",
                "defeater": "ze6",
                "kind": "undercut",
                "survives_because": "si5",
            },
        ],
    }
    assert sorted(task.reference(target).splitlines()) == sorted(
        " ".join(line.split()) for line in C2_REFERENCE.replace(";\n", "; ").splitlines()
    )
    result = score(_instance(target), f"<answer>\n{C2_REFERENCE}\n</answer>")
    assert (result.native, result.success) == (1.0, True)


def test_level_5_admits_the_paper_instance() -> None:
    # C.2 is a level-5 instance: three routes of three rules to im1 (ta7(xy1(kc2(fl4))),
    # wu4(so1(fu0(-ik2))), ob6(ga3(ve3(mo9)))), one failure of each kind, towers of height 1
    # (si5 against ze6, pu0 against vo7), two survival records; the level-5 gates accept it
    # (`_c2` asks for three records of three kinds and exactly two survival records).
    knobs = dd.curriculum(5)
    theory = parse_theory((EXAMPLES / "arggym_c2_defeat_diagnosis.arg").read_text())
    routes = [argument.name for argument in solve(theory).arguments_for(Literal("im1"))]
    assert sorted(routes) == ["ob6(ga3(ve3(mo9)))", "ta7(xy1(kc2(fl4)))", "wu4(so1(fu0(-ik2)))"]
    assert (knobs.routes, knobs.depth, knobs.height) == (3, 3, 1)
    _c2()
    ordering = Ordering("last-link", "democratic")
    shapes = set()
    for seed in range(6):
        target = generate(TASK, 5, ordering, seed).target
        kinds = sorted(f["kind"] for f in target["failures"])
        survivals = sum(1 for f in target["failures"] if f["survives_because"])
        shapes.add((target["status"], tuple(kinds), survivals))
    assert ("overruled", ("rebut", "undercut", "undermine"), 2) in shapes


# The link principle (Appendix D.4) ----------------------------------------------------------

J, OUT = "justified", "overruled"


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_the_link_conflict_is_decided_by_the_principle_alone(ordering: Ordering) -> None:
    # x: c => y (m0), y => x (m); -x: axiom e => z (v0), z => -x (v); v0 > m > v > m0.
    # Last-link compares m with v: x wins under either set comparison. Weakest-link: x's
    # argument is weaker on premises ({c} against none) and on rules (m0 below v0 and v,
    # elitist; m0 and m below v0, democratic), -x's is not weaker on premises: -x wins.
    generator = dd.Generator(random.Random(3), dd.curriculum(1))
    claim, rival = generator.link_conflict()
    theory = generator.b.theory()
    assert rival.head == claim.complement and len(theory.rules) == 4
    expected = (J, OUT) if ordering.principle == "last-link" else (OUT, J)
    solution = solve(theory, ordering=ordering)
    assert (solution.status(claim), solution.status(claim.complement)) == expected
    statuses = oracle(theory, ordering).statuses([claim, claim.complement])
    assert (statuses[str(claim)], statuses[str(claim.complement)]) == expected
    other = Ordering(
        ordering.principle, "democratic" if ordering.set_comparison == "elitist" else "elitist"
    )
    assert set(solve(theory, ordering=other).defeats) == set(solution.defeats)


def _gold(instance: Instance, principle: str) -> dict:
    theory = parse_theory(f"[query: {instance.target['claim']}]\n{instance.theory}")
    ordering = Ordering(principle, instance.set)
    task = get_task(TASK)
    result = query(theory, task.program, ordering=ordering)
    return task.target(Candidate(theory), result, ordering)


@pytest.mark.parametrize("level", [4, 9, 15])
@pytest.mark.parametrize("ordering", ORDERINGS[::3], ids=str)
def test_the_failure_point_moves_with_the_principle(level: int, ordering: Ordering) -> None:
    # Every other attack wins, stalemates or fails under both principles; the pivot's two
    # attackers take turns: the same status and as many records, one of them different.
    instance = generate(TASK, level, ordering, seed=level)
    other = "weakest-link" if ordering.principle == "last-link" else "last-link"
    own, switched = _gold(instance, ordering.principle), _gold(instance, other)
    assert own == instance.target
    assert switched["status"] == own["status"]
    keys = [
        {(f["defeated_at"], f["defeater"]) for f in gold["failures"]} for gold in (own, switched)
    ]
    assert len(keys[0]) == len(keys[1]) == 3 and len(keys[0] - keys[1]) == 1


# The gates ---------------------------------------------------------------------------------


def _gate(text: str, want: str | None = "overruled"):
    theory = parse_theory(text)
    task = get_task(TASK)
    facts = f"want({want}).\n" if want else ""
    return query(theory, facts + task.program, ordering=Ordering("last-link", "elitist"))


def _shown(result) -> set[str]:
    return {str(symbol) for symbol in result.shown}


def test_a_justified_or_argumentless_claim_is_rejected() -> None:
    assert not _gate("[query: t]\n[premise: a]\n[defeasible r: a => t]", want=None).satisfiable
    assert not _gate("[query: t]\n[premise: a]", want=None).satisfiable


def test_the_wanted_status_is_enforced() -> None:
    text = "[query: t]\n[premise: a]\n[defeasible r: a => t]\n[premise: s]\n[defeasible u: s => -r]"
    assert _gate(text, "overruled").satisfiable
    assert not _gate(text, "undecided").satisfiable


def test_a_key_with_two_kinds_is_rejected() -> None:
    # -x undermines the premise x and rebuts the conclusion x of r1: one key, two kinds.
    text = """[query: t]
        [premise: x] [premise: b] [premise: -x]
        [defeasible r1: b => x] [defeasible r2: x => t]
        [prefer_premise: -x > x]"""
    assert not _gate(text).satisfiable


def test_survives_because_names_the_defeated_counter_attacker() -> None:
    # w undercuts r; c undercuts w, but x1 (grounded) undercuts c: w survives because c's
    # attack is defeated, so the survival name is c (not x1). A second defeater of c changes
    # nothing; a second failed counter-attacker c2 on w makes the key ambiguous.
    base = """[query: t]
        [premise: a] [premise: s] [premise: q] [premise: d1] [premise: d2]
        [defeasible r: a => t] [defeasible w: s => -r] [defeasible c: q => -w]
        [defeasible x1: d1 => -c]"""
    expected = {"status(overruled)", 'failure("r","w",undercut)', 'survives("r","w","c")'}
    assert _shown(_gate(base)) == expected
    assert _shown(_gate(base + "\n[defeasible x2: d2 => -c]")) == expected
    second = "\n[defeasible c2: q => -w] [defeasible x2: d2 => -c2]"
    assert not _gate(base + second).satisfiable


def test_an_overruled_claim_with_an_undecided_defeater_is_rejected() -> None:
    # u (grounded) undercuts r; v rebuts t from p, which -p contests: v is undecided.
    text = """[query: t]
        [premise: a] [premise: s] [premise: p] [premise: -p]
        [defeasible r: a => t] [defeasible u: s => -r] [defeasible v: p => -t]"""
    assert not _gate(text).satisfiable
    undecided = _gate(text.replace("[defeasible u: s => -r]", ""), "undecided")
    assert _shown(undecided) == {"status(undecided)", 'failure(pos("t"),"v",rebut)'}


def test_a_strict_topped_defeater_is_named_by_its_strict_rule() -> None:
    text = """[query: t]
        [premise: a] [axiom: s]
        [defeasible r: a => t] [defeasible m: s => k] [strict x: k -> -t]"""
    assert _shown(_gate(text)) == {"status(overruled)", 'failure(pos("t"),"x",rebut)'}


# The scorer (Appendix B) --------------------------------------------------------------------

GOLD = {
    "claim": "im1",
    "status": "overruled",
    "failures": [
        {"defeated_at": "cs7", "defeater": "vo7", "kind": "rebut", "survives_because": "pu0"},
        {"defeated_at": "fl4", "defeater": "-fl4", "kind": "undermine", "survives_because": None},
        {"defeated_at": "so1", "defeater": "ze6", "kind": "undercut", "survives_because": "si5"},
    ],
}
PLAIN = {
    "claim": "t",
    "status": "undecided",
    "failures": [
        {"defeated_at": "p", "defeater": "-p", "kind": "undermine", "survives_because": None},
        {"defeated_at": "r", "defeater": "u", "kind": "undercut", "survives_because": None},
    ],
}
A = "defeated_at: fl4; defeater: -fl4; kind: undermine"
B = "defeated_at: so1; defeater: ze6; kind: undercut; survives_because: si5"
C = "defeated_at: cs7; defeater: vo7; kind: rebut; survives_because: pu0"


def _score(target: dict, answer: str) -> tuple[float, bool]:
    result = score(_instance(target), f"<answer>{answer}</answer>")
    return round(result.native, 4), result.success


def test_scores_with_survival_explanations() -> None:
    assert _score(GOLD, "\n".join(["status: overruled", A, B, C])) == (1.0, True)
    assert _score(GOLD, "\n".join(["status: undecided", A, B, C])) == (0.85, False)
    # C missing: F1_diag = 0.8, F1_surv = 2/3.
    assert _score(GOLD, "\n".join(["status: overruled", A, B])) == (
        round(0.6 * 0.8 + 0.15 + 0.25 * 2 / 3, 4),
        False,
    )
    # a wrong kind: the record does not count (F1_diag 2/3), its survival still does.
    wrong_kind = C.replace("rebut", "undercut")
    assert _score(GOLD, "\n".join(["status: overruled", A, B, wrong_kind])) == (
        round(0.6 * 2 / 3 + 0.15 + 0.25, 4),
        False,
    )
    # survival explanations left out: F1_surv = 0.
    bare = [line.split("; survives")[0] for line in (A, B, C)]
    assert _score(GOLD, "\n".join(["status: overruled", *bare])) == (0.75, False)
    # a wrong survival name.
    assert _score(GOLD, "\n".join(["status: overruled", A, B, C.replace("pu0", "si5")])) == (
        round(0.6 + 0.15 + 0.25 * 0.5, 4),
        False,
    )
    # an extra record: precision 3/4.
    extra = "defeated_at: bv5; defeater: ve3; kind: rebut"
    assert _score(GOLD, "\n".join(["status: overruled", A, B, C, extra])) == (
        round(0.6 * 6 / 7 + 0.15 + 0.25, 4),
        False,
    )


def test_scores_without_survival_explanations() -> None:
    p = "defeated_at: p; defeater: -p; kind: undermine"
    r = "defeated_at: r; defeater: u; kind: undercut"
    assert _score(PLAIN, f"status: undecided\n{p}\n{r}") == (1.0, True)
    assert _score(PLAIN, f"status: overruled\n{p}\n{r}") == (0.85, False)
    assert _score(PLAIN, f"status: undecided\n{p}") == (round(0.85 * 2 / 3 + 0.15, 4), False)
    assert _score(PLAIN, "status: undecided") == (0.15, False)
    assert _score(PLAIN, "status: justified") == (0.0, False)
    # a survival explanation where none is required: native 0, no success.
    assert _score(PLAIN, f"status: undecided\n{p}\n{r}; survives_because: x") == (0.0, False)
    # a key given two kinds counts as wrong.
    twice = r.replace("undercut", "rebut")
    assert _score(PLAIN, f"status: undecided\n{p}\n{r}\n{twice}") == (
        round(0.85 * 0.5 + 0.15, 4),
        False,
    )
    # a repeated record is harmless.
    assert _score(PLAIN, f"status: undecided\n{p}\n{r}\n{r}") == (1.0, True)


# The answer grammar ------------------------------------------------------------------------


def test_answer_grammar_is_tolerant_of_form() -> None:
    answer = """
        **Status:** Overruled.

        1. DEFEATED_AT: `cs7`, Defeater: vo7, Kind: Rebut;
           survives_because: pu0.
        - defeated at: fl4 ; defeater : -fl4 ; kind : undermine ;
        * **defeated_at**: so1; defeater: "ze6"; kind: undercut
          Survives-Because: si5
    """
    found = dd.read_diagnosis(answer)
    assert found.status == "overruled"
    assert found.records == (
        dd.Record("cs7", "vo7", "rebut", "pu0"),
        dd.Record("fl4", "-fl4", "undermine", None),
        dd.Record("so1", "ze6", "undercut", "si5"),
    )
    assert _score(GOLD, answer) == (1.0, True)


@pytest.mark.parametrize(
    "answer",
    [
        "status: overruled\ndefeated_at: fl4; defeater: -fl4; kind: undermining",
        "status: overruled\ndefeated_at: fl4; defeater: -fl4",
        "status: overruled\ndefeated_at fl4; defeater: -fl4; kind: undermine",
        "status: overruled\ndefeated_at: fl4; defeater: -fl4; kind: undermine because fl4 < -fl4",
        "status: overruled\nfl4 is undermined by -fl4",
        f"{A}\nThe claim is overruled.",
        "The claim is overruled.",
    ],
)
def test_answer_grammar_is_strict_about_content(answer: str) -> None:
    with pytest.raises(UnreadableAnswer):
        dd.read_diagnosis(answer)
    native, success = _score(GOLD, answer)
    assert (native, success) == (0.0, False)


# F1_diag for A alone against GOLD: precision 1, recall 1/3, F1 1/2; F1_surv 0.
ONLY_A = round(0.6 * 0.5, 4)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # No status line: the records still count, I_status = 0 (Appendix B's formula).
        (f"{A}\n{B}\n{C}", (0.85, False)),
        (A, (ONLY_A, False)),
        # An unreadable status value, or two different statuses, is no status.
        (f"status: probably overruled\n{A}\n{B}\n{C}", (0.85, False)),
        (f"Status of im1: overruled\n{A}\n{B}\n{C}", (0.85, False)),
        (f"status: overruled\nstatus: undecided\n{A}\n{B}\n{C}", (0.85, False)),
        ("status: probably overruled", (0.0, False)),
        # A status line anywhere, with or without a colon, is read; repeating it is harmless.
        (f"{A}\n{B}\n{C}\nstatus: overruled", (1.0, True)),
        (f"Status overruled\n{A}\n{B}\n{C}\nstatus = overruled.", (1.0, True)),
        (f"{A}\nstatus: overruled", (round(ONLY_A + 0.15, 4), False)),
    ],
)
def test_a_missing_or_unreadable_status_only_loses_its_credit(answer, expected) -> None:
    assert _score(GOLD, answer) == expected


def test_an_unreadable_status_is_named_in_the_reason() -> None:
    result = score(
        _instance(PLAIN), "<answer>defeated_at: p; defeater: -p; kind: undermine</answer>"
    )
    assert result.reason.startswith("no readable status")
    assert result.native == pytest.approx(0.85 * 2 / 3)


def test_unreadable_and_oversized_answers_score_zero() -> None:
    for blank in ("<answer></answer>", "<answer>\n  \n</answer>"):
        result = score(_instance(GOLD), blank)
        assert (result.native, result.success) == (0.0, False)
        assert result.reason.startswith("unreadable answer")
    result = score(_instance(GOLD), "<answer>" + "status: overruled\n" + A * 20_000 + "</answer>")
    assert (result.native, result.success) == (0.0, False)
    assert "unreadable" in result.reason


# Determinism -------------------------------------------------------------------------------
