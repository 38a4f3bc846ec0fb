"""A lookup warm-up: teach a model to find a name elsewhere in its prompt before it meets a
task.

Every ArgGYM answer, KG answer and change-record field names something its prompt names, and
the small models of the CPU studies learnt the answers' shapes but no lookup from the tasks'
own data (docs/learning.md). The warm-up trains on fresh synthetic sequences every step, over
words of the study's own vocabulary, of two kinds (the loss on the answer alone):

- **repeat**: a run of 4 to `longest` words, then the same run again, so every word of the
  answer is the one that followed the previous word where it first came (the pattern of an
  induction head; the varying length rules out copying from a fixed distance);
- **lookup**: `pairs` lines `key: value`, a question naming `queried` keys, and their lines in
  the order asked (a value found through its key).

On one CPU thread a 0.43M model of the KG study left the repeat task's plateau after about
1,500 steps at learning rate 1e-3 (token accuracy 0.50 to 0.88 by step 4,000), while on the
lookup task alone it stayed on its plateau through 8,000 steps (docs/learning.md).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: A whole word of a tokenizer's vocabulary that the warm-up may use as a key or a value.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


@dataclass(frozen=True)
class WarmupSpec:
    """The warm-up's settings: `steps` of `batch_size` fresh sequences at `learning_rate`
    (linear warm-up over `warmup_steps`, then constant), a share `repeat_share` of them
    repeat sequences of at most `longest` words and the others lookups of `pairs` lines with
    `queried` keys asked, drawn from `seed`; `held_out` sequences of each kind scored every
    `eval_every` steps."""

    steps: int = 4000
    batch_size: int = 16
    learning_rate: float = 1.0e-3
    warmup_steps: int = 50
    repeat_share: float = 0.5
    longest: int = 24
    pairs: int = 4
    queried: int = 2
    seed: int = 0
    held_out: int = 100
    eval_every: int = 250


def vocabulary_words(tokenizer: Any) -> list[str]:
    """The tokenizer's tokens that are one whole word by themselves (a letter, then letters
    or digits), sorted: what the warm-up's keys and values are drawn from."""
    words = set()
    for token_id in range(len(tokenizer)):
        text = tokenizer.decode([token_id])
        if _WORD.fullmatch(text) and tokenizer(text)["input_ids"] == [token_id]:
            words.add(text)
    return sorted(words)


def repeat_example(rng: random.Random, words: Sequence[str], longest: int) -> tuple[str, str]:
    """A (prompt, answer) pair: a run of 4 to `longest` words, and the same run again."""
    run = " ".join(rng.choice(words) for _ in range(rng.randint(4, longest)))
    return f"{run}\nRepeat:\n", run


def lookup_example(
    rng: random.Random, words: Sequence[str], pairs: int, queried: int
) -> tuple[str, str]:
    """A (prompt, answer) pair: `pairs` lines `key: value` with distinct keys, a question
    naming `queried` of the keys, and their `key: value` lines in the order asked."""
    keys = rng.sample(words, pairs)
    values = {key: rng.choice(words) for key in keys}
    asked = rng.sample(keys, queried)
    prompt = "\n".join(f"{key}: {values[key]}" for key in keys)
    prompt += "\n\nWhat are the values of " + ", ".join(asked) + "?\n"
    return prompt, "\n".join(f"{key}: {values[key]}" for key in asked)


def batch(tokenizer: Any, examples: Iterable[tuple[str, str]]):
    """Input ids, labels (the answers' tokens and the end of turn; -100 elsewhere) and the
    attention mask of (prompt, answer) pairs, padded on the right."""
    import torch

    rows = []
    for prompt, answer in examples:
        head = tokenizer(prompt)["input_ids"]
        tail = tokenizer(answer)["input_ids"] + [tokenizer.eos_token_id]
        rows.append((head + tail, [-100] * len(head) + tail))
    width = max(len(ids) for ids, _ in rows)
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    labels = torch.full((len(rows), width), -100)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (row, gold) in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row)
        labels[i, : len(gold)] = torch.tensor(gold)
        mask[i, : len(row)] = 1
    return ids, labels, mask


def accuracy(model: Any, held_out: tuple[Any, Any, Any]) -> tuple[float, float]:
    """Teacher-forced token accuracy on the answers, and the share of answers right in
    every token."""
    import torch

    ids, labels, mask = held_out
    with torch.no_grad():
        predicted = model(input_ids=ids, attention_mask=mask).logits[:, :-1].argmax(-1)
    gold = labels[:, 1:]
    scored = gold != -100
    right = (predicted == gold) & scored
    whole = (right | ~scored).all(dim=1).float().mean().item()
    return right.sum().item() / scored.sum().item(), whole


def train_on(
    model: Any,
    tokenizer: Any,
    examples: Callable[[random.Random], tuple[str, str]],
    held_out: Mapping[str, Sequence[tuple[str, str]]],
    spec: WarmupSpec,
    report: Callable[[dict[str, float]], None] = lambda point: None,
) -> list[dict[str, float]]:
    """Train `model` in place on `spec.steps` batches of fresh `examples(rng)`; every
    `spec.eval_every` steps (and at the last) the loss, the tokens trained on so far and,
    for each held-out set, its token accuracy (`NAME_accuracy`) and share of answers right
    in every token (`NAME_answers`) are reported and kept."""
    import torch

    rng = random.Random(spec.seed)
    scored = {name: batch(tokenizer, pairs) for name, pairs in held_out.items()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=spec.learning_rate)
    model.train()
    history, tokens = [], 0
    for step in range(1, spec.steps + 1):
        for group in optimizer.param_groups:
            group["lr"] = spec.learning_rate * min(1.0, step / max(1, spec.warmup_steps))
        ids, labels, mask = batch(tokenizer, [examples(rng) for _ in range(spec.batch_size)])
        tokens += int(mask.sum())
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % spec.eval_every == 0 or step == spec.steps:
            model.eval()
            point = {"step": step, "loss": loss.item(), "tokens": tokens}
            for name, rows in scored.items():
                point[f"{name}_accuracy"], point[f"{name}_answers"] = accuracy(model, rows)
            model.train()
            history.append(point)
            report(point)
    model.eval()
    return history


def warm_up(source: Path, target: Path, spec: WarmupSpec) -> list[dict[str, float]]:
    """The model of `source` trained on lookup sequences over its tokenizer's words, saved
    with its tokenizer to `target` (written whole) with the held-out curve in
    `log_history.json`; returns the curve."""
    from tqdm import tqdm
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from argc.train.pretrain import save_atomically

    tokenizer = AutoTokenizer.from_pretrained(source)
    model = AutoModelForCausalLM.from_pretrained(source)
    words = vocabulary_words(tokenizer)
    if len(words) < spec.pairs:
        raise ValueError(
            f"the tokenizer has {len(words)} whole words; the warm-up needs {spec.pairs}"
        )

    def repeat(rng: random.Random) -> tuple[str, str]:
        return repeat_example(rng, words, spec.longest)

    def lookup(rng: random.Random) -> tuple[str, str]:
        return lookup_example(rng, words, spec.pairs, spec.queried)

    def examples(rng: random.Random) -> tuple[str, str]:
        return repeat(rng) if rng.random() < spec.repeat_share else lookup(rng)

    # held-out sequences from seeds apart from the training stream's
    held_out = {
        kind: [draw(random.Random(f"{spec.seed}/{kind}/{n}")) for n in range(spec.held_out)]
        for kind, draw in (("repeat", repeat), ("lookup", lookup))
    }
    with tqdm(total=spec.steps, desc="lookup warm-up", unit="step") as progress:

        def report(point: dict[str, float]) -> None:
            progress.update(point["step"] - progress.n)
            progress.set_postfix(
                repeat=f"{point['repeat_accuracy']:.3f}", lookup=f"{point['lookup_accuracy']:.3f}"
            )

        history = train_on(model, tokenizer, examples, held_out, spec, report)

    def save(staging: Path) -> None:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        (staging / "log_history.json").write_text(json.dumps(history, indent=1) + "\n")

    save_atomically(target, save)
    return history
