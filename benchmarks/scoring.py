"""Constructive verifications per second per core: scoring GRPO groups of answers to the
intervention tasks (the scorer executes each answer: it solves the theory the answer makes).

    python benchmarks/scoring.py [--group 8] [--levels 2 6 10 14] [--seed 0] [--repeats 3]

For every constructive task, instances at several levels under the four orderings, each with
a group of G answers: either G copies of the reference answer (what a trained policy writes)
or G realistic wrong or partial answers drawn from seven (the reference with a line dropped,
one line too many, the lines of another instance, an unreadable line, the reference itself).
Identical answers to an instance are scored once: the "distinct" column counts the different
answers of each row. Four ways of scoring them are timed in one run:

- one by one: `argc.tasks.score(instance, response)` per answer, in this process;
- grouped: `argc.tasks.score_group(instance, responses)` per group, in this process;
- pooled: `argc.tasks.score_groups(groups)`, every group of the task in one call (a GRPO batch
  of several prompts), in this process;
- isolated: `IsolatedScorer(workers=1).score_many(pairs)`, i.e. the rewards' path: the groups
  sent to one worker process (one core, with its memory cap and deadline) several per request,
  once the worker has started and scored one answer under each ordering (its set-up, paid
  once per worker, which is replaced once it holds half its memory cap, is reported apart:
  "set-up ms", the wall time of starting it and of those first answers).

In-process rates are answers per CPU second of this process; the isolated rate is answers per
wall second of its single worker (the caller only waits); each is the best of `--repeats`
runs, since this machine's speed drifts between runs. Scores are checked to be equal across
the four ways.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from argc.dsl.ir import ORDERINGS
from argc.tasks import Instance, generate, score, score_group, score_groups
from argc.tasks.isolation import IsolatedScorer

CONSTRUCTIVE = ("counter_argument", "preference_construction", "defence", "attack")
LEVELS = (2, 6, 10, 14)


def wrong_answers(instance: Instance, other: Instance, group: int, rng: random.Random) -> list[str]:
    """`group` realistic wrong or partial answers to an instance (and its reference once)."""
    lines = instance.reference.splitlines()
    pool = [
        instance.reference,
        "\n".join(lines[:-1]) or lines[0],
        "\n".join([*lines, other.reference.splitlines()[0]]),
        other.reference,
        "\n".join(reversed(lines)),
        "\n".join([*lines[:-1], "[defeasible rx: nothing => something]"]),
        "\n".join([*lines[1:], "this is not a directive"]),
    ]
    return [f"<answer>{rng.choice(pool)}</answer>" for _ in range(group)]


def groups_for(
    task: str, levels: tuple[int, ...], group: int, seed: int
) -> dict[str, list[tuple[Instance, list[str]]]]:
    """Reference groups and wrong-answer groups for a task."""
    rng = random.Random(f"{task}-{seed}")
    instances = [
        generate(task, level, ordering, seed) for level in levels for ordering in ORDERINGS
    ]
    references = [(i, [f"<answer>{i.reference}</answer>"] * group) for i in instances]
    wrong = [
        (i, wrong_answers(i, instances[(k + 1) % len(instances)], group, rng))
        for k, i in enumerate(instances)
    ]
    return {"references": references, "wrong answers": wrong}


def _best(work: Callable[[], list], repeats: int, clock: Callable[[], float]) -> tuple[float, list]:
    """The shortest of `repeats` runs of `work` on `clock`, and what the last one returned."""
    times = []
    for _ in range(repeats):
        started = clock()
        found = work()
        times.append(clock() - started)
    return min(times), found


def measure(groups: list[tuple[Instance, list[str]]], repeats: int = 3) -> dict[str, float]:
    """Answers per second per core, one by one, grouped, pooled and isolated (the best of
    `repeats` runs of each)."""
    answers = sum(len(responses) for _, responses in groups)
    cpu = time.process_time
    one, single = _best(lambda: [score(i, r) for i, rs in groups for r in rs], repeats, cpu)
    grouped, together = _best(
        lambda: [s for i, rs in groups for s in score_group(i, rs)], repeats, cpu
    )
    pooled, batch = _best(
        lambda: [s for found in score_groups(groups) for s in found], repeats, cpu
    )
    pairs = [(i, r) for i, responses in groups for r in responses]
    first = {instance.strength: (instance, responses[0]) for instance, responses in groups}
    with IsolatedScorer(workers=1) as pool:
        started = time.perf_counter()
        for pair in first.values():  # the worker's set-up: start, then each ordering once
            pool.score(*pair)
        setup = time.perf_counter() - started
        wall, isolated = _best(lambda: pool.score_many(pairs), repeats, time.perf_counter)
    if not single == together == batch == isolated:
        raise AssertionError("the ways of scoring disagree")
    return {
        "n": answers,
        "distinct": sum(len(set(responses)) for _, responses in groups),
        "one by one": answers / one,
        "grouped": answers / grouped,
        "pooled": answers / pooled,
        "isolated": answers / wall,
        "set-up": setup,
        "success": sum(s.success for s in single) / answers,
    }


def scoring_rows(
    tasks: tuple[str, ...] = CONSTRUCTIVE,
    levels: tuple[int, ...] = LEVELS,
    group: int = 8,
    seed: int = 0,
    repeats: int = 3,
) -> list[dict]:
    """One row per task and kind of answers."""
    rows = []
    for task in tasks:
        for kind, groups in groups_for(task, levels, group, seed).items():
            print(f"scoring: {task}, {kind}", file=sys.stderr, flush=True)
            rows.append({"task": task, "kind": kind, **measure(groups, repeats)})
    return rows


def scoring_table(rows: list[dict]) -> str:
    """Answers per second per core, as a Markdown table."""
    ways = ("one by one", "grouped", "pooled", "isolated")
    header = [
        "task",
        "answers",
        "n",
        "distinct",
        "success",
        *(f"{way} /s" for way in ways),
        "set-up ms",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row["task"], row["kind"], str(row["n"]), str(row["distinct"])]
        cells.append(f"{row['success']:.0%}")
        cells += [f"{row[way]:.0f}" for way in ways] + [f"{row['set-up'] * 1000:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", type=int, default=8, help="answers per group (default 8)")
    parser.add_argument("--levels", type=int, nargs="+", default=list(LEVELS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each way (the best)")
    options = parser.parse_args(argv)
    rows = scoring_rows(
        levels=tuple(options.levels),
        group=options.group,
        seed=options.seed,
        repeats=options.repeats,
    )
    print(scoring_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
