"""The training commands: `argc train`, `argc sample` and `argc sample-metrics`. They need the
`train` extra (torch, transformers, TRL, PyYAML); without it the commands exist and say so."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from types import ModuleType

EXIT_MISSING = 2
#: name → (module, function adding its arguments, function running it, summary)
COMMANDS = {
    "train": ("trainer", "add_arguments", "run", "GRPO training from a recipe (TRL)"),
    "sample": ("sample", "add_arguments", "run", "k scored samples per instance"),
    "sample-metrics": (
        "sample",
        "add_metrics_arguments",
        "run_metrics",
        "pass@k, SG/CG and heatmaps from samples",
    ),
}


def register(commands: argparse._SubParsersAction) -> None:
    """Add the training commands to the `argc` command line."""
    for name, (module_name, adder, runner, summary) in COMMANDS.items():
        parser = commands.add_parser(name, help=summary, description=summary)
        module = _load(module_name)
        if isinstance(module, ModuleNotFoundError):
            parser.add_argument("rest", nargs=argparse.REMAINDER)
            parser.set_defaults(handler=_missing(module))
            continue
        getattr(module, adder)(parser)
        parser.set_defaults(handler=_guarded(getattr(module, runner)))


def _load(name: str) -> ModuleType | ModuleNotFoundError:
    try:
        return importlib.import_module(f"argc.train.{name}")
    except ModuleNotFoundError as error:
        return error


def _guarded(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """The command, answering a training dependency missing at run time like `_missing`."""

    def guarded(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except ModuleNotFoundError as error:
            return _missing(error)(args)

    return guarded


def _missing(error: ModuleNotFoundError):
    def run(_args: argparse.Namespace) -> int:
        print(
            f"argc: {error.name} is not installed; install the training extra"
            " (pip install 'argc[train]')",
            file=sys.stderr,
        )
        return EXIT_MISSING

    return run
