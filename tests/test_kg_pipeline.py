"""The from-scratch KG pipeline end to end on CPU: a pretraining corpus of generated KG
instances, a domain tokenizer and a tiny Qwen2 model pretrained on it, GRPO from that
checkpoint on a KG recipe with the KG rewards, scored samples from both checkpoints, and
the depth x complexity metrics with their heatmaps."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client reads it (at import)
os.environ.setdefault("OMP_NUM_THREADS", "1")
pytest.importorskip("torch")
pytest.importorskip("trl")

from argc.cli import main  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "train" / "configs"
GRPO = (
    "recipe: kg-tiny\nmodel: {path: pre/model}\nrewards: [kg_gated, kg_answer, kg_process]\n"
    "grpo: {seed: 0, num_generations: 2, max_completion_length: 16,"
    " per_device_train_batch_size: 2, max_steps: 2, learning_rate: 1.0e-6, beta: 0.001,"
    " logging_steps: 1, save_strategy: 'no', use_cpu: true, bf16: false,"
    " activation_checkpointing: false, report_to: none, disable_tqdm: true}\n"
)


def _sample(instances: Path, model: Path, label: str, out: Path) -> None:
    args = ["sample", str(instances), "--k", "2", "--local", str(model), "--label", label]
    assert main([*args, "--max-tokens", "8", "--seed", "0", "--out", str(out)]) == 0


def test_corpus_tokenizer_pretrain_grpo_samples_and_heatmaps(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    assert (
        main(["kg", "corpus", "--split", "pretrain", "--per-cell", "2", "--out", str(corpus)]) == 0
    )
    rows = [json.loads(line) for line in corpus.read_text().splitlines()]
    assert len(rows) == 16 and all(row["text"].startswith(row["prompt"]) for row in rows)

    pre = tmp_path / "pre"
    config = CONFIGS / "kg-pretrain-tiny.yaml"
    assert (
        main(
            [
                "kg",
                "pretrain",
                "--config",
                str(config),
                "--corpus",
                str(corpus),
                "--output-dir",
                str(pre),
            ]
        )
        == 0
    )
    assert (pre / "model" / "config.json").exists()

    grpo = tmp_path / "grpo.yaml"
    grpo.write_text(GRPO)
    run = tmp_path / "grpo"
    assert main(["train", "--config", str(grpo), "--output-dir", str(run)]) == 0
    steps = [e for e in json.loads((run / "log_history.json").read_text()) if "loss" in e]
    assert len(steps) == 2
    for name in ("kg_gated_reward", "kg_answer_reward", "kg_process_reward"):
        assert all(f"rewards/{name}/mean" in entry for entry in steps), name

    instances = tmp_path / "eval.jsonl"
    args = ["--family", "deductive", "--depth", "2", "--complexity", "1", "--count", "2"]
    assert main(["kg", "generate", *args, "--split", "eval", "--out", str(instances)]) == 0
    base, post = tmp_path / "base.jsonl", tmp_path / "post.jsonl"
    _sample(instances, pre / "model", "pre", base)
    _sample(instances, run, "grpo", post)
    records = [json.loads(line) for line in post.read_text().splitlines()]
    assert len(records) == 4 and {(r["depth"], r["complexity"]) for r in records} == {(2, 1)}

    report = tmp_path / "report"
    assert main(["sample-metrics", str(post), "--baseline", str(base), "--out", str(report)]) == 0
    heatmaps = sorted(path.name for path in report.glob("heatmap-depth-complexity-*.png"))
    assert any("cg" in name for name in heatmaps) and any("pass1" in name for name in heatmaps)
    assert "D10" in (report / "metrics.md").read_text()
