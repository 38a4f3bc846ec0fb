"""A tiny random-init causal language model and a byte-level BPE tokenizer trained on the
training texts, saved to a folder: a model for smoke runs of the training loop, built
locally and deterministically (no downloads)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BOS, END_OF_TURN, PAD = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
ROLES = ("system", "user", "assistant")

#: The pre-tokenizer's split while training: Qwen2's, except that a word never takes the
#: character before it (Qwen2 reads ` sf` and `(sf` as one piece). No merge then joins a space
#: or a sign to a letter, so a name is the same tokens at the start of a line as after a space
#: or a bracket, and a model can copy it from the prompt into its answer (with Qwen2's split
#: the claims of status_query were ` sf` in the prompt and `sf` in the answer, and a small
#: model copied none). A saved folder loads as Qwen2's tokenizer, which splits with Qwen2's
#: pattern: without such merges that gives the same tokens.
SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

#: ChatML turns, as in Qwen's templates (system, user and assistant messages).
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@dataclass(frozen=True)
class TinySpec:
    """The shape of the tiny model; `vocab_size` bounds the tokenizer's vocabulary (a small
    corpus can give fewer tokens)."""

    hidden_size: int = 64
    layers: int = 2
    heads: int = 2
    vocab_size: int = 512
    seed: int = 0


def train_tokenizer(
    texts: Iterable[str],
    vocab_size: int,
    *,
    show_progress: bool = False,
    words: Sequence[str] = (),
):
    """A byte-level BPE tokenizer trained on `texts` (streamed: an iterator is read once) and
    the chat roles, with ChatML special tokens and template; each of `words` (answer labels,
    `answer_labels`) is then one token wherever it stands alone. At most `vocab_size` tokens
    in all, where that holds the byte alphabet, the special tokens and the words. Without
    that a model that learnt
    `conflict` + `_` + `unresolved` and `no` + `_` + `applicable` + `_` + `norm` sampled
    `conflict_applicable_norm` and other non-labels in 70 of 800 answers sampled at
    temperature 1 (100 held-out prompts)."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(SPLIT), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(words),  # room for the words, added below
        special_tokens=[PAD, BOS, END_OF_TURN],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=show_progress,
    )
    tokenizer.train_from_iterator(itertools.chain(ROLES, texts), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=END_OF_TURN,
        pad_token=PAD,
        chat_template=CHAT_TEMPLATE,
    )
    # single_word: a word is its token only standing alone (`Bell` is not cut out of `Bella`).
    fast.add_tokens([AddedToken(word, normalized=False, single_word=True) for word in words])
    return fast


def answer_labels(tasks: Iterable[str]) -> tuple[str, ...]:
    """The closed answer labels of the named tasks (`Scorer.labels`), sorted: the words a
    tokenizer for them keeps whole (unknown task names have none)."""
    from argc.tasks import REGISTRY

    return tuple(
        sorted({label for task in tasks if task in REGISTRY for label in REGISTRY[task].labels})
    )


def token_ids(tokenizer: Any) -> dict[str, Any]:
    """The `Qwen2Config` arguments a tokenizer decides: its vocabulary size, no BOS token, the
    end-of-turn token as EOS and the padding token."""
    return {
        "vocab_size": len(tokenizer),
        "bos_token_id": None,
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
    }


def seeded_model(config: Any, seed: int) -> Any:
    """A random-init `Qwen2ForCausalLM` of `config`, drawn from `seed` without touching the
    global random state."""
    import torch
    from transformers import Qwen2ForCausalLM

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return Qwen2ForCausalLM(config)


def build(spec: TinySpec, texts: Iterable[str], folder: Path, words: Sequence[str] = ()) -> Path:
    """Train the tokenizer on `texts` (each of `words` one token), initialise the model from
    `spec.seed`, and save both to `folder` (loadable with `from_pretrained`); returns
    `folder`."""
    from transformers import Qwen2Config

    def config(tokenizer: Any) -> Any:
        return Qwen2Config(
            hidden_size=spec.hidden_size,
            intermediate_size=2 * spec.hidden_size,
            num_hidden_layers=spec.layers,
            num_attention_heads=spec.heads,
            num_key_value_heads=spec.heads,
            max_position_embeddings=8192,
            tie_word_embeddings=True,
            **token_ids(tokenizer),
        )

    return build_with(config, spec.vocab_size, spec.seed, texts, folder, words)


def build_with(
    config: Callable[[Any], Any],
    vocab_size: int,
    seed: int,
    texts: Iterable[str],
    folder: Path,
    words: Sequence[str] = (),
) -> Path:
    """Train a tokenizer of at most `vocab_size` tokens on `texts` (each of `words` one
    token), initialise the model of `config(tokenizer)` (a `Qwen2Config`) from `seed`, and
    save both to `folder`."""
    from transformers import GenerationConfig

    tokenizer = train_tokenizer(texts, vocab_size, words=words)
    model = seeded_model(config(tokenizer), seed)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id
    )
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
