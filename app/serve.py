"""`argc serve`: argc's checker and scorers as a JSON API over HTTP (the `serve` extra).

    GET  /api/health   {"status": "ok", "version": "argc X.Y.Z"}
    GET  /             the explorer page (argc/static: no script from elsewhere)
    POST /api/check    {"text", "language"?: "arg" | "kg" | "norm", "ordering"?, "set"?,
                        "comparison"?, "semantics"?, "explain"?: [literal, ...]}
                       -> the record `argc check --json --graph` prints ("file": "<text>");
                          400 {"error"} for a text that does not parse, 422 {"error",
                          "limit"} for an exceeded limit, 413 for a body over --max-body
    POST /api/score    {"instances": [record, ...], "predictions": [{"id", "response"}, ...]}
                       -> {"results": [{"id", "task", "native", "success", "reason"}, ...]
                           in instance order, "warnings": [...]}, as `argc score`
    POST /api/reward   TRL's shape {"completions": [...], "instance": [record, ...]} or
                       OpenRLHF's remote reward model {"query", "prompts", "labels"}
                       -> {"rewards": [...]} (and "scores" for OpenRLHF): native scores

A check runs the command line itself in a child process (its watchdog, memory cap and
limits; the server's limits are `argc check`'s defaults unless its flags tighten them), so a
hostile theory costs one child, never the server; answers are scored by argc's isolated
scoring workers (`argc.tasks.isolation`). docs/serving.md has a trainer on another machine
calling /api/reward.
"""

# No `from __future__ import annotations`: FastAPI reads the endpoints' annotations, which
# name classes imported inside `create_app` (fastapi is imported only when serving).
import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argc import __version__
from argc.compiler.control import Limits

#: The default cap on a request body.
MAX_BODY = 1 << 20
#: Seconds a check's child may run past its time limit (start-up, then its own watchdog).
CHILD_GRACE = 10.0
#: The suffix of a checked text's file, by language.
SUFFIXES = {"arg": ".arg", "kg": ".kg", "norm": ".norm"}
#: The explorer page's files (`argc/static`), with their media types; no script comes from
#: anywhere else, so the page works offline.
STATIC = {
    "explorer.html": "text/html",
    "explorer.js": "text/javascript",
    "explorer.css": "text/css",
}
#: The options of /api/check that become `argc check` flags.
CHECK_OPTIONS = {
    "ordering": "--ordering",
    "set": "--set",
    "comparison": "--comparison",
    "semantics": "--semantics",
}

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class ServeSettings:
    """What a server allows: request bodies, and each check's time and argument limits."""

    max_body: int = MAX_BODY
    time_limit: float = 60.0
    max_arguments: int = Limits.arguments
    #: Checks run at once by one server process (each in a child process).
    concurrent_checks: int = os.cpu_count() or 1


class BodyLimit:
    """ASGI middleware: 413 for a body over `max_body` bytes, answered as soon as the
    declared length or the bytes received pass it, before the application sees any of it
    (the body is read here, at most `max_body` bytes, then handed on whole)."""

    def __init__(self, app: Any, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            await _too_large(send, self.max_body)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await _too_large(send, self.max_body)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        handed = False

        async def replay() -> dict[str, Any]:
            nonlocal handed
            if handed:
                return await receive()
            handed = True
            return whole

        await self.app(scope, replay, send)


async def _too_large(send: Send, max_body: int) -> None:
    body = json.dumps({"error": f"the request body is over {max_body:,} bytes"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})


def create_app(settings: ServeSettings = ServeSettings()) -> Any:
    """The API as an ASGI application."""
    from fastapi import FastAPI, Request
    from fastapi.responses import HTMLResponse, JSONResponse, Response

    api = FastAPI(title="argc", version=__version__, docs_url=None, redoc_url=None)
    checks = asyncio.Semaphore(settings.concurrent_checks)

    async def answered(request: Request, work: Callable[[dict], Any]) -> JSONResponse:
        """The JSON answer of `work` on the request's body, run off the event loop; 400
        for a body that is not a JSON object or that `work` refuses (ValueError)."""
        try:
            body = json.loads(await request.body())
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            return JSONResponse({"error": f"the body is not JSON: {error}"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body must be a JSON object"}, status_code=400)
        try:
            found = (
                await work(body)
                if asyncio.iscoroutinefunction(work)
                else await asyncio.to_thread(work, body)
            )
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        return found if isinstance(found, JSONResponse) else JSONResponse(found)

    @api.get("/")
    async def explorer() -> HTMLResponse:
        return HTMLResponse(_static("explorer.html"))

    @api.get("/static/{name}")
    async def static(name: str) -> Response:
        if name not in STATIC:
            return JSONResponse({"error": f"no file {name}"}, status_code=404)
        return Response(_static(name), media_type=STATIC[name])

    @api.get("/api/health")
    async def health() -> dict[str, str]:
        return {"status": "ok", "version": f"argc {__version__}"}

    async def checked(body: dict) -> JSONResponse:
        command = check_command(body, settings)
        async with checks:
            language, seconds = body.get("language", "arg"), settings.time_limit + CHILD_GRACE
            status, record = await run_check(body["text"], language, command, seconds)
        return JSONResponse(record, status_code=status)

    @api.post("/api/check")
    async def check(request: Request) -> JSONResponse:
        return await answered(request, checked)

    @api.post("/api/score")
    async def score(request: Request) -> JSONResponse:
        return await answered(request, score_request)

    @api.post("/api/reward")
    async def reward(request: Request) -> JSONResponse:
        return await answered(request, reward_request)

    return BodyLimit(api, settings.max_body)


# -- /api/check ---------------------------------------------------------------------------


def check_command(body: dict[str, Any], settings: ServeSettings) -> list[str]:
    """The `argc` arguments that check the body's text (its file name appended later);
    ValueError naming a bad field."""
    if not isinstance(body.get("text"), str):
        raise ValueError('"text" must be a string: the theory or world')
    language = body.get("language", "arg")
    if language not in SUFFIXES:
        raise ValueError(f'"language" must be one of {", ".join(SUFFIXES)}')
    limits = ["--time-limit", str(settings.time_limit)]
    if language == "norm":
        return ["norms", "solve", "--json", *limits]
    command = ["check", "--json", *limits, "--max-arguments", str(settings.max_arguments)]
    if language == "arg":
        command.append("--graph")
        for field, flag in CHECK_OPTIONS.items():
            value = body.get(field)
            if value is not None:
                if not isinstance(value, str):
                    raise ValueError(f'"{field}" must be a string')
                command += [flag, value]
        explained = body.get("explain", [])
        if not isinstance(explained, list) or not all(isinstance(x, str) for x in explained):
            raise ValueError('"explain" must be a list of literals')
        command += [f"--explain={literal}" for literal in explained]
    return command


async def run_check(
    text: str, language: str, command: list[str], seconds: float
) -> tuple[int, dict]:
    """Check `text` with `argc COMMAND FILE` in a child process, killed past `seconds`:
    (HTTP status, record)."""
    with tempfile.TemporaryDirectory(prefix="argc-serve-") as folder:
        path = Path(folder) / f"text{SUFFIXES[language]}"
        path.write_text(text, encoding="utf-8")
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "argc.cli",
            *command,
            str(path),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(child.communicate(), seconds)
        except TimeoutError:
            child.kill()
            await child.wait()
            return 422, {"error": f"no answer within {seconds:g} s", "limit": "time"}
    shown = str(path)
    stdout = out.decode("utf-8", "replace").replace(shown, "<text>")
    stderr = err.decode("utf-8", "replace").replace(shown, "<text>").strip()
    record = _last_record(stdout)
    if child.returncode in (0, 1) and record is not None and "error" not in record:
        return 200, record
    lines = stderr.splitlines()
    message = (record or {}).get("error") or (lines[-1] if lines else "the check failed")
    if record is not None and "limit" in record:
        return 422, {"error": message, "limit": record["limit"]}
    return 400, {"error": message}


def _static(name: str) -> str:
    from importlib.resources import files

    return files("argc").joinpath("static", name).read_text(encoding="utf-8")


def _last_record(stdout: str) -> dict | None:
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        record = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None


# -- /api/score and /api/reward -------------------------------------------------------------


def _instances(records: Any, field: str) -> list[Any]:
    from argc.tasks import Instance

    if not isinstance(records, list):
        raise ValueError(f'"{field}" must be a list of instance records')
    found = []
    for index, record in enumerate(records):
        try:
            found.append(
                Instance.from_record(json.loads(record) if isinstance(record, str) else record)
            )
        except (TypeError, KeyError, ValueError) as error:
            raise ValueError(f'"{field}"[{index}] is not an instance record: {error}') from None
    return found


def score_request(body: dict[str, Any]) -> dict[str, Any]:
    """`argc score` over the body's instances and predictions: its result rows in instance
    order and its warnings."""
    from argc.tasks.cli import coverage_warnings, prediction_rows, scored

    instances = _instances(body.get("instances"), "instances")
    if not isinstance(body.get("predictions"), list):
        raise ValueError('"predictions" must be a list of {"id", "response"} objects')
    predictions, warnings = prediction_rows(body["predictions"])
    warnings += coverage_warnings(instances, predictions)
    rows, _ = scored(instances, predictions)
    return {"results": [json.loads(row) for row in rows], "warnings": warnings}


def reward_request(body: dict[str, Any]) -> dict[str, Any]:
    """Native scores of completions, each against its instance: TRL's reward-function
    columns, or OpenRLHF's remote reward model request (`labels` the instance records,
    each `query` its prompt followed by the completion)."""
    from argc.tasks.isolation import default_scorer

    if "query" in body:
        queries, prompts = body.get("query"), body.get("prompts")
        if not (_strings(queries) and _strings(prompts) and len(queries) == len(prompts)):
            raise ValueError('"query" and "prompts" must be lists of strings of one length')
        completions = [
            query[len(prompt) :] if query.startswith(prompt) else query
            for query, prompt in zip(queries, prompts, strict=True)
        ]
        instances = _instances(body.get("labels"), "labels")
    else:
        completions = [_text(c) for c in body.get("completions") or []]
        instances = _instances(body.get("instance"), "instance")
    if len(completions) != len(instances):
        raise ValueError(f"{len(completions)} completions for {len(instances)} instances")
    scores = default_scorer().score_many(list(zip(instances, completions, strict=True)))
    rewards = [round(result.native, 6) for result in scores]
    return {"rewards": rewards, "scores": rewards} if "query" in body else {"rewards": rewards}


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _text(completion: Any) -> str:
    """A completion as text: a string, or chat messages (the last assistant content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    raise ValueError("a completion must be a string or a list of chat messages")


# -- the command ---------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction) -> None:
    """Add `serve` to the `argc` command line."""
    from argc.options import positive_int, seconds

    serve = commands.add_parser(
        "serve",
        help="argc's checker and scorers as a JSON API over HTTP",
        description=__doc__.split("\n\n")[0],
    )
    serve.add_argument("--host", default="127.0.0.1", help="loopback unless told")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=positive_int, default=1, metavar="N")
    serve.add_argument("--max-body", type=positive_int, default=MAX_BODY, metavar="BYTES")
    serve.add_argument("--time-limit", type=seconds, default=60.0, metavar="SECONDS")
    serve.add_argument("--max-arguments", type=positive_int, default=Limits.arguments, metavar="N")
    serve.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ModuleNotFoundError as error:
        print(
            f"argc serve: {error.name} is not installed; install the serve extra"
            " (pip install 'argc[serve]')",
            file=sys.stderr,
        )
        return 2
    settings = ServeSettings(
        max_body=args.max_body,
        time_limit=min(args.time_limit, 60.0),
        max_arguments=min(args.max_arguments, Limits.arguments),
    )
    os.environ["ARGC_SERVE_SETTINGS"] = json.dumps(settings.__dict__)
    uvicorn.run(
        "argc.serve:app_from_environment",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="warning",
    )
    return 0


@contextmanager
def running(*flags: str, seconds: float = 120.0) -> Iterator[tuple[str, subprocess.Popen]]:
    """`argc serve FLAGS` in a child process on a free loopback port for the block: its URL,
    once /api/health answers, and the process (stopped at the end)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "argc.cli", "serve", "--port", str(port), *flags]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/health", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"argc serve did not start: {' '.join(command)}") from None
                time.sleep(0.1)
        yield url, server
    finally:
        server.terminate()
        server.wait(timeout=60)


def app_from_environment() -> Any:
    """The application of `argc serve` in each of its worker processes."""
    return create_app(ServeSettings(**json.loads(os.environ.get("ARGC_SERVE_SETTINGS", "{}"))))
