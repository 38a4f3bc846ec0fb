"""`argc.dsl.records.dataclass`: the classes dataclasses makes, their generated methods'
code kept per user between processes (and never wrong: the code of a text is what compile
makes of it)."""

from __future__ import annotations

import dataclasses
import inspect
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from argc.dsl import records

ROOT = Path(__file__).resolve().parent.parent

#: The modules of `argc check` whose dataclasses are made with `records.dataclass`.
MODULES = (
    "argc.dsl.ir",
    "argc.dsl.lint",
    "argc.compiler.control",
    "argc.compiler.solution",
    "argc.compiler.reasoning",
    "argc.compiler.solve",
    "argc.compiler.cli",
)


def shapes(make):
    """The same classes, made by `make` (dataclasses' decorator or records')."""

    @make(frozen=True, order=True)
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: tuple[str, ...] = dataclasses.field(default=(), compare=False, repr=False)

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")

    @make(frozen=True, eq=False)
    class Box:
        items: list[int] = dataclasses.field(default_factory=list)

    @make
    class Plain:
        name: str
        count: int = 1

    return Point, Box, Plain


def test_records_make_the_classes_dataclasses_makes():
    ours, theirs = shapes(records.dataclass), shapes(dataclasses.dataclass)
    for mine, reference in zip(ours, theirs, strict=True):
        assert dataclasses.is_dataclass(mine)
        assert [(f.name, f.default, f.compare, f.repr) for f in dataclasses.fields(mine)] == [
            (f.name, f.default, f.compare, f.repr) for f in dataclasses.fields(reference)
        ]
        assert mine.__dataclass_params__.__repr__() == reference.__dataclass_params__.__repr__()
        assert str(inspect.signature(mine)) == str(inspect.signature(reference))
        assert mine.__match_args__ == reference.__match_args__
        assert mine.__doc__ == reference.__doc__
        assert mine.__qualname__ == reference.__qualname__
    point, reference = ours[0](1, 2, ("a",)), theirs[0](1, 2, ("a",))
    assert repr(point) == repr(reference) and repr(point).endswith("Point(x=1, y=2)")
    assert point == ours[0](1, 2) and hash(point) == hash(ours[0](1, 2))
    assert ours[0](1, 3) > point and sorted([ours[0](2), point]) == [point, ours[0](2)]
    assert dataclasses.replace(point, y=5) == ours[0](1, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="negative"):
        ours[0](-1)
    box = ours[1]()
    assert box != ours[1]() and box.items == [] and box.items is not ours[1]().items
    plain = ours[2]("a")
    plain.count = 4
    assert plain == ours[2]("a", 4) and plain.__hash__ is None


def test_the_engine_classes_are_dataclasses_made_by_records():
    import importlib

    for name in MODULES:
        module = importlib.import_module(name)
        made = [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and value.__module__ == name
            and dataclasses.is_dataclass(value)
        ]
        assert made, name
        assert records._used.get(name), name


def _run(code: str, cache: Path, *, bytecode: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )


#: Imports the engine's command line and prints which modules compiled a method's text.
_PROBE = (
    "import argc.cli, argc.compiler.cli\n"
    "from argc.dsl import records\n"
    "print(' '.join(sorted(records._compiled)) or '-')\n"
)


def _files(cache: Path) -> dict[str, bytes]:
    folder = cache / "argc"
    if not folder.exists():
        return {}
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def test_a_process_compiles_once_and_later_ones_take_the_code(tmp_path):
    cache = tmp_path / "cache"
    first = _run(_PROBE, cache)
    assert first.stdout.split() == sorted(MODULES)
    written = _files(cache)
    assert sorted(name.split("-")[1] for name in written) == sorted(MODULES)
    again = _run(_PROBE, cache)
    assert again.stdout.split() == ["-"]  # nothing compiled
    assert _files(cache) == written  # nor rewritten
    for data in written.values():  # every code kept is the code of its text
        for text, code in marshal.loads(data).items():
            assert code == compile(text, "<string>", "exec", dont_inherit=True)


def test_a_corrupt_or_foreign_file_is_compiled_again_and_rewritten(tmp_path):
    cache = tmp_path / "cache"
    _run(_PROBE, cache)
    written = _files(cache)
    names = sorted(written)
    (cache / "argc" / names[0]).write_bytes(b"\x00 not marshal")
    (cache / "argc" / names[1]).write_bytes(marshal.dumps({"text": 1}))
    (cache / "argc" / names[2]).write_bytes(written[names[2]][: len(written[names[2]]) // 2])
    done = _run(_PROBE, cache)
    assert len(done.stdout.split()) == 3
    assert _files(cache) == written


def test_nothing_is_written_without_bytecode_or_a_private_folder(tmp_path):
    cache = tmp_path / "cache"
    assert _run(_PROBE, cache, bytecode=False).stdout.split() == sorted(MODULES)
    assert not cache.exists()  # not even the folder
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert _run(_PROBE, blocker).stdout.split() == sorted(MODULES)
    shared = tmp_path / "shared"
    (shared / "argc").mkdir(parents=True)
    (shared / "argc").chmod(0o777)
    _run(_PROBE, shared)
    assert _files(shared) == {}


def test_the_cache_file_names_its_module_and_python(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert records.cache_file("argc.dsl.ir") is None  # no folder yet: reading makes none
    path = records.cache_file("argc.dsl.ir", make=True)
    assert path is not None and path.parent == tmp_path / "argc"
    assert sys.implementation.cache_tag in path.name and "argc.dsl.ir" in path.name
    assert f"{sys.hexversion:x}" in path.name
