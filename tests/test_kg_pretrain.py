"""The from-scratch KG model path: the domain tokenizer, the Table 10 model's size, the
pretraining config, and a tiny run on CPU from a JSON-lines corpus through pretraining (3
steps, stopped after the 2nd and resumed) to 2 GRPO steps from the saved folder."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
from dataclasses import replace
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client reads it (at import)
os.environ.setdefault("OMP_NUM_THREADS", "1")
pytest.importorskip("torch")
pytest.importorskip("trl")

from argc.cli import main  # noqa: E402
from argc.dsl.errors import InputError  # noqa: E402
from argc.train import pretrain, tiny  # noqa: E402
from argc.train.trainer import ConfigError, grpo_args  # noqa: E402
from argc.train.trainer import load_config as load_train_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "train" / "configs"
TINY = CONFIGS / "kg-pretrain-tiny.yaml"
FIRST = ["Alice Smith", "Bob Jones", "Carol White", "Dan Brown", "Erin Black"]
OBJECTS = ["the red ball", "the copper coin", "the leather bag", "the ivory chess piece"]
VERBS = ["gives", "sells", "lends", "returns"]


def corpus_texts(count: int = 200) -> list[str]:
    """Short KG-like sentences: `count` distinct (giver, verb, object, taker) combinations."""
    combos = itertools.product(FIRST, VERBS, OBJECTS, FIRST)
    texts = [f"{p} {v} {o} to {q}." for p, v, o, q in combos if p != q]
    return texts[:count]


def write_corpus(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts))
    return path


# The tokenizer and the model shape --------------------------------------------------------


@pytest.mark.parametrize("vocab", [600, pretrain.VOCAB_SIZE])
def test_domain_tokenizer_is_bounded_and_round_trips(vocab: int) -> None:
    texts = corpus_texts()
    tokenizer = pretrain.train_tokenizer(iter(texts), vocab)
    assert len(tokenizer) <= vocab
    assert tokenizer.eos_token == tiny.END_OF_TURN and tokenizer.pad_token == tiny.PAD
    assert tokenizer.chat_template
    for text in [*texts[:20], "Zoë Ng breaks the glass vase (broken).\n\n  Step 2:"]:
        ids = tokenizer(text, add_special_tokens=False).input_ids
        assert tokenizer.decode(ids) == text
    # the entity words are single tokens at any size, spaces their own; with room in the
    # vocabulary, the corpus's other words too
    tokens = tokenizer.tokenize(" Alice Smith sells")
    assert tokens[:4] == ["Ġ", "Alice", "Ġ", "Smith"]
    if vocab == pretrain.VOCAB_SIZE:
        assert tokens == ["Ġ", "Alice", "Ġ", "Smith", "Ġ", "sells"]


def test_kg_107m_matches_table_10() -> None:
    shape = pretrain.PRESETS["kg-107m"]
    config = pretrain.qwen2_config(shape)
    assert (config.hidden_size, config.num_hidden_layers, config.num_attention_heads) == (
        768,
        12,
        12,
    )
    assert (config.num_key_value_heads, config.intermediate_size, config.vocab_size) == (
        2,
        3072,
        4096,
    )
    assert config.max_position_embeddings == 2048 and config.tie_word_embeddings
    # tied embeddings count once; Table 10's "107M" is the count with the output matrix apart
    assert pretrain.parameter_count(shape) == 104_626_944
    untied = replace(shape, tie_embeddings=False)
    assert pretrain.parameter_count(untied) == 104_626_944 + 4096 * 768


# The config -------------------------------------------------------------------------------


def test_shipped_configs_load() -> None:
    full = pretrain.load_config(CONFIGS / "kg-pretrain.yaml")
    assert full.model == pretrain.PRESETS["kg-107m"] and full.tokenizer is None
    assert full.corpus == (CONFIGS / "kg-pretrain.jsonl").resolve()
    assert {key: full.training[key] for key in pretrain.TABLE_11} == pretrain.TABLE_11
    args = pretrain.training_args(replace(full, training={**full.training, "use_cpu": True}))
    assert (args.learning_rate, args.lr_scheduler_type, args.warmup_steps) == (
        2e-4,
        "cosine_with_min_lr",
        0.05,
    )
    assert (args.adam_beta1, args.adam_beta2, args.adam_epsilon, args.seed) == (
        0.9,
        0.999,
        1e-8,
        42,
    )
    assert pretrain.load_config(TINY).model == pretrain.PRESETS["kg-tiny"]
    grpo = load_train_config(CONFIGS / "kg-grpo.yaml")
    cpu = replace(grpo, grpo={**grpo.grpo, "bf16": False, "use_cpu": True})
    settings = grpo_args(cpu)
    assert (settings.num_generations, settings.beta, settings.learning_rate) == (6, 0.001, 1e-6)
    assert settings.max_completion_length == 1024
    per_step = settings.per_device_train_batch_size * settings.gradient_accumulation_steps
    assert per_step // settings.num_generations == 1024  # prompts per optimizer step


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("corpus: c.jsonl\nmodel: kg-tiny\n", "missing key(s) output_dir"),
        ("corpus: c.jsonl\nmodel: kg-tiny\noutput_dir: o\nepochs: 3\n", "unknown key(s) epochs"),
        ("corpus: c.jsonl\nmodel: kg-1b\noutput_dir: o\n", "unknown preset 'kg-1b'"),
        ("corpus: c.jsonl\nmodel: {hidden_size: 64}\noutput_dir: o\n", "missing key(s) layers"),
        (
            "corpus: c.jsonl\nmodel: {preset: kg-tiny, kv_heads: 3}\noutput_dir: o\n",
            "model.kv_heads: expected a divisor of heads",
        ),
        (
            "corpus: c.jsonl\nmodel: {preset: kg-tiny, layers: 0}\noutput_dir: o\n",
            "model.layers: expected a positive integer",
        ),
        (
            "corpus: c.jsonl\nmodel: kg-tiny\noutput_dir: o\ntraining: {output_dir: x}\n",
            "give output_dir at the top level",
        ),
        ("corpus: [\n", "not valid YAML"),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pretrain.load_config(path)


def test_shape_fields_change_a_preset(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(
        "corpus: data/c.jsonl\nmodel: {preset: kg-tiny, context: 64}\noutput_dir: o\n"
        "training: {learning_rate: 1e-3}\n"
    )
    config = pretrain.load_config(path)
    assert config.model == replace(pretrain.PRESETS["kg-tiny"], context=64)
    assert config.corpus == (tmp_path / "data" / "c.jsonl").resolve()
    assert config.training["learning_rate"] == "1e-3"  # converted with the other arguments
    bad = replace(config, training={**config.training, "use_cpu": True, "lerning_rate": 1})
    with pytest.raises(ConfigError, match="transformers.TrainingArguments.*did you mean"):
        pretrain.training_args(bad)
    assert pretrain.training_args(replace(bad, training=config.training)).learning_rate == 1e-3


def test_bad_corpus_rows_name_their_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a"}\n\n{"txt": "b"}\n')
    with pytest.raises(InputError, match=r"c\.jsonl:3.*string 'text'"):
        list(pretrain.read_corpus(path))
    path.write_text('{"text": "a"}\nnot json\n')
    with pytest.raises(InputError, match=r"c\.jsonl:2.*not JSON"):
        list(pretrain.read_corpus(path))


def test_packed_blocks_cover_the_documents(tmp_path: Path) -> None:
    texts = corpus_texts(40)
    tokenizer = pretrain.train_tokenizer(texts, 300)
    path = tmp_path / "tokens.bin"
    count = pretrain.write_tokens(texts, tokenizer, path, batch=7)
    blocks = pretrain.PackedBlocks(path, pretrain.token_dtype(tokenizer), 16)
    assert len(blocks) == count // 16
    flat = [int(token) for index in range(len(blocks)) for token in blocks[index]["input_ids"]]
    expected = [
        token
        for text in texts
        for token in [*tokenizer(text, add_special_tokens=False).input_ids, tokenizer.pad_token_id]
    ]
    assert flat == expected[: len(flat)] and len(expected) == count
    assert (blocks[0]["labels"] == blocks[0]["input_ids"]).all()
    with pytest.raises(IndexError):
        blocks[len(blocks)]


# The run ------------------------------------------------------------------------------------


def pretrain_command(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    pretrain.add_arguments(parser)
    return pretrain.run(parser.parse_args(list(argv)))


def test_bad_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("corpus: c.jsonl\nmodel: kg-9\noutput_dir: o\n")
    assert pretrain_command("--config", str(path)) == 2
    assert "bad.yaml: model: unknown preset" in capsys.readouterr().err
    missing = tmp_path / "none.jsonl"
    args = ("--config", str(TINY), "--corpus", str(missing), "--output-dir", str(tmp_path / "o"))
    assert pretrain_command(*args) == 2
    assert "none.jsonl: cannot read the corpus" in capsys.readouterr().err
    short = write_corpus(tmp_path / "short.jsonl", corpus_texts(3))
    args = ("--config", str(TINY), "--corpus", str(short), "--output-dir", str(tmp_path / "s"))
    assert pretrain_command(*args) == 2
    assert "tokens, fewer than one block of 512" in capsys.readouterr().err


def test_pretrain_then_grpo_from_the_checkpoint(tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    corpus = write_corpus(tmp_path / "kg-pretrain.jsonl", corpus_texts() * 3)
    out = tmp_path / "pre"
    args = ("--config", str(TINY), "--corpus", str(corpus), "--output-dir", str(out))
    assert pretrain_command(*args, "--stop-at-step", "2") == 0
    folder = out / pretrain.MODEL_FOLDER
    assert not folder.exists()
    # a rerun resumes from the last checkpoint: one more step, not three
    assert pretrain_command(*args) == 0
    history = json.loads((out / "log_history.json").read_text())
    assert [entry["step"] for entry in history if "loss" in entry] == [1, 2, 3]
    losses = [entry["loss"] for entry in history if "loss" in entry]
    assert all(math.isfinite(loss) for loss in losses)
    assert losses[0] > 5  # about ln(vocabulary) from a random init
    model = AutoModelForCausalLM.from_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert model.config.vocab_size == len(tokenizer) <= 1024
    assert model.config.num_key_value_heads == 1 and model.config.tie_word_embeddings
    assert tokenizer.chat_template is None and tokenizer.pad_token == tiny.PAD  # plain text
    stops = [tokenizer.eos_token_id, tokenizer.pad_token_id]
    assert model.generation_config.eos_token_id == stops
    assert not list(out.glob(".*tmp"))

    config = tmp_path / "grpo.yaml"
    config.write_text(
        "recipe: kg-tiny\nmodel: {path: pre/model}\nrewards: [kg_gated, kg_answer]\n"
        "grpo: {seed: 0, num_generations: 2, max_completion_length: 16,"
        " per_device_train_batch_size: 2, max_steps: 2, learning_rate: 1.0e-6, beta: 0.001,"
        " logging_steps: 1, save_strategy: 'no', use_cpu: true, bf16: false,"
        " activation_checkpointing: false, report_to: none, disable_tqdm: true}\n"
    )
    run = tmp_path / "grpo"
    assert main(["train", "--config", str(config), "--output-dir", str(run)]) == 0
    steps = [
        entry for entry in json.loads((run / "log_history.json").read_text()) if "loss" in entry
    ]
    assert len(steps) == 2
    for name in ("kg_gated_reward", "kg_answer_reward"):
        assert all(f"rewards/{name}/mean" in entry for entry in steps), name
    assert all("kl" in entry for entry in steps)
