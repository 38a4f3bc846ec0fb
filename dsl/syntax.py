"""What the directive languages' Lark parsers share: one reading of line ends, a per-user
cache of built parsers and syntax errors that name the file, line and column and say what was
expected."""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argc.dsl.errors import InputError, LimitExceeded

if TYPE_CHECKING:
    from lark import Lark
    from lark.exceptions import UnexpectedInput

#: Characters of an offending token quoted in a syntax error.
QUOTED_TOKEN_CHARS = 40

#: The line ends of the `.arg`, `.norm` and `.kg` languages and of answers (docs/text.md),
#: each read as one LF: CRLF, CR, NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR.
LINE_END = re.compile("\r\n?|[\x85\u2028\u2029]")
#: Characters that some tools read as a line end and others as part of a line, by name:
#: refused wherever they stand, comments included.
AMBIGUOUS_BREAKS = {
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x1c": "file separator",
    "\x1d": "group separator",
    "\x1e": "record separator",
}
_AMBIGUOUS_BREAK = re.compile("[\x0b\x0c\x1c-\x1e]")


def lf_lines(text: str) -> str:
    """`text` with every line end (`LINE_END`) an LF."""
    if "\r" in text or (not text.isascii() and any(end in text for end in "\x85\u2028\u2029")):
        return LINE_END.sub("\n", text)
    return text


def located(text: str, index: int) -> tuple[int, int, str]:
    """The line and column (1-based) of `index` in `text` (lines ended by LF), and its line."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start : end if end >= 0 else len(text)]
    return text.count("\n", 0, index) + 1, index - start + 1, line


def source_text(text: str, filename: str, limit: int) -> str:
    """A source text as the parsers read it (at most `limit` characters): a leading
    byte-order mark dropped and every line end an LF, so that Lark's lines, the comments'
    ends and the lines shown under an error are the lines a user's editor shows. A vertical
    tab, form feed or U+001C-U+001E is an InputError at its line and column."""
    if len(text) > limit:
        raise InputError(
            f"input has {len(text):,} characters; the limit is {limit:,}", filename=filename
        )
    text = lf_lines(text.removeprefix("\ufeff"))
    if any(character in text for character in AMBIGUOUS_BREAKS):
        at = _AMBIGUOUS_BREAK.search(text).start()  # type: ignore[union-attr]
        line, column, shown = located(text, at)
        raise InputError(
            f"{AMBIGUOUS_BREAKS[text[at]]} (U+{ord(text[at]):04X}) is not allowed: "
            "lines end with LF, CRLF, CR, NEL, U+2028 or U+2029",
            filename=filename,
            line=line,
            column=column,
            source_line=shown,
        )
    return text


def cache_folder(make: bool = True) -> Path | None:
    """argc's private folder in the user's cache (`$XDG_CACHE_HOME/argc`, else
    `~/.cache/argc`), made if missing (with `make`). None when there is no such folder that
    only its owner can write: what is kept there (pickles, compiled code) is loaded only from
    the user's own folder."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    try:
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
        folder = root / "argc"
        if make:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except (OSError, RuntimeError):  # RuntimeError: no home directory
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return folder


def cache_path(grammar: str, language: str) -> Path | None:
    """Where the built parser of `grammar` is kept between runs: argc's folder of the user's
    cache (`cache_folder`), one file per language, grammar, Lark version and Python version.
    None when there is no such folder (Lark then builds the parser each time)."""
    import hashlib

    import lark

    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    python = "{}{}".format(*sys.version_info[:2])
    return folder / f"{language}-{digest}-lark{lark.__version__}-py{python}.lark"


def lark_parser(
    package: str, grammar_file: str, language: str, *, positions: bool = True, **options: Any
) -> Lark:
    """The LALR parser (with the trees' positions, unless not `positions`) of a grammar
    shipped in `package`, loaded from the per-user cache when it was built before (Lark
    checks the cached file's hash of grammar and options, and rebuilds it when it is missing
    or unreadable). `language` names the cache file: one per grammar and set of options."""
    from importlib.resources import files

    from lark import Lark

    grammar = files(package).joinpath(grammar_file).read_text(encoding="utf-8")
    path = cache_path(grammar, language)
    return Lark(
        grammar,
        parser="lalr",
        propagate_positions=positions,
        cache=str(path) if path is not None else False,
        **options,
    )


def parse_with(
    parser: Lark,
    transformer: type,
    text: str,
    filename: str,
    *,
    limit: int,
    friendly: Mapping[str, str],
    unclosed: str,
) -> Any:
    """`text` (read by `source_text` with `limit`) parsed and transformed; a syntax error is
    an InputError (see `lark_syntax_error`), nesting too deep for the transformer
    LimitExceeded."""
    from lark.exceptions import UnexpectedInput

    text = source_text(text, filename, limit)
    try:
        return transformer().transform(parser.parse(text))
    except UnexpectedInput as error:
        lines = text.split("\n")
        raise lark_syntax_error(error, parser, friendly, filename, lines, unclosed) from None
    except RecursionError:
        raise LimitExceeded(f"{filename}: too deeply nested to parse") from None


def _describe(terminal: str, parser: Lark, friendly: Mapping[str, str]) -> str:
    from lark.lexer import PatternStr

    if terminal in friendly:
        return friendly[terminal]
    try:
        pattern = parser.get_terminal(terminal).pattern
    except KeyError:
        return terminal
    return f"'{pattern.value}'" if isinstance(pattern, PatternStr) else terminal


def quoted(text: str) -> str:
    """`text` quoted for a message, shortened past QUOTED_TOKEN_CHARS."""
    if len(text) > QUOTED_TOKEN_CHARS:
        text = text[:QUOTED_TOKEN_CHARS] + "..."
    return repr(text)


def lark_syntax_error(
    error: UnexpectedInput,
    parser: Lark,
    friendly: Mapping[str, str],
    filename: str,
    lines: list[str],
    unclosed: str = "a directive is not closed with ']'?",
) -> InputError:
    """An InputError for Lark's syntax error: what was found, what was expected (terminals
    named by `friendly` where it names them), where; `unclosed` hints at the usual cause of
    an unexpected end of input."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    accepted = getattr(error, "accepts", None) or getattr(error, "expected", None) or ()
    expected = sorted({_describe(name, parser, friendly) for name in accepted})
    if isinstance(error, UnexpectedCharacters):
        message = f"unexpected character {error.char!r}"
        expected = sorted({_describe(name, parser, friendly) for name in error.allowed or ()})
    elif isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        message = f"unexpected end of input ({unclosed})"
    else:
        message = f"unexpected {quoted(str(error.token))}"
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
