"""The training commands: `argc train`, `argc study`, `argc sample`, `argc sample-metrics` and
`argc recipe-cells`. They need the `train` extra (torch, transformers, TRL, PyYAML); without it
the commands exist and say so."""

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
    "study": (
        "study",
        "add_arguments",
        "run",
        "a learning study: supervised stage, GRPO, held-out success before and after",
    ),
    "sample": ("sample", "add_arguments", "run", "k scored samples per instance"),
    "sample-metrics": (
        "sample",
        "add_metrics_arguments",
        "run_metrics",
        "pass@k, SG/CG and heatmaps from samples",
    ),
    "recipe-cells": (
        "recipes",
        "add_cells_arguments",
        "run_cells",
        "the (D, T) cells of KG recipes, JSON for sample-metrics --recipe-cells",
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
        run = guarded_command(getattr(module, runner))
        if name == "train":
            from argc.cluster import add_ray_option

            add_ray_option(parser, "the dataset's generation")
            run = _on_ray(run)
        parser.set_defaults(handler=run)


def _load(name: str) -> ModuleType | ModuleNotFoundError:
    try:
        return importlib.import_module(f"argc.train.{name}")
    except ModuleNotFoundError as error:
        return error


def guarded_command(
    run: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """The command, answering a training dependency missing at run time like `_missing`."""

    def guarded(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except ModuleNotFoundError as error:
            return _missing(error)(args)

    return guarded


def _on_ray(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """The command, generating its dataset as Ray tasks when `--ray` is given."""

    def on_ray(args: argparse.Namespace) -> int:
        if args.ray is None:
            return run(args)
        from argc.cluster import ray_module
        from argc.dsl.errors import ArgcError
        from argc.train.data import generating_on

        try:
            ray_module()
        except ArgcError as error:
            print(f"argc {args.command}: {error}", file=sys.stderr)
            return EXIT_MISSING
        with generating_on(args.ray):
            return run(args)

    return on_ray


def _missing(error: ModuleNotFoundError):
    def run(_args: argparse.Namespace) -> int:
        print(
            f"argc: {error.name} is not installed; install the training extra"
            " (pip install 'argc[train]')",
            file=sys.stderr,
        )
        return EXIT_MISSING

    return run
