"""`argc study`: a learning study in one command. From one YAML config
(`train/configs/learn-*.yaml`, documented in docs/learning.md) it builds a small model from
scratch, teaches it with a supervised stage, evaluates it greedily on held-out instances,
trains it with GRPO under the family's verifier reward (one arm per reward list, each from the
same supervised checkpoint), evaluates each GRPO checkpoint on the same instances and writes a
summary a reader can re-score with `argc score`.

Stages, each skipped when its output exists (outputs are written whole, models through a
temporary folder), in the output folder:

1. `instances.jsonl`: the held-out instances (a recipe with its own seed, or a KG family's
   cells of the eval split or of another split from a given graph index), checked disjoint
   from every training prompt;
2. `model/`: a Qwen2 model from scratch, a tiny shape or a preset of `argc kg pretrain`, with
   the byte-level BPE tokenizer of `argc.train.tiny` trained on the training texts only (a
   study from a local model folder, `model: {path: ...}`, builds none);
3. `warmup/` (optional): the lookup warm-up of that model on synthetic repeat runs and
   key-value lookups over its own tokenizer's words (`argc.train.lookup`);
4. `pretrain/` (optional, KG): `argc kg pretrain` of that model on the pretraining split's
   corpus of some cells (`pretrain/corpus.jsonl`, `pretrain/model/`);
5. `supervised/`: SFT (TRL) on gold answers: a norm SFT mix (`argc.train.sft`), or the gold
   answers of a recipe's training instances (`sft.gold_dataset`);
6. `before.jsonl`: greedy predictions of the supervised checkpoint;
7. `arms/<arm>/`: GRPO (`argc train`'s trainer) from the supervised checkpoint, with a
   held-out subset evaluated every `curve_every` steps (`curve.json`);
8. `after-<arm>.jsonl` for each arm, and `after.jsonl`, the first arm's;
9. `summary.json` (`argc.train.study_report`), `baseline.jsonl` (the trivial baseline's
   predictions), `curves.png` and `examples.md` (20 successful and 10 failed completions
   of the first arm's checkpoint, from every cell); for KG, per-cell heatmaps under
   `heatmaps/`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from argc.dsl.errors import ArgcError
from argc.files import write_output
from argc.options import positive_int
from argc.train.lookup import WarmupSpec
from argc.train.tiny import TinySpec
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
    config_recipe,
    log_lines,
    read_config,
)

FAMILIES = ("arggym", "norms", "kg")
INSTANCES, BEFORE, AFTER, SUMMARY = "instances.jsonl", "before.jsonl", "after.jsonl", "summary.json"
BASELINE, CURVES, TIMES, CURVE = "baseline.jsonl", "curves.png", "stages.json", "curve.json"
EXAMPLES = "examples.md"
#: The GRPO recipe's instances the supervised checkpoint fails (`grpo.prompts: failing`).
FAILING = "grpo-failing.jsonl"
#: The choices of `grpo.prompts`.
GRPO_PROMPTS = ("all", "failing")
MODEL, WARMUP, PRETRAIN, SUPERVISED = "model", "warmup", "pretrain", "supervised"
ARMS = "arms"
#: The stages before GRPO, in order: `--until` stops after one of them.
EARLY_STAGES = ("data", "model", "warmup", "pretrain", "supervised", "before")


@dataclass(frozen=True)
class PresetModel:
    """A model from scratch of a shape of `argc kg pretrain` (`kg-tiny`, `kg-107m`), drawn
    from `seed`."""

    preset: str
    seed: int = 0


@dataclass(frozen=True)
class ModelFolder:
    """A local model folder with its tokenizer (and, for chat prompts, its chat template),
    taught as it is; a relative path is taken from the config's folder."""

    path: str


@dataclass(frozen=True)
class HeldOutSpec:
    """The held-out instances: a recipe (`recipe`, its seed apart from the training seeds)
    or, for KG, `kg: {families, cells: [[D, T], ...], per_cell}` on the eval split (or on
    `split`'s graphs from index `first`, fresh graphs of the split a study trains on); greedy
    decoding up to `max_tokens` tokens in batches of `batch_size`; every `curve_every` GRPO
    steps (0: never) `curve_subset` instances spread over the set are evaluated for the
    curves."""

    recipe: Any = None
    kg: dict[str, Any] | None = None
    max_tokens: int = 256
    batch_size: int = 16
    curve_every: int = 0
    curve_subset: int = 50


@dataclass(frozen=True)
class PretrainSpec:
    """KG pretraining: the pretraining split's corpus on `cells` ([[D, T], ...]), `per_cell`
    rows a cell, mixed by `mix` (family: weight), blocks of `context` tokens, and
    `transformers.TrainingArguments` (`args`) over `argc kg pretrain`'s defaults."""

    cells: list[list[int]]
    per_cell: int
    args: dict[str, Any]
    mix: dict[str, int] = field(default_factory=lambda: {"deductive": 1})
    context: int = 512


@dataclass(frozen=True)
class SupervisedSpec:
    """The supervised stage: `trl.SFTConfig` arguments (`args`) on the gold answers of a norm
    SFT mix (`mix`, `instances` rows, `seed`, `levels`: `argc.train.sft`), of a recipe's
    training instances (`recipe`), or of both (the mix's rows first)."""

    args: dict[str, Any]
    recipe: Any = None
    mix: str | None = None
    instances: int = 0
    seed: int = 0
    levels: list[int] | None = None


@dataclass(frozen=True)
class GrpoSpec:
    """GRPO: the training recipe, one arm per entry of `arms` (name: reward list as in
    `argc train`), optional `reward_weights` per arm, and `trl.GRPOConfig` arguments.
    `prompts` chooses the recipe's instances GRPO trains on: `all`, or `failing`, those the
    supervised checkpoint does not answer with a complete success when decoding greedily
    (its mistakes: where a group can find a better answer than the checkpoint's own; on the
    KG study it lowered held-out success, docs/learning.md)."""

    recipe: Any
    arms: dict[str, list[Any]]
    args: dict[str, Any]
    reward_weights: dict[str, list[float]] | None = None
    scoring_workers: int = 1
    prompts: str = "all"


@dataclass(frozen=True)
class StudyConfig:
    """A learning study (module docstring)."""

    family: str
    model: TinySpec | PresetModel | ModelFolder
    supervised: SupervisedSpec
    heldout: HeldOutSpec
    grpo: GrpoSpec
    pretrain: PretrainSpec | None = None
    warmup: WarmupSpec | None = None
    workers: int = 1
    #: Threads of every training and decoding stage (torch's intra-op threads, whatever
    #: OMP_NUM_THREADS says): a model trained on another count sums in another order and
    #: ends elsewhere, so a rerun reproduces a study only with the same count.
    threads: int = 1


# -- the config ----------------------------------------------------------------------------


def load_study(path: Path) -> StudyConfig:
    """Read and check a study config; recipes are parsed (relative names from its folder)."""
    raw = read_config(path, StudyConfig)
    _check(raw.family in FAMILIES, "family", "one of " + ", ".join(FAMILIES))
    model = _model(raw.model, path)
    supervised = _dataclass(SupervisedSpec, raw.supervised, "supervised")
    _check(
        supervised.recipe is not None or supervised.mix is not None,
        "supervised",
        "a 'recipe', a 'mix' or both",
    )
    if supervised.recipe is not None:
        supervised = replace(supervised, recipe=_recipe(supervised.recipe, path))
    if supervised.mix is not None:
        from argc.train.sft import MIXES

        _check(supervised.mix in MIXES, "supervised.mix", "one of " + ", ".join(MIXES))
        _check(_count(supervised.instances, 1), "supervised.instances", "a positive integer")
    heldout = _dataclass(HeldOutSpec, raw.heldout, "heldout")
    _check(
        (heldout.recipe is None) != (heldout.kg is None),
        "heldout",
        "exactly one of 'recipe' and 'kg'",
    )
    if heldout.recipe is not None:
        heldout = replace(heldout, recipe=_recipe(heldout.recipe, path))
    else:
        from argc.tasks.kg.splits import PLANS

        split, first = heldout.kg.get("split", "eval"), heldout.kg.get("first", 0)
        _check(split in PLANS, "heldout.kg.split", "one of " + ", ".join(PLANS))
        _check(_count(first, 0), "heldout.kg.first", "a graph index")
        pool = PLANS[split].per_cell  # the graphs a corpus or a recipe of the split draws
        _check(
            split == "eval" or first >= pool,
            "heldout.kg.first",
            f"an index past the {split} split's pool ({pool:,} graphs a cell)",
        )
    for name in ("max_tokens", "batch_size", "curve_subset"):
        _check(_count(getattr(heldout, name), 1), f"heldout.{name}", "a positive integer")
    _check(_count(heldout.curve_every, 0), "heldout.curve_every", "a non-negative integer")
    grpo = _dataclass(GrpoSpec, raw.grpo, "grpo")
    _check(isinstance(grpo.arms, dict) and grpo.arms, "grpo.arms", "a mapping of arm: rewards")
    _check("output_dir" not in grpo.args, "grpo.args", "no output_dir (arms/<arm>/)")
    _check(grpo.prompts in GRPO_PROMPTS, "grpo.prompts", "one of " + ", ".join(GRPO_PROMPTS))
    grpo = replace(grpo, recipe=_recipe(grpo.recipe, path))
    pretrain = None
    if raw.pretrain is not None:
        pretrain = _dataclass(PretrainSpec, raw.pretrain, "pretrain")
        _check(raw.family == "kg", "pretrain", "only in a kg study")
    warmup = None
    if raw.warmup is not None:
        warmup = _dataclass(WarmupSpec, raw.warmup, "warmup")
        for name in ("steps", "batch_size", "pairs", "queried", "held_out", "eval_every"):
            _check(_count(getattr(warmup, name), 1), f"warmup.{name}", "a positive integer")
        _check(warmup.queried <= warmup.pairs, "warmup.queried", "at most warmup.pairs")
        _check(_count(warmup.longest, 4), "warmup.longest", "an integer of at least 4")
        _check(
            isinstance(warmup.repeat_share, int | float) and 0 <= warmup.repeat_share <= 1,
            "warmup.repeat_share",
            "a number from 0 to 1",
        )
        _check(
            isinstance(warmup.learning_rate, float) and warmup.learning_rate > 0,
            "warmup.learning_rate",
            "a positive number with a dot (YAML reads 3e-3 as a string)",
        )
    _check(_count(raw.workers, 1), "workers", "a positive integer")
    _check(_count(raw.threads, 1), "threads", "a positive integer")
    return replace(
        raw,
        model=model,
        supervised=supervised,
        heldout=heldout,
        grpo=grpo,
        pretrain=pretrain,
        warmup=warmup,
    )


def _model(value: Any, path: Path) -> TinySpec | PresetModel | ModelFolder:
    """The study's model: a tiny shape (TinySpec's fields), `{preset, seed}` or `{path}`."""
    from argc.train.pretrain import PRESETS

    if isinstance(value, dict) and "path" in value:
        folder = _dataclass(ModelFolder, value, "model")
        resolved = _resolve(Path(path).parent, _string(folder.path, "model.path"))
        _check(resolved.is_dir(), "model.path", f"a model folder ({resolved} is not one)")
        return ModelFolder(str(resolved))
    if isinstance(value, dict) and "preset" in value:
        preset = _dataclass(PresetModel, value, "model")
        _check(preset.preset in PRESETS, "model.preset", "one of " + ", ".join(PRESETS))
        _check(_count(preset.seed, 0), "model.seed", "a non-negative integer")
        return preset
    model = _dataclass(TinySpec, value, "model")
    for name, number in vars(model).items():
        _check(_count(number, 0), f"model.{name}", "a non-negative integer")
    return model


def _recipe(value: Any, path: Path) -> Any:
    """A recipe given inline or by name or file, parsed."""
    from argc.train.recipes import load_recipe

    recipe = config_recipe(value, Path(path))
    return load_recipe(recipe) if isinstance(recipe, str) else recipe


# -- the stages ----------------------------------------------------------------------------


class Study:
    """A study's stages over its output folder (module docstring)."""

    def __init__(self, config: StudyConfig, out: Path, max_steps: int | None = None):
        self.config, self.out, self.max_steps = config, Path(out), max_steps
        self.recipe = config.grpo.recipe
        self.chat = self.recipe.prompt_format == "chat"

    def run(self, until: str | None = None) -> dict[str, Any] | None:
        """Every stage not done yet, or those up to `until` (one of EARLY_STAGES); returns
        the summary of a finished study (None when stopped early)."""
        from tqdm import tqdm

        self.out.mkdir(parents=True, exist_ok=True)
        stages = [
            ("data", self.data),
            ("model", self.model),
            ("warmup", self.warmup),
            ("pretrain", self.pretrain),
            ("supervised", self.supervised),
            ("before", self.before),
            *[(f"grpo {arm}", lambda arm=arm: self.grpo(arm)) for arm in self.config.grpo.arms],
            *[(f"after {arm}", lambda arm=arm: self.after(arm)) for arm in self.config.grpo.arms],
        ]
        if until is not None:
            stages = stages[: EARLY_STAGES.index(until) + 1]
        import torch

        torch.set_num_threads(self.config.threads)
        with tqdm(stages, desc="study", unit="stage") as progress:
            for name, stage in progress:
                progress.set_postfix_str(name)
                self._timed(name, stage)
        return None if until is not None else write_summary(self)

    def _timed(self, name: str, stage: Any) -> None:
        """Run a stage, adding its seconds to TIMES when it did work."""
        start = time.monotonic()
        if stage() is False:
            return
        times = self.times()
        times[name] = round(time.monotonic() - start, 1)
        write_output(self.out / TIMES, json.dumps(times, indent=1) + "\n")

    def times(self) -> dict[str, float]:
        path = self.out / TIMES
        return json.loads(path.read_text()) if path.is_file() else {}

    # data

    @cached_property
    def training_instances(self) -> list[Any]:
        """The supervised stage's instances: the norm mix's rows (replays repeated), then the
        recipe's instances (generated once a run: the data, model and supervised stages all
        read them)."""
        from argc.tasks import Instance

        spec, found = self.config.supervised, []
        if spec.mix is not None:
            from argc.train.sft import DEFAULT_LEVELS, mix_entries

            levels = tuple(spec.levels) if spec.levels else DEFAULT_LEVELS
            entries = mix_entries(
                spec.mix, spec.instances, spec.seed, levels=levels, workers=self.config.workers
            )
            found += [Instance.from_record(json.loads(record)) for record, _ in entries]
        if spec.recipe is not None:
            cache = self.out / "supervised-data.jsonl"
            found += _instances(spec.recipe, self.config.workers, cache)
        return found

    @cached_property
    def grpo_instances(self) -> list[Any]:
        """The GRPO recipe's instances (generated once a run)."""
        return _instances(self.recipe, self.config.workers, self.out / "grpo-data.jsonl")

    def data(self) -> bool:
        """The held-out instances, refused when a prompt is also a training prompt."""
        if (self.out / INSTANCES).is_file():
            return False
        heldout = heldout_instances(self.config.heldout, self.config.workers)
        seen = {i.prompt for i in [*self.training_instances, *self.grpo_instances]}
        shared = [instance.id for instance in heldout if instance.prompt in seen]
        if shared:
            raise ArgcError(
                f"{len(shared)} held-out instances are training instances too ({shared[0]},"
                " ...): give the held-out recipe another seed"
            )
        write_output(self.out / INSTANCES, "".join(i.to_json() + "\n" for i in heldout))
        return True

    def heldout(self) -> list[Any]:
        from argc.tasks.cli import read_instances

        return read_instances(self.out / INSTANCES)

    # model

    def model(self) -> bool:
        """The model from scratch and its tokenizer, trained on the training texts."""
        from argc.train import pretrain, tiny
        from argc.train.trainer import tokenizer_inputs

        spec, folder = self.config.model, self.out / MODEL
        if isinstance(spec, ModelFolder) or folder.is_dir():
            return False
        gold = [self._gold(self.training_instances), self._gold(self.grpo_instances)]
        texts, words = tokenizer_inputs(gold)
        if isinstance(spec, TinySpec):
            build = partial(tiny.build, spec)
        else:
            shape = pretrain.PRESETS[spec.preset]
            config = partial(pretrain.qwen2_config, shape)
            build = partial(tiny.build_with, config, shape.vocab_size, spec.seed)
        pretrain.save_atomically(folder, lambda staging: build(texts, staging, words))
        return True

    def built_model(self) -> Path:
        """The model folder the study starts from: the local folder, or the one built."""
        spec = self.config.model
        return Path(spec.path) if isinstance(spec, ModelFolder) else self.out / MODEL

    def warmup(self) -> bool:
        """The lookup warm-up of the built model (`argc.train.lookup`), when configured."""
        spec, folder = self.config.warmup, self.out / WARMUP
        if spec is None or folder.is_dir():
            return False
        from argc.train.lookup import warm_up

        warm_up(self.built_model(), folder, spec)
        return True

    def warmed_model(self) -> Path:
        """The model pretraining starts from: the warmed-up one, or the built one."""
        warmed = self.out / WARMUP
        return warmed if warmed.is_dir() else self.built_model()

    def _gold(self, instances: list[Any]):
        from argc.train.sft import gold_dataset

        return gold_dataset(instances, self.recipe.prompt_format, self.recipe.system)

    def pretrain(self) -> bool:
        """KG pretraining of the built model on the corpus of the configured cells."""
        spec = self.config.pretrain
        folder = self.out / PRETRAIN
        if spec is None or (folder / "model").is_dir():
            return False
        from argc.tasks.kg.splits import build_corpus, corpus_chunks
        from argc.train import pretrain

        folder.mkdir(exist_ok=True)
        corpus = folder / "corpus.jsonl"
        cells = [tuple(cell) for cell in spec.cells]
        build_corpus(
            corpus,
            corpus_chunks("pretrain", spec.per_cell, spec.mix, cells=cells),
            workers=self.config.workers,
        )
        shape = replace(pretrain.PRESETS["kg-tiny"], context=spec.context)  # context only
        settings = {**pretrain.TABLE_11, **pretrain.RUN_DEFAULTS, **spec.args}
        pretrain.pretrain(
            pretrain.PretrainConfig(
                corpus=corpus,
                output_dir=folder,
                model=shape,
                training=settings,
                init=self.warmed_model(),
            )
        )
        return True

    def start_model(self) -> Path:
        """The model the supervised stage starts from."""
        pretrained = self.out / PRETRAIN / "model"
        return pretrained if pretrained.is_dir() else self.warmed_model()

    def supervised(self) -> bool:
        """SFT on the gold answers; the model and tokenizer saved to `supervised/`."""
        from trl import SFTConfig, SFTTrainer

        from argc.train.pretrain import save_atomically

        folder = self.out / SUPERVISED
        if folder.is_dir():
            return False
        spec = self.config.supervised
        scratch = self.out / ".supervised-run"
        args = _trl_args(SFTConfig, {**spec.args, "output_dir": str(scratch)}, "supervised.args")
        dataset = self._gold(self.training_instances)
        trainer = SFTTrainer(
            model=str(self.start_model()),
            args=args,
            train_dataset=dataset,
            processing_class=_tokenizer(self.start_model()),
        )
        trainer.train()

        def save(staging: Path) -> None:
            trainer.save_model(str(staging))
            (staging / HISTORY).write_text(json.dumps(trainer.state.log_history, indent=1) + "\n")

        save_atomically(folder, save)
        shutil.rmtree(scratch, ignore_errors=True)
        return True

    # evaluation

    def predict(self, model: Path, instances: list[Any], desc: str) -> dict[str, str]:
        """Greedy responses of a model folder, in the prompt format it was trained with."""
        from tqdm import tqdm

        from argc.bench.local import LocalModel

        spec = self.config.heldout
        local = LocalModel(
            model,
            max_tokens=spec.max_tokens,
            temperature=0.0,
            system=self.recipe.system,
            prompt_format="chat" if self.chat else "raw",
        )
        responses: dict[str, str] = {}
        with tqdm(total=len(instances), desc=desc, disable=len(instances) < 2) as progress:

            def record(instance: Any, completion: Any) -> None:
                responses[instance.id] = completion.response or ""
                progress.update()

            local.complete_in_batches(
                instances, lambda i: i.prompt, record, threading.Event(), spec.batch_size
            )
        return {instance.id: responses[instance.id] for instance in instances}

    def _write_predictions(self, path: Path, model: Path, desc: str) -> bool:
        if path.is_file():
            return False
        write_output(path, predictions_text(self.predict(model, self.heldout(), desc)))
        return True

    def before(self) -> bool:
        return self._write_predictions(self.out / BEFORE, self.out / SUPERVISED, "before")

    def after(self, arm: str) -> bool:
        path = self.out / f"after-{arm}.jsonl"
        wrote = self._write_predictions(path, self.arm_folder(arm) / "model", f"after {arm}")
        first = next(iter(self.config.grpo.arms))
        if arm == first and not (self.out / AFTER).is_file():
            write_output(self.out / AFTER, path.read_bytes())
        return wrote

    # GRPO

    def arm_folder(self, arm: str) -> Path:
        return self.out / ARMS / arm

    def grpo(self, arm: str) -> bool:
        """GRPO of one arm from the supervised checkpoint (`argc train`'s trainer), with the
        curve subset evaluated every `curve_every` steps."""
        from argc.train import trainer as training
        from argc.train.pretrain import save_atomically

        folder = self.arm_folder(arm)
        if (folder / "model").is_dir():
            return False
        spec = self.config.grpo
        weights = (spec.reward_weights or {}).get(arm)
        config = training.TrainConfig(
            recipe=self.recipe,
            model=training.ModelSpec(path=str((self.out / SUPERVISED).resolve())),
            rewards=spec.arms[arm],
            grpo=dict(spec.args),
            reward_weights=weights,
            workers=self.config.workers,
            scoring_workers=spec.scoring_workers,
        )
        run = folder / "run"
        trainer = training.train(
            config,
            output_dir=run,
            max_steps=self.max_steps,
            dry_run=True,
            prompts=self.failing_prompts() if spec.prompts == "failing" else None,
        )
        curve = CurveCallback(self, trainer.processing_class, folder / CURVE)
        trainer.add_callback(curve)
        trainer.train()

        def save(staging: Path) -> None:
            trainer.save_model(str(staging))
            trainer.processing_class.save_pretrained(str(staging))

        save_atomically(folder / "model", save)
        write_output(folder / HISTORY, json.dumps(trainer.state.log_history, indent=1) + "\n")
        shutil.rmtree(run, ignore_errors=True)
        return True

    def failing_prompts(self) -> list[Any]:
        """The GRPO recipe's instances whose greedy answer by the supervised checkpoint is
        not a complete success, in the recipe's order (kept in FAILING: decoded once)."""
        from argc.tasks.cli import read_instances
        from argc.train.study_report import successes

        path = self.out / FAILING
        if not path.is_file():
            instances = self.grpo_instances
            responses = self.predict(self.out / SUPERVISED, instances, "GRPO prompts")
            failing = [
                instance
                for instance, success in zip(
                    instances, successes(instances, responses), strict=True
                )
                if not success
            ]
            if not failing:
                raise ArgcError("grpo.prompts: the supervised checkpoint fails no GRPO prompt")
            write_output(path, "".join(instance.to_json() + "\n" for instance in failing))
        return read_instances(path)

    def curve_instances(self) -> list[Any]:
        """`curve_subset` held-out instances spread evenly over the set (which is ordered by
        cell: its first instances would be the first levels' alone)."""
        return spread(self.heldout(), self.config.heldout.curve_subset)


def spread(items: list[Any], count: int) -> list[Any]:
    """`count` items (all when there are fewer) at evenly spaced positions, in order."""
    if count >= len(items):
        return list(items)
    return [items[k * len(items) // count] for k in range(count)]


class CurveCallback:
    """A `transformers.TrainerCallback` that evaluates the curve subset greedily before the
    first step and every `curve_every` steps (and at the last step), appending {step,
    success} to a JSON file."""

    def __new__(cls, study: Study, tokenizer: Any, path: Path):
        from transformers import TrainerCallback

        class Callback(TrainerCallback):
            def on_train_begin(
                self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any
            ) -> None:
                if study.config.heldout.curve_every and state.global_step == 0:
                    _curve_point(study, model, tokenizer, path, 0)

            def on_step_end(
                self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any
            ) -> None:
                every = study.config.heldout.curve_every
                last = state.global_step == state.max_steps
                if every and (state.global_step % every == 0 or last):
                    _curve_point(study, model, tokenizer, path, state.global_step)

        return Callback()


def _curve_point(study: Study, model: Any, tokenizer: Any, path: Path, step: int) -> None:
    from argc.train.study_report import successes

    instances = study.curve_instances()
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        responses = study.predict(Path(folder), instances, f"curve step {step}")
    won = successes(instances, responses)
    points = json.loads(path.read_text()) if path.is_file() else []
    points = [p for p in points if p["step"] != step]
    points.append({"step": step, "success": sum(won) / len(won) if won else None})
    write_output(path, json.dumps(points) + "\n")


def predictions_text(responses: dict[str, str]) -> str:
    """A predictions file's text: one `{id, response}` JSON line an instance."""
    lines = (json.dumps({"id": key, "response": text}) for key, text in responses.items())
    return "".join(line + "\n" for line in lines)


def _tokenizer(path: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path)


def _instances(recipe: Any, workers: int, cache: Path | None = None) -> list[Any]:
    """A recipe's instances in plan order (`argc.train.data.build_dataset`; a KG recipe's
    are kept in `cache`)."""
    from argc.tasks import Instance
    from argc.train.data import build_dataset

    dataset = build_dataset(recipe, workers=workers, cache=cache)
    return [Instance.from_record(json.loads(record)) for record in dataset["instance"]]


def heldout_instances(spec: HeldOutSpec, workers: int) -> list[Any]:
    """The held-out instances: the recipe's, or the KG split's of the cells (the eval split's
    by default)."""
    if spec.recipe is not None:
        return _instances(spec.recipe, workers)
    from argc.train.data import generate_kg_slot
    from argc.train.recipes import KgSlot

    kg = spec.kg or {}
    families = kg.get("families", ["deductive"])
    split, first = kg.get("split", "eval"), kg.get("first", 0)
    return [
        generate_kg_slot(KgSlot(family, depth, complexity, first + index, split=split))
        for family in families
        for depth, complexity in kg["cells"]
        for index in range(kg["per_cell"])
    ]


# -- the summary ---------------------------------------------------------------------------


def write_summary(study: Study) -> dict[str, Any]:
    """summary.json, baseline.jsonl, curves.png and, for KG, the heatmaps of a finished study
    (`argc.train.study_report.summarise`)."""
    from trl import GRPOConfig

    from argc.train import study_report as report

    out, config = study.out, study.config
    arms = list(config.grpo.arms)
    args = _trl_args(GRPOConfig, {**config.grpo.args, "output_dir": str(out / ARMS)}, "grpo.args")
    per_step = args.per_device_train_batch_size * args.gradient_accumulation_steps
    cells = training_cells(config) if config.family == "kg" else None
    minutes = sum(study.times().values()) / 60
    summary = report.summarise(out, config.family, arms, per_step * args.world_size, minutes, cells)
    instances = study.heldout()
    _, trivial = report.trivial_predictions(instances)
    write_output(out / BASELINE, predictions_text(trivial))
    if cells is not None:
        before = report.successes(instances, report.read_predictions_file(out / BEFORE))
        runs = {
            f"after-{arm}": report.successes(
                instances, report.read_predictions_file(out / f"after-{arm}.jsonl")
            )
            for arm in arms
        }
        summary["heatmaps"] = report.kg_heatmaps(
            instances, runs, before, dict.fromkeys(runs, cells), out / "heatmaps"
        )
    report.write_json(out / SUMMARY, summary)
    report.write_curves(out, summary, out / CURVES)
    after = report.read_predictions_file(out / f"after-{arms[0]}.jsonl")
    write_output(out / EXAMPLES, report.completion_examples(instances, after))
    return summary


def supervised_line(study: Study) -> str:
    """The supervised checkpoint's held-out success beside the trivial baseline's."""
    from argc.train import study_report as report

    instances = study.heldout()
    before = report.rate(
        report.successes(instances, report.read_predictions_file(study.out / BEFORE))
    )
    name, trivial = report.trivial_predictions(instances)
    baseline = report.rate(report.successes(instances, trivial))
    return (
        f"held-out success of the supervised checkpoint {before['successes']}/{before['n']};"
        f" trivial baseline ({name}) {baseline['successes']}/{baseline['n']}"
    )


def training_cells(config: StudyConfig) -> set[tuple[int, int]]:
    """The (D, T) cells a KG study trains on: its pretraining, supervised and GRPO cells."""
    from argc.train.recipes import KgRecipe

    cells = {(d, t) for d, t in config.pretrain.cells} if config.pretrain else set()
    for recipe in (config.supervised.recipe, config.grpo.recipe):
        if isinstance(recipe, KgRecipe):
            cells |= {(cell.depth, cell.complexity) for cell in recipe.cells}
    return cells


# -- the command ---------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, type=Path, help="the study config (YAML)")
    parser.add_argument("--out", required=True, type=Path, help="the study's output folder")
    parser.add_argument("--max-steps", type=positive_int, help="override each arm's GRPO max_steps")
    parser.add_argument(
        "--until",
        choices=EARLY_STAGES,
        help="stop after this stage (with 'before': print the supervised checkpoint's held-out"
        " success beside the trivial baseline's), to tune a config before its GRPO arms run",
    )


def run(args: argparse.Namespace) -> int:
    """`argc study`; returns the exit code."""
    log_lines()
    try:
        config = load_study(args.config)
        study = Study(config, args.out, args.max_steps)
        summary = study.run(args.until)
    except ConfigError as error:
        print(f"argc study: {args.config}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except ArgcError as error:
        print(f"argc study: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    if summary is None:
        print(f"stopped after {args.until}: {args.out}")
        if args.until == "before":
            print(supervised_line(study))
        return EXIT_OK
    before = summary["before"]["success"]
    arms = ", ".join(
        f"{arm} {row['after']['success']:.3f} (p {row['mcnemar']['p']:.3g})"
        for arm, row in summary["arms"].items()
    )
    print(f"held-out success: before {before:.3f}; after {arms}")
    print(f"summary: {args.out / SUMMARY}")
    return EXIT_OK
