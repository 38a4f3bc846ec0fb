"""Parsing `.norm` text into a World, with errors that point at file:line:col."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from argc.dsl.ir import Position
from argc.dsl.norms.world import Atom, Fact, IdentityRule, Norm, Priority, Query, Statement, World
from argc.dsl.parser import MAX_SOURCE_CHARS, read_text, source_name
from argc.dsl.syntax import lark_parser, parse_with, source_text

if TYPE_CHECKING:
    from lark import Lark

_FRIENDLY_TERMINALS = {
    "NAME": "a name",
    "VARIABLE": "a variable",
    "NUMBER": "a number",
    "$END": "end of input",
}


@cache
def _lark() -> tuple[Lark, type]:
    """Lark's parser of norm.lark (cached per user like the `.arg` parser's) and the
    transformer from its trees to statements."""
    from lark import Transformer, v_args

    parser = lark_parser("argc.dsl.norms", "norm.lark", "norm")

    def at(meta) -> Position:
        return Position(meta.line, meta.column)

    def token_at(token) -> Position:
        return Position(token.line, token.column)

    class ToStatements(Transformer):
        """Turns the parse tree into typed statements carrying their source positions."""

        def start(self, statements):
            return list(statements)

        def constant(self, children):
            return str(children[0])

        def variable(self, children):
            return str(children[0])

        def atom(self, children):
            return Atom(str(children[0]), tuple(children[1:]), token_at(children[0]))

        def body(self, atoms):
            return tuple(atoms)

        @v_args(meta=True)
        def fact(self, meta, children):
            return Fact(children[0], at(meta))

        @v_args(meta=True)
        def identity(self, meta, children):
            return IdentityRule(children[0], children[1], at(meta))

        @v_args(meta=True)
        def norm(self, meta, children):
            name, body, label, action = children
            return Norm(str(name), body, str(label), action, at(meta), token_at(label))

        @v_args(meta=True)
        def priority(self, meta, children):
            stronger, weaker = children
            return Priority(
                str(stronger), str(weaker), at(meta), token_at(stronger), token_at(weaker)
            )

        @v_args(meta=True)
        def query(self, meta, children):
            return Query(children[0], at(meta))

    return parser, ToStatements


def parse_statements(text: str, filename: str = "<input>") -> list[Statement]:
    """The statements of `.norm` text, unchecked (read as `source_text` reads it)."""
    parser, transformer = _lark()
    return parse_with(
        parser,
        transformer,
        text,
        filename,
        limit=MAX_SOURCE_CHARS,
        friendly=_FRIENDLY_TERMINALS,
        unclosed="a statement is not ended with '.' or ']'?",
    )


def parse_world(text: str, filename: str = "<input>") -> World:
    """Parse and check a world written in `.norm` statements."""
    text = source_text(text, filename, MAX_SOURCE_CHARS)
    statements = parse_statements(text, filename)
    return World.build(statements, filename=filename, source=text)


def read_world(path: str | Path) -> World:
    """Read and parse a `.norm` file; unreadable files raise InputError too."""
    return parse_world(read_text(path), source_name(path))
