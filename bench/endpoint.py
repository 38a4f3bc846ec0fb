"""A client for OpenAI-compatible chat endpoints (`POST {base}/chat/completions`), over the
standard library, with retries: exponential backoff with jitter on connection errors,
timeouts, 429 and 5xx, honouring Retry-After; other 4xx fail at once."""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

#: The first backoff delay and its cap, in seconds (each retry doubles it, times a jitter
#: factor in [0.5, 1]).
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0
#: The longest Retry-After that is honoured as given, in seconds.
RETRY_AFTER_MAX_S = 300.0
#: An answer parsed from a reply: (content, finish_reason, usage).
Reply = tuple[str, str | None, dict[str, int | None] | None]


@dataclass(frozen=True)
class Completion:
    """A model's answer to one prompt, or the error that stopped it."""

    response: str
    finish_reason: str | None
    usage: dict[str, int | None] | None
    latency_s: float
    attempts: int
    error: str | None = None


class RequestFailed(Exception):
    """One attempt failed; `retryable` says whether another attempt may succeed."""

    def __init__(self, message: str, retryable: bool, retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class ChatClient:
    """Chat completions for single prompts; safe to share between threads."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        system: str | None = None,
        params: dict[str, Any] | None = None,
        timeout: float = 600.0,
        retries: int = 5,
    ):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.system = system
        self.params = dict(params or {})
        self.timeout = timeout
        self.retries = retries
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key is not None:
            self.headers["Authorization"] = f"Bearer {api_key}"

    def body(self, prompt: str) -> dict[str, Any]:
        """The request body: model, messages, then the sampling parameters and extra fields."""
        messages = [{"role": "system", "content": self.system}] if self.system else []
        messages.append({"role": "user", "content": prompt})
        return {"model": self.model, "messages": messages, **self.params}

    def complete(self, prompt: str) -> Completion:
        """The completion of `prompt`, retried as the policy allows; never raises on failure of
        the endpoint (the Completion carries the error)."""
        return self.request(self.body(prompt), lambda reply: [parse_reply(reply)])[0]

    def request(
        self, body: dict[str, Any], parse: Callable[[Any], list[Reply]]
    ) -> list[Completion]:
        """POST `body`, retried as the policy allows: a Completion for each answer `parse` finds
        in the reply, or one carrying the error when the request failed after its retries."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        start = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            try:
                answers = parse(self._post(data))
            except RequestFailed as failure:
                if not failure.retryable or attempts > self.retries:
                    elapsed = time.monotonic() - start
                    return [Completion("", None, None, elapsed, attempts, str(failure))]
                time.sleep(backoff(attempts, failure.retry_after))
                continue
            latency = time.monotonic() - start
            return [Completion(*answer, latency, attempts) for answer in answers]

    def _post(self, data: bytes) -> Any:
        request = urllib.request.Request(self.url, data=data, headers=self.headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                raw = answer.read()
        except urllib.error.HTTPError as error:
            status = error.code
            detail = _excerpt(_read(error))
            retryable = status == 429 or status >= 500
            after = retry_after(error.headers.get("Retry-After")) if retryable else None
            raise RequestFailed(f"HTTP {status}: {detail}", retryable, after) from None
        except (OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", None) or repr(error)
            raise RequestFailed(f"request failed: {reason}", retryable=True) from None
        try:
            return json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            raise RequestFailed(f"reply is not JSON: {_excerpt(raw)}", retryable=True) from None


def failure(error: BaseException) -> Completion:
    """The Completion of a request that raised `error` (recorded; the run goes on)."""
    return Completion("", None, None, 0.0, 1, f"{type(error).__name__}: {error}")


def parse_reply(reply: Any) -> Reply:
    """(content, finish_reason, usage) of a chat completion's first choice, tolerating
    missing fields, null content and content given as a list of parts; reasoning fields
    are ignored. A reply without choices (an error object) is a retryable failure."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = reply.get("error") if isinstance(reply, dict) else None
        detail = json.dumps(error if error is not None else reply)[:500]
        raise RequestFailed(f"reply has no choices: {detail}", retryable=True)
    choice = choices[0]
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else choice.get("text")
    finish_reason = choice.get("finish_reason")
    return (
        _text(content),
        finish_reason if isinstance(finish_reason, str) else None,
        _usage(reply.get("usage")),
    )


def parse_choices(reply: Any) -> list[Reply]:
    """`parse_reply` of each of the reply's choices, in index order (a request with `n` may get
    several); a reply without choices is the same retryable failure."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    found = [c for c in choices if isinstance(c, dict)] if isinstance(choices, list) else []
    if not found:
        parse_reply(reply)  # raises the retryable "no choices" failure
    found.sort(key=lambda choice: _index(choice.get("index")))
    return [parse_reply({**reply, "choices": [choice]}) for choice in found]


def _index(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text") or "" if isinstance(part, dict) else str(part) for part in content
        )
    return ""


def _usage(usage: Any) -> dict[str, int | None] | None:
    if not isinstance(usage, dict):
        return None
    counts = {
        key: value if isinstance(value, int) and not isinstance(value, bool) else None
        for key in ("prompt_tokens", "completion_tokens")
        for value in [usage.get(key)]
    }
    total = usage.get("total_tokens")
    if not isinstance(total, int) or isinstance(total, bool):
        prompt, completion = counts["prompt_tokens"], counts["completion_tokens"]
        total = prompt + completion if prompt is not None and completion is not None else None
    return {**counts, "total_tokens": total}


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date), or None."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            return None
    return min(max(seconds, 0.0), RETRY_AFTER_MAX_S)


def backoff(attempt: int, after: float | None = None) -> float:
    """The wait before the next attempt: the server's Retry-After when given, else the
    doubling delay with jitter."""
    if after is not None:
        return after
    delay = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
    return delay * random.uniform(0.5, 1.0)


def _read(error: urllib.error.HTTPError) -> bytes:
    try:
        return error.read()
    except (OSError, http.client.HTTPException):
        return b""


def _excerpt(raw: bytes, limit: int = 300) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else text[:limit] + "..."
