"""One contract for every command: exit codes, one-line errors, quiet broken pipes and
interrupts, validated numbers, defaults and examples in every help, stdin, warnings."""

from __future__ import annotations

import argparse
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from argc import __version__
from argc.cli import EXAMPLES, _commands, build_parser, literal_arguments, main
from argc.dsl.lint import theory_warnings
from argc.dsl.parser import parse_theory
from argc.options import MIN_MEMORY_MIB

EXAMPLE = Path("examples/modgil_prakken_tweety.arg")


def argc_process(*arguments: str, **options) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "argc.cli", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **options,
    )


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"argc {__version__}"


def test_every_command_shows_examples_and_defaults():
    leaves = [(path, command) for path, command in _commands(build_parser())]
    assert {path for path, _ in leaves} - {"bench"} == set(EXAMPLES)
    for path, command in leaves:
        if path == "bench":
            continue
        text = command.format_help()
        assert "examples:\n  argc " in text or "examples:\n  OMP_NUM_THREADS=1 argc" in text
        for action in command._actions:
            meaningful = action.default not in (None, False, [], argparse.SUPPRESS)
            if action.option_strings and meaningful and action.nargs != 0:
                assert "default" in (action.help or "").lower(), (path, action.dest)


def test_an_unexpected_error_is_one_line_exit_2(monkeypatch, capsys):
    from argc.compiler import cli as engine_cli

    def broken(*_args, **_kwargs):
        raise RuntimeError("something inside broke")

    monkeypatch.setattr(engine_cli, "solve", broken)
    assert main(["check", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error: RuntimeError: something inside broke" in err
    assert "--debug" in err and "Traceback" not in err
    assert main(["--debug", "check", str(EXAMPLE)]) == 2
    assert "Traceback" in capsys.readouterr().err
    assert main(["check", str(EXAMPLE), "--debug"]) == 2
    assert "Traceback" in capsys.readouterr().err


def test_a_broken_pipe_exits_quietly():
    files = [str(path) for path in sorted(Path("examples").glob("*.arg"))]
    process = argc_process("check", *files)
    process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait() == 141
    assert err == ""


def test_a_broken_pipe_exits_141_whether_a_command_prints_or_writes_whole():
    """`generate` writes its output whole, past the pipe's buffer: cut short by `| head`,
    it exits 141 as `check`, which prints line by line, does."""
    process = argc_process(
        "generate", "status_query", "--level", "1", "--seed", "0", "--count", "60"
    )
    process.stdout.read(100)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait() == 141
    assert "Traceback" not in err and "cannot write" not in err


def test_ctrl_c_exits_130_quietly():
    # Reading a theory from a pipe that stays open: the command waits until interrupted.
    # SIGINT as a terminal delivers it, even when the suite runs where it is ignored
    # (a background job of a non-interactive shell).
    process = argc_process(
        "check",
        "-",
        "--time-limit",
        "60",
        stdin=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(1.5)  # start-up, then waiting for input
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err == "argc: interrupted\n" and out == ""


@pytest.mark.parametrize("value", ["nan", "-1", "0", "1e308", "inf", "soon"])
def test_time_limits_are_validated(value, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["check", str(EXAMPLE), "--time-limit", value])
    assert exited.value.code == 2
    assert "--time-limit" in capsys.readouterr().err


#: A command of each language that takes --max-memory, with an input of its own.
MEMORY_COMMANDS = {
    "check": ["check", str(EXAMPLE)],
    "norms": ["norms", "solve", "examples/norms/archive_entry.norm"],
    "kg": ["kg", "solve", "examples/kg/table9.kg"],
}


@pytest.mark.parametrize("command", MEMORY_COMMANDS)
def test_a_memory_cap_below_the_floor_is_refused(command, capsys):
    with pytest.raises(SystemExit) as exited:
        main([*MEMORY_COMMANDS[command], "--max-memory", str(MIN_MEMORY_MIB - 1)])
    assert exited.value.code == 2
    assert "--max-memory" in capsys.readouterr().err


@pytest.mark.parametrize("command", MEMORY_COMMANDS)
def test_a_memory_cap_at_the_floor_answers_or_names_the_limit(command):
    """At the least cap accepted, the interpreter still starts its threads and loads its
    modules: the command answers, or reports the limit in one line (never a crash)."""
    argv = [*MEMORY_COMMANDS[command], "--max-memory", str(MIN_MEMORY_MIB)]
    process = argc_process(*argv)
    out, err = process.communicate(timeout=120)
    if process.returncode == 0:
        assert out and err == ""
    else:
        assert process.returncode == 2, err
        assert err.count("\n") == 1 and "internal error" not in err, err


def test_explain_takes_a_negated_literal_after_a_space(capsys):
    assert main(["check", str(EXAMPLE), "--explain", "-flies"]) == 0
    assert "-flies is justified" in capsys.readouterr().out
    assert literal_arguments(["--explain", "--json"]) == ["--explain", "--json"]
    assert literal_arguments(["--explain", "-a", "-b"]) == ["--explain=-a", "-b"]


def test_explain_warns_of_a_literal_the_theory_does_not_name(capsys):
    assert main(["check", str(EXAMPLE), "--explain", "swims"]) == 0
    assert f"{EXAMPLE}: warning: --explain swims: the theory does not name swims" in (
        capsys.readouterr().err
    )


def test_stdin_and_a_byte_order_mark():
    text = "\ufeff" + EXAMPLE.read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "argc.cli", "check", "-"],
        input=text.encode("utf-8"),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("<stdin>: last-link elitist")


def test_a_long_line_is_shortened_in_messages(tmp_path, capsys):
    path = tmp_path / "long.arg"
    path.write_text("[premise: " + "a" * 2_400_000 + " b]\n", encoding="utf-8")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err) < 1_000
    assert "..." in err and err.count("\n") == 3  # message, shortened line, caret


def test_inconsistency_names_its_literals_and_counts_read_well(tmp_path, capsys):
    path = tmp_path / "clash.arg"
    path.write_text("[axiom: a]\n[strict s: a -> c]\n[strict t: a -> -c]\n", encoding="utf-8")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "INCONSISTENT: c and -c are both justified" in out
    assert "3 arguments; 0 attacks (0 undermine, 0 rebut, 0 undercut); 0 defeats" in out
    single = tmp_path / "single.arg"
    single.write_text("[premise: a]\n[axiom: -a]\n", encoding="utf-8")
    main(["check", str(single)])
    assert "2 arguments; 1 attack (1 undermine, 0 rebut, 0 undercut); 1 defeat" in (
        capsys.readouterr().out
    )


# Warnings ---------------------------------------------------------------------------------


def warnings_of(text: str) -> list[str]:
    return [w.located("t.arg") for w in theory_warnings(parse_theory(text, "t.arg"))]


def test_preference_cycles_are_warned_about():
    found = warnings_of(
        "[premise: a]\n[premise: b]\n[defeasible r1: a => c]\n[defeasible r2: b => -c]\n"
        "[defeasible r3: b => d]\n[prefer_rule: r1 > r2]\n[prefer_rule: r2 > r3]\n"
        "[prefer_rule: r3 > r1]\n[prefer_premise: a > b]\n"
    )
    assert found == [
        "t.arg:6:1: warning: the rule preferences among r1, r2, r3 form a cycle: none of"
        " these rules is strictly preferred to another"
    ]
    assert warnings_of("[premise: a]\n[premise: b]\n[prefer_premise: a > b]\n") == []
    assert warnings_of(
        "[premise: a]\n[premise: b]\n[prefer_premise: a > b]\n[prefer_premise: b > a]\n"
    ) == [
        "t.arg:3:1: warning: the premise preferences among a, b form a cycle: none of these"
        " premises is strictly preferred to another"
    ]


def test_rules_named_like_atoms_are_warned_about():
    undercut = "[premise: a]\n[defeasible r: a => b]\n[defeasible u: a => -r]\n[query: -r]\n"
    assert warnings_of(undercut) == []  # -r undercuts r: what names are for
    assert warnings_of("[premise: -r]\n[premise: a]\n[defeasible r: a => b]\n") == []
    clash = "[premise: a]\n[defeasible a: a => b]\n"
    assert warnings_of(clash) == [
        "t.arg:2:1: warning: rule 'a' is named like the atom a the theory also uses;"
        " a there means that the rule applies (-a undercuts it)"
    ]
    strict = "[premise: s]\n[strict s: s -> b]\n"
    assert warnings_of(strict)[0].startswith("t.arg:2:1: warning: rule 's' is named like")


def test_redundant_contradictory_declarations_are_warned_about():
    assert warnings_of("[premise: a]\n[contradictory: a <-> -b]\n") == []
    assert warnings_of("[premise: a]\n  [contradictory: -a <-> a]\n") == [
        "t.arg:2:3: warning: '-a' and 'a' are contradictory anyway (an atom and its negation):"
        " the declaration is redundant"
    ]


# Fuzzing ----------------------------------------------------------------------------------

FLAGS = [
    ["--semantics", "preferred"],
    ["--semantics", "stable"],
    ["--json"],
    ["--json", "--graph"],
    ["--ordering", "weakest-link", "--set", "democratic"],
    ["--explain", "-flies"],
    ["--explain", "@@"],
    ["--max-arguments", "3"],
    ["--max-extensions", "1", "--semantics", "complete"],
    ["--time-limit", "0.001"],
    ["--show", "attacks"],
    ["--export", "apx"],
]


def mutated(text: str, rng: random.Random) -> str:
    """A damaged theory: cut, spliced, repeated, sprinkled with odd characters."""
    kind = rng.randrange(6)
    cut = rng.randrange(len(text) + 1)
    if kind == 0:
        return text[:cut]
    if kind == 1:
        return (
            text[:cut]
            + rng.choice(["\x00", "\ufeff", "]", "[", "=>", "\u2028", "%", "-"])
            + text[cut:]
        )
    if kind == 2:
        lines = text.splitlines()
        return "\n".join(rng.choice(lines) for _ in range(rng.randrange(1, 60)))
    if kind == 3:
        return text.replace(rng.choice(["=>", "->", ":", " AND "]), rng.choice(["", "=>", "AND"]))
    if kind == 4:
        return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 200)))
    return text + "\n" + text.replace("[", "[ ")


@pytest.mark.parametrize("seed", range(60))
def test_no_traceback_from_fuzzed_inputs(seed, tmp_path, capsys):
    rng = random.Random(seed)
    sources = sorted(Path("examples").glob("*.arg"))
    path = tmp_path / "fuzzed.arg"
    path.write_text(mutated(rng.choice(sources).read_text(encoding="utf-8"), rng), "utf-8")
    flags = rng.choice(FLAGS)
    try:
        code = main(["check", str(path), *flags])
    except SystemExit as exited:  # argparse's usage errors
        code = exited.code
    captured = capsys.readouterr()
    assert code in (0, 1, 2)
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    if code == 2:
        assert captured.err.strip()


def test_an_endless_device_is_refused_at_the_size_bound(tmp_path, capsys):
    zero = tmp_path / "zero"
    try:
        os.mknod(zero, 0o600 | stat.S_IFCHR, os.makedev(1, 5))
        zero.open("rb").close()
    except OSError:
        pytest.skip("cannot create a device node here")
    assert main(["check", str(zero)]) == 2
    assert "more than 16,000,000 bytes" in capsys.readouterr().err


@pytest.mark.parametrize(
    "program, message",
    [
        ("#script (python)\ndef f(): return 1\n#end.\n", "#script is not allowed"),
        ("x(@nope(1)).\n", "external function @nope is not allowed"),
        ("x :- .\ny(", "syntax error"),
    ],
)
def test_query_programs_are_checked(tmp_path, capsys, program, message):
    path = tmp_path / "query.lp"
    path.write_text(program, encoding="utf-8")
    assert main(["query", str(EXAMPLE), str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and "Traceback" not in err
