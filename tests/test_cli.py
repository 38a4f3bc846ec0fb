"""The `argc check` command line: JSON records, human summaries, explanations, exit codes.

Every expected outcome below is derived by hand from the theory it is asserted on (the
derivations are in the comments), never copied from the engine's output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argc.cli import main
from argc.compiler.cli import EXIT_INCONSISTENT, EXIT_INPUT_ERROR, EXIT_OK

RECORD_KEYS = {
    "file",
    "ordering",
    "set",
    "comparison",
    "semantics",
    "arguments",
    "defeats",
    "extensions",
    "statuses",
    "acceptance",
    "consistent",
}

# A small theory with all three kinds of attack, preferences that make some attacks fail,
# reinstatement, a rule with two antecedents (written out of sorted order) and an
# unresolved conflict.
#
# Arguments (13): the premise/axiom arguments -b, -e, a, b, c, e and
#   r1(a): x   r2(c): -x   r3(b): -r4   r4(a): y   r5(b,r2(c)): z   r6(r1(a)): w   r7(c): -r3
# Attacks (attacker, attacked, on, kind, defeat) under last-link elitist:
#   r2(c) rebuts r1(a) and r6(r1(a)) on r1(a): succeeds ({r1} is below {r2})
#   r1(a) rebuts r2(c) and r5(b,r2(c)) on r2(c): fails (r1 < r2)
#   b undermines -b: succeeds; -b undermines b, r3(b), r5(b,r2(c)) on b: fails (-b < b)
#   e and -e undermine each other: both succeed (no preference)
#   r3(b) undercuts r4(a); r7(c) undercuts r3(b): undercuts always succeed
#   => 6 undermine, 4 rebut, 2 undercut; 7 defeats.
# Grounded: a, b, c, r2(c), r5(b,r2(c)), r7(c) have no defeaters; they knock out -b, r1(a),
#   r6(r1(a)), r3(b); r4(a) is then defended by r7(c); e and -e stay undecided.
THEORY = """\
[axiom: c]
[premise: a]
[premise: b]
[premise: -b]
[premise: e]
[premise: -e]
[prefer_premise: b > -b]
[defeasible r1: a => x]
[defeasible r2: c => -x]
[prefer_rule: r2 > r1]
[defeasible r3: b => -r4]
[defeasible r4: a => y]
[defeasible r7: c => -r3]
[defeasible r5: -x AND b => z]
[defeasible r6: x => w]
"""

ARGUMENTS = [
    "-b",
    "-e",
    "a",
    "b",
    "c",
    "e",
    "r1(a)",
    "r2(c)",
    "r3(b)",
    "r4(a)",
    "r5(b,r2(c))",
    "r6(r1(a))",
    "r7(c)",
]
DEFEATS = [
    ["-e", "e"],
    ["b", "-b"],
    ["e", "-e"],
    ["r2(c)", "r1(a)"],
    ["r2(c)", "r6(r1(a))"],
    ["r3(b)", "r4(a)"],
    ["r7(c)", "r3(b)"],
]
GROUNDED = ["a", "b", "c", "r2(c)", "r4(a)", "r5(b,r2(c))", "r7(c)"]
STATUSES = {
    "-a": "overruled",  # no argument
    "-b": "overruled",
    "-c": "overruled",  # no argument
    "-e": "undecided",
    "-r3": "justified",
    "-r4": "overruled",
    "-w": "overruled",  # no argument
    "-x": "justified",
    "-y": "overruled",  # no argument
    "-z": "overruled",  # no argument
    "a": "justified",
    "b": "justified",
    "c": "justified",
    "e": "undecided",
    "r3": "overruled",  # no argument
    "r4": "overruled",  # no argument
    "w": "overruled",
    "x": "overruled",
    "y": "justified",
    "z": "justified",
}

# Weakest-link elitist, rules only (p is an axiom): b(a(p)) uses {a, b}, c(a(p)) uses {a, c},
# and b > a. PyArg's strict element-wise reading: neither set has an element strictly below
# every element of the other ({a} is not below itself), so the two rebut each other and y is
# undecided. Modgil & Prakken (2013): {a, c} <= {a, b} (a <= a, a <= b) but not
# {a, b} <= {a, c} (neither a <= c nor b <= a), so c(a(p)) is strictly weaker: only
# b(a(p)) defeats and y is justified.
MP2013_THEORY = """\
[ordering: weakest-link elitist]
[axiom: p]
[defeasible a: p => x]
[defeasible b: x => y]
[defeasible c: x => -y]
[prefer_rule: b > a]
"""

# Three rebuttals in an odd cycle through one-way contraries: r1(p) defeats r2(p), r2(p)
# defeats r3(p), r3(p) defeats r1(p), whatever the preferences. A stable extension must
# contain p and exactly one argument of the cycle would have to be out for each in, which
# an odd cycle forbids: there is no stable extension.
ODD_CYCLE = """\
[axiom: p]
[defeasible r1: p => a]
[defeasible r2: p => b]
[defeasible r3: p => c]
[contrary: a ~> b]
[contrary: b ~> c]
[contrary: c ~> a]
"""

# e and -e defeat each other: preferred extensions {c, e, r(e)} and {-e, c}.
TWO_PREFERRED = """\
[axiom: c]
[premise: e]
[premise: -e]
[defeasible r: e => f]
"""

# Two strict rules from an axiom: a and -a are both justified (nothing can attack them).
INCONSISTENT = """\
[axiom: p]
[strict s1: p -> a]
[strict s2: p -> -a]
"""

# Last link versus weakest link (cf. examples/modgil_prakken_last_vs_weakest_link.arg):
# A = d2(d1(born)) has rules {d1, d2}, last {d2}; B = d3(abroad) has {d3}; d1 < d3 < d2.
# weakest-link elitist: d1 is below every rule of B, so A is weaker: -tax wins.
# last-link (either set) or weakest-link democratic: B is weaker: tax wins.
HEADERED = """\
[ordering: weakest-link elitist]
[semantics: preferred]
[query: tax]
[axiom: born]
[axiom: abroad]
[defeasible d1: born => dutch]
[defeasible d2: dutch => tax]
[defeasible d3: abroad => -tax]
[prefer_rule: d2 > d3]
[prefer_rule: d3 > d1]
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def only_record(capsys, *argv: str) -> tuple[int, dict]:
    code, out, _ = check(capsys, "--json", *argv)
    (record,) = records(out)
    return code, record


# Canonical argument names ----------------------------------------------------------------

_NAME = re.compile(r"-?[A-Za-z_][A-Za-z0-9_]*")


def _split_top(inner: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for index, char in enumerate(inner):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inner[start:index])
            start = index + 1
    parts.append(inner[start:])
    return parts


def assert_canonical(name: str) -> None:
    """A literal, or `RULE(SUB1,SUB2)` with sorted canonical direct sub-arguments."""
    assert " " not in name
    if "(" not in name:
        assert _NAME.fullmatch(name), name
        return
    rule, _, rest = name.partition("(")
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rule), name
    assert rest.endswith(")"), name
    subs = _split_top(rest[:-1])
    assert subs == sorted(subs), name
    for sub in subs:
        assert_canonical(sub)


# JSON records ----------------------------------------------------------------------------


def test_json_record_of_a_hand_derived_theory(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    code, record = only_record(capsys, path)
    assert code == EXIT_OK
    assert set(record) == RECORD_KEYS
    assert record["file"] == path
    assert (record["ordering"], record["set"], record["comparison"], record["semantics"]) == (
        "last-link",
        "elitist",
        "pyarg",
        "grounded",
    )
    assert record["arguments"] == ARGUMENTS
    assert record["defeats"] == DEFEATS
    assert record["extensions"] == [GROUNDED]
    assert record["statuses"] == STATUSES
    assert record["acceptance"] == {
        claim: {"credulous": status == "justified", "skeptical": status == "justified"}
        for claim, status in STATUSES.items()
    }
    assert record["consistent"] is True


def test_json_lists_are_sorted_and_names_canonical(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    _, record = only_record(capsys, path, "--semantics", "complete")
    assert record["arguments"] == sorted(record["arguments"])
    assert record["defeats"] == sorted(record["defeats"])
    assert all(extension == sorted(extension) for extension in record["extensions"])
    assert record["extensions"] == sorted(record["extensions"])
    assert len(record["extensions"]) > 1
    assert list(record["statuses"]) == sorted(record["statuses"])
    assert list(record["acceptance"]) == list(record["statuses"])
    names = set(record["arguments"])
    for name in names:
        assert_canonical(name)
    for attacker, attacked in record["defeats"]:
        assert {attacker, attacked} <= names
    for extension in record["extensions"]:
        assert set(extension) <= names
    # r5's antecedents are written "-x AND b"; its direct sub-arguments come out sorted.
    assert "r5(b,r2(c))" in names and "r5(r2(c),b)" not in names


def test_statuses_cover_both_polarities_of_every_atom(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY + "[query: q]\n")
    _, record = only_record(capsys, path)
    atoms = {claim.lstrip("-") for claim in record["statuses"]}
    assert atoms == {"a", "b", "c", "e", "q", "r3", "r4", "w", "x", "y", "z"}
    assert set(record["statuses"]) == {f"{sign}{atom}" for atom in atoms for sign in ("", "-")}
    assert record["statuses"]["q"] == record["statuses"]["-q"] == "overruled"


def test_json_explanations(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    _, record = only_record(capsys, path, "--explain", "y", "--explain=-y")
    assert set(record) == RECORD_KEYS | {"explanations"}
    assert record["explanations"] == {
        "y": [
            "y is justified: argument r4(a) is in the grounded extension",
            "    attacked by r3(b) (undercut), defeated by r7(c)",
        ],
        "-y": ["-y is overruled: no argument concludes it"],
    }


# Header directives and flags -------------------------------------------------------------


def test_header_directives_are_honoured(tmp_path, capsys):
    path = write(tmp_path, "tax.arg", HEADERED)
    code, record = only_record(capsys, path)
    assert code == EXIT_OK
    assert (record["ordering"], record["set"], record["comparison"], record["semantics"]) == (
        "weakest-link",
        "elitist",
        "pyarg",
        "preferred",
    )
    assert record["statuses"]["tax"] == "overruled"
    assert record["statuses"]["-tax"] == "justified"
    assert record["extensions"] == [["abroad", "born", "d1(born)", "d3(abroad)"]]
    assert record["acceptance"]["-tax"] == {"credulous": True, "skeptical": True}


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--ordering", "last-link"], ("last-link", "elitist", "preferred", "justified")),
        (["--set", "democratic"], ("weakest-link", "democratic", "preferred", "justified")),
        (["--semantics", "grounded"], ("weakest-link", "elitist", "grounded", "overruled")),
        (
            ["--ordering", "last-link", "--set", "democratic", "--semantics", "stable"],
            ("last-link", "democratic", "stable", "justified"),
        ),
    ],
)
def test_flags_override_header_directives(tmp_path, capsys, flags, expected):
    path = write(tmp_path, "tax.arg", HEADERED)
    _, record = only_record(capsys, path, *flags)
    found = (record["ordering"], record["set"], record["semantics"], record["statuses"]["tax"])
    assert found == expected


def test_defaults_without_header(tmp_path, capsys):
    path = write(tmp_path, "plain.arg", HEADERED.split("[query: tax]\n")[1])
    _, record = only_record(capsys, path)
    assert (record["ordering"], record["set"], record["comparison"], record["semantics"]) == (
        "last-link",
        "elitist",
        "pyarg",
        "grounded",
    )
    assert record["statuses"]["tax"] == "justified"


def test_comparison_mp2013_changes_the_outcome(tmp_path, capsys):
    path = write(tmp_path, "mp.arg", MP2013_THEORY)
    _, pyarg = only_record(capsys, path)
    assert pyarg["comparison"] == "pyarg"
    assert pyarg["defeats"] == [["b(a(p))", "c(a(p))"], ["c(a(p))", "b(a(p))"]]
    assert pyarg["statuses"]["y"] == pyarg["statuses"]["-y"] == "undecided"

    _, mp2013 = only_record(capsys, path, "--comparison", "mp2013")
    assert (mp2013["ordering"], mp2013["set"], mp2013["comparison"]) == (
        "weakest-link",
        "elitist",
        "mp2013",
    )
    assert mp2013["defeats"] == [["b(a(p))", "c(a(p))"]]
    assert mp2013["statuses"]["y"] == "justified"
    assert mp2013["statuses"]["-y"] == "overruled"

    # Last link compares only {b} and {c}, which are incomparable in either reading.
    _, last = only_record(capsys, path, "--comparison", "mp2013", "--ordering", "last-link")
    assert last["statuses"]["y"] == "undecided"


def test_header_reading_overridden_by_flag(tmp_path, capsys):
    text = MP2013_THEORY.replace("weakest-link elitist", "weakest-link elitist mp2013")
    path = write(tmp_path, "mp.arg", text)
    _, record = only_record(capsys, path)
    assert record["comparison"] == "mp2013"
    assert record["statuses"]["y"] == "justified"
    _, record = only_record(capsys, path, "--comparison", "pyarg")
    assert record["comparison"] == "pyarg"
    assert record["statuses"]["y"] == "undecided"


# Semantics -------------------------------------------------------------------------------


def test_stable_without_extension(tmp_path, capsys):
    path = write(tmp_path, "cycle.arg", ODD_CYCLE)
    code, record = only_record(capsys, path, "--semantics", "stable")
    assert code == EXIT_OK
    assert record["semantics"] == "stable"
    assert record["defeats"] == [["r1(p)", "r2(p)"], ["r2(p)", "r3(p)"], ["r3(p)", "r1(p)"]]
    assert record["extensions"] == []
    assert record["acceptance"]
    assert all(
        value == {"credulous": False, "skeptical": False} for value in record["acceptance"].values()
    )
    # The grounded statuses are still reported.
    assert record["statuses"]["p"] == "justified"
    assert record["statuses"]["a"] == "undecided"

    code, out, _ = check(capsys, path, "--semantics", "stable", "--explain", "a")
    assert code == EXIT_OK
    assert "no stable extension exists" in out
    assert "  under stable semantics: no extension exists" in out.splitlines()


def test_preferred_with_two_extensions(tmp_path, capsys):
    path = write(tmp_path, "two.arg", TWO_PREFERRED)
    _, record = only_record(capsys, path, "--semantics", "preferred")
    assert record["extensions"] == [["-e", "c"], ["c", "e", "r(e)"]]
    for contested in ("e", "-e", "f"):
        assert record["acceptance"][contested] == {"credulous": True, "skeptical": False}
        assert record["statuses"][contested] == "undecided"
    assert record["acceptance"]["c"] == {"credulous": True, "skeptical": True}
    assert record["acceptance"]["-f"] == {"credulous": False, "skeptical": False}

    _, out, _ = check(capsys, path, "--semantics", "preferred", "--explain", "e")
    lines = out.splitlines()
    assert "  preferred extensions: 2" in lines
    assert "    {-e, c}" in lines and "    {c, e, r(e)}" in lines
    assert (
        "  under preferred semantics: in 1 of 2 extensions (credulous: True, skeptical: False)"
        in lines
    )
    row = next(line for line in lines if line.split()[:1] == ["e"])
    assert row.split() == ["e", "undecided", "yes", "no"]


# Exit codes ------------------------------------------------------------------------------


def test_inconsistent_theory_exits_1(tmp_path, capsys):
    path = write(tmp_path, "inconsistent.arg", INCONSISTENT)
    code, out, _ = check(capsys, path)
    assert code == EXIT_INCONSISTENT == 1
    assert "INCONSISTENT" in out
    code, record = only_record(capsys, path)
    assert code == 1
    assert record["consistent"] is False
    assert record["statuses"]["a"] == record["statuses"]["-a"] == "justified"


def test_syntax_error_exits_2_with_location_and_caret(tmp_path, capsys):
    path = write(tmp_path, "bad.arg", "[axiom: p]\n[premise q]\n")
    code, out, err = check(capsys, path)
    assert code == EXIT_INPUT_ERROR == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:2:10: ")
    assert lines[1] == "    [premise q]"
    assert lines[2] == "    " + " " * 9 + "^"
    assert "Traceback" not in err


def test_semantic_error_exits_2(tmp_path, capsys):
    path = write(tmp_path, "twice.arg", "[premise: p]\n[axiom: p]\n")
    code, _, err = check(capsys, path)
    assert code == 2
    assert err.startswith(f"{path}:1:1: ")
    assert "both an axiom and an ordinary premise" in err


def test_missing_file_exits_2(tmp_path, capsys):
    path = str(tmp_path / "absent.arg")
    code, out, err = check(capsys, path)
    assert code == 2
    assert out == ""
    assert err.startswith(f"{path}: cannot read file")
    code, out, _ = check(capsys, "--json", path)
    assert code == 2
    (record,) = records(out)
    assert record["file"] == path
    assert "cannot read file" in record["error"]


def test_worst_code_wins_and_every_file_is_reported(tmp_path, capsys):
    good = write(tmp_path, "good.arg", TWO_PREFERRED)
    inconsistent = write(tmp_path, "inconsistent.arg", INCONSISTENT)
    missing = str(tmp_path / "absent.arg")
    bad = write(tmp_path, "bad.arg", "[axiom p]\n")

    assert main(["check", good, good]) == 0
    assert main(["check", good, inconsistent]) == 1
    assert main(["check", inconsistent, good]) == 1
    capsys.readouterr()

    code, out, err = check(capsys, "--json", inconsistent, missing, good, bad)
    assert code == 2
    found = records(out)
    assert [record["file"] for record in found] == [inconsistent, missing, good, bad]
    assert found[0]["consistent"] is False
    assert "error" in found[1] and "error" in found[3]
    assert found[2]["consistent"] is True
    assert missing in err and f"{bad}:1:" in err

    code, out, err = check(capsys, missing, good, inconsistent)
    assert code == 2
    assert f"{good}: last-link elitist, grounded semantics" in out
    assert f"{inconsistent}: last-link elitist, grounded semantics" in out
    assert missing in err


def test_bad_flags_exit_2(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    for flags in (["--semantics", "bogus"], ["--explain=1a"], ["--ordering", "best-link"]):
        with pytest.raises(SystemExit) as exited:
            main(["check", path, *flags])
        assert exited.value.code == 2
        _, err = capsys.readouterr()
        assert "argc check: error:" in err


# Human output and explanations -----------------------------------------------------------


def test_human_summary(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    code, out, err = check(capsys, path)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"{path}: last-link elitist, grounded semantics"
    assert lines[1] == "  13 arguments; 12 attacks (6 undermine, 4 rebut, 2 undercut); 7 defeats"
    rows = {line.split()[0]: line.split()[1] for line in lines[3:23]}
    assert rows == STATUSES
    assert "  grounded extensions: 1" in lines
    assert "    {" + ", ".join(GROUNDED) + "}" in lines
    assert lines[-1] == "  consistent"


def test_human_summary_marks_queries(tmp_path, capsys):
    path = write(tmp_path, "tax.arg", HEADERED)
    _, out, _ = check(capsys, path)
    (row,) = [line for line in out.splitlines() if line.split()[:1] == ["tax"]]
    assert row.split() == ["tax", "overruled", "no", "no", "(queried)"]


def explanation(capsys, path: str, literal: str) -> list[str]:
    code, out, _ = check(capsys, path, f"--explain={literal}")
    assert code == 0
    lines = out.splitlines()
    start = lines.index("") + 1
    return lines[start:]


def test_explain_justified_names_argument_and_defence(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    assert explanation(capsys, path, "y") == [
        "y is justified: argument r4(a) is in the grounded extension",
        "    attacked by r3(b) (undercut), defeated by r7(c)",
    ]
    assert explanation(capsys, path, "z") == [
        "z is justified: argument r5(b,r2(c)) is in the grounded extension",
        "    attacked by -b (undermine on its sub-argument b), which fails: the attacker is"
        " strictly weaker under last-link elitist",
        "    attacked by r1(a) (rebut on its sub-argument r2(c)), which fails: the attacker is"
        " strictly weaker under last-link elitist",
    ]
    assert explanation(capsys, path, "c") == [
        "c is justified: argument c is in the grounded extension",
        "    it has no attackers",
    ]


def test_explain_overruled_names_each_defeater_and_where_it_strikes(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    assert explanation(capsys, path, "w") == [
        "w is overruled: every argument for it is defeated by the grounded extension",
        "  argument r6(r1(a)) is out",
        "    defeated by r2(c) (rebut on its sub-argument r1(a)), in the grounded extension",
    ]
    assert explanation(capsys, path, "-b") == [
        "-b is overruled: every argument for it is defeated by the grounded extension",
        "  argument -b is out",
        "    defeated by b (undermine), in the grounded extension",
    ]
    assert explanation(capsys, path, "-r4") == [
        "-r4 is overruled: every argument for it is defeated by the grounded extension",
        "  argument r3(b) is out",
        "    defeated by r7(c) (undercut), in the grounded extension",
    ]


def test_explain_undecided_and_unsupported(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    assert explanation(capsys, path, "e") == [
        "e is undecided: no argument for it is accepted, and not every one is defeated",
        "  argument e is undecided",
        "    defeated by -e (undermine), itself undecided",
    ]
    assert explanation(capsys, path, "-y") == ["-y is overruled: no argument concludes it"]
    assert explanation(capsys, path, "nowhere") == [
        "nowhere is overruled: no argument concludes it"
    ]


def test_explain_is_repeatable(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    _, out, _ = check(capsys, path, "--explain", "x", "--explain=-x")
    assert "\nx is overruled: every argument for it is defeated" in out
    assert "\n-x is justified: argument r2(c) is in the grounded extension" in out
    assert out.index("\nx is overruled") < out.index("\n-x is justified")


# The installed console script ------------------------------------------------------------


def test_console_script(tmp_path):
    # The script installed beside this interpreter (another `argc` may be on PATH).
    beside = Path(sys.executable).with_name("argc")
    script = str(beside) if beside.exists() else shutil.which("argc")
    assert script, "the argc console script is not installed"
    good = write(tmp_path, "small.arg", THEORY)
    missing = str(tmp_path / "absent.arg")
    done = subprocess.run(
        [script, "check", "--json", good, missing],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert first["arguments"] == ARGUMENTS
    assert first["statuses"] == STATUSES
    assert second["file"] == missing and "cannot read file" in second["error"]
    assert "cannot read file" in done.stderr
    assert "Traceback" not in done.stderr


def test_max_extensions_flag(tmp_path, capsys):
    path = tmp_path / "free.arg"
    path.write_text("".join(f"[premise: p{i}]\n" for i in range(6)), encoding="utf-8")
    args = ["check", str(path), "--semantics", "conflict-free", "--json"]
    assert main([*args, "--max-extensions", "64"]) == EXIT_OK
    record = json.loads(capsys.readouterr().out)
    assert len(record["extensions"]) == 64 and "more_extensions" not in record
    # Past the limit, the first extensions are listed and acceptance still counts them all.
    assert main([*args, "--max-extensions", "63"]) == EXIT_OK
    record = json.loads(capsys.readouterr().out)
    assert len(record["extensions"]) == 63 and record["more_extensions"] is True
    assert record["acceptance"]["p0"] == {"credulous": True, "skeptical": False}


# The argument graph, exports and abstract frameworks ------------------------------------

# THEORY's attacks as its comment derives them: (attacker, attacked, on, kind, defeat).
ATTACKS = {
    ("r2(c)", "r1(a)", "r1(a)", "rebut", True),
    ("r2(c)", "r6(r1(a))", "r1(a)", "rebut", True),
    ("r1(a)", "r2(c)", "r2(c)", "rebut", False),
    ("r1(a)", "r5(b,r2(c))", "r2(c)", "rebut", False),
    ("b", "-b", "-b", "undermine", True),
    ("-b", "b", "b", "undermine", False),
    ("-b", "r3(b)", "b", "undermine", False),
    ("-b", "r5(b,r2(c))", "b", "undermine", False),
    ("e", "-e", "-e", "undermine", True),
    ("-e", "e", "e", "undermine", True),
    ("r3(b)", "r4(a)", "r4(a)", "undercut", True),
    ("r7(c)", "r3(b)", "r3(b)", "undercut", True),
}


def test_graph_without_json_is_refused_not_ignored(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    code, out, err = check(capsys, "--graph", path)
    assert (code, out) == (2, "")
    assert "--graph adds the graph to the --json record" in err


def test_json_graph(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    _, record = only_record(capsys, path, "--graph")
    assert set(record) == RECORD_KEYS | {"graph"}
    graph = record["graph"]
    assert [argument["name"] for argument in graph["arguments"]] == ARGUMENTS
    by_name = {argument["name"]: argument for argument in graph["arguments"]}
    assert by_name["c"] == {
        "name": "c",
        "conclusion": "c",
        "top_rule": None,
        "kind": "axiom",
        "subarguments": [],
    }
    assert by_name["-b"]["kind"] == "premise"
    assert by_name["r5(b,r2(c))"] == {
        "name": "r5(b,r2(c))",
        "conclusion": "z",
        "top_rule": "r5",
        "kind": "defeasible",
        "subarguments": ["b", "r2(c)"],
    }
    attacks = {tuple(attack.values()) for attack in graph["attacks"]}
    assert len(graph["attacks"]) == len(ATTACKS) and attacks == ATTACKS
    assert graph["defeats"] == DEFEATS == record["defeats"]
    _, without = only_record(capsys, path)
    assert "graph" not in without


def test_show_arguments_and_attacks(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    _, out, _ = check(capsys, path, "--show", "attacks", "--show", "arguments")
    lines = out.splitlines()
    assert "  arguments: 13" in lines
    assert "    c            concludes c, axiom" in lines
    assert "    r5(b,r2(c))  concludes z, defeasible by r5 from b, r2(c)" in lines
    assert "  attacks: 12 (7 defeats)" in lines
    assert "    r2(c) rebuts r6(r1(a)) on r1(a): defeat" in lines
    assert "    -b undermines r5(b,r2(c)) on b: fails" in lines
    assert "    r7(c) undercuts r3(b): defeat" in lines
    assert sum(line.startswith("    ") and ": " in line for line in lines) == 12
    _, plain, _ = check(capsys, path)
    assert "  attacks: 12 (7 defeats)" not in plain.splitlines()


def test_export_apx_to_stdout_replaces_the_report(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    code, out, _ = check(capsys, path, "--export", "apx")
    assert code == EXIT_OK
    lines = out.splitlines()
    # The legend names a1..a13 in the sorted order of canonical names, then the defeats.
    assert lines[:13] == [f"% a{index} = {name}" for index, name in enumerate(ARGUMENTS, 1)]
    ids = {name: f"a{index}" for index, name in enumerate(ARGUMENTS, 1)}
    assert lines[13:26] == [f"arg({ids[name]})." for name in ARGUMENTS]
    assert lines[26:] == [f"att({ids[a]},{ids[b]})." for a, b in DEFEATS]


def test_export_af_and_dot_to_files_with_the_report(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    target = tmp_path / "out" / "small.af"
    code, record = only_record(capsys, path, "--export", "af", "--out", str(target))
    assert code == EXIT_OK and record["arguments"] == ARGUMENTS
    lines = target.read_text(encoding="utf-8").splitlines()
    number = {name: index for index, name in enumerate(ARGUMENTS, 1)}
    assert lines[0] == "p af 13"
    assert lines[1:14] == [f"# {index} = {name}" for name, index in number.items()]
    assert lines[14:] == [f"{number[a]} {number[b]}" for a, b in DEFEATS]

    dot = tmp_path / "small.dot"
    code, out, _ = check(capsys, path, "--export", "dot", "--out", str(dot))
    assert code == EXIT_OK and "consistent" in out
    text = dot.read_text(encoding="utf-8")
    assert text.count("fillcolor=") == 13 and text.count(" -> ") == 12
    assert text.count("style=solid") == 7 and text.count("style=dashed") == 5
    assert '"r2(c)" -> "r6(r1(a))" [color=black, style=solid, tooltip="rebut"];' in text


def test_export_errors_exit_2(tmp_path, capsys):
    path = write(tmp_path, "small.arg", THEORY)
    code, out, err = check(capsys, path, path, "--export", "dot")
    assert code == EXIT_INPUT_ERROR and out == "" and "--export takes one FILE" in err
    code, _, err = check(capsys, path, "--export", "apx", "--out", str(tmp_path))
    assert code == EXIT_INPUT_ERROR and "is a folder" in err and "Traceback" not in err


# a and b attack each other and both attack c, which attacks d.
# preferred: {a, d} and {b, d}: a, b, d credulously accepted, only d skeptically.
FRAMEWORK = "arg(a). arg(b). arg(c). arg(d).\natt(a,b). att(b,a). att(a,c). att(b,c). att(c,d).\n"


def solve_af(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["af", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_af_human_report(tmp_path, capsys):
    path = write(tmp_path, "f.apx", FRAMEWORK)
    code, out, _ = solve_af(
        capsys, path, "--semantics", "preferred", "--credulous", "c", "--skeptical", "d"
    )
    assert code == EXIT_OK
    assert out.splitlines() == [
        f"{path}: 4 arguments, 5 attacks; preferred semantics",
        "  preferred extensions: 2",
        "    {a, d}",
        "    {b, d}",
        "  credulously accepted: a, b, d",
        "  skeptically accepted: d",
        "  c credulous: no",
        "  d skeptical: yes",
    ]
    _, out, _ = solve_af(capsys, path)  # grounded: nothing is unattacked
    assert "  grounded extensions: 1\n    {}\n" in out


def test_af_lists_arguments_in_the_file_s_order_not_as_text(tmp_path, capsys):
    numbered = write(tmp_path, "f.af", "p af 11\n1 2\n11 1\n")
    _, out, _ = solve_af(capsys, numbered, "--json")
    assert json.loads(out)["credulous"] == [str(n) for n in range(2, 12)]
    named = write(tmp_path, "f.apx", "arg(z).\narg(a2).\narg(a11).\natt(z,a2).\n")
    _, out, _ = solve_af(capsys, named)
    assert "    {z, a11}\n  credulously accepted: z, a11\n" in out


def test_af_json_first_extensions_and_answers(tmp_path, capsys):
    path = write(tmp_path, "f.apx", FRAMEWORK)
    argv = [path, "--semantics", "preferred", "--json", "--max-extensions", "1"]
    code, out, _ = solve_af(capsys, *argv, "--skeptical", "d", "--credulous", "a")
    record = json.loads(out)
    assert code == EXIT_OK
    assert record["extensions"] in ([["a", "d"]], [["b", "d"]])
    assert record["more_extensions"] is True and record["exists"] is True
    assert (record["credulous"], record["skeptical"]) == (["a", "b", "d"], ["d"])
    assert record["answers"] == [
        {"argument": "a", "mode": "credulous", "accepted": True},
        {"argument": "d", "mode": "skeptical", "accepted": True},
    ]


def test_af_numeric_format_without_stable_extension(tmp_path, capsys):
    # An odd cycle 1 -> 2 -> 3 -> 1: no stable extension, so nothing is accepted.
    path = write(tmp_path, "cycle.af", "p af 3\n# a cycle\n1 2\n2 3\n3 1\n")
    code, out, _ = solve_af(capsys, path, "--semantics", "stable", "--skeptical", "1")
    assert code == EXIT_OK
    assert out.splitlines()[1:] == [
        "  no stable extension exists: nothing is accepted",
        "  1 skeptical: no (no stable extension exists)",
    ]
    _, out, _ = solve_af(capsys, path, "--semantics", "stable", "--json")
    record = json.loads(out)
    assert record["exists"] is False and record["extensions"] == []
    assert record["credulous"] == record["skeptical"] == []


def test_af_errors_exit_2(tmp_path, capsys):
    bad = write(tmp_path, "bad.af", "p af 2\n1 2\n2 7\n")
    good = write(tmp_path, "f.apx", FRAMEWORK)
    code, out, err = solve_af(capsys, bad, good, "--json")
    assert code == EXIT_INPUT_ERROR
    first, second = records(out)
    assert first["error"].startswith(f"{bad}:3:3: '7' is not an argument number")
    assert second["file"] == good and "error" not in second
    assert "Traceback" not in err
    code, _, err = solve_af(capsys, good, "--credulous", "z")
    assert code == EXIT_INPUT_ERROR and f"{good}: no argument named 'z'" in err


def _stdin(monkeypatch, data: bytes) -> None:
    """Standard input read from a pipe holding `data`."""
    reading, writing = os.pipe()
    os.write(writing, data)
    os.close(writing)
    monkeypatch.setattr("sys.stdin", os.fdopen(reading))


def test_af_reads_standard_input_with_format(monkeypatch, capsys):
    _stdin(monkeypatch, b"p af 2\n1 2\n")
    code, out, _ = solve_af(capsys, "-", "--format", "af", "--semantics", "stable")
    assert code == EXIT_OK
    assert out.splitlines()[:3] == [
        "<stdin>: 2 arguments, 1 attack; stable semantics",
        "  stable extensions: 1",
        "    {1}",
    ]
    _stdin(monkeypatch, b"p af 1\n")
    code, _, err = solve_af(capsys, "-")
    assert (
        code == EXIT_INPUT_ERROR and "<stdin>: no framework format given; expected apx or af" in err
    )


def test_human_report_aligns_short_claims_and_marks_claims_without_arguments(tmp_path, capsys):
    path = write(tmp_path, "short.arg", "[query: b]\n[premise: a]\n")
    code, out, _ = check(capsys, path)
    assert code == 0
    rows = out.splitlines()
    header = next(row for row in rows if "grounded status" in row)
    column = header.index("grounded status")
    table = rows[rows.index(header) + 1 : rows.index(header) + 5]
    assert [row.split()[0] for row in table] == ["-a", "-b", "a", "b"]
    assert all(row[column:].split()[0] in {"justified", "overruled"} for row in table)
    assert table[2].rstrip().endswith("justified")
    assert table[3].endswith("overruled        (queried, no argument)")
    assert "  (no argument: nothing concludes the claim, so it is overruled)" in rows
