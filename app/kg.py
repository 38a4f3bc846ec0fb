"""`argc kg`: solve a KG world (the target's timeline, every object's final state, the
derived composite relations), generate task instances of the four families over the
depth-by-complexity grid, build a split's task corpus and pretrain a model from scratch (the
generators and the training stack are imported only by the commands that use them)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from argc.compiler.control import Deadline, Limits
from argc.compiler.guard import Watchdog, memory_cap
from argc.compiler.kg.solve import KgModel, solve_kg
from argc.dsl.errors import InputError, LimitExceeded
from argc.dsl.kg import parse_kg, read_kg
from argc.dsl.kg.world import KgWorld
from argc.dsl.parser import source_name
from argc.options import DEFAULT_MEMORY_MIB, memory_mib, positive_int, seconds
from argc.worlds import WorldInput, add_inputs, one_file, solve_each

#: The default cap on the command's memory (address space), in MiB.
FAMILIES = ("deductive", "abductive", "inductive", "analogy")
SPLITS = ("pretrain", "rl", "eval")


def register(commands: argparse._SubParsersAction) -> None:
    """Add `kg solve`, `kg generate`, `kg corpus` and `kg pretrain` to the `argc` command
    line."""
    kg = commands.add_parser(
        "kg",
        help="KG worlds (.kg): solve a world, generate task instances",
        description="KG worlds: objects changing hands over time and kinship among persons"
        " (docs/kg.md).",
    )
    actions = kg.add_subparsers(dest="action", required=True, metavar="ACTION")
    solve = actions.add_parser(
        "solve",
        help="the target's timeline, the final states and the composite relations",
        description="Solve worlds with clingo: the state of the target object (the first"
        " declared, or --target) after each of its events, every object's final state and"
        " the composite relations its rules derive. One file prints one report; several"
        " files, `-` (standard input) or JSONL files of worlds (--jsonl, e.g. `kg generate`)"
        " are solved in one process, one report per world in order, each naming its world, a"
        " world that fails giving its error record while the others go on (docs/kg.md, Many"
        " worlds in one call).",
    )
    add_inputs(solve, "WORLD.kg")
    solve.add_argument(
        "--target",
        metavar="OBJECT",
        help="the object whose timeline is shown, in every world (default: each world's first"
        " object declared)",
    )
    solve.add_argument("--json", action="store_true", help="one JSON object per world")
    solve.add_argument(
        "--time-limit",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="per world: reading, solving and building the output",
    )
    solve.add_argument(
        "--max-memory",
        type=memory_mib,
        default=DEFAULT_MEMORY_MIB,
        metavar="MIB",
        help="memory the command may take beyond what it holds at start (the whole process:"
        " every world together)",
    )
    solve.set_defaults(handler=_solve)
    make = actions.add_parser(
        "generate",
        help="task instances of one family at (D, T), JSONL",
        description="Generate instances of a task family at reasoning depth D and"
        " environment complexity T, deterministic in the arguments (docs/kg.md), written"
        " atomically; `argc score` scores them.",
    )
    make.add_argument("--family", choices=FAMILIES, required=True)
    make.add_argument("--depth", type=int, choices=range(1, 11), required=True, metavar="D")
    make.add_argument("--complexity", type=int, choices=range(1, 7), required=True, metavar="T")
    make.add_argument("--seed", type=int, default=0, help="the first instance's seed")
    make.add_argument("--count", type=positive_int, default=1)
    make.add_argument("--split", choices=("pretrain", "rl", "eval"), default="rl")
    make.add_argument("--out", default="-", metavar="FILE.jsonl|-", help="default: standard output")
    make.set_defaults(handler=_generate)
    _add_corpus(actions)
    pretrain = actions.add_parser(
        "pretrain",
        help="pretrain a KG model from scratch (domain tokenizer, Qwen2 decoder, causal LM)",
        description="Train a domain tokenizer on a corpus and pretrain a Qwen2 decoder from"
        " random weights with causal language modelling, from a YAML config"
        " (docs/training.md, Training a KG model from scratch); resumable.",
    )
    _pretrain_module().add_arguments(pretrain)
    pretrain.set_defaults(handler=_pretrain)


def _pretrain_module():
    from argc.train import pretrain

    return pretrain


def _pretrain(args: argparse.Namespace) -> int:
    from argc.train.cli import guarded_command

    return guarded_command(_pretrain_module().run)(args)


def _solve(args: argparse.Namespace) -> int:
    """Solve the world and build its report within the time limit (the watchdog armed
    throughout; a limit passed while building prints the limit's one line instead), then
    print it. Several worlds (or --jsonl) are solved one after the other in this process
    (`argc.worlds.solve_each`)."""
    if not one_file(args):
        return solve_each(args, "kg", lambda item, limits: _solved(item, limits, args))
    (path,) = args.worlds
    name = source_name(path)
    limits = Limits(seconds=args.time_limit, started=time.monotonic())
    with memory_cap(args.max_memory), Watchdog() as watchdog:
        watchdog.arm(args.time_limit, f"{name}: time limit of {args.time_limit:g} s exceeded")
        try:
            world = read_kg(path)
            target = _target(world, args.target)
            if target is not None and target not in _objects(world):
                print(f"argc kg solve: {name}: no object named {target!r}", file=sys.stderr)
                return 2
            record = solved_record(solve_kg(world, limits), target)
            report = json.dumps(record) if args.json else solved_text(record)
            Deadline(limits.seconds, limits.started).check()
        except LimitExceeded as error:
            print(f"argc kg solve: {name}: {error}", file=sys.stderr)
            return 2
        finally:
            watchdog.disarm()
    print(report, flush=True)
    return 0


def _objects(world: KgWorld) -> list[str]:
    return [thing.name for thing in world.objects]


def _target(world: KgWorld, asked: str | None) -> str | None:
    """The object asked for, else the first declared (None: the world has no object)."""
    things = _objects(world)
    return asked or (things[0] if things else None)


def _solved(item: WorldInput, limits: Limits, args: argparse.Namespace) -> dict | str:
    """One world solved, as its JSON record or its text; InputError when it has no object
    named --target."""
    world = parse_kg(item.source(), item.name)
    target = _target(world, args.target)
    if target is not None and target not in _objects(world):
        raise InputError(f"no object named {target!r}", filename=item.name)
    record = solved_record(solve_kg(world, limits), target)
    return record if args.json else solved_text(record)


def solved_record(model: KgModel, target: str | None) -> dict:
    """The target's timeline (its initial state and the state after each event affecting
    it), every object's final state and the composite relations, as JSON values."""
    world, timeline = model.world, model.timeline
    steps = [
        {"time": time, "event": str(world.events[time - 1]), **timeline[time][target]._asdict()}
        for time, things in enumerate(model.affected)
        if target in things
    ]
    return {
        "target": target,
        "depth": model.depths.get(target, 0) if target else 0,
        "initial": timeline[0][target]._asdict() if target else None,
        "timeline": steps,
        "final": {thing: state._asdict() for thing, state in timeline[-1].items()},
        "relations": [list(relation) for relation in model.composite],
    }


def _state(state: dict) -> str:
    return f"({state['owner']}, {state['possessor']}, {state['integrity']})"


def solved_text(record: dict) -> str:
    """A solved world for people to read."""
    lines = []
    if record["target"] is not None:
        lines.append(f"target: {record['target']} (depth {record['depth']})")
        width = max([len("event"), *(len(step["event"]) for step in record["timeline"])])
        lines.append(f"  {'time':>7}  {'event':<{width}}  (owner, possessor, integrity)")
        lines.append(f"  {'initial':>7}  {'':<{width}}  {_state(record['initial'])}")
        for step in record["timeline"]:
            lines.append(f"  {step['time']:>7}  {step['event']:<{width}}  {_state(step)}")
    lines.append("final states (owner, possessor, integrity):")
    width = max((len(thing) for thing in record["final"]), default=0)
    lines += [f"  {thing:<{width}}  {_state(state)}" for thing, state in record["final"].items()]
    lines.append("composite relations:")
    lines += [f"  {r}({x}, {z})" for r, x, z in record["relations"]] or ["  none"]
    return "\n".join(lines)


def _add_corpus(actions: argparse._SubParsersAction) -> None:
    corpus = actions.add_parser(
        "corpus",
        help="a split's task corpus (instances with their pretraining text), JSONL",
        description="A task instance for every graph of a split (pretrain: 8 cells x 400,000;"
        " rl: 60 x 20,000; eval: 60 x 80), the families taking turns in a mix, each row with"
        " its pretraining text `text` (the prompt, then the gold trace); --depths and"
        " --complexities keep some of the split's cells. Rows stream to"
        " OUT.partial, which is renamed to OUT once complete; run the same command again to"
        " continue an interrupted build (docs/scaling.md, KG corpora).",
    )
    corpus.add_argument("--split", choices=SPLITS, required=True)
    corpus.add_argument(
        "--per-cell", type=positive_int, metavar="N", help="rows per cell (default: the split's)"
    )
    corpus.add_argument(
        "--families",
        nargs="+",
        type=_mix_entry,
        metavar="FAMILY[:WEIGHT]",
        help="the families and their turns (weight 1 unless given; default: deductive:140"
        " abductive:60 inductive:10 analogy:10, Table 16)",
    )
    corpus.add_argument(
        "--depths",
        type=_span,
        metavar="D|LOW-HIGH",
        help="only the split's cells at these depths (default: all); each row as in the whole"
        " split's corpus",
    )
    corpus.add_argument(
        "--complexities",
        type=_span,
        metavar="T|LOW-HIGH",
        help="only the split's cells at these complexities (default: all)",
    )
    corpus.add_argument("--seed", type=int, default=0, help="the split plan's seed (default: 0)")
    corpus.add_argument(
        "--shard",
        type=_shard,
        default=(0, 1),
        metavar="I/N",
        help="the I-th of N equal ranges of the rows, I from 0 to N-1 (default: all of them, 0/1)",
    )
    corpus.add_argument(
        "--workers",
        type=positive_int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="local processes (default: one per core)",
    )
    corpus.add_argument(
        "--ray",
        nargs="?",
        const=True,
        default=None,
        metavar="ADDRESS",
        help="make the chunks as Ray tasks (the ray extra; --workers is then ignored): on the"
        " cluster RAY_ADDRESS names or a new local instance, or on ADDRESS (docs/scaling.md)",
    )
    corpus.add_argument(
        "--chunk",
        type=positive_int,
        default=128,
        metavar="ROWS",
        help="rows per work unit (default: 128)",
    )
    corpus.add_argument("--out", required=True, metavar="FILE.jsonl")
    corpus.set_defaults(handler=_corpus)


def _mix_entry(text: str) -> tuple[str, int]:
    family, _, weight = text.partition(":")
    if family not in FAMILIES:
        raise argparse.ArgumentTypeError(f"unknown family {family!r}: one of {', '.join(FAMILIES)}")
    return family, positive_int(weight) if weight else 1


def _span(text: str) -> range:
    """An inclusive range of depths or complexities: `3` or `1-2`."""
    low, _, high = text.partition("-")
    high = high or low
    if not (low.isdigit() and high.isdigit() and int(low) <= int(high)):
        raise argparse.ArgumentTypeError(f"expected N or LOW-HIGH with LOW <= HIGH, not {text!r}")
    return range(int(low), int(high) + 1)


def corpus_cells(split: str, depths: range | None, complexities: range | None) -> set | None:
    """The (D, T) cells of the split that --depths and --complexities select (None: all);
    ArgcError when they name a depth or complexity the split does not have."""
    from argc.dsl.errors import ArgcError
    from argc.tasks.kg.splits import PLANS

    if depths is None and complexities is None:
        return None
    plan = PLANS[split]
    for name, asked, axis in (
        ("depths", depths, plan.depths),
        ("complexities", complexities, plan.complexities),
    ):
        if asked is not None and not set(asked) <= set(axis):
            raise ArgcError(
                f"--{name}: the {split} split has {name} {axis[0]}-{axis[-1]}, not"
                f" {asked[0]}-{asked[-1]}"
            )
    return {
        (depth, complexity)
        for depth, complexity in plan.cells
        if (depths is None or depth in depths)
        and (complexities is None or complexity in complexities)
    }


def _shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and int(index) < int(count)):
        raise argparse.ArgumentTypeError(f"a shard is I/N with 0 <= I < N, not {text!r}")
    return int(index), int(count)


def _corpus(args: argparse.Namespace) -> int:
    from argc.tasks.kg.splits import FAMILY_MIX, build_corpus, corpus_chunks

    mix = dict(args.families) if args.families else FAMILY_MIX
    cells = corpus_cells(args.split, args.depths, args.complexities)
    chunks = corpus_chunks(
        args.split, args.per_cell, mix, args.seed, args.shard, args.chunk, cells=cells
    )
    summary = build_corpus(args.out, chunks, args.workers, args.ray)
    left = f"; {summary.skipped} left out (no instance of their family)" if summary.skipped else ""
    print(f"{args.out}: {summary.rows} rows{left}", file=sys.stderr)
    return 0


def _generate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from argc.files import write_jsonl
    from argc.tasks.kg.families import generate_instance

    seeds = range(args.seed, args.seed + args.count)
    rows = [
        generate_instance(args.family, args.depth, args.complexity, seed, args.split).row()
        for seed in tqdm(seeds, desc=f"kg {args.family}", disable=args.count < 50)
    ]
    write_jsonl(args.out, rows)
    where = "stdout" if args.out == "-" else args.out
    print(f"{where}: {len(rows)} instances; {form_mix(args.family, rows)}", file=sys.stderr)
    return 0


def form_mix(family: str, rows: list[dict]) -> str:
    """How many rows have each of the family's question forms, with their shares:
    `mask_one_event 30 (0.75), mask_one_initial_fact 10 (0.25)`."""
    from argc.tasks.kg.families import FORMS

    counts = {form: sum(row["form"] == form for row in rows) for form in FORMS[family]}
    return ", ".join(f"{form} {n} ({n / max(1, len(rows)):.2f})" for form, n in counts.items())
