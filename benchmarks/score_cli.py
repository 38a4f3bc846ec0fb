"""Answers per second through `argc score`, start-up included: whole processes, as a user runs it.

    python benchmarks/score_cli.py [--repeats 3] [--copies 10] [--workers N] [--out FILE.json]

The workloads: 20 instances of a task (level 8, last-link elitist, seeds 0-19), each copied
under `--copies` ids, every copy answered with one of five answers in turn: the reference,
the reference less its first line, less its last line, with its last line repeated, and its
lines reversed (200 answers with 10 copies). Tasks: counter_argument (constructive: the scorer
solves the theory each answer makes) and status_query and defeat_diagnosis (analysis: the
answer is compared with the gold). Each workload runs `argc score INSTANCES PREDICTIONS --out
RESULTS` `--repeats` times as a whole process (the console script beside this interpreter,
its modules' bytecode and argc's per-user cache kept in a temporary folder and written by an
untimed first run, as an installed argc has them: `startup.process_environment`); the best
run's answers per second are printed beside the goal (300/s constructive, 1,000/s
analysis), and the results are checked equal to scoring each answer alone in this process
(`argc.tasks.score`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import process_environment  # noqa: E402

from argc.dsl.ir import ORDERINGS  # noqa: E402
from argc.tasks import generate, score  # noqa: E402

#: Each task's goal in answers per second, start-up included.
GOALS = {"counter_argument": 300, "status_query": 1000, "defeat_diagnosis": 1000}
INSTANCES, LEVEL = 20, 8


def answers(reference: str) -> list[str]:
    """The five answers each instance's copies take in turn."""
    lines = reference.splitlines()
    return [
        reference,
        "\n".join(lines[1:]) or lines[0],
        "\n".join(lines[:-1]) or lines[0],
        "\n".join([*lines, lines[-1]]),
        "\n".join(reversed(lines)),
    ]


def workload(task: str, copies: int, folder: Path) -> tuple[Path, Path, list[tuple]]:
    """The instances and predictions files of a task's workload, and its (instance,
    response) pairs."""
    instances, predictions, pairs = [], [], []
    for seed in range(INSTANCES):
        instance = generate(task, LEVEL, ORDERINGS[0], seed)
        record = instance.record()
        variants = answers(instance.reference)
        for copy in range(copies):
            identifier = f"{instance.id}-{copy}"
            response = f"<answer>{variants[copy % len(variants)]}</answer>"
            instances.append(json.dumps({**record, "id": identifier}))
            predictions.append(json.dumps({"id": identifier, "response": response}))
            pairs.append((identifier, instance, response))
    instances_path, predictions_path = folder / f"{task}.jsonl", folder / f"{task}-pred.jsonl"
    instances_path.write_text("\n".join(instances) + "\n")
    predictions_path.write_text("\n".join(predictions) + "\n")
    return instances_path, predictions_path, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--workers", type=int, help="argc score --workers (default: its own)")
    parser.add_argument("--tasks", nargs="+", default=list(GOALS), choices=list(GOALS))
    parser.add_argument("--out", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    argc = Path(sys.executable).with_name("argc")
    command = [str(argc)] if argc.exists() else [sys.executable, "-m", "argc.cli"]
    command_tail = ["--workers", str(args.workers)] if args.workers else []
    rows = []
    print("| task | answers | best s | answers/s | goal | scores as one by one |")
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = process_environment(folder, bytecode=True)
        for task in args.tasks:
            instances, predictions, pairs = workload(task, args.copies, folder)
            results = folder / f"{task}-results.jsonl"
            run = [*command, "score", str(instances), str(predictions), "--out", str(results)]
            best = float("inf")
            for repeat in range(args.repeats + 1):  # the first writes the bytecode, untimed
                started = time.perf_counter()
                subprocess.run(run + command_tail, check=True, capture_output=True, env=env)
                if repeat:
                    best = min(best, time.perf_counter() - started)
            found = {
                row["id"]: (row["native"], row["success"], row["reason"])
                for row in map(json.loads, results.read_text().splitlines())
            }
            alone = {
                identifier: (round(result.native, 6), result.success, result.reason)
                for identifier, result in (
                    (identifier, score(instance, response))
                    for identifier, instance, response in pairs
                )
            }
            same = found == alone
            rate = len(pairs) / best
            rows.append(
                {
                    "task": task,
                    "answers": len(pairs),
                    "seconds": round(best, 3),
                    "answers_per_s": round(rate, 1),
                    "goal": GOALS[task],
                    "same": same,
                }
            )
            print(
                f"| {task} | {len(pairs)} | {best:.3f} | {rate:,.0f} | {GOALS[task]:,} | {same} |"
            )
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    if not all(row["same"] for row in rows):
        sys.exit("batched scores differ from one-by-one scores")


if __name__ == "__main__":
    main()
