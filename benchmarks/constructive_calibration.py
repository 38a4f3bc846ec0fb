"""Calibration of the constructive tasks against ArgGYM: scale, minima, the matched pair and
ordering activity at the frozen benchmark's coordinates, without building the benchmark.

For each task, level, ordering and the benchmark's first seeds it generates the instance and
reports the median directives per level against the released sample's rows (argc's instance
of the row's level and ordering, seed 0), the verified minima per level, the matched pair's
minima and gaps (§A.3), and Appendix D.4's switches: the rows whose grounded status map (of
every claim, and of the goal claims) changes with the other link principle, and the last-link
rows whose defeat relation changes with the other set comparison; and the rows whose witness
still reaches the goals under the other principle.

    python benchmarks/constructive_calibration.py [--tasks T ...] [--workers N]
        [--sample PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from argc.bench.build import BENCHMARK_SEED_BASE, INSTANCES_PER_CELL
from argc.bench.diagnose import other, switched
from argc.compiler import solve
from argc.dsl.ir import ORDERINGS, PRINCIPLES, Literal, Ordering
from argc.dsl.parser import parse_intervention
from argc.tasks import generate
from argc.tasks.framework import GENERATION_LIMITS, LEVELS

TASKS = (
    "attack",
    "defence",
    "attack_defense",
    "counter_argument",
    "counter_argument_strict",
    "preference_construction",
)
DIRECTIVE = re.compile(r"^\[(axiom|premise|defeasible|strict|prefer_rule|prefer_premise)\b", re.M)
SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "arggym-released" / "sample.jsonl"


def row(job: tuple[str, int, int, int]) -> dict[str, Any]:
    """One instance's figures: directives, minima and the two switches."""
    task, level, index, seed = job
    ordering = ORDERINGS[index]
    instance = generate(task, level, ordering, seed)
    theory, target = instance.parsed_theory, instance.target
    own, principle, comparison = switched(theory, ordering)
    goals = {Literal.parse(claim): status for claim, status in target["goals"].items()}
    witnessed = solve(
        theory.apply(parse_intervention("\n".join(target["witness"]))),
        ordering=replace(ordering, principle=other(ordering.principle, PRINCIPLES)),
        limits=GENERATION_LIMITS,
    )
    return {
        "task": task,
        "level": level,
        "principle": ordering.principle,
        "seed": seed,
        "directives": len(DIRECTIVE.findall(instance.theory)),
        "minimum": target["min_directives"],
        "paired": target.get("paired_min_directives"),
        "status_switch": any(
            own.status(claim) != principle.status(claim) for claim in theory.claims()
        ),
        "goal_switch": any(own.status(claim) != principle.status(claim) for claim in goals),
        "set_switch": set(own.defeats) != set(comparison.defeats),
        "witness_transfers": witnessed.consistent
        and all(witnessed.status(claim) == status for claim, status in goals.items()),
    }


def released(path: Path, tasks: tuple[str, ...]) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["task"] in tasks]


def ordering_of(name: str) -> Ordering:
    """`last_link_democratic` → last-link democratic."""
    principle, comparison = name.split("_link_")
    return Ordering(f"{principle}-link", comparison)


def sample_lines(task: str, rows: list[dict[str, Any]]) -> list[str]:
    """argc's instance (seed 0) beside each released row: directives and minimum."""
    cells, ratios = [], []
    for r in sorted((r for r in rows if r["task"] == task), key=lambda r: r["level"]):
        instance = generate(task, r["level"], ordering_of(r["ordering"]), 0)
        theirs, ours = (
            len(DIRECTIVE.findall(r["question"])),
            len(DIRECTIVE.findall(instance.theory)),
        )
        ratios.append(ours / theirs)
        minima = f"{r['gold']['min_directives']}/{instance.target['min_directives']}"
        cells.append(f"L{r['level']} {theirs}/{ours} (min {minima})")
    if not cells:
        return []
    return [f"released/argc: {'; '.join(cells)}; median ratio {statistics.median(ratios):.2f}"]


def report(task: str, rows: list[dict[str, Any]], sample: list[dict[str, Any]]) -> list[str]:
    mine = [r for r in rows if r["task"] == task]
    last = [r for r in mine if r["principle"] == "last-link"]
    lines = [f"## {task}", "", *sample_lines(task, sample)]
    by_level = defaultdict(list)
    for r in mine:
        by_level[r["level"]].append(r)
    for level in sorted(by_level):
        cell = by_level[level]
        minima = dict(sorted(Counter(r["minimum"] for r in cell).items()))
        median = statistics.median(r["directives"] for r in cell)
        lines.append(f"- L{level}: {median:g} directives (median), minima {minima}")
    lines += [
        f"minima: {dict(sorted(Counter(r['minimum'] for r in mine).items()))}",
        f"principle switch: status map {sum(r['status_switch'] for r in mine)}/{len(mine)},"
        f" goal claims {sum(r['goal_switch'] for r in mine)}/{len(mine)}",
        f"set switch under last-link: {sum(r['set_switch'] for r in last)}/{len(last)}",
        f"witness still succeeds under the other principle:"
        f" {sum(r['witness_transfers'] for r in mine)}/{len(mine)}",
    ]
    if task == "counter_argument":
        gaps = Counter(r["minimum"] - r["paired"] for r in mine)
        strict = Counter(r["paired"] for r in mine)
        lines.append(
            f"pair: strict {dict(sorted(strict.items()))}, gap {dict(sorted(gaps.items()))}"
        )
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sample", type=Path, default=SAMPLE)
    args = parser.parse_args()
    seeds = range(BENCHMARK_SEED_BASE, BENCHMARK_SEED_BASE + INSTANCES_PER_CELL)
    jobs = [
        (task, level, index, seed)
        for task in args.tasks
        for level in LEVELS
        for index in range(len(ORDERINGS))
        for seed in seeds
    ]
    with Pool(args.workers) as pool:
        rows = pool.map(row, jobs)
    sample = released(args.sample, tuple(args.tasks))
    for task in args.tasks:
        print("\n".join(report(task, rows, sample)))


if __name__ == "__main__":
    main()
