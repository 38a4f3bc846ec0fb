"""The benchmark's commands: `argc bench build|merge|audit|diagnose|export|import-arggym`,
`argc eval`, `argc report`."""

from __future__ import annotations

import argparse

from argc.bench import arggym, audit, build, diagnose, evaluate, export, report


def register(commands: argparse._SubParsersAction) -> None:
    """Add `bench` (with its subcommands), `eval` and `report` to the `argc` command line."""
    group = commands.add_parser(
        "bench",
        help="the frozen benchmark: build, merge shards, audit, diagnose, export; import ArgGYM's"
        " released taskset",
    )
    bench_commands = group.add_subparsers(dest="bench_command", required=True)
    build.register(bench_commands)
    audit.register(bench_commands)
    diagnose.register(bench_commands)
    export.register(bench_commands)
    arggym.register(bench_commands)
    evaluate.register(commands)
    report.register(commands)
