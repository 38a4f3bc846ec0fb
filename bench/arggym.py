"""ArgGYM's released taskset in argc: `argc bench import-arggym` turns its rows into argc
instances scored by argc's own scorers, and `check_released` compares each row's gold with
what argc's engine computes (run by `argc bench audit` on an imported folder).

A released row holds `id`, `task`, `question`, `reference_answer` and, under `metadata`,
`level`, `ordering` (`last_link_democratic`), `seed`, `base_ops` (the theory as operations;
`pert_ops` for perturbation), `state` (what the question gives away) and `gold`; the first
line of the file may be a `__manifest__`, which is skipped. A compact row has `level`,
`ordering`, `state` and `gold` at the top level and no operations: its theory is read from
the question's directive block (perturbation: the first block, then the added one;
formalization: the reference answer), and its seed from the id's `/s<seed>` suffix.

An imported instance keeps the row's id, shows the question verbatim, takes the reference
answer as its reference, and records the row's `state` and `gold` in `meta["released"]`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tqdm import tqdm

from argc.bench.build import SCORING_VERSION, parquet_bytes
from argc.bench.manifest import sha256, write_manifest
from argc.compiler import Solution, query, solve
from argc.compiler.intervention import Minimum, fewest_additions
from argc.compiler.solution import STATUSES
from argc.dsl.errors import ArgcError
from argc.dsl.ir import Axiom, Directive, Literal, Ordering, Premise, QueryHeader, Theory
from argc.dsl.parser import parse_directives, parse_intervention
from argc.files import write_output
from argc.tasks import REGISTRY, Instance
from argc.tasks.arggym.claim_chain import directive_key
from argc.tasks.arggym.intervention import InterventionTask, intervention_target
from argc.tasks.arggym.semantics_query import SPELLINGS, status
from argc.tasks.framework import GENERATION_LIMITS as LIMITS
from argc.tasks.framework import LEVELS, Candidate

#: The manifest's taskset of an imported folder (`argc bench audit` checks it as such).
RELEASED_TASKSET = "arggym-released"
#: The files of an imported folder that its manifest lists.
FILES = ("rows.jsonl", "rows.parquet")
MANIFEST_KEY = "__manifest__"
EXIT_OK, EXIT_INPUT_ERROR = 0, 2

_SEED = re.compile(r"/s(\d+)$")
_NOT_JUSTIFIED = re.compile(r"The claim (\S+) is not justified")
#: The fields of a defeat_diagnosis failure record.
RECORD_KEYS = ("defeated_at", "defeater", "kind", "survives_because")
_CURRENTLY = re.compile(r"^The claim (\S+) is currently (justified|overruled|undecided)\.$", re.M)


@dataclass(frozen=True)
class ReleasedRow:
    """One released row, read: its theory (and perturbation's added directives) in argc's IR."""

    id: str
    task: str
    level: int
    ordering: Ordering
    seed: int
    question: str
    reference: str
    state: dict[str, Any]
    gold: dict[str, Any]
    #: The theory's directives in the release's order (claim_chain's gold indexes them).
    listed: tuple[Directive, ...]
    added: tuple[Directive, ...] = ()

    @property
    def theory(self) -> Theory:
        return Theory.from_directives(self.listed)


# Reading the release -----------------------------------------------------------------------


def ordering_of(name: Any) -> Ordering:
    """`last_link_democratic` as argc's Ordering(last-link, democratic)."""
    if isinstance(name, str) and name.count("_") == 2:
        principle, link, comparison = name.split("_")
        try:
            return Ordering(f"{principle}-{link}", comparison)
        except (ArgcError, ValueError):
            pass
    raise ArgcError(f"unknown ordering {name!r} (e.g. last_link_democratic)")


def op_text(op: Any) -> str:
    """A released operation (`{"kind": "defeasible", "name", "antecedents", "consequent"}`, ...)
    as an argc directive."""
    if not isinstance(op, dict):
        raise ArgcError(f"an operation must be an object, not {op!r:.40}")
    kind = op.get("kind")
    if kind in ("premise", "axiom"):
        return f"[{kind}: {op.get('content')}]"
    if kind in ("defeasible", "strict"):
        antecedents = op.get("antecedents")
        if not isinstance(antecedents, list) or not all(isinstance(a, str) for a in antecedents):
            raise ArgcError(f"rule {op.get('name')!r}: antecedents must be a list of literals")
        arrow = "=>" if kind == "defeasible" else "->"
        body = " AND ".join(antecedents)
        return f"[{kind} {op.get('name')}: {body} {arrow} {op.get('consequent')}]"
    if kind in ("prefer_rule", "prefer_premise"):
        return f"[{kind}: {op.get('stronger')} > {op.get('weaker')}]"
    raise ArgcError(f"unknown operation kind {kind!r}")


def ops_directives(ops: Any, what: str) -> list[Directive]:
    if not isinstance(ops, list):
        raise ArgcError(f"{what} must be a list of operations")
    return parse_directives("\n".join(op_text(op) for op in ops), what)


def directive_blocks(question: str) -> list[str]:
    """The question's paragraphs made only of directive lines (`[...]` from the first column)."""
    blocks = []
    for paragraph in re.split(r"\n[ \t]*\n", question):
        lines = paragraph.strip("\n").split("\n")
        if all(line.startswith("[") and line.rstrip().endswith("]") for line in lines):
            blocks.append("\n".join(lines))
    return blocks


def _get(record: dict[str, Any], name: str, kind: type) -> Any:
    """A field from the row's top level or its `metadata`, of the given JSON type."""
    metadata = record.get("metadata")
    value = record.get(name)
    if value is None and isinstance(metadata, dict):
        value = metadata.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise ArgcError(f"the row's {name!r} is missing or not a {kind.__name__}")
    return value


def _seed(record: dict[str, Any], row_id: str) -> int:
    metadata = record.get("metadata")
    seed = metadata.get("seed") if isinstance(metadata, dict) else None
    if isinstance(seed, int) and not isinstance(seed, bool):
        return seed
    found = _SEED.search(row_id)
    if found is None:
        raise ArgcError("the row has no metadata.seed and its id does not end in /s<seed>")
    return int(found[1])


def _directives(
    record: dict[str, Any], task: str, question: str, reference: str, gold: dict[str, Any]
) -> tuple[list[Directive], list[Directive]]:
    """The row's theory: its operations where it has them, else the question's directives
    (formalization: the reference theory; perturbation also returns the added directives)."""
    metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    if task == "formalization":
        ops = gold.get("reference_ops")
        directives = (
            ops_directives(ops, "gold.reference_ops")
            if ops is not None
            else parse_directives(reference, "reference_answer")
        )
        return directives, []
    blocks = directive_blocks(question)
    if "base_ops" in metadata:
        base = ops_directives(metadata["base_ops"], "metadata.base_ops")
    elif blocks:
        base = parse_directives(blocks[0], "question")
    else:
        raise ArgcError("the row has no base_ops and its question no directive block")
    added: list[Directive] = []
    if task == "perturbation":
        if "pert_ops" in metadata:
            added = ops_directives(metadata["pert_ops"], "metadata.pert_ops")
        elif len(blocks) >= 2:
            added = parse_directives(blocks[1], "question")
        else:
            raise ArgcError("the row has no pert_ops and its question no added directives")
    return base, added


def released_row(record: Any) -> ReleasedRow:
    """A released row read into argc's IR; ArgcError says what is missing or malformed."""
    if not isinstance(record, dict):
        raise ArgcError("a row must be a JSON object")
    row_id, task = _get(record, "id", str), _get(record, "task", str)
    if task not in REGISTRY:
        raise ArgcError(f"unknown task {task!r}")
    level = _get(record, "level", int)
    if level not in LEVELS:
        raise ArgcError(f"level {level} is not in 1..{LEVELS[-1]}")
    question, reference = _get(record, "question", str), _get(record, "reference_answer", str)
    state, gold = _get(record, "state", dict), _get(record, "gold", dict)
    listed, added = _directives(record, task, question, reference, gold)
    Theory.from_directives([*listed, *added])  # both must form a valid theory
    return ReleasedRow(
        id=row_id,
        task=task,
        level=level,
        ordering=ordering_of(_get(record, "ordering", str)),
        seed=_seed(record, row_id),
        question=question,
        reference=reference,
        state=state,
        gold=gold,
        listed=tuple(listed),
        added=tuple(added),
    )


def read_release(path: Path) -> tuple[dict[str, Any] | None, list[ReleasedRow]]:
    """The release's manifest (None when the file has none) and its rows; ArgcError names
    the line of a row that cannot be read and a repeated id."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ArgcError(f"{path}: cannot read: {error}") from None
    manifest: dict[str, Any] | None = None
    rows: list[ReleasedRow] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if isinstance(record, dict) and MANIFEST_KEY in record:
                manifest = record[MANIFEST_KEY]
                continue
            row = released_row(record)
        except json.JSONDecodeError as error:
            raise ArgcError(f"{path}:{number}: not JSON: {error.msg}") from None
        except (ArgcError, ValueError, TypeError, KeyError) as error:
            raise ArgcError(f"{path}:{number}: {' '.join(str(error).split())}") from None
        if row.id in seen:
            raise ArgcError(f"{path}:{number}: id {row.id} already on line {seen[row.id]}")
        seen[row.id] = number
        rows.append(row)
    if not rows:
        raise ArgcError(f"{path}: no rows")
    return manifest, rows


# Targets -----------------------------------------------------------------------------------


def _statuses(mapping: Any, what: str) -> dict[str, str]:
    """A released `{claim: STATUS}` map as argc's `{claim: status}`."""
    if not isinstance(mapping, dict) or not all(
        isinstance(value, str) and value.lower() in STATUSES for value in mapping.values()
    ):
        raise ArgcError(f"{what} must be a map from claims to statuses")
    return {str(claim): value.lower() for claim, value in mapping.items()}


def _status_target(row: ReleasedRow) -> Any:
    return _statuses(row.gold.get("gold"), "gold.gold")


def _formalization_target(row: ReleasedRow) -> Any:
    """The queried statuses from the gold; every literal's status from argc's engine."""
    solution = solve(row.theory, ordering=row.ordering, limits=LIMITS)
    return {
        "claims": _statuses(row.gold.get("gold_status"), "gold.gold_status"),
        "statuses": {str(c): s for c, s in sorted(solution.statuses.items(), key=_text)},
        "directives": [str(directive) for directive in row.theory.directives()],
    }


def _chain_target(row: ReleasedRow) -> Any:
    """The claim from the state; the derivation from the gold's positions in the theory's
    directives (compact rows: the question's directive lines, in the order shown)."""
    claim = row.state.get("claim")
    if not isinstance(claim, str):
        raise ArgcError("state.claim must be a literal")
    return {"claim": claim, "derivation": line_directives(row)}


def line_directives(row: ReleasedRow) -> list[str]:
    """claim_chain's gold line: the directives at `gold.line_ops` in the row's operations
    (or the question's directive block, which lists them in the same order)."""
    positions = row.gold.get("line_ops")
    if not isinstance(positions, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) and 0 <= p < len(row.listed)
        for p in positions
    ):
        raise ArgcError("gold.line_ops must be positions in the theory's directives")
    return [str(row.listed[p]) for p in positions]


def _goals(row: ReleasedRow) -> dict[Literal, str]:
    goals = row.state.get("goals")
    if not isinstance(goals, list) or not all(isinstance(goal, dict) for goal in goals):
        raise ArgcError("state.goals must be a list of {claim, want}")
    return {Literal.parse(str(g.get("claim"))): str(g.get("want")).lower() for g in goals}


def _intervention_target(row: ReleasedRow) -> Any:
    """Goals and the minimum from the row; the statuses before, the support sub-goals and
    the task's language from argc; the reference as the witness. No candidate space is
    released."""
    minimum = row.gold.get("min_directives")
    if not isinstance(minimum, int) or isinstance(minimum, bool) or minimum < 1:
        raise ArgcError("gold.min_directives must be a positive integer")
    solution = solve(row.theory, ordering=row.ordering, limits=LIMITS)
    witness = tuple(_reference_directives(row))
    task = REGISTRY[row.task]
    assert isinstance(task, InterventionTask)
    return intervention_target(solution, _goals(row), [], Minimum(minimum, witness), task.language)


def _reference_directives(row: ReleasedRow) -> list[Directive]:
    """The reference answer's directives ([] when argc cannot read it: rescoring says so)."""
    try:
        return parse_intervention(row.reference, "reference_answer")
    except ArgcError:
        return []


def _semantics_target(row: ReleasedRow) -> Any:
    """[claim, semantics, status] per question, in the order of `state.queries`, with the
    statuses of the gold (`NO_STABLE_EXTENSION` as `no stable extension`)."""
    gold = row.gold.get("gold")
    queries = row.state.get("queries")
    if not isinstance(gold, list) or not isinstance(queries, list):
        raise ArgcError("semantics_query rows need state.queries and gold.gold lists")
    values = {(claim, named): value for claim, named, value in gold}
    missing = [f"{claim} under {named}" for claim, named in queries if (claim, named) not in values]
    if missing:
        raise ArgcError(f"gold.gold has no status for {', '.join(missing)}")
    return [
        [claim, SPELLINGS.get(named, named), values[(claim, named)].lower().replace("_", " ")]
        for claim, named in queries
    ]


def _diagnosis_target(row: ReleasedRow) -> Any:
    """The claim named by the question; its status and failure records from the gold."""
    found = _NOT_JUSTIFIED.search(row.question)
    diagnoses = row.gold.get("diagnoses")
    if found is None or not isinstance(diagnoses, list):
        raise ArgcError("defeat_diagnosis rows need a claim in the question and gold.diagnoses")
    failures = [{key: d.get(key) for key in RECORD_KEYS} for d in diagnoses]
    return {
        "claim": found[1],
        "status": _statuses({found[1]: row.gold.get("claim_status")}, "gold")[found[1]],
        "failures": sorted(failures, key=lambda f: (str(f["defeated_at"]), str(f["defeater"]))),
    }


TARGETS: dict[str, Callable[[ReleasedRow], Any]] = {
    "status_query": _status_target,
    "perturbation": _status_target,
    "formalization": _formalization_target,
    "claim_chain": _chain_target,
    "semantics_query": _semantics_target,
    "defeat_diagnosis": _diagnosis_target,
}


def _text(item: tuple[Literal, str]) -> str:
    return str(item[0])


def instance(row: ReleasedRow) -> Instance:
    """The argc instance of a released row."""
    if isinstance(REGISTRY[row.task], InterventionTask):
        target = _intervention_target(row)
    else:
        target = TARGETS[row.task](row)
    theory = row.theory
    queried = _queried(row, target)
    if queried:
        theory = theory.apply([QueryHeader(tuple(Literal.parse(str(c)) for c in queried))])
    meta: dict[str, Any] = {"released": {"state": row.state, "gold": row.gold}}
    if row.added:
        meta["added"] = [str(directive) for directive in row.added]
    return Instance(
        id=row.id,
        task=row.task,
        level=row.level,
        ordering=row.ordering.principle,
        set=row.ordering.set_comparison,
        seed=row.seed,
        theory=theory.to_text(),
        prompt=row.question,
        reference=row.reference,
        target=target,
        meta=meta,
    )


def _queried(row: ReleasedRow, target: Any) -> list[str]:
    """The claims an argc instance of the task names in its theory's `[query: ...]` header."""
    if row.task == "defeat_diagnosis":
        return [target["claim"]]
    if row.task == "semantics_query":
        return list(dict.fromkeys(claim for claim, _, _ in target))
    queried = row.state.get("queried")
    return list(queried) if isinstance(queried, list) else []


# Importing ---------------------------------------------------------------------------------


def import_release(source: Path, out: Path) -> dict[str, Any]:
    """Write `out/rows.jsonl`, `rows.parquet` and `manifest.json` from a released taskset;
    returns the manifest."""
    release_manifest, rows = read_release(source)
    instances = []
    for row in tqdm(rows, desc="rows", unit="row", disable=None):  # no bar off a terminal
        try:
            instances.append(instance(row))
        except (ArgcError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ArgcError(f"{row.id}: {' '.join(str(error).split())}") from None
    out.mkdir(parents=True, exist_ok=True)
    write_output(out / "rows.jsonl", "".join(i.to_json() + "\n" for i in instances))
    write_output(out / "rows.parquet", parquet_bytes([i.record() for i in instances]))
    versions = (release_manifest or {}).get("versions", {})
    settings = {
        "taskset": RELEASED_TASKSET,
        "argc_version": version("argc"),
        "scoring_version": SCORING_VERSION,
        "source": {
            "file": source.name,
            "sha256": sha256(source),
            "taskset_hash": (release_manifest or {}).get("taskset_hash"),
            "versions": versions,
        },
        "rows": len(instances),
        "tasks": sorted({i.task for i in instances}),
    }
    return write_manifest(out, settings, FILES)


# Checking the release against argc ---------------------------------------------------------


def check_released(item: Instance) -> list[str]:
    """Where argc's engine disagrees with an imported row's gold, which its target carries
    (empty: it agrees)."""
    check = GOLD_CHECKS.get(item.task)
    if check is None:
        return [f"no released gold check for the task {item.task}"]
    try:
        return check(item)
    except (ArgcError, KeyError, TypeError, ValueError, AttributeError) as error:
        return [f"cannot check: {type(error).__name__}: {' '.join(str(error).split())}"]


def _solved(item: Instance, theory: Theory | None = None) -> Solution:
    return solve(
        (theory or item.parsed_theory).without_header(),
        ordering=item.strength,
        limits=LIMITS,
    )


def _differences(ours: dict[str, str], theirs: dict[str, str], what: str) -> list[str]:
    """One line naming the claims on which two status maps differ (none when equal)."""
    differing = sorted(c for c in ours.keys() | theirs.keys() if ours.get(c) != theirs.get(c))
    if not differing:
        return []
    shown = ", ".join(f"{c} argc {ours.get(c)} / released {theirs.get(c)}" for c in differing)
    return [f"{what}: {shown}"]


def _check_statuses(item: Instance) -> list[str]:
    solution = _solved(item)
    ours = {claim: solution.status(Literal.parse(claim)) for claim in item.target}
    return _differences(ours, item.target, "grounded statuses")


def _check_formalization(item: Instance) -> list[str]:
    solution = _solved(item)
    theirs = item.target["claims"]
    ours = {claim: solution.status(Literal.parse(claim)) for claim in theirs}
    return _differences(ours, theirs, "statuses under the reference theory")


def _check_perturbation(item: Instance) -> list[str]:
    """The claims that change status, among those with an argument before the update (the
    release's claims: its engine lists only conclusions of arguments)."""
    before = _solved(item)
    added = parse_intervention("\n".join(item.meta["added"]), "meta.added")
    after = _solved(item, item.parsed_theory.apply(added))
    argued = {argument.conclusion for argument in before.arguments.values()}
    ours = {
        str(claim): after.status(claim)
        for claim in sorted(argued, key=str)
        if before.status(claim) != after.status(claim)
    }
    return _differences(ours, item.target, "changed claims")


def _check_chain(item: Instance) -> list[str]:
    """The gold line is the directive set of an argument for the claim in the grounded
    extension."""
    solution = _solved(item)
    claim = Literal.parse(item.target["claim"])
    line = {directive_key(d) for d in parse_directives("\n".join(item.target["derivation"]))}
    lines = [
        _argument_directives(solution, argument.name)
        for argument in solution.arguments_for(claim)
        if argument.name in solution.grounded
    ]
    if not lines:
        return [f"{claim} has no argument in the grounded extension"]
    if line not in lines:
        return [f"the gold line is not the derivation of a grounded argument for {claim}"]
    return []


def _argument_directives(solution: Solution, name: str) -> set[tuple]:
    """The premises, axioms and rules an argument is built from, as `directive_key`s."""
    theory = solution.theory
    found: set[tuple] = set()
    for part in solution.subarguments(name):
        argument = solution.arguments[part]
        if argument.top_rule is not None:
            found.add(directive_key(theory.rule(argument.top_rule)))
        elif argument.conclusion in theory.axioms:
            found.add(directive_key(Axiom(argument.conclusion)))
        else:
            found.add(directive_key(Premise(argument.conclusion)))
    return found


def _check_intervention(item: Instance) -> list[str]:
    """The statuses the question says the goals have now; the released minimum as the
    fewest of the reference's directives that reach the goals (the release records it as
    `min_within_reference`) and, for preference_construction, as the minimum over argc's
    declared candidate space (the question fixes the language: preferences over the
    theory's rules and premises)."""
    theory = item.parsed_theory.without_header()
    solution = _solved(item)
    problems = [
        f"the question says {claim} is currently {said}; argc: {found}"
        for claim, said in _CURRENTLY.findall(item.prompt)
        if (found := solution.status(Literal.parse(claim))) != said
    ]
    spaces = {"the reference": lambda: parse_intervention(item.reference, "reference_answer")}
    if item.task == "preference_construction":
        spaces["argc's candidate space"] = lambda: REGISTRY[item.task].space(
            Candidate(theory), solution
        )
    for what, space in spaces.items():
        problems += _minimum_problems(item, theory, what, space)
    return problems


def _minimum_problems(
    item: Instance, theory: Theory, what: str, space: Callable[[], list[Directive]]
) -> list[str]:
    """Whether the fewest directives of a candidate space reaching the goals are as many as
    the row's minimum."""
    goals = {Literal.parse(c): s for c, s in item.target["goals"].items()}
    try:
        found = fewest_additions(theory, space(), goals, ordering=item.strength, limits=LIMITS)
    except ArgcError as error:
        return [f"{what} cannot be searched: {error}"]
    minimum = item.target["min_directives"]
    if found is None:
        return [f"no subset of {what} reaches the goals"]
    if found.size != minimum:
        return [f"argc's minimum within {what} is {found.size}; released {minimum}"]
    return []


def _check_semantics(item: Instance) -> list[str]:
    theory = item.parsed_theory.without_header()
    solutions = {
        semantics: solve(theory, ordering=item.strength, semantics=semantics, limits=LIMITS)
        for semantics in ("grounded", "eager", "stable", "preferred")
    }
    ours = {
        f"{claim} under {named}": status(named, Literal.parse(claim), solutions)
        for claim, named, _ in item.target
    }
    theirs = {f"{claim} under {named}": found for claim, named, found in item.target}
    return _differences(ours, theirs, "statuses")


def _check_diagnosis(item: Instance) -> list[str]:
    """argc's own defeat_diagnosis target for the theory and claim equals the gold's."""
    task = REGISTRY[item.task]
    theory = item.parsed_theory
    result = query(theory, task.program, ordering=item.strength, limits=LIMITS)
    if not result.satisfiable:
        return ["argc's defeat_diagnosis query rejects the theory"]
    ours = task.target(Candidate(theory), result, item.strength)
    if ours == item.target:
        return []
    return [f"argc's diagnosis {json.dumps(ours, sort_keys=True)} differs from the gold's"]


GOLD_CHECKS: dict[str, Callable[[Instance], list[str]]] = {
    "semantics_query": _check_semantics,
    "defeat_diagnosis": _check_diagnosis,
    "status_query": _check_statuses,
    "formalization": _check_formalization,
    "perturbation": _check_perturbation,
    "claim_chain": _check_chain,
    **{
        name: _check_intervention
        for name, task in REGISTRY.items()
        if isinstance(task, InterventionTask)
    },
}


# Command line ------------------------------------------------------------------------------


def register(commands: argparse._SubParsersAction) -> None:
    """Add `import-arggym` to `argc bench`."""
    command = commands.add_parser(
        "import-arggym",
        help="import ArgGYM's released taskset as an argc benchmark folder",
        description="Read ArgGYM's released taskset (JSON lines; a __manifest__ line is"
        " skipped) into DIR/rows.jsonl, DIR/rows.parquet and DIR/manifest.json: one argc"
        " instance per row, with the row's id, its question as the prompt and its reference"
        " answer as the reference, scored by argc. `argc bench audit DIR` then rescores every"
        " reference and compares every row's gold with argc's engine.",
    )
    command.set_defaults(handler=_import_command)
    command.add_argument("taskset", type=Path, metavar="TASKSET.jsonl")
    command.add_argument("--out", type=Path, required=True, metavar="DIR")


def _import_command(args: argparse.Namespace) -> int:
    try:
        manifest = import_release(args.taskset, args.out)
    except (ArgcError, OSError) as error:
        print(f"argc bench import-arggym: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    print(f"argc bench import-arggym: wrote {args.out}: {manifest['rows']} rows")
    return EXIT_OK
