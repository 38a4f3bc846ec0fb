"""Errors raised for bad input: each names the file, line and column, and shows the line."""

from __future__ import annotations


class ArgcError(Exception):
    """Base class of every error argc reports to a user."""


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
        shown = self.source_line.expandtabs(1).rstrip("\n")
        caret = " " * (max(self.column or 1, 1) - 1) + "^"
        return f"{head}\n    {shown}\n    {caret}"
