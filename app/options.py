"""Validated values for command-line options: argparse `type=` functions that refuse NaN,
infinities and out-of-range numbers with a one-line message naming the value."""

from __future__ import annotations

import argparse
from collections.abc import Callable

#: The longest time limit any command accepts, in seconds (one week).
MAX_SECONDS = 7 * 24 * 3600.0


def _number(text: str, kind: type) -> float | int:
    try:
        value = kind(text)
    except ValueError:
        word = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {word}") from None
    if kind is float and not _finite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _finite(value: float) -> bool:
    import math  # here: a command that is given no number does not load it

    return math.isfinite(value)


def bounded(
    kind: type, least: float | None = None, most: float | None = None, *, open_least=False
) -> Callable[[str], float | int]:
    """An argparse type: a `kind` (int or float) in [least, most] (or (least, most] with
    `open_least`); either bound may be None."""

    def parse(text: str) -> float | int:
        value = _number(text, kind)
        low = least is not None and (value <= least if open_least else value < least)
        if low or (most is not None and value > most):
            left = "(" if open_least else "["
            low_text = "-inf" if least is None else f"{least:g}"
            high_text = "inf" if most is None else f"{most:g}"
            raise argparse.ArgumentTypeError(
                f"{text} is out of range {left}{low_text}, {high_text}]"
            )
        return value

    parse.__name__ = kind.__name__  # argparse names the type in "invalid int value" messages
    return parse


#: A positive whole number (counts, sizes, workers).
positive_int = bounded(int, 1)
#: The least `--max-memory` a command accepts, in MiB: with less, the interpreter itself
#: cannot start a thread or load a module, and fails before argc can report the limit.
MIN_MEMORY_MIB = 64
#: The default `--max-memory`, in MiB.
DEFAULT_MEMORY_MIB = 4096
#: Memory for `--max-memory`, in MiB (at least MIN_MEMORY_MIB).
memory_mib = bounded(int, MIN_MEMORY_MIB)
#: A whole number ≥ 0 (retries, limits that may be 0).
natural_int = bounded(int, 0)
#: A positive, finite number of seconds, at most MAX_SECONDS.
seconds = bounded(float, 0.0, MAX_SECONDS, open_least=True)
#: A probability-like value in [0, 1].
unit_interval = bounded(float, 0.0, 1.0)
#: A finite number ≥ 0 (sampling temperature).
nonnegative_float = bounded(float, 0.0)
