"""The `argc` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from argc.compiler.control import LimitExceeded, Limits
from argc.compiler.report import as_record, summary
from argc.compiler.solve import solve
from argc.dsl.errors import InputError
from argc.dsl.ir import PRINCIPLES, READINGS, SEMANTICS, SET_COMPARISONS, Literal, Ordering
from argc.dsl.parser import read_theory

EXIT_OK, EXIT_INCONSISTENT, EXIT_INPUT_ERROR = 0, 1, 2


def _literal(text: str) -> Literal:
    try:
        return Literal.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="argc", description="Compile ASPIC+ theories to ASP and solve them with clingo."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="solve theories and report statuses, extensions and consistency",
        description="Solve each .arg file; flags override the file's header directives.",
    )
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--ordering", choices=PRINCIPLES, help="default: last-link")
    check.add_argument("--set", choices=SET_COMPARISONS, help="default: elitist")
    check.add_argument(
        "--comparison",
        choices=READINGS,
        help="set comparison reading: pyarg (strict element-wise, default) or mp2013",
    )
    check.add_argument("--semantics", choices=SEMANTICS, help="default: grounded")
    check.add_argument("--json", action="store_true", help="one JSON object per file per line")
    check.add_argument(
        "--explain",
        action="append",
        type=_literal,
        default=[],
        metavar="LITERAL",
        help="explain why LITERAL has its status (repeatable; write --explain=-a for -a)",
    )
    check.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS")
    check.add_argument("--max-arguments", type=int, default=Limits.arguments, metavar="N")
    return parser


def _ordering(args: argparse.Namespace, header: Ordering | None) -> Ordering:
    base = header or Ordering()
    return Ordering(
        args.ordering or base.principle,
        args.set or base.set_comparison,
        args.comparison or base.reading,
    )


def _check_file(path: str, args: argparse.Namespace) -> int:
    limits = Limits(seconds=args.time_limit, arguments=args.max_arguments)
    try:
        theory = read_theory(path)
        solution = solve(
            theory,
            ordering=_ordering(args, theory.ordering),
            semantics=args.semantics or theory.semantics,
            limits=limits,
        )
    except (InputError, LimitExceeded) as error:
        message = str(error) if isinstance(error, InputError) else f"{path}: {error}"
        if args.json:
            print(json.dumps({"file": path, "error": message}), flush=True)
        print(message, file=sys.stderr)
        return EXIT_INPUT_ERROR
    if args.json:
        print(json.dumps(as_record(solution, path, args.explain)), flush=True)
    else:
        print(summary(solution, path, args.explain), flush=True)
    return EXIT_OK if solution.consistent else EXIT_INCONSISTENT


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `argc` console script; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.command == "check":
        codes = [_check_file(path, args) for path in args.files]
        return max(codes)
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
