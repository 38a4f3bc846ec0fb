"""A local backend: batched generation with a Hugging Face transformers model folder.
torch and transformers are optional; they are imported when a model is loaded."""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from argc.bench.endpoint import Completion, failure
from argc.dsl.errors import ArgcError

#: The token budget and temperature (greedy) of `argc eval --local` when not given.
LOCAL_MAX_TOKENS = 1024
LOCAL_TEMPERATURE = 0.0
#: How a local model is prompted: the prompt itself, or in the tokenizer's chat template.
PROMPT_FORMATS = ("raw", "chat")
Item = TypeVar("Item")


class MissingBackend(Exception):
    """torch or transformers is not installed."""


class LocalModel:
    """A causal language model and its tokenizer, loaded from a folder, answering prompts in
    batches (left padding; greedy when temperature is 0)."""

    def __init__(
        self,
        path: Path,
        *,
        max_tokens: int,
        temperature: float = 0.0,
        top_p: float | None = None,
        system: str | None = None,
        prompt_format: str | None = None,
    ):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as error:
            raise MissingBackend(
                f"the local backend needs torch and transformers ({error});"
                " install them with: pip install torch transformers"
            ) from None
        self.torch = torch
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.tokenizer.padding_side = "left"
        self.model = AutoModelForCausalLM.from_pretrained(path, torch_dtype="auto")
        self.model.to(self.device).eval()
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.tokenizer.eos_token_id
        self.stop_ids = set(eos if isinstance(eos, list) else [eos]) - {None}
        self.max_tokens = max_tokens
        self.sampling: dict[str, Any] = {"do_sample": temperature > 0}
        if temperature > 0:
            self.sampling["temperature"] = temperature
            if top_p is not None:
                self.sampling["top_p"] = top_p
        self.system = system
        self.chat = chat_prompts(self.tokenizer, prompt_format, path)

    def text(self, prompt: str) -> str:
        """The model's input: the prompt in the chat template (`self.chat`), else the prompt
        itself (after the system prompt, when given)."""
        if self.chat:
            messages = [{"role": "system", "content": self.system}] if self.system else []
            messages.append({"role": "user", "content": prompt})
            return self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        return f"{self.system}\n\n{prompt}" if self.system else prompt

    def complete_batch(self, prompts: list[str]) -> list[Completion]:
        """One completion per prompt; finish_reason is "length" when the token budget ran out
        before a stop token, else "stop"."""
        start = time.monotonic()
        texts = [self.text(prompt) for prompt in prompts]
        batch = self.tokenizer(
            texts, return_tensors="pt", padding=True, add_special_tokens=not self.chat
        ).to(self.device)
        with self.torch.inference_mode():
            output = self.model.generate(
                **batch,
                max_new_tokens=self.max_tokens,
                pad_token_id=self.tokenizer.pad_token_id,
                **self.sampling,
            )
        width = batch["input_ids"].shape[1]
        latency = time.monotonic() - start
        completions = []
        for row, mask in zip(output[:, width:].tolist(), batch["attention_mask"], strict=True):
            end = next((i + 1 for i, token in enumerate(row) if token in self.stop_ids), None)
            tokens = row if end is None else row[:end]
            stopped = end is not None or len(row) < self.max_tokens
            prompt_tokens = int(mask.sum())
            completions.append(
                Completion(
                    response=self.tokenizer.decode(tokens, skip_special_tokens=True),
                    finish_reason="stop" if stopped else "length",
                    usage={
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": len(tokens),
                        "total_tokens": prompt_tokens + len(tokens),
                    },
                    latency_s=latency,
                    attempts=1,
                )
            )
        return completions

    def complete_in_batches(
        self,
        items: list[Item],
        prompt: Callable[[Item], str],
        record: Callable[[Item, Completion], None],
        stop: threading.Event,
        batch_size: int,
    ) -> None:
        """Answer the items' prompts in batches of `batch_size`, longest first, recording each
        answer (a batch that raises, e.g. out of memory, records the error for each item);
        nothing more is started once `stop` is set."""
        ordered = sorted(items, key=lambda item: len(prompt(item)), reverse=True)
        for start in range(0, len(ordered), batch_size):
            if stop.is_set():
                return
            batch = ordered[start : start + batch_size]
            try:
                completions = self.complete_batch([prompt(item) for item in batch])
            except Exception as error:  # noqa: BLE001 - e.g. out of memory: recorded
                completions = [failure(error)] * len(batch)
            for item, completion in zip(batch, completions, strict=True):
                record(item, completion)


def chat_prompts(tokenizer: Any, prompt_format: str | None, path: Path) -> bool:
    """Whether prompts go in the chat template: as `prompt_format` says ("chat" needs a
    template), else when the tokenizer has one (a model pretrained on plain text by `argc kg
    pretrain` has none)."""
    templated = bool(getattr(tokenizer, "chat_template", None))
    if prompt_format == "chat" and not templated:
        raise ValueError(f"the tokenizer in {path} has no chat template (--prompt-format chat)")
    return templated if prompt_format is None else prompt_format == "chat"


def load_local(args: argparse.Namespace, wanted: bool = True) -> LocalModel | None:
    """The model of --local with the options --max-tokens, --temperature, --top-p, --system
    and --prompt-format, torch's random generator seeded with --seed; None when not `wanted`
    (nothing to answer: the folder is checked, not loaded). ArgcError when it cannot be
    loaded."""
    if not args.local.is_dir():
        raise ArgcError(f"--local: not a model folder: {args.local}")
    if not wanted:
        return None
    try:
        model = LocalModel(
            args.local,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            top_p=args.top_p,
            system=args.system,
            prompt_format=getattr(args, "prompt_format", None),
        )
    except MissingBackend as error:
        raise ArgcError(f"--local: {error}") from None
    except (OSError, ValueError) as error:
        raise ArgcError(f"--local: cannot load {args.local}: {error}") from None
    model.torch.manual_seed(args.seed)
    return model
