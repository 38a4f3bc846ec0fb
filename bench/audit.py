"""Auditing a built benchmark (`argc bench audit`): re-execute every frozen row from its stored
state and report, per check, the rows checked and the failures.

- manifest: every listed file has its hash; rows.jsonl, rows.parquet and cells.json agree.
- decoding: a row loads as an Instance, its theory parses, its task is registered and its id
  is the id of its fields.
- rescoring: the reference inside `<answer>` scores complete success.
- ordering: the prompt names the row's principle and set comparison, and no other ordering.
- regeneration: generating the row's coordinates again gives the row byte for byte.
- engine: PyArg 2.0.2 gives every claim of the theory (and, for a constructive task, of the
  theory with the witness applied) the grounded status that argc gives it. Where the theory has
  two rules with the same body and head, which PyArg merges (docs/oracle.md), a difference is a
  documented divergence, not a failure.

A folder imported from ArgGYM's release (`argc bench import-arggym`, its manifest's taskset
`arggym-released`) has no cells and keeps the released ids, and its rows cannot be
regenerated: the manifest check skips `cells.json`, decoding skips the id, and `gold`
(argc's engine reproduces each row's released gold, `argc.bench.arggym.check_released`)
replaces regeneration.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.bench import arggym
from argc.bench.build import FILES, ROW_ORDER, parquet_records
from argc.bench.manifest import read_manifest, verify, write_atomic
from argc.cluster import RaySetting, add_ray_option, connect, ray_module
from argc.compiler import LimitExceeded, solve
from argc.dsl.errors import ArgcError
from argc.dsl.ir import ORDERINGS, Ordering, Theory
from argc.dsl.parser import parse_intervention
from argc.options import positive_int
from argc.tasks import REGISTRY, GenerationFailed, Instance, generate
from argc.tasks.arggym.intervention import InterventionTask
from argc.tasks.framework import GenerationStopped, instance_id
from argc.tasks.isolation import score_pairs

#: Each check: its name in the report and what it counts.
CHECKS = {
    "manifest": ("manifest and files", "items"),
    "decoding": ("task decoding", "rows"),
    "rescoring": ("reference rescoring", "rows"),
    "ordering": ("ordering named in the prompt", "rows"),
    "regeneration": ("regeneration, byte-identical", "rows"),
    "gold": ("argc's engine reproduces the released gold", "rows"),
    "engine": ("engine agreement with PyArg 2.0.2", "theories"),
}
#: Rows one worker process audits before it is replaced (recycles clingo's symbol memory).
ROWS_PER_WORKER = 40
EXIT_OK, EXIT_FAILED, EXIT_INPUT_ERROR = 0, 1, 2


@dataclass
class Check:
    """One check: how many items it covered and its failures as (row id or file, reason)."""

    name: str
    checked: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class AuditReport:
    directory: Path
    rows: int
    checks: dict[str, Check]
    #: Engine differences PyArg is known to have (twin rules), as (row id, reason).
    divergences: list[tuple[str, str]] = field(default_factory=list)
    #: Compared theories that have twin rules (whether or not PyArg differs on them).
    twin_theories: int = 0

    @property
    def ok(self) -> bool:
        return not any(check.failures for check in self.checks.values())

    def markdown(self) -> str:
        lines = [
            f"# Benchmark audit: {self.directory}",
            "",
            f"{self.rows} rows. Result: **{'pass' if self.ok else 'FAIL'}**.",
            "",
            "| check | checked | failures |",
            "|---|---:|---:|",
        ]
        for name, check in self.checks.items():
            title, unit = CHECKS[name]
            lines.append(f"| {title} (`{name}`) | {check.checked} {unit} | {len(check.failures)} |")
        theories = "theory" if self.twin_theories == 1 else "theories"
        lines.append(
            f"| documented divergences, not failures ({self.twin_theories} {theories} with"
            f" twin rules) | | {len(self.divergences)} |"
        )
        for name, check in self.checks.items():
            if check.failures:
                lines += ["", f"## Failures: {CHECKS[name][0]} (`{name}`)", ""]
                lines += [f"- `{item}`: {_one_line(reason)}" for item, reason in check.failures]
        if self.divergences:
            lines += [
                "",
                "## Documented divergences",
                "",
                "PyArg 2.0.2 merges two rules with the same body and head into one argument;"
                " argc keeps them apart (docs/oracle.md, 1).",
                "",
            ]
            lines += [f"- `{item}`: {_one_line(reason)}" for item, reason in self.divergences]
        return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def audit(directory: Path, workers: int, ray: RaySetting | None = None) -> AuditReport:
    """Run every check over a benchmark directory (ArgcError when it is not one); the rows are
    audited in `workers` local processes, or as Ray tasks when `ray` is given (True or a
    cluster address), with the same report as the result."""
    manifest = read_manifest(directory)
    if "shard" in manifest:
        raise ArgcError(f"{directory}: a shard, not a benchmark (merge the shards first)")
    try:
        lines = (directory / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ArgcError(f"{directory / 'rows.jsonl'}: cannot read: {error}") from None
    released = manifest.get("taskset") == arggym.RELEASED_TASKSET
    skipped = "regeneration" if released else "gold"
    checks = {name: Check(name) for name in CHECKS if name != skipped}
    checks["manifest"] = _check_files(directory, manifest, lines, released)
    report = AuditReport(directory, len(lines), checks)
    results = _audit_rows(lines, workers, released, ray)
    counts = Counter(result["id"] for result in results)
    for result in results:
        if counts[result["id"]] > 1:
            result["checks"]["decoding"][1].append(f"{counts[result['id']]} rows have this id")
        for name, (checked, failures) in result["checks"].items():
            checks[name].checked += checked
            checks[name].failures += [(result["id"], reason) for reason in failures]
        report.divergences += [(result["id"], reason) for reason in result["divergences"]]
        report.twin_theories += result["twins"]
    return report


def _check_files(
    directory: Path, manifest: dict[str, Any], lines: list[str], released: bool
) -> Check:
    """Hashes against the manifest, then the files against each other (an imported release
    has no cells.json)."""
    check = Check("manifest", checked=len(manifest["files"]) + 3 - released)
    for problem in verify(directory, manifest, arggym.FILES if released else FILES):
        check.failures.append((problem.split(":", 1)[0], problem))
    if manifest.get("rows") != len(lines):
        check.failures.append(
            ("rows.jsonl", f"{len(lines)} rows; the manifest says {manifest.get('rows')}")
        )
    try:
        records = [json.loads(line) for line in lines]
        keys = sorted(tuple(record[key] for key in ROW_ORDER) for record in records)
    except (json.JSONDecodeError, KeyError, TypeError):
        check.failures.append(("rows.jsonl", "not one JSON row per line"))
        return check
    try:
        if parquet_records(directory / "rows.parquet") != records:
            check.failures.append(("rows.parquet", "its records differ from rows.jsonl"))
    except Exception as error:  # noqa: BLE001 - any unreadable Parquet file is a failure
        check.failures.append(("rows.parquet", f"unreadable: {error}"))
    if released:
        return check
    try:
        cells = json.loads((directory / "cells.json").read_text(encoding="utf-8"))
        accepted = []
        for key, cell in cells.items():
            task, level, principle, comparison = key.split("/")
            accepted += [(task, int(level), principle, comparison, s) for s in cell["accepted"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        check.failures.append(("cells.json", f"unreadable: {error}"))
        return check
    if sorted(accepted) != keys:
        check.failures.append(("cells.json", "its accepted seeds are not the rows' coordinates"))
    return check


def _audit_rows(
    lines: list[str], workers: int, released: bool, ray: RaySetting | None = None
) -> list[dict[str, Any]]:
    """Every row's checks in a pool of worker processes (or as Ray tasks), largest theories
    first."""
    rescoring = _rescoring(lines, released)
    jobs = sorted(
        ((index, line, released, rescoring.get(index, [])) for index, line in enumerate(lines)),
        key=lambda job: -_size(job[1]),
    )
    results: list[dict[str, Any]] = [{}] * len(lines)
    if ray is not None:
        connect(ray)  # before the progress bar: starting Ray takes seconds
    with (
        closing(_job_results(jobs, workers, ray)) as found,
        tqdm(total=len(jobs), desc="rows", unit="row") as progress,
    ):
        for index, result in found:
            results[index] = result
            progress.update()
    return results


def _rescoring(lines: list[str], released: bool) -> dict[int, list[str]]:
    """The rescoring check of every row that decodes, by index: its reference, given as an
    answer, scored by the shared scorer in batches (`score_pairs`); a failure's reason when
    it does not succeed."""
    decoded = {index: _decode(line, released) for index, line in enumerate(lines)}
    rows = [(index, instance) for index, (instance, problem) in decoded.items() if not problem]
    found = score_pairs(
        [(instance, "<answer>" + instance.reference + "</answer>") for _, instance in rows],
        desc="rescoring",
    )
    return {
        index: [] if outcome.success else [f"native {outcome.native}: {outcome.reason}"]
        for (index, _), outcome in zip(rows, found, strict=True)
    }


def _job_results(
    jobs: list[tuple[int, str, bool, list[str]]], workers: int, ray: RaySetting | None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """`_audit_job` over `jobs`, as they finish."""
    from argc.cluster import unordered_results

    return unordered_results(_audit_job, jobs, workers, ray, ROWS_PER_WORKER)


def _size(line: str) -> int:
    try:
        return int(json.loads(line)["meta"]["arguments"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        return 0


def _audit_job(job: tuple[int, str, bool, list[str]]) -> tuple[int, dict[str, Any]]:
    index, line, released, rescored = job
    return index, audit_row(line, index + 1, rescored, released)


def audit_row(
    line: str, number: int, rescored: list[str], released: bool = False
) -> dict[str, Any]:
    """The checks of one row: {"id", "checks": {name: (checked, [reasons])}, "divergences",
    "twins"}, with `rescored` the failures of its reference's rescoring (`_rescoring`); a row
    of an imported release is checked against its released gold instead of being
    regenerated."""
    result: dict[str, Any] = {"id": f"line {number}", "checks": {}, "divergences": [], "twins": 0}
    instance, problem = _decode(line, released)
    if instance is not None:
        result["id"] = instance.id
    result["checks"]["decoding"] = (1, [problem] if problem else [])
    if instance is None or problem:
        return result
    result["checks"]["rescoring"] = (1, rescored)
    result["checks"]["ordering"] = (1, _ordering_problems(instance))
    if released:
        result["checks"]["gold"] = (1, arggym.check_released(instance))
    else:
        result["checks"]["regeneration"] = (1, _regeneration_problems(instance, line))
    compared, failures, divergences, result["twins"] = engine_agreement(instance)
    result["checks"]["engine"] = (compared, failures)
    result["divergences"] = divergences
    return result


def _decode(line: str, released: bool) -> tuple[Instance | None, str | None]:
    try:
        record = json.loads(line)
        instance = Instance.from_record(record)
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        return None, f"not an instance record: {type(error).__name__}: {error}"
    extra = sorted(set(record) - set(Instance.__dataclass_fields__))
    if extra:
        return instance, f"fields that an instance does not have: {', '.join(extra)}"
    try:
        ordering = instance.strength
        if instance.task not in REGISTRY:
            return instance, f"unknown task '{instance.task}'"
        _ = instance.parsed_theory
        expected = instance_id(instance.task, instance.level, ordering, instance.seed)
    except (ArgcError, ValueError, TypeError) as error:
        return instance, f"{type(error).__name__}: {error}"
    if instance.id != expected and not released:
        return instance, f"id is not that of its fields ({expected})"
    return instance, None


def _phrase(ordering: Ordering) -> str:
    return f"{ordering.principle} {ordering.set_comparison} strength ordering"


def _ordering_problems(instance: Instance) -> list[str]:
    ordering = instance.strength
    problems = []
    if _phrase(ordering) not in instance.prompt:
        problems.append(f"the prompt does not name the {ordering} ordering")
    named = [
        str(other) for other in ORDERINGS if other != ordering and _phrase(other) in instance.prompt
    ]
    if named:
        problems.append(f"the prompt names another ordering: {', '.join(named)}")
    header = instance.parsed_theory.ordering
    if header is not None and header != ordering:
        problems.append(f"the theory's header sets the {header} ordering")
    return problems


def _regeneration_problems(instance: Instance, line: str) -> list[str]:
    try:
        again = generate(instance.task, instance.level, instance.strength, instance.seed)
    except GenerationFailed as error:
        return [f"the coordinates no longer generate: {error}"]
    except GenerationStopped as error:
        return [f"the row could not be regenerated on this machine: {error}"]
    if again.to_json() == line:
        return []
    fresh, stored = again.record(), json.loads(line)
    fields = sorted(name for name in fresh if fresh[name] != stored.get(name))
    return [f"the regenerated row differs in: {', '.join(fields) or 'serialization'}"]


def engine_agreement(instance: Instance) -> tuple[int, list[str], list[str], int]:
    """PyArg's grounded statuses against argc's, on the theory and the witnessed theory:
    theories compared, failures, documented divergences, theories with twin rules."""
    theories: list[tuple[str, Theory]] = [("theory", instance.parsed_theory)]
    failures: list[str] = []
    if isinstance(REGISTRY[instance.task], InterventionTask):
        try:
            witness = parse_intervention("\n".join(instance.target["witness"]))
            theories.append(("theory with the witness", instance.parsed_theory.apply(witness)))
        except (ArgcError, KeyError, TypeError) as error:
            failures.append(f"the witness cannot be applied: {type(error).__name__}: {error}")
    divergences: list[str] = []
    for label, theory in theories:
        twins = twin_rules(theory)
        problem = _compare(theory, instance.strength)
        if problem is None:
            continue
        if twins:
            divergences.append(f"{label}: {problem}; twin rules {', '.join(twins)}")
        else:
            failures.append(f"{label}: {problem}")
    with_twins = sum(1 for _, theory in theories if twin_rules(theory))
    return len(theories), failures, divergences, with_twins


def _compare(theory: Theory, ordering: Ordering) -> str | None:
    """How PyArg's claim statuses differ from argc's, or None when they agree."""
    from argc.bench.oracle import oracle

    try:
        ours = {
            str(claim): status
            for claim, status in solve(theory, ordering=ordering).statuses.items()
        }
    except LimitExceeded as error:
        return f"argc: {error}"
    theirs = oracle(theory, ordering).statuses(list(theory.claims()))
    differing = sorted(
        claim for claim in ours.keys() | theirs.keys() if ours.get(claim) != theirs.get(claim)
    )
    if not differing:
        return None
    shown = ", ".join(f"{c} argc {ours.get(c)} / PyArg {theirs.get(c)}" for c in differing[:5])
    more = f" (+{len(differing) - 5} more)" if len(differing) > 5 else ""
    return f"statuses differ: {shown}{more}"


def twin_rules(theory: Theory) -> list[str]:
    """Groups of rules with the same body and head (`d1=d2`), which PyArg merges."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for rule in theory.rules:
        groups[(frozenset(rule.body), rule.head)].append(rule.name)
    return ["=".join(names) for names in groups.values() if len(names) > 1]


# Command line ------------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction) -> None:
    """Add `audit` to `argc bench`."""
    check = commands.add_parser(
        "audit",
        help="re-execute and check a built benchmark",
        description="Check a benchmark directory: its manifest, the decoding of every row, the"
        " rescoring of every reference, the ordering in every prompt, byte-identical"
        " regeneration (for a folder of `argc bench import-arggym`: agreement of argc's engine"
        " with each row's released gold), and agreement of argc's claim statuses with PyArg"
        " 2.0.2. Prints a Markdown report; exit code 1 when any check fails.",
    )
    check.set_defaults(handler=_audit_command)
    check.add_argument("directory", type=Path, metavar="DIR")
    check.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1, metavar="N")
    check.add_argument("--out", type=Path, metavar="REPORT.md")
    add_ray_option(check, "the rows' checks")


def _audit_command(args: argparse.Namespace) -> int:
    try:
        if args.workers < 1:
            raise ArgcError("--workers must be at least 1")
        if importlib.util.find_spec("py_arg") is None:
            raise ArgcError("the audit recomputes rows with PyArg: pip install 'argc[bench]'")
        if args.ray is not None:
            ray_module()  # Ray must be installed
        report = audit(args.directory, args.workers, args.ray)
    except ArgcError as error:
        print(f"argc bench audit: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    text = report.markdown()
    sys.stdout.write(text)
    if args.out is not None:
        write_atomic(args.out, text)
    return EXIT_OK if report.ok else EXIT_FAILED
