"""Snippets the README gives a user run as printed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from argc.dsl.ir import Ordering
from argc.tasks import generate, score

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_references_as_predictions_snippet_scores_every_instance_1(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```\n(python3 -c '.*?)\n```", text, re.S)
    assert block, "the README lost its references-as-predictions snippet"
    program = re.search(r"python3 -c '(.*?)' \\", block[1], re.S)[1]
    instances = [generate("status_query", 1, Ordering(), seed) for seed in range(3)]
    lines = "".join(json.dumps(instance.record()) + "\n" for instance in instances)
    done = subprocess.run(
        [sys.executable, "-c", program], input=lines, capture_output=True, text=True, check=True
    )
    predictions = [json.loads(line) for line in done.stdout.splitlines()]
    assert [p["id"] for p in predictions] == [instance.id for instance in instances]
    for instance, prediction in zip(instances, predictions, strict=True):
        assert score(instance, prediction["response"]).success
