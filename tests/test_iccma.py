"""Reading and writing abstract frameworks in the ICCMA formats (`.apx`, `.af`): what is
read, errors with file:line:col, and writers that read back equal."""

from __future__ import annotations

import pytest
from random_frameworks import random_framework

from argc.dsl.errors import InputError
from argc.dsl.iccma import (
    MAX_ARGUMENTS,
    Framework,
    parse_af,
    parse_apx,
    read_framework,
    to_af,
    to_apx,
)


def test_apx_statements_comments_and_layout() -> None:
    text = (
        "% a comment\n"
        "arg(a1). arg(b_2).  % two on a line\n"
        "arg(\n  c\n).\n"
        "att(a1, b_2).\n"
        "att(b_2,c). att(b_2,c).\n"  # a repeated attack counts once
        "att(c,c).\n"
    )
    framework = parse_apx(text)
    assert framework.arguments == ("a1", "b_2", "c")
    assert framework.attacks == (("a1", "b_2"), ("b_2", "c"), ("c", "c"))
    assert parse_apx("") == parse_apx("% nothing\n") == Framework((), ())


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("arg(a).\natt(a,b).\n", "2:1", "attack names an undeclared argument 'b'"),
        ("arg(a).\n  foo(a).\n", "2:3", "unknown statement 'foo'"),
        ("arg(a,b).\n", "1:1", "'arg' takes one name"),
        ("arg(a). att(a).\n", "1:9", "'att' takes two names"),
        ("arg(a). arg(-b).\n", "1:13", "bad argument name '-b'"),
        ("arg(a)\narg(b).\n", "1:1", "expected 'arg(NAME).' or 'att(NAME,NAME).'"),
        ("arg(a). ???", "1:9", "expected 'arg(NAME).'"),
    ],
)
def test_apx_errors_name_line_and_column(text: str, where: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_apx(text, "f.apx")
    shown = str(caught.value)
    assert shown.startswith(f"f.apx:{where}: ") and message in shown
    assert shown.splitlines()[-1].strip() == "^"


def test_af_header_attacks_and_comments() -> None:
    text = "# made by hand\np af 4\n# attacks:\n1 2\r\n\n2 3\n3 3\n1 2\n"
    framework = parse_af(text)
    assert framework.arguments == ("1", "2", "3", "4")
    assert framework.attacks == (("1", "2"), ("2", "3"), ("3", "3"))
    assert parse_af("p af 0\n") == Framework((), ())


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("1 2\n", "1:1", "expected the header 'p af N'"),
        ("p af three\n", "1:1", "expected the header 'p af N'"),
        ("p af 2\n1 3\n", "2:3", "'3' is not an argument number between 1 and 2"),
        ("p af 2\n0 1\n", "2:1", "'0' is not an argument number"),
        ("p af 2\n1 x\n", "2:3", "'x' is not an argument number"),
        ("p af 2\n1 2 2\n", "2:1", "expected an attack 'i j'"),
        ("p af 2\np af 2\n", "2:1", "expected an attack 'i j'"),
        ("# only a comment\n", "2:1", "missing the header 'p af N'"),
        (f"p af {MAX_ARGUMENTS + 1}\n", "1:6", f"more than {MAX_ARGUMENTS:,} arguments"),
    ],
)
def test_af_errors_name_line_and_column(text: str, where: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_af(text, "f.af")
    shown = str(caught.value)
    assert shown.startswith(f"f.af:{where}: ") and message in shown


def test_writers_read_back() -> None:
    for seed in range(50):
        framework = random_framework(seed)
        apx = to_apx(framework, ["legend line"])
        assert apx.startswith("% legend line\n")
        assert parse_apx(apx) == framework
        af = to_af(framework, ["legend line"])
        assert af.splitlines()[:2] == [f"p af {len(framework.arguments)}", "# legend line"]
        number = {name: str(index) for index, name in enumerate(framework.arguments, 1)}
        assert parse_af(af) == Framework(
            tuple(number.values()), tuple((number[a], number[b]) for a, b in framework.attacks)
        )


def test_read_framework_by_suffix(tmp_path) -> None:
    apx = tmp_path / "f.APX"
    apx.write_text("\ufeffarg(a). att(a,a).\n", encoding="utf-8")  # a byte order mark
    assert read_framework(apx) == Framework(("a",), (("a", "a"),))
    af = tmp_path / "f.af"
    af.write_text("p af 1\n1 1\n", encoding="utf-8")
    assert read_framework(af) == Framework(("1",), (("1", "1"),))
    with pytest.raises(InputError, match=r"f\.tgf: unknown framework format 'tgf'"):
        read_framework(tmp_path / "f.tgf")
    named = tmp_path / "f.txt"
    named.write_text("p af 2\n2 1\n", encoding="utf-8")
    assert read_framework(named, form="af") == Framework(("1", "2"), (("2", "1"),))
    with pytest.raises(InputError, match="cannot read file"):
        read_framework(tmp_path / "absent.apx")
