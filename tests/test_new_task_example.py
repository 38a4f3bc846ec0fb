"""The worked example of docs/new-task.md, end to end through the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from argc.cli import main
from argc.dsl.ir import Ordering
from argc.tasks import LEVELS, generate, score
from argc.tasks.framework import load_tasks

EXAMPLE = Path(__file__).parent.parent / "examples" / "new_task" / "undercut_status.py"


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    load_tasks(EXAMPLE)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_generates_a_gated_instance(level: int) -> None:
    instance = generate("undercut_status", level, Ordering("weakest-link", "elitist"), seed=level)
    assert set(instance.target.values()) == {"undercut", "intact"}
    assert score(instance, f"<answer>{instance.reference}</answer>").success
    assert not score(instance, "<answer>nothing: maybe</answer>").success


def test_generate_and_score_through_the_cli(tmp_path: Path, capsys) -> None:
    instances, predictions = tmp_path / "u.jsonl", tmp_path / "p.jsonl"
    load = ["--load", str(EXAMPLE)]
    arguments = ["generate", "undercut_status", "--level", "5", "--seed", "0", "--count", "4"]
    assert main([*arguments, "--out", str(instances), *load]) == 0
    rows = [json.loads(line) for line in instances.read_text().splitlines()]
    predictions.write_text(
        "".join(
            json.dumps({"id": row["id"], "response": f"<answer>{row['reference']}</answer>"}) + "\n"
            for row in rows
        )
    )
    results = tmp_path / "r.jsonl"
    assert main(["score", str(instances), str(predictions), "--out", str(results), *load]) == 0
    assert "undercut_status" in capsys.readouterr().out
    assert all(json.loads(line)["success"] for line in results.read_text().splitlines())
    again = subprocess.run(
        [sys.executable, "-m", "argc.cli", *arguments, *load], capture_output=True, check=True
    )
    assert again.stdout.decode() == instances.read_text()


def test_the_guide_documents_every_shape_field_and_task_method() -> None:
    """docs/new-task.md's tables follow the code: every field of `Shape` with its default,
    and every method a task writes."""
    import dataclasses
    import re

    from argc.tasks import Task
    from argc.tasks.builder import Shape

    guide = (Path(__file__).resolve().parent.parent / "docs" / "new-task.md").read_text("utf-8")
    documented = dict(re.findall(r"^\| `(\w+)` \| ([\d.]+) \|", guide, re.M))
    fields = {field.name: str(field.default) for field in dataclasses.fields(Shape)}
    assert documented == fields
    methods = re.findall(r"^\| `(\w+)\(", guide, re.M)
    assert all(callable(getattr(Task, name, None)) for name in methods)
    assert "Six methods, and one optional" in guide and len(methods) == 7
