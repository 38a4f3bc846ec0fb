"""`argc norms`: solve a normative world's query, compare a root world with a variant, and
generate the datasets of metamorphic pairs and surface-varied worlds (the generators, and
the tasks they load, are imported only by `norms generate`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from argc.compiler.control import Limits
from argc.compiler.guard import Watchdog, memory_cap
from argc.compiler.norms.changes import ChangeRecord, change_record
from argc.compiler.norms.verdict import Verdict, solve_world
from argc.dsl.errors import InputError, located_error
from argc.dsl.norms.parser import parse_world, read_world
from argc.dsl.norms.world import World
from argc.dsl.parser import source_name
from argc.options import DEFAULT_MEMORY_MIB, memory_mib, positive_int, seconds
from argc.worlds import WorldInput, add_inputs, clocked, one_file, solve_each


def register(commands: argparse._SubParsersAction) -> None:
    """Add `norms solve` and `norms diff` to the `argc` command line."""
    norms = commands.add_parser(
        "norms",
        help="normative worlds (.norm): solve a world's query, compare two worlds, generate"
        " datasets",
        description="Normative worlds: facts, identity rules, normative rules with"
        " priorities, and a queried action (docs/norms.md).",
    )
    actions = norms.add_subparsers(dest="action", required=True, metavar="ACTION")
    solve = actions.add_parser(
        "solve",
        help="the answer for the queried action, decisive and defeated rules, statuses,"
        " attacks and the minimal support",
        description="Solve worlds (grounded semantics) and report each one's verdict on its"
        " queried action: one file as one report; several files, `-` (standard input) or"
        " JSONL files of worlds (--jsonl, e.g. `norms generate --set surface`) in one"
        " process, one report per world in order, each naming its world, a world that fails"
        " giving its error record while the others go on (docs/norms.md, Many worlds in one"
        " call).",
    )
    add_inputs(solve, "WORLD.norm")
    solve.set_defaults(handler=_solve)
    diff = actions.add_parser(
        "diff",
        help="the change record from a root world to a variant",
        description="Solve both worlds and report the relation between them and the"
        " changes of answer, support, statuses and attacks.",
    )
    diff.add_argument("root", metavar="ROOT.norm")
    diff.add_argument("variant", metavar="VARIANT.norm")
    diff.set_defaults(handler=_diff)
    make = actions.add_parser(
        "generate",
        help="metamorphic pairs (as norm_change_record instances or raw rows) or surface-varied"
        " worlds, JSONL",
        description="Generate a dataset of normative worlds, deterministic in its arguments"
        " (docs/norms.md, Generated worlds), written atomically.",
    )
    make.add_argument("--set", choices=("mr", "surface"), default="mr", dest="dataset")
    make.add_argument(
        "--families",
        type=positive_int,
        metavar="N",
        help="root families (default: 270 for mr, 1000 for surface)",
    )
    make.add_argument("--seed", type=int, default=0)
    make.add_argument(
        "--split",
        choices=("train", "dev", "test", "ood", "all"),
        default="all",
        help="keep the pairs of one split (mr)",
    )
    make.add_argument(
        "--rows",
        action="store_true",
        help="write the pairs as raw rows (worlds, verdicts, change record) rather than"
        " norm_change_record instances for argc eval and argc score (mr)",
    )
    make.add_argument("--out", required=True, metavar="FILE.jsonl")
    make.set_defaults(handler=_generate)
    for command in (solve, diff):
        command.add_argument(
            "--json", action="store_true", help="one JSON object (solve: one per world)"
        )
        command.add_argument(
            "--time-limit",
            type=seconds,
            default=60.0,
            metavar="SECONDS",
            help="per world: reading, grounding, solving and building the report (diff: the"
            " change record within the variant's limit)",
        )
        command.add_argument(
            "--max-memory",
            type=memory_mib,
            default=DEFAULT_MEMORY_MIB,
            metavar="MIB",
            help="memory the command may take beyond what it holds at start (the whole"
            " process: every world together)",
        )


@contextmanager
def _guarded(args: argparse.Namespace) -> Iterator[Watchdog]:
    """The command's watchdog (its thread started first) and memory cap, both lifted when
    it ends."""
    with Watchdog() as watchdog, memory_cap(args.max_memory):
        yield watchdog


@contextmanager
def _clocked(path: str, args: argparse.Namespace, watchdog: Watchdog) -> Iterator[Limits]:
    """One world file's limits (`argc.worlds.clocked`): its time counted from now, before
    the file is read, the watchdog armed just after the limit, every error naming the file."""
    with clocked(source_name(path), args.time_limit, args.max_memory, watchdog) as limits:
        yield limits


def _world(path: str) -> World:
    """A world with a query, read from its file."""
    return _queried(read_world(path), source_name(path))


def _queried(world: World, name: str) -> World:
    """The world, or InputError when it has no query."""
    if world.query is None:
        raise InputError(
            "the world has no [query: ACTION] naming the action to decide", filename=name
        )
    return world


def _solve(args: argparse.Namespace) -> int:
    if not one_file(args):
        return solve_each(args, "norms", lambda item, limits: _verdict(item, limits, args.json))
    (path,) = args.worlds
    with _guarded(args) as watchdog, _clocked(path, args, watchdog) as limits:
        verdict = solve_world(_world(path), limits)
        report = json.dumps(verdict.to_json()) if args.json else verdict_text(verdict)
    print(report, flush=True)
    return 0


def _verdict(item: WorldInput, limits: Limits, as_json: bool) -> dict | str:
    """One world's verdict, as its JSON record or its text."""
    verdict = solve_world(_queried(parse_world(item.source(), item.name), item.name), limits)
    return verdict.to_json() if as_json else verdict_text(verdict)


def _diff(args: argparse.Namespace) -> int:
    """Both worlds solved, each within its time limit; the record is built within the
    variant's."""
    with _guarded(args) as watchdog:
        with _clocked(args.root, args, watchdog) as limits:
            before = solve_world(_world(args.root), limits)
        with _clocked(args.variant, args, watchdog) as limits:
            variant = _world(args.variant)
            _same_query(before, variant, args.variant)
            record = change_record(before, solve_world(variant, limits))
            report = json.dumps(record.to_json()) if args.json else record_text(record)
    print(report, flush=True)
    return 0


def _same_query(before: Verdict, variant: World, path: str) -> None:
    """InputError, at the variant's query, when it asks about another action than the root."""
    query = variant.query
    assert query is not None  # _world checked it
    if query.action != before.query:
        raise located_error(
            f"the variant asks about {query.action}, the root world about {before.query}:"
            " a change record compares two verdicts on one action",
            query.position,
            source_name(path),
            None,
        )


def _rules(rules: tuple[str, ...] | list[str]) -> str:
    return ", ".join(rules) or "none"


def verdict_text(verdict: Verdict) -> str:
    """A verdict for people to read."""
    lines = [
        f"query: {verdict.query}",
        f"answer: {verdict.answer}",
        f"decisive: {_rules(verdict.decisive)}",
        f"defeated: {_rules(verdict.defeated)}",
        "support: "
        + _rules(verdict.support.rules)
        + (
            f" (facts: {', '.join(map(str, verdict.support.facts))})"
            if verdict.support.facts
            else ""
        ),
    ]
    for label, rules in verdict.labels.items():
        lines.append(f"holds: {label} by {_rules(rules)}")
    for rule, status in verdict.statuses.items():
        lines.append(f"rule {rule}: {status}")
    defeats = set(verdict.defeats)
    for attacker, attacked in verdict.attacks:
        defeat = " (defeats)" if (attacker, attacked) in defeats else ""
        lines.append(f"attack: {attacker} -> {attacked}{defeat}")
    return "\n".join(lines)


def record_text(record: ChangeRecord) -> str:
    """A change record for people to read."""
    answer = record.answer_change
    lines = [
        f"relation: {record.relation}",
        f"answer: {answer['from']} -> {answer['to']}" if answer else "answer: unchanged",
    ]
    for key in ("added", "removed"):
        if record.support_change[key]:
            lines.append(f"support {key}: {', '.join(record.support_change[key])}")
    for rule, change in record.status_change.items():
        lines.append(f"status {rule}: {change['from']} -> {change['to']}")
    for key in ("added", "removed"):
        for attacker, attacked in record.attack_change[key]:
            lines.append(f"attack {key}: {attacker} -> {attacked}")
    return "\n".join(lines)


def _generate(args: argparse.Namespace) -> int:
    from argc.files import write_jsonl
    from argc.tasks.norms.datasets import mr_pairs, surface_set
    from argc.tasks.norms.ladder import pair_instance

    if args.dataset == "surface":
        rows = surface_set(args.families or 1000, args.seed)
    else:
        rows = mr_pairs(args.families or 270, args.seed)
        rows = [row for row in rows if args.split in ("all", row["split"])]
        if not args.rows:
            rows = [pair_instance(row).record() for row in rows]
    write_jsonl(args.out, rows)
    print(f"{args.out}: {len(rows)} rows", file=sys.stderr)
    return 0
