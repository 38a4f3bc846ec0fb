"""The committed learning studies (`results/learning/<study>/`), re-checked from their files
alone: every held-out reference succeeds, `summary.json` states the rates `argc score` gives
the committed predictions, and every success is re-verified by a path independent of argc's
engine (the brute-force normative-world simulator of `norm_worlds`, PyArg for status_query,
the KG reference simulator for kg_deductive).
A study folder that is not committed has nothing to check."""

from __future__ import annotations

import json
from pathlib import Path

import norm_worlds
import pytest

from argc.cli import main
from argc.dsl.norms import parse_world
from argc.tasks.answers import answer_region
from argc.tasks.cli import read_instances
from argc.train.sft import completion_of
from argc.train.study import predictions_text

RESULTS = Path(__file__).resolve().parents[1] / "results" / "learning"
STUDIES = (
    sorted(p.name for p in RESULTS.iterdir() if (p / "summary.json").is_file())
    if RESULTS.is_dir()
    else []
)
#: The done-when floor on held-out instances.
MIN_HELDOUT = 300

pytestmark = pytest.mark.skipif(not STUDIES, reason="no learning study is committed")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _predictions(folder: Path) -> list[str]:
    """The predictions files of a study: before, after and each arm's."""
    return sorted(p.name for p in folder.glob("*.jsonl") if p.name.startswith(("before", "after")))


def _argc_score(folder: Path, predictions: str | Path, tmp_path: Path) -> list[dict]:
    """The rows `argc score` writes for a predictions file (a name in the study's folder)."""
    rows = tmp_path / f"{Path(predictions).name}.scored.jsonl"
    code = main(
        ["score", str(folder / "instances.jsonl"), str(folder / predictions), "--out", str(rows)]
    )
    assert code == 0
    return _lines(rows)


def _norm_answer_agrees(instance, response: str) -> bool:
    """The label in the response's answer region against the brute-force verdict of the world
    in the instance's target."""
    world = parse_world(instance.target["world"])
    given = (answer_region(response) or "").strip(" \t\n-*`.").lower()
    return given == norm_worlds.verdict(world).answer


def _library_verifier(task: str):
    """The study report's independent verifier of a task (PyArg for status_query, the KG
    reference simulator for kg_deductive)."""

    def agrees(instance, response: str) -> bool:
        from argc.train.study_report import VERIFIERS

        return VERIFIERS[task][1](instance, response)

    return agrees


INDEPENDENT = {
    "norm_answer": _norm_answer_agrees,
    "status_query": _library_verifier("status_query"),
    "kg_deductive": _library_verifier("kg_deductive"),
}


@pytest.fixture(params=STUDIES)
def study(request) -> Path:
    return RESULTS / request.param


def test_every_reference_succeeds_and_the_set_is_large_enough(study, tmp_path):
    instances = read_instances(study / "instances.jsonl")
    assert len(instances) >= MIN_HELDOUT
    gold = tmp_path / "gold.jsonl"
    gold.write_text(predictions_text({i.id: completion_of(i, "text") for i in instances}))
    rows = _argc_score(study, gold, tmp_path)
    assert len(rows) == len(instances) and all(row["success"] for row in rows)


def test_summary_states_the_rates_argc_score_gives(study, tmp_path):
    summary = json.loads((study / "summary.json").read_text())
    rate = {
        name: sum(r["success"] for r in _argc_score(study, name, tmp_path)) / summary["instances"]
        for name in _predictions(study)
    }
    assert rate["before.jsonl"] == pytest.approx(summary["success_before"], abs=1e-9)
    assert rate["after.jsonl"] == pytest.approx(summary["success_after"], abs=1e-9)
    for arm, figures in summary["arms"].items():
        assert rate[f"after-{arm}.jsonl"] == pytest.approx(figures["after"]["success"], abs=1e-9)


def test_successes_agree_with_an_independent_path(study, tmp_path):
    instances = {i.id: i for i in read_instances(study / "instances.jsonl")}
    checked = 0
    for name in _predictions(study):
        responses = {r["id"]: r["response"] for r in _lines(study / name)}
        for row in _argc_score(study, name, tmp_path):
            instance = instances[row["id"]]
            if row["success"] and instance.task in INDEPENDENT:
                assert INDEPENDENT[instance.task](instance, responses[row["id"]]), row["id"]
                checked += 1
    assert checked or not any(i.task in INDEPENDENT for i in instances.values())
