"""Helpers shared by the tests of `argc eval` and `argc sample`: instance files, fast
retries, no ambient API key and a tiny local transformers model."""

from __future__ import annotations

from pathlib import Path

import pytest

from argc.bench import endpoint
from argc.tasks import Instance

#: A chat template for tokenizers that need one: "role: content" lines, then "assistant: ".
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries wait milliseconds, not seconds (import into a test module to apply it)."""
    monkeypatch.setattr(endpoint, "BACKOFF_BASE_S", 0.01)


@pytest.fixture(autouse=True)
def no_ambient_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's OPENAI_API_KEY stays out of the requests (import to apply it)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def write_instances(instances: list[Instance], folder: Path) -> Path:
    """FOLDER/instances.jsonl holding the instances."""
    path = folder / "instances.jsonl"
    path.write_text("".join(instance.to_json() + "\n" for instance in instances))
    return path


def tiny_model(
    folder: Path,
    texts: list[str],
    *,
    vocab_size: int,
    layers: int,
    chat_template: str | None = None,
) -> Path:
    """A random Qwen2 model of `layers` layers and a byte-level BPE tokenizer trained on
    `texts`, saved in `folder`; skips the test without torch, transformers and tokenizers."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    torch.manual_seed(0)
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<pad>", "<eos>"],
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(texts, trainer)
    wrapped = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="<pad>", eos_token="<eos>"
    )
    if chat_template is not None:
        wrapped.chat_template = chat_template
    config = transformers.Qwen2Config(
        vocab_size=len(wrapped),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        pad_token_id=wrapped.pad_token_id,
        eos_token_id=wrapped.eos_token_id,
        bos_token_id=wrapped.eos_token_id,
    )
    transformers.Qwen2ForCausalLM(config).save_pretrained(folder)
    wrapped.save_pretrained(folder)
    return folder
