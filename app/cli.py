"""The `argc` command line: the engine's, the tasks', the benchmark's and training's commands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from argc.bench import cli as bench_cli
from argc.compiler import cli as engine_cli
from argc.tasks import cli as tasks_cli
from argc.tasks import curriculum
from argc.train import cli as train_cli


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `argc` console script; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="argc",
        description="Compile ASPIC+ theories to ASP, solve them with clingo, and build"
        " verified reasoning tasks on them.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    engine_cli.register(commands)
    tasks_cli.register(commands)
    curriculum.register(commands)
    bench_cli.register(commands)
    train_cli.register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
