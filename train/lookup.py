"""A lookup warm-up: teach a model to find a name elsewhere in its prompt before it meets a
task.

Every ArgGYM answer, KG answer and change-record field names something its prompt names, and
the small models of the CPU studies learnt the answers' shapes but no lookup from the tasks'
own data (docs/learning.md). The warm-up trains on fresh synthetic sequences every step,
which the copy probe (`benchmarks/copy_probe.py`) found to form the lookup within a few
thousand steps: lines `key: value` over words of the study's own vocabulary, then a question
naming some keys, and the answer `key: value` for each in the order asked, so the answer's
only content is names looked up in the prompt. The loss is on the answer alone.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: A whole word of a tokenizer's vocabulary that the warm-up may use as a key or a value.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


@dataclass(frozen=True)
class WarmupSpec:
    """The warm-up's settings: `steps` of `batch_size` fresh sequences at `learning_rate`
    (linear warm-up over `warmup_steps`, then constant), each of `pairs` key-value lines with
    `queried` keys asked, drawn from `seed`; `held_out` sequences scored every `eval_every`
    steps."""

    steps: int = 2000
    batch_size: int = 16
    learning_rate: float = 3.0e-3
    warmup_steps: int = 50
    pairs: int = 12
    queried: int = 3
    seed: int = 0
    held_out: int = 200
    eval_every: int = 100


def vocabulary_words(tokenizer: Any) -> list[str]:
    """The tokenizer's tokens that are one whole word by themselves (a letter, then letters
    or digits), sorted: what the warm-up's keys and values are drawn from."""
    words = set()
    for token_id in range(len(tokenizer)):
        text = tokenizer.decode([token_id])
        if _WORD.fullmatch(text) and tokenizer(text)["input_ids"] == [token_id]:
            words.add(text)
    return sorted(words)


def lookup_example(rng: random.Random, words: Sequence[str], pairs: int, queried: int):
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
    spec: WarmupSpec,
    report: Callable[[dict[str, float]], None] = lambda point: None,
) -> list[dict[str, float]]:
    """Train `model` in place on `spec.steps` batches of fresh `examples(rng)`; every
    `spec.eval_every` steps (and at the last) the held-out accuracy and the tokens trained on
    so far are reported and kept."""
    import torch

    rng = random.Random(spec.seed)
    held_out = batch(tokenizer, [examples(random.Random(-1 - n)) for n in range(spec.held_out)])
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
            right, answers = accuracy(model, held_out)
            model.train()
            point = {
                "step": step,
                "loss": loss.item(),
                "token_accuracy": right,
                "answers": answers,
                "tokens": tokens,
            }
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

    def examples(rng: random.Random) -> tuple[str, str]:
        return lookup_example(rng, words, spec.pairs, spec.queried)

    with tqdm(total=spec.steps, desc="lookup warm-up", unit="step") as progress:

        def report(point: dict[str, float]) -> None:
            progress.update(point["step"] - progress.n)
            progress.set_postfix(accuracy=f"{point['token_accuracy']:.3f}")

        history = train_on(model, tokenizer, examples, spec, report)

    def save(staging: Path) -> None:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        (staging / "log_history.json").write_text(json.dumps(history, indent=1) + "\n")

    save_atomically(target, save)
    return history
