"""A task file whose scorer misbehaves on purpose, for the tests of isolated scoring: the
task `endless` (a status query) never returns on the answer `loop`, allocates 4 GiB on
`hoard`, ends its process with exit code 3 on `die` and keeps 600 MiB for the rest of the
process on `keep`; the answer `pid` scores 0.5 with the worker's process id as the reason, any
other answer with the reason "scored"."""

from __future__ import annotations

from pathlib import Path

from argc.dsl.ir import Ordering
from argc.tasks import Instance, generate

TASKS = """
import os, time
from argc.tasks.framework import Score, register
from argc.tasks.arggym.status_query import StatusQuery

KEPT = []

@register
class Endless(StatusQuery):
    name = "endless"
    def score_answer(self, instance, answer):
        if answer == "loop":
            while True:
                pass
        if answer == "hoard":
            hoard = [bytearray(64 << 20) for _ in range(64)]
        if answer == "die":
            os._exit(3)
        if answer == "keep":
            KEPT.append(bytearray(600 << 20))
        if answer == "pid":
            return Score(0.5, False, str(os.getpid()))
        return Score(0.5, False, "scored")
"""


def write_task_file(folder: Path) -> Path:
    """`folder/misbehaving.py`, the task file to load (`load=[...]`) where `endless` is scored."""
    path = folder / "misbehaving.py"
    path.write_text(TASKS, encoding="utf-8")
    return path


def endless(seed: int) -> Instance:
    """An instance of `endless`: the level-1 status query of `seed`, under another task name."""
    record = generate("status_query", 1, Ordering(), seed).record()
    return Instance.from_record({**record, "task": "endless"})
