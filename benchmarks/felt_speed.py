"""The speeds users feel, each beside its goal, measured in one run.

    python benchmarks/felt_speed.py [--worlds 1000] [--out FILE.json]

Runs, one after another on this machine, and prints one Markdown table (goal beside
measurement):

- `argc score` over the 200-answer workloads of `score_cli.py` (best of 3 whole processes,
  start-up included; scores checked equal to one-by-one scoring);
- `argc norms solve --json --jsonl` over `--worlds` generated normative worlds (`argc norms
  generate --set surface`) and `argc kg solve --json --jsonl` over as many KG worlds
  (`argc kg generate --family deductive --depth 4 --complexity 2`), each one process pinned
  to one core, wall and CPU time;
- `argc check FILE` beyond `python -c "import clingo"` (`startup.py`, median over its
  theories);
- batched grounded statuses against PyArg at 20 and 40 directives (`engine_vs_pyarg.py
  --quick --tasks batched`);
- KG instance generation on the RL cells, deductive and abductive, batched
  (`kg_throughput.py --split rl --per-cell 4`).

Every sub-benchmark is the script named, run as its own process; this one collects their
JSON and the commit, the load average and the time of the run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PYTHON = sys.executable
ARGC = [str(Path(PYTHON).with_name("argc"))]


def run(command: list[str]) -> None:
    print("$", " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def benchmark(script: str, *arguments: str, folder: Path) -> dict | list:
    """A sub-benchmark's JSON (its `--out`)."""
    out = folder / f"{script}.json"
    run([PYTHON, str(HERE / f"{script}.py"), *arguments, "--out", str(out)])
    return json.loads(out.read_text())


def on_one_core() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def timed_solve(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process pinned to one core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, preexec_fn=on_one_core)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def worlds_rows(count: int, folder: Path) -> list[tuple[str, str, str, bool]]:
    norms, kg = folder / "norms.jsonl", folder / "kg.jsonl"
    run(
        [*ARGC, "norms", "generate", "--set", "surface", "--families", str(count // 4)]
        + ["--out", str(norms)]
    )
    run(
        [*ARGC, "kg", "generate", "--family", "deductive", "--depth", "4", "--complexity", "2"]
        + ["--count", str(count), "--out", str(kg)]
    )
    rows = []
    for label, command, worlds in (
        ("norms solve", [*ARGC, "norms", "solve", "--json", "--jsonl", str(norms)], norms),
        ("kg solve", [*ARGC, "kg", "solve", "--json", "--jsonl", str(kg)], kg),
    ):
        n = sum(1 for line in worlds.read_text().splitlines() if line.strip())
        wall, cpu = timed_solve(command)
        rows.append(
            (
                f"`argc {label}`: {n:,} worlds in one call, one core",
                "< 60 s",
                f"{wall:.1f} s wall, {cpu:.1f} s CPU",
                wall < 60,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=1000)
    parser.add_argument("--out", type=Path, help="also write the table's rows as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    load = " ".join(f"{value:.1f}" for value in os.getloadavg())
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    rows: list[tuple[str, str, str, bool]] = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for row in benchmark("score_cli", folder=folder):
            rows.append(
                (
                    f"`argc score`, {row['answers']} {row['task']} answers, start-up included",
                    f"≥ {row['goal']:,}/s",
                    f"{row['answers_per_s']:,.0f}/s ({row['seconds']:.2f} s)"
                    + ("" if row["same"] else ", scores differ"),
                    row["answers_per_s"] >= row["goal"] and row["same"],
                )
            )
        rows += worlds_rows(args.worlds, folder)
        startup = benchmark("startup", "--repeats", "11", folder=folder)
        over = sorted(1000 * (row["argc_s"] - row["clingo_s"]) for row in startup)
        median = over[len(over) // 2]
        rows.append(
            (
                '`argc check FILE` beyond `python -c "import clingo"`',
                "≤ 30 ms",
                f"{median:.0f} ms (median of {len(over)} theories)",
                median <= 30,
            )
        )
        engine = benchmark("engine_vs_pyarg", "--quick", "--tasks", "batched", folder=folder)
        for row in engine["batched"]:
            ratio = row["pyarg"]["seconds"] / row["argc batched"]["seconds"]
            goal = {20: 2, 40: 5}.get(row["size"])
            if goal is not None:
                rows.append(
                    (
                        f"batched grounded statuses, {row['size']} directives, {row['ordering']}",
                        f"≥ {goal}× PyArg",
                        f"{ratio:.1f}× ({row['agree']}/{row['theories']} agree)",
                        ratio >= goal and row["agree"] == row["theories"],
                    )
                )
        names = ["deductive, batched", "abductive, batched"]
        kg = benchmark(
            "kg_throughput", "--split", "rl", "--per-cell", "4", "--only", *names, folder=folder
        )
        for name, goal in zip(names, (400, 150), strict=True):
            rates = sorted(kg["rates"][name])
            rows.append(
                (
                    f"KG generation, RL cells, {name}",
                    f"≥ {goal}/s/core",
                    f"{rates[len(rates) // 2]:,.0f}/s/core",
                    rates[len(rates) // 2] >= goal,
                )
            )
    minutes = (time.perf_counter() - started) / 60
    print(
        f"argc {commit}, Python {platform.python_version()}, {os.cpu_count()} cores, load"
        f" average at the start {load}; {minutes:.1f} min\n"
    )
    print("| measure | goal | measured | met |")
    print("|---|---|---|---|")
    for measure, goal, measured, met in rows:
        print(f"| {measure} | {goal} | {measured} | {'yes' if met else 'no'} |")
    if args.out:
        keys = ("measure", "goal", "measured", "met")
        args.out.write_text(json.dumps([dict(zip(keys, row, strict=True)) for row in rows]))


if __name__ == "__main__":
    main()
