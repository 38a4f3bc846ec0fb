"""Regressions of what kept models from learning on the KG path: pretraining that could not
start from a model nor resume its learning-rate schedule, KG prompts wrapped in a chat
template the pretrained model never saw, KG recipes that drew only from the RL pool, and a
corpus that could not be restricted to some cells."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client reads it (at import)
os.environ.setdefault("OMP_NUM_THREADS", "1")
pytest.importorskip("torch")
pytest.importorskip("trl")

from test_kg_pretrain import corpus_texts, pretrain_command, write_corpus  # noqa: E402

from argc.train import pretrain  # noqa: E402

#: Six steps of one block each, warmup then cosine, a checkpoint every step.
SCHEDULE = (
    "corpus: corpus.jsonl\nmodel: kg-tiny\noutput_dir: runs\n"
    "training: {max_steps: 6, warmup_steps: 2, per_device_train_batch_size: 1,"
    " gradient_accumulation_steps: 1, learning_rate: 1.0e-3, logging_steps: 1, save_steps: 1,"
    " save_total_limit: null, use_cpu: true, bf16: false, disable_tqdm: true}\n"
)


@pytest.fixture(scope="module")
def pretrained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the corpus, the config and an uninterrupted 6-step run in `whole/`."""
    folder = tmp_path_factory.mktemp("pretrain")
    write_corpus(folder / "corpus.jsonl", corpus_texts() * 6)
    (folder / "config.yaml").write_text(SCHEDULE)
    assert run(folder, "whole") == 0
    return folder


def run(folder: Path, output: str, *extra: str) -> int:
    config = str(folder / "config.yaml")
    return pretrain_command("--config", config, "--output-dir", str(folder / output), *extra)


def logged(folder: Path) -> list[tuple[int, float, float]]:
    """(step, learning rate, loss) of each logged training step."""
    history = json.loads((folder / "log_history.json").read_text())
    return [(e["step"], e["learning_rate"], e["loss"]) for e in history if "loss" in e]


# Pretraining: resuming and starting from a model -------------------------------------------


def test_an_interrupted_run_resumes_its_schedule(
    pretrained: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = logged(pretrained / "whole")
    assert [step for step, _, _ in whole] == [1, 2, 3, 4, 5, 6]
    assert len({lr for _, lr, _ in whole}) == 6  # warmup and decay: every step its own rate

    assert run(pretrained, "parts", "--stop-at-step", "3") == 0
    parts = pretrained / "parts"
    assert not (parts / pretrain.MODEL_FOLDER).exists() and (parts / "checkpoint-3").is_dir()
    assert logged(parts) == whole[:3]
    # extending the schedule on resume would restart its warmup and decay: refused
    capsys.readouterr()
    assert run(pretrained, "parts", "--max-steps", "12") == 2
    assert "started with max_steps 6, not 12" in capsys.readouterr().err
    assert run(pretrained, "parts") == 0
    assert logged(parts) == whole  # the same rate and loss at every later step
    assert (parts / pretrain.MODEL_FOLDER).is_dir()


def test_pretraining_continues_from_a_model(pretrained: Path) -> None:
    from transformers import AutoTokenizer

    start = pretrained / "whole" / pretrain.MODEL_FOLDER
    scratch = AutoTokenizer.from_pretrained(start)
    assert scratch.chat_template is None  # pretrained on plain text: no chat template
    assert run(pretrained, "more", "--init", str(start), "--max-steps", "2") == 0
    more = pretrained / "more"
    assert not (more / pretrain.TOKENIZER_FOLDER).exists()  # the model's tokenizer, not a new one
    continued = AutoTokenizer.from_pretrained(more / pretrain.MODEL_FOLDER)
    assert continued.get_vocab() == scratch.get_vocab()
    # the first step sees the first run's first block, with the trained weights
    first = logged(pretrained / "whole")[0][2]
    assert logged(more)[0][2] < first - 0.2


def test_a_model_with_a_chat_template_keeps_it(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    from argc.train import tiny

    texts = corpus_texts() * 6
    chat = tiny.build(tiny.TinySpec(vocab_size=300), texts, tmp_path / "chat")
    write_corpus(tmp_path / "corpus.jsonl", texts)
    (tmp_path / "config.yaml").write_text(SCHEDULE)
    assert run(tmp_path, "out", "--init", str(chat), "--max-steps", "1") == 0
    saved = AutoTokenizer.from_pretrained(tmp_path / "out" / pretrain.MODEL_FOLDER)
    assert saved.chat_template == tiny.CHAT_TEMPLATE


# Prompting a local model in the format it was trained with ---------------------------------


def local_model(folder: Path, *options: str):
    """The model `argc eval --local FOLDER` loads with `options`."""
    from argc.bench.local import load_local
    from argc.cli import build_parser

    argv = ["eval", "in.jsonl", "--out", "run.jsonl", "--local", str(folder), "--temperature", "0"]
    argv += ["--max-tokens", "8", *options]
    return load_local(build_parser({"eval"}).parse_args(argv))


def test_a_pretrained_model_is_prompted_with_the_raw_text(pretrained: Path) -> None:
    prompt = "Story: Alice Smith gives the red ball to Bob Jones. Question: who owns it?"
    model = local_model(pretrained / "whole" / pretrain.MODEL_FOLDER)
    assert model.text(prompt) == prompt
    with pytest.raises(Exception, match="has no chat template"):
        local_model(pretrained / "whole" / pretrain.MODEL_FOLDER, "--prompt-format", "chat")


def test_a_chat_model_keeps_its_template_unless_told(tmp_path: Path) -> None:
    from argc.train import tiny

    folder = tiny.build(tiny.TinySpec(vocab_size=300), corpus_texts(), tmp_path / "chat")
    prompt = "Question: who owns the red ball?"
    chat = local_model(folder).text(prompt)
    assert chat == f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
    assert local_model(folder, "--prompt-format", "raw").text(prompt) == prompt
