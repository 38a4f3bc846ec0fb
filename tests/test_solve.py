"""The Python API: `solve()`, the `Solution` it returns, attack records, and the limits.

Expected arguments, attacks and statuses are derived by hand in the comments.
"""

from __future__ import annotations

import json
import sys
import time

import pytest
from margins import GRACE
from test_cli import THEORY  # derived by hand there: 13 arguments, 12 attacks

from argc.cli import main
from argc.compiler import Argument, Attack, LimitExceeded, Limits, solve
from argc.compiler.report import as_record, summary
from argc.dsl import Literal, Ordering, parse_theory
from argc.dsl.errors import ArgcError
from argc.dsl.parser import MAX_SOURCE_CHARS


def lit(text: str) -> Literal:
    return Literal.parse(text)


def layered(layers: int) -> str:
    """Two alternative rules per layer: x_j has 2**j arguments, 2**(layers+1) - 1 in all."""
    lines = ["[premise: x0]"]
    for j in range(layers):
        lines.append(f"[defeasible a{j}: x{j} => x{j + 1}]")
        lines.append(f"[defeasible b{j}: x{j} => x{j + 1}]")
    return "\n".join(lines) + "\n"


def free_premises(count: int) -> str:
    """Unrelated premises: every subset of the arguments is conflict-free."""
    return "".join(f"[premise: p{i}]\n" for i in range(count))


def conflicting_pairs(count: int) -> str:
    """Premises e_i and -e_i undermining each other: 2**count preferred extensions."""
    return "".join(f"[premise: e{i}]\n[premise: -e{i}]\n" for i in range(count))


# Defaults --------------------------------------------------------------------------------


def test_defaults_come_from_headers():
    theory = parse_theory(
        "[ordering: weakest-link democratic mp2013]\n[semantics: preferred]\n" + THEORY
    )
    solution = solve(theory)
    assert solution.ordering == Ordering("weakest-link", "democratic", "mp2013")
    assert solution.semantics == "preferred"

    explicit = solve(theory, ordering=Ordering(), semantics="stable")
    assert explicit.ordering == Ordering("last-link", "elitist", "pyarg")
    assert explicit.semantics == "stable"


def test_defaults_without_headers():
    solution = solve(parse_theory(THEORY))
    assert solution.ordering == Ordering("last-link", "elitist", "pyarg")
    assert solution.semantics == "grounded"
    assert solution.extensions == (solution.grounded,)


def test_unknown_semantics_is_refused():
    with pytest.raises(ValueError, match="unknown semantics"):
        solve(parse_theory(THEORY), semantics="bogus")


# Solution accessors ----------------------------------------------------------------------


def test_solution_accessors():
    solution = solve(parse_theory(THEORY))
    assert len(solution.arguments) == 13
    assert solution.arguments["r5(b,r2(c))"] == Argument(
        "r5(b,r2(c))", lit("z"), "r5", ("b", "r2(c)")
    )
    assert solution.arguments["-b"] == Argument("-b", lit("-b"), None, ())
    assert solution.arguments["-b"].is_premise
    assert not solution.arguments["r1(a)"].is_premise

    assert [argument.name for argument in solution.arguments_for(lit("-x"))] == ["r2(c)"]
    assert solution.arguments_for(lit("-y")) == ()
    assert solution.defeaters("r1(a)") == ("r2(c)",)
    assert solution.defeaters("r4(a)") == ("r3(b)",)
    assert solution.defeaters("a") == ()

    assert solution.status(lit("y")) == "justified"
    assert solution.status(lit("x")) == "overruled"
    assert solution.status(lit("e")) == "undecided"
    assert solution.status(lit("never_named")) == "overruled"

    assert vars(solution.acceptance(lit("y"))) == {"credulous": True, "skeptical": True}
    assert vars(solution.acceptance(lit("e"))) == {"credulous": False, "skeptical": False}
    assert solution.attacks_by_kind() == {"undermine": 6, "rebut": 4, "undercut": 2}
    assert solution.grounded == frozenset({"a", "b", "c", "r2(c)", "r4(a)", "r5(b,r2(c))", "r7(c)"})
    assert solution.consistent


def test_accessors_sort_several_results():
    solution = solve(
        parse_theory(
            "[premise: p]\n[premise: q]\n[defeasible r2: q => s]\n[defeasible r1: p => s]\n"
            "[premise: a]\n[premise: -a]\n[axiom: c]\n[strict t: c -> -a]\n"
        )
    )
    assert [argument.name for argument in solution.arguments_for(lit("s"))] == ["r1(p)", "r2(q)"]
    assert solution.defeaters("a") == ("-a", "t(c)")


def test_acceptance_under_preferred():
    solution = solve(parse_theory(THEORY), semantics="preferred")
    # e and -e split the preferred extensions; the rest of the grounded outcome holds in both.
    assert len(solution.extensions) == 2
    assert vars(solution.acceptance(lit("e"))) == {"credulous": True, "skeptical": False}
    assert vars(solution.acceptance(lit("-e"))) == {"credulous": True, "skeptical": False}
    assert vars(solution.acceptance(lit("y"))) == {"credulous": True, "skeptical": True}
    assert vars(solution.acceptance(lit("x"))) == {"credulous": False, "skeptical": False}


# Attack records --------------------------------------------------------------------------


def test_undermine_on_a_premise_inside_a_bigger_argument():
    # t(q) concludes -p: it undermines the premise p, and with it r(p). Last link: neither
    # has a last defeasible rule, so the premises decide: {q} against {p}.
    text = "[premise: p]\n[premise: q]\n[defeasible r: p => s]\n[strict t: q -> -p]\n"
    solution = solve(parse_theory(text))
    assert solution.attacks == (
        Attack("t(q)", "p", "p", "undermine", True),
        Attack("t(q)", "r(p)", "p", "undermine", True),
    )
    assert solution.defeats == (("t(q)", "p"), ("t(q)", "r(p)"))
    assert solution.status(lit("s")) == "overruled"

    weaker = solve(parse_theory(text + "[prefer_premise: p > q]\n"))
    assert weaker.attacks == (
        Attack("t(q)", "p", "p", "undermine", False),
        Attack("t(q)", "r(p)", "p", "undermine", False),
    )
    assert weaker.defeats == ()
    assert weaker.status(lit("s")) == "justified"
    assert weaker.status(lit("-p")) == "justified"


REBUTTALS = """\
[axiom: a]
[axiom: c]
[defeasible r1: a => x]
[defeasible r6: x => w]
[defeasible r2: c => -x]
[defeasible u: c => -r1]
"""


def test_rebut_and_undercut_records_without_preferences():
    solution = solve(parse_theory(REBUTTALS))
    assert solution.attacks == (
        Attack("r1(a)", "r2(c)", "r2(c)", "rebut", True),
        Attack("r2(c)", "r1(a)", "r1(a)", "rebut", True),
        Attack("r2(c)", "r6(r1(a))", "r1(a)", "rebut", True),
        Attack("u(c)", "r1(a)", "r1(a)", "undercut", True),
        Attack("u(c)", "r6(r1(a))", "r1(a)", "undercut", True),
    )
    assert solution.attacks_by_kind() == {"undermine": 0, "rebut": 3, "undercut": 2}


def test_last_link_rebut_from_a_weaker_rule_fails():
    # r2 > r1: r1(a)'s rebut on r2(c) fails; r2(c) rebuts r6(r1(a)) on its sub-argument
    # r1(a), so it is compared with r1, not with r6 (r6 > r2 does not save r6(r1(a))).
    # Undercuts succeed whatever the preferences (r1 > u).
    prefs = "[prefer_rule: r2 > r1]\n[prefer_rule: r6 > r2]\n[prefer_rule: r1 > u]\n"
    solution = solve(parse_theory(REBUTTALS + prefs))
    assert solution.attacks == (
        Attack("r1(a)", "r2(c)", "r2(c)", "rebut", False),
        Attack("r2(c)", "r1(a)", "r1(a)", "rebut", True),
        Attack("r2(c)", "r6(r1(a))", "r1(a)", "rebut", True),
        Attack("u(c)", "r1(a)", "r1(a)", "undercut", True),
        Attack("u(c)", "r6(r1(a))", "r1(a)", "undercut", True),
    )
    assert ("r1(a)", "r2(c)") not in solution.defeats
    assert solution.status(lit("-x")) == "justified"

    reversed_ = solve(parse_theory(REBUTTALS + "[prefer_rule: r1 > r2]\n"))
    defeat = {
        (attack.attacker, attack.on, attack.kind): attack.defeat for attack in reversed_.attacks
    }
    assert defeat == {
        ("r1(a)", "r2(c)", "rebut"): True,
        ("r2(c)", "r1(a)", "rebut"): False,
        ("u(c)", "r1(a)", "undercut"): True,
    }
    # The undercut still removes r1(a), so -x is justified here too.
    assert reversed_.status(lit("x")) == "overruled"
    assert reversed_.status(lit("-x")) == "justified"


# Limits ----------------------------------------------------------------------------------


def test_argument_limit():
    theory = parse_theory(layered(25))  # 2**26 - 1 arguments
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=r"more than 1,000 arguments") as caught:
        solve(theory, limits=Limits(arguments=1000))
    assert time.monotonic() - started < GRACE
    assert isinstance(caught.value, ArgcError)


def test_argument_limit_is_not_hit_at_exactly_the_count():
    theory = parse_theory(layered(6))  # 127 arguments
    assert len(solve(theory, limits=Limits(arguments=127)).arguments) == 127


def test_argument_limit_below_the_count():
    theory = parse_theory(layered(6))  # 127 arguments
    with pytest.raises(LimitExceeded, match="more than 126 arguments"):
        solve(theory, limits=Limits(arguments=126))


def test_attack_count_is_exact():
    assert len(solve(parse_theory(THEORY)).attacks) == 12


def test_time_limit_while_building_arguments():
    theory = parse_theory(layered(40))
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=r"time limit of 0\.5 s exceeded"):
        solve(theory, limits=Limits(seconds=0.5, arguments=10**12))
    assert time.monotonic() - started < GRACE


def test_time_limit_while_grounding_deep_arguments():
    # A 20,000-rule chain: its arguments are built one by one, each checking the deadline.
    text = "[premise: a0]\n" + "".join(
        f"[defeasible r{i}: a{i} => a{i + 1}]\n" for i in range(20_000)
    )
    theory = parse_theory(text)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="time limit"):
        solve(theory, limits=Limits(seconds=0.2, sub_arguments=10**12))
    assert time.monotonic() - started < GRACE


def test_time_limit_while_enumerating_extensions():
    theory = parse_theory(free_premises(40))  # 2**40 conflict-free sets
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match=r"time limit of 0\.5 s exceeded"):
        solve(theory, semantics="conflict-free", limits=Limits(seconds=0.5, extensions=10**12))
    assert time.monotonic() - started < GRACE


def test_extension_limit():
    theory = parse_theory(free_premises(10))  # 1,024 conflict-free sets
    assert len(solve(theory, semantics="conflict-free").extensions) == 1024
    exact = solve(theory, semantics="conflict-free", limits=Limits(extensions=1024))
    assert len(exact.extensions) == 1024 and not exact.more_extensions
    first = solve(theory, semantics="conflict-free", limits=Limits(extensions=1023))
    assert len(first.extensions) == 1023 and first.more_extensions

    pairs = parse_theory(conflicting_pairs(8))  # 256 preferred extensions
    assert len(solve(pairs, semantics="preferred").extensions) == 256
    first = solve(pairs, semantics="preferred", limits=Limits(extensions=100))
    assert len(first.extensions) == 100 and first.more_extensions


# Chains and cycles -----------------------------------------------------------------------


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def test_long_chain_without_recursion():
    # Grounding time grows about cubically with argument depth (clingo hashes nested argument
    # terms in full: ~2 s at depth 200, ~6 s at 300), so the chain is kept moderate; instead
    # the recursion limit is lowered well below its depth while solving and reporting, so any
    # recursion per level of nesting would raise RecursionError.
    length = 200
    text = "[premise: a0]\n" + "".join(
        f"[defeasible r{i}: a{i} => a{i + 1}]\n" for i in range(length)
    )
    theory = parse_theory(text)
    end_literal = lit(f"a{length}")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 60)
    try:
        solution = solve(theory)
        record = json.loads(json.dumps(as_record(solution, "chain.arg", [end_literal])))
        text_report = summary(solution, "chain.arg", [end_literal])
    finally:
        sys.setrecursionlimit(limit)
    assert len(solution.arguments) == length + 1
    assert solution.status(end_literal) == "justified"
    (end,) = solution.arguments_for(end_literal)
    assert end.name == "".join(f"r{i}(" for i in reversed(range(length))) + "a0" + ")" * length
    assert end.subarguments == (
        "".join(f"r{i}(" for i in reversed(range(length - 1))) + "a0" + ")" * (length - 1),
    )
    assert record["statuses"][f"a{length}"] == "justified"
    assert record["explanations"][f"a{length}"][0] == (
        f"a{length} is justified: argument {end.name} is in the grounded extension"
    )
    assert f"a{length} is justified" in text_report


def test_cycle_of_rules_terminates():
    # b comes from a, but a cannot come back from b: r1(a) already contains a.
    solution = solve(
        parse_theory("[premise: a]\n[defeasible r1: a => b]\n[defeasible r2: b => a]\n")
    )
    assert sorted(solution.arguments) == ["a", "r1(a)"]
    assert solution.status(lit("a")) == solution.status(lit("b")) == "justified"

    strict = solve(
        parse_theory("[axiom: a]\n[strict s1: a -> b]\n[strict s2: b -> c]\n[strict s3: c -> a]\n")
    )
    assert sorted(strict.arguments) == ["a", "s1(a)", "s2(s1(a))"]


def test_two_way_cycle_with_both_premises():
    text = "[premise: a]\n[premise: b]\n[defeasible r1: a => b]\n[defeasible r2: b => a]\n"
    solution = solve(parse_theory(text))
    assert sorted(solution.arguments) == ["a", "b", "r1(a)", "r2(b)"]


# The CLI and the limits ------------------------------------------------------------------


def test_cli_reports_limit_exceeded_as_exit_2(tmp_path, capsys):
    path = tmp_path / "layers.arg"
    path.write_text(layered(30), encoding="utf-8")
    assert main(["check", str(path), "--max-arguments", "100"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == (
        f"{path}: the theory has more than 100 arguments (--max-arguments N raises the limit)"
    )
    assert "Traceback" not in err

    started = time.monotonic()
    code = main(
        ["check", "--json", str(path), "--time-limit", "0.5", "--max-arguments", str(10**9)]
    )
    assert code == 2
    out, err = capsys.readouterr()
    assert time.monotonic() - started < GRACE
    message = f"{path}: time limit of 0.5 s exceeded"
    assert json.loads(out) == {"file": str(path), "error": message, "limit": "time"}
    assert "Traceback" not in err


def test_cli_limit_still_reports_other_files(tmp_path, capsys):
    big = tmp_path / "layers.arg"
    big.write_text(layered(30), encoding="utf-8")
    small = tmp_path / "small.arg"
    small.write_text("[axiom: p]\n", encoding="utf-8")
    assert main(["check", "--json", str(big), str(small), "--max-arguments", "100"]) == 2
    out, _ = capsys.readouterr()
    first, second = (json.loads(line) for line in out.splitlines())
    assert "more than 100 arguments" in first["error"]
    assert second["arguments"] == ["p"]


def test_cli_refuses_a_huge_file(tmp_path, capsys):
    path = tmp_path / "huge.arg"
    path.write_text("[axiom: p]\n%" + "x" * MAX_SOURCE_CHARS + "\n", encoding="utf-8")
    assert main(["check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"{path}: input has 4,000,013 characters; the limit is 4,000,000")
    assert "Traceback" not in err


def test_cli_refuses_a_huge_file_before_decoding(tmp_path, capsys):
    path = tmp_path / "huger.arg"
    path.write_bytes(b"%" + b"x" * (4 * MAX_SOURCE_CHARS) + b"\n")
    assert main(["check", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith(f"{path}: file has 16,000,002 bytes; the limit is 4,000,000 characters")


def test_sub_argument_limit_stops_deep_theories():
    text = "[premise: a0]\n" + "".join(f"[defeasible r{i}: a{i} => a{i + 1}]\n" for i in range(100))
    theory = parse_theory(text)
    assert len(solve(theory, limits=Limits(sub_arguments=5_200)).arguments) == 101
    with pytest.raises(LimitExceeded, match=r"more than 1,000 sub-arguments in all"):
        solve(theory, limits=Limits(sub_arguments=1_000))


def test_declared_contradictories_both_justified_are_inconsistent():
    from argc.compiler.report import inconsistency

    theory = parse_theory("[axiom: p]\n[axiom: q]\n[contradictory: p <-> q]\n")
    solution = solve(theory)
    assert solution.status(Literal("p")) == solution.status(Literal("q")) == "justified"
    assert not solution.consistent
    assert inconsistency(solution) == "INCONSISTENT: p and q are both justified"
    assert solve(parse_theory("[axiom: p]\n[axiom: q]\n")).consistent
