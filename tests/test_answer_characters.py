"""One rule for the characters of answers, the same in every task (docs/text.md): line ends
read as LF, space characters as spaces, and a control or format character (NUL, zero-width
space, bidirectional control, ...) makes the answer unreadable, with its line and column."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argc.dsl.ir import Ordering
from argc.dsl.syntax import located
from argc.tasks import REGISTRY, Instance, Score, generate, generated_tasks, score
from argc.tasks.answers import UnreadableAnswer, answer_text
from argc.tasks.framework import is_unreadable
from argc.tasks.kg.families import FAMILIES, generate_instance

#: Characters no answer may hold: controls, format characters, a lone surrogate.
REFUSED = [
    "\x00",
    "\x01",
    "\x08",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x7f",
    "\x80",
    "\x9f",
    "\u00ad",
    "\u061c",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202e",
    "\u2060",
    "\u2063",
    "\u2066",
    "\u2069",
    "\ufeff",
    "\U000e0020",
    "\ud800",
]
#: Space characters, read as U+0020.
SPACES = ["\u00a0", "\u1680", "\u2002", "\u2003", "\u2009", "\u200a", "\u202f", "\u3000"]
#: Line ends, read as LF.
LINE_ENDS = ["\r\n", "\r", "\x85", "\u2028", "\u2029"]
TASKS = sorted(REGISTRY)


@pytest.fixture(scope="module")
def instances() -> dict[str, Instance]:
    found = {
        name: generate(name, 2, Ordering("weakest-link", "elitist"), 3)
        for name in generated_tasks()
    }
    for family in FAMILIES:
        instance = generate_instance(family, 2, 1, 5).instance()
        found[instance.task] = instance
    return found


def answer_of(instance: Instance) -> str:
    """The reference answer with at least one space (a leading one when it has none)."""
    return instance.reference if " " in instance.reference else " " + instance.reference


def scored(instance: Instance, answer: str) -> Score:
    tagged = REGISTRY[instance.task].tagged
    return score(instance, f"<answer>{answer}</answer>" if tagged else answer)


def expected(instance: Instance, answer: str, at: int, character: str) -> Score:
    """What the rule gives the answer with its character `at` (a space) replaced."""
    if character in LINE_ENDS:
        return scored(instance, answer[:at] + "\n" + answer[at + 1 :])
    if character in SPACES:
        return scored(instance, answer)
    line, column, _ = located(answer, at)
    return Score(
        0.0,
        False,
        f"unreadable: {_kind(character)} character U+{ord(character):04X}"
        f" at line {line}, column {column}",
    )


def _kind(character: str) -> str:
    code = ord(character)
    return "control" if code < 0xA0 else "surrogate" if 0xD800 <= code < 0xE000 else "format"


def test_every_registered_task_is_covered(instances):
    assert sorted(instances) == TASKS
    assert {REGISTRY[name].suite for name in TASKS} == {"arggym", "norms", "kg"}


@pytest.mark.parametrize("task", TASKS)
def test_the_reference_scores_1(task, instances):
    instance = instances[task]
    for answer in (instance.reference, answer_of(instance)):
        result = scored(instance, answer)
        assert (result.native, result.success) == (1.0, True), result.reason


def assert_replaced_follows_the_rule(instance, answer: str, at: int, character: str) -> None:
    """The answer with its character at `at` replaced by `character` scores as the rule says."""
    result = scored(instance, answer[:at] + character + answer[at + 1 :])
    want = expected(instance, answer, at, character)
    got = (result.native, result.success, result.reason)
    assert got == (want.native, want.success, want.reason), ascii(character)


@pytest.mark.parametrize("task", TASKS)
def test_a_space_replaced_follows_the_rule(task, instances):
    instance = instances[task]
    answer = answer_of(instance)
    at = answer.index(" ")
    for character in [*REFUSED, *SPACES, *LINE_ENDS]:
        assert_replaced_follows_the_rule(instance, answer, at, character)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("end", LINE_ENDS, ids=ascii)
def test_the_reference_with_other_line_ends_scores_1(task, end, instances):
    instance = instances[task]
    result = scored(instance, instance.reference.replace("\n", end))
    assert (result.native, result.success) == (1.0, True), result.reason


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("character", ["\x00", "\u200b", "\u202e"], ids=ascii)
def test_a_refused_character_anywhere_is_unreadable(task, character, instances):
    """Also at either end of the answer, where the readers strip whitespace."""
    instance = instances[task]
    for answer in (character + instance.reference, instance.reference + character):
        result = scored(instance, answer)
        assert (result.native, result.success) == (0.0, False)
        assert is_unreadable(result.reason) and f"U+{ord(character):04X}" in result.reason


@given(data=st.data())
@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_property_every_task_scores_by_the_one_rule(data, instances):
    """Any task, any of its spaces, any character of the three kinds: the rule's score."""
    instance = instances[data.draw(st.sampled_from(TASKS), label="task")]
    answer = answer_of(instance)
    spaces = [index for index, character in enumerate(answer) if character == " "]
    at = data.draw(st.sampled_from(spaces), label="space")
    character = data.draw(st.sampled_from([*REFUSED, *SPACES, *LINE_ENDS]), label="character")
    assert_replaced_follows_the_rule(instance, answer, at, character)


# answer_text ---------------------------------------------------------------------------------


def test_answer_text_reads_line_ends_and_spaces():
    assert answer_text("a:\u00a0b\r\nc:\u3000d\re\x85f\u2028g\u2029") == "a: b\nc: d\ne\nf\ng\n"
    assert answer_text("a\tb\n") == "a\tb\n"
    assert answer_text("tête: justified") == "tête: justified"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a: b\x00", "control character U+0000 at line 1, column 5"),
        ("a\r\nb\rc\u200b", "format character U+200B at line 3, column 2"),
        ("\ufeffa", "format character U+FEFF at line 1, column 1"),
        ("x\n\t\U000e0041", "format character U+E0041 at line 2, column 2"),
        ("é\ud800", "surrogate character U+D800 at line 1, column 2"),
        ("\x9b1m", "control character U+009B at line 1, column 1"),
    ],
)
def test_answer_text_refuses_with_a_location(text, reason):
    error = pytest.raises(UnreadableAnswer, answer_text, text).value
    assert str(error) == f"unreadable: {reason}"


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_answer_text_is_idempotent_and_leaves_no_other_line_end(text):
    try:
        read = answer_text(text)
    except UnreadableAnswer as error:
        assert is_unreadable(str(error))
        return
    assert answer_text(read) == read
    assert read.splitlines() == (read.removesuffix("\n").split("\n") if read else [])
    assert not any(character in read for character in ["\r", *SPACES, *LINE_ENDS])
