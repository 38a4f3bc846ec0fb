"""`argc norms solve` and `argc kg solve` with many worlds in one process: several files,
`-` and JSONL files of generated worlds (`--jsonl`), one report per world in input order
equal to the world's report alone, an error record for a world that fails while the others
go on, exit codes, and the time limit per world (docs/norms.md and docs/kg.md, Many worlds in
one call)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from argc.cli import main

ROOT = Path(__file__).resolve().parent.parent
NORMS = sorted((ROOT / "examples" / "norms").glob("*.norm"))
KG = sorted((ROOT / "examples" / "kg").glob("*.kg"))
ARCHIVE = ROOT / "examples" / "norms" / "archive_entry.norm"
TABLE9 = ROOT / "examples" / "kg" / "table9.kg"
#: The command of each kind of world and its examples.
KINDS = {"norms": NORMS, "kg": KG}

#: A world whose grounding multiplies (80^4 instantiations): it stops at the time limit, far
#: before the instantiation limit (about 10 s on one core), as in tests/test_norms.py.
MULTIPLYING = (
    " ".join(f"p(c{number})." for number in range(80))
    + "\np(A), p(B), p(C), p(D) -> q(A, B, C, D).\n[query: go(c1)]\n"
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def alone(capsys, kind: str, path: Path | str, *options: str) -> dict:
    """The JSON report of one world file solved alone."""
    code, out, _ = run(capsys, kind, "solve", "--json", *options, str(path))
    assert code == 0
    return json.loads(out)


def stdin(monkeypatch, tmp_path: Path, data: str) -> None:
    """Standard input reads `data` (from a file: the reader looks at its descriptor)."""
    path = tmp_path / "stdin"
    path.write_text(data, encoding="utf-8")
    handle = path.open(encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", handle)


def cli(*argv: str, stdin_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "argc.cli", *argv],
        capture_output=True,
        text=True,
        input=stdin_text,
        timeout=120,
        check=False,
    )


# Several worlds equal the worlds one by one -------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_several_worlds_print_each_one_s_record_in_order(kind: str, capsys) -> None:
    paths = KINDS[kind] + KINDS[kind][:1]  # a world given twice is solved twice
    single = [alone(capsys, kind, path) for path in paths]
    assert all("world" not in record for record in single)  # one file: its report alone
    code, out, err = run(capsys, kind, "solve", "--json", *map(str, paths))
    assert (code, err) == (0, "")
    found = records(out)
    assert [record["world"] for record in found] == list(map(str, paths))
    assert [list(record)[0] for record in found] == ["world"] * len(paths)
    assert [{k: v for k, v in record.items() if k != "world"} for record in found] == single


@pytest.mark.parametrize("kind", KINDS)
def test_several_worlds_in_text_each_under_a_header(kind: str, capsys) -> None:
    paths = KINDS[kind]
    texts = []
    for path in paths:
        code, out, _ = run(capsys, kind, "solve", str(path))
        assert code == 0
        texts.append(out)
    code, out, _ = run(capsys, kind, "solve", *map(str, paths))
    assert code == 0
    assert out == "\n".join(
        f"==> {path} <==\n{text}" for path, text in zip(paths, texts, strict=True)
    )


def test_kg_target_applies_to_every_world(capsys) -> None:
    target = "ivory_chess_piece"
    expected = alone(capsys, "kg", TABLE9, "--target", target)
    code, out, err = run(
        capsys, "kg", "solve", "--json", "--target", target, str(TABLE9), *map(str, KG)
    )
    assert code == 2
    found = records(out)
    assert {k: v for k, v in found[0].items() if k != "world"} == expected
    for path, record in zip(KG, found[1:], strict=True):
        if path == TABLE9:
            assert record["target"] == target
        else:
            assert record == {"world": str(path), "error": f"{path}: no object named {target!r}"}
            assert f"argc kg: {path}: no object named {target!r}\n" in err


# A world that fails gives its error record; the others go on --------------------------------------


@pytest.fixture()
def bad_norms(tmp_path: Path) -> dict[str, Path]:
    files = {
        "syntax": tmp_path / "unsafe.norm",
        "no_query": tmp_path / "no_query.norm",
        "missing": tmp_path / "missing.norm",
    }
    files["syntax"].write_text("[norm r1: p(X) => permitted(go(Y))]\n", encoding="utf-8")
    files["no_query"].write_text("p(a).\n", encoding="utf-8")
    return files


def test_bad_norm_worlds_in_the_middle(bad_norms: dict[str, Path], capsys) -> None:
    good = alone(capsys, "norms", ARCHIVE)
    paths = [ARCHIVE, bad_norms["syntax"], bad_norms["no_query"], bad_norms["missing"], ARCHIVE]
    code, out, err = run(capsys, "norms", "solve", "--json", *map(str, paths))
    assert code == 2
    first, syntax, no_query, missing, last = records(out)
    assert first == last == {"world": str(ARCHIVE), **good}
    assert set(syntax) == set(no_query) == set(missing) == {"world", "error"}
    assert syntax["world"] == str(bad_norms["syntax"])
    assert syntax["error"].startswith(f"{bad_norms['syntax']}:1:29: unsafe variable Y")
    assert no_query["error"] == (
        f"{bad_norms['no_query']}: the world has no [query: ACTION] naming the action to decide"
    )
    assert missing["error"].startswith(f"{bad_norms['missing']}: cannot read file")
    # each message on stderr, as one world alone reports it
    for record in (syntax, no_query, missing):
        assert f"argc norms: {record['error']}\n" in err
        code, single_out, single_err = run(capsys, "norms", "solve", record["world"])
        assert (code, single_out, single_err) == (2, "", f"argc norms: {record['error']}\n")


def test_a_bad_world_in_text_shows_its_error_under_its_header(bad_norms, capsys) -> None:
    code, out, err = run(capsys, "norms", "solve", str(bad_norms["no_query"]), str(ARCHIVE))
    assert code == 2
    head = f"==> {bad_norms['no_query']} <==\nerror: {bad_norms['no_query']}: the world has no"
    assert out.startswith(head)
    assert f"\n\n==> {ARCHIVE} <==\nquery: enter_archive(alice)\n" in out
    assert err.count("\n") == 1


def test_bad_kg_worlds_in_the_middle(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.kg"
    bad.write_text("person a: male.\nobject o.\nown(a, k).\n", encoding="utf-8")
    good = alone(capsys, "kg", TABLE9)
    paths = [TABLE9, bad, tmp_path / "missing.kg", TABLE9]
    code, out, err = run(capsys, "kg", "solve", "--json", *map(str, paths))
    assert code == 2
    first, syntax, missing, last = records(out)
    assert first == last == {"world": str(TABLE9), **good}
    assert syntax["error"].startswith(f"{bad}:3:")
    assert missing["error"].startswith(f"{tmp_path / 'missing.kg'}: cannot read file")
    assert err.count("argc kg: ") == 2


# Standard input and JSONL ---------------------------------------------------------------------


def test_a_dash_reads_standard_input(tmp_path: Path, monkeypatch, capsys) -> None:
    expected = alone(capsys, "norms", ARCHIVE)
    stdin(monkeypatch, tmp_path, ARCHIVE.read_text(encoding="utf-8"))
    code, out, _ = run(capsys, "norms", "solve", "--json", "-", str(ARCHIVE))
    assert code == 0
    assert records(out) == [{"world": "<stdin>", **expected}, {"world": str(ARCHIVE), **expected}]
    stdin(monkeypatch, tmp_path, TABLE9.read_text(encoding="utf-8"))
    code, out, _ = run(capsys, "kg", "solve", "--json", str(TABLE9), "-")
    assert code == 0
    assert [record["world"] for record in records(out)] == [str(TABLE9), "<stdin>"]


def test_standard_input_is_read_once(capsys) -> None:
    code, out, err = run(capsys, "norms", "solve", "-", str(ARCHIVE), "-")
    assert (code, out) == (2, "")
    assert err == "argc norms: standard input (-) can be given once\n"


def _texts_alone(capsys, kind: str, rows: list[dict], tmp_path: Path) -> list[dict]:
    """Each row's world written to a file and solved alone."""
    found = []
    for number, row in enumerate(rows):
        path = tmp_path / f"world{number}.{'norm' if kind == 'norms' else 'kg'}"
        path.write_text(row["world"], encoding="utf-8")
        found.append(alone(capsys, kind, path))
    return found


def test_a_generated_surface_set_pipes_straight_in(tmp_path: Path, monkeypatch, capsys) -> None:
    data = tmp_path / "surface.jsonl"
    assert (
        main(["norms", "generate", "--set", "surface", "--families", "1", "--out", str(data)]) == 0
    )
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    expected = _texts_alone(capsys, "norms", rows, tmp_path)
    code, out, err = run(capsys, "norms", "solve", "--json", "--jsonl", str(data))
    assert (code, err) == (0, "")
    found = records(out)
    assert [record.pop("world") for record in found] == [row["id"] for row in rows]
    assert found == expected
    assert [record["answer"] for record in found] == [row["verdict"]["answer"] for row in rows]
    stdin(monkeypatch, tmp_path, data.read_text(encoding="utf-8"))
    code, piped, _ = run(capsys, "norms", "solve", "--json", "--jsonl", "-")
    assert (code, piped) == (0, out)


def test_generated_kg_instances_pipe_straight_in(tmp_path: Path, capsys) -> None:
    data = tmp_path / "ded.jsonl"
    argv = ["kg", "generate", "--family", "deductive", "--depth", "2", "--complexity", "1"]
    assert main([*argv, "--count", "3", "--out", str(data)]) == 0
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    expected = _texts_alone(capsys, "kg", rows, tmp_path)
    code, out, _ = run(capsys, "kg", "solve", "--json", "--jsonl", str(data))
    assert code == 0
    found = records(out)
    assert [record.pop("world") for record in found] == [row["id"] for row in rows]
    assert found == expected


def test_jsonl_lines_without_an_id_or_a_world(tmp_path: Path, capsys) -> None:
    """A row without an id is named FILE:LINE; a line that is not JSON, not an object or
    has no text in the field gives its error record; blank lines are skipped."""
    text = ARCHIVE.read_text(encoding="utf-8")
    data = tmp_path / "worlds.jsonl"
    lines = [
        json.dumps({"world": text}),
        "",
        "{not json",
        json.dumps([text]),
        json.dumps({"id": "w5", "text": text}),
        json.dumps({"id": 6, "world": text}),
    ]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = alone(capsys, "norms", ARCHIVE)
    code, out, err = run(capsys, "norms", "solve", "--json", "--jsonl", str(data))
    assert code == 2
    first, not_json, not_object, no_world, sixth = records(out)
    assert first == {"world": f"{data}:1", **expected}
    assert sixth == {"world": "6", **expected}
    assert not_json["world"] == f"{data}:3" and "not a JSON line" in not_json["error"]
    assert not_object == {
        "world": f"{data}:4",
        "error": f"{data}:4: the line is not a JSON object",
    }
    assert no_world == {"world": "w5", "error": f"w5: the row has no 'world' text (line {data}:5)"}
    assert err.count("\n") == 3
    # --field names the field that holds the text
    code, out, _ = run(capsys, "norms", "solve", "--json", "--jsonl", "--field", "text", str(data))
    assert [record.get("answer") for record in records(out)] == [None] * 3 + ["permitted", None]


def test_an_over_long_jsonl_line_is_its_rows_error_and_not_read_whole(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """A line past MAX_ROW_BYTES (here made small) is skipped to its end, a chunk at a time,
    and reported as its row's error; the rows after it are solved."""
    from argc import worlds

    text = ARCHIVE.read_text(encoding="utf-8")
    monkeypatch.setattr(worlds, "MAX_ROW_BYTES", 4 * len(text))
    data = tmp_path / "worlds.jsonl"
    long_row = json.dumps({"id": "long", "world": text + "%" * (20 * len(text))})
    lines = [long_row, json.dumps({"id": "next", "world": text})]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "norms", "solve", "--json", "--jsonl", str(data))
    assert code == 2
    long, following = records(out)
    assert long["world"] == f"{data}:1" and "a line longer than" in long["error"]
    assert following == {"world": "next", **alone(capsys, "norms", ARCHIVE)}


def test_a_missing_jsonl_file_is_one_error_record(tmp_path: Path, capsys) -> None:
    data = tmp_path / "worlds.jsonl"
    data.write_text(json.dumps({"id": "a", "world": ARCHIVE.read_text()}) + "\n")
    missing = tmp_path / "missing.jsonl"
    code, out, _ = run(capsys, "norms", "solve", "--json", "--jsonl", str(missing), str(data))
    assert code == 2
    failed, solved = records(out)
    assert failed["world"] == str(missing) and "cannot read file" in failed["error"]
    assert solved["world"] == "a" and solved["answer"] == "permitted"


def test_one_jsonl_file_is_named_like_several(tmp_path: Path, capsys) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"id": "only", "world": TABLE9.read_text()}) + "\n")
    code, out, _ = run(capsys, "kg", "solve", "--jsonl", str(data))
    assert code == 0
    assert out.startswith("==> only <==\ntarget: ")


# Limits per world ---------------------------------------------------------------------------------


def test_a_world_past_its_time_limit_gives_a_limit_record_and_the_next_is_solved(
    tmp_path: Path,
) -> None:
    """The engine stops the multiplying world at its own limit (cooperatively, long before
    the watchdog): its limit record, and the world after it solved."""
    world = tmp_path / "multiplying.norm"
    world.write_text(MULTIPLYING, encoding="utf-8")
    done = cli("norms", "solve", "--json", "--time-limit", "1", str(ARCHIVE), str(world), "-",
               stdin_text=ARCHIVE.read_text(encoding="utf-8"))  # fmt: skip
    assert done.returncode == 2
    first, stopped, last = records(done.stdout)
    message = f"{world}: time limit of 1 s exceeded"
    assert stopped == {"world": str(world), "error": message, "limit": "time"}
    assert first["answer"] == last["answer"] == "permitted"
    assert last["world"] == "<stdin>"
    assert done.stderr == f"argc norms: {message}\n"


def test_a_kg_world_past_its_time_limit_and_the_next(tmp_path: Path) -> None:
    """A complete friendship graph with a three-hop rule (tests/test_kg_asp.py) stops at the
    time limit while grounding; the next world is solved."""
    persons = [f"p{index}" for index in range(150)]
    lines = [f"person {name}: male." for name in persons]
    lines += [f"friend({x}, {y})." for i, x in enumerate(persons) for y in persons[i + 1 :]]
    world = tmp_path / "friends.kg"
    world.write_text("\n".join([*lines, "rule pal3: friend, friend, friend."]) + "\n")
    done = cli("kg", "solve", "--json", "--time-limit", "1", str(world), str(TABLE9))
    assert done.returncode == 2
    stopped, solved = records(done.stdout)
    message = f"{world}: time limit of 1 s exceeded"
    assert stopped == {"world": str(world), "error": message, "limit": "time"}
    assert solved["world"] == str(TABLE9) and solved["target"] == "ivory_chess_piece"


def test_a_count_limit_keeps_its_name(tmp_path: Path, monkeypatch, capsys) -> None:
    """A limit other than time keeps which limit it was in the record."""
    import argc.norms as norms_command
    from argc.dsl.errors import LimitExceeded

    def limited(*_args, **_kwargs):
        raise LimitExceeded("more than 5 partial rule instantiations", "instantiations")

    monkeypatch.setattr(norms_command, "solve_world", limited)
    code, out, _ = run(capsys, "norms", "solve", "--json", str(ARCHIVE), str(ARCHIVE))
    assert code == 2
    assert records(out)[0] == {
        "world": str(ARCHIVE),
        "error": f"{ARCHIVE}: more than 5 partial rule instantiations",
        "limit": "instantiations",
    }


def test_out_of_memory_is_one_world_s_record(monkeypatch, capsys) -> None:
    import argc.kg as kg_command

    real = kg_command.solve_kg
    calls = []

    def first_fails(world, limits):
        calls.append(world)
        if len(calls) == 1:
            raise MemoryError
        return real(world, limits)

    monkeypatch.setattr(kg_command, "solve_kg", first_fails)
    code, out, _ = run(capsys, "kg", "solve", "--json", str(TABLE9), str(TABLE9))
    assert code == 2
    failed, solved = records(out)
    assert failed == {
        "world": str(TABLE9),
        "error": f"{TABLE9}: out of memory (--max-memory 4096)",
        "limit": "memory",
    }
    assert solved["target"] == "ivory_chess_piece"


def test_the_watchdog_keeps_the_records_already_printed(tmp_path: Path) -> None:
    """A step that never ends is stopped by the watchdog, which ends the process: the worlds
    before it keep their records, it gets its limit record, and no world after it is
    solved."""
    other = ROOT / "examples" / "norms" / "archive_entry_no_priority.norm"
    script = "\n".join(
        [
            "import sys, time",
            "import argc.norms as command",
            "real, calls = command.solve_world, []",
            "def solve_world(world, limits):",
            "    calls.append(world)",
            "    return time.sleep(600) if len(calls) == 2 else real(world, limits)",
            "command.solve_world = solve_world",
            "from argc.cli import main",
            "sys.exit(main(sys.argv[1:]))",
        ]
    )
    argv = ["norms", "solve", "--json", "--time-limit", "1", str(ARCHIVE), str(other), str(ARCHIVE)]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    first, stopped = records(done.stdout)
    message = f"{other}: time limit of 1 s exceeded"
    assert first["world"] == str(ARCHIVE) and first["answer"] == "permitted"
    assert stopped == {"world": str(other), "error": message, "limit": "time"}
    assert done.stderr.endswith(f"{message}; the process ends: no world after it is solved\n")
