"""`argc bench import-arggym` and the released-gold checks: ArgGYM's released rows (the shared
sample, MIT; tests over it skip when it is absent) become argc instances whose references
score complete success with argc's scorers and whose gold argc's engine reproduces; hand-built
rows in the full and the compact format import to hand-derived instances; malformed files
exit 2 in one line; an imported folder goes through audit, eval, score and report."""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from eval_helpers import fast_backoff, no_ambient_key  # noqa: F401  (autouse fixtures)

from argc.bench import arggym
from argc.cli import main
from argc.tasks import Instance, score, suite_tasks

SAMPLE = Path("/work/shared/arggym-released/sample.jsonl")
needs_sample = pytest.mark.skipif(not SAMPLE.exists(), reason=f"{SAMPLE} not available")


def sample_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


def write_rows(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), "utf-8")
    return path


def read_instances(folder: Path) -> list[Instance]:
    lines = (folder / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    return [Instance.from_record(json.loads(line)) for line in lines]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole shared sample imported through the command line."""
    if not SAMPLE.exists():
        pytest.skip(f"{SAMPLE} not available")
    out = tmp_path_factory.mktemp("released") / "released"
    assert main(["bench", "import-arggym", str(SAMPLE), "--out", str(out)]) == 0
    return out


# The shared sample ---------------------------------------------------------------------------


@needs_sample
def test_every_sample_row_is_imported_as_released(imported: Path) -> None:
    records = {record["id"]: record for record in sample_records()}
    instances = read_instances(imported)
    assert [i.id for i in instances] == list(records)  # ids and order kept
    assert Counter(i.task for i in instances) == Counter({task: 6 for task in suite_tasks()})
    for item in instances:
        record = records[item.id]
        assert item.prompt == record["question"]
        assert item.reference == record["reference_answer"]
        assert item.level == record["level"]
        principle, comparison = record["ordering"].split("_link_")
        assert (item.ordering, item.set) == (f"{principle}-link", comparison)
        assert item.seed == int(item.id.rsplit("/s", 1)[1])
        assert item.meta["released"] == {"state": record["state"], "gold": record["gold"]}
    manifest = json.loads((imported / "manifest.json").read_text("utf-8"))
    assert manifest["taskset"] == arggym.RELEASED_TASKSET
    assert manifest["rows"] == 72 and sorted(manifest["files"]) == ["rows.jsonl", "rows.parquet"]


@needs_sample
@pytest.mark.parametrize("task", suite_tasks())
def test_released_references_score_one(imported: Path, task: str) -> None:
    """(a) Every released reference answer is a complete success for argc's scorer."""
    for item in read_instances(imported):
        if item.task == task:
            found = score(item, f"<answer>{item.reference}</answer>")
            assert (found.native, found.success) == (1.0, True), (item.id, found.reason)


@needs_sample
@pytest.mark.parametrize("task", suite_tasks())
def test_argc_reproduces_the_released_gold(imported: Path, task: str) -> None:
    """(b) argc's engine agrees with every row's gold."""
    for item in read_instances(imported):
        if item.task == task:
            assert arggym.check_released(item) == [], item.id


@needs_sample
def test_targets_carry_the_released_gold(imported: Path) -> None:
    """Spot checks against the sample's first row of a few tasks (values read off the rows)."""
    first = {}
    for item in read_instances(imported):
        first.setdefault(item.task, item)
    assert first["status_query"].target == {
        "ho3": "undecided",
        "gx3": "overruled",
        "lo8": "justified",
    }
    assert first["claim_chain"].target == {
        "claim": "js3",
        "derivation": [
            "[premise: ar6]",
            "[defeasible ku5: ar6 => lu6]",
            "[defeasible ra7: lu6 => mq3]",
            "[defeasible vo3: mq3 => js3]",
        ],
    }
    assert first["perturbation"].meta["added"] == ["[defeasible te8: gt0 => -li1]"]
    assert first["semantics_query"].target[0] == ["jo7", "credulous preferred", "overruled"]
    attack = first["attack"].target
    assert (attack["goals"], attack["initial"], attack["min_directives"]) == (
        {"kp1": "overruled"},
        {"kp1": "justified"},
        2,
    )
    assert attack["candidate_space"] == []
    assert attack["witness"] == ["[defeasible k1: jm2 => -hi6]", "[defeasible k2: jm2 => -do8]"]


def mutated(item: Instance, change) -> Instance:
    target = copy.deepcopy(item.target)
    change(target)
    return replace(item, target=target)


def first_of(imported: Path, task: str) -> Instance:
    return next(item for item in read_instances(imported) if item.task == task)


def _flip(mapping: dict[str, str], claim: str) -> None:
    mapping[claim] = "undecided" if mapping[claim] != "undecided" else "justified"


@needs_sample
def test_the_gold_checks_catch_a_wrong_gold(imported: Path) -> None:
    """Each check fails when one value of the gold is changed."""
    changes = {
        "status_query": lambda t: _flip(t, "ho3"),
        "formalization": lambda t: _flip(t["claims"], "dl3"),
        "perturbation": lambda t: t.pop("cq2"),
        "claim_chain": lambda t: t["derivation"].pop(1),
        "semantics_query": lambda t: t[0].__setitem__(2, "justified"),
        "defeat_diagnosis": lambda t: t["failures"][0].__setitem__("kind", "rebut"),
        "preference_construction": lambda t: t.__setitem__("min_directives", 2),
        "attack": lambda t: t.__setitem__("min_directives", 1),
    }
    for task, change in changes.items():
        assert arggym.check_released(mutated(first_of(imported, task), change)), task


@needs_sample
def test_a_wrong_current_status_in_the_question_is_caught(imported: Path) -> None:
    item = first_of(imported, "attack")
    wrong = item.prompt.replace("kp1 is currently justified", "kp1 is currently undecided")
    assert wrong != item.prompt
    assert arggym.check_released(replace(item, prompt=wrong)) == [
        "the question says kp1 is currently undecided; argc: justified"
    ]


@needs_sample
def test_preference_construction_minimum_over_argc_space(imported: Path) -> None:
    """The released minimum is also argc's over its declared space: a row claiming one
    directive fewer than the reference needs fails both searches."""
    item = first_of(imported, "preference_construction")
    assert item.target["min_directives"] == 1
    problems = arggym.check_released(mutated(item, lambda t: t.__setitem__("min_directives", 2)))
    assert problems == [
        "argc's minimum within the reference is 1; released 2",
        "argc's minimum within argc's candidate space is 1; released 2",
    ]


# Hand-built rows -----------------------------------------------------------------------------

THEORY = [
    {"kind": "premise", "content": "a"},
    {"kind": "premise", "content": "-a"},
    {"kind": "premise", "content": "c"},
    {"kind": "premise", "content": "-c"},
    {"kind": "defeasible", "name": "r1", "antecedents": ["a"], "consequent": "b"},
    {"kind": "prefer_premise", "stronger": "a", "weaker": "-a"},
]
DIRECTIVES = "[premise: a]\n[premise: -a]\n[premise: c]\n[premise: -c]\n"
DIRECTIVES += "[defeasible r1: a => b]\n[prefer_premise: a > -a]"
#: a is preferred to -a, so only a's undermine succeeds: a and b justified, -a overruled;
#: c and -c undermine each other: both undecided.
GOLD = {"b": "JUSTIFIED", "-a": "OVERRULED", "c": "UNDECIDED"}
QUESTION = (
    "The following is a defeasible argumentation theory, evaluated under grounded semantics"
    f" with the weakest-link democratic strength ordering.\n\n{DIRECTIVES}\n\n"
    "State the status of each of the following claims: b, -a, c."
)


def full_row(**changes: Any) -> dict[str, Any]:
    metadata = {
        "source_dataset": "status_query",
        "seed": 3,
        "level": 2,
        "ordering": "weakest_link_democratic",
        "base_ops": THEORY,
        "state": {"queried": ["b", "-a", "c"]},
        "gold": {"gold": GOLD, "metadata": {}},
    }
    row = {
        "id": "status_query/L2/weakest_link_democratic/s3",
        "task": "status_query",
        "question": QUESTION,
        "reference_answer": "b: justified\n-a: overruled\nc: undecided",
        "metadata": metadata,
    }
    row.update(changes)
    return row


def compact_row() -> dict[str, Any]:
    row = full_row()
    metadata = row.pop("metadata")
    row.update({key: metadata[key] for key in ("level", "ordering", "state", "gold")})
    return row


def test_full_and_compact_rows_import_alike(tmp_path: Path) -> None:
    manifest = {"__manifest__": {"taskset_hash": "abc", "versions": {"prompt_version": 13}}}
    full = write_rows(tmp_path / "full.jsonl", [manifest, full_row()])
    compact = write_rows(tmp_path / "compact.jsonl", [compact_row()])
    for source in (full, compact):
        assert main(["bench", "import-arggym", str(source), "--out", str(tmp_path / "out")]) == 0
        (item,) = read_instances(tmp_path / "out")
        assert (item.id, item.ordering, item.set, item.seed, item.level) == (
            "status_query/L2/weakest_link_democratic/s3",
            "weakest-link",
            "democratic",
            3,
            2,
        )
        assert item.target == {"b": "justified", "-a": "overruled", "c": "undecided"}
        assert item.theory.startswith("[query: b, -a, c]\n")
        assert arggym.check_released(item) == []
        assert score(item, f"<answer>{item.reference}</answer>").success
    written = json.loads((tmp_path / "out" / "manifest.json").read_text("utf-8"))
    assert written["source"]["file"] == "compact.jsonl"
    main(["bench", "import-arggym", str(full), "--out", str(tmp_path / "out")])
    written = json.loads((tmp_path / "out" / "manifest.json").read_text("utf-8"))
    assert written["source"]["taskset_hash"] == "abc"
    assert written["source"]["versions"] == {"prompt_version": 13}


def test_a_wrong_hand_gold_is_caught(tmp_path: Path) -> None:
    row = full_row()
    row["metadata"]["gold"] = {"gold": {**GOLD, "c": "JUSTIFIED"}}
    row["reference_answer"] = "b: justified\n-a: overruled\nc: justified"
    (item,) = [
        arggym.instance(r) for r in arggym.read_release(write_rows(tmp_path / "r", [row]))[1]
    ]
    assert arggym.check_released(item) == [
        "grounded statuses: c argc undecided / released justified"
    ]


def perturbation_row(gold: dict[str, str]) -> dict[str, Any]:
    """p => q, then s and k1: s => -r1 added: r1 is undercut, so q goes from justified to
    overruled; -r1 and s had no argument before."""
    return {
        "id": "perturbation/L1/last_link_elitist/s0",
        "task": "perturbation",
        "question": "Theory:\n\n[premise: p]\n[defeasible r1: p => q]\n\nThe following"
        " directives are then added to the theory:\n\n[premise: s]\n[defeasible k1: s => -r1]"
        "\n\nWhich claims of the original theory change status?",
        "reference_answer": "\n".join(f"{c}: {s.lower()}" for c, s in gold.items()),
        "level": 1,
        "ordering": "last_link_elitist",
        "state": {},
        "gold": {"gold": gold},
    }


def test_perturbation_claims_are_those_argued_before(tmp_path: Path) -> None:
    source = tmp_path / "p.jsonl"
    write_rows(source, [perturbation_row({"q": "OVERRULED"})])
    (item,) = [arggym.instance(row) for row in arggym.read_release(source)[1]]
    assert item.meta["added"] == ["[premise: s]", "[defeasible k1: s => -r1]"]
    assert arggym.check_released(item) == []
    write_rows(source, [perturbation_row({"q": "OVERRULED", "-r1": "JUSTIFIED"})])
    (item,) = [arggym.instance(row) for row in arggym.read_release(source)[1]]
    assert arggym.check_released(item) == ["changed claims: -r1 argc None / released justified"]


# Malformed input -----------------------------------------------------------------------------


def _without_gold() -> dict[str, Any]:
    row = full_row()
    del row["metadata"]["gold"]
    return row


BAD_FILES = {
    "not JSON": ("{", "bad.jsonl:1: not JSON"),
    "unknown task": (full_row(task="riddle"), "unknown task 'riddle'"),
    "unknown ordering": (
        full_row(metadata={**full_row()["metadata"], "ordering": "last_link_fancy"}),
        "unknown ordering 'last_link_fancy'",
    ),
    "no gold": (_without_gold(), "'gold' is missing"),
    "bad status": (
        full_row(metadata={**full_row()["metadata"], "gold": {"gold": {"b": "maybe"}}}),
        "gold.gold must be a map from claims to statuses",
    ),
    "no theory": (
        {**compact_row(), "question": "no directives here"},
        "no base_ops and its question no directive block",
    ),
    "bad operation": (
        full_row(metadata={**full_row()["metadata"], "base_ops": [{"kind": "axiom_x"}]}),
        "unknown operation kind 'axiom_x'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_malformed_rows_exit_2_in_one_line(tmp_path: Path, capsys, case: str) -> None:
    content, expected = BAD_FILES[case]
    source = tmp_path / "bad.jsonl"
    if isinstance(content, str):
        source.write_text(content + "\n", "utf-8")
    else:
        write_rows(source, [content])
    assert main(["bench", "import-arggym", str(source), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and expected in error, error
    assert not (tmp_path / "o").exists()


def test_repeated_ids_and_empty_files_are_refused(tmp_path: Path, capsys) -> None:
    source = write_rows(tmp_path / "twice.jsonl", [full_row(), full_row()])
    assert main(["bench", "import-arggym", str(source), "--out", str(tmp_path / "o")]) == 2
    assert "twice.jsonl:2: id status_query/L2/weakest_link_democratic/s3 already on line 1" in (
        capsys.readouterr().err
    )
    empty = write_rows(tmp_path / "empty.jsonl", [{"__manifest__": {}}])
    assert main(["bench", "import-arggym", str(empty), "--out", str(tmp_path / "o")]) == 2
    assert "no rows" in capsys.readouterr().err


# The imported folder through audit, eval, score and report ----------------------------------


@pytest.fixture(scope="module")
def one_per_task(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first sample row of each task, imported."""
    if not SAMPLE.exists():
        pytest.skip(f"{SAMPLE} not available")
    folder = tmp_path_factory.mktemp("twelve")
    firsts: dict[str, dict] = {}
    for record in sample_records():
        firsts.setdefault(record["task"], record)
    source = write_rows(folder / "twelve.jsonl", list(firsts.values()))
    assert main(["bench", "import-arggym", str(source), "--out", str(folder / "out")]) == 0
    return folder / "out"


@needs_sample
def test_audit_of_an_imported_folder(one_per_task: Path, tmp_path: Path) -> None:
    report = tmp_path / "audit.md"
    argv = ["bench", "audit", str(one_per_task), "--workers", "1", "--out", str(report)]
    assert main(argv) == 0
    text = report.read_text("utf-8")
    assert "| argc's engine reproduces the released gold (`gold`) | 12 rows | 0 |" in text
    assert "| reference rescoring (`rescoring`) | 12 rows | 0 |" in text
    assert "| manifest and files (`manifest`) | 4 items | 0 |" in text
    assert "regeneration" not in text


@needs_sample
def test_eval_score_and_report_on_an_imported_folder(one_per_task: Path, tmp_path: Path) -> None:
    instances = read_instances(one_per_task)
    answers = {item.prompt: f"<answer>{item.reference}</answer>" for item in instances}
    run = tmp_path / "right.jsonl"
    with ChatServer(lambda prompt: (answers[prompt], "stop")) as server:
        argv = ["eval", str(one_per_task), "--base-url", server.url, "--model", "m"]
        assert main([*argv, "--out", str(run), "--retries", "1"]) == 0
    records = [json.loads(line) for line in run.read_text("utf-8").splitlines()]
    assert sorted(r["id"] for r in records) == sorted(i.id for i in instances)
    assert all(r["success"] for r in records)
    predictions = write_rows(
        tmp_path / "predictions.jsonl",
        [{"id": i.id, "response": answers[i.prompt]} for i in instances],
    )
    results = tmp_path / "results.jsonl"
    rows = str(one_per_task / "rows.jsonl")
    assert main(["score", rows, str(predictions), "--out", str(results)]) == 0
    scored = [json.loads(line) for line in results.read_text("utf-8").splitlines()]
    assert len(scored) == 12 and all(r["success"] for r in scored)
    out = tmp_path / "report"
    assert main(["report", str(run), "--out", str(out)]) == 0
    summary = json.loads((out / "report.json").read_text("utf-8"))["runs"][0]
    assert (summary["successes"], summary["n"]) == (12, 12)
    assert summary["diagnostics"]["compliance"] == 100.0
