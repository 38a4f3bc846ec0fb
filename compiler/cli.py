"""The engine's commands: `argc check` and `argc query`."""

from __future__ import annotations

import argparse
import json
import sys

from argc.compiler.control import LimitExceeded, Limits, ProgramError
from argc.compiler.report import as_record, summary
from argc.compiler.solve import query, solve
from argc.dsl.errors import InputError
from argc.dsl.ir import PRINCIPLES, READINGS, SEMANTICS, SET_COMPARISONS, Literal, Ordering
from argc.dsl.parser import read_text, read_theory

EXIT_OK, EXIT_INCONSISTENT, EXIT_INPUT_ERROR = 0, 1, 2
EXIT_UNSATISFIABLE = 1


def _literal(text: str) -> Literal:
    try:
        return Literal.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(commands: argparse._SubParsersAction) -> None:
    """Add `check` and `query` to the `argc` command line."""
    check = commands.add_parser(
        "check",
        help="solve theories and report statuses, extensions and consistency",
        description="Solve each .arg file; flags override the file's header directives.",
    )
    check.set_defaults(handler=_check)
    check.add_argument("files", nargs="+", metavar="FILE")
    add_ordering(check)
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
    _add_limits(check)
    ask = commands.add_parser(
        "query",
        help="run an ASP query over a theory's solved model and print the atoms it shows",
        description="Ground QUERY.lp over the solved model (grounded semantics; predicates as"
        " in docs/encodings.md, plus argument_name/2) and print its shown atoms, one per line;"
        " exit code 1 when its constraints are unsatisfiable.",
    )
    ask.set_defaults(handler=_query)
    ask.add_argument("theory", metavar="THEORY.arg")
    ask.add_argument("program", metavar="QUERY.lp")
    add_ordering(ask)
    _add_limits(ask)


def add_ordering(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ordering", choices=PRINCIPLES, help="default: last-link")
    parser.add_argument("--set", choices=SET_COMPARISONS, help="default: elitist")
    parser.add_argument(
        "--comparison",
        choices=READINGS,
        help="set comparison reading: pyarg (strict element-wise, default) or mp2013",
    )


def _add_limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS")
    parser.add_argument("--max-arguments", type=int, default=Limits.arguments, metavar="N")
    parser.add_argument(
        "--max-extensions",
        type=int,
        default=Limits.extensions,
        metavar="N",
        help="stop with an error past N extensions (conflict-free and admissible sets abound)",
    )


def _ordering(args: argparse.Namespace, header: Ordering | None) -> Ordering:
    base = header or Ordering()
    return Ordering(
        args.ordering or base.principle,
        args.set or base.set_comparison,
        args.comparison or base.reading,
    )


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(
        seconds=args.time_limit, arguments=args.max_arguments, extensions=args.max_extensions
    )


def _check_file(path: str, args: argparse.Namespace) -> int:
    limits = _limits(args)
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


def _query(args: argparse.Namespace) -> int:
    try:
        theory = read_theory(args.theory)
        program = read_text(args.program)
        result = query(
            theory, program, ordering=_ordering(args, theory.ordering), limits=_limits(args)
        )
    except InputError as error:
        print(error, file=sys.stderr)
        return EXIT_INPUT_ERROR
    except LimitExceeded as error:
        print(f"{args.theory}: {error}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except ProgramError as error:
        print(str(error).replace("<block>", args.program), file=sys.stderr)
        return EXIT_INPUT_ERROR
    if not result.satisfiable:
        print("UNSATISFIABLE")
        return EXIT_UNSATISFIABLE
    for symbol in result.shown:
        print(symbol)
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    return max(_check_file(path, args) for path in args.files)
