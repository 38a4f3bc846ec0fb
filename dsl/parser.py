"""Parsing `.arg` text into the IR, with errors that point at file:line:col."""

from __future__ import annotations

import os
import stat
import sys
import time
from contextvars import ContextVar
from functools import cache
from importlib.resources import files
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.lexer import PatternStr

from argc.dsl.errors import InputError, LimitExceeded
from argc.dsl.ir import (
    SEMANTICS,
    Axiom,
    Contrary,
    Directive,
    Literal,
    Ordering,
    OrderingHeader,
    Position,
    Premise,
    PremisePreference,
    QueryHeader,
    Rule,
    RulePreference,
    SemanticsHeader,
    Theory,
)

#: Inputs longer than this many characters are refused before parsing.
MAX_SOURCE_CHARS = 4_000_000

_FRIENDLY_TERMINALS = {
    "NAME": "a name",
    "WORD": "a setting word",
    "NEGATION": "'-'",
    "$END": "end of input",
}


#: Characters of an offending token quoted in a syntax error.
QUOTED_TOKEN_CHARS = 40
#: The monotonic time by which the parse in progress must end (None: no deadline).
_deadline: ContextVar[float | None] = ContextVar("parse_deadline", default=None)


class _OutOfTime(Exception):
    pass


def _on_name(token: Token) -> Token:
    """Lexer callback on every name: stops a parse that runs past its deadline."""
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise _OutOfTime
    return token


@cache
def _parser() -> Lark:
    grammar = files("argc.dsl").joinpath("theory.lark").read_text(encoding="utf-8")
    return Lark(
        grammar, parser="lalr", propagate_positions=True, lexer_callbacks={"NAME": _on_name}
    )


def _at(meta) -> Position:
    return Position(meta.line, meta.column)


class _ToDirectives(Transformer):
    """Turns the parse tree into typed directives carrying their source positions."""

    def start(self, directives):
        return list(directives)

    def literal(self, children):
        return Literal(str(children[-1]), negated=len(children) == 2)

    def body(self, literals):
        return tuple(literals)

    @v_args(meta=True)
    def axiom(self, meta, children):
        return Axiom(children[0], _at(meta))

    @v_args(meta=True)
    def premise(self, meta, children):
        return Premise(children[0], _at(meta))

    @v_args(meta=True)
    def defeasible(self, meta, children):
        name, body, head = children
        return Rule(str(name), body, head, strict=False, position=_at(meta))

    @v_args(meta=True)
    def strict(self, meta, children):
        name, body, head = children
        return Rule(str(name), body, head, strict=True, position=_at(meta))

    @v_args(meta=True)
    def prefer_rule(self, meta, children):
        stronger, weaker = children
        return RulePreference(str(stronger), str(weaker), _at(meta))

    @v_args(meta=True)
    def prefer_premise(self, meta, children):
        stronger, weaker = children
        return PremisePreference(stronger, weaker, _at(meta))

    @v_args(meta=True)
    def contrary(self, meta, children):
        attacker, attacked = children
        return Contrary(attacker, attacked, _at(meta))

    @v_args(meta=True)
    def ordering(self, meta, words):
        try:
            ordering = Ordering.parse(" ".join(str(word) for word in words))
        except ValueError as error:
            raise _SettingError(str(error), words[0]) from None
        return OrderingHeader(ordering, _at(meta))

    @v_args(meta=True)
    def semantics(self, meta, children):
        (word,) = children
        if str(word) not in SEMANTICS:
            raise _SettingError(
                f"unknown semantics '{word}'; expected one of: {', '.join(SEMANTICS)}", word
            )
        return SemanticsHeader(str(word), _at(meta))

    @v_args(meta=True)
    def query(self, meta, literals):
        return QueryHeader(tuple(literals), _at(meta))


class _SettingError(Exception):
    def __init__(self, message: str, token: Token) -> None:
        super().__init__(message)
        self.token = token


def _describe(terminal: str) -> str:
    if terminal in _FRIENDLY_TERMINALS:
        return _FRIENDLY_TERMINALS[terminal]
    try:
        pattern = _parser().get_terminal(terminal).pattern
    except KeyError:
        return terminal
    return f"'{pattern.value}'" if isinstance(pattern, PatternStr) else terminal


def _syntax_error(error: UnexpectedInput, filename: str, lines: list[str]) -> InputError:
    accepted = getattr(error, "accepts", None) or getattr(error, "expected", None) or ()
    expected = sorted({_describe(name) for name in accepted})
    if isinstance(error, UnexpectedCharacters):
        message = f"unexpected character {error.char!r}"
        expected = sorted({_describe(name) for name in error.allowed or ()})
    elif isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        message = "unexpected end of input (a directive is not closed with ']'?)"
    else:
        message = f"unexpected {_quoted(str(error.token))}"
    if expected:
        message += "; expected " + (
            expected[0] if len(expected) == 1 else "one of " + ", ".join(expected)
        )
    line = getattr(error, "line", None)
    column = getattr(error, "column", None)
    if line is None or line < 1:
        line = max(len(lines), 1)
        column = len(lines[-1]) + 1 if lines else 1
    source_line = lines[line - 1] if 0 < line <= len(lines) else ""
    return InputError(message, filename=filename, line=line, column=column, source_line=source_line)


def _quoted(text: str) -> str:
    if len(text) > QUOTED_TOKEN_CHARS:
        text = text[:QUOTED_TOKEN_CHARS] + "..."
    return repr(text)


def parse_directives(
    text: str, filename: str = "<input>", *, deadline: float | None = None
) -> list[Directive]:
    """Parse directive text (a theory or an intervention) into typed directives, unchecked.
    A leading byte-order mark is ignored. `deadline` (a `time.monotonic()` value) bounds the
    parse: past it, LimitExceeded."""
    if len(text) > MAX_SOURCE_CHARS:
        raise InputError(
            f"input has {len(text):,} characters; the limit is {MAX_SOURCE_CHARS:,}",
            filename=filename,
        )
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    token = _deadline.set(deadline)
    try:
        tree = _parser().parse(text)
        return _ToDirectives().transform(tree)
    except _OutOfTime:
        raise LimitExceeded(f"{filename}: time limit exceeded while parsing") from None
    except UnexpectedInput as error:
        raise _syntax_error(error, filename, lines) from None
    except VisitError as error:
        cause = error.orig_exc
        if isinstance(cause, _SettingError):
            line, column = cause.token.line, cause.token.column
            raise InputError(
                str(cause),
                filename=filename,
                line=line,
                column=column,
                source_line=lines[line - 1] if line and line <= len(lines) else None,
            ) from None
        raise
    finally:
        _deadline.reset(token)


def parse_theory(text: str, filename: str = "<input>", *, deadline: float | None = None) -> Theory:
    """Parse and check a theory written in `.arg` directives (`deadline` as for
    `parse_directives`)."""
    directives = parse_directives(text, filename, deadline=deadline)
    return Theory.from_directives(directives, filename=filename, source=text.removeprefix("\ufeff"))


def parse_intervention(text: str, filename: str = "<intervention>") -> list[Directive]:
    """Parse a list of directives to add to a theory (checked when applied)."""
    return parse_directives(text, filename)


_CHUNK = 1 << 16


#: The path that stands for standard input.
STDIN = "-"


def read_text(path: str | Path, *, deadline: float | None = None) -> str:
    """Read a UTF-8 text file of bounded size (`-`: standard input); any failure is an
    InputError naming the file.

    A regular file's size is checked before it is read; other files (pipes, devices) are read
    in chunks up to the bound. `deadline` (a `time.monotonic()` value) bounds the reading.
    """
    name = source_name(path)
    try:
        if str(path) == STDIN:
            raw = _bounded_read(sys.stdin.buffer, name, deadline)
        else:
            with open(path, "rb") as handle:
                if stat.S_ISDIR(os.fstat(handle.fileno()).st_mode):
                    raise IsADirectoryError(21, "Is a directory")
                raw = _bounded_read(handle, name, deadline)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = getattr(error, "strerror", None) or error
        raise InputError(f"cannot read file: {reason}", filename=name) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"not UTF-8 text (byte {error.start} cannot be decoded)", filename=name
        ) from None


def source_name(path: str | Path) -> str:
    """How messages name an input: its path, or <stdin>."""
    return "<stdin>" if str(path) == STDIN else str(path)


def _bounded_read(handle, name: str, deadline: float | None) -> bytes:
    """At most four bytes per character of MAX_SOURCE_CHARS (UTF-8's widest)."""
    info = os.fstat(handle.fileno())
    if stat.S_ISREG(info.st_mode) and info.st_size > 4 * MAX_SOURCE_CHARS:
        raise InputError(_too_large(info.st_size), filename=name)
    chunks, size = [], 0
    while chunk := handle.read(_CHUNK):
        chunks.append(chunk)
        size += len(chunk)
        if size > 4 * MAX_SOURCE_CHARS:
            raise InputError(_too_large(size, more=True), filename=name)
        if deadline is not None and time.monotonic() > deadline:
            raise LimitExceeded(f"{name}: time limit exceeded while reading")
    return b"".join(chunks)


def _too_large(size: int, more: bool = False) -> str:
    amount = f"more than {4 * MAX_SOURCE_CHARS:,}" if more else f"{size:,}"
    return f"file has {amount} bytes; the limit is {MAX_SOURCE_CHARS:,} characters"


def read_theory(path: str | Path, *, deadline: float | None = None) -> Theory:
    """Read and parse a `.arg` file (within `deadline`, a `time.monotonic()` value);
    unreadable files raise InputError too."""
    text = read_text(path, deadline=deadline)
    return parse_theory(text, source_name(path), deadline=deadline)
