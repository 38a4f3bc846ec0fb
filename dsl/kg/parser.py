"""Parsing `.kg` text into a KgWorld, with errors that point at file:line:col.

A text of more than `max_statements` statements (MAX_STATEMENTS by default) is refused
before it is parsed, at the end of the first statement past the limit: parsing keeps about
2 KB per statement at once (tokens, tree, statements), so that the largest text the
character limit allows, 444,000 one-fact statements, peaked at 0.96 GB before any check."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from argc.dsl.errors import InputError
from argc.dsl.ir import Position
from argc.dsl.kg.world import Atom, KgWorld, Object, Person, Rule, Statement
from argc.dsl.parser import MAX_SOURCE_CHARS, read_text, source_name
from argc.dsl.syntax import lark_parser, located, parse_with, source_text

if TYPE_CHECKING:
    from lark import Lark

_FRIENDLY_TERMINALS = {"NAME": "a name", "$END": "end of input"}
#: The most statements a `.kg` text may have by default: a world within the solver's state
#: bound has fewer than 100,000 events (`argc.compiler.kg.solve.MAX_STATES`); with the
#: solver's step bound, no world measured at this bound peaked past 0.85 GB (docs/kg.md,
#: "In ASP").
MAX_STATEMENTS = 150_000
#: A comment or a statement's final '.'.
_ENDS = re.compile(r"%[^\n]*|\.")


@cache
def _lark() -> tuple[Lark, type]:
    """Lark's parser of kg.lark (cached per user like the other languages' parsers) and the
    transformer from its trees to statements."""
    from lark import Transformer, v_args

    parser = lark_parser("argc.dsl.kg", "kg.lark", "kg")

    def at(token) -> Position:
        return Position(token.line, token.column)

    def begin(meta) -> Position:
        return Position(meta.line, meta.column)

    class ToStatements(Transformer):
        """Turns the parse tree into statements carrying their source positions."""

        def start(self, statements):
            return list(statements)

        @v_args(meta=True)
        def person(self, meta, children):
            name, gender = children
            return Person(str(name), str(gender), begin(meta), at(name), at(gender))

        @v_args(meta=True)
        def object(self, meta, children):
            (name,) = children
            return Object(str(name), begin(meta), at(name))

        def atom(self, children):
            name, *arguments = children
            return Atom(str(name), tuple(map(str, arguments)), at(name), tuple(map(at, arguments)))

        @v_args(meta=True)
        def rule(self, meta, children):
            name, *path = children
            return Rule(
                str(name),
                tuple(map(str, path)),
                begin(meta),
                at(name),
                tuple(map(at, path)),
            )

    return parser, ToStatements


def parse_statements(text: str, filename: str = "<input>") -> list[Statement]:
    """The statements of `.kg` text, unchecked (read as `source_text` reads it)."""
    parser, transformer = _lark()
    return parse_with(
        parser,
        transformer,
        text,
        filename,
        limit=MAX_SOURCE_CHARS,
        friendly=_FRIENDLY_TERMINALS,
        unclosed="a statement is not ended with '.'?",
    )


def check_statements(text: str, filename: str, limit: int = MAX_STATEMENTS) -> None:
    """InputError at the end of statement `limit` + 1 of `text` (read by `source_text`):
    each statement ends with a '.' outside comments."""
    if text.count(".") <= limit:
        return
    ends = (match for match in _ENDS.finditer(text) if match.group() == ".")
    for count, match in enumerate(ends, 1):
        if count > limit:
            line, column, shown = located(text, match.start())
            raise InputError(
                f"more than {limit:,} statements; the limit is {limit:,} (max_statements)",
                filename=filename,
                line=line,
                column=column,
                source_line=shown,
            )


def parse_kg(text: str, filename: str = "<input>", max_statements: int = MAX_STATEMENTS) -> KgWorld:
    """Parse and check a KG world written in `.kg` statements (InputError past
    `max_statements`, before parsing: `check_statements`)."""
    text = source_text(text, filename, MAX_SOURCE_CHARS)
    check_statements(text, filename, max_statements)
    statements = parse_statements(text, filename)
    return KgWorld.build(statements, filename=filename, source=text)


def read_kg(path: str | Path, max_statements: int = MAX_STATEMENTS) -> KgWorld:
    """Read and parse a `.kg` file; unreadable files raise InputError too."""
    return parse_kg(read_text(path), source_name(path), max_statements)
