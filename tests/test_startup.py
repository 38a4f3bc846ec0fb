"""Start-up of the `argc` command: what the engine's commands import, the command line built
for one command group at a time, the `.arg` scanner against Lark, and the per-user cache of
Lark's parser."""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_theories import random_theory

from argc import cli
from argc.compiler import cli as engine_cli
from argc.dsl import parser as parser_module
from argc.dsl import syntax
from argc.dsl.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.arg"))
TWEETY = ROOT / "examples" / "modgil_prakken_tweety.arg"

#: Modules the engine's commands must not import: the other command groups, their
#: dependencies, and Lark (the scanner reads well-formed theories without it).
HEAVY = (
    "argc.tasks",
    "argc.bench",
    "argc.train",
    "argc.cluster",
    "tqdm",
    "numpy",
    "torch",
    "transformers",
    "datasets",
    "pyarrow",
    "matplotlib",
    "py_arg",
    "ray",
    "lark",
)

#: What a plain `argc check` does not import: the modules of other options (json for
#: --json), what argc reads or computes without them (importlib.resources and the zipfile,
#: tempfile and compression modules it brings; shutil, which argparse's help formatter
#: imports for the terminal's width; math) and the other command groups' modules.
LAZY = (
    "json",
    "importlib.resources",
    "zipfile",
    "tempfile",
    "shutil",
    "bz2",
    "lzma",
    "math",
    "argc.norms",
    "argc.kg",
    "argc.serve",
    "argc.files",
)

_PROBE = """\
import sys
from argc.cli import main
code = main(sys.argv[1:])
print("\\nexit", code, " ".join(sorted(sys.modules)))
"""


def modules_after(*arguments: str, env: dict | None = None) -> tuple[int, set[str]]:
    """The exit code of `argc ARGUMENTS` run in a fresh interpreter, and every module it
    had imported when it ended."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    last = done.stdout.splitlines()[-1].split(" ", 2)
    assert last[0] == "exit", done.stderr
    return int(last[1]), set(last[2].split())


def heavy(modules: set[str]) -> list[str]:
    return sorted(
        name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )


@pytest.fixture
def apx(tmp_path: Path) -> Path:
    path = tmp_path / "framework.apx"
    path.write_text("arg(a). arg(b). att(a,b).\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "arguments",
    [
        ["check", str(ROOT / "examples" / "arggym_c1_status_query.arg")],
        ["check", "--json", "--graph", "--explain", "-flies", str(TWEETY)],
        ["check", "--semantics", "preferred", "--show", "attacks", *map(str, EXAMPLES)],
        ["query", str(TWEETY), str(ROOT / "examples" / "new_task" / "undercut_status.lp")],
    ],
)
def test_the_engine_imports_only_the_engine(arguments):
    code, modules = modules_after(*arguments)
    assert code in (0, 1)  # 1: the query's constraints fail on this theory
    assert heavy(modules) == []
    assert "argc.compiler.cli" in modules


def test_check_imports_nothing_it_does_not_use():
    for arguments in (
        ["check", str(TWEETY)],
        ["check", "--semantics", "preferred", "--show", "attacks", *map(str, EXAMPLES)],
    ):
        code, modules = modules_after(*arguments)
        assert code in (0, 1)
        assert [name for name in LAZY if name in modules] == []
    _, modules = modules_after("check", "--json", str(TWEETY))
    assert "json" in modules


def test_af_imports_only_the_engine(apx):
    code, modules = modules_after("af", str(apx))
    assert code == 0
    assert heavy(modules) == []
    assert "argc.dsl.iccma" in modules


def test_check_without_export_skips_frameworks_and_output_files():
    _, modules = modules_after("check", str(TWEETY))
    assert {"argc.files", "argc.dsl.iccma", "argc.compiler.frameworks"}.isdisjoint(modules)


def test_checking_one_file_adds_the_encodings_as_text():
    """A process's first Control adds the encodings' text: no syntax trees, no clingo.ast."""
    code, modules = modules_after("check", str(TWEETY))
    assert code == 0
    assert "clingo.ast" not in modules and "argc.compiler.batch" not in modules


@pytest.mark.parametrize("semantics", ["grounded", "preferred", "semi-stable", "ideal"])
def test_encodings_added_as_text_or_as_trees_solve_alike(monkeypatch, semantics):
    """The first load of an encoding in a process adds its text, later ones its parsed
    statements: both give the same arguments, attacks, extensions and statuses."""
    from argc.compiler import control, solve
    from argc.compiler.report import as_record

    for seed in range(12):
        theory = random_theory(seed)
        monkeypatch.setattr(control, "_ADDED", set())
        as_text = solve(theory, semantics=semantics)
        assert control._ADDED  # the next solve adds the parsed statements
        as_trees = solve(theory, semantics=semantics)
        assert as_record(as_text, "t", graph=True) == as_record(as_trees, "t", graph=True)


def test_a_syntax_error_brings_lark_in_and_reads_as_before(tmp_path):
    path = tmp_path / "broken.arg"
    path.write_text("[premise: a]\n[defeasible r: a => ]\n", encoding="utf-8")
    code, modules = modules_after("check", str(path))
    assert code == 2
    assert "lark" in modules
    assert set(heavy(modules)) == {m for m in modules if m == "lark" or m.startswith("lark.")}


def test_constants_mirror_their_modules():
    from argc.dsl.iccma import FORMATS
    from argc.files import STDOUT

    assert engine_cli.STDOUT == STDOUT
    assert engine_cli.AF_FORMATS == FORMATS


# The command line, one group at a time ------------------------------------------------------


def _choices(parser: argparse.ArgumentParser) -> dict[str, str]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {pseudo.dest: pseudo.help for pseudo in action._choices_actions}


def test_groups_name_every_command_with_its_summary():
    registered = _choices(cli.build_parser())
    listed = {name: summary for group in cli.GROUPS.values() for name, summary in group.items()}
    assert list(registered) == list(listed)
    assert registered == listed


@pytest.fixture
def columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")


def test_every_help_is_the_same_built_for_one_group(columns):
    full = cli.build_parser()
    helps = {path: command.format_help() for path, command in cli._commands(full)}
    for group in cli.GROUPS.values():
        for name in group:
            lazy = cli.build_parser({name})
            assert lazy.format_help() == full.format_help()
            for path, command in cli._commands(lazy):
                if path == name or path.startswith(name + " "):
                    assert command.format_help() == helps[path], path
    assert cli.build_parser(set()).format_help() == full.format_help()


@pytest.mark.parametrize("arguments", [[], ["nope"], ["--debug"], ["check"], ["bench"]])
def test_usage_errors_are_the_same(arguments, columns, capsys):
    with pytest.raises(SystemExit) as full:
        cli.build_parser().parse_args(arguments)
    expected = capsys.readouterr().err
    with pytest.raises(SystemExit) as lazy:
        cli.main(arguments)
    assert lazy.value.code == full.value.code == 2
    assert capsys.readouterr().err == expected


@pytest.mark.parametrize(
    ("arguments", "command"),
    [
        (["check", "x.arg"], "check"),
        (["--debug", "query", "t.arg", "q.lp"], "query"),
        (["--deb", "af", "f.apx"], "af"),
        (["--", "score", "a", "b"], "score"),
        (["--debug"], None),
        (["-h"], None),
        ([], None),
        (["bench", "build", "--out", "b"], "bench"),
    ],
)
def test_the_command_named(arguments, command):
    assert cli.command_named(arguments) == command


@pytest.mark.parametrize(
    ("arguments", "alone"),
    [
        (["check", "x.arg"], True),
        (["--debug", "query", "t.arg", "q.lp"], True),
        (["bench", "build", "--out", "b"], True),
        (["-h", "check"], False),  # argc's help, every command listed
        (["--debug", "--help", "check"], False),
        (["--deb", "af", "f.apx"], False),
        (["--", "score", "a", "b"], False),
        (["nope", "x"], False),
        (["--debug"], False),
        ([], False),
    ],
)
def test_a_command_runs_alone_when_nothing_before_it_shows_the_others(arguments, alone):
    assert cli.runs_alone(arguments, cli.command_named(arguments)) is alone


def test_a_command_built_alone_reads_and_helps_as_with_every_command(columns):
    """What `main` builds for a command that runs alone: that command as in the full command
    line, and no command of another group (nor, for the engine's, of its own)."""
    full = dict(cli._commands(cli.build_parser()))
    for group in cli.GROUPS.values():
        for name in group:
            alone = dict(cli._commands(cli.build_parser({name}, others=False)))
            assert name in alone
            assert {path.split()[0] for path in alone} <= set(group)
            for path, command in alone.items():
                assert command.format_help() == full[path].format_help(), path
    for name in cli.GROUPS["argc.compiler.cli"]:
        assert list(dict(cli._commands(cli.build_parser({name}, others=False)))) == [name]


@pytest.mark.parametrize("value", [None, "100", "37", "0", "-5", "wide"])
def test_help_is_as_wide_as_argparse_makes_it(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", value)
    assert cli._columns() == shutil.get_terminal_size().columns


_FREEZE_PROBE = """\
import gc, sys
from argc.cli import main
sys.argv[1:] = {argv!r}
code = main({given})
print(code, gc.get_freeze_count() > 0)
"""


@pytest.mark.parametrize(("given", "frozen"), [("", True), ("sys.argv[1:]", False)])
def test_only_the_console_script_leaves_its_objects_out_of_the_last_collections(given, frozen):
    """`main()` (the console script) freezes what is alive before the process ends; a caller
    that passes its arguments (a test, a longer process) keeps its collector as it was."""
    probe = _FREEZE_PROBE.format(argv=["check", str(TWEETY)], given=given)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.splitlines()[-1] == f"0 {frozen}"


def test_the_command_help_runs_lazily(columns):
    done = subprocess.run(
        [sys.executable, "-m", "argc.cli", "check", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "100"},
        check=True,
    )
    (check,) = [command for path, command in cli._commands(cli.build_parser()) if path == "check"]
    assert done.stdout == check.format_help()


# The scanner against Lark -----------------------------------------------------------------

#: The grammar the scanner was written for. When theory.lark changes, check that
#: `parser._Scanner` still reads exactly what the grammar allows, then update this hash.
GRAMMAR_SHA256 = "7a0d1f18896faa23d5f0a44aaa5d54fcd2b768c9fea19340182d8969bf6a2987"


def test_the_scanner_follows_the_grammar():
    grammar = (ROOT / "dsl" / "theory.lark").read_bytes()
    assert hashlib.sha256(grammar).hexdigest() == GRAMMAR_SHA256


def by_lark(text: str):
    """Lark's directives with their positions, or the class of its error."""
    try:
        found = parser_module._lark_directives(text, "<input>", None)
    except InputError as error:
        return type(error)
    return [(directive, directive.position) for directive in found]


def by_scanner(text: str):
    found = parser_module._scanned(text, None)
    return None if found is None else [(directive, directive.position) for directive in found]


def test_the_scanner_reads_the_examples_and_random_theories_as_lark_does():
    texts = [path.read_text(encoding="utf-8") for path in EXAMPLES]
    texts += [random_theory(seed).to_text() for seed in range(40)]
    for text in texts:
        scanned = by_scanner(text)
        assert scanned is not None
        assert scanned == by_lark(text)


#: Pieces of the language (and a few strangers) that texts are built and damaged from.
PIECES = [
    " ", "\n", "\t", "\r\n", "\f", "% note\n", "%", "[", "]", ":", ",", "-", ">", "~>", "=>",
    "->", "<->", "<-", "<", "AND", "ANDx", "a", "b1", "_c", "Z", "1", "é", "\u2028", "axiom",
    "premise", "defeasible", "strict", "prefer_rule", "prefer_premise", "contrary",
    "contradictory", "contradictoryx", "ordering", "semantics", "query", "last-link",
    "weakest-link", "elitist", "democratic", "mp2013", "grounded", "semi-stable", "nope", "-x-",
    "Last",
]  # fmt: skip


@st.composite
def damaged(draw) -> str:
    """A theory's text with pieces inserted, removed or swapped at random places."""
    seed = draw(st.integers(0, 10_000))
    text = random_theory(seed).to_text() if seed % 3 else draw(st.sampled_from(EXAMPLES_TEXT))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "respace"]))
        if action == "insert":
            text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 6)) :]
        else:
            text = text.replace(" ", draw(st.sampled_from(["", "  ", "\n", " % c\n ", "\t"])))
    return text


EXAMPLES_TEXT = [path.read_text(encoding="utf-8") for path in EXAMPLES]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_the_scanner_reads_nothing_lark_would_not(text):
    """What the scanner reads, Lark reads the same (directives and positions); what Lark
    refuses, the scanner leaves to Lark."""
    scanned = by_scanner(text)
    if scanned is not None:
        assert scanned == by_lark(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_the_scanner_on_token_soup(text):
    scanned = by_scanner(text)
    if scanned is not None:
        assert scanned == by_lark(text)


#: Contradictory declarations, well-formed and damaged.
CONTRADICTORY_TEXTS = [
    "[contradictory: a <-> b]",
    "[contradictory:-a<->-b]",
    "[contradictory: a <->\n  % both ways\n -b]",
    "\t[contradictory :a<-> b ]\n[contradictory: b <-> a]",
    "[contradictory: a <-> a]",
    "[contradictory: a <-> -a]",
    "[contradictory: a ~> b]",
    "[contradictory: a -> b]",
    "[contradictory: a <- > b]",
    "[contradictory: a < -> b]",
    "[contradictory: a <--> b]",
    "[contradictory: a <->> b]",
    "[contradictory: a <-> --b]",
    "[contradictory: a <-> b c]",
    "[contradictory: a b]",
    "[contradictory: a <->]",
    "[contradictory: <-> b]",
    "[contradictory a <-> b]",
    "[contradictory: a <-> b",
    "[contradictoryx: a <-> b]",
    "[contradict: a <-> b]",
    "[contrary: a <-> b]",
    "[prefer_premise: a <-> b]",
    "[defeasible contradictory: contradictory => contrary]",
    "[contradictory: contradictory <-> -contrary]",
]


@pytest.mark.parametrize("text", CONTRADICTORY_TEXTS)
def test_the_scanner_reads_exactly_the_contradictory_declarations_lark_reads(text):
    """What Lark reads the scanner reads the same (a self-contradictory pair included: the
    theory checks refuse it later); what Lark refuses the scanner leaves to Lark."""
    lark = by_lark(text)
    assert by_scanner(text) == (None if lark is InputError else lark)


def test_a_scanned_error_is_lark_s(tmp_path):
    text = "[premise: a]\n[ordering: last-link sometimes]\n"
    with pytest.raises(InputError) as caught:
        parser_module.parse_directives(text, "t.arg")
    assert str(caught.value).startswith("t.arg:2:12: unknown ordering setting 'sometimes'")


# Lark's parser, cached per user -------------------------------------------------------------


def test_the_cache_is_a_private_folder_keyed_by_grammar_and_versions(tmp_path, monkeypatch):
    import lark

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = syntax.cache_path("grammar text", "theory")
    assert path is not None and path.parent == tmp_path / "argc"
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert f"lark{lark.__version__}" in path.name
    assert path != syntax.cache_path("another grammar", "theory")


def test_a_relative_cache_home_means_the_home_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path))
    path = syntax.cache_path("grammar text", "theory")
    assert path is not None and path.parent == tmp_path / ".cache" / "argc"


def test_no_cache_where_the_folder_cannot_be_made_or_is_shared(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert syntax.cache_path("grammar text", "theory") is None
    shared = tmp_path / "shared"
    (shared / "argc").mkdir(parents=True)
    (shared / "argc").chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    assert syntax.cache_path("grammar text", "theory") is None


_BROKEN = "[premise: a]\n[defeasible r: a => ]\n"


def _error_in_fresh_process(cache_home: Path) -> subprocess.CompletedProcess:
    code = (
        "import sys\n"
        "from argc.dsl.parser import parse_directives\n"
        "try:\n"
        f"    parse_directives({_BROKEN!r}, 't.arg')\n"
        "except Exception as error:\n"
        "    print(error)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(cache_home)},
        check=True,
    )


def test_errors_read_the_same_with_a_cache_new_used_corrupt_or_impossible(tmp_path):
    with pytest.raises(InputError) as caught:
        parser_module.parse_directives(_BROKEN, "t.arg")
    expected = f"{caught.value}\n"
    home = tmp_path / "cache"
    first = _error_in_fresh_process(home)
    # the grammar's parser (argc.dsl.records may cache compiled dataclass methods beside it)
    (cached,) = (home / "argc").glob("theory-*.lark")
    again = _error_in_fresh_process(home)
    cached.write_bytes(b"not a parser\n\x80\x04garbage")
    corrupt = _error_in_fresh_process(home)
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    impossible = _error_in_fresh_process(blocker)
    for done in (first, again, corrupt, impossible):
        assert (done.stdout, done.stderr) == (expected, "")
    assert cached.read_bytes().startswith(b"not a parser") is False  # rebuilt and rewritten


# The start-up benchmark ---------------------------------------------------------------------


def test_the_startup_benchmark_runs_and_agrees_with_pyarg(monkeypatch):
    import importlib.util

    pytest.importorskip("py_arg")
    spec = importlib.util.spec_from_file_location(
        "startup_benchmark", ROOT / "benchmarks" / "startup.py"
    )
    startup = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, startup)
    spec.loader.exec_module(startup)
    rows = startup.startup_rows(1, sizes=(20,), theories=1, examples=False)
    (row,) = rows
    assert row["agree"] and row["directives"] == 20
    assert row["argc_s"] > 0 and row["pyarg_s"] > 0 and row["ratio"] > 0
    assert "| arggym_theory(20, 0) | 20 |" in startup.table(rows)
