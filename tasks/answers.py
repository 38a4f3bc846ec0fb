"""Reading untrusted answers: the last <answer> region, the characters every answer may hold
(`answer_text`), the answer grammars, and the F1 measures shared by the scorers."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Iterable
from functools import cache

from lark import Lark, Transformer
from lark.exceptions import LarkError, UnexpectedInput

from argc.dsl.errors import ArgcError
from argc.dsl.ir import Literal
from argc.dsl.syntax import lark_parser, lf_lines, located

_OPEN = re.compile("<answer>", re.IGNORECASE)
_CLOSE = re.compile("</answer>", re.IGNORECASE)

#: Longest answer region read; longer ones are unreadable (bounds parsing time).
MAX_ANSWER_CHARS = 100_000


#: Characters no answer may hold (docs/text.md): the C0 and C1 controls other than tab and
#: the line ends, and every format character (Unicode's category Cf: zero-width spaces and
#: joiners, bidirectional controls, the byte-order mark, soft hyphen, ...), listed in full so
#: that no Unicode version of Python changes the rule; and lone surrogates.
_CONTROL = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f"
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001-\U000e007f"
)
_REFUSED = re.compile(f"[{_CONTROL}{_FORMAT}\ud800-\udfff]")
#: The space characters other than U+0020 (Unicode's category Zs), each read as U+0020.
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


class UnreadableAnswer(ArgcError):
    """The answer region does not follow the task's answer format."""


def answer_text(answer: str) -> str:
    """An answer as every task reads it (docs/text.md): each line end (CRLF, CR, NEL, U+2028,
    U+2029) an LF and each space character (no-break, em, ideographic, ...) a space.
    UnreadableAnswer (`unreadable: ...`, with its line and column) at the first control
    character other than tab, format character (zero-width, bidirectional, ...) or lone
    surrogate: a model that writes one where a space belongs has not written the answer."""
    text = lf_lines(answer)
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text  # the usual answer: no control, format or space character but U+0020
    found = _REFUSED.search(text)
    if found is not None:
        code = ord(found.group())
        kind = "control" if code < 0xA0 else "surrogate" if 0xD800 <= code < 0xE000 else "format"
        line, column, _ = located(text, found.start())
        raise UnreadableAnswer(
            f"unreadable: {kind} character U+{code:04X} at line {line}, column {column}"
        )
    return _SPACES.sub(" ", text)


def answer_regions(response: str) -> list[str]:
    """The texts inside the <answer>...</answer> regions, in order: each opening tag is
    closed by the next closing tag (tags in any case). Linear time, even for a response of
    unclosed opening tags (which a lazy regular expression scans quadratically)."""
    regions: list[str] = []
    position = 0
    while (opening := _OPEN.search(response, position)) is not None:
        closing = _CLOSE.search(response, opening.end())
        if closing is None:
            break
        regions.append(response[opening.end() : closing.start()])
        position = closing.end()
    return regions


def answer_region(response: str) -> str | None:
    """The text inside the last <answer>...</answer> region, or None when there is none."""
    found = answer_regions(response)
    return found[-1] if found else None


@cache
def _parser(start: str) -> Lark:
    """The reader of the grammar rule `start`, its entries built while it parses."""
    return lark_parser(
        "argc.tasks",
        "answers.lark",
        f"answers-{start}",
        positions=False,
        start=start,
        transformer=_Entries(),
    )


def _words(token: str) -> str:
    return " ".join(token.lower().split())


class _Entries(Transformer):
    def claim(self, children):
        return Literal(str(children[-1]), negated=len(children) == 2)

    def status_line(self, children):
        claim, status = children
        return claim, _words(status)

    def acceptance_line(self, children):
        claim, mode, verdict = children
        return (claim, _words(mode)), _words(verdict)

    def status_map(self, lines):
        return [line for line in lines if line is not None]

    acceptance_map = status_map


def read_entries(answer: str, start: str) -> list[tuple[Hashable, str]]:
    """Parse an answer region with the grammar rule `start` into (key, value) entries."""
    text = answer.strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise UnreadableAnswer(f"answer longer than {MAX_ANSWER_CHARS:,} characters")
    try:
        return _parser(start).parse(text)
    except UnexpectedInput as error:
        lines = text.splitlines()
        number = error.line if error.line and 0 < error.line <= len(lines) else None
        shown = lines[number - 1].strip() if number else text[:40]
        raise UnreadableAnswer(f"line {number or 1}: cannot read {shown!r}") from None
    except (LarkError, ValueError) as error:
        raise UnreadableAnswer(str(error)) from None


def pair_f1(entries: Iterable[tuple[Hashable, str]], gold: dict) -> tuple[float, bool]:
    """Key–value pair F1 and exact equality. A key given contradictory values is wrong."""
    values: dict[Hashable, set[str]] = defaultdict(set)
    for key, value in entries:
        values[key].add(value)
    predicted = {key: found.pop() for key, found in values.items() if len(found) == 1}
    true_positives = sum(1 for key, value in predicted.items() if gold.get(key) == value)
    exact = len(predicted) == len(values) and predicted == gold
    if not values or not gold:
        return (1.0 if exact else 0.0), exact
    precision, recall = true_positives / len(values), true_positives / len(gold)
    if true_positives == 0:
        return 0.0, exact
    return 2 * precision * recall / (precision + recall), exact


def score_map(answer: str, start: str, gold: dict, exact_reason: str) -> tuple[float, bool, str]:
    """Read a key–value answer with grammar rule `start` and score it by pair F1 against
    `gold`: (native, success, reason); an unreadable answer scores 0."""
    try:
        entries = read_entries(answer, start)
    except UnreadableAnswer as error:
        return 0.0, False, f"unreadable answer: {error}"
    f1, exact = pair_f1(entries, gold)
    return f1, exact, exact_reason if exact else f"pair F1 {f1:.3f}"
