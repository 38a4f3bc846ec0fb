"""The Ray backend (`argc.cluster`) on the local Ray instance of the test session (the `ray`
fixture of conftest.py): a benchmark
subset, its audit and a dataset built as Ray tasks give the local build's bytes, and the pool
of scoring actors gives the local IsolatedScorer's scores, hostile answers included. Without
Ray, `--ray` is refused in one line."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import misbehaving_tasks
import pytest
from test_limits import explosive_formalization

from argc.bench.audit import audit
from argc.bench.build import CELLS, build
from argc.cli import main
from argc.dsl.errors import ArgcError
from argc.dsl.ir import Ordering
from argc.tasks import generate
from argc.tasks.isolation import IsolatedScorer, Isolation

TASKS = ("attack", "claim_chain")
LEVELS = (1, 2)


@pytest.fixture(scope="module")
def benchmarks(ray, tmp_path_factory) -> tuple[Path, Path]:
    """The subset built locally (two processes) and on Ray (through the command line)."""
    folder = tmp_path_factory.mktemp("benchmarks")
    local, remote = folder / "local", folder / "ray"
    build(local, 2, tasks=TASKS, levels=LEVELS)
    command = ["bench", "build", "--out", str(remote), "--tasks", *TASKS, "--levels"]
    assert main([*command, *map(str, LEVELS), "--ray"]) == 0
    return local, remote


def files(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_a_build_on_ray_is_byte_identical_and_resumes(benchmarks):
    local, remote = benchmarks
    expected = files(local)
    assert len([name for name in expected if name.startswith(f"{CELLS}/")]) == len(TASKS) * 2 * 4
    assert files(remote) == expected
    # Interrupted: a cell and the assembled files missing; the rerun builds that cell only.
    cell = sorted((remote / CELLS).iterdir())[3]
    cell.unlink()
    (remote / "rows.jsonl").unlink()
    kept = {path: path.stat().st_mtime_ns for path in (remote / CELLS).iterdir()}
    command = ["bench", "build", "--out", str(remote), "--tasks", *TASKS, "--levels"]
    assert main([*command, *map(str, LEVELS), "--ray"]) == 0
    assert files(remote) == expected
    assert {path: path.stat().st_mtime_ns for path in kept} == kept


def test_an_audit_on_ray_gives_the_local_report(benchmarks, capsys):
    local, _ = benchmarks
    report = audit(local, 2)
    assert report.ok
    assert main(["bench", "audit", str(local), "--ray"]) == 0
    assert capsys.readouterr().out == report.markdown()


def test_a_dataset_on_ray_has_the_local_rows(ray, tmp_path):
    from argc.train import data, recipes

    recipe = recipes.load_recipe("tiny")
    here = data.build_dataset(recipe, workers=1)
    with data.generating_on(True):  # as `argc train --ray` does
        there = data.build_dataset(recipe, workers=1)
    assert there.to_list() == here.to_list()
    here.to_parquet(tmp_path / "here.parquet")
    there.to_parquet(tmp_path / "there.parquet")
    assert (tmp_path / "there.parquet").read_bytes() == (tmp_path / "here.parquet").read_bytes()


@pytest.mark.slow
def test_the_ray_scoring_pool_scores_as_the_local_scorer(ray, misbehaving):
    from argc.cluster import RayScorer

    path, endless = misbehaving
    fine = misbehaving_tasks.endless(1)
    counter = generate("counter_argument", 3, Ordering(), 0)
    formalization = generate("formalization", 1, Ordering(), 0)
    explosive = explosive_formalization()
    pairs = [
        (counter, f"<answer>{counter.reference}</answer>"),
        (counter, "<answer>[axiom: nothing]</answer>"),  # with the first: a group
        (formalization, "<answer>" + "\n".join(explosive) + "</answer>"),
        (endless, "<answer>loop</answer>"),
        (fine, "<answer>fine</answer>"),
        (formalization, f"<answer>{formalization.reference}</answer>"),
    ]
    isolation = Isolation(seconds=2.0)
    with IsolatedScorer(1, isolation, load=[str(path)]) as local:
        expected = local.score_many(pairs)
    with RayScorer(True, actors=2, isolation=isolation, load=[str(path)]) as pool:
        assert pool.score_many(pairs) == expected
        assert pool.score(*pairs[0]) == expected[0]
        assert pool.score_group(counter, [pairs[1][1], pairs[0][1]]) == expected[1::-1]
    assert [score.success for score in expected] == [True, False, False, False, False, True]
    assert expected[2].native == 0 and "exceeds the scoring limits" in expected[2].reason
    assert "stopped after more than 2 s" in expected[3].reason
    assert expected[4].reason == "scored"  # the killed worker was replaced


def test_configure_makes_the_pool_every_process_s_default_scorer(ray):
    from argc.cluster import NAMESPACE, POOL_NAME, RayScorer
    from argc.tasks import isolation
    from argc.tasks.framework import loaded_task_files
    from argc.train.rewards import native_reward

    instance = generate("attack", 2, Ordering(), 1)
    completion = f"<answer>{instance.reference}</answer>"
    try:
        isolation.configure(ray_address=True, actors=1)
        pool = isolation.default_scorer()
        assert isinstance(pool, RayScorer)
        assert native_reward([completion], [instance.to_json()]) == [1.0]
        # Another process of the cluster finds the actor by its name and shares it.
        actor = ray.get_actor(f"{POOL_NAME}-0", namespace=NAMESPACE)
        assert ray.get(actor.score_many.remote([(instance, completion)]))[0].success
        # (with the task files this process has loaded, as the pool's actors do)
        with RayScorer(True, actors=1, load=loaded_task_files()) as attached:
            assert attached.score(instance, completion).success
        assert ray.get_actor(f"{POOL_NAME}-0", namespace=NAMESPACE)  # still there
    finally:
        isolation.configure()
    assert not isinstance(isolation.default_scorer(), RayScorer)
    with pytest.raises(ValueError):
        ray.get_actor(f"{POOL_NAME}-0", namespace=NAMESPACE)


@pytest.mark.parametrize("command", [["bench", "build", "--out", "{tmp}"], ["bench", "audit"]])
def test_without_ray_the_option_is_refused_in_one_line(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    argv = [part.format(tmp=tmp_path / "out") for part in command]
    if argv[1] == "audit":
        argv.append(str(tmp_path))
    assert main([*argv, "--ray"]) == 2
    err = capsys.readouterr().err
    assert err == f"argc {' '.join(argv[:2])}: --ray needs Ray: pip install 'argc[ray]'\n"
    assert not (tmp_path / "out").exists()
    from argc.tasks import isolation

    with pytest.raises(ArgcError, match="needs Ray"):
        isolation.configure(ray_address="auto")


def test_an_address_where_nothing_listens_is_refused_at_once():
    from argc.cluster import RayUnavailable, _check_reachable

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(RayUnavailable, match=f"cannot reach Ray at {address}: "):
            _check_reachable(address)
    _check_reachable("auto")  # left to Ray
