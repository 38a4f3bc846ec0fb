"""Abstract argumentation frameworks in the ICCMA formats.

- `.apx`: `arg(NAME).` declares an argument, `att(NAME,NAME).` an attack; names are letters,
  digits and underscores; `%` starts a comment; statements may share or span lines.
- `.af` (ICCMA 2023): the header `p af N`, then one attack `i j` per line between arguments
  numbered 1..N; a line starting with `#` is a comment. Arguments are named by their numbers.

Readers raise InputError naming file:line:col; writers print text that reads back equal.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from argc.dsl.errors import InputError
from argc.dsl.parser import read_text, source_name

#: An `.af` header declaring more arguments than this is refused.
MAX_ARGUMENTS = 1_000_000
#: The formats `read_framework` reads, named like their file suffixes.
FORMATS = ("apx", "af")

_NAME = re.compile(r"[A-Za-z0-9_]+")
_APX_STATEMENT = re.compile(
    r"(?P<kind>[A-Za-z_]\w*)\s*\(\s*(?P<first>[^,()\s]*)\s*(?:,\s*(?P<second>[^,()\s]*)\s*)?\)\s*\."
)
_SPACE = re.compile(r"(?:\s|%[^\n]*)*")


@dataclass(frozen=True)
class Framework:
    """An abstract argumentation framework: argument names (in order) and attacks."""

    arguments: tuple[str, ...]
    attacks: tuple[tuple[str, str], ...]

    @cached_property
    def position(self) -> dict[str, int]:
        """Each argument's place in the declared order."""
        return {name: index for index, name in enumerate(self.arguments)}


class _Source:
    """Text with its file name, turning offsets into InputErrors at line:column."""

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.lines = text.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def error(self, message: str, offset: int) -> InputError:
        line = bisect_right(self.starts, offset)
        column = offset - self.starts[line - 1] + 1
        return InputError(
            message,
            filename=self.filename,
            line=line,
            column=column,
            source_line=self.lines[line - 1].rstrip("\r"),
        )


def parse_apx(text: str, filename: str = "<input>") -> Framework:
    """Read `.apx` text: `arg(a).` and `att(a,b).` statements; attacks name declared
    arguments."""
    source = _Source(text, filename)
    arguments: dict[str, None] = {}
    attacks: dict[tuple[str, str], int] = {}
    offset = _SPACE.match(text).end()
    while offset < len(text):
        match = _APX_STATEMENT.match(text, offset)
        if match is None:
            raise source.error("expected 'arg(NAME).' or 'att(NAME,NAME).'", offset)
        names = _apx_names(source, match)
        if len(names) == 1:
            arguments[names[0]] = None
        else:
            attacks.setdefault((names[0], names[1]), match.start())
        offset = _SPACE.match(text, match.end()).end()
    for (attacker, attacked), at in attacks.items():
        for name in (attacker, attacked):
            if name not in arguments:
                raise source.error(f"attack names an undeclared argument '{name}'", at)
    return Framework(tuple(arguments), tuple(attacks))


def _apx_names(source: _Source, match: re.Match) -> tuple[str, ...]:
    kind, first, second = match["kind"], match["first"], match["second"]
    expected = {"arg": 1, "att": 2}.get(kind)
    if expected is None:
        raise source.error(f"unknown statement '{kind}'; expected 'arg' or 'att'", match.start())
    names = (first,) if second is None else (first, second)
    if len(names) != expected:
        shape = "one name: arg(NAME)" if kind == "arg" else "two names: att(NAME,NAME)"
        raise source.error(f"'{kind}' takes {shape}", match.start())
    for name, group in zip(names, ("first", "second"), strict=False):
        if not _NAME.fullmatch(name):
            raise source.error(
                f"bad argument name '{name}' (letters, digits and '_' only)", match.start(group)
            )
    return names


def parse_af(text: str, filename: str = "<input>") -> Framework:
    """Read ICCMA 2023 `.af` text: `p af N`, then `i j` lines; `#` lines are comments."""
    source = _Source(text, filename)
    size: int | None = None
    attacks: dict[tuple[str, str], None] = {}
    for index, line in enumerate(source.lines):
        offset = source.starts[index]
        fields = [(match.group(), offset + match.start()) for match in re.finditer(r"\S+", line)]
        if not fields or fields[0][0].startswith("#"):
            continue
        if size is None:
            size = _af_header(source, fields, offset)
            continue
        if len(fields) != 2:
            raise source.error("expected an attack 'i j'", fields[0][1])
        attacker, attacked = (_af_argument(source, field, size) for field in fields)
        attacks[(attacker, attacked)] = None
    if size is None:
        raise source.error("missing the header 'p af N'", len(text))
    return Framework(tuple(str(number) for number in range(1, size + 1)), tuple(attacks))


def _af_header(source: _Source, fields: list[tuple[str, int]], offset: int) -> int:
    words = [word for word, _ in fields]
    if len(words) != 3 or words[:2] != ["p", "af"] or not words[2].isdigit():
        raise source.error("expected the header 'p af N' before any attack", offset)
    size = int(words[2])
    if size > MAX_ARGUMENTS:
        raise source.error(f"more than {MAX_ARGUMENTS:,} arguments", fields[2][1])
    return size


def _af_argument(source: _Source, field: tuple[str, int], size: int) -> str:
    word, offset = field
    if not word.isdigit() or not 1 <= int(word) <= size:
        raise source.error(f"'{word}' is not an argument number between 1 and {size}", offset)
    return str(int(word))


def read_framework(
    path: str | Path, *, form: str | None = None, deadline: float | None = None
) -> Framework:
    """Read a framework in `form`, `apx` or `af` (by default the file's suffix); `-` reads
    standard input, and `deadline` bounds the reading as for `read_text`. A byte order mark
    is skipped."""
    name = source_name(path)
    form = form or Path(str(path)).suffix.lower().removeprefix(".")
    if form not in FORMATS:
        what = f"unknown framework format '{form}'" if form else "no framework format given"
        raise InputError(f"{what}; expected {' or '.join(FORMATS)}", filename=name)
    reader = parse_apx if form == "apx" else parse_af
    return reader(read_text(path, deadline=deadline).removeprefix("\ufeff"), name)


def to_apx(framework: Framework, comments: Sequence[str] = ()) -> str:
    """`.apx` text; each comment becomes a `%` line at the top. Names must be `.apx` names."""
    lines = [f"% {comment}" for comment in comments]
    lines += [f"arg({name})." for name in framework.arguments]
    lines += [f"att({attacker},{attacked})." for attacker, attacked in framework.attacks]
    return "\n".join(lines) + "\n"


def to_af(framework: Framework, comments: Sequence[str] = ()) -> str:
    """ICCMA 2023 `.af` text: argument i is the i-th of `framework.arguments`; each comment
    becomes a `#` line after the header."""
    number = {name: index for index, name in enumerate(framework.arguments, 1)}
    lines = [f"p af {len(framework.arguments)}", *(f"# {comment}" for comment in comments)]
    lines += [f"{number[attacker]} {number[attacked]}" for attacker, attacked in framework.attacks]
    return "\n".join(lines) + "\n"
