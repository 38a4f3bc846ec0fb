"""Group scoring (the G completions of one GRPO prompt) and pooled scoring (the groups of
several prompts at once): the same scores as one answer at a time, identical answers solved
once, and a request or group that breaks its worker scored again group by group, then answer
by answer, so that only the answer at fault scores 0."""

from __future__ import annotations

import random
import time

import pytest
from margins import GRACE

from argc.dsl.ir import ORDERINGS
from argc.tasks import REGISTRY, generate, isolation, score, score_group, score_groups
from argc.tasks.arggym import intervention as intervention_tasks
from argc.tasks.isolation import REQUEST_DEADLINES, IsolatedScorer, Isolation

CONSTRUCTIVE = ("counter_argument", "preference_construction", "defence", "attack")


def responses_for(instance, rng: random.Random) -> list[str]:
    """A GRPO-like group: the reference (twice), near misses, over-long and unreadable
    answers, a foreign directive, an empty answer and no answer region at all."""
    lines = instance.reference.splitlines()
    over_long = lines * (2 * instance.target["min_directives"] + 1)
    answers = [
        instance.reference,
        instance.reference,
        "\n".join(lines[:-1]),
        "\n".join(reversed(lines)),
        "\n".join(over_long),
        "this is not a directive",
        "[axiom: something_new]",
        "",
    ]
    group = [f"<answer>{answer}</answer>" for answer in answers] + ["no region at all"]
    rng.shuffle(group)
    return group


@pytest.mark.parametrize("task", CONSTRUCTIVE)
@pytest.mark.parametrize("level", [2, 9, 14])
def test_a_group_scores_as_its_answers_one_by_one(task, level):
    rng = random.Random(f"{task}-{level}")
    for ordering in ORDERINGS[::3]:
        instance = generate(task, level, ordering, 7)
        group = responses_for(instance, rng)
        scores = score_group(instance, group)
        assert scores == [score(instance, response) for response in group]
        assert any(result.success for result in scores)  # the reference


@pytest.mark.parametrize("task", ["status_query", "formalization", "semantics_query"])
def test_other_tasks_score_groups_answer_by_answer(task):
    instance = generate(task, 3, ORDERINGS[0], 1)
    group = [f"<answer>{instance.reference}</answer>", "<answer>nonsense</answer>", "none"]
    assert score_group(instance, group) == [score(instance, response) for response in group]


def test_the_pool_scores_groups_of_several_instances_in_order():
    instances = [generate("counter_argument", level, ORDERINGS[1], 3) for level in (3, 8)]
    rng = random.Random(0)
    pairs = [
        (instance, response) for instance in instances for response in responses_for(instance, rng)
    ]
    rng.shuffle(pairs)
    with IsolatedScorer(workers=2) as pool:
        assert pool.score_many(pairs) == [score(*pair) for pair in pairs]


def test_a_group_that_kills_its_worker_is_scored_again_answer_by_answer(misbehaving):
    path, instance = misbehaving
    group = ["<answer>fine</answer>", "<answer>die</answer>", "<answer>fine</answer>"]
    with IsolatedScorer(load=[str(path)]) as pool:
        scores = pool.score_many([(instance, response) for response in group])
    assert [result.reason for result in scores[::2]] == ["scored", "scored"]
    assert "died (exit code 3)" in scores[1].reason


def test_a_group_past_the_deadline_fails_only_where_the_answer_loops(misbehaving):
    path, instance = misbehaving
    group = ["<answer>loop</answer>", "<answer>fine</answer>"]
    with IsolatedScorer(isolation=Isolation(seconds=1.0), load=[str(path)]) as pool:
        started = time.monotonic()
        scores = pool.score_many([(instance, response) for response in group])
        assert time.monotonic() - started < 1 * REQUEST_DEADLINES + 1 + GRACE  # group, then loop
    assert "stopped after more than 1 s" in scores[0].reason
    assert scores[1].reason == "scored"


def test_an_answer_that_hangs_holds_its_request_for_a_few_deadlines_only(misbehaving):
    """One looping answer among the groups of a whole GRPO batch, sent as one request: found
    within a few deadlines, not one deadline per answer of the request."""
    from misbehaving_tasks import endless

    path, instance = misbehaving
    pairs = [(endless(seed), "<answer>fine</answer>") for seed in range(1, 31)]
    pairs.insert(7, (instance, "<answer>loop</answer>"))
    with IsolatedScorer(isolation=Isolation(seconds=1.0), load=[str(path)]) as pool:
        started = time.monotonic()
        scores = pool.score_many(pairs)
        elapsed = time.monotonic() - started
    # the request, the loop alone, two worker restarts (generous: the old deadline of one
    # per answer took 32 s here)
    assert elapsed < 1 * REQUEST_DEADLINES + 1 + GRACE, elapsed
    assert "stopped after more than 1 s" in scores[7].reason
    assert [result.reason for result in scores[:7] + scores[8:]] == ["scored"] * 30


def mixed_batch(rng: random.Random) -> list[tuple]:
    """Groups to instances of every constructive task at two levels and two orderings, a
    non-constructive task, and a group with no answer region at all."""
    groups = [
        (instance, responses_for(instance, rng))
        for task in CONSTRUCTIVE
        for level, ordering in ((3, ORDERINGS[0]), (11, ORDERINGS[2]))
        for instance in [generate(task, level, ordering, 5)]
    ]
    status = generate("status_query", 2, ORDERINGS[1], 4)
    groups.append((status, [f"<answer>{status.reference}</answer>", "<answer>x</answer>"]))
    groups.append((groups[0][0], ["no region", "none either"]))
    rng.shuffle(groups)
    return groups


def test_pooled_groups_score_as_each_group_alone():
    groups = mixed_batch(random.Random(1))
    assert score_groups(groups) == [score_group(*group) for group in groups]
    assert score_groups([]) == []


def sizes_of_calls(monkeypatch, owner, name: str) -> list[int]:
    """`owner.name` patched to record the length of its first argument at every call; the
    list of those lengths."""
    sizes: list[int] = []
    real = getattr(owner, name)

    def counted(items, **options):
        sizes.append(len(items))
        return real(items, **options)

    monkeypatch.setattr(owner, name, counted)
    return sizes


def test_pooled_groups_share_one_solve_per_ordering(monkeypatch):
    calls = sizes_of_calls(monkeypatch, intervention_tasks, "solve_many")
    rng = random.Random(2)
    instances = [generate("defence", level, ORDERINGS[3], 2) for level in (2, 5, 9)]
    groups = [(instance, responses_for(instance, rng)) for instance in instances]
    score_groups(groups)
    assert len(calls) == 1 and calls[0] > len(groups)


@pytest.mark.parametrize("task", ["defence", "status_query"])
def test_identical_answers_reach_the_scorer_once(task, monkeypatch):
    seen: list[list[str]] = []
    scorer = type(REGISTRY[task])
    answers_of, groups_of = scorer.score_answers, scorer.score_groups

    def answers_counted(self, instance, answers):
        seen.append(list(answers))
        return answers_of(self, instance, answers)

    def groups_counted(self, groups):
        seen.extend(list(answers) for _, answers in groups)
        return groups_of(self, groups)

    instances = [generate(task, level, ORDERINGS[2], 4) for level in (3, 7)]
    groups = [
        (i, [f"<answer>{i.reference}</answer>"] * 3 + ["<answer>x</answer>", "none"] * 2)
        for i in instances
    ]
    expected = [[score(i, response) for response in responses] for i, responses in groups]
    monkeypatch.setattr(scorer, "score_answers", answers_counted)
    monkeypatch.setattr(scorer, "score_groups", groups_counted)
    assert score_group(*groups[0]) == expected[0]
    assert seen == [[instances[0].reference, "x"]]
    seen.clear()
    assert score_groups(groups) == expected
    assert {tuple(answers) for answers in seen} == {(i.reference, "x") for i in instances}


@pytest.mark.parametrize("task", CONSTRUCTIVE)
def test_answers_with_the_same_directives_in_another_order_are_solved_once(task, monkeypatch):
    instance = next(
        found
        for seed in range(20)
        if (found := generate(task, 12, ORDERINGS[1], seed)).target["min_directives"] > 1
    )
    lines = instance.reference.splitlines()
    orders = [lines, lines[::-1], lines[1:] + lines[:1]]
    group = [f"<answer>{chr(10).join(order)}</answer>" for order in orders]
    calls = sizes_of_calls(monkeypatch, intervention_tasks, "solve_many")
    scores = score_group(instance, group)
    assert calls == [1]
    monkeypatch.undo()
    assert scores == [score(instance, response) for response in group]
    assert all(result.success for result in scores)


@pytest.mark.parametrize("failure", ["raises", "miscounts"])
def test_a_batch_whose_joint_scoring_fails_falls_back_to_groups(monkeypatch, failure):
    groups = mixed_batch(random.Random(3))
    expected = [score_group(*group) for group in groups]

    def broken(self, groups):
        if failure == "raises":
            raise RuntimeError("broken pooling")
        return [[] for _ in groups]

    monkeypatch.setattr(type(REGISTRY["attack"]), "score_groups", broken)
    assert score_groups(groups) == expected


def test_requests_of_several_groups_keep_the_order_of_pairs(monkeypatch):
    monkeypatch.setattr(isolation, "POOLED_RESPONSES", 5)
    rng = random.Random(4)
    pairs = [(instance, r) for instance, responses in mixed_batch(rng) for r in responses]
    rng.shuffle(pairs)
    with IsolatedScorer(workers=1) as pool:
        assert pool.score_many(pairs) == [score(*pair) for pair in pairs]


def test_a_request_that_kills_its_worker_is_scored_again_group_by_group(misbehaving):
    from misbehaving_tasks import endless

    path, first = misbehaving
    second = endless(1)
    pairs = [
        (first, "<answer>fine</answer>"),
        (second, "<answer>fine</answer>"),
        (first, "<answer>die</answer>"),
        (second, "<answer>fine</answer>"),
    ]
    with IsolatedScorer(load=[str(path)]) as pool:
        scores = pool.score_many(pairs)
    assert [result.reason for result in scores] == ["scored", "scored", scores[2].reason, "scored"]
    assert "died (exit code 3)" in scores[2].reason


def _every_task_instances() -> list:
    """One small instance of every registered task: the generated tasks at level 2, the KG
    families at D1 T1."""
    from dataclasses import replace

    from argc.tasks.framework import generated_tasks
    from argc.tasks.kg.families import FAMILIES, generate_instance

    instances = [generate(task, 2, ORDERINGS[1], 5) for task in generated_tasks()]
    instances += [generate_instance(family, 1, 1, 5).instance() for family in FAMILIES]
    # a copy under another id joins its original's group
    return instances + [replace(instance, id=instance.id + "-copy") for instance in instances]


def test_batched_scoring_of_every_task_equals_one_by_one():
    """`score_pairs`, the path of argc score, sample, eval, bench audit and the study report
    (answers grouped across ids, batches cut mid-group), gives every answer the score it gets
    alone."""
    rng = random.Random(3)
    pairs = []
    for instance in _every_task_instances():
        lines = instance.reference.splitlines() or [""]
        for answer in (instance.reference, "\n".join(lines[:-1]), "\n".join(reversed(lines))):
            pairs.append((instance, f"<answer>{answer}</answer>"))
            pairs.append((instance, answer))  # KG and other untagged tasks read it whole
        pairs.append((instance, "<answer>nonsense</answer>"))
    rng.shuffle(pairs)
    assert {instance.task for instance, _ in pairs} == set(REGISTRY)
    assert isolation.score_pairs(pairs, chunk=37) == [score(*pair) for pair in pairs]


def test_copies_of_an_instance_under_other_ids_form_one_group():
    from dataclasses import replace

    instance = generate("counter_argument", 3, ORDERINGS[0], 2)
    copy = replace(instance, id="another")
    other = generate("counter_argument", 3, ORDERINGS[0], 3)
    groups = isolation.group_indices([(instance, "a"), (other, "b"), (copy, "c")])
    assert sorted(groups.values()) == [[0, 2], [1]]


def test_a_scoring_buffer_scores_in_batches_and_in_order(monkeypatch):
    batches = sizes_of_calls(monkeypatch, isolation, "score_pairs")
    instance = generate("status_query", 2, ORDERINGS[0], 4)
    responses = [f"<answer>{instance.reference}</answer>", "nothing"] * 5
    found = []

    def keep(number: int):
        return lambda result: found.append((number, result))

    with isolation.ScoringBuffer(size=4, seconds=3600) as buffer:
        for number, response in enumerate(responses):
            buffer.add(instance, response, keep(number))
    assert batches == [4, 4, 2]
    assert [number for number, _ in found] == list(range(10))
    assert [result for _, result in found] == [score(instance, r) for r in responses]


def test_answers_of_read_only_tasks_are_scored_in_process_without_a_worker():
    read_only = [i for i in _every_task_instances() if REGISTRY[i.task].reads_only]
    assert {i.task for i in read_only} >= {"status_query", "defeat_diagnosis", "kg_deductive"}
    pairs = [(i, r) for i in read_only for r in (f"<answer>{i.reference}</answer>", i.reference)]
    with IsolatedScorer(workers=2) as pool:
        assert pool.score_many(pairs) == [score(*pair) for pair in pairs]
        assert all(worker.process is None for worker in pool._all)
        constructive = generate("counter_argument", 3, ORDERINGS[0], 2)
        mixed = [*pairs[:3], (constructive, f"<answer>{constructive.reference}</answer>")]
        assert pool.score_many(mixed) == [score(*pair) for pair in mixed]
        assert any(worker.process is not None for worker in pool._all)


def test_read_only_scorers_never_run_the_engine(monkeypatch):
    """A task that declares `reads_only` is scored in the caller's process on the strength
    of that claim: its scorer must not solve anything, whatever the answer."""
    import clingo

    read_only = [i for i in _every_task_instances() if REGISTRY[i.task].reads_only]

    def refuse(*_args, **_kwargs):
        raise AssertionError("a read-only scorer started the engine")

    monkeypatch.setattr(clingo.Control, "__init__", refuse)
    for instance in read_only:
        lines = instance.reference.splitlines() or [""]
        for answer in (instance.reference, "\n".join(reversed(lines)), "nonsense", "x" * 200_000):
            for response in (answer, f"<answer>{answer}</answer>"):
                result = REGISTRY[instance.task].score_groups([(instance, [response])])[0][0]
                assert 0.0 <= result.native <= 1.0
        tagged = REGISTRY[instance.task].tagged
        reference = f"<answer>{instance.reference}</answer>" if tagged else instance.reference
        assert score(instance, reference).success
