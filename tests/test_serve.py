"""`argc serve`'s JSON API against the command line's own output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_limits import rebut_storm

from argc import __version__
from argc.cli import main
from argc.dsl.ir import Ordering
from argc.tasks import generate

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
from fastapi.testclient import TestClient  # noqa: E402

from argc.serve import ServeSettings, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
THEORIES = ["modgil_prakken_tweety.arg", "modgil_prakken_snores.arg", "arggym_c1_status_query.arg"]


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def cli_record(capsys, *argv: str) -> dict:
    main(list(argv))
    return json.loads(capsys.readouterr().out.splitlines()[-1])


def test_health_says_the_version_argc_prints(client):
    assert client.get("/api/health").json() == {"status": "ok", "version": f"argc {__version__}"}
    done = subprocess.run([sys.executable, "-m", "argc.cli", "--version"], capture_output=True)
    assert done.stdout.decode().strip() == f"argc {__version__}"


@pytest.mark.parametrize("name", THEORIES)
@pytest.mark.parametrize("options", [{}, {"ordering": "weakest-link", "set": "democratic"}])
def test_check_is_the_record_argc_check_json_graph_prints(client, capsys, name, options):
    path = ROOT / "examples" / name
    flags = [f"--{key}={value}" for key, value in options.items()]
    expected = cli_record(capsys, "check", "--json", "--graph", *flags, str(path))
    expected["file"] = "<text>"
    found = client.post("/api/check", json={"text": path.read_text("utf-8"), **options})
    assert found.status_code == 200
    assert found.json() == expected


def test_kg_and_norm_worlds_go_through_the_same_api(client, capsys):
    world = ROOT / "examples" / "kg" / "table9.kg"
    expected = cli_record(capsys, "check", "--json", str(world))
    found = client.post("/api/check", json={"text": world.read_text(), "language": "kg"})
    assert found.status_code == 200 and found.json() == {**expected, "file": "<text>"}
    norm = ROOT / "examples" / "norms" / "archive_entry.norm"
    expected = cli_record(capsys, "norms", "solve", "--json", str(norm))
    found = client.post("/api/check", json={"text": norm.read_text(), "language": "norm"})
    assert found.status_code == 200 and found.json() == expected


def test_a_syntax_error_is_400_with_line_and_column(client):
    found = client.post("/api/check", json={"text": "[premise: a]\n[strict s1: a -> "})
    assert found.status_code == 400
    assert found.json()["error"].startswith("<text>:2:")


@pytest.mark.parametrize(
    "body",
    [{"text": 5}, {"text": "[premise: a]", "language": "lisp"}, {"text": "", "semantics": 3}],
)
def test_bad_fields_are_400_naming_the_field(client, body):
    found = client.post("/api/check", json=body)
    assert found.status_code == 400 and '"' in found.json()["error"]


def test_a_body_that_is_not_json_is_400(client):
    assert client.post("/api/check", content=b"{oops").status_code == 400
    assert client.post("/api/check", json=[1, 2]).status_code == 400


def test_a_5_mib_body_is_413_declared_or_streamed(client):
    big = b'{"text": "' + b"x" * (5 << 20) + b'"}'
    found = client.post("/api/check", content=big)
    assert found.status_code == 413 and "1,048,576 bytes" in found.json()["error"]

    def chunks():
        for start in range(0, len(big), 1 << 16):
            yield big[start : start + (1 << 16)]

    streamed = client.post("/api/check", content=chunks())  # no declared length
    assert streamed.status_code == 413


def test_an_exceeded_limit_is_422_naming_it():
    tight = TestClient(create_app(ServeSettings(max_arguments=50)))
    found = tight.post("/api/check", json={"text": rebut_storm(6)})
    assert found.status_code == 422
    assert found.json()["limit"] == "arguments"
    assert "more than 50 arguments" in found.json()["error"]


def test_a_rebut_storm_is_422_at_the_attack_limit(client):
    found = client.post("/api/check", json={"text": rebut_storm(11)})
    assert found.status_code == 422
    assert found.json()["limit"] == "attacks"


def instances_and_predictions() -> tuple[list[dict], list[dict]]:
    made = [generate("status_query", level, Ordering(), 0) for level in (1, 3)]
    made += [generate("norm_answer", 2, Ordering(), 0)]
    records = [json.loads(instance.to_json()) for instance in made]
    predictions = [
        {"id": made[0].id, "response": f"<answer>{made[0].reference}</answer>"},
        {"id": made[1].id, "response": "<answer>nothing</answer>"},
        {"id": "nobody", "response": "x"},
    ]
    return records, predictions


def test_score_equals_argc_score(client, tmp_path):
    records, predictions = instances_and_predictions()
    instances, answers, out = tmp_path / "i.jsonl", tmp_path / "p.jsonl", tmp_path / "r.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in records))
    answers.write_text("".join(json.dumps(p) + "\n" for p in predictions))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "argc.cli",
            "score",
            str(instances),
            str(answers),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    found = client.post("/api/score", json={"instances": records, "predictions": predictions})
    assert found.status_code == 200
    assert found.json()["results"] == expected
    warned = [line.removeprefix("argc score: ") for line in done.stderr.splitlines()]
    assert found.json()["warnings"] == [line for line in warned if "scoring" not in line]
    assert [r["success"] for r in expected] == [True, False, False]


def test_reward_takes_trl_s_and_openrlhf_s_shapes(client):
    records, _ = instances_and_predictions()
    first = records[0]
    right = f"<answer>{first['reference']}</answer>"
    trl = {"completions": [right, "<answer>x</answer>", [{"role": "assistant", "content": right}]]}
    trl["instance"] = [json.dumps(first)] * 3
    assert client.post("/api/reward", json=trl).json() == {"rewards": [1.0, 0.0, 1.0]}
    prompt = first["prompt"]
    openrlhf = {"query": [prompt + right, prompt + "no"], "prompts": [prompt] * 2}
    openrlhf["labels"] = [json.dumps(first)] * 2
    assert client.post("/api/reward", json=openrlhf).json() == {
        "rewards": [1.0, 0.0],
        "scores": [1.0, 0.0],
    }
    lopsided = client.post("/api/reward", json={"completions": ["a"], "instance": []})
    assert lopsided.status_code == 400
    for bad in ({**openrlhf, "query": [5, 6]}, {**openrlhf, "prompts": [prompt]}):
        refused = client.post("/api/reward", json=bad)
        assert refused.status_code == 400 and "one length" in refused.json()["error"]


def test_argc_serve_answers_on_loopback_and_refuses_a_big_body_before_closing():
    import threading
    import time

    import httpx

    from argc.serve import running

    with running("--max-body", "4096") as (url, _):
        health = httpx.get(f"{url}/api/health", timeout=10)
        assert health.json()["version"] == f"argc {__version__}"
        big = httpx.post(f"{url}/api/check", content=b"x" * (5 << 20), timeout=30)
        assert big.status_code == 413 and "4,096 bytes" in big.json()["error"]
        text = (ROOT / "examples" / "modgil_prakken_tweety.arg").read_text()
        assert httpx.post(f"{url}/api/check", json={"text": text}, timeout=60).status_code == 200
        # A hostile theory in flight does not stall the others: a small check sent after it
        # is answered before it.
        finished: list[str] = []

        def hostile() -> None:
            body = {"text": rebut_storm(11)}
            reply = httpx.post(f"{url}/api/check", json=body, timeout=120)
            finished.append(f"hostile {reply.status_code}")

        storm = threading.Thread(target=hostile)
        storm.start()
        time.sleep(0.5)
        reply = httpx.post(f"{url}/api/check", json={"text": text}, timeout=60)
        finished.append(f"small {reply.status_code}")
        storm.join(timeout=120)
        assert finished == ["small 200", "hostile 422"]
