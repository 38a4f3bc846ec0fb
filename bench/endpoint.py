"""A client for OpenAI-compatible chat endpoints (`POST {base}/chat/completions`), over the
standard library, with retries: exponential backoff with jitter on connection errors,
timeouts, 429 and 5xx, honouring a sound Retry-After; other 4xx fail at once. Each attempt
has a total deadline (connecting, waiting and reading the whole reply) and a cap on the
reply's size."""

from __future__ import annotations

import http.client
import json
import math
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

#: The first backoff delay and its cap, in seconds (each retry doubles it, times a jitter
#: factor in [0.5, 1]).
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0
#: The longest Retry-After that is honoured, in seconds (a longer one falls back to backoff).
RETRY_AFTER_MAX_S = 300.0
#: The largest reply read by default, in bytes; a larger one fails its attempt (not retried).
MAX_REPLY_BYTES = 8 * 1024 * 1024
#: The most of an error reply that is read (for the excerpt recorded with the error).
ERROR_BODY_BYTES = 64 * 1024
#: Bytes read at a time.
CHUNK_BYTES = 64 * 1024
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
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.system = system
        self.params = dict(params or {})
        self.timeout = timeout
        self.retries = retries
        self.max_reply_bytes = max_reply_bytes
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
        """One attempt: the reply's JSON, or RequestFailed."""
        request = urllib.request.Request(self.url, data=data, headers=self.headers, method="POST")
        with Deadline(self.timeout) as deadline:
            try:
                with _opener(deadline).open(request, timeout=self.timeout) as answer:
                    raw = read_capped(answer, self.max_reply_bytes)
            except urllib.error.HTTPError as error:
                raise _http_failure(error) from None
            except (OSError, http.client.HTTPException) as error:
                if deadline.passed:
                    raise deadline.failure() from None
                reason = getattr(error, "reason", None) or repr(error)
                raise RequestFailed(f"request failed: {reason}", retryable=True) from None
            if deadline.passed:  # the reply may have been cut short
                raise deadline.failure()
        try:
            return json.loads(raw.decode("utf-8", errors="replace"))
        except json.JSONDecodeError:
            raise RequestFailed(f"reply is not JSON: {_excerpt(raw)}", retryable=True) from None


class Deadline:
    """A total time limit on one attempt: when it passes, the attempt's sockets are shut down,
    which ends any read or write in progress (socket timeouts alone limit each read, so a
    server trickling bytes would hold a request forever)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.passed = False
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.timer = threading.Timer(seconds, self._expire)
        self.timer.daemon = True

    def __enter__(self) -> Deadline:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()

    def watch(self, connection: socket.socket) -> None:
        """Shut `connection` down when the deadline passes (at once if it has)."""
        with self.lock:
            self.sockets.append(connection)
            if self.passed:
                _shut(connection)

    def failure(self) -> RequestFailed:
        return RequestFailed(
            f"no complete reply within {self.seconds:g} s (--timeout)", retryable=True
        )

    def _expire(self) -> None:
        with self.lock:
            self.passed = True
            for connection in self.sockets:
                _shut(connection)


def _shut(connection: socket.socket) -> None:
    with suppress(OSError):  # the plain socket's shutdown, under TLS too
        socket.socket.shutdown(connection, socket.SHUT_RDWR)


class _Watched:
    """A handler mixin whose connections report their socket to a Deadline."""

    def __init__(self, deadline: Deadline):
        super().__init__()
        self.deadline = deadline

    def do_open(self, http_class: type[http.client.HTTPConnection], request: Any, **kwargs: Any):
        deadline = self.deadline

        class Connection(http_class):
            def connect(self) -> None:
                create = self._create_connection

                def created(*args: Any, **kwargs: Any) -> socket.socket:
                    made = create(*args, **kwargs)
                    deadline.watch(made)  # the TLS handshake and a proxy tunnel too
                    return made

                self._create_connection = created
                super().connect()
                deadline.watch(self.sock)

        return super().do_open(Connection, request, **kwargs)


class _WatchedHTTP(_Watched, urllib.request.HTTPHandler):
    pass


class _WatchedHTTPS(_Watched, urllib.request.HTTPSHandler):
    pass


def _opener(deadline: Deadline) -> urllib.request.OpenerDirector:
    """An opener (proxies and redirects as usual) whose connections the deadline can end."""
    return urllib.request.build_opener(_WatchedHTTP(deadline), _WatchedHTTPS(deadline))


def read_capped(answer: Any, limit: int) -> bytes:
    """A reply's body, read in chunks; RequestFailed (not retryable) once it exceeds `limit`
    bytes, or at once when its Content-Length says it will."""
    declared = answer.headers.get("Content-Length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise _too_large(limit, f"{int(declared)} bytes")
    chunks, size = [], 0
    while chunk := answer.read(CHUNK_BYTES):
        size += len(chunk)
        if size > limit:
            raise _too_large(limit, "more")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int, size: str) -> RequestFailed:
    return RequestFailed(
        f"reply too large: {size} than the limit of {limit} bytes (--max-reply-bytes)",
        retryable=False,
    )


def _http_failure(error: urllib.error.HTTPError) -> RequestFailed:
    """The failure of an HTTP error status: 429 and 5xx are retryable (after Retry-After when
    the server gives a sound one)."""
    status = error.code
    detail = _excerpt(_read(error))
    retryable = status == 429 or status >= 500
    after = retry_after(error.headers.get("Retry-After")) if retryable else None
    return RequestFailed(f"HTTP {status}: {detail}", retryable, after)


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
    """Seconds to wait from a Retry-After header (delay seconds or an HTTP date), or None when
    it is missing, unreadable, not finite, negative, in the past or longer than
    RETRY_AFTER_MAX_S: the backoff policy applies then."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError, OSError):
            return None
    if not math.isfinite(seconds) or not 0 <= seconds <= RETRY_AFTER_MAX_S:
        return None
    return seconds


def backoff(attempt: int, after: float | None = None) -> float:
    """The wait before the next attempt: the server's Retry-After when given, else the
    doubling delay with jitter."""
    if after is not None:
        return after
    delay = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
    return delay * random.uniform(0.5, 1.0)


def _read(error: urllib.error.HTTPError) -> bytes:
    """The start of an error reply's body (b"" when it cannot be read)."""
    try:
        return error.read(ERROR_BODY_BYTES)
    except (OSError, http.client.HTTPException):
        return b""


def _excerpt(raw: bytes, limit: int = 300) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= limit else text[:limit] + "..."
