"""formalization: every cell generates behind its gates; the reference and any rule renaming
of it succeed; B, S and T follow ArgGYM's Appendix B on hand-made cases; broken answers
score 0 with a reason; gold statuses agree with PyArg; generation is deterministic."""

from __future__ import annotations

import random
import re

import pytest
from formalization_cases import hand_instance, in_answer, renamed_reference
from oracle import oracle
from task_checks import check_contract

import argc.tasks.arggym.formalization  # noqa: F401  (registers the task)
from argc.dsl.ir import ORDERINGS, Ordering, Rule, Theory
from argc.dsl.parser import parse_theory
from argc.tasks import LEVELS, Instance, generate, score
from argc.tasks.arggym.formalization import (
    MAX_DIRECTIVES,
    Signer,
    clean_answer,
    curriculum,
    multiset_f1,
    rule_correspondence,
)
from argc.tasks.arggym.templates import PARAPHRASTIC, POOLS, TECHNICAL, Realizer
from argc.tasks.framework import CELLS


def _features(theory: Theory) -> set[str]:
    defeasible = {rule.name for rule in theory.defeasible_rules}
    found = set()
    if theory.strict_rules:
        found.add("strict")
    if theory.axioms:
        found.add("axiom")
    if any(p.complement in theory.premises for p in theory.premises):
        found.add("undermine")
    if any(rule.head.negated and rule.head.atom in defeasible for rule in theory.rules):
        found.add("undercut")
    if theory.rule_preferences:
        found.add("rule_preference")
    if theory.premise_preferences:
        found.add("premise_preference")
    return found


@pytest.mark.parametrize(("level", "ordering"), CELLS, ids=lambda x: str(x))
def test_every_cell_generates_and_scores(level: int, ordering: Ordering) -> None:
    instance = generate("formalization", level, ordering, seed=level)
    renamed = score(instance, in_answer(renamed_reference(instance.reference, level)))
    assert (renamed.native, renamed.success) == (1.0, True), renamed.reason
    lines = instance.reference.splitlines()
    first_rule = next(k for k, line in enumerate(lines) if line.startswith(("[defeasible", "[str")))
    check_contract(instance)
    corrupted = score(instance, in_answer("\n".join(lines[:first_rule] + lines[first_rule + 1 :])))
    assert corrupted.native < 1.0
    # Gates: informative queried statuses; the level's structure is present and described.
    assert len(set(instance.target["claims"].values())) >= 2
    reference = parse_theory(instance.reference)
    knobs = curriculum(level)
    assert set(knobs.needs) - {"decisive_preference"} <= _features(reference)
    assert len(reference.rules) >= knobs.min_rules
    assert len(instance.target["claims"]) == knobs.queries
    description = instance.prompt.split("Description:\n", 1)[1].split("\n\nHow to read", 1)[0]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", description))
    assert {literal.atom for literal in reference.literals()} <= words
    assert {rule.name for rule in reference.rules} <= words
    assert len(description.splitlines()) == len(lines) == instance.meta["params"]["sentences"]
    assert f"{ordering.principle} {ordering.set_comparison}" in instance.prompt
    assert "<answer></answer>" in instance.prompt
    for claim, status in instance.target["claims"].items():
        assert f"{claim}: {status}" in instance.prompt


def test_levels_raise_the_paraphrastic_share_and_the_structure() -> None:
    shares = [curriculum(level).paraphrastic for level in LEVELS]
    assert shares == sorted(shares) and shares[0] <= 0.1 and shares[-1] >= 0.75
    needs = [len(curriculum(level).needs) for level in LEVELS]
    assert needs == sorted(needs) and needs[0] == 0 and needs[-1] == 7
    low = [
        generate("formalization", 1, ordering, seed) for ordering in ORDERINGS for seed in (0, 1)
    ]
    high = [generate("formalization", 15, o, seed) for o in ORDERINGS for seed in (0, 1)]

    def share(instances: list[Instance]) -> float:
        params = [instance.meta["params"] for instance in instances]
        return sum(p["paraphrastic"] for p in params) / sum(p["sentences"] for p in params)

    assert share(low) < 0.3 < share(high)
    assert max(len(i.target["directives"]) for i in low) < min(
        len(i.target["directives"]) for i in high
    )


@pytest.mark.parametrize("ordering", ORDERINGS, ids=str)
def test_gold_statuses_agree_with_pyarg(ordering: Ordering) -> None:
    for level in (1, 5, 9, 12, 15):
        instance = generate("formalization", level, ordering, seed=100 + level)
        theory = instance.parsed_theory.without_header()
        expected = oracle(theory, ordering).statuses(list(theory.claims()))
        assert expected == instance.target["statuses"], instance.id
        assert all(expected[claim] == s for claim, s in instance.target["claims"].items())


# Hand-made instances -----------------------------------------------------------------------

TYPED = """\
[premise: a]
[premise: b]
[axiom: c]
[defeasible r1: a => d]
[defeasible r2: b => -d]
[strict s1: c -> e]
[defeasible u1: e => -r2]
[prefer_rule: r2 > r1]
"""
# r2 beats r1, but u1 (from the axiom c through the strict s1) undercuts r2: d is justified.

UNTYPED = """\
[premise: a]
[premise: b]
[defeasible r1: a => d]
[defeasible r2: b => -d]
[prefer_rule: r1 > r2]
"""


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


def test_hand_made_target() -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    assert instance.target["claims"] == {"d": "justified", "-d": "overruled", "e": "justified"}
    assert instance.target["statuses"]["-r2"] == "justified"
    assert instance.target["statuses"]["r2"] == "overruled"
    assert score(instance, in_answer(TYPED)) == score(instance, in_answer(instance.reference))
    assert score(instance, in_answer(TYPED)).native == 1.0


@pytest.mark.parametrize(
    ("old", "new", "structure", "native", "success"),
    [
        # An axiom written as a premise: S 7/8; T: P 1, R 1/2 -> 2/3; behaviour unchanged.
        ("[axiom: c]", "[premise: c]", 7 / 8, 0.25 + 0.35 * 7 / 8 + 0.40 * 2 / 3, True),
        # A strict rule written as defeasible: the same counts.
        (
            "[strict s1: c -> e]",
            "[defeasible s1: c => e]",
            7 / 8,
            0.25 + 0.35 * 7 / 8 + 0.40 * 2 / 3,
            True,
        ),
        # An extra strict rule: S P 8/9 -> 16/17; T P 2/3 R 1 -> 0.8; new atoms are not checked.
        (
            "[premise: a]",
            "[premise: a]\n[strict s9: a -> f]",
            16 / 17,
            0.25 + 0.35 * 16 / 17 + 0.32,
            True,
        ),
        # A repeated directive counts against precision: S 16/17.
        ("[premise: a]", "[premise: a]\n[premise: a]", 16 / 17, 0.25 + 0.35 * 16 / 17 + 0.40, True),
        # Without r1 (and its preference), d has no argument: B 2/3; S R 6/8 -> 6/7.
        ("[defeasible r1: a => d]\n", "", 6 / 7, 0.25 * 2 / 3 + 0.35 * 6 / 7 + 0.40, False),
        # Without the undercutter, r2 wins: d overruled, -d justified: B 1/3; S 14/15.
        ("[defeasible u1: e => -r2]\n", "", 14 / 15, 0.25 / 3 + 0.35 * 14 / 15 + 0.40, False),
        # The preference is behaviourally idle here (r2 is undercut anyway): S 14/15 only.
        ("[prefer_rule: r2 > r1]\n", "", 14 / 15, 0.25 + 0.35 * 14 / 15 + 0.40, True),
        # Undercutting the wrong rule: u1 and its literal change; d overruled, -d justified.
        ("=> -r2]", "=> -r1]", 7 / 8, 0.25 / 3 + 0.35 * 7 / 8 + 0.40, False),
    ],
)
def test_b_s_t_on_hand_made_answers(
    old: str, new: str, structure: float, native: float, success: bool
) -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    answer = _edit(TYPED, old, new)
    if "r1:" not in answer:
        answer = _edit(answer, "[prefer_rule: r2 > r1]\n", "")
    result = score(instance, in_answer(answer))
    assert result.native == pytest.approx(native, abs=1e-6), result.reason
    assert result.structure == pytest.approx(structure, abs=1e-6), result.reason
    assert result.success is success, result.reason


def test_without_type_decisions_native_is_04b_06s() -> None:
    instance = hand_instance(UNTYPED, "d,-d")
    assert instance.target["claims"] == {"d": "justified", "-d": "overruled"}
    dropped = score(instance, in_answer(_edit(UNTYPED, "[prefer_rule: r1 > r2]\n", "")))
    # Both undecided without the preference: B 0; S 8/9.
    assert dropped.native == pytest.approx(0.6 * 8 / 9, abs=1e-6)
    assert not dropped.success and "-d is undecided, not overruled" in dropped.reason
    reversed_ = score(instance, in_answer(_edit(UNTYPED, "r1 > r2", "r2 > r1")))
    assert reversed_.native == pytest.approx(0.6 * 0.8, abs=1e-6)  # B 0; S 4/5
    assert not reversed_.success


def test_renamed_rules_and_reordered_directives_succeed() -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    renamed = (
        TYPED.replace("r1", "first")
        .replace("r2", "second")
        .replace("u1", "exception")
        .replace("s1", "law")
    )
    result = score(instance, in_answer("\n".join(renamed.splitlines()[::-1])))
    assert (result.native, result.success) == (1.0, True), result.reason
    # Swapping the names of r1 and r2 (and following them) is also a renaming.
    swapped = TYPED.replace("r1", "tmp").replace("r2", "r1").replace("tmp", "r2")
    assert score(instance, in_answer(swapped)).native == 1.0
    # Keeping a rule's name but changing what it says is not.
    changed = score(instance, in_answer(_edit(TYPED, "r1: a => d", "r1: a => -d")))
    assert changed.native < 1.0 and not changed.success


def test_rule_correspondence_follows_signatures() -> None:
    reference = parse_theory(TYPED)
    submitted = parse_theory(TYPED.replace("r2", "x").replace("u1", "y"))
    assert rule_correspondence(reference, submitted) == {"r1": "r1", "r2": "x", "u1": "y"}
    signer = Signer()
    ours, theirs = signer.of(reference), signer.of(submitted)
    assert ours.rule("r2") == theirs.rule("x") and ours.rule("u1") == theirs.rule("y")
    assert ours.rule("r1") != ours.rule("r2")
    # Antecedent order does not matter.
    a = parse_theory("[premise: p]\n[premise: q]\n[defeasible r: p AND q => s]")
    b = parse_theory("[premise: p]\n[premise: q]\n[defeasible t: q AND p => s]")
    signer = Signer()
    assert signer.of(a).rule("r") == signer.of(b).rule("t")


def test_multiset_f1() -> None:
    from collections import Counter

    assert multiset_f1(Counter(), Counter()) == 1.0
    assert multiset_f1(Counter(), Counter("a")) == 0.0
    assert multiset_f1(Counter("aab"), Counter("ab")) == pytest.approx(0.8)
    assert multiset_f1(Counter("ab"), Counter("abcd")) == pytest.approx(2 / 3)


def test_undercutter_cycles_are_scored() -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    cycle = "[defeasible c1: a => -c2]\n[defeasible c2: a => -c1]\n[defeasible c3: a => -c3]"
    result = score(instance, in_answer(TYPED + cycle))
    assert result.success and result.native == pytest.approx(0.25 + 0.35 * 16 / 19 + 0.40)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("[premise a]", "does not parse: <answer>:1:"),
        ("[premise: a]\n[defeasible r1: a => d]\nr1 and r2", "does not parse: <answer>:3:"),
        ("[premise: a]\n[prefer_rule: r9 > r1]", "not a valid theory: <answer>:2:"),
        ("[defeasible r1: a => d]\n[defeasible r1: b => d]", "not a valid theory"),
        ("[axiom: a]\n[premise: a]", "not a valid theory"),
        ("  \n", "no directives"),
        ("[ordering: last-link elitist]", "no directives"),
        ("\n".join(f"[premise: p{k}]" for k in range(MAX_DIRECTIVES + 1)), "201 directives"),
    ],
)
def test_broken_answers_score_zero_with_a_reason(answer: str, reason: str) -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    result = score(instance, in_answer(answer))
    assert (result.native, result.success) == (0.0, False)
    assert result.reason.startswith(reason), result.reason


def test_theories_past_the_scoring_limits_score_zero() -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    # 13 antecedents with two arguments each: 2^13 arguments for the last rule.
    lines = [
        f"[premise: x{k}]\n[premise: y{k}]\n[defeasible g{k}: y{k} => x{k}]" for k in range(13)
    ]
    body = " AND ".join(f"x{k}" for k in range(13))
    result = score(instance, in_answer("\n".join([*lines, f"[defeasible big: {body} => z]"])))
    assert (result.native, result.success) == (0.0, False)
    assert "scoring limits" in result.reason


def test_answer_form_is_tolerated() -> None:
    instance = hand_instance(TYPED, "d,-d,e")
    lines = TYPED.splitlines()
    dressed = "\n".join(
        ["```arg", *(f"- {line}" for line in lines[:4])]
        + [f"{k}. {line}" for k, line in enumerate(lines[4:], 1)]
        + ["[ordering: weakest-link democratic]", "% a comment", "```"]
    )
    assert clean_answer("  * [premise: a]") == "  [premise: a]"
    result = score(instance, in_answer(dressed))
    assert (result.native, result.success) == (1.0, True), result.reason
    # Directives may span lines and use free spacing, as in .arg files.
    spaced = TYPED.replace(": a => d]", ":\n   a\n   => d ]")
    assert score(instance, in_answer(spaced)).success


def test_the_instance_ordering_decides() -> None:
    text = """\
[premise: a]
[premise: b]
[premise: c]
[defeasible r1: a => x]
[defeasible r2: x => d]
[defeasible r3: b => y]
[defeasible r4: y => -d]
[defeasible r5: c => e]
[prefer_rule: r2 > r4]
[prefer_rule: r3 > r1]
"""
    # Last-link: r2 > r4 decides for d; weakest-link: the rule sets are not ordered (r1 < r3,
    # r4 < r2) and neither are the premises a and b, so the rebuts succeed both ways.
    last = hand_instance(text, "d,-d,e", Ordering("last-link", "elitist"))
    weakest = hand_instance(text, "d,-d,e", Ordering("weakest-link", "elitist"))
    assert last.target["claims"]["d"] == "justified"
    assert weakest.target["claims"]["d"] == "undecided"
    assert score(last, in_answer(text)).success and score(weakest, in_answer(text)).success


# Templates ---------------------------------------------------------------------------------


def test_every_pool_has_both_registers() -> None:
    kinds = {kind for kind, _ in POOLS}
    assert kinds == {
        "premise",
        "axiom",
        "defeasible",
        "strict",
        "undercut",
        "prefer_rule",
        "prefer_premise",
    }
    for kind in kinds:
        for register in (TECHNICAL, PARAPHRASTIC):
            assert len(POOLS[(kind, register)]) >= 3


def test_realizer_names_everything_and_keeps_the_registers_apart() -> None:
    theory = parse_theory(TYPED + "[premise: -b]\n[prefer_premise: -b > b]\n")
    for share, register in ((0.0, TECHNICAL), (1.0, PARAPHRASTIC)):
        realizer = Realizer(random.Random(1), share, frozenset({"r1", "r2", "u1"}))
        for directive in theory.directives():
            for _ in range(6):
                sentence = realizer.sentence(directive)
                assert sentence.register == register
                text = sentence.text
                names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
                if isinstance(directive, Rule):
                    assert directive.name in names
                    assert {item.atom for item in (*directive.body, directive.head)} <= names
                    if directive.name == "u1":
                        assert sentence.template.startswith("undercut.")
                    cue = "strict" if directive.strict else "defeasible"
                    if register == PARAPHRASTIC:
                        cue = "principle" if directive.strict else "consideration"
                    assert cue in text.lower() or "exception" in text.lower()
                assert text[0].isupper() or text.split()[0] in {"a", "b", "c", "d", "e"}
                assert text.endswith(".")
