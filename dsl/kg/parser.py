"""Parsing `.kg` text into a KgWorld, with errors that point at file:line:col."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from argc.dsl.errors import InputError
from argc.dsl.ir import Position
from argc.dsl.kg.world import Atom, KgWorld, Object, Person, Rule, Statement
from argc.dsl.parser import MAX_SOURCE_CHARS, read_text, source_name
from argc.dsl.syntax import cache_path, lark_syntax_error

if TYPE_CHECKING:
    from lark import Lark

_FRIENDLY_TERMINALS = {"NAME": "a name", "$END": "end of input"}


@cache
def _lark() -> tuple[Lark, type]:
    """Lark's parser of kg.lark (cached per user like the other languages' parsers) and the
    transformer from its trees to statements."""
    from importlib.resources import files

    from lark import Lark, Transformer, v_args

    grammar = files("argc.dsl.kg").joinpath("kg.lark").read_text(encoding="utf-8")
    path = cache_path(grammar, "kg")
    parser = Lark(
        grammar,
        parser="lalr",
        propagate_positions=True,
        cache=str(path) if path is not None else False,
    )

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
    """The statements of `.kg` text, unchecked (a leading byte-order mark is ignored)."""
    from lark.exceptions import UnexpectedInput

    if len(text) > MAX_SOURCE_CHARS:
        raise InputError(
            f"input has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}",
            filename=filename,
        )
    text = text.removeprefix("\ufeff")
    parser, transformer = _lark()
    try:
        return transformer().transform(parser.parse(text))
    except UnexpectedInput as error:
        raise lark_syntax_error(
            error,
            parser,
            _FRIENDLY_TERMINALS,
            filename,
            text.split("\n"),
            unclosed="a statement is not ended with '.'?",
        ) from None


def parse_kg(text: str, filename: str = "<input>") -> KgWorld:
    """Parse and check a KG world written in `.kg` statements."""
    statements = parse_statements(text, filename)
    return KgWorld.build(statements, filename=filename, source=text.removeprefix("\ufeff"))


def read_kg(path: str | Path) -> KgWorld:
    """Read and parse a `.kg` file; unreadable files raise InputError too."""
    return parse_kg(read_text(path), source_name(path))
