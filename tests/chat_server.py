"""A fake OpenAI-compatible chat endpoint for tests: answers POST /v1/chat/completions on
127.0.0.1 with a policy (prompt -> (content, finish_reason)), can fail the first requests,
trickle its replies, pad them or leave their length undeclared, and records every request."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Policy = Callable[[str], tuple[str | None, str | None]]


class ChatServer:
    """Use as a context manager; `url` is the base URL (ending in /v1). The first
    `fail_first` requests get `fail_status` (with `retry_after` as Retry-After when given);
    `status`, when set, answers every request with that error instead. A successful reply is
    sent one byte every `trickle` seconds when set, carries `padding` extra bytes, and declares
    no Content-Length (the connection's end ends it) unless `declare_length`. With `api_key`,
    a request without the header `Authorization: Bearer API_KEY` gets 401."""

    def __init__(
        self,
        policy: Policy,
        *,
        fail_first: int = 0,
        fail_status: int = 500,
        retry_after: str | None = None,
        status: int | None = None,
        trickle: float | None = None,
        padding: int = 0,
        declare_length: bool = True,
        api_key: str | None = None,
    ):
        self.policy = policy
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.retry_after = retry_after
        self.status = status
        self.trickle = trickle
        self.padding = padding
        self.declare_length = declare_length
        self.api_key = api_key
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None  # clients that hung up
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def prompts(self) -> list[str]:
        """The user message of every request received, in order."""
        return [body["messages"][-1]["content"] for body in self.bodies]

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def _reply(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any, dict]:
        with self.lock:
            self.bodies.append(body)
            self.headers.append(headers)
            number = len(self.bodies)
        if self.api_key is not None and headers.get("Authorization") != f"Bearer {self.api_key}":
            return 401, {"error": {"message": "invalid API key"}}, {}
        if self.status is not None:
            return self.status, {"error": {"message": "rejected", "code": self.status}}, {}
        if number <= self.fail_first:
            extra = {"Retry-After": self.retry_after} if self.retry_after is not None else {}
            return self.fail_status, {"error": {"message": "try again later"}}, extra
        prompt = body["messages"][-1]["content"]
        content, finish_reason = self.policy(prompt)
        reply = {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": content,
                        "reasoning_content": "Let me think.",
                    },
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": len(prompt.split()),
                "completion_tokens": len((content or "").split()),
                "total_tokens": len(prompt.split()) + len((content or "").split()),
            },
        }
        if self.padding:
            reply["padding"] = "x" * self.padding
        return 200, reply, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server interface
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                self._send(*server._reply(body, dict(self.headers.items())))

            def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                ok = status == 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if server.declare_length or not ok:
                    self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if not (ok and server.trickle):
                    self.wfile.write(data)
                    return
                for index in range(len(data)):
                    self.wfile.write(data[index : index + 1])
                    self.wfile.flush()
                    time.sleep(server.trickle)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
