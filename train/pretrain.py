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

`init` (or `--init MODEL_DIR`) starts from a saved model instead of random weights: its
weights and its tokenizer are trained on. A model pretrained from scratch is saved without a
chat template (it has seen plain text only, so `argc eval/sample --local` prompt it with the
raw text); a model continued from `init` keeps its tokenizer's template, if any.

The output folder holds `tokenizer/` (a trained tokenizer), `tokens.bin` (the tokenized
corpus), `schedule.json` (the settings that shape the learning-rate schedule and the data
order), the Trainer's `checkpoint-N/` folders, `log_history.json` and `model/`, the final
model with its tokenizer and generation config, written to a temporary folder and renamed.
A rerun with the same output folder reuses the tokenizer and the tokens and resumes from the
last checkpoint with its optimizer, scheduler, step and random state, so the schedule goes on
as if uninterrupted; a rerun whose schedule settings differ is refused (train on from
`model/` with `init` and a new output folder instead). `--stop-at-step K` ends a run after
step K of its schedule with a checkpoint (no `model/`), for a schedule trained in parts."""

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
    log_lines,
    read_config,
)

#: The domain tokenizer's vocabulary (Table 10).
VOCAB_SIZE = 4096
#: Folders and files inside the output folder.
MODEL_FOLDER, TOKENIZER_FOLDER, TOKENS_FILE = "model", "tokenizer", "tokens.bin"
SCHEDULE_FILE = "schedule.json"
#: The `TrainingArguments` that shape the learning-rate schedule and the order of the data: a
#: resumed run must have the values it started with.
SCHEDULE_KEYS = (
    "max_steps",
    "num_train_epochs",
    "learning_rate",
    "lr_scheduler_type",
    "lr_scheduler_kwargs",
    "warmup_steps",
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "seed",
    "world_size",
)
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
    on the corpus), the output folder, `transformers.TrainingArguments` (TABLE_11 and
    RUN_DEFAULTS under the config's own) and `init`, a model folder whose weights and
    tokenizer the run continues (None: random weights of the shape); with `init`, the shape
    gives only the length of the packed blocks."""

    corpus: Path
    output_dir: Path
    model: ModelShape
    tokenizer: Path | None = None
    training: dict[str, Any] = field(default_factory=lambda: {**TABLE_11, **RUN_DEFAULTS})
    init: Path | None = None


# -- the tokenizer and the model -------------------------------------------------------------


def train_tokenizer(
    texts: Iterable[str], vocab_size: int = VOCAB_SIZE, *, show_progress: bool = False
) -> Any:
    """The domain tokenizer: the byte-level BPE of `argc.train.tiny` (Qwen2's split, ChatML
    special tokens and chat template) trained on `texts`, at most `vocab_size` tokens, with
    the KG entity words of every split whole (`argc.tasks.kg.names.ENTITY_WORDS`)."""
    from argc.tasks.kg.names import ENTITY_WORDS

    return tiny.train_tokenizer(texts, vocab_size, show_progress=show_progress, words=ENTITY_WORDS)


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
    init = None if raw.init is None else _resolve(folder, _string(raw.init, "init"))
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
        init=init,
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
    """The `init` model's tokenizer (as it is), or, for a model from scratch, without a chat
    template: the configured tokenizer folder's, the output folder's from an earlier run, or
    one trained on the corpus (`model.vocab_size` tokens) and saved there."""
    from transformers import AutoTokenizer

    given = config.init if config.init is not None else config.tokenizer
    if given is not None:
        where = "init" if config.init is not None else "tokenizer"
        if not given.is_dir():
            raise ConfigError(f"{where}: {given} is not a folder")
        tokenizer = AutoTokenizer.from_pretrained(given)
        if tokenizer.eos_token_id is None or tokenizer.pad_token_id is None:
            raise ConfigError(f"{where}: {given} has no EOS or no padding token")
        return tokenizer if config.init is not None else plain_text(tokenizer)
    folder = config.output_dir / TOKENIZER_FOLDER
    if not folder.is_dir():
        texts = read_corpus(config.corpus)
        trained = train_tokenizer(texts, config.model.vocab_size, show_progress=True)
        save_atomically(folder, plain_text(trained).save_pretrained)
    return AutoTokenizer.from_pretrained(folder)


def plain_text(tokenizer: Any) -> Any:
    """The tokenizer without a chat template: a model pretrained on plain text is prompted
    with the text itself (`argc eval/sample --local` use a template when the tokenizer has
    one)."""
    tokenizer.chat_template = None
    return tokenizer


def initial_model(config: PretrainConfig, tokenizer: Any, seed: int) -> Any:
    """The `init` model's weights (fp32), or a random init of the shape drawn from `seed`;
    ConfigError when the `init` model cannot hold the packed blocks or the tokenizer."""
    if config.init is None:
        return tiny.seeded_model(qwen2_config(config.model, tokenizer), seed)
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(config.init, dtype=torch.float32)
    window = getattr(model.config, "max_position_embeddings", None)
    if window is not None and window < config.model.context:
        raise ConfigError(
            f"init: {config.init} holds {window} positions, fewer than the blocks of"
            f" {config.model.context} (model.context)"
        )
    if model.get_input_embeddings().num_embeddings < len(tokenizer):
        raise ConfigError(f"init: {config.init}: the tokenizer is larger than the embeddings")
    return model


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


def pretrain(config: PretrainConfig, stop_at: int | None = None) -> Path | None:
    """Train the model (`initial_model`) on the corpus's packed blocks with
    `transformers.Trainer`, resuming from the output folder's last checkpoint (the schedule
    settings checked against `schedule.json`); save the model, tokenizer and generation config
    to `model/` and the log history beside it. With `stop_at`, stop after that step with a
    checkpoint and no `model/` when the schedule goes further. Returns the model's folder, or
    None when stopped."""
    from transformers import Trainer, default_data_collator
    from transformers.trainer_utils import get_last_checkpoint

    args = training_args(config)
    tokenizer, blocks = prepare(config, args)
    model = initial_model(config, tokenizer, args.seed)
    model.generation_config = generation_config(tokenizer)
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=blocks,
        data_collator=default_data_collator,
        processing_class=tokenizer,
        callbacks=None if stop_at is None else [_stop_callback(stop_at)],
    )
    checkpoint = get_last_checkpoint(str(config.output_dir))
    if trainer.is_world_process_zero():
        same_schedule(config, args, resuming=checkpoint is not None)
        print(summary(config, tokenizer, model, blocks, args, checkpoint))
    trainer.train(resume_from_checkpoint=checkpoint)
    done = trainer.state.global_step >= trainer.state.max_steps
    folder = config.output_dir / MODEL_FOLDER
    if trainer.is_world_process_zero():
        if done:
            save_atomically(folder, lambda staging: _save(trainer.model, tokenizer, staging))
        history = json.dumps(trainer.state.log_history, indent=1) + "\n"
        write_output(config.output_dir / HISTORY, history)
    trainer.accelerator.wait_for_everyone()
    return folder if done else None


def schedule_settings(config: PretrainConfig, args: Any) -> dict[str, Any]:
    """The settings a resumed run must keep (SCHEDULE_KEYS and `init`), as JSON values."""
    values = {key: getattr(args, key) for key in SCHEDULE_KEYS}
    values["lr_scheduler_type"] = str(getattr(values["lr_scheduler_type"], "value", ""))
    values["init"] = None if config.init is None else str(config.init)
    return json.loads(json.dumps(values, default=str))


def same_schedule(config: PretrainConfig, args: Any, *, resuming: bool) -> None:
    """Record the schedule settings of a run starting in the output folder; a resumed run must
    have those it started with (ConfigError naming the first that differs)."""
    path = config.output_dir / SCHEDULE_FILE
    settings = schedule_settings(config, args)
    if resuming and path.is_file():
        started = json.loads(path.read_text(encoding="utf-8"))
        for key, value in settings.items():
            if started.get(key) != value:
                raise ConfigError(
                    f"{config.output_dir} holds a run started with {key} {started.get(key)!r},"
                    f" not {value!r}: a resumed run continues its schedule; to train on with"
                    f" other settings, start a new output folder with --init"
                    f" {config.output_dir / MODEL_FOLDER} (or a checkpoint folder)"
                )
        return
    write_output(path, json.dumps(settings, indent=1, sort_keys=True) + "\n")


def _stop_callback(step: int) -> Any:
    """A Trainer callback that ends training after `step` with a checkpoint."""
    from transformers import TrainerCallback

    class StopAtStep(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if state.global_step >= step:
                control.should_training_stop = True
                control.should_save = True
            return control

    return StopAtStep()


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
    shape = model.config
    budget = (
        f"max_steps {args.max_steps}" if args.max_steps > 0 else f"{args.num_train_epochs:g} epochs"
    )
    start = f"from {config.init}" if config.init is not None else "random init"
    return "\n".join(
        [
            f"model ({start}): {model.num_parameters():,} parameters (hidden"
            f" {shape.hidden_size}, {shape.num_hidden_layers} layers,"
            f" {shape.num_attention_heads} heads, {shape.num_key_value_heads} KV heads, FFN"
            f" {shape.intermediate_size}, vocabulary {len(tokenizer)}, context"
            f" {config.model.context}, tied embeddings {shape.tie_word_embeddings})",
            f"corpus {config.corpus}: {len(blocks.tokens):,} tokens in {len(blocks):,} packed"
            f" blocks of {config.model.context}",
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
    parser.add_argument(
        "--init",
        type=Path,
        metavar="MODEL_DIR",
        help="override init: continue training this model's weights with its tokenizer",
    )
    parser.add_argument(
        "--stop-at-step",
        type=positive_int,
        metavar="K",
        help="stop after step K of the schedule with a checkpoint; rerun to continue",
    )


def with_overrides(
    config: PretrainConfig,
    *,
    corpus: Path | None = None,
    output_dir: Path | None = None,
    max_steps: int | None = None,
    init: Path | None = None,
) -> PretrainConfig:
    """The config with the command line's overrides (paths relative to the working folder)."""
    training = config.training if max_steps is None else {**config.training, "max_steps": max_steps}
    return replace(
        config,
        corpus=config.corpus if corpus is None else corpus,
        output_dir=config.output_dir if output_dir is None else output_dir,
        training=training,
        init=config.init if init is None else init.resolve(),
    )


def run(args: argparse.Namespace) -> int:
    """The `argc kg pretrain` command; returns the exit code."""
    log_lines()
    try:
        config = with_overrides(
            load_config(args.config),
            corpus=args.corpus,
            output_dir=args.output_dir,
            max_steps=args.max_steps,
            init=args.init,
        )
        if config.init is not None and config.tokenizer is not None:
            raise ConfigError("give init or tokenizer, not both (init brings its tokenizer)")
        folder = pretrain(config, stop_at=args.stop_at_step)
        if folder is None:
            print(f"stopped after step {args.stop_at_step}; rerun without --stop-at-step to go on")
        else:
            print(f"model saved to {folder}")
    except ConfigError as error:
        print(f"argc kg pretrain: {args.config}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except ArgcError as error:
        print(f"argc kg pretrain: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    return EXIT_OK
