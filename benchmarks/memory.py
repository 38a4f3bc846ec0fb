"""Memory while generating many instances: one process against replaced worker processes.

    python benchmarks/memory.py [--count 10000] [--in-process 500] [--out memory.json]

clingo keeps every symbol it has seen for the life of a process, so generating in one
process grows without bound. This script generates `--in-process` instances in this process
(every task, levels 1-15 and the four orderings in turn) and reports the resident memory
every 100 instances; then `--count` instances the way long jobs do (`argc.recycling`: one
worker process, replaced every 200 instances), sampling the resident memory of this process
and of its workers twice a second, and reports the peak per 1,000 instances.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

from argc.dsl.ir import ORDERINGS
from argc.recycling import recycled_map
from argc.tasks import REGISTRY, GenerationFailed
from argc.tasks.framework import generate_json


def _rss_mib(pid: int) -> float:
    """Resident memory of a process in MiB (0 when it has ended)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    """Child processes of any thread of `pid` (a pool starts replacement workers from its
    own thread)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def jobs(count: int) -> list[tuple[str, int, object, int]]:
    """Every task, levels 1-15 and the four orderings in turn, seeds 0, 1, 2, ..."""
    tasks = sorted(REGISTRY)
    return [
        (tasks[k % len(tasks)], 1 + k % 15, ORDERINGS[k % 4], k // len(tasks)) for k in range(count)
    ]


def tolerant(job: tuple) -> str:
    """An instance's JSON line, or an empty line when its seed does not generate."""
    try:
        return generate_json(job)
    except GenerationFailed:
        return ""


def in_process(count: int) -> list[dict]:
    """Resident memory of this process every 100 instances generated in it."""
    rows = []
    for index, job in enumerate(jobs(count), start=1):
        tolerant(job)
        if index % 100 == 0:
            rows.append({"instances": index, "rss_mib": round(_rss_mib(os.getpid()), 1)})
            print(f"in process: {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def recycled(count: int) -> list[dict]:
    """Peak resident memory of this process and of its worker per 1,000 instances."""
    done = 0
    peaks: dict[int, dict[str, float]] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.5):
            window = peaks.setdefault(done // 1000, {"caller": 0.0, "worker": 0.0})
            window["caller"] = max(window["caller"], _rss_mib(os.getpid()))
            workers = [_rss_mib(child) for child in _children(os.getpid())]
            window["worker"] = max([window["worker"], *workers])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    for _ in recycled_map(tolerant, jobs(count), chunk=4):
        done += 1
        if done % 500 == 0:
            print(
                f"recycled: {done} instances, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    stop.set()
    sampler.join()
    return [
        {
            "instances": f"{k * 1000 + 1}-{min((k + 1) * 1000, count)}",
            "caller_peak_mib": round(v["caller"], 1),
            "worker_peak_mib": round(v["worker"], 1),
        }
        for k, v in sorted(peaks.items())
        if k * 1000 < count
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--in-process", type=int, default=500)
    parser.add_argument("--out", type=Path)
    options = parser.parse_args(argv)
    results = {"in_process": in_process(options.in_process), "recycled": recycled(options.count)}
    print("| instances (one process) | resident MiB |\n|---|---|")
    for row in results["in_process"]:
        print(f"| {row['instances']} | {row['rss_mib']} |")
    print("\n| instances (replaced workers) | caller peak MiB | worker peak MiB |\n|---|---|---|")
    for row in results["recycled"]:
        print(f"| {row['instances']} | {row['caller_peak_mib']} | {row['worker_peak_mib']} |")
    if options.out:
        options.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
