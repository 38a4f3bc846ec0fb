"""Errors raised for bad input: each names the file, line and column, and shows the line."""

from __future__ import annotations

from collections.abc import Sequence


class ArgcError(Exception):
    """Base class of every error argc reports to a user."""


class LimitExceeded(ArgcError):
    """Work on an input stopped at a limit: time, size, memory, arguments, attacks...

    `limit` names the count that was exceeded where it is one of `Limits`' fields
    (`arguments`, `sub_arguments`, `instantiations`, `attacks`, `extensions`), so that a
    command can say which option raises it; None for the others."""

    def __init__(self, message: str | LimitExceeded, limit: str | None = None) -> None:
        # clingo re-raises an error of a grounding callback as `type(error)(error)`.
        if isinstance(message, LimitExceeded) and limit is None:
            limit = message.limit
        super().__init__(str(message))
        self.limit = limit

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        """Pickled with its limit (limits are also hit in worker processes)."""
        return type(self), (str(self), self.limit)


#: Characters of a source line shown around the column of an error.
SHOWN_LINE_CHARS = 100
#: Control characters in a shown line as their visible pictures (one column each, so the caret
#: stays under its character).
_VISIBLE = {code: 0x2400 + code for code in range(0x20)} | {0x7F: 0x2421}


class InputError(ArgcError):
    """A syntax or semantic error in a theory or directive text, located in the source."""

    def __init__(
        self,
        message: str,
        *,
        filename: str = "<input>",
        line: int | None = None,
        column: int | None = None,
        source_line: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line

    def __str__(self) -> str:
        if self.line is None:
            return f"{self.filename}: {self.message}"
        head = f"{self.filename}:{self.line}:{self.column}: {self.message}"
        if self.source_line is None:
            return head
        line = self.source_line.expandtabs(1).rstrip("\n").translate(_VISIBLE)
        shown, offset = _window(line, self.column or 1)
        return f"{head}\n    {shown}\n    {' ' * offset}^"


def located_error(
    message: str, position: object | None, filename: str, lines: Sequence[str] | None
) -> InputError:
    """An InputError at `position` (a `line` and `column`, 1-based; None: the whole input),
    showing its line of `lines` (the source split at newlines) when there is one."""
    if position is None:
        return InputError(message, filename=filename)
    line, column = position.line, position.column  # type: ignore[attr-defined]
    shown = lines[line - 1] if lines is not None and 0 < line <= len(lines) else None
    return InputError(message, filename=filename, line=line, column=column, source_line=shown)


def _window(line: str, column: int) -> tuple[str, int]:
    """At most SHOWN_LINE_CHARS of `line` around `column` (elided ends marked with ...), and
    the caret's offset in what is shown."""
    index = min(max(column, 1), len(line) + 1) - 1
    if len(line) <= SHOWN_LINE_CHARS:
        return line, index
    start = max(0, min(index - SHOWN_LINE_CHARS // 2, len(line) - SHOWN_LINE_CHARS))
    end = start + SHOWN_LINE_CHARS
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(line) else ""
    return prefix + line[start:end] + suffix, len(prefix) + index - start
