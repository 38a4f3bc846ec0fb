"""Parsing `.arg` text into the IR, with errors that point at file:line:col.

Two readers give the same directives. A small scanner reads well-formed text directly: it
matches, at each point of a directive, exactly the tokens the grammar (theory.lark) allows
there, and needs neither Lark nor a parse table. Anything it does not read to the end (a
syntax error, an unknown setting, an unusual but valid text) goes to Lark's LALR parser,
whose errors are the ones reported. Lark is imported and its parser built (or loaded from
the per-user cache) only then.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from argc.dsl.errors import InputError, LimitExceeded
from argc.dsl.ir import (
    SEMANTICS,
    Axiom,
    Contradictory,
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
from argc.dsl.syntax import lark_parser, lark_syntax_error, source_text

if TYPE_CHECKING:
    from lark import Lark, Token

#: Inputs longer than this many characters are refused before parsing.
MAX_SOURCE_CHARS = 4_000_000

_FRIENDLY_TERMINALS = {
    "NAME": "a name",
    "WORD": "a setting word",
    "NEGATION": "'-'",
    "$END": "end of input",
}


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


# The scanner ---------------------------------------------------------------------------------

#: What the grammar ignores between any two tokens: whitespace and comments (line ends are
#: LF by then: `source_text`).
_SKIP = re.compile(r"(?:[ \t\n]+|%[^\n]*)*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
#: The directive keywords after "[" (none is a prefix of another).
_KEYWORD = re.compile(
    r"axiom|premise|defeasible|strict|prefer_rule|prefer_premise|contrary|contradictory"
    r"|ordering|semantics|query"
)
#: The token between the two literals of a directive that relates two literals.
_BETWEEN = {"prefer_premise": ">", "contrary": "~>", "contradictory": "<->"}
#: Names read between two looks at the deadline.
_DEADLINE_EVERY = 256


class _Unread(Exception):
    """The scanner stops here: Lark reads the text instead (and reports any error)."""


class _Scanner:
    """Reads the directives of a well-formed text, token by token as the grammar's contextual
    lexer does: at each point only the tokens the grammar allows there, the longest match,
    whitespace and comments skipped between any two tokens."""

    def __init__(self, text: str, deadline: float | None) -> None:
        self.text = text
        self.deadline = deadline
        self.names = 0
        self.at = 0
        self.line = 1
        self.line_start = 0  # index of the first character of `line`
        self.counted = 0  # line breaks are counted up to this index

    def skip(self) -> int:
        self.at = _SKIP.match(self.text, self.at).end()
        return self.at

    def token(self, token: str) -> None:
        if not self.text.startswith(token, self.skip()):
            raise _Unread
        self.at += len(token)

    def is_next(self, token: str) -> bool:
        """Whether `token` comes next (then it is read)."""
        if self.text.startswith(token, self.skip()):
            self.at += len(token)
            return True
        return False

    def match(self, pattern: re.Pattern) -> str:
        found = pattern.match(self.text, self.skip())
        if found is None:
            raise _Unread
        self.at = found.end()
        return found.group()

    def name(self) -> str:
        """A name, the deadline looked at every `_DEADLINE_EVERY` names."""
        self.names += 1
        if (
            self.deadline is not None
            and self.names % _DEADLINE_EVERY == 0
            and time.monotonic() > self.deadline
        ):
            raise _OutOfTime
        return self.match(_NAME)

    def literal(self) -> Literal:
        negated = self.is_next("-")
        return Literal(self.name(), negated)

    def body(self, arrow: str) -> tuple[Literal, ...]:
        """Literals joined by AND up to `arrow` (none: the checker says so)."""
        if self.is_next(arrow):
            return ()
        found = [self.literal()]
        while self.is_next("AND"):
            found.append(self.literal())
        self.token(arrow)
        return tuple(found)

    def position(self, index: int) -> Position:
        """Line and column (1-based, as Lark counts them) of `index`, at or after the last
        position asked for."""
        text = self.text
        breaks = text.count("\n", self.counted, index)
        if breaks:
            self.line += breaks
            self.line_start = text.rindex("\n", self.counted, index) + 1
        self.counted = index
        return Position(self.line, index - self.line_start + 1)

    def directive(self) -> Directive:
        """The directive whose "[" is at the current index."""
        at = self.position(self.at)
        self.at += 1
        kind = self.match(_KEYWORD)
        if kind in ("axiom", "premise"):
            self.token(":")
            literal = self.literal()
            self.token("]")
            return Axiom(literal, at) if kind == "axiom" else Premise(literal, at)
        if kind in ("defeasible", "strict"):
            name = self.name()
            self.token(":")
            strict = kind == "strict"
            body = self.body("->" if strict else "=>")
            head = self.literal()
            self.token("]")
            return Rule(name, body, head, strict=strict, position=at)
        self.token(":")
        if kind == "prefer_rule":
            stronger = self.name()
            self.token(">")
            weaker = self.name()
            self.token("]")
            return RulePreference(stronger, weaker, at)
        if kind == "query":
            literals = [self.literal()]
            while not self.is_next("]"):
                self.token(",")
                literals.append(self.literal())
            return QueryHeader(tuple(literals), at)
        if kind == "ordering":
            words = [self.match(_WORD)]
            while not self.is_next("]"):
                words.append(self.match(_WORD))
            return OrderingHeader(Ordering.parse(" ".join(words)), at)
        if kind == "semantics":
            word = self.match(_WORD)
            self.token("]")
            if word not in SEMANTICS:
                raise _Unread
            return SemanticsHeader(word, at)
        first = self.literal()
        self.token(_BETWEEN[kind])
        second = self.literal()
        self.token("]")
        if kind == "prefer_premise":
            return PremisePreference(first, second, at)
        if kind == "contradictory":
            return Contradictory(first, second, at)
        return Contrary(first, second, at)

    def directives(self) -> list[Directive]:
        found: list[Directive] = []
        text, end = self.text, len(self.text)
        while self.skip() < end:
            if text[self.at] != "[":
                raise _Unread
            found.append(self.directive())
        return found


def _scanned(text: str, deadline: float | None) -> list[Directive] | None:
    """The directives of `text` read by the scanner; None when Lark must read it."""
    try:
        return _Scanner(text, deadline).directives()
    except (_Unread, ValueError):  # ValueError: an ordering the IR refuses
        return None


# Lark ----------------------------------------------------------------------------------------


@cache
def _lark() -> tuple[Lark, type]:
    """Lark's parser of theory.lark (loaded from the cache when it was built before) and the
    transformer from its trees to directives."""
    from lark import Transformer, v_args

    parser = lark_parser("argc.dsl", "theory.lark", "theory", lexer_callbacks={"NAME": _on_name})

    class ToDirectives(Transformer):
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
        def contradictory(self, meta, children):
            first, second = children
            return Contradictory(first, second, _at(meta))

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

    return parser, ToDirectives


def _parser() -> Lark:
    return _lark()[0]


def _at(meta) -> Position:
    return Position(meta.line, meta.column)


class _SettingError(Exception):
    def __init__(self, message: str, token: Token) -> None:
        super().__init__(message)
        self.token = token


def parse_directives(
    text: str, filename: str = "<input>", *, deadline: float | None = None
) -> list[Directive]:
    """Parse directive text (a theory or an intervention) into typed directives, unchecked.
    The text is read as `source_text` reads it (a leading byte-order mark ignored, every line
    end an LF). `deadline` (a `time.monotonic()` value) bounds the parse: past it,
    LimitExceeded."""
    return _directives(source_text(text, filename, MAX_SOURCE_CHARS), filename, deadline)


def _directives(text: str, filename: str, deadline: float | None) -> list[Directive]:
    """The directives of a text `source_text` has read: the scanner's, else Lark's."""
    try:
        scanned = _scanned(text, deadline)
    except _OutOfTime:
        raise LimitExceeded(f"{filename}: time limit exceeded while parsing", "time") from None
    if scanned is not None:
        return scanned
    return _lark_directives(text, filename, deadline)


def _lark_directives(text: str, filename: str, deadline: float | None) -> list[Directive]:
    """The directives of `text` as Lark reads them, or its error."""
    from lark.exceptions import UnexpectedInput, VisitError

    parser, transformer = _lark()
    lines = text.split("\n")
    token = _deadline.set(deadline)
    try:
        tree = parser.parse(text)
        return transformer().transform(tree)
    except _OutOfTime:
        raise LimitExceeded(f"{filename}: time limit exceeded while parsing", "time") from None
    except UnexpectedInput as error:
        raise lark_syntax_error(error, parser, _FRIENDLY_TERMINALS, filename, lines) from None
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
    text = source_text(text, filename, MAX_SOURCE_CHARS)
    directives = _directives(text, filename, deadline)
    return Theory.from_directives(directives, filename=filename, source=text)


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
            raise LimitExceeded(f"{name}: time limit exceeded while reading", "time")
    return b"".join(chunks)


def _too_large(size: int, more: bool = False) -> str:
    amount = f"more than {4 * MAX_SOURCE_CHARS:,}" if more else f"{size:,}"
    return f"file has {amount} bytes; the limit is {MAX_SOURCE_CHARS:,} characters"


def read_theory(path: str | Path, *, deadline: float | None = None) -> Theory:
    """Read and parse a `.arg` file (within `deadline`, a `time.monotonic()` value);
    unreadable files raise InputError too."""
    text = read_text(path, deadline=deadline)
    return parse_theory(text, source_name(path), deadline=deadline)
