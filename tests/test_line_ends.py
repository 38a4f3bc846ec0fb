"""One line-end rule for the `.arg`, `.norm` and `.kg` languages (docs/text.md): CRLF, CR,
NEL, U+2028 and U+2029 end a line as LF does (comments too), so a file reads as its LF
version; a vertical tab, form feed or U+001C-U+001E is refused at its line and column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argc.cli import main
from argc.dsl.errors import InputError
from argc.dsl.kg.parser import parse_kg, read_kg
from argc.dsl.norms.parser import parse_world, read_world
from argc.dsl.parser import parse_directives, parse_theory, read_theory

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: Each language's parser of a whole text, reader of a file and example files.
LANGUAGES: dict[str, tuple[Callable, Callable, list[Path]]] = {
    "arg": (parse_theory, read_theory, sorted(EXAMPLES.glob("*.arg"))),
    "norm": (parse_world, read_world, sorted((EXAMPLES / "norms").glob("*.norm"))),
    "kg": (parse_kg, read_kg, sorted((EXAMPLES / "kg").glob("*.kg"))),
}
LINE_ENDS = ["\r\n", "\r", "\x85", "\u2028", "\u2029"]
REFUSED = {
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x1c": "file separator",
    "\x1d": "group separator",
    "\x1e": "record separator",
}
#: A statement of each language that reads, and one that does not.
GOOD = {"arg": "[premise: a]", "norm": "p(a).", "kg": "person ann: female."}
OTHER = {"arg": "[premise: b]", "norm": "p(b).", "kg": "person bea: female."}
BAD = {"arg": "[premise a]", "norm": "p(a)", "kg": "person ann female."}


def outcome(parse: Callable, text: str, name: str = "x") -> object:
    """What parsing gives: the parsed object, or the error's location, message and line."""
    try:
        return parse(text, name)
    except InputError as error:
        return ("error", error.line, error.column, error.message, error.source_line)


def examples() -> list[tuple[str, Path]]:
    return [(language, path) for language, (*_, paths) in LANGUAGES.items() for path in paths]


def test_every_language_has_examples():
    assert all(len(paths) >= 2 for *_, paths in LANGUAGES.values())


@pytest.mark.parametrize("end", LINE_ENDS, ids=ascii)
@pytest.mark.parametrize(("language", "path"), examples(), ids=str)
def test_an_example_reads_as_its_lf_version(language, path, end, tmp_path):
    parse, read, _ = LANGUAGES[language]
    text = path.read_text(encoding="utf-8")
    assert "%" in text  # comments: a line end must end them too
    expected = parse(text, str(path))
    assert parse(text.replace("\n", end), str(path)) == expected
    copy = tmp_path / path.name
    copy.write_bytes(text.replace("\n", end).encode("utf-8"))
    assert read(copy) == parse(text, str(copy))


@pytest.mark.parametrize("end", LINE_ENDS, ids=ascii)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_line_end_ends_a_comment(language, end):
    parse = LANGUAGES[language][0]
    one, two = GOOD[language], OTHER[language]
    text = f"{one}\n% note{end}{two}\n"
    assert parse(text, "x") == parse(text.replace(end, "\n"), "x")
    assert parse(text, "x") != parse(f"{one}\n% note {two}\n", "x")


@pytest.mark.parametrize("end", LINE_ENDS, ids=ascii)
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_error_after_such_lines_names_its_line(language, end):
    parse = LANGUAGES[language][0]
    text = f"% one{end}{GOOD[language]}{end}{end}  {BAD[language]}{end}"
    error = pytest.raises(InputError, parse, text, "x").value
    assert error.line == 4
    assert error.source_line == f"  {BAD[language]}"
    assert str(error).startswith("x:4:")


def test_a_cr_only_kg_world_is_read_whole(tmp_path, capsys):
    """Old Mac line ends: the world after a comment is not lost."""
    text = "% a world\nperson a: male.\nperson b: male.\nfather(a, b).\nobject ball.\n"
    text += "own(a, ball).\ngift(a, b, ball).\n"
    (tmp_path / "lf.kg").write_bytes(text.encode())
    (tmp_path / "cr.kg").write_bytes(text.replace("\n", "\r").encode())
    reports = []
    for name in ("lf.kg", "cr.kg"):
        assert main(["check", str(tmp_path / name)]) == 0
        reports.append(capsys.readouterr().out.replace(name, "FILE"))
    assert reports[0] == reports[1]
    assert "2 persons, 1 object, 1 event" in reports[0]


@pytest.mark.parametrize(("character", "name"), REFUSED.items(), ids=ascii)
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("where", ["comment", "between"])
def test_an_ambiguous_break_is_refused_where_it_stands(language, character, name, where):
    parse = LANGUAGES[language][0]
    good = GOOD[language]
    line = f"% note{character}{good}" if where == "comment" else f"{good} {character}{good}"
    error = pytest.raises(InputError, parse, f"{good}\r\n\r{line}\n", "x").value
    assert (error.line, error.column) == (3, line.index(character) + 1)
    assert error.message.startswith(f"{name} (U+{ord(character):04X}) is not allowed")
    assert error.source_line == line
    shown = str(error).split("\n")
    assert shown[1].index(chr(0x2400 + ord(character))) == shown[2].index("^")


def test_a_byte_order_mark_then_cr_lines():
    assert parse_directives("\ufeff[premise: a]\r[axiom: b]") == parse_directives(
        "[premise: a]\n[axiom: b]"
    )


# Property: any text with mixed line ends reads as its LF version -----------------------------

#: Pieces of texts of all three languages: statements, comments, errors, stray characters.
PIECES = [
    *GOOD.values(),
    *OTHER.values(),
    *BAD.values(),
    "[defeasible r: a => b]",
    "[norm r1: p(X) => forbidden(go(X))]",
    "[query: go(a)]",
    "father(ann, bea).",
    "% a comment ",
    "%",
    " ",
    "\t",
    "[",
    "]",
    ".",
    "é",
    "\u00a0",
]
LINE_END_OR_LF = st.sampled_from(["\n", *LINE_ENDS])


@st.composite
def mixed(draw) -> tuple[str, str]:
    """A text whose lines end in random ways, and the same text with LF line ends (a CR
    followed by an empty line's LF would be one CRLF: that line ends otherwise)."""
    lines = draw(st.lists(st.lists(st.sampled_from(PIECES), max_size=4).map("".join), max_size=8))
    text = ""
    for line in lines:
        after_cr = text.endswith("\r") and not line
        text += line + draw(st.sampled_from(LINE_ENDS) if after_cr else LINE_END_OR_LF)
    return text, "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("language", LANGUAGES)
@given(texts=mixed())
@settings(max_examples=60, deadline=None)
def test_mixed_line_ends_read_as_lf(language, texts):
    parse = LANGUAGES[language][0]
    text, lf = texts
    assert outcome(parse, text) == outcome(parse, lf)
