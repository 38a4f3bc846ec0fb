"""Every registered task generates byte-identical instances in separate processes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from argc.dsl.ir import Ordering
from argc.tasks import generate, generated_tasks


@pytest.mark.parametrize("task", generated_tasks())
def test_generation_is_deterministic_across_processes(task: str) -> None:
    command = [
        sys.executable,
        "-m",
        "argc.cli",
        "generate",
        task,
        "--level",
        "12",
        "--ordering",
        "weakest-link",
        "--set",
        "democratic",
        "--seed",
        "3",
        "--count",
        "2",
    ]
    first = subprocess.run(command, capture_output=True, check=True).stdout
    second = subprocess.run(command, capture_output=True, check=True).stdout
    assert first == second and first.count(b"\n") == 2
    here = generate(task, 12, Ordering("weakest-link", "democratic"), 3).to_json()
    assert first.decode().splitlines()[0] == here
