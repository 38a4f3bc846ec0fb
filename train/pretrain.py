"""`argc kg pretrain`: a Qwen2 model pre-trained from scratch on a text corpus (the KG worlds'
pretraining corpus), with a domain tokenizer trained on the same corpus, the model and
tokenizer of the depth/complexity study (Appendix A.3.1-A.3.2, Tables 10 and 11). The saved
folder is the starting policy of `argc train` (`model: {path: FOLDER}`).

A YAML config names the corpus (JSON lines with a `text` field), the model shape (a preset of
PRESETS, optionally with fields changed, or every field), the tokenizer (trained on the corpus,
or a folder), the output folder and `transformers.TrainingArguments` over Table 11's values
(TABLE_11). Documents are tokenized, each followed by `<|endoftext|>`, concatenated and cut
into blocks of the model's context length (packing; the last partial block is dropped), and
the model learns causal language modelling on every token of the blocks.

The output folder holds `tokenizer/` (a trained tokenizer), `tokens.bin` (the tokenized
corpus), the Trainer's `checkpoint-N/` folders, `log_history.json` and `model/`, the final
model with its tokenizer and generation config, written to a temporary folder and renamed.
A rerun with the same output folder reuses the tokenizer and the tokens and resumes from the
last checkpoint."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from argc.dsl.errors import ArgcError, InputError
from argc.files import write_output
from argc.options import positive_int
from argc.train import tiny
from argc.train.trainer import (
    EXIT_INPUT_ERROR,
    EXIT_OK,
    HISTORY,
    ConfigError,
    _check,
    _count,
    _dataclass,
    _resolve,
    _string,
    _trl_args,
    read_config,
)

#: The domain tokenizer's vocabulary (Table 10).
VOCAB_SIZE = 4096
#: Folders and files inside the output folder.
MODEL_FOLDER, TOKENIZER_FOLDER, TOKENS_FILE = "model", "tokenizer", "tokens.bin"
#: Table 11: full-parameter causal LM from scratch, as `transformers.TrainingArguments`
#: (`warmup_steps` below 1 is a ratio of the training steps).
TABLE_11: dict[str, Any] = {
    "num_train_epochs": 3,
    "learning_rate": 2e-4,
    "lr_scheduler_type": "cosine_with_min_lr",
    "lr_scheduler_kwargs": {"min_lr_rate": 0.1},
    "warmup_steps": 0.05,
    "weight_decay": 0.1,
    "per_device_train_batch_size": 16,
    "gradient_accumulation_steps": 2,
    "adam_beta1": 0.9,
    "adam_beta2": 0.999,
    "adam_epsilon": 1e-8,
    "seed": 42,
}
#: What the run itself needs unless the config says otherwise.
RUN_DEFAULTS: dict[str, Any] = {
    "logging_steps": 10,
    "save_steps": 500,
    "save_total_limit": 2,
    "report_to": "none",
}


@dataclass(frozen=True)
class ModelShape:
    """A Qwen2 decoder. `vocab_size` bounds a tokenizer trained for it (a small corpus can
    give fewer tokens; the model's vocabulary is its tokenizer's size); `context` is the
    model's window and the length of the packed training blocks; `rope_theta` is Qwen2.5's."""

    hidden_size: int
    layers: int
    heads: int
    kv_heads: int
    intermediate_size: int
    vocab_size: int
    context: int
    tie_embeddings: bool = True
    rope_theta: float = 1_000_000.0


PRESETS: dict[str, ModelShape] = {
    # Table 10: 104.6M parameters with tied embeddings (107.8M untied).
    "kg-107m": ModelShape(768, 12, 12, 2, 3072, VOCAB_SIZE, 2048),
    # For CPU tests and smoke runs.
    "kg-tiny": ModelShape(64, 2, 2, 1, 128, 1024, 512),
}


@dataclass(frozen=True)
class PretrainConfig:
    """A pretraining run: the corpus, the model shape, the tokenizer folder (None: train one
    on the corpus), the output folder and `transformers.TrainingArguments` (TABLE_11 and
    RUN_DEFAULTS under the config's own)."""

    corpus: Path
    output_dir: Path
    model: ModelShape
    tokenizer: Path | None = None
    training: dict[str, Any] = field(default_factory=lambda: {**TABLE_11, **RUN_DEFAULTS})


# -- the tokenizer and the model -------------------------------------------------------------


def train_tokenizer(
    texts: Iterable[str], vocab_size: int = VOCAB_SIZE, *, show_progress: bool = False
) -> Any:
    """The domain tokenizer: the byte-level BPE of `argc.train.tiny` (Qwen2's split, ChatML
    special tokens and chat template) trained on `texts`, at most `vocab_size` tokens."""
    return tiny.train_tokenizer(texts, vocab_size, show_progress=show_progress)


def qwen2_config(shape: ModelShape, tokenizer: Any = None) -> Any:
    """The `transformers.Qwen2Config` of a shape; with a tokenizer, its vocabulary size and
    special tokens (`tiny.token_ids`), else `shape.vocab_size` and none."""
    from transformers import Qwen2Config

    ids = {"vocab_size": shape.vocab_size} if tokenizer is None else tiny.token_ids(tokenizer)
    return Qwen2Config(
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        max_position_embeddings=shape.context,
        tie_word_embeddings=shape.tie_embeddings,
        rope_parameters={"rope_type": "default", "rope_theta": shape.rope_theta},
        **ids,
    )


def parameter_count(shape: ModelShape, tokenizer: Any = None) -> int:
    """The parameters of a shape's model (tied embeddings counted once), built on the meta
    device (no memory)."""
    import torch
    from transformers import Qwen2ForCausalLM

    with torch.device("meta"):
        return Qwen2ForCausalLM(qwen2_config(shape, tokenizer)).num_parameters()


def generation_config(tokenizer: Any) -> Any:
    """Generation stops at the end of a turn or of a document (the corpus separator)."""
    from transformers import GenerationConfig

    stops = [tokenizer.eos_token_id, tokenizer.pad_token_id]
    return GenerationConfig(eos_token_id=stops, pad_token_id=tokenizer.pad_token_id)


# -- the config ------------------------------------------------------------------------------


def load_config(path: Path) -> PretrainConfig:
    """Read and validate a YAML config; the corpus and tokenizer paths are taken from the
    config file's folder, the output folder from the working folder."""
    raw = read_config(path, PretrainConfig)
    folder = Path(path).parent
    tokenizer = raw.tokenizer
    if tokenizer is not None:
        tokenizer = _resolve(folder, _string(tokenizer, "tokenizer"))
    training = raw.training if raw.training is not None else {}
    _check(isinstance(training, dict), "training", "a mapping of TrainingArguments arguments")
    if "output_dir" in training:
        raise ConfigError("training.output_dir: give output_dir at the top level")
    return PretrainConfig(
        corpus=_resolve(folder, _string(raw.corpus, "corpus")),
        output_dir=Path(_string(raw.output_dir, "output_dir")),
        model=model_shape(raw.model),
        tokenizer=tokenizer,
        training={**TABLE_11, **RUN_DEFAULTS, **training},
    )


def model_shape(value: Any) -> ModelShape:
    """A shape from a preset name, or a mapping of ModelShape fields with an optional
    `preset` whose values the others change."""
    if isinstance(value, str):
        value = {"preset": value}
    _check(isinstance(value, dict), "model", "a preset name or a mapping")
    values = dict(value)
    preset = values.pop("preset", None)
    if preset is not None:
        if preset not in PRESETS:
            raise ConfigError(f"model: unknown preset {preset!r}; known: {', '.join(PRESETS)}")
        values = {**vars(PRESETS[preset]), **values}
    shape = _dataclass(ModelShape, values, "model")
    for item in fields(ModelShape):
        if item.name not in ("tie_embeddings", "rope_theta"):
            _check(_count(getattr(shape, item.name), 1), f"model.{item.name}", "a positive integer")
    _check(isinstance(shape.tie_embeddings, bool), "model.tie_embeddings", "true or false")
    _check(
        isinstance(shape.rope_theta, int | float) and shape.rope_theta > 0,
        "model.rope_theta",
        "a positive number",
    )
    _check(shape.hidden_size % shape.heads == 0, "model.heads", "a divisor of hidden_size")
    _check(shape.heads % shape.kv_heads == 0, "model.kv_heads", "a divisor of heads")
    return shape


def training_args(config: PretrainConfig) -> Any:
    """The run's `transformers.TrainingArguments`; bf16 unless the config says otherwise and
    where the GPU supports it. Unknown argument names are refused with suggestions."""
    import torch
    from transformers import TrainingArguments

    bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    values = {"bf16": bf16, **config.training, "output_dir": str(config.output_dir)}
    return _trl_args(TrainingArguments, values, "training")


# -- the corpus ------------------------------------------------------------------------------


def read_corpus(path: Path) -> Iterator[str]:
    """The `text` of each row of a JSON-lines file (blank lines skipped); InputError naming
    the line of a row that is not an object with a string `text`."""
    try:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    yield _text(line, path, number)
    except OSError as error:
        raise InputError(f"cannot read the corpus: {error.strerror}", filename=str(path)) from None


def _text(line: str, path: Path, number: int) -> str:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON: {error.msg}", filename=str(path), line=number) from None
    if not isinstance(row, dict) or not isinstance(row.get("text"), str):
        raise InputError("expected an object with a string 'text'", filename=str(path), line=number)
    return row["text"]


def write_tokens(texts: Iterable[str], tokenizer: Any, path: Path, batch: int = 1000) -> int:
    """Tokenize `texts` in batches, each text followed by the document separator (the pad
    token, `<|endoftext|>`), and write the token ids to `path` (replaced atomically) in the
    smallest unsigned type that holds the vocabulary; returns the number of tokens."""
    import itertools

    import numpy as np

    dtype = token_dtype(tokenizer)
    staging = path.with_name(f".{path.name}.tmp")
    count = 0
    iterator = iter(texts)
    try:
        with open(staging, "wb") as out:
            while chunk := list(itertools.islice(iterator, batch)):
                for ids in tokenizer(chunk, add_special_tokens=False)["input_ids"]:
                    array = np.asarray([*ids, tokenizer.pad_token_id], dtype=dtype)
                    out.write(array.tobytes())
                    count += len(array)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
    staging.replace(path)
    return count


def token_dtype(tokenizer: Any) -> Any:
    import numpy as np

    return np.uint16 if len(tokenizer) <= 1 << 16 else np.uint32


class PackedBlocks:
    """Blocks of `length` consecutive tokens of a token file (memory-mapped), each an example
    whose labels are its input ids."""

    def __init__(self, path: Path, dtype: Any, length: int) -> None:
        import numpy as np

        self.tokens = np.memmap(path, dtype=dtype, mode="r")
        self.length = length

    def __len__(self) -> int:
        return len(self.tokens) // self.length

    def __getitem__(self, index: int) -> dict[str, Any]:
        import numpy as np

        if not 0 <= index < len(self):
            raise IndexError(index)
        start = index * self.length
        block = np.asarray(self.tokens[start : start + self.length], dtype=np.int64)
        return {"input_ids": block, "labels": block}


# -- the run ---------------------------------------------------------------------------------


def save_atomically(folder: Path, save: Callable[[Path], None]) -> None:
    """`save` into a temporary folder beside `folder`, then rename it to `folder` (replacing
    an earlier one); the temporary folder is removed when `save` fails."""
    staging = folder.with_name(f".{folder.name}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        save(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if folder.exists():
        stale = folder.with_name(f".{folder.name}.old")
        shutil.rmtree(stale, ignore_errors=True)
        folder.rename(stale)
        staging.rename(folder)
        shutil.rmtree(stale)
    else:
        staging.rename(folder)


def domain_tokenizer(config: PretrainConfig) -> Any:
    """The configured tokenizer folder's, the output folder's from an earlier run, or one
    trained on the corpus (`model.vocab_size` tokens) and saved there."""
    from transformers import AutoTokenizer

    if config.tokenizer is not None:
        if not config.tokenizer.is_dir():
            raise ConfigError(f"tokenizer: {config.tokenizer} is not a folder")
        tokenizer = AutoTokenizer.from_pretrained(config.tokenizer)
        if tokenizer.eos_token_id is None or tokenizer.pad_token_id is None:
            raise ConfigError(f"tokenizer: {config.tokenizer} has no EOS or no padding token")
        return tokenizer
    folder = config.output_dir / TOKENIZER_FOLDER
    if not folder.is_dir():
        texts = read_corpus(config.corpus)
        trained = train_tokenizer(texts, config.model.vocab_size, show_progress=True)
        save_atomically(folder, trained.save_pretrained)
    return AutoTokenizer.from_pretrained(folder)


def prepare(config: PretrainConfig, args: Any) -> tuple[Any, PackedBlocks]:
    """The tokenizer and the packed blocks, built by the first local process (reused from
    the output folder when an earlier run built them)."""
    tokens = config.output_dir / TOKENS_FILE
    with args.main_process_first(local=True, desc="tokenized corpus"):
        config.output_dir.mkdir(parents=True, exist_ok=True)
        tokenizer = domain_tokenizer(config)
        if args.local_process_index == 0 and not tokens.is_file():
            write_tokens(read_corpus(config.corpus), tokenizer, tokens)
    import numpy as np

    dtype = token_dtype(tokenizer)
    count = tokens.stat().st_size // np.dtype(dtype).itemsize
    if count < config.model.context:
        raise InputError(
            f"the corpus holds {count} tokens, fewer than one block of {config.model.context}",
            filename=str(config.corpus),
        )
    return tokenizer, PackedBlocks(tokens, dtype, config.model.context)


def pretrain(config: PretrainConfig) -> Path:
    """Train the model of `config.model` from a random init (drawn from the training seed) on
    the corpus's packed blocks with `transformers.Trainer`, resuming from the output folder's
    last checkpoint; save the model, tokenizer and generation config to `model/` and the log
    history beside it. Returns the model's folder."""
    from transformers import Trainer, default_data_collator
    from transformers.trainer_utils import get_last_checkpoint

    args = training_args(config)
    tokenizer, blocks = prepare(config, args)
    model = tiny.seeded_model(qwen2_config(config.model, tokenizer), args.seed)
    model.generation_config = generation_config(tokenizer)
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=blocks,
        data_collator=default_data_collator,
        processing_class=tokenizer,
    )
    checkpoint = get_last_checkpoint(str(config.output_dir))
    if trainer.is_world_process_zero():
        print(summary(config, tokenizer, model, blocks, args, checkpoint))
    trainer.train(resume_from_checkpoint=checkpoint)
    folder = config.output_dir / MODEL_FOLDER
    if trainer.is_world_process_zero():
        save_atomically(folder, lambda staging: _save(trainer.model, tokenizer, staging))
        history = json.dumps(trainer.state.log_history, indent=1) + "\n"
        write_output(config.output_dir / HISTORY, history)
    trainer.accelerator.wait_for_everyone()
    return folder


def _save(model: Any, tokenizer: Any, folder: Path) -> None:
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def summary(
    config: PretrainConfig,
    tokenizer: Any,
    model: Any,
    blocks: PackedBlocks,
    args: Any,
    checkpoint: str | None,
) -> str:
    """What a run will do: the model, the corpus's blocks and the main settings."""
    shape = config.model
    budget = (
        f"max_steps {args.max_steps}" if args.max_steps > 0 else f"{args.num_train_epochs:g} epochs"
    )
    return "\n".join(
        [
            f"model: {model.num_parameters():,} parameters (hidden {shape.hidden_size},"
            f" {shape.layers} layers, {shape.heads} heads, {shape.kv_heads} KV heads, FFN"
            f" {shape.intermediate_size}, vocabulary {len(tokenizer)}, context {shape.context},"
            f" tied embeddings {shape.tie_embeddings})",
            f"corpus {config.corpus}: {len(blocks.tokens):,} tokens in {len(blocks):,} packed"
            f" blocks of {shape.context}",
            f"training: {budget}, per-device batch {args.per_device_train_batch_size} x"
            f" accumulation {args.gradient_accumulation_steps}, learning rate"
            f" {args.learning_rate:g} ({args.lr_scheduler_type.value}), seed {args.seed}, bf16"
            f" {args.bf16}, device {args.device}",
            f"output {config.output_dir}" + (f", resuming from {checkpoint}" if checkpoint else ""),
        ]
    )


# -- the command -----------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, type=Path, help="the pretraining config (YAML)")
    parser.add_argument(
        "--corpus", type=Path, help="override corpus (a JSON-lines file with a 'text' field)"
    )
    parser.add_argument("--output-dir", type=Path, help="override output_dir")
    parser.add_argument("--max-steps", type=positive_int, help="override training.max_steps")


def with_overrides(
    config: PretrainConfig,
    *,
    corpus: Path | None = None,
    output_dir: Path | None = None,
    max_steps: int | None = None,
) -> PretrainConfig:
    """The config with the command line's overrides (paths relative to the working folder)."""
    training = config.training if max_steps is None else {**config.training, "max_steps": max_steps}
    return replace(
        config,
        corpus=config.corpus if corpus is None else corpus,
        output_dir=config.output_dir if output_dir is None else output_dir,
        training=training,
    )


def run(args: argparse.Namespace) -> int:
    """The `argc kg pretrain` command; returns the exit code."""
    try:
        config = with_overrides(
            load_config(args.config),
            corpus=args.corpus,
            output_dir=args.output_dir,
            max_steps=args.max_steps,
        )
        print(f"model saved to {pretrain(config)}")
    except ConfigError as error:
        print(f"argc kg pretrain: {args.config}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except ArgcError as error:
        print(f"argc kg pretrain: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    return EXIT_OK
