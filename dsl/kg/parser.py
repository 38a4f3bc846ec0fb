"""Parsing `.kg` text into a KgWorld, with errors that point at file:line:col."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from argc.dsl.ir import Position
from argc.dsl.kg.world import Atom, KgWorld, Object, Person, Rule, Statement
from argc.dsl.parser import MAX_SOURCE_CHARS, read_text, source_name
from argc.dsl.syntax import lark_parser, parse_with, source_text

if TYPE_CHECKING:
    from lark import Lark

_FRIENDLY_TERMINALS = {"NAME": "a name", "$END": "end of input"}


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


def parse_kg(text: str, filename: str = "<input>") -> KgWorld:
    """Parse and check a KG world written in `.kg` statements."""
    text = source_text(text, filename, MAX_SOURCE_CHARS)
    statements = parse_statements(text, filename)
    return KgWorld.build(statements, filename=filename, source=text)


def read_kg(path: str | Path) -> KgWorld:
    """Read and parse a `.kg` file; unreadable files raise InputError too."""
    return parse_kg(read_text(path), source_name(path))
