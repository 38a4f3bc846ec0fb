"""Throughput of KG generation, in graphs (rows) per second per core.

    python benchmarks/kg_throughput.py [--split pretrain] [--per-cell N] [--repeats N]
                                       [--chunk ROWS] [--one-by-one] [--out FILE.json]

Each measurement makes the rows of the split's cells, `--per-cell` rows a cell (graph i of
cell (D, T) has the split's seed `graph_seed(split, D, T, i)`), and counts the CPU time of
its process (`time.process_time`: steadier than wall time on a loaded machine). Each runs
`--repeats` times, every run in a forked process of its own (clingo keeps every symbol it
saw for a process's life, which would slow the runs that come later), forked from a process
that has made a row a cell of each measurement (the encodings parsed, as in a long build); the
table gives the median rate and the range. The measurements:

- `graph`: `generate_graph` alone;
- `graph + rendering`: `graph_row` (the world's text and its rendered story);
- `+ deductive trace, one by one`: `graph_row` and the forward trace of the target's chain
  (`deduction`, the possessor after its last event) read from `solve_kg`, one world a call;
- `+ deductive trace, batched`: the same traces read from `solve_kg_many` over `--chunk`
  worlds at a time;
- `FAMILY, one by one`: `generate_instance` (worlds and abductions solved one at a time)
  and the instance's corpus row (its record and pretraining text as a JSON line);
- `FAMILY, batched`: the same rows from `generate_instances` over `--chunk` requests;
- `corpus (mix)`: the rows `argc kg corpus` writes, in chunks of `--chunk` (`corpus_rows`:
  the families taking turns 140:60:10:10, Table 16).

A row counts as one graph, whatever the attempts its family took. `--one-by-one` keeps the
measurements that use only `generate_graph`, `graph_row`, `solve_kg` and
`generate_instance`, which earlier versions of argc have too (a before/after comparison).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from argc.tasks.kg.families import FAMILIES
from argc.tasks.kg.splits import PLANS, graph_seed

ROOT = Path(__file__).resolve().parent.parent


def requests(split: str, per_cell: int) -> list[tuple[int, int, int]]:
    """(D, T, seed) of the rows measured: `per_cell` graphs of each cell of the split."""
    return [
        (d, t, graph_seed(split, d, t, index))
        for d, t in PLANS[split].cells
        for index in range(per_cell)
    ]


def _graphs(split: str, cells: list, chunk: int) -> None:
    from argc.tasks.kg.generator import generate_graph

    for d, t, seed in cells:
        generate_graph(d, t, seed, split)


def _rendered(split: str, cells: list, chunk: int) -> None:
    from argc.tasks.kg.generator import generate_graph
    from argc.tasks.kg.splits import graph_row

    for d, t, seed in cells:
        graph_row(generate_graph(d, t, seed, split))


def _trace(graph, model) -> str:
    from argc.tasks.kg.solutions import solution_text
    from argc.tasks.kg.traces import deduction

    return solution_text(deduction(model, graph.target, graph.depth, "possessor"))


def _traced(split: str, cells: list, chunk: int) -> None:
    from argc.compiler.kg.solve import solve_kg
    from argc.tasks.kg.generator import generate_graph
    from argc.tasks.kg.splits import graph_row

    for d, t, seed in cells:
        graph = generate_graph(d, t, seed, split)
        graph_row(graph)
        _trace(graph, solve_kg(graph.world))


def _traced_in_batches(split: str, cells: list, chunk: int) -> None:
    from argc.compiler.kg.solve import solve_kg_many
    from argc.tasks.kg.generator import generate_graph
    from argc.tasks.kg.splits import graph_row

    for start in range(0, len(cells), chunk):
        graphs = [generate_graph(d, t, seed, split) for d, t, seed in cells[start : start + chunk]]
        for graph, model in zip(graphs, solve_kg_many([g.world for g in graphs]), strict=True):
            graph_row(graph)
            _trace(graph, model)


def _row(instance) -> str:
    row = {**instance.row(), "text": f"{instance.prompt} {instance.trace}"}
    return json.dumps(row, sort_keys=True)


def _family(family: str) -> Callable[[str, list, int], None]:
    def one_by_one(split: str, cells: list, chunk: int) -> None:
        from argc.tasks.kg.families import generate_instance

        for d, t, seed in cells:
            try:
                _row(generate_instance(family, d, t, seed, split))
            except RuntimeError:  # no instance within the attempts: left out, as a corpus does
                continue

    return one_by_one


def _family_in_batches(family: str) -> Callable[[str, list, int], None]:
    def batched(split: str, cells: list, chunk: int) -> None:
        from argc.tasks.kg.families import Exhausted, generate_instances

        asked = [(family, d, t, seed) for d, t, seed in cells]
        for start in range(0, len(asked), chunk):
            for instance in generate_instances(asked[start : start + chunk], split, chunk):
                if not isinstance(instance, Exhausted):
                    _row(instance)

    return batched


def _corpus(split: str, cells: list, chunk: int) -> None:
    from argc.tasks.kg.splits import corpus_chunks, corpus_rows

    for unit in corpus_chunks(split, len(cells) // len(PLANS[split].cells), size=chunk):
        corpus_rows(unit)


def measurements(one_by_one: bool) -> dict[str, Callable[[str, list, int], None]]:
    """The measurements by name, in the table's order."""
    found: dict[str, Callable[[str, list, int], None]] = {
        "graph": _graphs,
        "graph + rendering": _rendered,
        "+ deductive trace, one by one": _traced,
    }
    if not one_by_one:
        found["+ deductive trace, batched"] = _traced_in_batches
    for family in FAMILIES:
        found[f"{family}, one by one"] = _family(family)
        if not one_by_one:
            found[f"{family}, batched"] = _family_in_batches(family)
    if not one_by_one:
        found["corpus (mix)"] = _corpus
    return found


def _timed(connection, measure, split: str, cells: list, chunk: int) -> None:
    started = time.process_time()
    measure(split, cells, chunk)
    connection.send(time.process_time() - started)
    connection.close()


def cpu_seconds(measure, split: str, cells: list, chunk: int) -> float:
    """The CPU time of one run of a measurement, in a forked process."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_timed, args=(writer, measure, split, cells, chunk))
    process.start()
    writer.close()
    seconds = reader.recv()
    process.join()
    return seconds


def _commit() -> str:
    try:
        found = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return found.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=tuple(PLANS), default="pretrain")
    parser.add_argument("--per-cell", type=int, default=32, help="rows a cell (default: 32)")
    parser.add_argument("--repeats", type=int, default=3, help="runs a measurement (3)")
    parser.add_argument("--chunk", type=int, default=128, help="rows a batch (128)")
    parser.add_argument("--one-by-one", action="store_true", help="unbatched measurements only")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these measurements only")
    parser.add_argument("--out", metavar="FILE.json")
    args = parser.parse_args()
    cells = requests(args.split, args.per_cell)
    chosen = measurements(args.one_by_one)
    if args.only:
        chosen = {name: chosen[name] for name in args.only}
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"argc {_commit()}, Python {platform.python_version()}, {os.cpu_count()} cores,"
        f" load {load}; split {args.split}, {len(cells)} rows a run, {args.repeats} runs,"
        f" chunks of {args.chunk}\n"
    )
    print("| measurement | graphs/s/core (median) | range | ms a graph |")
    print("|---|---|---|---|")
    for measure in chosen.values():  # warm the caches the forked runs inherit (encodings)
        measure(args.split, cells[:: args.per_cell], args.chunk)
    results = {}
    for name, measure in chosen.items():
        rates = [
            len(cells) / cpu_seconds(measure, args.split, cells, args.chunk)
            for _ in range(args.repeats)
        ]
        median = statistics.median(rates)
        results[name] = rates
        print(
            f"| {name} | {median:,.0f} | {min(rates):,.0f}-{max(rates):,.0f} |"
            f" {1000 / median:.2f} |",
            flush=True,
        )
    if args.out:
        record = {"commit": _commit(), "split": args.split, "rows": len(cells), "rates": results}
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
