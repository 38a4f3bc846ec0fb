"""The engine's commands: `argc check`, `argc query` and `argc af`.

What only some runs need is imported when they need it: writing an export file
(`argc.files`), JSON (`json`, for --json) and abstract frameworks (`argc.dsl.iccma`,
`argc.compiler.frameworks`) for `argc af`; and the command line of a run that shows no other
command has only its own command (`register_some`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from argc.compiler.control import (
    COUNTED_LIMITS,
    Deadline,
    LimitExceeded,
    Limits,
    ProgramError,
)
from argc.compiler.graph import EXPORT_FORMATS, export
from argc.compiler.guard import Watchdog, memory_cap
from argc.compiler.report import (
    SHOWABLE,
    as_record,
    error_record,
    framework_record,
    framework_summary,
    summary,
)
from argc.compiler.solution import Solution
from argc.compiler.solve import query, solve
from argc.dsl.errors import InputError
from argc.dsl.ir import (
    PRINCIPLES,
    READINGS,
    SEMANTICS,
    SET_COMPARISONS,
    Literal,
    Ordering,
    Theory,
)
from argc.dsl.lint import theory_warnings
from argc.dsl.parser import read_text, read_theory, source_name
from argc.dsl.records import dataclass
from argc.options import DEFAULT_MEMORY_MIB, memory_mib, positive_int, seconds

if TYPE_CHECKING:
    from argc.dsl.iccma import Framework

EXIT_OK, EXIT_INCONSISTENT, EXIT_INPUT_ERROR = 0, 1, 2
EXIT_UNSATISFIABLE = 1
#: The output path that means standard output (`argc.files.STDOUT`).
STDOUT = "-"
#: The framework formats `argc af` reads (`argc.dsl.iccma.FORMATS`).
AF_FORMATS = ("apx", "af")


def _dumps(record: object) -> str:
    """`record` as JSON (the json module is imported by the runs that write JSON)."""
    import json

    return json.dumps(record)


def _literal(text: str) -> Literal:
    try:
        return Literal.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(commands: argparse._SubParsersAction) -> None:
    """Add `check`, `query` and `af` to the `argc` command line."""
    register_some(commands, ("check", "query", "af"))


def register_some(commands: argparse._SubParsersAction, names: Collection[str]) -> None:
    """Add those of `check`, `query` and `af` that `names` names (for a command line that
    shows no other command: `argc.cli.build_parser`)."""
    if "check" in names:
        _register_check(commands)
    if "query" in names:
        _register_query(commands)
    if "af" in names:
        _register_af(commands)


def _register_check(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser(
        "check",
        help="solve theories and report statuses, extensions and consistency",
        description="Solve each .arg file (or normative world, .norm); flags override the"
        " file's header directives. A KG world (.kg) prints its timeline, object depths and"
        " derived kinship relations instead.",
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
        help="explain why LITERAL has its status (repeatable; -a or --explain=-a for a negation)",
    )
    _add_graph_options(check)
    _add_limits(check)


def _register_query(commands: argparse._SubParsersAction) -> None:
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


def _add_graph_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--graph",
        action="store_true",
        help="with --json: add the argument graph (arguments, attacks, defeats)",
    )
    check.add_argument(
        "--show",
        action="append",
        choices=tuple(SHOWABLE),
        default=[],
        help="list the arguments or the attacks in the report (repeatable)",
    )
    check.add_argument(
        "--export",
        choices=EXPORT_FORMATS,
        help="write the framework: Graphviz dot (attacks and grounded labels) or the ICCMA"
        " formats apx and af (arguments and defeats); takes one FILE",
    )
    check.add_argument(
        "--out",
        default=STDOUT,
        metavar="PATH",
        help="where --export writes (default '-': standard output, instead of the report)",
    )


def _register_af(commands: argparse._SubParsersAction) -> None:
    solve_af = commands.add_parser(
        "af",
        help="solve abstract argumentation frameworks (ICCMA .apx or .af files)",
        description="Solve each framework under a semantics: its extensions (the first"
        " --max-extensions), the credulously and skeptically accepted arguments, and the"
        " answers to --credulous / --skeptical. In an .af file arguments are named 1..N.",
    )
    solve_af.set_defaults(handler=_af)
    solve_af.add_argument("files", nargs="+", metavar="FILE")
    solve_af.add_argument("--semantics", choices=SEMANTICS, default="grounded")
    solve_af.add_argument(
        "--format",
        choices=AF_FORMATS,
        help="the files' format (default: each file's suffix; needed for '-', standard input)",
    )
    solve_af.add_argument("--json", action="store_true", help="one JSON object per file per line")
    for mode in ("credulous", "skeptical"):
        solve_af.add_argument(
            f"--{mode}",
            action="append",
            default=[],
            metavar="ARGUMENT",
            help=f"is ARGUMENT {mode}ly accepted? (repeatable)",
        )
    _add_limits(solve_af)


def add_ordering(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ordering", choices=PRINCIPLES, help="default: last-link")
    parser.add_argument("--set", choices=SET_COMPARISONS, help="default: elitist")
    parser.add_argument(
        "--comparison",
        choices=READINGS,
        help="set comparison reading: pyarg (strict element-wise, default) or mp2013",
    )


#: The default cap on a command's memory (address space), in MiB.


#: The options of the counted limits beyond arguments and extensions (docs/encodings.md).
COUNT_FLAGS = {
    "--max-sub-arguments": "sub-arguments of all arguments counted with repetition",
    "--max-instantiations": "partial rule instantiations while building the arguments",
    "--max-attacks": "attacks on sub-arguments",
}


def _field(flag: str) -> str:
    """The Limits field of a `--max-...` option."""
    return flag.removeprefix("--max-").replace("-", "_")


def _add_limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--time-limit",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="per file: reading, parsing, grounding, solving and building the output",
    )
    parser.add_argument("--max-arguments", type=positive_int, default=Limits.arguments, metavar="N")
    for flag, help_text in COUNT_FLAGS.items():
        parser.add_argument(
            flag,
            type=positive_int,
            default=getattr(Limits, _field(flag)),
            metavar="N",
            help=help_text,
        )
    parser.add_argument(
        "--max-extensions",
        type=positive_int,
        default=Limits.extensions,
        metavar="N",
        help="list at most the first N extensions (acceptance still counts every one)",
    )
    parser.add_argument(
        "--max-memory",
        type=memory_mib,
        default=DEFAULT_MEMORY_MIB,
        metavar="MIB",
        help="memory the command may take beyond what it holds at start; past it, exit code 2",
    )


def _ordering(args: argparse.Namespace, header: Ordering | None) -> Ordering:
    base = header or Ordering()
    return Ordering(
        args.ordering or base.principle,
        args.set or base.set_comparison,
        args.comparison or base.reading,
    )


def _limits(args: argparse.Namespace) -> Limits:
    counts = {_field(flag): getattr(args, f"max_{_field(flag)}") for flag in COUNT_FLAGS}
    return Limits(
        seconds=args.time_limit,
        arguments=args.max_arguments,
        extensions=args.max_extensions,
        **counts,
    )


def _clock(limits: Limits, watchdog: Watchdog, path: str, as_json: bool) -> Limits:
    """One input's limits, its time counted from now (before the file is read), with the
    watchdog armed to end the process just after the limit if some step does not stop."""
    message = f"{path}: time limit of {limits.seconds:g} s exceeded"
    stdout = _dumps({"file": path, "error": message, "limit": "time"}) if as_json else None
    watchdog.arm(limits.seconds, message, stdout)
    return replace(limits, started=time.monotonic())


def _deadline(limits: Limits) -> float:
    return limits.started + limits.seconds


def _in_time(limits: Limits) -> None:
    """LimitExceeded once the input's time limit has passed: what it prints is built within
    the limit (under the watchdog), and printed only when it was."""
    Deadline(limits.seconds, limits.started).check()


@dataclass(frozen=True)
class _Output:
    """What one input prints, built within its time limit: warnings (to stderr), the export
    text (to --out), the report (None when the export takes standard output) and the exit
    code."""

    report: str | None
    code: int = EXIT_OK
    warnings: tuple[str, ...] = ()
    export: str | None = None


@contextmanager
def _guarded(args: argparse.Namespace) -> Iterator[Watchdog]:
    """The command's memory cap and its watchdog, both lifted when it ends."""
    with memory_cap(args.max_memory), Watchdog() as watchdog:
        yield watchdog


def _limit_message(path: str, error: LimitExceeded) -> str:
    """The limit's message for `path`, naming the option that raises a counted limit."""
    text = str(error)
    text = text if text.startswith(f"{path}:") else f"{path}: {text}"
    if error.limit in COUNTED_LIMITS:  # time and memory name theirs in their message
        text += f" (--max-{error.limit.replace('_', '-')} N raises the limit)"
    return text


def _check_file(file: str, args: argparse.Namespace, watchdog: Watchdog) -> int:
    """Solve one input and build what it prints within its time limit (the watchdog armed
    throughout), then print it: a limit passed while building prints the limit's one line
    instead, and no part of the output."""
    path = source_name(file)
    limits = _clock(_limits(args), watchdog, path, args.json)
    try:
        if file.endswith(".kg"):
            output = _checked_kg(file, path, args, limits)
        else:
            output = _checked_theory(file, path, args, limits)
        _in_time(limits)
    except (InputError, LimitExceeded) as error:
        return _failed(path, error, args.json)
    finally:
        watchdog.disarm()
    return _emit(output, args.out)


def _checked_theory(file: str, path: str, args: argparse.Namespace, limits: Limits) -> _Output:
    theory = _read(file, limits)
    solution = solve(
        theory,
        ordering=_ordering(args, theory.ordering),
        semantics=args.semantics or theory.semantics,
        limits=limits,
    )
    warnings = tuple(_warnings(solution.theory, path, args.explain))
    return _presented(solution, path, args, warnings)


def _checked_kg(file: str, path: str, args: argparse.Namespace, limits: Limits) -> _Output:
    """A KG world's timeline, depths and composite relations (docs/kg.md, "In ASP")."""
    from argc.compiler.kg.solve import solve_kg
    from argc.dsl.kg.parser import read_kg

    model = solve_kg(read_kg(file), limits)
    warnings = tuple(
        f"{path}: warning: {option} applies to theories, not to KG worlds"
        for option in _theory_options(args)
    )
    report = _dumps(model.record(path)) if args.json else model.summary(path)
    return _Output(report, warnings=warnings)


def _theory_options(args: argparse.Namespace) -> list[str]:
    """The options given that only an argumentation theory's report uses."""
    given = {
        "--semantics": args.semantics,
        "--ordering": args.ordering,
        "--set": args.set,
        "--comparison": args.comparison,
        "--explain": args.explain,
        "--graph": args.graph,
        "--show": args.show,
        "--export": args.export,
    }
    return [option for option, value in given.items() if value]


def _read(file: str, limits: Limits) -> Theory:
    """The theory of a `.arg` file, or of a normative world's `.norm` file (docs/norms.md)."""
    if file.endswith(".norm"):
        from argc.compiler.norms.theory import world_theory
        from argc.dsl.norms.parser import read_world

        return world_theory(read_world(file), limits)
    return read_theory(file, deadline=_deadline(limits))


def _warnings(theory: Theory, path: str, explained: list[Literal]) -> list[str]:
    """The theory's warnings, and one for each --explain literal it does not name."""
    found = [warning.located(path) for warning in theory_warnings(theory)]
    atoms = {literal.atom for literal in theory.literals()}
    found += [
        f"{path}: warning: --explain {literal}: the theory does not name {literal.atom}"
        for literal in explained
        if literal.atom not in atoms
    ]
    return found


def _failed(path: str, error: InputError | LimitExceeded, as_json: bool) -> int:
    """Report a file's input error or exceeded limit (also as a JSON record)."""
    message = _limit_message(path, error) if isinstance(error, LimitExceeded) else str(error)
    record = error_record(path, error, message)
    if as_json:
        print(_dumps(record), flush=True)
    print(message, file=sys.stderr, flush=True)
    return EXIT_INPUT_ERROR


def _presented(
    solution: Solution, path: str, args: argparse.Namespace, warnings: tuple[str, ...]
) -> _Output:
    """The export asked for, the report (unless the export takes standard output) and the
    file's exit code."""
    report = None
    if not (args.export and args.out == STDOUT):
        if args.json:
            report = _dumps(as_record(solution, path, args.explain, args.graph))
        else:
            report = summary(solution, path, args.explain, args.show)
    return _Output(
        report,
        EXIT_OK if solution.consistent else EXIT_INCONSISTENT,
        warnings,
        export(solution, args.export) if args.export else None,
    )


def _emit(output: _Output, out: str = STDOUT) -> int:
    """Print a built output: its warnings, its export (to `out`, written whole) and its
    report; the exit code."""
    for warning in output.warnings:
        print(warning, file=sys.stderr, flush=True)
    if output.export is not None:
        from argc.files import OutputError, write_output

        try:
            write_output(out, output.export)
        except OutputError as error:
            print(error, file=sys.stderr, flush=True)
            return EXIT_INPUT_ERROR
    if output.report is not None:
        print(output.report, flush=True)
    return output.code


def _query(args: argparse.Namespace) -> int:
    with _guarded(args) as watchdog:
        return _run_query(args, watchdog)


def _run_query(args: argparse.Namespace, watchdog: Watchdog) -> int:
    limits = _clock(_limits(args), watchdog, args.theory, False)
    try:
        theory = read_theory(args.theory, deadline=_deadline(limits))
        program = read_text(args.program, deadline=_deadline(limits))
        result = query(theory, program, ordering=_ordering(args, theory.ordering), limits=limits)
        shown = "\n".join(map(str, result.shown))
        _in_time(limits)
    except InputError as error:
        print(error, file=sys.stderr)
        return EXIT_INPUT_ERROR
    except LimitExceeded as error:
        print(_limit_message(args.theory, error), file=sys.stderr)
        return EXIT_INPUT_ERROR
    except ProgramError as error:
        print(str(error).replace("<block>", args.program), file=sys.stderr)
        return EXIT_INPUT_ERROR
    finally:
        watchdog.disarm()
    for warning in result.warnings:
        print(warning.replace("<block>", args.program), file=sys.stderr)
    if not result.satisfiable:
        print("UNSATISFIABLE")
        return EXIT_UNSATISFIABLE
    if shown:
        print(shown, flush=True)
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    if args.export and len(args.files) > 1:
        print("argc check: --export takes one FILE", file=sys.stderr)
        return EXIT_INPUT_ERROR
    if args.graph and not args.json:
        print(
            "argc check: --graph adds the graph to the --json record; give --json too"
            " (or --export dot|apx|af for the graph alone)",
            file=sys.stderr,
        )
        return EXIT_INPUT_ERROR
    with _guarded(args) as watchdog:
        return max(_check_file(path, args, watchdog) for path in args.files)


def _queries(args: argparse.Namespace, framework: Framework, path: str) -> list[tuple[str, str]]:
    """The (mode, argument) queries; InputError when one names no argument of the file."""
    known = set(framework.arguments)
    found = [(mode, name) for mode in ("credulous", "skeptical") for name in getattr(args, mode)]
    for _, name in found:
        if name not in known:
            raise InputError(f"no argument named {name!r}", filename=path)
    return found


def _af_file(file: str, args: argparse.Namespace, watchdog: Watchdog) -> int:
    from argc.compiler.frameworks import solve_framework
    from argc.dsl.iccma import read_framework

    path = source_name(file)
    limits = _clock(_limits(args), watchdog, path, args.json)
    try:
        framework = read_framework(file, form=args.format, deadline=_deadline(limits))
        queries = _queries(args, framework, path)
        solution = solve_framework(framework, args.semantics, limits)
        if args.json:
            report = _dumps(framework_record(solution, path, queries))
        else:
            report = framework_summary(solution, path, queries)
        _in_time(limits)
    except (InputError, LimitExceeded) as error:
        return _failed(path, error, args.json)
    finally:
        watchdog.disarm()
    return _emit(_Output(report))


def _af(args: argparse.Namespace) -> int:
    with _guarded(args) as watchdog:
        return max(_af_file(path, args, watchdog) for path in args.files)
