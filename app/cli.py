"""The `argc` command line: the engine's, the tasks', the benchmark's and training's commands.

One contract for every command: exit code 0 on success, 1 for a negative answer (an
inconsistent theory, an unsatisfiable query, failed requests), 2 for bad input, an exceeded
limit or any unexpected error — each in one line on stderr (`argc --debug ...` shows the
traceback) —, 130 on Ctrl-C and 141 when the reader of the output goes away (`| head`).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import sys
from collections.abc import Collection, Iterator, Sequence

from argc import __version__
from argc.dsl.errors import ArgcError

EXIT_ERROR, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 2, 130, 141

#: Options whose value is a literal: `--explain -a` means the literal -a, not an option.
LITERAL_OPTIONS = ("--explain", "--credulous", "--skeptical")
_NEGATED_LITERAL = re.compile(r"-[A-Za-z_][A-Za-z0-9_]*")

#: Examples shown at the end of each command's --help, by command path.
EXAMPLES = {
    "check": """\
  argc check examples/modgil_prakken_tweety.arg
  argc check theory.arg --ordering weakest-link --set democratic --semantics preferred
  argc check theory.arg --json --graph --explain -flies
  argc check theory.arg --export dot --out graph.dot
  cat theory.arg | argc check -""",
    "query": """\
  argc query examples/modgil_prakken_tweety.arg examples/queries/defeated_by.lp""",
    "af": """\
  argc af framework.apx --semantics preferred --credulous a1""",
    "norms": """\
  argc norms solve examples/norms/archive_entry.norm
  argc norms diff examples/norms/archive_entry.norm examples/norms/archive_entry_reordered.norm""",
    "norms solve": """\
  argc norms solve examples/norms/archive_entry.norm --json""",
    "norms generate": """\
  argc norms generate --set mr --split test --out test-pairs.jsonl
  argc norms generate --set surface --families 1000 --out surface.jsonl""",
    "kg": """\
  argc kg solve examples/kg/table9.kg --target ivory_chess_piece
  argc kg generate --family deductive --depth 4 --complexity 2 --count 100 --out ded.jsonl""",
    "kg corpus": """\
  argc kg corpus --split pretrain --out pretrain.jsonl
  argc kg corpus --split rl --per-cell 100 --families deductive:3 abductive --out rl.jsonl
  argc kg corpus --split pretrain --shard 0/4 --ray auto --out pretrain-0.jsonl
  argc kg corpus --split pretrain --depths 1-2 --complexities 1 --per-cell 1000 --out d12.jsonl""",
    "kg solve": """\
  argc kg solve examples/kg/table9.kg --target ivory_chess_piece --json""",
    "kg pretrain": """\
  argc kg pretrain --config train/configs/kg-pretrain-tiny.yaml --corpus corpus.jsonl \\
      --output-dir runs/kg-pretrain --stop-at-step 500   # rerun without it to go on
  argc kg pretrain --config train/configs/kg-pretrain-tiny.yaml --corpus more.jsonl \\
      --output-dir runs/kg-more --init runs/kg-pretrain/model""",
    "kg generate": """\
  argc kg generate --family abductive --depth 6 --complexity 3 --seed 0 --count 100 \\
      --out abd.jsonl
  argc score abd.jsonl predictions.jsonl --out results.jsonl""",
    "norms diff": """\
  argc norms diff examples/norms/archive_entry.norm \\
      examples/norms/archive_entry_no_priority.norm --json""",
    "generate": """\
  argc generate status_query --level 7 --ordering weakest-link --set democratic \\
      --seed 0 --count 100 --out instances.jsonl""",
    "score": """\
  argc score instances.jsonl predictions.jsonl --out results.jsonl""",
    "curriculum": """\
  argc curriculum --instances 50 --out docs/curriculum.md""",
    "bench build": """\
  argc bench build --out benchmark/ --workers 8
  argc bench build --out benchmark/ --shard 0/4   # shards 0/4 to 3/4, then argc bench merge
  argc bench build --out benchmark/ --tasks attack --levels 1 2
  argc bench build --out benchmark/ --ray HEAD:6379   # on a Ray cluster""",
    "bench audit": """\
  argc bench audit benchmark/ --workers 4
  argc bench audit benchmark/ --ray   # on Ray (RAY_ADDRESS, or a local instance)""",
    "bench diagnose": """\
  argc bench diagnose benchmark/ --workers 4 --out diagnostics.md""",
    "bench merge": """\
  argc bench merge benchmark/""",
    "bench export": """\
  argc bench export benchmark/ --out hf-dataset/""",
    "bench import-arggym": """\
  argc bench import-arggym taskset-lite.jsonl --out released/
  argc bench audit released/ --workers 4   # rescore references, compare the released gold""",
    "eval": """\
  argc eval benchmark/ --base-url http://127.0.0.1:8000/v1 --model M --out run.jsonl
  argc eval instances.jsonl --local models/small --out run-small.jsonl""",
    "serve": """\
  argc serve                          # http://127.0.0.1:8000/api/health
  argc serve --port 8080 --workers 4 --time-limit 20""",
    "report": """\
  argc report run.jsonl run-small.jsonl --out report/""",
    "train": """\
  OMP_NUM_THREADS=1 argc train --config train/configs/tiny-cpu.yaml
  argc train --config train/configs/kg-tiny-cpu.yaml --recipe my-recipe.yaml --dry-run""",
    "study": """\
  argc study --config train/configs/learn-arggym-cpu.yaml --out results/learning/arggym
  argc score results/learning/arggym/instances.jsonl results/learning/arggym/after.jsonl""",
    "sample": """\
  argc sample instances.jsonl --k 16 --local runs/tiny --out samples.jsonl
  argc sample kg.jsonl --k 8 --local runs/kg/model --prompt-format raw --out samples.jsonl""",
    "sample-metrics": """\
  argc sample-metrics samples.jsonl --baseline base.jsonl --out metrics/""",
    "recipe-cells": """\
  argc recipe-cells kg-baseline depth-high=kg-depth-high --out cells.json""",
}


#: The modules whose `register(commands)` adds each group of commands, in the order of
#: `argc --help`: each group's commands with the one-line summary their module gives them.
#: Only the group of the command being run is imported (the engine's commands do not load
#: the tasks, the benchmark or training); the others appear by name and summary alone. A
#: module may also have `register_some(commands, names)`, which adds only the commands named
#: (for a command line that shows no other command).
GROUPS = {
    "argc.compiler.cli": {
        "check": "solve theories and report statuses, extensions and consistency",
        "query": "run an ASP query over a theory's solved model and print the atoms it shows",
        "af": "solve abstract argumentation frameworks (ICCMA .apx or .af files)",
    },
    "argc.norms": {
        "norms": "normative worlds (.norm): solve a world's query, compare two worlds, generate"
        " datasets",
    },
    "argc.kg": {
        "kg": "KG worlds (.kg): solve a world, generate task instances",
    },
    "argc.tasks.cli": {
        "generate": "generate task instances (JSONL)",
        "score": "score predictions against instances",
    },
    "argc.tasks.curriculum": {
        "curriculum": "measure structural statistics per task and level (Markdown)",
    },
    "argc.bench.cli": {
        "bench": "the frozen benchmark: build, merge shards, audit, diagnose, export; import"
        " ArgGYM's released taskset",
        "eval": "run a model on instances and score its answers (JSONL run file)",
        "report": "tables and plots of evaluation runs",
    },
    "argc.serve": {
        "serve": "argc's checker and scorers as a JSON API over HTTP",
    },
    "argc.train.cli": {
        "train": "GRPO training from a recipe (TRL)",
        "study": "a learning study: supervised stage, GRPO, held-out success before and after",
        "sample": "k scored samples per instance",
        "sample-metrics": "pass@k, SG/CG and heatmaps from samples",
        "recipe-cells": "the (D, T) cells of KG recipes, JSON for sample-metrics --recipe-cells",
    },
}


def _columns() -> int:
    """`shutil.get_terminal_size().columns`, which argparse's help formatter asks for, without
    importing shutil (with bz2, lzma and zlib, about 2 ms of every start): $COLUMNS, else the
    width of the terminal on standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # AttributeError: no stdout (None)
            columns = 0
        columns = columns or 80
    return columns


class _Wide:
    """A help formatter `_columns()` - 2 wide by default, as argparse makes it."""

    def __init__(self, *args, **kwargs) -> None:
        if len(args) < 4 and kwargs.get("width") is None:
            kwargs["width"] = _columns() - 2
        super().__init__(*args, **kwargs)


class _HelpFormatter(_Wide, argparse.HelpFormatter):
    """argparse's formatter."""


class _Formatter(_Wide, argparse.RawDescriptionHelpFormatter):
    """Keeps the layout of descriptions and examples; help lines say their default."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, formatting with `_HelpFormatter` unless told otherwise (its commands'
    parsers are `_Parser`s too)."""

    def __init__(self, *args, formatter_class: type = _HelpFormatter, **kwargs) -> None:
        super().__init__(*args, formatter_class=formatter_class, **kwargs)


def build_parser(
    needed: Collection[str] | None = None, *, others: bool = True
) -> argparse.ArgumentParser:
    """The command line, every help showing defaults and examples.

    `needed`: the commands that get their own arguments (their group's module is imported);
    every other command is there by name and summary only, which is all `argc --help` and a
    usage error show. Without `others` the other commands are left out (their group's too,
    where its module has `register_some`): for arguments that show no other command
    (`runs_alone`). None: every command, in full."""
    parser = _Parser(
        prog="argc",
        description="Compile ASPIC+ theories to ASP, solve them with clingo, and build"
        " verified reasoning tasks on them.",
        epilog="Exit codes: 0 success; 1 a negative answer (inconsistent theory,"
        " unsatisfiable query, failed requests); 2 bad input, an exceeded limit or an error;"
        " 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"argc {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an unexpected error"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module, summaries in GROUPS.items():
        if needed is None or not needed.isdisjoint(summaries):
            group = importlib.import_module(module)
            if not others and needed is not None and hasattr(group, "register_some"):
                group.register_some(commands, needed)
            else:
                group.register(commands)
        elif others:
            for name, summary in summaries.items():
                commands.add_parser(name, help=summary)
    for path, command in _commands(parser):
        command.formatter_class = _Formatter
        if path in EXAMPLES:
            command.epilog = "examples:\n" + EXAMPLES[path]
        _document_defaults(command)
    return parser


def _commands(
    parser: argparse.ArgumentParser, path: str = ""
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every parser below `parser`, with its command path ("bench build")."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                full = f"{path} {name}".strip()
                yield full, command
                yield from _commands(command, full)


def _document_defaults(parser: argparse.ArgumentParser) -> None:
    """Append "(default: X)" to each option's help where X says something and the help does
    not already name its default."""
    for action in parser._actions:
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        default = action.default
        if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0:
            continue
        help_text = action.help or ""
        if "default" in help_text.lower() or help_text == argparse.SUPPRESS:
            continue
        action.help = f"{help_text} (default: %(default)s)".strip()


def command_named(argv: Sequence[str]) -> str | None:
    """The command an argument list runs: its first positional argument, as argparse reads
    it (the options before it, `--debug`, `--version` and `-h`, take no value)."""
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            return next(tokens, None)
        if not token.startswith("-") or token == "-":
            return token
    return None


def runs_alone(argv: Sequence[str], command: str | None) -> bool:
    """Whether parsing `argv` can show no command but `command`: it is one of argc's and
    nothing but `--debug` comes before it (no `-h`, which lists every command)."""
    return (
        command is not None
        and any(command in summaries for summaries in GROUPS.values())
        and all(token == "--debug" for token in argv[: list(argv).index(command)])
    )


def literal_arguments(argv: Sequence[str]) -> list[str]:
    """`--explain -a` written as `--explain=-a`, so that argparse reads -a as a value."""
    joined: list[str] = []
    tokens = iter(argv)
    for token in tokens:
        if token in LITERAL_OPTIONS:
            value = next(tokens, None)
            if value is not None and _NEGATED_LITERAL.fullmatch(value):
                joined.append(f"{token}={value}")
                continue
            joined.append(token)
            if value is not None:
                joined.append(value)
            continue
        joined.append(token)
    return joined


def debug_first(argv: list[str]) -> list[str]:
    """`--debug` moved before the command wherever it is given (up to a `--`), so that
    `argc check --debug FILE` works as `argc --debug check FILE` does."""
    end = argv.index("--") if "--" in argv else len(argv)
    if "--debug" not in argv[:end]:
        return argv
    return ["--debug", *(token for token in argv[:end] if token != "--debug"), *argv[end:]]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `argc` console script; returns the exit code.

    Called without `argv` (the console script, `python -m argc.cli`), the process ends when
    it returns, so the objects then alive are left out of the garbage collector's later
    passes (`gc.freeze`): the full collection at exit took about 10 ms after `argc check`
    (docs/performance.md, Start-up). Teardown still frees by reference count and runs the
    atexit handlers; only reference cycles are left to the end of the process (Python does
    not promise to finalize what is alive at exit)."""
    code = _run(sys.argv[1:] if argv is None else argv)
    if argv is None:
        gc.freeze()
    return code


def _run(argv: Sequence[str]) -> int:
    """Run the command `argv` names; its exit code."""
    arguments = debug_first(literal_arguments(argv))
    command = command_named(arguments)
    parser = build_parser({command} - {None}, others=not runs_alone(arguments, command))
    args = parser.parse_args(arguments)
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print("argc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except ArgcError as error:
        print(f"argc {args.command}: {error}", file=sys.stderr)
    except MemoryError:
        print(f"argc {args.command}: out of memory", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - the contract: one line, exit 2
        if args.debug:
            import traceback

            traceback.print_exc()
        else:
            print(
                f"argc {args.command}: internal error: {type(error).__name__}: {error}"
                " (rerun with argc --debug for the traceback)",
                file=sys.stderr,
            )
    return EXIT_ERROR


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's flush at exit does not fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
