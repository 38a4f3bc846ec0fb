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


# A training config that holds its recipe; KG recipes on the pretraining split --------------

LEARN = """\
recipe:
  prompt_format: text
  kg: {split: pretrain, cells: [[1, 1], [2, 1]], budget: {deductive: 4}}
model: {tiny: {vocab_size: 300}}
rewards: [kg_answer]
grpo: {num_generations: 2, max_completion_length: 8, per_device_train_batch_size: 2,
  max_steps: 1, use_cpu: true, bf16: false, activation_checkpointing: false,
  report_to: none, disable_tqdm: true, save_strategy: 'no'}
"""


def test_a_config_holds_a_kg_recipe_on_the_pretraining_split(tmp_path: Path) -> None:
    from argc.tasks.kg.names import family_names, person_words
    from argc.train.trainer import load_config, train

    path = tmp_path / "learn.yaml"
    path.write_text(LEARN)
    config = load_config(path)
    assert (config.recipe.name, config.recipe.split, config.recipe.pool) == (
        "learn",
        "pretrain",
        400_000,
    )
    trainer = train(config, output_dir=tmp_path / "run", dry_run=True)
    rows = [json.loads(instance) for instance in trainer.train_dataset["instance"]]
    assert len(rows) == 4 and all(row["meta"]["split"] == "pretrain" for row in rows)
    seen = {
        family
        for family in family_names("pretrain")
        if any(person_words(f"x_{family}")[2:] in row["prompt"] for row in rows)
    }
    unseen = {
        family
        for family in family_names("rl")
        if any(person_words(f"x_{family}")[2:] in row["prompt"] for row in rows)
    }
    assert seen and not unseen  # the persons of the pretraining split, none of the RL pool's


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("{split: eval, cells: [[1, 1]]}", "kg split must be one of rl, pretrain"),
        ("{split: pretrain, cells: [[5, 1]]}", "the pretrain split has no cell D5 T1"),
    ],
)
def test_a_kg_recipe_draws_only_from_a_training_split(block: str, message: str) -> None:
    import yaml

    from argc.train.recipes import RecipeError, parse_recipe

    with pytest.raises(RecipeError, match=message):
        parse_recipe(yaml.safe_load(f"kg: {block}"), "recipe")


def test_the_command_line_names_the_recipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from argc.cli import main

    (tmp_path / "learn.yaml").write_text(LEARN)
    recipe = tmp_path / "mine.yaml"
    recipe.write_text("kg: {cells: [[1, 1]], budget: {deductive: 2}}\nprompt_format: text\n")
    argv = ["train", "--config", str(tmp_path / "learn.yaml"), "--recipe", str(recipe)]
    assert main([*argv, "--output-dir", str(tmp_path / "run"), "--dry-run"]) == 0
    assert "recipe mine: 2 examples, 1 (D, T) cells" in capsys.readouterr().out


# The tokenizer: a name is the same tokens wherever it stands ---------------------------------


def test_names_are_the_same_tokens_in_the_prompt_and_at_the_start_of_an_answer_line(
    tmp_path: Path,
) -> None:
    """The answers of status_query start each line with a claim named in the prompt after a
    space, and KG answers name persons after a space or at a line's start: with Qwen2's split
    (` sf` against `sf`, digits alone) no claim of these instances was the same tokens in both
    places, and a small model never learned to copy one."""
    import re

    from transformers import AutoTokenizer

    from argc.dsl.ir import Ordering
    from argc.tasks.framework import generate
    from argc.train import tiny

    instances = [
        generate("status_query", 2, Ordering("last-link", "elitist"), seed) for seed in range(12)
    ]
    texts = [instance.prompt + "\n" + instance.reference for instance in instances]
    texts += ["Tina Wood gave the lamp to Brian Baker.\nBrian Baker holds the lamp."] * 20
    folder = tiny.build(tiny.TinySpec(vocab_size=600), texts * 4, tmp_path / "model")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    names = {n for i in instances for n in re.findall(r"^(\S+):", i.reference, re.M)}
    names |= {"Tina", "Wood", "Brian", "Baker"}
    assert len(names) > 20
    for name in sorted(names):
        alone = tokenizer.tokenize(name)
        assert tokenizer.tokenize(f"claims: {name}")[-len(alone) :] == alone, name
        assert tokenizer.tokenize(f"x\n{name}: y")[2 : 2 + len(alone)] == alone, name
    assert tokenizer.tokenize("Brian Baker") == ["Brian", "Ġ", "Baker"]
    # the folder loads as Qwen2's tokenizer (Qwen2's split): the same tokens as trained
    assert type(tokenizer).__name__ == "Qwen2Tokenizer"
    trained = tiny.train_tokenizer(texts * 4, 600)
    for text in texts:
        assert tokenizer(text).input_ids == trained(text).input_ids


def test_answer_labels_are_one_token_wherever_they_stand(tmp_path: Path) -> None:
    """A label made of two labels' pieces (`conflict` `_` `unresolved`, `no` `_` `applicable`
    `_` `norm`) let a sampled answer mix them: `conflict_applicable_norm`, no label at all.
    A tokenizer built for a task keeps each of its labels one token: in the answer, in the
    prompt's list of labels, in a rule's head, and after the folder is reloaded."""
    from transformers import AutoTokenizer

    from argc.dsl.ir import Ordering
    from argc.tasks.framework import generate
    from argc.train import tiny

    instances = [
        generate("norm_answer", level, Ordering("last-link", "elitist"), 0) for level in (1, 2, 5)
    ]
    texts = [i.prompt + f"\n<answer>{i.reference}</answer>" for i in instances] * 4
    labels = tiny.answer_labels(["norm_answer"])
    assert len(labels) == 5
    plain = tiny.train_tokenizer(texts, 400)
    assert max(len(plain.tokenize(label)) for label in labels) > 1  # the friction
    folder = tiny.build(tiny.TinySpec(vocab_size=400), texts, tmp_path / "model", labels)
    for tokenizer in (
        tiny.train_tokenizer(texts, 400, words=labels),
        AutoTokenizer.from_pretrained(folder),
    ):
        for label in labels:
            for text in (f"<answer>{label}</answer>", f"one of x, {label}.", f"=> {label}(go(a))]"):
                assert label in tokenizer.tokenize(text), (label, text)
    assert tiny.answer_labels(["no such task"]) == ()


def test_held_out_kg_names_are_whole_tokens() -> None:
    """A tokenizer trained on the pretraining split's stories cut the eval split's family
    names into letters (`Young` as `Y` `ou` `n` `g`: 0 of 17 whole), and a model trained on
    it lost even the trace's format on every held-out prompt (`Therefore:` for `Therefore,`,
    0 of 48), where on the pretraining split it kept it on 48 of 48. KG tasks declare their
    entity words, which a tokenizer built for them keeps whole, and only as whole words."""
    from argc.tasks.kg.names import FAMILY_NAMES, FIRST_NAMES, family_names
    from argc.train import tiny
    from argc.train.data import generate_kg_slot
    from argc.train.recipes import KgSlot

    seen = [generate_kg_slot(KgSlot("deductive", 1, 1, i, "pretrain")) for i in range(30)]
    texts = [instance.prompt + " " + instance.reference for instance in seen]
    words = tiny.answer_labels(["kg_deductive"])
    assert {name.capitalize() for name in (*FIRST_NAMES, *FAMILY_NAMES)} <= set(words)
    plain = tiny.train_tokenizer(texts, 500)
    held_out = [name.capitalize() for name in family_names("eval")]
    assert sum(len(plain.tokenize(name)) == 1 for name in held_out) == 0  # the friction
    tokenizer = tiny.train_tokenizer(texts, 500, words=words)
    assert all(tokenizer.tokenize(name) == [name] for name in held_out)
    story = generate_kg_slot(KgSlot("deductive", 2, 1, 0, "eval")).prompt
    pieces = tokenizer.tokenize(story)
    assert all(word in pieces for word in story.replace(".", " ").split() if word in held_out)
    assert tokenizer.tokenize("Bella") == ["Bella"]
    assert "Bell" not in tokenizer.tokenize("Bellamy")  # an entity word only standing alone


# Logs reach a file as they are printed ------------------------------------------------------


def test_training_commands_write_their_logs_line_by_line() -> None:
    """`argc study`, `argc train` and `argc kg pretrain` print their loss lines to a pipe or a
    file; block-buffered, a study's log stayed empty for the whole supervised stage."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom argc.train.trainer import log_lines\nlog_lines()\n"
        "print('first')\nsys.stdin.readline()\nprint('second')\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline() == "first\n"  # before the child can exit
        child.stdin.write("\n")
        child.stdin.close()
        assert child.stdout.read() == "second\n"
    finally:
        child.kill()
        child.wait()
