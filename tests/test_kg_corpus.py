"""KG task corpora (`argc kg corpus`, argc.tasks.kg.splits): the families take turns in the
mix's proportions; rows are the instances' records with their pretraining text, the same
bytes whether built at once, in shards (concatenated), in worker processes or as Ray tasks;
an interrupted build (stopped, or killed) leaves no output file and resumes to the same
bytes; a build started by another request is not resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from argc.cli import main
from argc.files import ResumeMismatch
from argc.tasks.kg import splits
from argc.tasks.kg.families import generate_instance
from argc.tasks.kg.splits import FAMILY_MIX, build_corpus, corpus_chunks, turns

#: The tiny corpus: two rows for each of the pretrain split's 8 cells, chunks of 3 rows.
TINY = {"split": "pretrain", "per_cell": 2, "size": 3}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> bytes:
    """The tiny corpus built at once, in this process."""
    out = tmp_path_factory.mktemp("corpus") / "tiny.jsonl"
    summary = build_corpus(out, corpus_chunks(**TINY))
    assert (summary.rows, summary.skipped) == (16, 0)
    return out.read_bytes()


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_the_families_take_turns_in_table_16_s_proportions():
    order = turns(tuple(FAMILY_MIX.items()))
    assert Counter(order) == {"deductive": 14, "abductive": 6, "inductive": 1, "analogy": 1}
    # Spread out: never two abductive turns in a row, the two rare families far apart.
    assert ("abductive", "abductive") not in zip(order, order[1:], strict=False)
    assert order.index("analogy") - order.index("inductive") == 5
    assert turns((("analogy", 2), ("inductive", 4))) == ("inductive", "analogy", "inductive")


def test_rows_are_the_instances_with_their_pretraining_text(tiny):
    rows = [json.loads(line) for line in tiny.decode().splitlines()]
    assert [(row["depth"], row["complexity"]) for row in rows] == [
        cell for cell in splits.PLANS["pretrain"].cells for _ in range(2)
    ]
    assert [row["family"] for row in rows] == list(turns(tuple(FAMILY_MIX.items()))[:16])
    first = rows[0]
    seed = splits.graph_seed("pretrain", 1, 1, 0)
    instance = generate_instance(first["family"], 1, 1, seed, "pretrain")
    assert first == {**instance.row(), "text": f"{instance.prompt} {instance.trace}"}
    assert first["text"].startswith("Story: ") and "\nSolution: " in first["text"]


def test_shards_concatenate_to_the_corpus_and_processes_give_its_bytes(tiny, tmp_path):
    parts = []
    for index in range(3):
        out = tmp_path / f"shard{index}.jsonl"
        build_corpus(out, corpus_chunks(**TINY, shard=(index, 3)))
        parts.append(out.read_bytes())
    assert [part.count(b"\n") for part in parts] == [5, 5, 6]
    assert b"".join(parts) == tiny
    build_corpus(tmp_path / "pool.jsonl", corpus_chunks(**TINY), workers=2)
    assert (tmp_path / "pool.jsonl").read_bytes() == tiny
    assert not [name for name in leftovers(tmp_path) if not name.endswith(".jsonl")]


def test_the_command_line_builds_the_corpus(tiny, tmp_path, capsys):
    out = tmp_path / "tiny.jsonl"
    command = ["kg", "corpus", "--split", "pretrain", "--per-cell", "2", "--chunk", "3"]
    assert main([*command, "--workers", "1", "--out", str(out)]) == 0
    assert out.read_bytes() == tiny
    assert capsys.readouterr().err.endswith(f"{out}: 16 rows\n")
    mixed = tmp_path / "mixed.jsonl"
    mix = ["--families", "inductive:2", "analogy", "--workers", "1"]
    assert main([*command, *mix, "--out", str(mixed)]) == 0
    families = [json.loads(line)["family"] for line in mixed.read_text().splitlines()]
    assert Counter(families) == {"inductive": 11, "analogy": 5}
    with pytest.raises(SystemExit):
        main([*command, "--families", "parable", "--out", str(mixed)])
    with pytest.raises(SystemExit):
        main([*command, "--shard", "3/3", "--out", str(mixed)])


def test_depths_and_complexities_keep_the_rows_of_their_cells(tiny, tmp_path, capsys):
    command = ["kg", "corpus", "--split", "pretrain", "--per-cell", "2", "--chunk", "3"]
    out = tmp_path / "d1-2t1.jsonl"
    cells = ["--depths", "1-2", "--complexities", "1"]
    assert main([*command, *cells, "--workers", "1", "--out", str(out)]) == 0
    kept = [
        line
        for line in tiny.decode().splitlines(keepends=True)
        if (json.loads(line)["depth"], json.loads(line)["complexity"]) in {(1, 1), (2, 1)}
    ]
    assert out.read_text() == "".join(kept) and len(kept) == 4
    shards = [tmp_path / f"shard-{i}.jsonl" for i in range(3)]
    for i, shard in enumerate(shards):
        assert main([*command, *cells, "--shard", f"{i}/3", "--out", str(shard)]) == 0
    assert b"".join(shard.read_bytes() for shard in shards) == out.read_bytes()
    capsys.readouterr()
    assert main([*command, "--depths", "3-5", "--out", str(out)]) == 2
    assert "the pretrain split has depths 1-4, not 3-5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*command, "--complexities", "2-1", "--out", str(out)])


class Rows:
    """`corpus_rows`, counting the chunks it makes and stopping the build (as Ctrl-C would)
    when asked for chunk number `stop`."""

    made = staticmethod(splits.corpus_rows)

    def __init__(self, stop: int = 0) -> None:
        self.calls = 0
        self.stop = stop

    def __call__(self, chunk):
        self.calls += 1
        if self.calls == self.stop:
            raise KeyboardInterrupt
        return self.made(chunk)


def test_an_interrupted_build_leaves_no_output_and_resumes_to_the_same_bytes(
    tiny, tmp_path, monkeypatch
):
    monkeypatch.setattr(splits, "corpus_rows", Rows(stop=4))
    out = tmp_path / "tiny.jsonl"
    with pytest.raises(KeyboardInterrupt):
        build_corpus(out, corpus_chunks(**TINY))
    assert leftovers(tmp_path) == ["tiny.jsonl.partial", "tiny.jsonl.progress"]
    # Killed while writing: a torn row and a torn record past the last complete chunk.
    with open(out.with_name("tiny.jsonl.partial"), "ab") as partial:
        partial.write(b'{"torn": ')
    with open(out.with_name("tiny.jsonl.progress"), "ab") as progress:
        progress.write(b'{"bytes": 1')
    resumed = Rows()
    monkeypatch.setattr(splits, "corpus_rows", resumed)
    build_corpus(out, corpus_chunks(**TINY))
    assert resumed.calls == len(corpus_chunks(**TINY)) - 3  # the three written chunks kept
    assert out.read_bytes() == tiny
    assert leftovers(tmp_path) == ["tiny.jsonl"]


def test_a_build_started_by_another_request_is_not_resumed(tmp_path, monkeypatch):
    monkeypatch.setattr(splits, "corpus_rows", Rows(stop=2))
    out = tmp_path / "tiny.jsonl"
    with pytest.raises(KeyboardInterrupt):
        build_corpus(out, corpus_chunks(**TINY))
    with pytest.raises(ResumeMismatch, match="tiny.jsonl.progress was started by another"):
        build_corpus(out, corpus_chunks(**TINY, seed=1))


def test_a_killed_build_leaves_no_output_and_resumes_to_the_same_bytes(tmp_path):
    argc = str(Path(sys.executable).with_name("argc"))
    command = [argc, "kg", "corpus", "--split", "rl", "--per-cell", "2", "--chunk", "2"]
    out = tmp_path / "rl.jsonl"
    command += ["--workers", "1", "--out", str(out)]
    progress = tmp_path / "rl.jsonl.progress"
    # Its own process group: the kill takes its worker process too, as a lost machine would.
    build = subprocess.Popen(command, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and build.poll() is None:
            if progress.exists() and progress.read_text().count("\n") > 4:
                break
            time.sleep(0.01)
        os.killpg(build.pid, signal.SIGKILL)
    finally:
        build.wait()
    assert build.returncode == -signal.SIGKILL, "the build ended before it was killed"
    assert not out.exists() and (tmp_path / "rl.jsonl.partial").exists()
    assert subprocess.run(command, stderr=subprocess.DEVNULL).returncode == 0
    whole = tmp_path / "whole.jsonl"
    build_corpus(whole, corpus_chunks("rl", per_cell=2, size=2))
    assert out.read_bytes() == whole.read_bytes()
    assert leftovers(tmp_path) == ["rl.jsonl", "whole.jsonl"]


def test_a_build_on_ray_gives_the_local_bytes(ray, tiny, tmp_path):
    out = tmp_path / "ray.jsonl"
    command = ["kg", "corpus", "--split", "pretrain", "--per-cell", "2", "--chunk", "3"]
    assert main([*command, "--ray", "--out", str(out)]) == 0
    assert out.read_bytes() == tiny
