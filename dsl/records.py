"""`dataclass`: `dataclasses.dataclass`, with the methods it writes compiled once per user
rather than at every start.

dataclasses writes the source text of each class's `__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__`, ... and compiles it (`exec`) when the class is defined: about half a
millisecond a class, some 10 ms of the start of `argc check`, which defines 26 classes before
it reads a file. While this `dataclass` makes a class, dataclasses calls an `exec` that takes
the code of a text compiled before from argc's folder in the user's cache
(`argc.dsl.syntax.cache_folder`): one file per module and Python version (`marshal`), holding
the code of exactly the texts that module's classes wrote, rewritten whole (under a temporary
name, then renamed) at the end of a process that had to compile one of them. The code of a
text is what `compile` makes of it, so the classes are the ones dataclasses makes (`fields`,
`replace` and the rest work on them). Where there is no such folder, where a file cannot be
read, or on a Python whose dataclasses does not call `exec` by name, the texts are compiled at
every start as before; where Python writes no bytecode (`PYTHONDONTWRITEBYTECODE`, `-B`),
nothing is written (nor the folder made).
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any, TypeVar

from argc.dsl.syntax import cache_folder

T = TypeVar("T", bound=type)

#: The compiled texts of each module's classes: read from the cache, then added to.
_known: dict[str, dict[str, CodeType]] = {}
#: The texts each module's classes wrote in this process, with their code.
_used: dict[str, dict[str, CodeType]] = {}
#: The modules that compiled a text in this process: their files are rewritten at exit.
_compiled: set[str] = set()


def dataclass(cls: T | None = None, /, **options: Any) -> T | Callable[[T], T]:
    """`dataclasses.dataclass(cls, **options)`, its methods' code taken from the cache."""

    def wrap(cls: T) -> T:
        module = cls.__module__
        known = _known.get(module)
        if known is None:
            known = _known[module] = _read(module)
        used = _used.setdefault(module, {})

        def cached_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
            if not isinstance(source, str):
                return builtins.exec(source, globals, locals)
            code = known.get(source)
            if code is None:  # compiled as dataclasses' exec compiles it: no __future__ flags
                code = known[source] = compile(source, "<string>", "exec", dont_inherit=True)
                _compiled_in(module)
            used[source] = code
            return builtins.exec(code, globals, locals)

        # dataclasses calls `exec` by name: a global of its module is found before builtins'.
        dataclasses.exec = cached_exec  # type: ignore[attr-defined]
        try:
            return dataclasses.dataclass(cls, **options)
        finally:
            vars(dataclasses).pop("exec", None)

    return wrap if cls is None else wrap(cls)


def cache_file(module: str, *, make: bool = False) -> Path | None:
    """The file of `module`'s compiled texts for this Python in argc's cache folder (made
    with `make`); None without one."""
    tag = sys.implementation.cache_tag
    folder = cache_folder(make) if tag is not None else None
    if folder is None:
        return None
    return folder / f"dataclasses-{module}-{tag}-{sys.hexversion:x}-o{sys.flags.optimize}.marshal"


def _read(module: str) -> dict[str, CodeType]:
    """The compiled texts kept for `module`; none where its file is missing or unreadable."""
    path = cache_file(module)
    if path is None:
        return {}
    try:
        with open(path, "rb") as handle:
            found = marshal.loads(handle.read())  # marshal.load reads a file piece by piece
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(found, dict) or not all(
        isinstance(text, str) and isinstance(code, CodeType) for text, code in found.items()
    ):
        return {}
    return found


def _compiled_in(module: str) -> None:
    if not _compiled and not sys.dont_write_bytecode:
        atexit.register(_write)
    _compiled.add(module)


def _write() -> None:
    """Rewrite the file of each module that compiled a text: the texts its classes wrote."""
    for module in sorted(_compiled):
        path = cache_file(module, make=True)
        if path is None:
            return
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with open(temporary, "wb") as handle:
                handle.write(marshal.dumps(_used[module]))
            os.replace(temporary, path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)
