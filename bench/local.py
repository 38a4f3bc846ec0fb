"""A local backend: batched generation with a Hugging Face transformers model folder.
torch and transformers are optional; they are imported when a model is loaded."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from argc.bench.endpoint import Completion


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

    def text(self, prompt: str) -> str:
        """The model's input: the chat template applied when the tokenizer has one, else the
        prompt itself (after the system prompt, when given)."""
        if getattr(self.tokenizer, "chat_template", None):
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
        templated = bool(getattr(self.tokenizer, "chat_template", None))
        batch = self.tokenizer(
            texts, return_tensors="pt", padding=True, add_special_tokens=not templated
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
