"""Reading answers to the normative-world tasks: `key: value` lines (answers.lark) into a
record of fields, each a list of items, of changes or an order."""

from __future__ import annotations

from functools import cache

from lark import Lark, Transformer
from lark.exceptions import LarkError

from argc.dsl.syntax import lark_parser
from argc.tasks.answers import MAX_ANSWER_CHARS, UnreadableAnswer

#: A field's value: items (`["r2", "p(a)"]`), changes (`[("r1", "overruled", "undecided")]`,
#: a change without its subject as `(None, from, to)`) or an order (`("r2", "r1")`).
Value = list[str] | list[tuple[str | None, str, str]] | tuple[str, str]


@cache
def _parser() -> Lark:
    return lark_parser(
        "argc.tasks.norms", "answers.lark", "norm-answers", positions=False, start="record"
    )


class _Record(Transformer):
    def arguments(self, names):
        return "(" + ", ".join(str(name) for name in names) + ")"

    def item(self, children):
        return "".join(str(child) for child in children)

    def empty(self, _children):
        return []

    def items(self, children):
        return list(children)

    def change(self, children):
        return (None, *children) if len(children) == 2 else tuple(children)

    def changes(self, children):
        return list(children)

    def order(self, children):
        return tuple(children)

    def line(self, children):
        key, value = children
        return str(key).lower(), value

    def record(self, lines):
        return list(lines)


def read_record(
    answer: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Value]:
    """The fields of an answer: each of `keys` once, each of `optional` at most once, no
    other (an answer without a colon stands for the only key's value); raises
    UnreadableAnswer otherwise."""
    text = answer.strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise UnreadableAnswer(f"answer longer than {MAX_ANSWER_CHARS:,} characters")
    if len(keys) == 1 and ":" not in text:
        text = f"{keys[0]}: {text}"
    try:
        lines = _Record().transform(_parser().parse(text))
    except LarkError as error:
        raise UnreadableAnswer(f"does not parse: {str(error).splitlines()[0]}") from None
    record: dict[str, Value] = {}
    for key, value in lines:
        if key not in keys and key not in optional:
            raise UnreadableAnswer(f"unreadable: unknown field {key!r}")
        if key in record:
            raise UnreadableAnswer(f"unreadable: field {key!r} given twice")
        record[key] = value
    missing = [key for key in keys if key not in record]
    if missing:
        raise UnreadableAnswer(f"unreadable: missing field(s) {', '.join(missing)}")
    return record
