"""The `.arg` grammar, its parser and the theory checks, with hypothesis fuzzing."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from argc.dsl import (
    SEMANTICS,
    ArgcError,
    Axiom,
    Contradictory,
    Contrary,
    InputError,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
    parse_directives,
    parse_intervention,
    parse_theory,
    read_theory,
)
from argc.dsl import parser as parser_module
from argc.dsl.ir import OrderingHeader, Position, QueryHeader, SemanticsHeader

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GENERATED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def lit(text: str) -> Literal:
    return Literal.parse(text)


def error_of(text: str, filename: str = "<input>") -> InputError:
    with pytest.raises(InputError) as caught:
        parse_theory(text, filename)
    return caught.value


# Literal.parse ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "atom", "negated"),
    [
        ("a", "a", False),
        ("-a", "a", True),
        ("  -a  ", "a", True),
        ("- a", "a", True),
        ("_x9", "_x9", False),
        ("AND", "AND", False),
        ("-Rule_1", "Rule_1", True),
    ],
)
def test_literal_parse(text, atom, negated):
    literal = Literal.parse(text)
    assert literal == Literal(atom, negated)
    assert str(literal) == ("-" if negated else "") + atom
    assert Literal.parse(str(literal)) == literal


@pytest.mark.parametrize("text", ["", "-", "--a", "1a", "a b", "a-b", "é", "a,", "[a]", "- -a"])
def test_literal_parse_rejects(text):
    with pytest.raises(ValueError):
        Literal.parse(text)


def test_literal_complement_and_order():
    assert lit("a").complement == lit("-a")
    assert lit("-a").complement == lit("a")
    assert lit("a").complement.complement == lit("a")
    assert sorted([lit("b"), lit("-a"), lit("a")]) == [lit("a"), lit("-a"), lit("b")]


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True), st.booleans())
@settings(max_examples=100, deadline=None)
def test_literal_parse_round_trips(atom, negated):
    literal = Literal(atom, negated)
    assert Literal.parse(str(literal)) == literal
    assert Literal.parse(f"  {literal}\n") == literal


# Every directive kind -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "directive"),
    [
        ("[axiom: a]", Axiom(lit("a"))),
        ("[axiom: -a]", Axiom(lit("-a"))),
        ("[premise: p]", Premise(lit("p"))),
        ("[premise: -p]", Premise(lit("-p"))),
        ("[defeasible d1: a => b]", Rule("d1", (lit("a"),), lit("b"))),
        (
            "[defeasible d2: a AND -b AND c => -e]",
            Rule("d2", (lit("a"), lit("-b"), lit("c")), lit("-e")),
        ),
        ("[defeasible u: a => -d1]", Rule("u", (lit("a"),), lit("-d1"))),
        ("[strict s1: a -> b]", Rule("s1", (lit("a"),), lit("b"), strict=True)),
        (
            "[strict s2: -a AND b -> -c]",
            Rule("s2", (lit("-a"), lit("b")), lit("-c"), strict=True),
        ),
        ("[prefer_rule: r1 > r2]", RulePreference("r1", "r2")),
        ("[prefer_premise: a > -b]", PremisePreference(lit("a"), lit("-b"))),
        ("[contrary: a ~> -b]", Contrary(lit("a"), lit("-b"))),
        ("[contradictory: a <-> -b]", Contradictory(lit("a"), lit("-b"))),
        ("[contradictory: -a <-> a]", Contradictory(lit("-a"), lit("a"))),
        (
            "[ordering: weakest-link democratic]",
            OrderingHeader(Ordering("weakest-link", "democratic")),
        ),
        (
            "[ordering: last-link elitist mp2013]",
            OrderingHeader(Ordering("last-link", "elitist", "mp2013")),
        ),
        ("[semantics: semi-stable]", SemanticsHeader("semi-stable")),
        ("[query: a]", QueryHeader((lit("a"),))),
        ("[query: a, -b,c]", QueryHeader((lit("a"), lit("-b"), lit("c")))),
    ],
)
def test_every_directive_kind(text, directive):
    (parsed,) = parse_directives(text)
    assert parsed == directive
    assert type(parsed) is type(directive)
    assert parsed.position == Position(1, 1)
    assert str(parsed) == text.replace(",c", ", c")


def test_directives_fill_the_theory():
    theory = parse_theory(
        """
        [ordering: last-link democratic] [semantics: preferred] [query: c, -d]
        [axiom: a] [premise: b] [premise: -b]
        [defeasible d1: a => c] [defeasible d2: b => -c] [strict s1: c -> e]
        [prefer_rule: d1 > d2] [prefer_premise: -b > b] [contrary: e ~> b]
        [contradictory: e <-> -f]
        """
    )
    assert theory.ordering == Ordering("last-link", "democratic")
    assert theory.semantics == "preferred"
    assert theory.queries == (lit("c"), lit("-d"))
    assert theory.axioms == (lit("a"),)
    assert theory.premises == (lit("b"), lit("-b"))
    assert [rule.name for rule in theory.rules] == ["d1", "d2", "s1"]
    assert [rule.name for rule in theory.defeasible_rules] == ["d1", "d2"]
    assert [rule.name for rule in theory.strict_rules] == ["s1"]
    assert theory.rule("s1").kind == "strict"
    assert theory.rule_preferences == (RulePreference("d1", "d2"),)
    assert theory.premise_preferences == (PremisePreference(lit("-b"), lit("b")),)
    assert theory.contraries == (Contrary(lit("e"), lit("b")),)
    assert theory.contradictories == (Contradictory(lit("e"), lit("-f")),)
    assert lit("-f") in theory.literals()
    with pytest.raises(KeyError):
        theory.rule("nope")


def test_empty_and_comment_only_inputs():
    assert parse_theory("") == Theory()
    assert parse_theory("   \n\t\n") == Theory()
    assert parse_theory("% nothing here\n% [premise: a]") == Theory()


def test_keywords_can_be_names():
    theory = parse_theory(
        "[premise: AND] [premise: premise] [defeasible AND: AND AND premise => axiom]"
        " [defeasible strict: axiom => -AND] [prefer_rule: AND > strict]"
    )
    assert theory.premises == (lit("AND"), lit("premise"))
    assert theory.rule("AND").body == (lit("AND"), lit("premise"))
    assert theory.rule("strict").head == lit("-AND")
    assert parse_theory(theory.to_text()) == theory


# Layout: wrapping, whitespace and comments --------------------------------------------------


def test_directive_wrapped_across_lines():
    text = "% a rule\n\n  [defeasible\n     r1 :\n   a\n   AND -b\n   =>\n   c ]\n"
    (rule,) = parse_directives(text)
    assert rule == Rule("r1", (lit("a"), lit("-b")), lit("c"))
    assert rule.position == Position(3, 3)


def test_whitespace_is_free():
    compact = parse_theory("[premise:a][defeasible r:a AND-b=>c][query:c,-a]")
    spaced = parse_theory(
        "[ premise : a ]\n[\tdefeasible r :\ta AND - b => c ]\r\n[ query : c , - a ]"
    )
    assert compact == spaced
    assert compact.rule("r").body == (lit("a"), lit("-b"))


def test_comments_anywhere():
    text = (
        "% header comment with [brackets] and a ] stray\n"
        "[premise: a]   % trailing comment\n"
        "[defeasible r1: % inside the directive\n"
        "   a % still inside\n"
        "   => b]\n"
        "% [premise: commented_out]\n"
        "[query: b] % last line without newline"
    )
    theory = parse_theory(text)
    assert theory.premises == (lit("a"),)
    assert theory.rule("r1") == Rule("r1", (lit("a"),), lit("b"))
    assert theory.queries == (lit("b"),)
    assert lit("commented_out") not in theory.literals()


def test_positions_of_directives():
    directives = parse_directives("[premise: a]\n\n   [axiom: b] [query: a]\n")
    assert [d.position for d in directives] == [Position(1, 1), Position(3, 4), Position(3, 15)]


def test_positions_do_not_affect_equality():
    assert parse_theory("[premise: a]") == parse_theory("\n\n     [premise:\na]")


# Header directives --------------------------------------------------------------------------


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_every_semantics_header(semantics):
    assert parse_theory(f"[semantics: {semantics}]").semantics == semantics


@pytest.mark.parametrize("principle", ["last-link", "weakest-link"])
@pytest.mark.parametrize("comparison", ["elitist", "democratic"])
@pytest.mark.parametrize("reading", ["", " pyarg", " mp2013"])
def test_every_ordering_header(principle, comparison, reading):
    theory = parse_theory(f"[ordering: {principle} {comparison}{reading}]")
    assert theory.ordering == Ordering(principle, comparison, reading.strip() or "pyarg")
    assert parse_theory(theory.to_text()) == theory


def test_headers_are_optional_and_removable():
    theory = parse_theory(
        "[ordering: weakest-link elitist] [semantics: stable] [query: a] [premise: a]"
    )
    bare = theory.without_header()
    assert (bare.ordering, bare.semantics, bare.queries) == (None, None, ())
    assert bare.premises == theory.premises
    assert parse_theory("[premise: a]") == bare


def test_query_headers_merge_without_duplicates():
    theory = parse_theory("[query: a, -b] [premise: c] [query: -b, c, a, d]")
    assert theory.queries == (lit("a"), lit("-b"), lit("c"), lit("d"))


def test_repeating_a_header_identically_is_allowed():
    theory = parse_theory(
        "[semantics: grounded] [semantics: grounded] [ordering: last-link elitist]"
        " [ordering: last-link elitist pyarg]"
    )
    assert theory.semantics == "grounded"
    assert theory.ordering == Ordering()


def test_exact_duplicates_are_dropped():
    theory = parse_theory(
        "[premise: a] [premise: a] [defeasible r: a => b] [defeasible r: a => b]"
        " [prefer_premise: a > c] [premise: c] [prefer_premise: a > c]"
    )
    assert theory.premises == (lit("a"), lit("c"))
    assert len(theory.rules) == 1
    assert len(theory.premise_preferences) == 1


def test_a_contradictory_pair_is_unordered():
    """`a <-> b` and `b <-> a` declare one conflict: equal directives, and the theory keeps
    the one written first, so that printing and parsing give an equal theory."""
    assert Contradictory(lit("a"), lit("-b")) == Contradictory(lit("-b"), lit("a"))
    assert hash(Contradictory(lit("a"), lit("-b"))) == hash(Contradictory(lit("-b"), lit("a")))
    assert Contradictory(lit("a"), lit("b")) != Contradictory(lit("a"), lit("-b"))
    assert Contradictory(lit("a"), lit("b")) != Contrary(lit("a"), lit("b"))
    theory = parse_theory(
        "[contradictory: -b <-> a] [contradictory: a <-> -b] [contradictory: c <-> a]"
        " [contradictory: -b<->a]"
    )
    assert theory.to_text() == "[contradictory: -b <-> a]\n[contradictory: c <-> a]\n"
    assert [str(c.first) for c in theory.contradictories] == ["-b", "c"]
    assert parse_theory(theory.to_text()) == theory
    assert theory == parse_theory("[contradictory: a <-> -b] [contradictory: a <-> c]")
    assert theory.without_header().contradictories == theory.contradictories


# Errors: syntax -----------------------------------------------------------------------------


def assert_located(error: InputError, message: str, line: int, column: int, filename: str):
    assert message in error.message
    assert (error.filename, error.line, error.column) == (filename, line, column)
    lines = str(error).split("\n")
    assert lines[0] == f"{filename}:{line}:{column}: {error.message}"
    assert lines[1] == "    " + error.source_line.expandtabs(1)
    assert lines[2] == "    " + " " * (column - 1) + "^"


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("[premise a]", "unexpected 'a'; expected ':'", 1, 10),
        ("[premise: a b]", "unexpected 'b'; expected ']'", 1, 13),
        ("[premise: a]]", "unexpected ']'", 1, 13),
        ("[bogus: a]", "unexpected 'bogus'; expected one of 'axiom'", 1, 2),
        ("[premise: é]", "unexpected character 'é'", 1, 11),
        ("[premise: a]\n  x", "unexpected 'x'; expected one of '[', end of input", 2, 3),
        ("[premise: --a]", "unexpected '-'; expected a name", 1, 12),
        ("[query: a,]", "unexpected ']'", 1, 11),
        ("[query: ]", "unexpected ']'", 1, 9),
        ("[ordering: ]", "expected a setting word", 1, 12),
        ("[defeasible: a => b]", "unexpected ':'; expected a name", 1, 12),
        ("[defeasible r: a -> b]", "unexpected '->'; expected '=>'", 1, 18),
        ("[strict r: a => b]", "unexpected '=>'; expected '->'", 1, 14),
        ("[contrary: a > b]", "expected '~>'", 1, 14),
        ("[contradictory: a ~> b]", "unexpected '~>'; expected '<->'", 1, 19),
        ("[contradictory: a <-> ]", "unexpected ']'", 1, 23),
        ("[contradictory: a <-> b c]", "unexpected 'c'; expected ']'", 1, 25),
        ("[contrary: a <-> b]", "expected '~>'", 1, 14),
        ("[prefer_rule: a > -b]", "unexpected '-'; expected a name", 1, 19),
        ("[premise: a]\n[axiom: b", "unexpected end of input", 2, 9),
        ("\n\n[premise", "unexpected end of input", 3, 2),
        ("[ordering: last-link]", "an ordering is a principle and a set comparison", 1, 12),
        ("[ordering: last-link elitist pyarg extra]", "an ordering is a principle", 1, 12),
        ("[ordering: fastest-link elitist]", "unknown ordering setting 'fastest-link'", 1, 12),
        ("[ordering: last-link sceptical]", "unknown ordering setting 'sceptical'", 1, 12),
        ("\n [semantics: bogus]", "unknown semantics 'bogus'; expected one of: grounded", 2, 14),
    ],
)
def test_syntax_errors_are_located(text, message, line, column):
    error = error_of(text, "theory.arg")
    assert_located(error, message, line, column, "theory.arg")


def test_syntax_error_shows_tabs_as_one_column():
    error = error_of("\t[premise a]")
    assert (error.line, error.column) == (1, 11)
    assert str(error).split("\n")[1:] == ["     [premise a]", "    " + " " * 10 + "^"]


# Errors: semantic checks --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        (
            "[defeasible r: a => b]\n[defeasible r: c => d]",
            "rule name 'r' is defined twice (first defined at line 1)",
            2,
            1,
        ),
        (
            "[strict r: a -> b]\n\n  [defeasible r: a => b]",
            "rule name 'r' is defined twice (first defined at line 1)",
            3,
            3,
        ),
        ("[premise: a]\n [defeasible r: => c]", "rule 'r' has an empty antecedent", 2, 2),
        ("[strict s: -> c]", "rule 's' has an empty antecedent", 1, 1),
        ("[defeasible r: a AND -b AND a => c]", "rule 'r' names the same antecedent twice", 1, 1),
        ("[premise: a]\n  [axiom: a]", "'a' is both an axiom and an ordinary premise", 1, 1),
        ("[axiom: -a] [premise: b] [premise: -a]", "'-a' is both an axiom", 1, 26),
        (
            "[defeasible r: a => b]\n  [prefer_rule: r > s]",
            "preference names unknown defeasible rule 's'",
            2,
            3,
        ),
        ("[prefer_rule: x > y]", "preference names unknown defeasible rule 'x'", 1, 1),
        (
            "[strict s: a -> b] [defeasible d: a => c]\n[prefer_rule: d > s]",
            "'s' is a strict rule; preferences order defeasible rules only",
            2,
            1,
        ),
        (
            "[defeasible r: a => b]\n[prefer_rule: r > r]",
            "rule 'r' cannot be preferred to itself",
            2,
            1,
        ),
        (
            "[premise: a]\n[prefer_premise: a > b]",
            "preference names 'b', which is not an ordinary premise",
            2,
            1,
        ),
        (
            "[axiom: a] [premise: b]\n\t[prefer_premise: a > b]",
            "preference names 'a', which is not an ordinary premise",
            2,
            2,
        ),
        (
            "[premise: a]\n[prefer_premise: a > -a]",
            "preference names '-a', which is not an ordinary premise",
            2,
            1,
        ),
        (
            "[premise: a]\n[prefer_premise: a > a]",
            "premise 'a' cannot be preferred to itself",
            2,
            1,
        ),
        ("[contrary: -a ~> -a]", "'-a' cannot be a contrary of itself", 1, 1),
        (
            "[premise: a]\n  [contradictory: a <-> a]",
            "'a' cannot be contradictory to itself",
            2,
            3,
        ),
        ("[contradictory: -b <-> -b]", "'-b' cannot be contradictory to itself", 1, 1),
        (
            "[semantics: grounded]\n[semantics: preferred]",
            "the semantics is set twice, differently",
            2,
            1,
        ),
        (
            "[ordering: last-link elitist] [ordering: last-link elitist mp2013]",
            "the ordering is set twice, differently",
            1,
            31,
        ),
    ],
)
def test_semantic_errors_are_located(text, message, line, column):
    error = error_of(text, "checks.arg")
    assert_located(error, message, line, column, "checks.arg")
    assert error.message == message or error.message.startswith(message)


def test_error_without_a_location():
    error = InputError("cannot read file: No such file or directory", filename="x.arg")
    assert str(error) == "x.arg: cannot read file: No such file or directory"
    assert isinstance(error, ArgcError)
    assert str(InputError("m", line=2, column=3)) == "<input>:2:3: m"


def test_checks_run_on_interventions_when_applied():
    directives = parse_intervention("[prefer_rule: r > s]")
    assert directives == [RulePreference("r", "s")]
    base = parse_theory("[defeasible r: a => b] [defeasible s: c => -b]")
    assert base.apply(directives).rule_preferences == (RulePreference("r", "s"),)
    with pytest.raises(InputError, match="unknown defeasible rule 'x'"):
        base.apply(parse_intervention("[prefer_rule: r > x]"))


def test_input_size_limit(monkeypatch):
    monkeypatch.setattr(parser_module, "MAX_SOURCE_CHARS", 20)
    parse_theory("[premise: a]")
    error = error_of("[premise: a] [premise: b]", "big.arg")
    assert error.line is None
    assert str(error).startswith("big.arg: input has 25 characters; the limit is 20")


# Round-trip printing ------------------------------------------------------------------------


def test_printing_order_and_format():
    theory = parse_theory(
        "[prefer_rule: d1 > d2] [defeasible d2: b => -c] [premise: b] [contrary: e ~> b]"
        " [contradictory: c <-> -e]"
        " [query: c] [defeasible d1: a => c] [axiom: a] [ordering: weakest-link democratic]"
        " [strict s: c -> e] [semantics: stage] [premise: -b] [prefer_premise: -b > b]"
    )
    assert theory.to_text() == (
        "[ordering: weakest-link democratic]\n"
        "[semantics: stage]\n"
        "[query: c]\n"
        "[axiom: a]\n"
        "[premise: b]\n"
        "[premise: -b]\n"
        "[contrary: e ~> b]\n"
        "[contradictory: c <-> -e]\n"
        "[defeasible d2: b => -c]\n"
        "[defeasible d1: a => c]\n"
        "[strict s: c -> e]\n"
        "[prefer_rule: d1 > d2]\n"
        "[prefer_premise: -b > b]\n"
    )
    assert parse_theory(theory.to_text()) == theory


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.arg")), ids=lambda path: path.name)
def test_examples_round_trip(path):
    theory = read_theory(path)
    text = theory.to_text()
    assert parse_theory(text) == theory
    assert parse_theory(text).to_text() == text


# read_theory --------------------------------------------------------------------------------


def test_read_theory_reads_a_file(tmp_path):
    path = tmp_path / "ok.arg"
    path.write_text("[premise: a] % é\n", encoding="utf-8")
    assert read_theory(path) == parse_theory("[premise: a]")
    assert read_theory(str(path)) == read_theory(path)


def test_read_theory_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.arg"
    path.write_text("[premise: a]\n[axiom: a", encoding="utf-8")
    error = pytest.raises(InputError, read_theory, path).value
    assert error.filename == str(path)
    assert str(error).startswith(f"{path}:2:9: unexpected end of input")


def test_read_theory_missing_file(tmp_path):
    path = tmp_path / "missing.arg"
    error = pytest.raises(InputError, read_theory, path).value
    assert error.filename == str(path)
    assert error.line is None
    assert "cannot read file" in error.message


def test_read_theory_directory(tmp_path):
    error = pytest.raises(InputError, read_theory, tmp_path).value
    assert error.filename == str(tmp_path)
    assert "cannot read file" in error.message


@pytest.mark.parametrize(
    ("raw", "byte"),
    [(b"\xff[premise: a]", 0), (b"[premise: a]\n% caf\xe9\n", 18), (b"[premise: \xc3]", 10)],
)
def test_read_theory_non_utf8(tmp_path, raw, byte):
    path = tmp_path / "latin1.arg"
    path.write_bytes(raw)
    error = pytest.raises(InputError, read_theory, path).value
    assert error.message == f"not UTF-8 text (byte {byte} cannot be decoded)"
    assert str(error) == f"{path}: {error.message}"


def test_read_theory_size_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(parser_module, "MAX_SOURCE_CHARS", 4)
    path = tmp_path / "big.arg"
    path.write_bytes(b"[premise: a]\n" * 2)
    error = pytest.raises(InputError, read_theory, path).value
    assert "file has 26 bytes" in error.message


@pytest.mark.parametrize(
    ("path", "reason"),
    [("bad\x00name.arg", "embedded null byte"), ("x" * 5000 + ".arg", "File name too long")],
)
def test_read_theory_impossible_paths(path, reason):
    error = pytest.raises(InputError, read_theory, path).value
    assert error.filename == path
    assert error.message == f"cannot read file: {reason}"


@given(st.text(max_size=40))
@settings(max_examples=100, deadline=None)
def test_fuzz_read_theory_paths(name):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, name)
        try:
            read_theory(path)
        except InputError as error:
            assert error.filename == path
        else:
            raise AssertionError(f"read a theory from {path!r}")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_read_theory_unreadable(tmp_path):
    path = tmp_path / "secret.arg"
    path.write_text("[premise: a]", encoding="utf-8")
    path.chmod(0)
    try:
        with pytest.raises(InputError, match="cannot read file"):
            read_theory(path)
    finally:
        path.chmod(0o600)


def test_a_unicode_line_separator_ends_a_comment():
    error = error_of("% note\u2028more\n[premise: a]\n[axiom: a]")
    assert (error.line, error.column) == (2, 1)
    assert error.source_line == "more"
    assert error.message.startswith("unexpected 'more'")


# Fuzzing: any text gives a Theory or an InputError ------------------------------------------

FRAGMENTS = [
    "[",
    "]",
    ":",
    ",",
    ">",
    "=>",
    "->",
    "~>",
    "<->",
    "<-",
    "-",
    "AND",
    " ",
    " ",
    "\n",
    "\t",
    "\r",
    "%",
    "% c\n",
    "premise",
    "axiom",
    "defeasible",
    "strict",
    "prefer_rule",
    "prefer_premise",
    "contrary",
    "contradictory",
    "ordering",
    "semantics",
    "query",
    "last-link",
    "weakest-link",
    "elitist",
    "democratic",
    "mp2013",
    "pyarg",
    "grounded",
    "semi-stable",
    "a",
    "b",
    "r1",
    "_x",
    "Z9",
    "é",
    "\u2028",
    "\x00",
    "\x0c",
    "\ufeff",
    "😀",
    "[premise: a]",
    "[defeasible r: a => b]",
    "[prefer_rule: r > s]",
    "[axiom: a]",
    "[query: a, -b]",
    "[ordering: last-link elitist]",
    "[contradictory: a <-> -b]",
]

fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)


def example_texts() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted(EXAMPLES.glob("*.arg"))]


@st.composite
def mutated(draw, texts) -> str:
    """A valid theory text, then cut, spliced, truncated or scribbled on."""
    text = draw(texts)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["truncate", "delete", "insert", "replace", "duplicate"]))
        if kind == "truncate":
            text = text[:at]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(FRAGMENTS) | st.text(max_size=3)) + text[at:]
        elif kind == "replace" and at < len(text):
            text = text[:at] + draw(st.characters()) + text[at + 1 :]
        else:
            text = text[:at] + text[max(0, at - 30) : at] + text[at:]
    return text


def check_parses_or_input_error(text: str) -> None:
    try:
        theory = parse_theory(text, "fuzz.arg")
    except InputError as error:
        assert error.filename == "fuzz.arg"
        assert error.message
        if error.line is not None:
            assert error.line >= 1
            assert error.column is not None and error.column >= 1
        str(error)
    else:
        assert isinstance(theory, Theory)
        assert parse_theory(theory.to_text()) == theory


@given(st.text(max_size=300))
@FUZZ
def test_fuzz_arbitrary_text(text):
    check_parses_or_input_error(text)


@given(fragment_text)
@FUZZ
def test_fuzz_directive_fragments(text):
    check_parses_or_input_error(text)


@given(mutated(st.sampled_from(example_texts())))
@FUZZ
def test_fuzz_mutated_examples(text):
    check_parses_or_input_error(text)


@given(st.binary(max_size=200))
@settings(max_examples=100, deadline=None)
def test_fuzz_read_theory_bytes(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.arg"
        path.write_bytes(raw)
        try:
            theory = read_theory(path)
        except InputError as error:
            assert error.filename == str(path)
        else:
            assert isinstance(theory, Theory)


# Generated valid theories round-trip ----------------------------------------------------------

NAMES = st.one_of(
    st.sampled_from(["a", "b", "c", "AND", "premise", "axiom", "strict", "query", "_", "X_1"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
)
#: Separators between tokens; each is whitespace, possibly with a comment.
SEPARATORS = [" ", "  ", "\n", "\t", "\r\n", " % note [with] ] brackets\n", "\n\n    ", "%\n"]
#: Tokens next to which the separator may be empty.
PUNCTUATION = {"[", "]", ":", ",", ">", "=>", "->", "~>", "<->", "-"}


def literal_tokens(literal: Literal) -> list[str]:
    return ["-", literal.atom] if literal.negated else [literal.atom]


def directive_tokens(directive) -> list[str]:
    if isinstance(directive, (Axiom, Premise)):
        kind = "axiom" if isinstance(directive, Axiom) else "premise"
        return ["[", kind, ":", *literal_tokens(directive.literal), "]"]
    if isinstance(directive, Rule):
        body: list[str] = []
        for index, literal in enumerate(directive.body):
            body += (["AND"] if index else []) + literal_tokens(literal)
        arrow = "->" if directive.strict else "=>"
        head = literal_tokens(directive.head)
        return ["[", directive.kind, directive.name, ":", *body, arrow, *head, "]"]
    if isinstance(directive, RulePreference):
        return ["[", "prefer_rule", ":", directive.stronger, ">", directive.weaker, "]"]
    if isinstance(directive, PremisePreference):
        stronger, weaker = literal_tokens(directive.stronger), literal_tokens(directive.weaker)
        return ["[", "prefer_premise", ":", *stronger, ">", *weaker, "]"]
    if isinstance(directive, Contrary):
        attacker, attacked = literal_tokens(directive.attacker), literal_tokens(directive.attacked)
        return ["[", "contrary", ":", *attacker, "~>", *attacked, "]"]
    if isinstance(directive, Contradictory):
        first, second = literal_tokens(directive.first), literal_tokens(directive.second)
        return ["[", "contradictory", ":", *first, "<->", *second, "]"]
    if isinstance(directive, OrderingHeader):
        return ["[", "ordering", ":", *str(directive.ordering).split(), "]"]
    if isinstance(directive, SemanticsHeader):
        return ["[", "semantics", ":", directive.semantics, "]"]
    tokens = ["[", "query", ":"]
    for index, literal in enumerate(directive.literals):
        tokens += ([","] if index else []) + literal_tokens(literal)
    return [*tokens, "]"]


@st.composite
def valid_directives(draw) -> list:
    """Directives that make a well-formed theory, in random order with some duplicates."""
    atoms = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    literals = st.builds(Literal, st.sampled_from(atoms), st.booleans())
    directives: list = []

    knowledge = draw(st.lists(literals, max_size=6, unique=True))
    premises = []
    for literal in knowledge:
        if draw(st.booleans()):
            directives.append(Axiom(literal))
        else:
            directives.append(Premise(literal))
            premises.append(literal)

    names = draw(st.lists(NAMES, max_size=5, unique=True))
    defeasible = []
    for name in names:
        strict = draw(st.booleans())
        body = tuple(draw(st.lists(literals, min_size=1, max_size=3, unique=True)))
        heads = (
            literals
            if not defeasible
            else literals | st.sampled_from(defeasible).map(lambda rule: Literal(rule, True))
        )
        directives.append(Rule(name, body, draw(heads), strict=strict))
        if not strict:
            defeasible.append(name)

    if len(defeasible) >= 2:
        pairs = st.tuples(st.sampled_from(defeasible), st.sampled_from(defeasible))
        for stronger, weaker in draw(st.lists(pairs, max_size=3)):
            if stronger != weaker:
                directives.append(RulePreference(stronger, weaker))
    if len(premises) >= 2:
        pairs = st.tuples(st.sampled_from(premises), st.sampled_from(premises))
        for stronger, weaker in draw(st.lists(pairs, max_size=3)):
            if stronger != weaker:
                directives.append(PremisePreference(stronger, weaker))
    for attacker, attacked in draw(st.lists(st.tuples(literals, literals), max_size=3)):
        if attacker != attacked:
            directives.append(Contrary(attacker, attacked))
    for first, second in draw(st.lists(st.tuples(literals, literals), max_size=3)):
        if first != second:
            directives.append(Contradictory(first, second))

    ordering = draw(
        st.none()
        | st.builds(
            Ordering,
            st.sampled_from(["last-link", "weakest-link"]),
            st.sampled_from(["elitist", "democratic"]),
            st.sampled_from(["pyarg", "mp2013"]),
        )
    )
    if ordering is not None:
        directives.append(OrderingHeader(ordering))
    semantics = draw(st.none() | st.sampled_from(SEMANTICS))
    if semantics is not None:
        directives.append(SemanticsHeader(semantics))
    for _ in range(draw(st.integers(0, 2))):
        queries = draw(st.lists(literals, min_size=1, max_size=3))
        directives.append(QueryHeader(tuple(queries)))

    if directives:
        directives += draw(st.lists(st.sampled_from(directives), max_size=2))
    return draw(st.permutations(directives))


@st.composite
def rendered(draw, directives: list) -> str:
    """Directive text with random layout: whitespace, line breaks and comments."""
    tokens = [token for directive in directives for token in directive_tokens(directive)]
    if not tokens:
        return draw(st.sampled_from(SEPARATORS))
    pieces = [draw(st.sampled_from(["", *SEPARATORS]))]
    for token, following in zip(tokens, [*tokens[1:], None], strict=True):
        pieces.append(token)
        if following is None:
            break
        choices = SEPARATORS
        if token in PUNCTUATION or following in PUNCTUATION:
            choices = ["", *SEPARATORS]
        pieces.append(draw(st.sampled_from(choices)))
    pieces.append(draw(st.sampled_from(["", "\n", "% end"])))
    return "".join(pieces)


@st.composite
def generated_theories(draw) -> tuple[list, str]:
    directives = draw(valid_directives())
    return directives, draw(rendered(directives))


@given(generated_theories())
@GENERATED
def test_generated_theories_parse_and_round_trip(generated):
    directives, text = generated
    theory = parse_theory(text)
    assert theory == Theory.from_directives(directives)
    assert theory == parse_theory("\n".join(str(directive) for directive in directives))
    printed = theory.to_text()
    assert parse_theory(printed) == theory
    assert parse_theory(printed).to_text() == printed
    assert list(parse_directives(printed)) == list(theory.directives())


@given(generated_theories())
@GENERATED
def test_generated_directive_positions(generated):
    directives, text = generated
    assume(directives)
    parsed = parse_directives(text)
    assert parsed == directives
    lines = text.split("\n")
    for directive in parsed:
        position = directive.position
        assert lines[position.line - 1][position.column - 1] == "["
