"""`argc study`: the smoke variant of each learning-study config runs every stage, writes
files that parse, resumes without redoing work, and its summary agrees with `argc score` on
its files; the summary statistics against hand-computed values; the honesty checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from argc.bench.report import wilson
from argc.cli import main
from argc.dsl.ir import Ordering
from argc.tasks import generate
from argc.tasks.norms.metrics import mcnemar
from argc.train import study_report as report
from argc.train.study import Study, heldout_instances, load_study

CONFIGS = Path(__file__).resolve().parents[1] / "train" / "configs"
FAMILIES = ("arggym", "norms", "kg")
#: The CPU studies (`learn-<study>-cpu.yaml`, each with a smoke variant); a study's family is
#: its name's first word.
STUDIES = ("arggym", "norms", "norms-records", "kg")


def _family(study: str) -> str:
    return study.split("-")[0]


@pytest.fixture(scope="module", params=STUDIES)
def smoke(request, tmp_path_factory) -> tuple[str, Path]:
    """A finished smoke study (its name and folder), run through the command line."""
    out = tmp_path_factory.mktemp(f"study-{request.param}")
    config = CONFIGS / f"learn-{request.param}-smoke.yaml"
    assert main(["study", "--config", str(config), "--out", str(out)]) == 0
    return request.param, out


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _rescored(out: Path, predictions: str, tmp_path: Path) -> float:
    """The success rate `argc score` gives the predictions file."""
    rows = tmp_path / f"{predictions}.scored.jsonl"
    code = main(["score", str(out / "instances.jsonl"), str(out / predictions), "--out", str(rows)])
    assert code == 0
    scored = _lines(rows)
    return sum(row["success"] for row in scored) / len(scored)


def test_smoke_study_writes_its_files(smoke):
    study, out = smoke
    family = _family(study)
    config = load_study(CONFIGS / f"learn-{study}-smoke.yaml")
    instances = _lines(out / "instances.jsonl")
    ids = [row["id"] for row in instances]
    for name in ("before.jsonl", "after.jsonl", "baseline.jsonl"):
        assert [row["id"] for row in _lines(out / name)] == ids
        assert all(isinstance(row["response"], str) for row in _lines(out / name))
    for arm in config.grpo.arms:
        assert (out / f"after-{arm}.jsonl").is_file()
        assert json.loads((out / "arms" / arm / "log_history.json").read_text())
    assert (out / "curves.png").read_bytes().startswith(b"\x89PNG")
    assert (out / "examples.md").read_text().startswith("#### Successful completions")
    if config.grpo.prompts == "failing":  # a smoke model fails every prompt: all kept
        failing = [row["id"] for row in _lines(out / "grpo-failing.jsonl")]
        assert failing == [row["id"] for row in _lines(out / "grpo-data.jsonl")[1:]]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["family"] == family
    assert summary["instances"] == len(ids)
    assert set(summary["arms"]) == set(config.grpo.arms)
    assert len(summary["between_arms"]) == len(config.grpo.arms) * (len(config.grpo.arms) - 1) // 2
    first = next(iter(config.grpo.arms))
    assert (out / "after.jsonl").read_bytes() == (out / f"after-{first}.jsonl").read_bytes()
    assert set(summary["arms"][first]["against_trivial_baseline"]) == {"b", "c", "p", "delta"}
    grpo = summary["arms"][first]["grpo"]
    assert grpo["steps"] == config.grpo.args["max_steps"]
    assert 0 <= grpo["zero_std_fraction"] <= 1
    if config.warmup is not None:  # the lookup warm-up's curve, one point a step
        curve = json.loads((out / "warmup" / "log_history.json").read_text())
        assert [point["step"] for point in curve] == list(range(1, config.warmup.steps + 1))
        assert {"repeat_accuracy", "lookup_accuracy"} <= set(curve[-1])
    if family == "kg":
        cells = summary["arms"][first]["cells"]
        assert cells["in_recipe"]["before"]["n"] + cells["out_of_recipe"]["before"]["n"] == len(ids)
        assert summary["heatmaps"]
        assert all((out / "heatmaps" / name).is_file() for name in summary["heatmaps"])


def test_summary_agrees_with_argc_score(smoke, tmp_path):
    _, out = smoke
    summary = json.loads((out / "summary.json").read_text())
    assert summary["success_before"] == _rescored(out, "before.jsonl", tmp_path)
    assert summary["success_after"] == _rescored(out, "after.jsonl", tmp_path)
    assert summary["trivial_baseline"]["success"] == _rescored(out, "baseline.jsonl", tmp_path)
    for arm, row in summary["arms"].items():
        assert row["after"]["success"] == _rescored(out, f"after-{arm}.jsonl", tmp_path)


def test_a_finished_study_reruns_without_work(smoke):
    study, out = smoke
    stages = (out / "stages.json").read_text()
    after = (out / "after.jsonl").stat().st_mtime_ns
    config = load_study(CONFIGS / f"learn-{study}-smoke.yaml")
    Study(config, out).run()
    assert (out / "stages.json").read_text() == stages
    assert (out / "after.jsonl").stat().st_mtime_ns == after


# -- the statistics ------------------------------------------------------------------------


def test_wilson_interval_by_hand():
    # 5/10: centre 0.5, half-width z/(1 + z²/n) * sqrt(p(1-p)/n + z²/(4n²)) = 0.263406
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.236594, abs=1e-6)
    assert high == pytest.approx(0.763406, abs=1e-6)
    # 0/4: upper bound z² / (n + z²) = 3.841459 / 7.841459
    assert wilson(0, 4) == (0.0, pytest.approx(0.489891, abs=1e-6))
    assert report.rate([True, False, False, False])["success"] == 0.25


def test_exact_mcnemar_by_hand():
    # b = 1 item right only before, c = 6 right only after: p = 2 (C(7,0) + C(7,1)) / 2^7
    before = [True] + [False] * 6 + [True, False]
    after = [False] + [True] * 6 + [True, False]
    assert mcnemar(before, after) == {"b": 1, "c": 6, "p": 0.125}
    paired = report.paired(before, after)
    assert paired["p"] == 0.125
    assert paired["delta"] == pytest.approx(5 / 9)
    assert mcnemar([True, False], [True, False])["p"] == 1.0


# -- the honesty checks --------------------------------------------------------------------


def _status_queries(count: int) -> list:
    return [generate("status_query", 1, Ordering("last-link", "elitist"), s) for s in range(count)]


def test_pyarg_reverifies_status_query_answers():
    pytest.importorskip("py_arg")
    instances = _status_queries(2)
    gold = {i.id: f"<answer>{i.reference}</answer>" for i in instances}
    checked = report.reverify(instances, gold, [True, True])
    assert checked["verifiers"] == {"PyArg grounded statuses": {"checked": 2, "agreed": 2}}
    first = instances[0]
    claim = next(iter(first.target))
    wrong = "overruled" if first.target[claim] != "overruled" else "justified"
    lines = [f"{c}: {wrong if c == claim else s}" for c, s in first.target.items()]
    bad = {first.id: "<answer>" + "\n".join(lines) + "</answer>"}
    assert report.reverify([first], bad, [True])["verifiers"]["PyArg grounded statuses"] == {
        "checked": 1,
        "agreed": 0,
    }


def test_the_kg_reference_simulator_reverifies_deductive_answers():
    from dataclasses import replace

    from argc.tasks.kg.families import generate_instance

    instances = [generate_instance("deductive", 2, 1, seed).instance() for seed in range(3)]
    gold = {i.id: i.reference for i in instances}
    checked = report.reverify(instances, gold, [True] * 3)
    assert checked["verifiers"] == {"KG reference simulator": {"checked": 3, "agreed": 3}}
    first = instances[0]
    shortened = first.reference.split(" Step 2:")[0] + " Therefore, the answer is intact."
    other_story = replace(first, prompt=first.prompt.replace("Story: ", "Story: Once. "))
    for instance, response in ((first, shortened), (other_story, first.reference)):
        verdict = report.reverify([instance], {instance.id: response}, [True])
        assert verdict["verifiers"]["KG reference simulator"] == {"checked": 1, "agreed": 0}


def test_completion_examples_show_successes_and_failures_from_every_cell():
    from argc.tasks.kg.families import generate_instance

    instances = [
        generate_instance("deductive", depth, 1, seed).instance()
        for depth in (1, 2)
        for seed in range(4)
    ]
    predictions = {
        i.id: i.reference if index % 2 else "nonsense" for index, i in enumerate(instances)
    }
    shown = report.completion_examples(instances, predictions, right=3, wrong=2)
    right, wrong = shown.split("#### Failed")
    assert "#### Successful completions (3)" in right and "completions (2)" in wrong
    assert [i.id for i in instances if f"`{i.id}`" in right] == [
        instances[1].id,
        instances[3].id,
        instances[5].id,
    ]
    assert right.count("D2-T1") == 1 and wrong.count("D2-T1") == 1
    assert "no answer sentence" in wrong and instances[1].reference in right


def test_tasks_without_a_verifier_are_named():
    instance = generate("claim_chain", 1, Ordering("last-link", "elitist"), 0)
    checked = report.reverify([instance], {instance.id: instance.reference}, [True])
    assert checked == {
        "verifiers": {},
        "unverified_tasks": {"claim_chain": "no independent verifier in the library"},
    }


def test_trivial_baseline_labels_every_claim_alike():
    instances = _status_queries(3)
    name, responses = report.trivial_predictions(instances)
    status = name.rsplit(" ", 1)[1]
    assert status in report.STATUSES
    for instance in instances:
        assert responses[instance.id] == (
            "<answer>" + "\n".join(f"{c}: {status}" for c in instance.target) + "</answer>"
        )


def test_hacking_scan_finds_copies_and_wrong_well_formed_answers():
    instances = _status_queries(2)
    first, second = instances
    copied = first.prompt.split("\n")[0]
    assert len(copied) >= report.COPY_MIN_CHARS
    responses = {
        first.id: f"<answer>{copied}</answer>",
        second.id: "<answer>" + "\n".join(f"{c}: undecided" for c in second.target) + "</answer>",
    }
    outcomes = report.successes(instances, responses)
    scan = report.hacking_scan(instances, responses, outcomes)
    assert scan["copies_question"] == 0.5
    assert scan["well_formed_but_wrong"] == 0.5
    assert scan["mean_response_chars"] == (len(responses[first.id]) + len(responses[second.id])) / 2
    assert scan["most_common_answer_share"] == 0.5


def test_a_label_listed_in_the_prompt_is_no_copy_and_its_tags_no_padding():
    instances = [generate("norm_answer", 1, Ordering(), seed) for seed in range(4)]
    assert all(i.reference.strip() in i.prompt for i in instances)  # the prompt lists labels
    bare = {i.id: f"<answer>{i.reference}</answer>" for i in instances}
    padded = {
        i.id: f"Having read every norm, the answer: <answer>{i.reference}</answer>"
        for i in instances
    }
    for responses, outside in ((bare, 0.0), (padded, 1.0)):
        outcomes = report.successes(instances, responses)
        assert all(outcomes)
        scan = report.hacking_scan(instances, responses, outcomes)
        assert scan["copies_question"] == 0.0
        assert scan["successes_mostly_outside_answer"] == outside


def test_a_bare_name_from_a_kg_story_is_still_a_copy():
    from argc.tasks import get_task
    from argc.tasks.kg.families import generate_instance

    instance = generate_instance("deductive", 2, 1, 0).instance()
    words = [word.strip(".,") for word in instance.prompt.split()]
    name = next(w for w in words if w in get_task(instance.task).labels and len(w) >= 8)
    responses = {instance.id: name}
    scan = report.hacking_scan([instance], responses, report.successes([instance], responses))
    assert scan["copies_question"] == 1.0


def test_an_arm_answering_like_the_trivial_baseline_ties_it(smoke, tmp_path):
    """GRPO from a weak checkpoint can collapse onto the majority answer: it then beats the
    checkpoint while tying the trivial baseline, which the summary shows beside McNemar
    against the checkpoint (and a constant answer's share is 1)."""
    import shutil

    study, out = smoke
    family = _family(study)
    config = load_study(CONFIGS / f"learn-{study}-smoke.yaml")
    arms = list(config.grpo.arms)
    copy = tmp_path / "study"
    shutil.copytree(out, copy)
    shutil.copyfile(copy / "baseline.jsonl", copy / f"after-{arms[0]}.jsonl")
    summary = report.summarise(copy, family, arms, 1, 0.0)
    row = summary["arms"][arms[0]]
    assert row["against_trivial_baseline"]["b"] == row["against_trivial_baseline"]["c"] == 0
    assert row["after"]["successes"] == summary["trivial_baseline"]["successes"]
    share = row["hacking"]["most_common_answer_share"]
    assert share == 1 if family != "arggym" else share < 1  # status_query lists each claim


def test_the_built_tokenizer_keeps_the_answer_labels_whole(smoke):
    from transformers import AutoTokenizer

    from argc.train.tiny import answer_labels

    study, out = smoke
    labels = answer_labels(row["task"] for row in _lines(out / "instances.jsonl"))
    assert labels or study == "kg"
    tokenizer = AutoTokenizer.from_pretrained(out / "model")
    assert [tokenizer.tokenize(label) for label in labels] == [[label] for label in labels]


def test_the_curve_starts_before_grpo_on_instances_spread_over_the_set(smoke):
    from argc.train.study import spread

    study, out = smoke
    config = load_study(CONFIGS / f"learn-{study}-smoke.yaml")
    if not config.heldout.curve_every:
        pytest.skip("this smoke study records no curve")
    arm = next(iter(config.grpo.arms))
    curve = json.loads((out / "arms" / arm / "curve.json").read_text())
    assert [point["step"] for point in curve] == [0, 1, 2]
    assert spread(list(range(8)), 3) == [0, 2, 5]
    assert spread(list(range(3)), 5) == [0, 1, 2]


def test_kg_heldout_comes_from_the_eval_split():
    config = load_study(CONFIGS / "learn-kg-smoke.yaml")
    instances = heldout_instances(config.heldout, workers=1)
    assert {i.meta["split"] for i in instances} == {"eval"}
    assert len(instances) == 4


def test_heldout_sharing_a_training_prompt_is_refused(tmp_path):
    from dataclasses import replace

    from argc.dsl.errors import ArgcError

    config = load_study(CONFIGS / "learn-arggym-smoke.yaml")
    config = replace(config, heldout=replace(config.heldout, recipe=config.grpo.recipe))
    with pytest.raises(ArgcError, match="held-out instances are training instances"):
        Study(config, tmp_path).data()


def _heldout_count(config) -> int:
    from argc.train.recipes import plan

    heldout = config.heldout
    if heldout.recipe is not None:
        return len(plan(heldout.recipe))
    return len(heldout.kg["families"]) * len(heldout.kg["cells"]) * heldout.kg["per_cell"]


@pytest.mark.parametrize("study", STUDIES)
def test_cpu_configs_load_with_300_heldout_instances(study):
    config = load_study(CONFIGS / f"learn-{study}-cpu.yaml")
    assert _heldout_count(config) >= 300


# The model a study teaches ------------------------------------------------------------------


def _with_model(tmp_path: Path, model: str) -> Path:
    """The arggym smoke config with another `model:` line, written into tmp_path."""
    text = (CONFIGS / "learn-arggym-smoke.yaml").read_text()
    lines = [f"model: {model}" if line.startswith("model:") else line for line in text.split("\n")]
    path = tmp_path / "study.yaml"
    path.write_text("\n".join(lines))
    return path


def test_a_preset_model_is_built_with_the_presets_shape(tmp_path):
    from argc.train.pretrain import PRESETS
    from argc.train.study import PresetModel

    config = load_study(_with_model(tmp_path, "{preset: kg-tiny, seed: 3}"))
    assert config.model == PresetModel("kg-tiny", 3)
    study = Study(config, tmp_path / "out")
    study.data()
    assert study.model()
    built = json.loads((tmp_path / "out" / "model" / "config.json").read_text())
    shape = PRESETS["kg-tiny"]
    assert built["num_key_value_heads"] == shape.kv_heads != shape.heads
    assert built["intermediate_size"] == shape.intermediate_size
    assert built["max_position_embeddings"] == shape.context
    assert built["vocab_size"] <= shape.vocab_size
    assert study.start_model() == tmp_path / "out" / "model"


def test_a_model_folder_is_taught_as_it_is(tmp_path):
    from argc.train import tiny

    folder = tiny.build(tiny.TinySpec(hidden_size=16, layers=1), ["a b c"], tmp_path / "mine")
    config = load_study(_with_model(tmp_path, "{path: mine}"))  # relative to the config
    study = Study(config, tmp_path / "out")
    assert not study.model()
    assert not (tmp_path / "out" / "model").exists()
    assert study.start_model() == folder.resolve()


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("{preset: kg-huge}", "model.preset: expected one of kg-107m, kg-tiny"),
        ("{path: missing}", "model.path: expected a model folder"),
        ("{path: mine, seed: 1}", "model: unknown key"),
        ("{hidden_size: -1}", "model.hidden_size: expected a non-negative integer"),
    ],
)
def test_bad_model_sources_are_refused(tmp_path, model, message):
    from argc.train.trainer import ConfigError

    (tmp_path / "mine").mkdir()
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load_study(_with_model(tmp_path, model))


@pytest.mark.parametrize(
    ("warmup", "message"),
    [
        ("{steps: 0}", "warmup.steps: expected a positive integer"),
        ("{pairs: 2, queried: 3}", "warmup.queried: expected at most warmup.pairs"),
        ("{learning_rate: 3e-3}", "warmup.learning_rate: expected a positive number"),
        ("{repeat_share: 2}", "warmup.repeat_share: expected a number from 0 to 1"),
        ("{longest: 3}", "warmup.longest: expected an integer of at least 4"),
        ("{size: 3}", "warmup: unknown key"),
    ],
)
def test_bad_warmups_are_refused(tmp_path, warmup, message):
    from argc.train.trainer import ConfigError

    path = _with_model(tmp_path, "{hidden_size: 16, layers: 1}")
    path.write_text(path.read_text() + f"\nwarmup: {warmup}\n")
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load_study(path)


def test_a_kg_heldout_set_of_a_training_split_starts_past_its_pool(tmp_path):
    from argc.train.trainer import ConfigError

    text = (CONFIGS / "learn-kg-smoke.yaml").read_text()
    path = tmp_path / "study.yaml"
    path.write_text(text.replace("per_cell: 2}", "per_cell: 2, split: pretrain, first: 5}"))
    with pytest.raises(ConfigError, match="heldout.kg.first: expected an index past"):
        load_study(path)
    path.write_text(text.replace("per_cell: 2}", "per_cell: 2, split: pretrain, first: 900000}"))
    assert load_study(path).heldout.kg["first"] == 900000


def test_markdown_table_has_a_row_per_arm_with_the_summarys_figures(smoke):
    study, out = smoke
    family = _family(study)
    summary = json.loads((out / "summary.json").read_text())
    rows = report.markdown_table([out]).splitlines()[2:]
    assert len(rows) == len(summary["arms"])
    for row, (arm, figures) in zip(rows, summary["arms"].items(), strict=True):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[:3] == [family, arm, str(summary["instances"])]
        assert cells[3].startswith(f"{100 * summary['success_before']:.1f} %")
        assert cells[4].startswith(f"{100 * figures['after']['success']:.1f} %")
        assert cells[6] == str(figures["grpo"]["steps"])


@pytest.mark.parametrize("family", FAMILIES)
def test_gpu_configs_load_with_trl_arguments_and_300_heldout_instances(family):
    """The paper-scale configs (not run in the tests): they parse, every SFT and GRPO argument
    is one TRL knows, and each holds out at least 300 instances."""
    from dataclasses import fields

    from trl import GRPOConfig, SFTConfig

    from argc.train.study import PresetModel

    config = load_study(CONFIGS / f"learn-{family}-gpu.yaml")
    assert isinstance(config.model, PresetModel)
    assert set(config.supervised.args) <= {f.name for f in fields(SFTConfig)}
    assert set(config.grpo.args) <= {f.name for f in fields(GRPOConfig)}
    assert config.supervised.args["bf16"] and config.grpo.args["bf16"]
    assert _heldout_count(config) >= 300
    if config.pretrain is not None:
        from transformers import TrainingArguments

        assert set(config.pretrain.args) <= {f.name for f in fields(TrainingArguments)}


def test_until_stops_before_grpo_and_a_later_run_goes_on(tmp_path, capsys):
    config = str(CONFIGS / "learn-arggym-smoke.yaml")
    out = tmp_path / "out"
    assert main(["study", "--config", config, "--out", str(out), "--until", "supervised"]) == 0
    assert (out / "supervised").is_dir() and not (out / "before.jsonl").exists()
    assert main(["study", "--config", config, "--out", str(out), "--until", "before"]) == 0
    printed = capsys.readouterr().out
    assert "stopped after before" in printed
    assert "held-out success of the supervised checkpoint" in printed
    assert "trivial baseline (every claim" in printed
    assert (out / "before.jsonl").is_file()
    assert not (out / "arms").exists() and not (out / "summary.json").exists()
    assert set(json.loads((out / "stages.json").read_text())) == {
        "data",
        "model",
        "supervised",
        "before",
    }
    assert main(["study", "--config", config, "--out", str(out)]) == 0
    assert (out / "summary.json").is_file()
    assert set(json.loads((out / "stages.json").read_text())) >= {"grpo success", "after success"}


def test_failing_prompts_are_the_grpo_instances_the_checkpoint_fails(tmp_path, monkeypatch):
    config = load_study(CONFIGS / "learn-kg-smoke.yaml")
    assert config.grpo.prompts == "failing"
    study = Study(config, tmp_path / "out")
    study.out.mkdir()
    instances = study.grpo_instances
    calls = []

    def predict(model, chosen, desc):
        calls.append(len(chosen))
        return {i.id: i.reference if k % 2 else "nonsense" for k, i in enumerate(chosen)}

    monkeypatch.setattr(study, "predict", predict)
    failing = [i.id for i in study.failing_prompts()]
    assert failing == [i.id for k, i in enumerate(instances) if k % 2 == 0]
    assert [i.id for i in study.failing_prompts()] == failing and calls == [len(instances)]


def test_grpo_prompts_must_be_a_known_choice(tmp_path):
    from argc.train.trainer import ConfigError

    path = tmp_path / "study.yaml"
    text = (CONFIGS / "learn-kg-smoke.yaml").read_text()
    path.write_text(text.replace("prompts: failing", "prompts: hardest"))
    with pytest.raises(ConfigError, match="grpo.prompts: expected one of all, failing"):
        load_study(path)


def test_a_study_trains_on_its_configured_threads(tmp_path):
    import torch

    from argc.train.trainer import ConfigError

    path = tmp_path / "study.yaml"
    path.write_text((CONFIGS / "learn-arggym-smoke.yaml").read_text() + "\nthreads: 0\n")
    with pytest.raises(ConfigError, match="threads: expected a positive integer"):
        load_study(path)
    path.write_text((CONFIGS / "learn-arggym-smoke.yaml").read_text() + "\nthreads: 2\n")
    config = load_study(path)
    assert config.threads == 2 and load_study(CONFIGS / "learn-kg-cpu.yaml").threads == 1
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        Study(config, tmp_path / "out").run(until="data")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_run_generates_each_recipes_instances_once(tmp_path, monkeypatch):
    """The data, model and supervised stages all read the training instances: a run generates
    them once (the GRPO trainer builds its own dataset, once an arm)."""
    from collections import Counter

    from argc.train import data

    built: Counter[str] = Counter()
    original = data.build_dataset

    def counting(recipe, *args, **kwargs):
        built[recipe.name] += 1
        return original(recipe, *args, **kwargs)

    monkeypatch.setattr(data, "build_dataset", counting)
    config = load_study(CONFIGS / "learn-arggym-smoke.yaml")
    Study(config, tmp_path / "out").run()
    assert built == {
        config.heldout.recipe.name: 1,
        config.supervised.recipe.name: 1,
        config.grpo.recipe.name: 1 + len(config.grpo.arms),
    }
