"""Normative worlds in training: the SFT mixes (composition, replay of residual failures,
determinism, gold completions that score 1), the `sft` block of a training config, the
zero-std reader of a GRPO log, the three-reward comparison configs, and a tiny SFT -> GRPO run
on CPU that logs every change-record reward."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client reads it (at import)
os.environ.setdefault("OMP_NUM_THREADS", "1")
pytest.importorskip("torch")
pytest.importorskip("trl")

from argc.cli import main  # noqa: E402
from argc.compiler.norms.verdict import solve_world  # noqa: E402
from argc.dsl.errors import ArgcError  # noqa: E402
from argc.dsl.norms import parse_world  # noqa: E402
from argc.tasks import Instance, score  # noqa: E402
from argc.train import sft, trainer  # noqa: E402
from argc.train.data import prompt_of, row  # noqa: E402
from argc.train.metrics import ZeroStd, read_log_history, reward_means, zero_std  # noqa: E402
from argc.train.rewards import rewards_from_config  # noqa: E402
from argc.train.trainer import ConfigError, grpo_args, load_config, sft_args  # noqa: E402

HISTORY, SFT_FOLDER, SFT_HISTORY = trainer.HISTORY, trainer.SFT_FOLDER, trainer.SFT_HISTORY

CONFIGS = Path(__file__).resolve().parent.parent / "train" / "configs"
TINY = CONFIGS / "norms-tiny-cpu.yaml"
COMPARISON = ("norms-answer-change", "norms-record-exact", "norms-mr")
COUNT = 12


def instance_of(item: dict) -> Instance:
    return Instance.from_record(json.loads(item["instance"]))


def content(completion) -> str:
    return completion if isinstance(completion, str) else completion[-1]["content"]


@pytest.fixture(scope="module")
def mixes() -> dict:
    return {mix: sft.sft_dataset(mix, COUNT, 0) for mix in sft.MIXES}


# The SFT mixes ---------------------------------------------------------------------------------


def test_mixes_hold_their_tasks_in_turn(mixes: dict) -> None:
    for mix, tasks in sft.MIXES.items():
        data = mixes[mix]
        assert len(data) == COUNT
        assert set(data["task"]) == set(tasks), mix
    for mix in ("answer", "answer_proof", "answer_proof_falsification"):
        data = mixes[mix]
        tasks = sft.MIXES[mix]
        assert data["task"] == [tasks[k % len(tasks)] for k in range(COUNT)]
        assert len(set(data["id"])) == COUNT
        # each task takes the levels 1-8 in turn
        for task in tasks:
            levels = [
                level for t, level in zip(data["task"], data["level"], strict=True) if t == task
            ]
            assert levels == [1 + k % 8 for k in range(len(levels))]
    # the answer mix asks about root worlds (levels 1-4) and edited worlds (levels 5-8)
    roles = [instance_of(item).meta["params"]["role"] for item in mixes["answer"]]
    levels = mixes["answer"]["level"]
    assert all((role == "root") == (level <= 4) for role, level in zip(roles, levels, strict=True))
    assert {"root", "support_delta", "priority_delta"} & set(roles) >= {"root"}
    assert set(roles) - {"root"}


def test_mixes_share_their_worlds(mixes: dict) -> None:
    """A task's instances are the same in every mix with the seed: a prefix of each other."""
    answers = mixes["answer"]["id"]
    for mix in ("answer_proof", "answer_proof_falsification"):
        data = mixes[mix]
        found = [
            i for i, task in zip(data["id"], data["task"], strict=True) if task == "norm_answer"
        ]
        assert found == answers[: len(found)], mix
    full = mixes["answer_proof_falsification"]["id"]
    replayed = list(dict.fromkeys(mixes["targeted_replay"]["id"]))
    assert replayed == full[: len(replayed)]


def test_targeted_replay_oversamples_residual_failures(mixes: dict) -> None:
    data = mixes["targeted_replay"]
    copies = Counter(data["id"])
    last = data["id"][-1]
    reasons = dict(zip(data["id"], data["residual"], strict=True))
    for identifier, count in copies.items():
        expected = sft.DEFAULT_REPLAY_FACTOR if reasons[identifier] else 1
        assert count == expected or (identifier == last and count < expected), identifier
    assert any(count > 1 for count in copies.values())
    full = mixes["answer_proof_falsification"]
    share_full = sum(bool(r) for r in full["residual"]) / len(full)
    share_replay = sum(bool(r) for r in data["residual"]) / len(data)
    assert share_replay > share_full
    # copies are adjacent
    runs = [data["id"][k] for k in range(len(data)) if k == 0 or data["id"][k] != data["id"][k - 1]]
    assert len(runs) == len(copies)


def identity_through_arguments(world_text: str, support: list[str]) -> bool:
    """Independently of `sft.rests_on_identity`: a justified argument of a support rule has a
    sub-argument built by an identity rule (a strict rule that is no normative instance)."""
    verdict = solve_world(parse_world(world_text))
    reading = verdict.reading
    for argument, rule in reading.rule_of.items():
        if rule not in support or reading.status(argument) != "justified":
            continue
        for name in reading.solution.subarguments(argument):
            top = reading.solution.arguments[name].top_rule
            if top is not None and top not in reading.compiled.instances:
                return True
    return False


def test_residual_reasons_follow_their_definitions(mixes: dict) -> None:
    seen: Counter[str] = Counter()
    for mix in ("answer_proof_falsification", "targeted_replay"):
        for item in mixes[mix]:
            instance = instance_of(item)
            target = instance.target
            reasons = set(item["residual"])
            seen.update(reasons)
            family = instance.meta["params"]["family_type"] in sft.RESIDUAL_FAMILY_TYPES
            assert ("family" in reasons) == family
            identity = identity_through_arguments(
                target["world"], target["verdict"]["support"]["rules"]
            )
            assert ("identity_support" in reasons) == identity, instance.id
            error = target.get("falsification", {}).get("error_type")
            assert ("falsification" in reasons) == (error in sft.RESIDUAL_ERRORS)
    assert seen["family"] and seen["identity_support"] and seen["falsification"]


def test_identity_derived_support_by_hand() -> None:
    derived = (
        "trainee(alice).\ntrainee(X) -> apprentice(X).\n"
        "[norm r1: apprentice(X) => forbidden(enter(X))]\n[query: enter(alice)]\n"
    )
    stated = derived.replace("trainee(alice).", "apprentice(alice).")
    assert sft.rests_on_identity(derived, ["r1"])
    assert not sft.rests_on_identity(stated, ["r1"])
    assert not sft.rests_on_identity(derived, [])
    assert identity_through_arguments(derived, ["r1"])


def test_every_completion_scores_one(mixes: dict) -> None:
    for mix, data in mixes.items():
        for item in data:
            instance = instance_of(item)
            assert content(item["completion"]) == f"<answer>{instance.reference}</answer>"
            verdict = score(instance, content(item["completion"]))
            assert verdict.native == 1.0 and verdict.success, (mix, instance.id, verdict)
            assert item["prompt"] == row(instance, "chat", None)["prompt"]
            assert item["completion"][0]["role"] == "assistant"


def test_text_prompts_match_the_grpo_dataset() -> None:
    data = sft.sft_dataset("answer", 2, 3, prompt_format="text", system="Be brief.")
    for item in data:
        instance = instance_of(item)
        assert item["prompt"] == prompt_of(instance.prompt, "text", "Be brief.")
        assert item["completion"] == f"<answer>{instance.reference}</answer>"


def test_mixes_are_deterministic_whatever_the_workers() -> None:
    arguments = ("targeted_replay", 9, 5)
    options = {"levels": (2, 7), "replay_factor": 3}
    alone = sft.mix_entries(*arguments, **options)
    assert sft.mix_entries(*arguments, **options) == alone
    assert sft.mix_entries(*arguments, **options, workers=2) == alone
    assert len(alone) == 9
    ids = [json.loads(record)["id"] for record, _ in alone]
    assert {json.loads(record)["level"] for record, _ in alone} <= set(range(2, 8))
    assert sft.mix_entries("targeted_replay", 9, 6, **options) != alone
    reasons = dict(zip(ids, (r for _, r in alone), strict=True))
    assert all(ids.count(i) in ((3,) if reasons[i] else (1,)) for i in ids[:-3])
    with pytest.raises(ValueError, match="unknown SFT mix"):
        sft.mix_entries("everything", 3)


# The config ------------------------------------------------------------------------------------

BASE = "recipe: norms-tiny\nmodel: {tiny: {}}\nrewards: [mr]\ngrpo: {}\n"


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("sft: 3", "sft: expected a mapping, not int"),
        ("sft: {mix: answer, args: {}}", "sft: missing key(s) instances"),
        ("sft: {mix: answer, instances: 4, args: {}, steps: 2}", "sft: unknown key(s) steps"),
        ("sft: {mix: everything, instances: 4, args: {}}", "sft.mix: expected one of answer,"),
        ("sft: {mix: answer, instances: 0, args: {}}", "sft.instances: expected a positive"),
        ("sft: {mix: answer, instances: true, args: {}}", "sft.instances: expected a positive"),
        ("sft: {mix: answer, instances: 4, seed: -1, args: {}}", "sft.seed: expected a non-neg"),
        ("sft: {mix: answer, instances: 4, args: [1]}", "sft.args: expected a mapping"),
        (
            "sft: {mix: answer, instances: 4, args: {output_dir: x}}",
            "sft.args.output_dir: the SFT stage writes to sft/",
        ),
        ("sft: {mix: answer, instances: 4, levels: [0, 3], args: {}}", "sft.levels: expected"),
        ("sft: {mix: answer, instances: 4, levels: [5, 2], args: {}}", "sft.levels: expected"),
        ("sft: {mix: answer, instances: 4, levels: [3], args: {}}", "sft.levels: expected"),
        (
            "sft: {mix: answer, instances: 4, replay_factor: 2, args: {}}",
            "sft.replay_factor: only the targeted_replay mix",
        ),
        (
            "sft: {mix: targeted_replay, instances: 4, replay_factor: 0, args: {}}",
            "sft.replay_factor: expected a positive integer",
        ),
    ],
)
def test_sft_block_errors_name_the_key(tmp_path: Path, block: str, message: str) -> None:
    (tmp_path / "sft.yaml").write_text(f"{BASE}{block}\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(tmp_path / "sft.yaml")


def test_sft_arguments_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        BASE.replace("grpo: {}", "grpo: {use_cpu: true, bf16: false}")
        + "sft: {mix: answer, instances: 2, args: {lerning_rate: 1}}\n"
    )
    assert main(["train", "--config", str(path), "--output-dir", str(tmp_path / "out")]) == 2
    assert "sft.args: lerning_rate is not a trl.SFTConfig argument" in capsys.readouterr().err
    config = load_config(path)
    numbers = replace(
        config,
        sft=replace(
            config.sft,
            args={"learning_rate": "2e-4", "use_cpu": True, "bf16": False},
        ),
    )
    args = sft_args(numbers, tmp_path)
    assert args.learning_rate == 2e-4 and Path(args.output_dir) == tmp_path / SFT_FOLDER
    bad = replace(config, sft=replace(config.sft, args={"learning_rate": "fast"}))
    with pytest.raises(ConfigError, match="sft.args.learning_rate: expected a number"):
        sft_args(bad, tmp_path)


def cpu(config):
    """A GPU config's arguments made buildable on CPU."""
    off = {"bf16": False, "use_cpu": True}
    return replace(
        config,
        grpo={**config.grpo, **off},
        sft=replace(config.sft, args={**config.sft.args, **off}),
    )


def test_comparison_configs_differ_only_in_their_reward(tmp_path: Path) -> None:
    configs = {name: load_config(CONFIGS / f"{name}.yaml") for name in COMPARISON}
    names = {
        name: [f.__name__ for f in rewards_from_config(config.rewards)]
        for name, config in configs.items()
    }
    assert names == {
        "norms-answer-change": ["answer_change_reward"],
        "norms-record-exact": ["record_exact_reward"],
        "norms-mr": ["mr_reward"],
    }
    shared = {
        replace(config, rewards=[], grpo={**config.grpo, "output_dir": None}).__repr__()
        for config in configs.values()
    }
    assert len(shared) == 1
    for name, config in configs.items():
        assert config.grpo["output_dir"] == f"runs/{name}"
        assert config.sft is not None and config.lora is not None
        assert grpo_args(cpu(config)).num_generations == 8
        assert sft_args(cpu(config), tmp_path).max_steps == config.sft.args["max_steps"]
    assert configs["norms-mr"].recipe == "norms-change-records"


def test_change_record_recipe_balances_the_relations() -> None:
    from argc.tasks.norms.families import ROLES
    from argc.train.recipes import load_recipe, plan

    slots = plan(load_recipe("norms-change-records"))
    assert {slot.task for slot in slots} == {"norm_change_record"}
    roles = Counter(ROLES[(slot.level - 1) % len(ROLES)] for slot in slots)
    assert set(roles) == set(ROLES) and len(set(roles.values())) == 1


# The zero-std reader ---------------------------------------------------------------------------


def test_zero_std_reader_on_a_hand_written_log(tmp_path: Path) -> None:
    history = [
        {"loss": 0.1, "frac_reward_zero_std": 0.5, "rewards/mr_reward/mean": 0.2, "step": 1},
        {"loss": 0.0, "frac_reward_zero_std": 1.0, "rewards/mr_reward/mean": 0.4, "step": 2},
        {"loss": 0.0, "frac_reward_zero_std": 0, "rewards/format_reward/mean": 1, "step": 4},
        {"train_runtime": 3.2, "train_loss": 0.03, "step": 4},
    ]
    path = tmp_path / "log_history.json"
    path.write_text(json.dumps(history))
    found = zero_std(path)
    assert found == ZeroStd(((1, 0.5), (2, 1.0), (4, 0.0)), 0.5)
    assert zero_std(history) == found
    assert reward_means(history) == pytest.approx({"mr_reward": 0.3, "format_reward": 1.0})
    assert zero_std([{"loss": 1.0, "step": 1}]) == ZeroStd((), None)
    path.write_text('{"not": "a list"}')
    with pytest.raises(ArgcError, match="a list of log entries"):
        zero_std(path)
    with pytest.raises(ArgcError, match="cannot read"):
        zero_std(tmp_path / "missing.json")


# SFT then GRPO on CPU --------------------------------------------------------------------------


def run(config: Path, out: Path, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    """`argc train` with the config into `out`; what it printed (it must succeed)."""
    assert main(["train", "--config", str(config), "--output-dir", str(out), *options]) == 0
    return capsys.readouterr().out


def training_steps(path: Path) -> list[dict]:
    """The entries of a log history that log a training step (they carry the loss)."""
    return [entry for entry in read_log_history(path) if "loss" in entry]


def adapter(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(folder / "adapter_model.safetensors")


def test_tiny_sft_then_grpo_logs_every_reward(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    printed = run(TINY, out, capsys)
    names = [f.__name__ for f in rewards_from_config(load_config(TINY).rewards)]
    assert names == ["answer_change_reward", "record_exact_reward", "mr_reward", "format_reward"]
    expected = {*(f"rewards/{name}/mean" for name in names), "frac_reward_zero_std"}
    grpo_steps = training_steps(out / HISTORY)
    assert len(grpo_steps) == 2 and all(expected <= set(step) for step in grpo_steps)
    assert len(training_steps(out / SFT_HISTORY)) == 2
    # both stages' outputs: the SFT adapter and tokenizer, then GRPO's
    for folder in (out / SFT_FOLDER, out):
        for saved in ("adapter_config.json", "adapter_model.safetensors", "tokenizer.json"):
            assert (folder / saved).is_file(), folder / saved
    # GRPO continued the SFT adapter (a fresh one starts with lora_B = 0)
    before, after = adapter(out / SFT_FOLDER), adapter(out)
    assert before.keys() == after.keys()
    lora_b = [key for key in before if "lora_B" in key]
    assert lora_b and any(before[key].abs().max() > 0 for key in lora_b)
    assert all((before[key] - after[key]).abs().max() < 1e-3 for key in before)
    # the summary reports the zero-std fraction read from the GRPO log
    assert "sft targeted_replay: 8 rows" in printed and "GRPO trains the SFT adapter on" in printed
    mean = zero_std(out / HISTORY).mean
    assert mean is not None
    assert f"zero-std groups {mean:.3f} (mean over the steps)" in printed
    assert "reward means answer_change_reward" in printed


def test_tiny_sft_then_grpo_without_lora(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "full.yaml"
    path.write_text(
        TINY.read_text().replace(
            "\nlora: {r: 4, alpha: 8, dropout: 0.0, target_modules: all-linear}", "\nlora: null"
        )
    )
    assert load_config(path).lora is None
    out = tmp_path / "run"
    assert "GRPO starts from the SFT model" in run(path, out, capsys, "--max-steps", "1")
    for folder in (out / SFT_FOLDER, out):
        assert (folder / "model.safetensors").is_file(), folder
    from safetensors.torch import load_file

    start = load_file(out / "tiny-init" / "model.safetensors")
    tuned = load_file(out / SFT_FOLDER / "model.safetensors")
    final = load_file(out / "model.safetensors")
    assert any((start[key] - tuned[key]).abs().max() > 1e-4 for key in start)
    assert all((tuned[key] - final[key]).abs().max() < 1e-3 for key in tuned)
    assert len(training_steps(out / HISTORY)) == 1


def test_dry_run_builds_both_stages_without_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dry"
    printed = run(TINY, out, capsys, "--dry-run")
    assert "sft targeted_replay: 8 rows" in printed and "recipe norms-tiny: 4 examples" in printed
    # the SFT trainer makes its folder, and nothing is trained or saved
    assert not (out / SFT_FOLDER / "adapter_model.safetensors").exists()
    assert not (out / SFT_HISTORY).exists() and not (out / HISTORY).exists()
    # the tiny tokenizer keeps the change records' and verdicts' labels whole
    from transformers import AutoTokenizer

    from argc.train.tiny import answer_labels
    from argc.train.trainer import TINY_FOLDER

    tokenizer = AutoTokenizer.from_pretrained(out / TINY_FOLDER)
    labels = answer_labels(["norm_change_record"])
    assert "conflict_unresolved" in labels and "surface_invariant" in labels
    assert [tokenizer.tokenize(label) for label in labels] == [[label] for label in labels]
