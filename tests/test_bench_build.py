"""The frozen benchmark's build, merge, manifest and audit, on a small subset (two tasks,
levels 1-2, the four orderings): builds are byte-identical whatever the workers, shards or
interruptions; tampering is caught by the manifest and by the audit."""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from argc.bench import audit as audit_module
from argc.bench import build as build_module
from argc.bench.audit import audit, engine_agreement
from argc.bench.build import (
    BENCHMARK_SEED_BASE,
    CELLS,
    FILES,
    build,
    merge,
    parquet_bytes,
    parquet_records,
    select_cells,
)
from argc.bench.manifest import MANIFEST, read_manifest, verify, write_manifest
from argc.dsl.errors import ArgcError
from argc.tasks import Instance

TASKS = ("attack", "status_query")
LEVELS = (1, 2)
ROWS = len(TASKS) * len(LEVELS) * 4 * 2
OUTPUTS = (*FILES, MANIFEST)
#: A seed of the scan that no row of the small build uses.
SEED = BENCHMARK_SEED_BASE + 63


def small(out: Path, workers: int = 2, shard: tuple[int, int] | None = None) -> Path:
    build(out, workers, shard, tasks=TASKS, levels=LEVELS)
    return out


def contents(directory: Path) -> dict[str, bytes]:
    return {name: (directory / name).read_bytes() for name in OUTPUTS}


def rows(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "rows.jsonl").read_text().splitlines()]


def write_rows(directory: Path, records: list[dict]) -> None:
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)
    (directory / "rows.jsonl").write_text(text, encoding="utf-8")


def reseal(directory: Path, records: list[dict]) -> None:
    """Write edited rows with a matching rows.parquet, cells.json and manifest."""
    write_rows(directory, records)
    (directory / "rows.parquet").write_bytes(parquet_bytes(records))
    cells = json.loads((directory / "cells.json").read_text())
    for cell in cells.values():
        cell["accepted"] = []
    for r in records:
        cells[f"{r['task']}/{r['level']}/{r['ordering']}/{r['set']}"]["accepted"].append(r["seed"])
    (directory / "cells.json").write_text(json.dumps(cells))
    manifest = read_manifest(directory)
    write_manifest(directory, {k: v for k, v in manifest.items() if k != "files"}, FILES)


def bench(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="argc bench")
    commands = parser.add_subparsers(required=True)
    build_module.register(commands)
    audit_module.register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small(tmp_path_factory.mktemp("bench") / "full")


def test_layout_rows_and_manifest(built: Path) -> None:
    records = rows(built)
    assert len(records) == ROWS
    keys = [(r["task"], r["level"], r["ordering"], r["set"], r["seed"]) for r in records]
    assert keys == sorted(keys)
    assert {r["task"] for r in records} == set(TASKS)
    manifest = read_manifest(built)
    assert manifest["rows"] == ROWS and manifest["tasks"] == list(TASKS)
    assert manifest["seed_base"] == BENCHMARK_SEED_BASE and manifest["instances_per_cell"] == 2
    assert set(manifest["files"]) == set(FILES)
    assert verify(built, manifest, FILES) == []
    cells = json.loads((built / "cells.json").read_text())
    assert len(cells) == len(select_cells(TASKS, LEVELS))
    for cell in cells.values():
        assert len(cell["accepted"]) == 2 and min(cell["accepted"]) >= BENCHMARK_SEED_BASE
        assert cell["scanned"] == len(cell["accepted"]) + len(cell["rejected"])


def test_parquet_rows_round_trip_to_the_jsonl_records(built: Path) -> None:
    assert parquet_records(built / "rows.parquet") == rows(built)


def test_builds_are_byte_identical_across_workers_and_shards(built: Path, tmp_path: Path) -> None:
    assert contents(small(tmp_path / "one", workers=1)) == contents(built)
    shards = [small(tmp_path / f"shard{i}", workers=1, shard=(i, 2)) for i in range(2)]
    assert not (shards[0] / "rows.jsonl").exists()
    assert read_manifest(shards[1])["shard"] == {"index": 1, "count": 2}
    merge(shards, tmp_path / "merged")
    assert contents(tmp_path / "merged") == contents(built)


def test_an_interrupted_build_resumes(built: Path, tmp_path: Path) -> None:
    # A build that stopped after some cells: only the missing ones are built again.
    copy = shutil.copytree(built, tmp_path / "copy")
    files = sorted((copy / CELLS).iterdir())
    for path in files[::3]:
        path.unlink()
    for name in OUTPUTS:
        (copy / name).unlink()
    kept = files[1]
    before = kept.stat().st_mtime_ns
    small(copy)
    assert kept.stat().st_mtime_ns == before
    assert contents(copy) == contents(built)
    # A full build over a shard's directory completes it.
    partial = small(tmp_path / "partial", shard=(0, 2))
    assert contents(small(partial)) == contents(built)


def test_cell_files_of_another_prompt_version_or_taskset_are_rebuilt(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cell = select_cells(TASKS, LEVELS)[0]
    assert build_module._read_cell(built, cell)["rows"]
    for name, value in (("PROMPT_VERSION", 99), ("TASKSET", "another")):
        with monkeypatch.context() as patched:
            patched.setattr(build_module, name, value)
            assert build_module._read_cell(built, cell) is None


def test_merge_refuses_incomplete_overlapping_and_tampered_shards(tmp_path: Path) -> None:
    first = small(tmp_path / "first", workers=1, shard=(0, 2))
    with pytest.raises(ArgcError, match="incomplete shards: 1/2 missing"):
        merge([first], tmp_path / "out")
    with pytest.raises(ArgcError, match="overlapping shards"):
        merge([first, first], tmp_path / "out")
    cell = next((first / CELLS).iterdir())
    cell.write_text(cell.read_text().replace("1000000000", "1000000007"))
    with pytest.raises(ArgcError, match=f"{CELLS}/{cell.name}: sha256 differs"):
        merge([first], tmp_path / "out")
    assert bench(["merge", str(first), "--out", str(tmp_path / "out")]) == 2


def test_manifest_verification_names_tampered_and_missing_files(
    built: Path, tmp_path: Path
) -> None:
    copy = shutil.copytree(built, tmp_path / "copy")
    with open(copy / "rows.jsonl", "a", encoding="utf-8") as stream:
        stream.write("\n")
    (copy / "cells.json").unlink()
    assert verify(copy, read_manifest(copy), FILES) == [
        "cells.json: listed in the manifest but does not exist",
        "rows.jsonl: sha256 differs from the manifest",
    ]


def test_audit_of_the_build_finds_no_failure(built: Path) -> None:
    report = audit(built, workers=2)
    assert report.ok, report.markdown()
    assert {name: check.checked for name, check in report.checks.items() if name != "manifest"} == {
        "decoding": ROWS,
        "rescoring": ROWS,
        "ordering": ROWS,
        "regeneration": ROWS,
        # attack is constructive: its theory with the witness applied is compared too
        "engine": ROWS + ROWS // 2,
    }


def test_audit_catches_a_tampered_reference_and_altered_ordering(
    built: Path, tmp_path: Path
) -> None:
    copy = shutil.copytree(built, tmp_path / "copy")
    records = rows(copy)
    tampered, moved = records[0], records[-1]
    tampered["reference"] = "nothing to see"
    assert (moved["ordering"], moved["set"]) == ("weakest-link", "elitist")
    moved["ordering"], moved["set"], moved["seed"] = "last-link", "democratic", SEED
    moved["id"] = f"status_query-L02-last-link-democratic-{SEED}"
    reseal(copy, records)
    report = audit(copy, workers=2)
    failures = {
        name: sorted({item for item, _ in check.failures}) for name, check in report.checks.items()
    }
    assert failures == {
        "manifest": [],
        "decoding": [],
        "rescoring": [tampered["id"]],
        "ordering": [moved["id"]],
        # neither row is what its coordinates generate any more
        "regeneration": [tampered["id"], moved["id"]],
        "engine": [],
    }
    assert [reason for _, reason in report.checks["ordering"].failures] == [
        "the prompt does not name the last-link democratic ordering",
        "the prompt names another ordering: weakest-link elitist",
    ]


def test_audit_command_names_a_tampered_file(built: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(built, tmp_path / "copy")
    records = rows(copy)
    records[1]["prompt"] += " "
    write_rows(copy, records)
    report = tmp_path / "report.md"
    assert bench(["audit", str(copy), "--workers", "2", "--out", str(report)]) == 1
    text = report.read_text()
    assert "rows.jsonl: sha256 differs from the manifest" in text
    assert f"`{records[1]['id']}`: the regenerated row differs in: prompt" in text
    assert bench(["audit", str(tmp_path / "nowhere")]) == 2


def test_build_command_rejects_bad_input(tmp_path: Path) -> None:
    assert bench(["build", "--out", str(tmp_path), "--tasks", "no_such_task"]) == 2
    assert bench(["build", "--out", str(tmp_path), "--shard", "2/2"]) == 2
    assert not (tmp_path / MANIFEST).exists()


def test_engine_differences_on_twin_rules_are_documented_divergences() -> None:
    twins = "[premise: a]\n[premise: c]\n[defeasible d1: a => b]\n[defeasible d2: a => b]\n"
    theory = twins + "[defeasible u: c => -d1]\n"
    instance = Instance("x", "status_query", 1, "last-link", "elitist", 0, theory, "", "", {}, {})
    compared, failures, divergences, with_twins = engine_agreement(instance)
    assert (compared, failures, with_twins) == (1, [], 1)
    assert divergences == [
        "theory: statuses differ: b argc justified / PyArg overruled; twin rules d1=d2"
    ]
    plain = replace(instance, theory=twins)  # twins, but nothing tells them apart
    assert engine_agreement(plain) == (1, [], [], 1)
