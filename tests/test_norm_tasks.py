"""The task ladder on normative worlds: generation, references, scorers (gold, garbage,
partial answers, hostile completions)."""

from __future__ import annotations

import time

import pytest

from argc.dsl.ir import ORDERINGS, Ordering
from argc.dsl.norms import parse_world
from argc.tasks import REGISTRY, Instance, generate, score, score_group
from argc.tasks.norms.families import split_of
from argc.tasks.norms.ladder import normal_record, read_change_record

NORM_TASKS = ("norm_answer", "norm_proof", "norm_falsification", "norm_change_record")
LEVELS = (1, 4, 5, 9, 13, 15)


def _gold(instance: Instance) -> str:
    return f"<answer>{instance.reference}</answer>"


@pytest.mark.parametrize("task", NORM_TASKS)
@pytest.mark.parametrize("level", LEVELS)
def test_references_score_one(task: str, level: int) -> None:
    instance = generate(task, level, Ordering(), level)
    assert score(instance, _gold(instance)).native == 1.0
    assert score(instance, _gold(instance)).success


@pytest.mark.parametrize("task", NORM_TASKS)
def test_generation_is_deterministic_and_from_the_train_split(task: str) -> None:
    first = generate(task, 3, Ordering(), 7)
    assert first.to_json() == generate(task, 3, Ordering(), 7).to_json()
    assert first.to_json() != generate(task, 3, Ordering(), 8).to_json()
    params = first.meta["params"]
    assert split_of(params["family_id"], params["family_type"]) == "train"


def test_norm_tasks_are_not_in_the_arggym_benchmark() -> None:
    from argc.bench.build import select_cells

    cells = select_cells()
    assert not {cell.task for cell in cells} & set(NORM_TASKS)
    assert {REGISTRY[task].suite for task in NORM_TASKS} == {"norms"}


@pytest.mark.parametrize("task", NORM_TASKS)
def test_garbage_and_hostile_answers_score_zero_quickly(task: str) -> None:
    instance = generate(task, 2, Ordering(), 0)
    hostile = [
        "no answer region",
        "<answer></answer>",
        "<answer>I think it is allowed</answer>",
        "<answer>" + "(" * 50_000 + "</answer>",
        "<answer>" + "answer: permitted\n" * 20_000 + "</answer>",
        "<answer>" + "x" * 200_000 + "</answer>",
        "<answer>relation: " + ", ".join(f"r{i}" for i in range(20_000)) + "</answer>",
    ]
    started = time.monotonic()
    for found in score_group(instance, hostile):
        assert found.native == 0.0 and not found.success
    assert time.monotonic() - started < 20


def test_answer_scorer_reads_one_word() -> None:
    instance = generate("norm_answer", 1, Ordering(), 0)
    gold = instance.target["verdict"]["answer"]
    assert score(instance, f"<answer>Answer: {gold.upper()}.</answer>").success
    wrong = next(a for a in ("permitted", "forbidden") if a != gold)
    assert score(instance, f"<answer>{wrong}</answer>").native == 0.0


def test_proof_scorer_gives_partial_credit() -> None:
    instance = generate("norm_proof", 1, Ordering(), 3)
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    wrong = {**lines, "defeated": "none" if lines["defeated"] != "none" else "zz9"}
    text = "\n".join(f"{key}: {value}" for key, value in wrong.items())
    found = score(instance, f"<answer>{text}</answer>")
    assert 0.0 < found.native < 1.0 and not found.success
    assert found.reason == "invalid_proof"


def test_falsification_scorer_names_the_failure() -> None:
    instance = generate("norm_falsification", 1, Ordering(), 0)
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    wrong_error = {
        **lines,
        "error": "wrong_label" if lines["error"] != "wrong_label" else "phantom_conflict",
    }
    text = "\n".join(f"{key}: {value}" for key, value in wrong_error.items())
    found = score(instance, f"<answer>{text}</answer>")
    assert found.native == 0.0 and found.reason == "wrong_error_type"
    other = {**lines, "candidate": instance.target["verdict"]["answer"]}
    text = "\n".join(f"{key}: {value}" for key, value in other.items())
    assert score(instance, f"<answer>{text}</answer>").reason == "missing_falsification"


def test_change_record_scorer_counts_right_fields() -> None:
    instance = generate("norm_change_record", 2, Ordering(), 0)
    assert read_change_record(instance.reference) == normal_record(instance.target["record"])
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    relation = lines["relation"]
    other = next(r for r in ("surface_invariant", "support_delta") if r != relation)
    text = "\n".join(f"{k}: {other if k == 'relation' else v}" for k, v in lines.items())
    found = score(instance, f"<answer>{text}</answer>")
    assert found.native == pytest.approx(4 / 5) and not found.success


@pytest.mark.parametrize("seed", range(4))
def test_the_four_orderings_agree_on_a_world(seed: int) -> None:
    from argc.compiler import solve

    theory = generate("norm_answer", 1 + seed, Ordering(), seed).parsed_theory
    statuses = [solve(theory, ordering=ordering).statuses for ordering in ORDERINGS]
    assert all(found == statuses[0] for found in statuses)


# Rewards on change records -----------------------------------------------------------------


def _record_text(lines: dict[str, str], **changes: str) -> str:
    return (
        "<answer>" + "\n".join(f"{k}: {changes.get(k, v)}" for k, v in lines.items()) + "</answer>"
    )


def _change_instance() -> Instance:
    """A change-record instance whose gold relation is a change (support or priority)."""
    for seed in range(40):
        instance = generate("norm_change_record", 2, Ordering(), seed)
        if instance.target["record"]["relation"] == "support_delta":
            return instance
    raise AssertionError("no support_delta instance")


def test_every_record_reward_gives_gold_one_and_garbage_zero() -> None:
    from argc.train.rewards import answer_change_reward, make_mr_reward, record_exact_reward

    instance = _change_instance()
    records = [instance.to_json()] * 3
    completions = [_gold(instance), "<answer>nonsense</answer>", "no region"]
    for reward in (answer_change_reward, record_exact_reward, make_mr_reward()):
        assert reward(completions, records) == [1.0, 0.0, 0.0]


def test_mr_ranks_a_wrong_family_below_a_wrong_subtype_and_sparse_gives_both_zero() -> None:
    from argc.train.rewards import make_mr_reward, record_exact_reward

    instance = _change_instance()
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    subtype = _record_text(lines, relation="priority_delta")
    wrong_family = _record_text(lines, relation="surface_invariant")
    records = [instance.to_json()] * 2
    mr = make_mr_reward()([subtype, wrong_family], records)
    assert 0 < mr[1] < mr[0] < 1
    assert mr[0] == pytest.approx(0.3 + 0.4)
    assert record_exact_reward([subtype, wrong_family], records) == [0.0, 0.0]


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("relation", "priority_invariant", "relation is one of"),
        ("relation", "surface_invariant, support_delta", "expected one name"),
        ("answer_change", "permitted -> allowed", "answer_change labels are"),
    ],
)
def test_a_record_outside_the_answer_vocabulary_is_unreadable_and_earns_nothing(
    field: str, value: str, reason: str
) -> None:
    """A GRPO run under the MR reward drifted to `relation: priority_invariant` (no such
    relation) on 166 of 300 held-out pairs: read as a wrong relation, it kept the credit of
    the other fields. Outside the vocabulary the prompt names, a record is unreadable."""
    from argc.train.rewards import answer_change_reward, make_mr_reward, record_exact_reward

    instance = _change_instance()
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    text = _record_text(lines, **{field: value})
    found = score(instance, text)
    assert found.native == 0 and not found.success and reason in found.reason
    records = [instance.to_json()]
    for reward in (answer_change_reward, record_exact_reward, make_mr_reward()):
        assert reward([text], records) == [0.0]


def test_mr_credit_terms() -> None:
    from argc.tasks.norms.credit import MRWeights, mr_credit

    empty = {"added": [], "removed": []}
    invariant = {
        "relation": "distractor_invariant",
        "answer_change": None,
        "support_change": empty,
        "status_change": {},
        "attack_change": empty,
    }
    assert mr_credit(invariant, invariant) == 1.0
    noisy = {
        **invariant,
        "relation": "surface_invariant",
        "status_change": {"r1": {"from": "a", "to": "b"}},
    }
    # family, and three of four fields empty; the one status change invented halves it
    assert mr_credit(noisy, invariant) == pytest.approx((0.3 + 0.4 * 3 / 4) * 1 / 2)
    with pytest.raises(ValueError, match="sum to 1"):
        MRWeights(0.5, 0.5, 0.5)


def _invariant_instance() -> Instance:
    """A change-record instance whose gold relation is invariant."""
    return generate("norm_change_record", 1, Ordering(), 0)


def _invented(lines: dict[str, str], count: int) -> str:
    """The gold answer with `count` status changes of rules the worlds do not have."""
    gold = [] if lines["status_change"] == "none" else [lines["status_change"]]
    extra = [f"x{number} justified -> overruled" for number in range(count)]
    return _record_text(lines, status_change="; ".join(gold + extra) or "none")


@pytest.mark.parametrize("make", [_change_instance, _invariant_instance])
def test_invented_changes_lower_every_record_score(make) -> None:
    """Each invented change costs: the native score, the MR reward and the MR metric fall
    strictly with their number (3,000 leave almost nothing), and the gold scores 1."""
    from argc.tasks.norms.metrics import answer_metrics
    from argc.train.rewards import make_mr_reward

    instance = make()
    record = instance.to_json()
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    counts = (0, 1, 2, 5, 40, 3000)
    answers = [_invented(lines, count) for count in counts]
    native = [score(instance, answer).native for answer in answers]
    mr = make_mr_reward()(answers, [record] * len(answers))
    gold = read_change_record(instance.reference)
    metric = [
        answer_metrics(score(instance, answer).submitted, gold)["class_conditioned_mr"]
        for answer in answers
    ]
    for found in (native, mr, metric):
        assert found[0] == 1.0
        assert all(later < earlier for earlier, later in zip(found, found[1:], strict=False))
        assert found[-1] < 0.01


def test_listing_every_possible_change_scores_low() -> None:
    """A record claiming a status change of every rule (the right one where there is one),
    every attack and every rule and fact of both worlds in the support (with the right
    relation and answer change) scores far below one that leaves those fields empty."""
    from argc.tasks.norms.credit import mr_credit

    instance = _change_instance()
    root, variant = (parse_world(instance.target[key]) for key in ("world", "variant"))
    rules = sorted({norm.name for world in (root, variant) for norm in world.norms})
    facts = sorted({str(fact.atom) for world in (root, variant) for fact in world.facts})
    lines = dict(line.split(": ", 1) for line in instance.reference.splitlines())
    gold_statuses = dict(
        (change.split(" ", 1) for change in lines["status_change"].split("; "))
        if lines["status_change"] != "none"
        else ()
    )
    everything = {
        "support_added": ", ".join(rules + facts),
        "support_removed": ", ".join(rules + facts),
        "status_change": "; ".join(
            f"{rule} {gold_statuses.get(rule, 'justified -> overruled')}" for rule in rules
        ),
        "attack_added": "; ".join(f"{a} -> {b}" for a in rules for b in rules if a != b),
        "attack_removed": "; ".join(f"{a} -> {b}" for a in rules for b in rules if a != b),
    }
    hedged = score(instance, _record_text(lines, **everything))
    blank = dict.fromkeys(everything, "none")
    cautious = score(instance, _record_text(lines, **blank))
    gold = cautious.gold
    assert hedged.native < 0.2 < cautious.native
    assert mr_credit(hedged.submitted, gold) < 0.2 < mr_credit(cautious.submitted, gold)


def test_record_rewards_come_from_configuration_names() -> None:
    from argc.train.rewards import rewards_from_config

    found = rewards_from_config(
        ["answer_change", "record_exact", {"mr": {"family": 0.2, "relation": 0.2, "fields": 0.6}}]
    )
    assert [reward.__name__ for reward in found] == [
        "answer_change_reward",
        "record_exact_reward",
        "mr_reward",
    ]
    with pytest.raises(ValueError):
        rewards_from_config([{"mr": {"family": 0.9}}])


# Metrics and reports -----------------------------------------------------------------------


def test_mcnemar_is_the_exact_binomial_test() -> None:
    from argc.tasks.norms.metrics import mcnemar

    first = [True] * 2 + [False] * 9 + [True] * 5
    second = [False] * 2 + [True] * 9 + [True] * 5
    found = mcnemar(first, second)
    assert (found["b"], found["c"]) == (2, 9)
    assert found["p"] == pytest.approx(2 * (1 + 11 + 55) / 2**11)
    assert mcnemar([True], [True])["p"] == 1.0
    with pytest.raises(ValueError):
        mcnemar([True], [])


def test_answer_metrics_of_an_unreadable_and_a_wrong_family_answer() -> None:
    from argc.tasks.norms.metrics import answer_metrics

    instance = _change_instance()
    gold = read_change_record(instance.reference)
    assert answer_metrics(gold, gold)["class_conditioned_mr"] == 1.0
    unreadable = answer_metrics(None, gold)
    assert unreadable["wrong_family"] == 1.0 and unreadable["relation"] == 0.0
    flipped = answer_metrics({**gold, "relation": "surface_invariant"}, gold)
    assert flipped["wrong_family"] == 1.0 and flipped["all_changes_exact"] == 1.0


def test_report_tables_change_records_of_two_runs(tmp_path) -> None:
    import json

    from argc.bench.evaluate import instance_fields
    from argc.bench.report import load_runs, write_report

    instances = [generate("norm_change_record", level, Ordering(), 0) for level in range(1, 5)]
    paths = []
    for name, wrong in (("first", 0), ("second", 2)):
        rows = []
        for index, instance in enumerate(instances):
            text = instance.reference
            if index < wrong:
                text = text.replace("relation: ", "relation: x", 1)
            response = f"<answer>{text}</answer>"
            found = score(instance, response)
            rows.append(
                {
                    **instance_fields(instance),
                    "model": name,
                    "response": response,
                    "finish_reason": "stop",
                    "usage": None,
                    "latency_s": None,
                    "attempts": 1,
                    "error": None,
                    "native": found.native,
                    "success": found.success,
                    "reason": found.reason,
                    "has_answer": True,
                    "details": found.details(),
                }
            )
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        paths.append(path)
    summaries = write_report(load_runs(paths), tmp_path / "report")
    assert summaries[0]["change_records"]["relation"] == 100.0
    assert summaries[1]["change_records"]["relation"] == 50.0
    assert summaries[1]["change_records"]["wrong_family"] == 50.0
    assert summaries[1]["paired"]["relation"] == {"b": 2, "c": 0, "p": 0.5}
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "Change records (normative worlds)" in text and "exact McNemar" in text


# Datasets on the command line --------------------------------------------------------------


def test_generated_pairs_are_instances_that_references_solve(tmp_path) -> None:
    import json
    import subprocess
    import sys

    out = tmp_path / "pairs.jsonl"
    command = [sys.executable, "-m", "argc.cli", "norms", "generate", "--families", "6"]
    run = subprocess.run([*command, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 24
    instances = [Instance.from_record(row) for row in rows]
    assert {instance.task for instance in instances} == {"norm_change_record"}
    assert {instance.level for instance in instances} == {1, 2, 3, 4}
    for instance in instances:
        role = instance.meta["params"]["role"]
        assert instance.target["record"]["relation"] == role
        assert score(instance, _gold(instance)).success
    again = tmp_path / "again.jsonl"
    run = subprocess.run(
        [*command, "--split", "ood", "--rows", "--out", str(again)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in again.read_text(encoding="utf-8").splitlines()]
    assert rows and {row["split"] for row in rows} == {"ood"}


@pytest.mark.slow
def test_answer_instances_cover_every_answer() -> None:
    from argc.compiler.norms.verdict import ANSWERS

    found = {
        generate("norm_answer", level, Ordering(), seed).target["verdict"]["answer"]
        for level in range(1, 16)
        for seed in range(6)
    }
    assert found == set(ANSWERS)


def test_change_records_cross_every_relation_with_family_types() -> None:
    for level in (1, 2):
        kinds = {
            generate("norm_change_record", level, Ordering(), seed).meta["params"]["family_type"]
            for seed in range(12)
        }
        assert len(kinds) >= 3


def test_the_split_option_names_the_generator_splits() -> None:
    from argc.cli import build_parser
    from argc.tasks.norms.families import SPLITS

    parser = build_parser({"norms"})
    norms = parser._subparsers._group_actions[0].choices["norms"]
    generate_parser = norms._subparsers._group_actions[0].choices["generate"]
    split = next(a for a in generate_parser._actions if a.dest == "split")
    assert tuple(split.choices) == (*SPLITS, "all")


def test_a_group_of_proof_answers_solves_its_world_once() -> None:
    from argc.tasks.norms.ladder import world_verdict

    instance = generate("norm_proof", 1, Ordering(), 11)
    world_verdict.cache_clear()
    found = score_group(
        instance, [_gold(instance)] * 4 + ["<answer>answer: permitted</answer>"] * 4
    )
    assert [score.success for score in found[:4]] == [True] * 4
    assert world_verdict.cache_info().misses == 1
