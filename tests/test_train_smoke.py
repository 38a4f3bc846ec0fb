"""`argc train` end to end on CPU: the shipped tiny config trains a tiny random-init model for
two GRPO steps on fresh instances, logs every reward and saves the model. Also the config
checks and the tiny model's determinism."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client reads it (at import)
pytest.importorskip("torch")
pytest.importorskip("trl")

from argc.cli import main  # noqa: E402
from argc.train import tiny  # noqa: E402
from argc.train.rewards import rewards_from_config  # noqa: E402
from argc.train.trainer import TINY_FOLDER, ConfigError, grpo_args, load_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "train" / "configs"
TINY_CPU = CONFIGS / "tiny-cpu.yaml"


def test_tiny_cpu_config_trains_and_logs_every_reward(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code = main(["train", "--config", str(TINY_CPU), "--output-dir", str(out), "--max-steps", "2"])
    assert code == 0
    history = json.loads((out / "log_history.json").read_text())
    steps = [entry for entry in history if "loss" in entry]
    assert len(steps) == 2
    names = [f.__name__ for f in rewards_from_config(load_config(TINY_CPU).rewards)]
    assert names == ["success_reward", "native_reward", "format_reward", "gated_reward"]
    for name in names:
        assert all(f"rewards/{name}/mean" in entry for entry in steps), name
    for saved in ("config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"):
        assert (out / saved).is_file(), saved
    from transformers import AutoModelForCausalLM, AutoTokenizer

    assert AutoModelForCausalLM.from_pretrained(out).num_parameters() > 0
    assert AutoTokenizer.from_pretrained(out).chat_template


def test_dry_run_builds_without_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dry"
    assert main(["train", "--config", str(TINY_CPU), "--output-dir", str(out), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "recipe tiny: 8 examples" in printed
    assert "success_reward ×1" in printed and "gated_reward ×1" in printed
    assert (out / TINY_FOLDER / "model.safetensors").is_file()
    assert not (out / "log_history.json").exists()


@pytest.mark.parametrize("name", ["tiny-cpu.yaml", "gpu-example.yaml"])
def test_shipped_configs_are_valid(name: str) -> None:
    config = load_config(CONFIGS / name)
    assert len(rewards_from_config(config.rewards)) == len(config.reward_weights or config.rewards)
    cpu = replace(config, grpo={**config.grpo, "bf16": False, "use_cpu": True})
    assert grpo_args(cpu).output_dir == config.grpo["output_dir"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("recipe: tiny\nmodel: {tiny: {}}\nrewards: [success]\ngrpo: {}\nextra: 1\n", "extra"),
        ("recipe: tiny\nmodel: {tiny: {hidden: 8}}\nrewards: [success]\ngrpo: {}\n", "hidden"),
        ("recipe: tiny\nmodel: {}\nrewards: [success]\ngrpo: {}\n", "exactly one"),
        ("model: {tiny: {}}\nrewards: [success]\ngrpo: {}\n", "missing key(s) recipe"),
        (
            "recipe: tiny\nmodel: {tiny: {}}\nrewards: [success]\nreward_weights: [1, 2]\n"
            "grpo: {}\n",
            "2 weights for 1 rewards",
        ),
        ("recipe: tiny\nmodel: {tiny: {}}\nrewards: []\ngrpo: {}\n", "rewards: expected"),
        (
            "recipe: tiny\nmodel: {tiny: {}}\nrewards: [success]\ngrpo: {}\nscoring_ray: [1]\n",
            "scoring_ray: expected true, false or a Ray address",
        ),
        (
            "recipe: tiny\nmodel: {tiny: {}}\nrewards: [success]\ngrpo: {}\nscoring_actors: 0\n",
            "scoring_actors: expected a positive integer",
        ),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(path)


def test_grpo_arguments_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "recipe: tiny\nmodel: {tiny: {}}\nrewards: [success]\ngrpo: {lerning_rate: 1}\n"
    )
    assert main(["train", "--config", str(path), "--output-dir", str(tmp_path)]) == 2
    assert "did you mean learning_rate" in capsys.readouterr().err
    config = load_config(path)
    cpu = {"use_cpu": True, "bf16": False, "activation_checkpointing": False}
    numbers = replace(config, grpo={"learning_rate": "1e-5", **cpu})
    assert grpo_args(numbers, output_dir=tmp_path).learning_rate == 1e-5


def test_relative_paths_follow_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "configs" / "run.yaml"
    path.parent.mkdir()
    path.write_text("recipe: mine.yaml\nmodel: {path: ../model}\nrewards: [format]\ngrpo: {}\n")
    config = load_config(path)
    assert Path(config.recipe) == (tmp_path / "configs" / "mine.yaml").resolve()
    assert Path(config.model.path) == (tmp_path / "model").resolve()
    assert load_config(TINY_CPU).recipe == "tiny"


def test_scoring_on_a_ray_cluster_is_a_config_key(tmp_path: Path) -> None:
    path = tmp_path / "ray.yaml"
    path.write_text(
        "recipe: tiny\nmodel: {tiny: {}}\nrewards: [success]\ngrpo: {}\n"
        "scoring_ray: ray://head:10001\nscoring_actors: 4\nscoring_workers: 2\n"
    )
    config = load_config(path)
    assert (config.scoring_ray, config.scoring_actors, config.scoring_workers) == (
        "ray://head:10001",
        4,
        2,
    )


def test_tiny_model_is_deterministic(tmp_path: Path) -> None:
    texts = ["[premise: a]\n[defeasible r1: a => b]", "<answer>\nb: justified\n</answer>"]
    spec = tiny.TinySpec(hidden_size=16, layers=1, heads=2, vocab_size=300)
    first = tiny.build(spec, texts, tmp_path / "a")
    second = tiny.build(spec, texts, tmp_path / "b")
    files = sorted(path.name for path in first.iterdir())
    assert files == sorted(path.name for path in second.iterdir())
    for name in files:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    from transformers import AutoTokenizer

    loaded = AutoTokenizer.from_pretrained(first)
    trained = tiny.train_tokenizer(texts, spec.vocab_size)
    for text in [*texts, "[premise: -x]\n\n  spaced   out"]:
        assert loaded(text).input_ids == trained(text).input_ids
    assert loaded.eos_token == tiny.END_OF_TURN
