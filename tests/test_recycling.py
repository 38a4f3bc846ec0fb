"""Long jobs in replaced worker processes (`argc.recycling`): the same results in order as in
one process, workers replaced after their share, errors raised in the caller."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from argc.recycling import recycled_map
from argc.tasks import GenerationFailed


def pid_and_square(number: int) -> tuple[int, int]:
    return os.getpid(), number * number


def fail_on_three(number: int) -> int:
    if number == 3:
        raise GenerationFailed(f"no candidate for {number}")
    return number


def test_a_short_job_on_one_worker_runs_here():
    assert list(recycled_map(pid_and_square, [1, 2, 3])) == [
        (os.getpid(), n * n) for n in (1, 2, 3)
    ]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_long_job_runs_in_replaced_workers_in_order(workers):
    found = list(recycled_map(pid_and_square, range(12), workers=workers, chunk=1, per_process=3))
    assert [square for _, square in found] == [n * n for n in range(12)]
    processes = {pid for pid, _ in found}
    assert os.getpid() not in processes
    assert len(processes) >= 4  # 12 items, each worker replaced after 3


def test_an_error_in_a_worker_is_raised_here():
    with pytest.raises(GenerationFailed, match="no candidate for 3"):
        list(recycled_map(fail_on_three, range(6), workers=2, chunk=1, per_process=2))


def test_nonsense_settings_are_refused():
    with pytest.raises(ValueError, match="positive"):
        list(recycled_map(pid_and_square, [1], workers=0))


def test_generate_writes_the_same_bytes_with_workers(tmp_path):
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.jsonl"
        command = [sys.executable, "-m", "argc.cli", "generate", "status_query", "--level", "4"]
        command += ["--count", "5", "--workers", workers, "--out", str(out)]
        subprocess.run(command, check=True, capture_output=True)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") == 5
