"""`argc eval` against a fake chat endpoint (and a tiny local model): scoring, records,
retries, errors, resume, torn lines, interrupts, request bodies and keys."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from chat_server import ChatServer
from eval_helpers import (
    CHAT_TEMPLATE,
    fast_backoff,  # noqa: F401 - an autouse fixture
    no_ambient_key,  # noqa: F401 - an autouse fixture
    tiny_model,
    write_instances,
)
from margins import GRACE

from argc.bench import endpoint, evaluate
from argc.dsl.ir import Ordering
from argc.tasks import framework, generate
from argc.tasks.framework import load_tasks

RECORD_KEYS = {
    "id",
    "task",
    "level",
    "ordering",
    "set",
    "model",
    "request",
    "response",
    "finish_reason",
    "usage",
    "latency_s",
    "attempts",
    "error",
    "native",
    "success",
    "reason",
    "has_answer",
    "details",
}


@pytest.fixture(scope="module")
def instances():
    """Eight cheap instances: two tasks, two levels, two orderings."""
    return [
        generate(task, level, Ordering(principle, "elitist"), seed)
        for task in ("status_query", "attack")
        for level in (1, 2)
        for seed, principle in enumerate(("last-link", "weakest-link"))
    ]


@pytest.fixture
def instance_file(instances, tmp_path: Path) -> Path:
    return write_instances(instances, tmp_path)


def reference_policy(instances):
    answers = {
        instance.prompt: f"<answer>\n{instance.reference}\n</answer>" for instance in instances
    }
    return lambda prompt: (answers[prompt], "stop")


def run_eval(*argv: object) -> int:
    parser = argparse.ArgumentParser()
    evaluate.register(parser.add_subparsers())
    args = parser.parse_args(["eval", *(str(arg) for arg in argv)])
    return args.handler(args)


def read_run(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    for line, record in zip(lines, records, strict=True):
        assert line == json.dumps(record, sort_keys=True, ensure_ascii=False)
    return records


def eval_against(server: ChatServer, instance_file: Path, out: Path, *extra: object) -> int:
    return run_eval(instance_file, "--out", out, "--base-url", server.url, "--model", "m", *extra)


def test_reference_answers_all_succeed(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out, "--concurrency", 4) == 0
    records = read_run(out)
    assert sorted(record["id"] for record in records) == sorted(i.id for i in instances)
    by_id = {instance.id: instance for instance in instances}
    for record in records:
        instance = by_id[record["id"]]
        assert set(record) == RECORD_KEYS
        assert record["success"] and record["native"] == 1.0 and record["has_answer"]
        assert (record["task"], record["level"], record["ordering"], record["set"]) == (
            instance.task,
            instance.level,
            instance.ordering,
            instance.set,
        )
        assert record["model"] == "m" and record["finish_reason"] == "stop"
        assert record["attempts"] == 1 and record["error"] is None
        assert record["response"] == f"<answer>\n{instance.reference}\n</answer>"
        usage = record["usage"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    body = server.bodies[0]
    defaults = {"max_tokens": evaluate.DEFAULT_MAX_TOKENS, "temperature": 1.0}
    assert {key: body[key] for key in body if key != "messages"} == {"model": "m", **defaults}
    request = {"backend": "endpoint", "system": None, **defaults}
    assert all(record["request"] == request for record in records)
    assert sorted(server.prompts()) == sorted(instance.prompt for instance in instances)


def test_garbage_and_null_content_score_zero(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    replies = iter([("I am not sure.", "stop"), (None, None)] * len(instances))
    with ChatServer(lambda prompt: next(replies)) as server:
        assert eval_against(server, instance_file, out, "--concurrency", 1) == 0
    records = read_run(out)
    assert len(records) == len(instances)
    assert not any(record["success"] or record["has_answer"] for record in records)
    assert all(record["native"] == 0.0 for record in records)
    assert {record["response"] for record in records} == {"I am not sure.", ""}
    assert {record["finish_reason"] for record in records} == {"stop", None}


def test_truncated_answers_keep_finish_reason_length(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    full = reference_policy(instances)

    def cut(prompt: str) -> tuple[str, str]:
        text, _ = full(prompt)
        return text[: len(text) // 2], "length"

    with ChatServer(cut) as server:
        assert eval_against(server, instance_file, out) == 0
    records = read_run(out)
    assert len(records) == len(instances)
    assert all(record["finish_reason"] == "length" for record in records)
    assert not any(record["success"] for record in records)


def test_transient_server_errors_are_retried(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances), fail_first=3, fail_status=503) as server:
        assert eval_against(server, instance_file, out, "--concurrency", 1, "--retries", 3) == 0
    records = read_run(out)
    assert [record["attempts"] for record in records] == [4] + [1] * (len(instances) - 1)
    assert all(record["success"] and record["error"] is None for record in records)
    assert len(server.bodies) == len(instances) + 3


def test_rate_limits_honour_retry_after(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    policy = reference_policy(instances)
    with ChatServer(policy, fail_first=1, fail_status=429, retry_after="1") as server:
        assert eval_against(server, instance_file, out, "--concurrency", 1, "--limit", 1) == 0
    (record,) = read_run(out)
    assert record["attempts"] == 2 and record["success"]
    assert record["latency_s"] >= 1.0  # the backoff alone would have waited 0.01 s


def test_retries_run_out_into_an_error_record(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances), fail_first=100) as server:
        rc = eval_against(server, instance_file, out, "--limit", 2, "--retries", 2)
    assert rc == 1
    records = read_run(out)
    assert len(records) == 2 and len(server.bodies) == 6
    for record in records:
        assert record["attempts"] == 3 and record["error"].startswith("HTTP 500")
        assert record["response"] == "" and record["success"] is False


def test_unreachable_server_is_recorded_as_an_error(instance_file, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "run.jsonl"
    url = f"http://127.0.0.1:{port}/v1"
    rc = run_eval(instance_file, "--out", out, "--base-url", url, "--model", "m", "--limit", 1)
    assert rc == 1
    (record,) = read_run(out)
    assert record["error"].startswith("request failed") and record["attempts"] == 6


def test_client_errors_fail_at_once_and_retry_errors_reruns_them(
    instances, instance_file, tmp_path
):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances), status=400) as server:
        assert eval_against(server, instance_file, out) == 1
    assert len(server.bodies) == len(instances)
    records = read_run(out)
    for record in records:
        assert record["attempts"] == 1 and record["error"].startswith("HTTP 400")
        assert record["response"] == "" and record["native"] == 0.0 and not record["success"]
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out) == 0  # already recorded: nothing sent
        assert server.bodies == []
        assert eval_against(server, instance_file, out, "--retry-errors") == 0
        assert len(server.bodies) == len(instances)
    records = read_run(out)
    assert sorted(record["id"] for record in records) == sorted(i.id for i in instances)
    assert all(record["success"] and record["error"] is None for record in records)


def test_resume_skips_answered_instances(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out, "--limit", 3) == 0
    assert len(read_run(out)) == 3
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out) == 0
    assert sorted(server.prompts()) == sorted(instance.prompt for instance in instances[3:])
    ids = [record["id"] for record in read_run(out)]
    assert len(ids) == len(set(ids)) and set(ids) == {instance.id for instance in instances}


def test_torn_last_line_is_dropped_and_rerun(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out, "--limit", 3) == 0
        answered = {record["id"] for record in read_run(out)}
        torn = json.dumps({"id": instances[5].id, "response": "cut here"})[:-7]
        with open(out, "a") as sink:
            sink.write(torn)
        assert eval_against(server, instance_file, out) == 0
    ids = [record["id"] for record in read_run(out)]
    assert len(ids) == len(instances) == len(set(ids))
    assert answered < set(ids)


def test_a_bad_line_inside_the_run_file_is_refused(instances, instance_file, tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    out.write_text('{"id": "x"}\nnot json\n{"id": "y"}\n')
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out) == 2
    assert server.bodies == []
    assert "not a run record" in capsys.readouterr().err


def test_interrupt_keeps_what_was_answered(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    answer = reference_policy(instances)
    seen = []

    def interrupt_on_second(prompt: str) -> tuple[str, str]:
        seen.append(prompt)
        if len(seen) == 2:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)  # the request is in flight when Ctrl-C arrives
        return answer(prompt)

    with ChatServer(interrupt_on_second) as server:
        assert eval_against(server, instance_file, out, "--concurrency", 1) == 130
        assert len(server.bodies) == 2
        assert [record["id"] for record in read_run(out)] == [i.id for i in instances[:2]]
        assert eval_against(server, instance_file, out) == 0
    ids = [record["id"] for record in read_run(out)]
    assert len(ids) == len(instances) == len(set(ids))


def test_api_key_is_sent_as_bearer(instances, instance_file, tmp_path, monkeypatch):
    monkeypatch.setenv("ARGC_TEST_KEY", "sk-test")
    monkeypatch.delenv("ARGC_MISSING_KEY", raising=False)
    with ChatServer(reference_policy(instances)) as server:
        out = tmp_path / "keyed.jsonl"
        assert eval_against(server, instance_file, out, "--limit", 1) == 0
        assert "Authorization" not in server.headers[-1]
        rc = eval_against(
            server, instance_file, out, "--limit", 2, "--api-key-env", "ARGC_TEST_KEY"
        )
        assert rc == 0
        assert server.headers[-1]["Authorization"] == "Bearer sk-test"
        rc = eval_against(
            server, instance_file, tmp_path / "other.jsonl", "--api-key-env", "ARGC_MISSING_KEY"
        )
        assert rc == 2
        assert len(server.bodies) == 2


def test_request_body_carries_the_options(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    options = (
        "--system",
        "Be brief.",
        "--max-tokens",
        64,
        "--temperature",
        0.5,
        "--top-p",
        0.9,
        "--reasoning-effort",
        "low",
        "--extra-body",
        '{"seed": 7, "temperature": 0.2}',
        "--limit",
        1,
    )
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out, *options) == 0
    (body,) = server.bodies
    assert body == {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": instances[0].prompt},
        ],
        "max_tokens": 64,
        "temperature": 0.2,
        "top_p": 0.9,
        "reasoning_effort": "low",
        "seed": 7,
    }


def test_benchmark_folder_and_bad_options(instances, instance_file, tmp_path, capsys):
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "rows.jsonl").write_text(instance_file.read_text())
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances)) as server:
        assert run_eval(folder, "--out", out, "--base-url", server.url, "--model", "m") == 0
        assert len(read_run(out)) == len(instances)
        assert run_eval(folder, "--out", out, "--base-url", server.url) == 2
        assert eval_against(server, folder, out, "--extra-body", "[1]") == 2
        for option, value in (("--concurrency", 0), ("--timeout", "nan"), ("--top-p", 2)):
            with pytest.raises(SystemExit) as exit_code:
                eval_against(server, folder, out, option, value)
            assert exit_code.value.code == 2
        assert eval_against(server, tmp_path / "absent.jsonl", out) == 2
        other = ("--model", "other")
        assert run_eval(folder, "--out", out, "--base-url", server.url, *other) == 2
    err = capsys.readouterr().err
    assert "--model is required" in err and "another model (m)" in err
    assert "Traceback" not in err


def test_parse_reply_tolerates_odd_json():
    parse = endpoint.parse_reply
    assert parse({"choices": [{"message": {"content": None}}]}) == ("", None, None)
    parts = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert parse({"choices": [{"message": parts, "finish_reason": "stop"}]})[:2] == ("ab", "stop")
    assert parse({"choices": [{"text": "legacy", "finish_reason": "length"}]})[:2] == (
        "legacy",
        "length",
    )
    usage = {"prompt_tokens": 3, "completion_tokens": 4}
    assert parse({"choices": [{"message": {"content": "x"}}], "usage": usage})[2] == {
        "prompt_tokens": 3,
        "completion_tokens": 4,
        "total_tokens": 7,
    }
    for reply in ({}, {"error": {"message": "overloaded"}}, [], {"choices": []}):
        with pytest.raises(endpoint.RequestFailed) as failure:
            parse(reply)
        assert failure.value.retryable
    assert endpoint.retry_after("2") == 2.0
    assert endpoint.retry_after(" 0 ") == 0.0
    for unsound in ("soon", "nan", "inf", "-inf", "-5", "1e308", "301", "", None):
        assert endpoint.retry_after(unsound) is None
    assert endpoint.retry_after("Wed, 21 Oct 2015 07:28:00 GMT") is None  # in the past


def test_local_backend_needs_torch(instance_file, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)
    out = tmp_path / "run.jsonl"
    assert run_eval(instance_file, "--out", out, "--local", tmp_path) == 2
    assert "torch" in capsys.readouterr().err
    assert not out.exists() or out.read_text() == ""


def test_local_backend_with_a_tiny_model(instances, instance_file, tmp_path):
    prompts = [instance.prompt for instance in instances]
    folder = tiny_model(
        tmp_path / "tiny", prompts, vocab_size=400, layers=2, chat_template=CHAT_TEMPLATE
    )
    out = tmp_path / "run.jsonl"
    options = ("--limit", 2, "--batch-size", 2, "--max-tokens", 8)
    assert run_eval(instance_file, "--out", out, "--local", folder, *options) == 0
    records = read_run(out)
    assert sorted(record["id"] for record in records) == sorted(i.id for i in instances[:2])
    request = {
        "backend": "local",
        "system": None,
        "max_tokens": 8,
        "temperature": 0.0,
        "top_p": None,
        "seed": 0,
    }
    for record in records:
        assert set(record) == RECORD_KEYS and record["model"] == "tiny"
        assert record["request"] == request
        assert record["finish_reason"] in {"stop", "length"} and record["error"] is None
        assert 1 <= record["usage"]["completion_tokens"] <= 8
        assert record["usage"]["prompt_tokens"] > 10


def test_openai_api_key_is_read_by_default(instances, instance_file, tmp_path, monkeypatch):
    with ChatServer(reference_policy(instances), api_key="sk-ambient") as server:
        assert eval_against(server, instance_file, tmp_path / "none.jsonl", "--limit", 1) == 1
        assert read_run(tmp_path / "none.jsonl")[0]["error"].startswith("HTTP 401")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient")
        assert eval_against(server, instance_file, tmp_path / "run.jsonl", "--limit", 1) == 0
        assert server.headers[-1]["Authorization"] == "Bearer sk-ambient"
        monkeypatch.setenv("ARGC_TEST_KEY", "sk-other")
        out = tmp_path / "other.jsonl"
        assert (
            eval_against(server, instance_file, out, "--limit", 1, "--api-key-env", "ARGC_TEST_KEY")
            == 1
        )
        assert server.headers[-1]["Authorization"] == "Bearer sk-other"


def test_total_deadline_cuts_a_trickling_reply(instances, instance_file, tmp_path):
    out = tmp_path / "run.jsonl"
    # One byte every 0.2 s: no single read waits long enough for a socket timeout.
    with ChatServer(reference_policy(instances), trickle=0.2) as server:
        started = time.monotonic()
        rc = eval_against(server, instance_file, out, "--limit", 1, "--timeout", 1, "--retries", 0)
        elapsed = time.monotonic() - started
    assert rc == 1
    (record,) = read_run(out)
    assert record["error"] == "no complete reply within 1 s (--timeout)"
    assert record["attempts"] == 1 and 1.0 <= record["latency_s"] <= 1.0 + GRACE
    assert elapsed < 1 + GRACE


@pytest.mark.parametrize("declare_length", [True, False])
def test_huge_reply_is_refused_at_the_cap(instances, instance_file, tmp_path, declare_length):
    out = tmp_path / "run.jsonl"
    policy = reference_policy(instances)
    with ChatServer(policy, padding=300_000, declare_length=declare_length) as server:
        options = ("--limit", 1, "--max-reply-bytes", 100_000, "--retries", 3)
        assert eval_against(server, instance_file, out, *options) == 1
        assert len(server.bodies) == 1  # not retried
    (record,) = read_run(out)
    assert record["error"].startswith("reply too large") and "--max-reply-bytes" in record["error"]
    assert record["attempts"] == 1 and record["response"] == ""
    with ChatServer(policy, padding=300_000, declare_length=declare_length) as server:
        assert eval_against(server, instance_file, out, "--retry-errors", "--limit", 1) == 0
    assert read_run(out)[0]["success"]  # under the default cap


@pytest.mark.parametrize(
    "header", ["nan", "inf", "-5", "1e308", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"]
)
def test_unsound_retry_after_falls_back_to_backoff(
    instances, instance_file, tmp_path, monkeypatch, header
):
    waits: list[float] = []
    monkeypatch.setattr(endpoint.time, "sleep", waits.append)
    out = tmp_path / "run.jsonl"
    policy = reference_policy(instances)
    with ChatServer(policy, fail_first=2, fail_status=429, retry_after=header) as server:
        assert eval_against(server, instance_file, out, "--limit", 1, "--concurrency", 1) == 0
    (record,) = read_run(out)
    assert record["attempts"] == 3 and record["success"] and record["error"] is None
    base = endpoint.BACKOFF_BASE_S
    assert len(waits) == 2
    assert 0.5 * base <= waits[0] <= base and base <= waits[1] <= 2 * base


def test_unknown_task_exits_before_any_request(instances, tmp_path, capsys):
    rows = [json.loads(instance.to_json()) for instance in instances]
    rows[1]["task"] = "made_up"
    path = tmp_path / "instances.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, path, tmp_path / "run.jsonl") == 2
        assert server.bodies == []
    err = capsys.readouterr().err
    assert "unknown task(s) made_up (1 instances)" in err and "--load" in err
    assert not (tmp_path / "run.jsonl").exists()


def test_load_lets_eval_score_a_new_task(tmp_path, monkeypatch, capsys):
    example = Path(__file__).parent.parent / "examples" / "new_task" / "undercut_status.py"
    load_tasks(example)
    made = [generate("undercut_status", 3, Ordering("last-link", "elitist"), s) for s in (0, 1)]
    monkeypatch.delitem(framework.REGISTRY, "undercut_status")
    path = write_instances(made, tmp_path)
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(made)) as server:
        assert eval_against(server, path, out) == 2
        assert server.bodies == [] and "unknown task(s) undercut_status" in capsys.readouterr().err
        assert eval_against(server, path, out, "--load", example) == 0
    records = read_run(out)
    assert len(records) == 2 and all(record["success"] for record in records)


def test_other_request_settings_are_refused(instances, instance_file, tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, out, "--limit", 1, "--temperature", 0.5) == 0
        capsys.readouterr()
        assert eval_against(server, instance_file, out, "--temperature", 0.7) == 2
        assert len(server.bodies) == 1
        err = capsys.readouterr().err
        assert "temperature 0.5 (now 0.7)" in err and "write to another run file" in err
        assert eval_against(server, instance_file, out, "--temperature", 0.5) == 0
    assert len(read_run(out)) == len(instances)


def test_second_writer_of_a_run_file_is_refused_at_once(instances, instance_file, tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    answer = reference_policy(instances)
    release = threading.Event()

    def held(prompt: str) -> tuple[str, str]:
        release.wait(10)
        return answer(prompt)

    with ChatServer(held) as server:
        first = threading.Thread(
            target=lambda: eval_against(server, instance_file, out, "--concurrency", 1)
        )
        first.start()
        while not server.bodies:
            time.sleep(0.01)
        started = time.monotonic()
        assert eval_against(server, instance_file, out) == 2
        assert time.monotonic() - started < GRACE
        release.set()
        first.join(timeout=30)
    err = capsys.readouterr().err
    assert f"{out} is in use by another process" in err
    ids = [record["id"] for record in read_run(out)]
    assert sorted(ids) == sorted(instance.id for instance in instances)
    assert len(server.bodies) == len(instances)
    assert not (tmp_path / "run.jsonl.lock").exists()


def test_run_file_symlink_refused_and_missing_folder_created(instances, instance_file, tmp_path):
    target = tmp_path / "target.jsonl"
    target.write_text("")
    os.symlink(target, tmp_path / "link.jsonl")
    nested = tmp_path / "runs" / "new" / "run.jsonl"
    with ChatServer(reference_policy(instances)) as server:
        assert eval_against(server, instance_file, tmp_path / "link.jsonl", "--limit", 1) == 2
        assert server.bodies == [] and target.read_text() == ""
        assert eval_against(server, instance_file, nested, "--limit", 1) == 0
    assert len(read_run(nested)) == 1


def test_total_deadline_cuts_a_trickling_tls_handshake():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def trickle() -> None:
            connection, _ = listener.accept()
            with connection, contextlib.suppress(OSError):
                connection.recv(65536)  # the client hello
                connection.sendall(b"\x16\x03\x03\x00\x50")  # a handshake record of 80 bytes
                for _ in range(50):
                    connection.sendall(b"\x02")
                    time.sleep(0.2)

        threading.Thread(target=trickle, daemon=True).start()
        url = f"https://127.0.0.1:{listener.getsockname()[1]}/v1"
        client = endpoint.ChatClient(url, "m", timeout=1.0, retries=0)
        started = time.monotonic()
        completion = client.complete("hello")
    assert completion.error == "no complete reply within 1 s (--timeout)"
    assert time.monotonic() - started < 1 + GRACE
