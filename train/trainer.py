"""`argc train`: GRPO training (TRL) on fresh task instances from a recipe, with verifiable
rewards, optionally after an SFT stage on normative-world targets (`argc.train.sft`). One YAML
config names the recipe, the model (a local folder, or a tiny random-init model built on the
spot), optional LoRA, the reward functions, the `trl.GRPOConfig` arguments and, in an `sft`
block, the SFT mix and its `trl.SFTConfig` arguments; see `train/configs/` for examples.

With an SFT stage, the output folder receives `sft/` (the SFT model, or its LoRA adapter, and
the tokenizer) and `sft_log_history.json`, then the GRPO model (or adapter) and
`log_history.json`. GRPO starts from the SFT result: the SFT model's folder, or with LoRA the
base model with the SFT adapter loaded trainable (GRPO continues training that adapter)."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, fields, replace
from pathlib import Path
from typing import Any

from argc.dsl.errors import ArgcError
from argc.options import positive_int
from argc.tasks.isolation import configure as configure_scoring
from argc.train.tiny import TinySpec

EXIT_OK, EXIT_INPUT_ERROR = 0, 2
#: The tiny model's folder inside the output folder.
TINY_FOLDER = "tiny-init"
#: The SFT stage's folder inside the output folder, and its log history beside GRPO's.
SFT_FOLDER = "sft"
SFT_HISTORY = "sft_log_history.json"
HISTORY = "log_history.json"


class ConfigError(ArgcError):
    """A training config that cannot be used."""


@dataclass(frozen=True)
class ModelSpec:
    """The policy: a local model folder (`path`) or a tiny random-init model (`tiny`)."""

    path: str | None = None
    tiny: TinySpec | None = None


@dataclass(frozen=True)
class LoraSpec:
    """A LoRA adapter (peft); `target_modules` None lets peft choose for the architecture."""

    r: int = 8
    alpha: float = 16
    dropout: float = 0.05
    target_modules: list[str] | str | None = None


@dataclass(frozen=True)
class SftSpec:
    """An SFT stage before GRPO: `instances` rows of the mix `mix` (`argc.train.sft.MIXES`)
    drawn from `seed`, the ladder levels [low, high] its rows cycle through (default
    `sft.DEFAULT_LEVELS`), the replay factor of `targeted_replay` (default
    `sft.DEFAULT_REPLAY_FACTOR`) and `trl.SFTConfig` arguments (`args`; the output folder is
    always `sft/` inside the run's)."""

    mix: str
    instances: int
    args: dict[str, Any]
    seed: int = 0
    levels: list[int] | None = None
    replay_factor: int | None = None

    @property
    def level_range(self) -> tuple[int, int]:
        from argc.train.sft import DEFAULT_LEVELS

        return DEFAULT_LEVELS if self.levels is None else (self.levels[0], self.levels[1])

    @property
    def factor(self) -> int:
        from argc.train.sft import DEFAULT_REPLAY_FACTOR

        return DEFAULT_REPLAY_FACTOR if self.replay_factor is None else self.replay_factor


@dataclass(frozen=True)
class TrainConfig:
    """A training run. `recipe` is a bundled recipe's name or a recipe file (`--recipe`
    overrides it), or a recipe written in the config itself (the keys of a recipe file);
    `rewards` holds names of `argc.train.rewards.REWARDS` or one-key mappings
    `{name: {argument: value}}`; `grpo` holds `trl.GRPOConfig` arguments."""

    recipe: Any
    model: ModelSpec
    rewards: list[Any]
    grpo: dict[str, Any]
    lora: LoraSpec | None = None
    reward_weights: list[float] | None = None
    workers: int = 1
    #: Worker processes scoring completions for the rewards (`argc.tasks.isolation`).
    scoring_workers: int = 1
    #: Score on a Ray cluster's pool of named scoring actors instead (`argc.cluster`): true
    #: for `ray.init()` (RAY_ADDRESS or a local instance), or the cluster's address; each of
    #: the `scoring_actors` actors holds `scoring_workers` worker processes.
    scoring_ray: bool | str | None = None
    scoring_actors: int = 1
    #: An SFT stage run before GRPO, which then starts from its result.
    sft: SftSpec | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, type=Path, help="the training config (YAML)")
    parser.add_argument("--output-dir", type=Path, help="override grpo.output_dir")
    parser.add_argument(
        "--recipe",
        metavar="NAME|FILE.yaml",
        help="override recipe: a bundled recipe or a recipe file (relative to the working folder)",
    )
    parser.add_argument(
        "--max-steps", type=positive_int, help="override grpo.max_steps (not the SFT stage's)"
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="build the datasets, rewards, model and trainers, print a summary, do not train",
    )


def log_lines() -> None:
    """Write standard output line by line, so that a run's logs (loss lines, stages) reach
    a file or a pipe as they are printed, not when a buffer fills."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)


def run(args: argparse.Namespace) -> int:
    """The `argc train` command; returns the exit code."""
    log_lines()
    try:
        config = load_config(args.config)
        if args.recipe is not None:
            config = replace(config, recipe=args.recipe)
        train(config, output_dir=args.output_dir, max_steps=args.max_steps, dry_run=args.dry_run)
    except ConfigError as error:
        print(f"argc train: {args.config}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except ArgcError as error:
        print(f"argc train: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    return EXIT_OK


# -- the config ----------------------------------------------------------------------------


def load_config(path: Path) -> TrainConfig:
    """Read and validate a YAML config and its recipe (`load_recipe`); a recipe or model path
    that is relative is taken from the config file's folder."""
    config = read_config(path, TrainConfig)
    folder = Path(path).parent
    model = _dataclass(ModelSpec, config.model, "model")
    if (model.path is None) == (model.tiny is None):
        raise ConfigError("model: give exactly one of 'path' and 'tiny'")
    if model.path is not None:
        model = ModelSpec(path=str(_resolve(folder, _string(model.path, "model.path"))))
    else:
        tiny = _dataclass(TinySpec, model.tiny or {}, "model.tiny")
        for name, value in vars(tiny).items():
            _check(isinstance(value, int) and value >= 0, f"model.tiny.{name}", "an integer")
        model = ModelSpec(tiny=tiny)
    lora = None if config.lora is None else _dataclass(LoraSpec, config.lora, "lora")
    if lora is not None:
        _check(isinstance(lora.r, int) and lora.r > 0, "lora.r", "a positive integer")
        _check(_number(lora.alpha), "lora.alpha", "a number")
        _check(_number(lora.dropout) and 0 <= lora.dropout < 1, "lora.dropout", "in [0, 1)")
    recipe = config_recipe(config.recipe, Path(path))
    _check(isinstance(config.rewards, list) and config.rewards, "rewards", "a non-empty list")
    _check(isinstance(config.grpo, dict), "grpo", "a mapping of trl.GRPOConfig arguments")
    weights = config.reward_weights
    if weights is not None:
        _check(
            isinstance(weights, list) and all(_number(w) for w in weights),
            "reward_weights",
            "a list of numbers",
        )
        if len(weights) != len(config.rewards):
            raise ConfigError(
                f"reward_weights: {len(weights)} weights for {len(config.rewards)} rewards"
            )
        if "reward_weights" in config.grpo:
            raise ConfigError("give reward_weights once, at the top level or in grpo")
    for name in ("workers", "scoring_workers", "scoring_actors"):
        _check(_count(getattr(config, name), 1), name, "a positive integer")
    _check(
        config.scoring_ray is None or isinstance(config.scoring_ray, bool | str),
        "scoring_ray",
        "true, false or a Ray address",
    )
    sft = None if config.sft is None else _sft(config.sft)
    return TrainConfig(
        recipe=recipe,
        model=model,
        rewards=config.rewards,
        grpo=config.grpo,
        lora=lora,
        reward_weights=weights,
        workers=config.workers,
        scoring_workers=config.scoring_workers,
        scoring_ray=config.scoring_ray,
        scoring_actors=config.scoring_actors,
        sft=sft,
    )


def config_recipe(value: Any, path: Path) -> Any:
    """The recipe a config gives: a mapping is the recipe itself (the keys of a recipe file,
    named after the config when it gives no name), parsed; a string names a bundled recipe or
    a recipe file (a path ending in .yaml or .yml, or with a folder, relative to the config's
    folder), loaded when the run starts."""
    from argc.train.recipes import parse_recipe

    if isinstance(value, dict):
        return parse_recipe(value, f"{path}: recipe", default_name=path.stem)
    name = _string(value, "recipe")
    if name.endswith((".yaml", ".yml")) or "/" in name:
        name = str(_resolve(path.parent, name))
    return name


def read_config(path: Path, cls: type) -> Any:
    """A YAML file's top-level mapping as `cls` (`_dataclass`: unknown and missing keys are
    named), its values unchecked."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"not valid YAML: {error}") from None
    return _dataclass(cls, data, "config")


def _sft(data: Any) -> SftSpec:
    """The `sft` block, checked (its `args` are checked against trl.SFTConfig by `sft_args`)."""
    from argc.tasks import LEVELS
    from argc.train.sft import MIXES, REPLAY_MIX

    spec = _dataclass(SftSpec, data, "sft")
    _check(spec.mix in MIXES, "sft.mix", "one of " + ", ".join(MIXES))
    _check(_count(spec.instances, 1), "sft.instances", "a positive integer")
    _check(_count(spec.seed, 0), "sft.seed", "a non-negative integer")
    _check(isinstance(spec.args, dict), "sft.args", "a mapping of trl.SFTConfig arguments")
    if "output_dir" in spec.args:
        raise ConfigError(
            f"sft.args.output_dir: the SFT stage writes to {SFT_FOLDER}/ in the run's output folder"
        )
    levels = spec.levels
    _check(
        levels is None
        or (
            isinstance(levels, list)
            and len(levels) == 2
            and all(_count(level, LEVELS[0]) for level in levels)
            and levels[0] <= levels[1] <= LEVELS[-1]
        ),
        "sft.levels",
        f"[low, high] with {LEVELS[0]} <= low <= high <= {LEVELS[-1]}",
    )
    if spec.replay_factor is not None:
        _check(_count(spec.replay_factor, 1), "sft.replay_factor", "a positive integer")
        if spec.mix != REPLAY_MIX:
            raise ConfigError(f"sft.replay_factor: only the {REPLAY_MIX} mix replays instances")
    return spec


def _count(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _dataclass(cls: type, data: Any, where: str) -> Any:
    """`cls(**data)` with errors that name the unknown and the missing keys."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, not {type(data).__name__}")
    known = [item.name for item in fields(cls)]
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    missing = [
        item.name
        for item in fields(cls)
        if item.default is MISSING and item.default_factory is MISSING and item.name not in data
    ]
    if missing:
        raise ConfigError(f"{where}: missing key(s) {', '.join(missing)}")
    return cls(**data)


def _check(ok: bool, where: str, expected: str) -> None:
    if not ok:
        raise ConfigError(f"{where}: expected {expected}")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _string(value: Any, where: str) -> str:
    _check(isinstance(value, str) and value != "", where, "a non-empty string")
    return value


def _resolve(folder: Path, path: str) -> Path:
    return (folder / Path(path).expanduser()).resolve()


def grpo_args(config: TrainConfig, *, output_dir: Path | None = None, max_steps: int | None = None):
    """The `trl.GRPOConfig` of a run: `config.grpo`, the top-level reward weights, and the
    command-line overrides; unknown argument names are refused with suggestions."""
    from trl import GRPOConfig

    values = dict(config.grpo)
    if output_dir is not None:
        values["output_dir"] = str(output_dir)
    if max_steps is not None:
        values["max_steps"] = max_steps
    if config.reward_weights is not None:
        values["reward_weights"] = [float(weight) for weight in config.reward_weights]
    if not values.get("output_dir"):
        raise ConfigError("grpo.output_dir is required (or pass --output-dir)")
    return _trl_args(GRPOConfig, values, "grpo")


def sft_args(config: TrainConfig, output_dir: Path):
    """The `trl.SFTConfig` of a run's SFT stage: `config.sft.args`, writing to `sft/` inside
    the run's output folder `output_dir`; unknown argument names are refused with suggestions."""
    from trl import SFTConfig

    if config.sft is None:
        raise ConfigError("the config has no sft block")
    values = {**config.sft.args, "output_dir": str(Path(output_dir) / SFT_FOLDER)}
    return _trl_args(SFTConfig, values, "sft.args")


def _trl_args(cls: type, values: dict[str, Any], where: str):
    """`cls(**values)` for a TRL or transformers arguments class, with unknown names refused
    (with suggestions), numbers that YAML read as strings converted, and errors as
    ConfigError naming `where`."""
    known = {item.name: item for item in fields(cls) if item.init}
    for name in sorted(set(values) - set(known)):
        close = difflib.get_close_matches(name, list(known), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        package = cls.__module__.partition(".")[0]
        raise ConfigError(f"{where}: {name} is not a {package}.{cls.__name__} argument{hint}")
    for name, value in values.items():
        if isinstance(value, str) and isinstance(known[name].default, float):
            try:  # YAML reads 1e-5 (no dot) as a string
                values[name] = float(value)
            except ValueError:
                raise ConfigError(f"{where}.{name}: expected a number, not {value!r}") from None
    try:
        return cls(**values)
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{where}: {error}") from None


# -- the run -------------------------------------------------------------------------------


def train(
    config: TrainConfig,
    *,
    output_dir: Path | None = None,
    max_steps: int | None = None,
    dry_run: bool = False,
    prompts: Sequence[Any] | None = None,
):
    """Build the datasets, rewards, model and trainers; unless `dry_run`, run the SFT stage
    (when configured: save its model or adapter to `sft/` and its log history to
    SFT_HISTORY), then GRPO from its result, save the model, its tokenizer and
    `log_history.json` to the output folder and print what the logs show. Returns the GRPO
    trainer. `prompts` (instances) replace the recipe's GRPO instances where given; the
    recipe still sets their prompt format."""
    from trl import GRPOTrainer

    from argc.train import recipes

    if config.model.path is not None and not Path(config.model.path).is_dir():
        raise ConfigError(f"model.path: {config.model.path} is not a folder")
    args = grpo_args(config, output_dir=output_dir, max_steps=max_steps)
    output = Path(args.output_dir)
    tuning = sft_args(config, output) if config.sft is not None else None
    configure_scoring(
        workers=config.scoring_workers,
        ray_address=config.scoring_ray,
        actors=config.scoring_actors,
    )
    reward_funcs = _rewards(config)
    recipe = config.recipe
    if isinstance(recipe, str):
        recipe = recipes.load_recipe(recipe)
    if prompts is None:
        dataset = _dataset(config, recipe, output, args)
    else:
        from argc.train.data import dataset_of

        dataset = dataset_of(prompts, recipe.prompt_format, recipe.system)
    sft_data = None if config.sft is None else _sft_dataset(config, recipe)
    model_path = _model_path(config, [dataset, sft_data], output, args)
    tokenizer = _tokenizer(model_path, chat=recipe.prompt_format == "chat")
    policy: Any = str(model_path)
    peft_config = _peft(config.lora)
    if tuning is not None:
        policy = _sft_stage(config, sft_data, tuning, model_path, tokenizer, args, dry_run)
        if not dry_run and config.lora is not None:
            peft_config = None  # GRPO trains the SFT adapter on
    trainer = GRPOTrainer(
        model=policy,
        reward_funcs=reward_funcs,
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=peft_config,
    )
    if trainer.is_world_process_zero():
        print(summary(config, recipe, dataset, trainer, model_path))
    if dry_run:
        return trainer
    trainer.train()
    trainer.save_model(args.output_dir)
    if trainer.is_world_process_zero():
        _write_history(output / HISTORY, trainer.state.log_history)
        print(outcome(output))
    return trainer


def _dataset(config: TrainConfig, recipe: Any, output: Path, args: Any):
    """The recipe's GRPO dataset. A KG recipe's instances are kept in the output folder
    (`data.KG_INSTANCES`, resumable): the first local process builds them, the others read
    them back."""
    from argc.train import data
    from argc.train.recipes import KgRecipe

    if not isinstance(recipe, KgRecipe):
        return data.build_dataset(recipe, workers=config.workers)
    with args.main_process_first(local=True, desc="KG dataset"):
        return data.build_dataset(recipe, workers=config.workers, cache=output / data.KG_INSTANCES)


def _sft_dataset(config: TrainConfig, recipe: Any):
    """The SFT stage's rows, their prompts written as the recipe writes GRPO's."""
    from argc.train.sft import sft_dataset

    spec = config.sft
    assert spec is not None
    return sft_dataset(
        spec.mix,
        spec.instances,
        spec.seed,
        prompt_format=recipe.prompt_format,
        system=recipe.system,
        levels=spec.level_range,
        replay_factor=spec.factor,
        workers=config.workers,
    )


def _sft_stage(
    config: TrainConfig,
    dataset: Any,
    tuning: Any,
    model_path: Path,
    tokenizer: Any,
    grpo: Any,
    dry_run: bool,
) -> Any:
    """Build the SFT trainer (with the config's LoRA adapter, if any) and print what it will
    do; unless `dry_run`, train it, save its model or adapter and tokenizer to `sft/` and its
    log history beside GRPO's. Returns GRPO's starting policy: the SFT model's folder, or the
    base model with the SFT adapter loaded trainable (the base model's folder on a dry run)."""
    from trl import SFTTrainer

    trainer = SFTTrainer(
        model=str(model_path),
        args=tuning,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=_peft(config.lora),
    )
    if trainer.is_world_process_zero():
        print(sft_summary(config, dataset, trainer))
    if dry_run:
        return str(model_path)
    trainer.train()
    folder = Path(tuning.output_dir)
    trainer.save_model(str(folder))
    trainer.accelerator.wait_for_everyone()
    if trainer.is_world_process_zero():
        _write_history(folder.parent / SFT_HISTORY, trainer.state.log_history)
    del trainer
    _release_memory()
    if config.lora is None:
        return str(folder)
    return _continued_adapter(model_path, folder, grpo)


def _continued_adapter(base: Path, adapter: Path, grpo: Any) -> Any:
    """The base model with a saved LoRA adapter, trainable; the base model is loaded as
    GRPOTrainer loads a model path (GRPO's `model_init_kwargs`, no device map when
    distributed)."""
    from peft import PeftModel
    from trl.trainer.utils import create_model_from_path

    kwargs = dict(grpo.model_init_kwargs or {})
    if grpo.distributed_state.distributed_type in ("MULTI_GPU", "DEEPSPEED"):
        kwargs["device_map"] = None
    kwargs.setdefault("trust_remote_code", grpo.trust_remote_code)
    model = create_model_from_path(str(base), **kwargs)
    return PeftModel.from_pretrained(model, str(adapter), is_trainable=True)


def _release_memory() -> None:
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _write_history(path: Path, history: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps(history, indent=1) + "\n")


def _rewards(config: TrainConfig) -> list:
    from argc.train.rewards import rewards_from_config

    try:
        return rewards_from_config(config.rewards)
    except (KeyError, TypeError, ValueError) as error:
        raise ConfigError(f"rewards: {error}") from None


def _model_path(config: TrainConfig, datasets: list[Any], output_dir: Path, args: Any) -> Path:
    """The policy's folder: the configured path, or the tiny model built (by the first local
    process) in the output folder with a tokenizer trained on the prompts and answers of the
    datasets (None entries skipped)."""
    from argc.train import tiny

    if config.model.path is not None:
        return Path(config.model.path)
    folder = (output_dir / TINY_FOLDER).resolve()
    texts, words = tokenizer_inputs(datasets)
    with args.main_process_first(local=True, desc="tiny model"):
        if args.local_process_index == 0:
            tiny.build(config.model.tiny, texts, folder, words)
    return folder


def tokenizer_inputs(datasets: list[Any]) -> tuple[list[str], tuple[str, ...]]:
    """What a tiny tokenizer is built from (None entries skipped): the texts it is trained on,
    every prompt message and every reference answer inside its <answer> region, and the
    answer labels of the rows' tasks, which it keeps whole (`tiny.answer_labels`)."""
    from argc.train.tiny import answer_labels

    texts, tasks = [], set()
    for dataset in (d for d in datasets if d is not None):
        for prompt, instance in zip(dataset["prompt"], dataset["instance"], strict=True):
            record = json.loads(instance)
            messages = [{"content": prompt}] if isinstance(prompt, str) else prompt
            texts.extend(message["content"] for message in messages)
            texts.append(f"<answer>\n{record['reference']}\n</answer>")
            tasks.add(record["task"])
    return texts, answer_labels(tasks)


def _tokenizer(path: Path, chat: bool):
    """The model folder's tokenizer, which needs a chat template for chat prompts."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    if chat and tokenizer.chat_template is None:
        raise ConfigError(
            f"model.path: the tokenizer in {path} has no chat template; use a recipe with"
            " prompt_format: text"
        )
    return tokenizer


def _peft(lora: LoraSpec | None):
    if lora is None:
        return None
    from peft import LoraConfig

    return LoraConfig(
        r=lora.r,
        lora_alpha=lora.alpha,
        lora_dropout=lora.dropout,
        target_modules=lora.target_modules,
        task_type="CAUSAL_LM",
    )


def summary(config: TrainConfig, recipe: Any, dataset: Any, trainer: Any, model: Path) -> str:
    """What a run will do: examples by task, levels, model size, rewards and the main GRPO
    settings."""
    args = trainer.args
    tasks = Counter(dataset["task"])
    parameters = sum(p.numel() for p in trainer.model.parameters())
    trainable = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
    shape = config.model.tiny
    kind = (
        f"tiny: hidden {shape.hidden_size}, {shape.layers} layers, {shape.heads} heads,"
        f" vocabulary {shape.vocab_size}, seed {shape.seed}"
        if shape is not None
        else "from the folder"
    )
    weights = trainer.reward_weights.tolist()
    return "\n".join(
        [
            f"recipe {recipe.name}: {len(dataset)} examples,"
            f" {_span(dataset)}; "
            + ", ".join(f"{task} {count}" for task, count in sorted(tasks.items())),
            f"model {model} ({kind}): {parameters:,} parameters, {trainable:,} trainable"
            + (f", LoRA r={config.lora.r}" if config.lora else ""),
            "rewards: "
            + ", ".join(
                f"{name} ×{weight:g}"
                for name, weight in zip(trainer.reward_func_names, weights, strict=True)
            ),
            f"grpo: max_steps {args.max_steps}, {args.num_generations} generations per prompt,"
            f" generation batch {args.generation_batch_size}, per-device batch"
            f" {args.per_device_train_batch_size}, learning rate {args.learning_rate:g},"
            f" beta {args.beta:g}, device {args.device}, bf16 {args.bf16},"
            f" vLLM {args.use_vllm}",
            f"output {args.output_dir}",
        ]
    )


def _span(dataset: Any) -> str:
    """The levels of a dataset's rows, or the number of (D, T) cells of a KG dataset's."""
    if "depth" in dataset.column_names:
        cells = set(zip(dataset["depth"], dataset["complexity"], strict=True))
        return f"{len(cells)} (D, T) cells"
    levels = sorted(set(dataset["level"]))
    return f"levels {levels[0]}-{levels[-1]}"


def sft_summary(config: TrainConfig, dataset: Any, trainer: Any) -> str:
    """What the SFT stage will do: the mix's rows by task, residual rows, and its settings."""
    from argc.train.sft import REPLAY_MIX, composition

    spec = config.sft
    assert spec is not None
    found = composition(dataset)
    low, high = spec.level_range
    args = trainer.args
    replay = f", replay factor {spec.factor}" if spec.mix == REPLAY_MIX else ""
    then = "GRPO trains the SFT adapter on" if config.lora else "GRPO starts from the SFT model"
    budget = (
        f"max_steps {args.max_steps}" if args.max_steps > 0 else f"{args.num_train_epochs:g} epochs"
    )
    return "\n".join(
        [
            f"sft {spec.mix}: {found['rows']} rows of {found['instances']} instances, levels"
            f" {low}-{high}, seed {spec.seed}{replay}; "
            + ", ".join(f"{task} {count}" for task, count in found["tasks"].items())
            + f"; {found['residual']} rows with a residual-failure reason",
            f"sft: {budget}, per-device batch {args.per_device_train_batch_size}, learning rate"
            f" {args.learning_rate:g}, max_length {args.max_length}, output {args.output_dir};"
            f" then {then}",
        ]
    )


def outcome(output_dir: Path) -> str:
    """What a finished run's logs show: the SFT stage's steps and loss (when it ran), GRPO's
    steps, each reward's mean over the logged steps and the mean share of prompt groups whose
    rewards had zero standard deviation (`frac_reward_zero_std`)."""
    from argc.train.metrics import read_log_history, reward_means, zero_std

    lines = []
    tuned = Path(output_dir) / SFT_HISTORY
    if tuned.is_file():
        losses = [entry["loss"] for entry in read_log_history(tuned) if "loss" in entry]
        loss = f", loss {losses[0]:.4g} -> {losses[-1]:.4g}" if losses else ""
        lines.append(f"sft done: {len(losses)} logged steps{loss}")
    history = read_log_history(Path(output_dir) / HISTORY)
    steps = [entry for entry in history if "loss" in entry]
    means = reward_means(history)
    flat = zero_std(history)
    lines.append(
        f"grpo done: {len(steps)} logged steps; reward means "
        + (", ".join(f"{name} {value:.3f}" for name, value in means.items()) or "none")
        + "; zero-std groups "
        + ("not logged" if flat.mean is None else f"{flat.mean:.3f} (mean over the steps)")
    )
    return "\n".join(lines)
