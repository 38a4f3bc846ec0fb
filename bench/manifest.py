"""The benchmark's manifest: SHA-256 of its files beside the build's settings, written and
checked. Every file of a benchmark directory is written with `write_atomic`
(`argc.files.write_output`: a temporary file beside it, synced, then a rename)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from argc.dsl.errors import ArgcError
from argc.files import write_output as write_atomic

MANIFEST = "manifest.json"


def canonical_json(value: Any) -> str:
    """The manifest's JSON form: sorted keys, two-space indent, a final newline."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(
    directory: Path, settings: Mapping[str, Any], files: Iterable[str]
) -> dict[str, Any]:
    """Hash `files` (paths relative to `directory`) and write them with `settings` to
    `directory/manifest.json`; returns the manifest."""
    manifest = dict(settings)
    manifest["files"] = {name: sha256(directory / name) for name in sorted(files)}
    write_atomic(directory / MANIFEST, canonical_json(manifest))
    return manifest


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest of a directory; ArgcError when it is missing or not a JSON object with
    a `files` map."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArgcError(f"{path}: cannot read the manifest: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise ArgcError(f"{path}: not a manifest (no 'files' map)")
    return manifest


def verify(directory: Path, manifest: Mapping[str, Any], required: Iterable[str] = ()) -> list[str]:
    """Problems with a directory against its manifest, one per file: a listed file that does
    not exist or whose hash differs, and a `required` file that the manifest does not list.
    Empty when everything matches."""
    listed: Mapping[str, str] = manifest["files"]
    problems = [f"{name}: not listed in the manifest" for name in required if name not in listed]
    for name, expected in sorted(listed.items()):
        path = directory / name
        if not path.is_file():
            problems.append(f"{name}: listed in the manifest but does not exist")
        elif sha256(path) != expected:
            problems.append(f"{name}: sha256 differs from the manifest")
    return problems
