"""A loopback load test of `argc serve`: latency, errors and memory under concurrent requests.

    python benchmarks/serve_load.py [--requests N] [--concurrency C] [--workers W]
                                    [--hostile-every K] [--out FILE.json]

Starts `argc serve` on a free loopback port with W worker processes and sends N requests, C
at a time: /api/check of the example theories in turn, /api/score of a small batch every
fifth request, and every K-th request (0: none) a hostile one (a rebut storm that runs into
the attack limit), which must never stall the others. It prints the requests per second,
the median and 99th-percentile latency of each kind, the count of answers that were not
what each request should get (errors), and the resident memory of the server and all its
child processes, sampled every second (first, largest, last), so that growth shows. A
progress bar counts the answers; the figures are written to `--out` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import httpx
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def tree_rss_mib(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MiB (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        stack += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def requests_plan(count: int, hostile_every: int) -> list[tuple[str, str, dict, int]]:
    """(kind, path, body, expected status) of each request."""
    from test_limits import rebut_storm

    from argc.dsl.ir import Ordering
    from argc.tasks import generate

    theories = [path.read_text("utf-8") for path in sorted((ROOT / "examples").glob("*.arg"))]
    instance = generate("status_query", 2, Ordering(), 0)
    record = json.loads(instance.to_json())
    score = {
        "instances": [record],
        "predictions": [{"id": instance.id, "response": f"<answer>{instance.reference}</answer>"}],
    }
    plan = []
    for index in range(count):
        if hostile_every and index % hostile_every == hostile_every - 1:
            plan.append(("hostile", "/api/check", {"text": rebut_storm(11)}, 422))
        elif index % 5 == 4:
            plan.append(("score", "/api/score", score, 200))
        else:
            plan.append(("check", "/api/check", {"text": theories[index % len(theories)]}, 200))
    return plan


async def fire(url: str, plan, concurrency: int) -> list[tuple[str, float, bool]]:
    results: list[tuple[str, float, bool]] = []
    queue: asyncio.Queue = asyncio.Queue()
    for item in plan:
        queue.put_nowait(item)
    bar = tqdm(total=len(plan), desc="requests")
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:

        async def worker() -> None:
            while not queue.empty():
                kind, path, body, status = queue.get_nowait()
                started = time.perf_counter()
                try:
                    reply = await client.post(path, json=body)
                    ok = reply.status_code == status
                except httpx.HTTPError:
                    ok = False
                results.append((kind, time.perf_counter() - started, ok))
                bar.update()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    bar.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--hostile-every", type=int, default=500)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from argc.serve import running

    with running("--workers", str(args.workers)) as (url, server):
        memory = [tree_rss_mib(server.pid)]
        sampling = True

        async def sample() -> None:
            while sampling:
                await asyncio.sleep(1)
                memory.append(tree_rss_mib(server.pid))

        async def run() -> list:
            nonlocal sampling
            sampler = asyncio.create_task(sample())
            started = time.perf_counter()
            found = await fire(
                url, requests_plan(args.requests, args.hostile_every), args.concurrency
            )
            sampling = False
            await sampler
            return [found, time.perf_counter() - started]

        results, seconds = asyncio.run(run())
    summary = {
        "requests": len(results),
        "concurrency": args.concurrency,
        "workers": args.workers,
        "seconds": round(seconds, 1),
        "requests_per_s": round(len(results) / seconds, 1),
        "errors": sum(not ok for _, _, ok in results),
        "rss_mib": {
            "first": round(memory[0]),
            "max": round(max(memory)),
            "last": round(memory[-1]),
        },
        "latency_ms": {},
    }
    for kind in sorted({kind for kind, _, _ in results}):
        times = sorted(1000 * t for k, t, _ in results if k == kind)
        summary["latency_ms"][kind] = {
            "n": len(times),
            "p50": round(statistics.median(times), 1),
            "p99": round(times[min(len(times) - 1, int(0.99 * len(times)))], 1),
        }
    print(json.dumps(summary, indent=2))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0 if summary["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
