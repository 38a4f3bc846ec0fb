"""ASP queries over a solved theory: the `query` API and `argc query`."""

from __future__ import annotations

from pathlib import Path

import pytest
from random_theories import random_theory

from argc.cli import main
from argc.compiler import query
from argc.compiler.control import ProgramError
from argc.dsl import parse_theory

THEORY = """
[premise: a]
[premise: c]
[defeasible d1: a => b]
[defeasible u: c => -d1]
"""

STATUS_QUERY = """
status(L, justified) :- justified(L).
status(L, overruled) :- overruled(L).
#show status/2.
#show in_grounded(N) : argument_name(A, N), grounded_in(A).
"""


def test_query_shows_atoms_over_the_solved_model() -> None:
    result = query(parse_theory(THEORY), STATUS_QUERY)
    shown = {str(symbol) for symbol in result.shown}
    assert result.satisfiable
    assert 'status(pos("b"),overruled)' in shown
    assert 'status(neg("d1"),justified)' in shown
    assert 'in_grounded("u(c)")' in shown
    assert 'in_grounded("d1(a)")' not in shown
    assert result.solution.grounded == {"a", "c", "u(c)"}


def test_a_failing_constraint_is_unsatisfiable() -> None:
    theory = parse_theory(THEORY)
    assert not query(theory, ':- overruled(pos("b")).').satisfiable
    assert query(theory, ':- justified(pos("b")).').satisfiable


def test_a_broken_program_is_a_program_error() -> None:
    with pytest.raises(ProgramError, match="syntax error"):
        query(parse_theory(THEORY), "p(X) :- q(.")
    with pytest.raises(ProgramError, match="unsafe"):
        query(parse_theory(THEORY), "p(X) :- q(Y).")


def test_cli_query(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theory, program = tmp_path / "t.arg", tmp_path / "q.lp"
    theory.write_text(THEORY, encoding="utf-8")
    program.write_text(STATUS_QUERY, encoding="utf-8")
    assert main(["query", str(theory), str(program)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert 'status(pos("b"),overruled)' in lines
    assert lines == sorted(lines)
    program.write_text(':- overruled(pos("b")).\n', encoding="utf-8")
    assert main(["query", str(theory), str(program)]) == 1
    assert capsys.readouterr().out.strip() == "UNSATISFIABLE"
    program.write_text("p(X) :- q(.\n", encoding="utf-8")
    assert main(["query", str(theory), str(program)]) == 2
    assert f"{program}:1:" in capsys.readouterr().err


def test_a_predicate_nothing_defines_is_warned_where_it_is_read() -> None:
    theory = parse_theory(THEORY)
    program = "x(N) :- grounded_inn(A), argument_name(A, N).\ny :- x(_), justified(_, _).\n"
    result = query(theory, program)
    assert result.warnings == (
        "<block>:1:9: warning: grounded_inn/1 has no atoms: no encoding, fact or rule of the"
        " query defines it (misspelt? docs/encodings.md lists the predicates)",
        "<block>:2:12: warning: justified/2 has no atoms: no encoding, fact or rule of the"
        " query defines it (misspelt? docs/encodings.md lists the predicates)",
    )
    # The model's predicates, argument_name/2 and the query's own heads are all defined,
    # even where this theory gives them no atom (no axiom, no contrary here).
    fine = "x(A) :- grounded_in(A), not axiom(_).\ny :- x(_), contrary(_, _).\n#show y/0."
    assert query(theory, fine).warnings == ()
    assert query(theory, STATUS_QUERY).warnings == ()


def test_cli_query_warns_on_stderr_and_still_answers(tmp_path: Path, capsys) -> None:
    theory, program = tmp_path / "t.arg", tmp_path / "q.lp"
    theory.write_text(THEORY, encoding="utf-8")
    program.write_text("shown(L) :- justifed(L).\n#show shown/1.\n", encoding="utf-8")
    assert main(["query", str(theory), str(program)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"{program}:1:13: warning: justifed/1 has no atoms")


def test_the_help_example_query_shows_atoms(capsys) -> None:
    """`argc query --help`'s example runs as printed and shows atoms, not UNSATISFIABLE."""
    root = Path(__file__).resolve().parent.parent
    from argc.cli import EXAMPLES

    command = EXAMPLES["query"].split()
    assert command[:2] == ["argc", "query"]
    assert main([command[1], *(str(root / part) for part in command[2:])]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("defeated_by(") and captured.err == ""


@pytest.mark.parametrize("seed", range(30))
def test_defeats_expanded_from_the_numbering_are_the_defeat_relation(seed):
    """Solution.defeats (defeats on sub-arguments expanded in Python) equals defeat/2 as the
    part `defeats` grounds it for a query."""
    theory = random_theory(seed)
    result = query(theory, "#show defeat/2.")
    names = result.solution.source.names
    grounded = sorted((names[a], names[b]) for a, b in (s.arguments for s in result.shown))
    assert list(result.solution.defeats) == grounded
