"""Time argc against PyArg 2.0.2 on the same ArgGYM-like theories, in one run.

    python benchmarks/engine_vs_pyarg.py [--quick] [--sizes N ...] [--repeats N]
                                         [--timeout S] [--out FILE.json]

Seven tasks (`--tasks`), each printed as a Markdown table on stdout (progress goes to stderr):

1. grounded claim statuses under each of the four orderings: argc (`solve(...)`, then
   `.statuses`) against PyArg (theory, arguments, defeats, grounded extension and claim
   statuses through `tests/oracle.py`), with the median wall time over several theories per
   size, the number of arguments and the ratio PyArg/argc;
2. preferred extensions under last-link elitist: argc (`semantics="preferred"`) against
   PyArg's `get_preferred_extensions`, on small theories, then argc alone on larger ones;
3. the largest size (number of directives) whose grounded statuses argc computes within 1 s
   (median over the theories of a size), found by doubling and then bisecting;
4. batched: grounded statuses of 32 theories per size with `solve_many` (one clingo program
   per batch), one at a time with `solve`, and with PyArg, each in a fresh process;
5. deep: chains and trees of up to 3,000 rules (`deep.py`);
6. startup: `argc check FILE` against an equivalent PyArg script, both as whole processes,
   alternating (`startup.py`);
7. scoring: constructive verifications per second per core on GRPO-like groups of
   references and of wrong answers, one by one, grouped, pooled (several groups at once) and
   in a scoring worker (`scoring.py`).

Every measurement, argc's and PyArg's, runs in a forked subprocess (clingo interns symbols
for the life of a process, so a large theory would slow down every later argc call made in
the same process). PyArg is killed at a per-call timeout and, once it times out at a size,
is not tried at larger sizes; argc is bounded by `Limits(seconds=timeout)`. Each theory is
timed up to `--repeats` times (stopping early once its runs add up to more than a second) and
the median of its runs is taken; a table shows the median of those over the theories of a
size. argc's and PyArg's answers are compared on every theory both finished; a disagreement
is reported on stderr and counted in the table.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import multiprocessing
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from multiprocessing.connection import Connection
from pathlib import Path

import clingo

from argc.compiler import LimitExceeded, Limits, solve, solve_many
from argc.dsl.ir import (
    Axiom,
    Literal,
    Ordering,
    Premise,
    PremisePreference,
    Rule,
    RulePreference,
    Theory,
)
from argc.files import write_output

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from oracle import oracle  # noqa: E402  (the PyArg reference, from the test helpers)

try:
    from tqdm import tqdm
except ImportError:  # progress falls back to plain lines on stderr
    tqdm = None

ORDERINGS = (
    Ordering("last-link", "elitist"),
    Ordering("last-link", "democratic"),
    Ordering("weakest-link", "elitist"),
    Ordering("weakest-link", "democratic"),
)

FULL = {
    "sizes": [30, 50, 100, 150, 200, 300, 400],
    "preferred_sizes": [10, 15, 20, 25, 30, 35, 40, 50, 100, 150, 200, 300],
    "theories": 5,
    "repeats": 3,
    "timeout": 60.0,
    "scan_orderings": ORDERINGS,
    "scan_repeats": 3,
    "scan_resolution": 0.05,
}
QUICK = {
    "sizes": [30, 50, 100, 150],
    "preferred_sizes": [10, 15, 20, 25, 50, 100],
    "theories": 3,
    "repeats": 3,
    "timeout": 20.0,
    "scan_orderings": ORDERINGS[:1],
    "scan_repeats": 1,
    "scan_resolution": 0.1,
}

#: Stop repeating a measurement once its runs add up to this many seconds.
REPEAT_BUDGET = 1.0
#: Task 3's bound on argc's median time for grounded statuses, in seconds.
TARGET_SECONDS = 1.0
#: Task 3 stops a call after this many times the bound (it then counts as too slow).
SCAN_TIMEOUT_FACTOR = 5


# Theories ------------------------------------------------------------------------------------


def arggym_theory(size: int, index: int) -> Theory:
    """An ArgGYM-like theory with `size` directives (a few fewer for tiny sizes).

    Premises (a fifth of them contradicting another premise) and a few axioms, then layered
    chains of defeasible rules of depth 4 to 6 whose heads are fresh literals, rebut an earlier
    conclusion or undermine a premise; strict rules; undercutters; the rest of the directives
    are rule and premise preferences, half of them between conflicting rules or premises, all
    consistent with a random rank (no preference cycles). Deterministic per (size, index).
    """
    rng = random.Random(size * 1_000 + index)
    depth = 4 if size <= 50 else 5 if size <= 150 else 6
    fresh = (f"p{number}" for number in range(10**9))
    level: dict[Literal, int] = {}
    by_level: list[list[Literal]] = [[] for _ in range(depth + 1)]

    def new_literal() -> Literal:
        return Literal(next(fresh), negated=rng.random() < 0.3)

    axioms = [new_literal() for _ in range(max(1, round(0.04 * size)))]
    premises: list[Literal] = []
    for _ in range(max(2, round(0.20 * size))):
        literal = new_literal()
        if premises and rng.random() < 0.2:
            literal = rng.choice(premises).complement
        if literal not in premises and literal not in axioms:
            premises.append(literal)
    for literal in axioms + premises:
        level[literal] = 0
        by_level[0].append(literal)
    firm = {literal.atom for literal in axioms}

    def body_for(top: int) -> tuple[Literal, ...]:
        """A literal from the layer below `top` (the chain), sometimes one from further down."""
        chain = rng.choice(next(found for found in reversed(by_level[:top]) if found))
        other = rng.choice(by_level[rng.randrange(top)] or by_level[0])
        return (chain, other) if rng.random() < 0.3 and other != chain else (chain,)

    rules: list[Rule] = []
    signatures: set[tuple[frozenset[Literal], Literal]] = set()

    def add(name: str, body: tuple[Literal, ...], head: Literal, strict: bool) -> None:
        if head.atom in firm or {head, head.complement} & set(body):
            return
        if (frozenset(body), head) in signatures:
            return
        signatures.add((frozenset(body), head))
        rules.append(Rule(name, body, head, strict=strict))
        if head not in level:
            level[head] = min(max(level[literal] for literal in body) + 1, depth)
            by_level[level[head]].append(head)

    defeasible_count = max(2, round(0.36 * size))
    for number in range(defeasible_count):
        top = 1 + number * depth // defeasible_count
        derived = [rule.head for rule in rules if level[rule.head] >= top - 1]
        roll = rng.random()
        if roll < 0.25 and derived:
            head = rng.choice(derived).complement  # rebuts an earlier conclusion
        elif roll < 0.35:
            head = rng.choice(premises).complement  # undermines a premise
        else:
            head = new_literal()
        add(f"d{number}", body_for(top), head, strict=False)
    for number in range(max(1, round(0.07 * size))):
        conclusions = [rule.head for rule in rules if not rule.strict]
        if rng.random() < 0.3 and conclusions:
            head = rng.choice(conclusions).complement
        else:
            head = new_literal()
        add(f"s{number}", body_for(rng.randrange(1, depth + 1)), head, strict=True)
    targets = [rule.name for rule in rules if not rule.strict]
    undercut = rng.sample(targets, min(max(1, round(0.05 * size)), len(targets)))
    for number, target in enumerate(undercut):
        add(f"u{number}", body_for(rng.randrange(1, depth + 1)), Literal(target, True), False)

    defeasible = [rule for rule in rules if not rule.strict]
    remaining = max(0, size - len(axioms) - len(premises) - len(rules))
    concluding: dict[Literal, list[str]] = {}
    for rule in defeasible:
        concluding.setdefault(rule.head, []).append(rule.name)
    rule_conflicts = [
        (rule.name, rival)
        for rule in defeasible
        for rival in concluding.get(rule.head.complement, [])
    ]
    rule_conflicts += [
        (rule.name, rule.head.atom) for rule in defeasible if rule.name.startswith("u")
    ]
    rule_pairs = _ranked_pairs(
        rng, [rule.name for rule in defeasible], rule_conflicts, remaining - remaining // 3
    )
    premise_conflicts = [(p, p.complement) for p in premises if p.complement in premises]
    premise_pairs = _ranked_pairs(rng, premises, premise_conflicts, remaining - len(rule_pairs))
    return Theory.from_directives(
        [
            *(Axiom(literal) for literal in axioms),
            *(Premise(literal) for literal in premises),
            *rules,
            *(RulePreference(stronger, weaker) for stronger, weaker in rule_pairs),
            *(PremisePreference(stronger, weaker) for stronger, weaker in premise_pairs),
        ]
    )


def _ranked_pairs(rng: random.Random, items: list, conflicts: list, wanted: int) -> list:
    """Up to `wanted` distinct (stronger, weaker) pairs, half of them drawn from `conflicts`,
    oriented by a random rank so that the preferences never form a cycle."""
    rank = {item: rng.random() for item in items}
    wanted = min(wanted, len(items) * (len(items) - 1) // 2)
    pairs: list = []
    seen: set[frozenset] = set()
    for _ in range(50 * max(wanted, 1)):
        if len(pairs) >= wanted:
            break
        if conflicts and rng.random() < 0.5:
            a, b = rng.choice(conflicts)
        else:
            a, b = rng.sample(items, 2)
        if frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            pairs.append((a, b) if rank[a] > rank[b] else (b, a))
    return pairs


class Theories:
    """The benchmark's theories, generated once per (size, index)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.cache: dict[tuple[int, int], Theory] = {}

    def of_size(self, size: int) -> list[Theory]:
        for index in range(self.count):
            if (size, index) not in self.cache:
                self.cache[size, index] = arggym_theory(size, index)
        return [self.cache[size, index] for index in range(self.count)]


def directive_count(theory: Theory) -> int:
    return len(list(theory.directives()))


# Measuring -----------------------------------------------------------------------------------


@dataclass
class Run:
    """One engine on one theory: medians of its timed runs (seconds None: it did not finish)."""

    seconds: float | None
    runs: list[float] = field(default_factory=list)
    cpu_seconds: float | None = None
    answer: object = None
    arguments: int | None = None
    ground_seconds: float | None = None
    note: str = ""


def _answer(task: str, solution) -> object:
    if task == "grounded":
        claims = solution.theory.claims()
        return {str(claim): solution.status(claim) for claim in claims}
    return {frozenset(extension) for extension in solution.extensions}


def _run_argc(theory: Theory, ordering: Ordering, task: str, timeout: float) -> dict:
    """One timed argc call: `solve(...)`, then reading its statuses or extensions."""
    limits = Limits(seconds=timeout, arguments=10**6, extensions=10**5)
    start, cpu = time.perf_counter(), time.process_time()
    solution = solve(theory, ordering=ordering, semantics=task, limits=limits)
    result = solution.statuses if task == "grounded" else solution.extensions
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert result is not None
    return {
        "seconds": elapsed,
        "cpu": cpu,
        "solution": solution,
        "arguments": len(solution.arguments),
        "ground": solution.timings["ground"],
    }


def _run_pyarg(theory: Theory, ordering: Ordering, task: str) -> dict:
    """One timed PyArg call: theory, arguments, defeats, then statuses or extensions."""
    start, cpu = time.perf_counter(), time.process_time()
    result = oracle(theory, ordering)
    if task == "grounded":
        answer = result.statuses(list(theory.claims()))
    else:
        answer = result.extensions("preferred")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": elapsed, "cpu": cpu, "answer": answer, "arguments": len(result.arguments)}


def _child(
    engine: str,
    theory: Theory,
    ordering: Ordering,
    task: str,
    repeats: int,
    timeout: float,
    pipe: Connection,
) -> None:
    """In the subprocess: send ("run", measurement) per run, ("failed", reason) if the engine
    gives up, and ("end",) when done. Only the first run's answer is sent."""
    total = 0.0
    for repeat in range(repeats):
        gc.collect()
        try:
            if engine == "argc":
                found = _run_argc(theory, ordering, task, timeout)
                solution = found.pop("solution")
                found["answer"] = _answer(task, solution) if repeat == 0 else None
            else:
                found = _run_pyarg(theory, ordering, task)
                found["answer"] = found["answer"] if repeat == 0 else None
        except LimitExceeded as error:
            pipe.send(("failed", str(error)))
            break
        pipe.send(("run", found))
        total += found["seconds"]
        if total > REPEAT_BUDGET:
            break
    pipe.send(("end",))


def measure(
    engine: str, theory: Theory, ordering: Ordering, task: str, repeats: int, timeout: float
) -> Run:
    """An engine's wall time on a theory, in a forked subprocess.

    Each call may take up to `timeout` seconds (argc gets a little more, since its own limit
    stops it). A fresh process for every measurement keeps one theory from slowing the next:
    clingo interns every symbol for the life of a process.
    """
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_child, args=(engine, theory, ordering, task, repeats, timeout, sender), daemon=True
    )
    process.start()
    sender.close()
    wait = timeout + 10.0 if engine == "argc" else timeout
    runs: list[dict] = []
    note = ""
    try:
        while True:
            if not receiver.poll(wait):
                note = f"> {timeout:g} s"
                break
            message = receiver.recv()
            if message[0] == "end":
                break
            if message[0] == "failed":
                note = message[1]
            else:
                runs.append(message[1])
    except EOFError:  # the subprocess died (e.g. out of memory)
        note = note or "the subprocess died"
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if not runs:
        return Run(None, note=note or "failed")
    grounds = [run["ground"] for run in runs if run.get("ground") is not None]
    return Run(
        statistics.median(run["seconds"] for run in runs),
        [run["seconds"] for run in runs],
        statistics.median(run["cpu"] for run in runs),
        runs[0]["answer"],
        runs[0]["arguments"],
        statistics.median(grounds) if grounds else None,
        note,
    )


# Batches -------------------------------------------------------------------------------------

#: Theories per size in the batched comparison, and its sizes (ArgGYM's are 20-40 directives).
BATCH_THEORIES = 32
BATCH_SIZES = [20, 30, 40, 100]


def _statuses_of(theories: list[Theory], ordering: Ordering, engine: str) -> list[dict]:
    """Grounded claim statuses of every theory: argc batched, argc one theory at a time, or
    PyArg."""
    limits = Limits(seconds=60, arguments=10**6)
    if engine == "argc batched":
        solutions = solve_many(theories, ordering=ordering, limits=limits)
    elif engine == "argc":
        solutions = [solve(theory, ordering=ordering, limits=limits) for theory in theories]
    else:
        found = [oracle(theory, ordering) for theory in theories]
        return [
            result.statuses(list(t.claims())) for t, result in zip(theories, found, strict=True)
        ]
    return [_answer("grounded", solution) for solution in solutions]


def _timed_child(engine: str, theories: list[Theory], ordering: Ordering, pipe) -> None:
    # warm: encodings parsed (tagged, for a batch) and modules loaded
    _statuses_of([arggym_theory(20, 99), arggym_theory(20, 98)], ordering, engine)
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    answers = _statuses_of(theories, ordering, engine)
    pipe.send((time.perf_counter() - start, time.process_time() - cpu, answers))


def timed_in_child(engine: str, theories: list[Theory], ordering: Ordering) -> tuple:
    """(wall, cpu, answers) of one engine on all the theories, in a forked process."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_timed_child, args=(engine, theories, ordering, sender))
    process.start()
    sender.close()
    try:
        return receiver.recv()
    finally:
        process.join()
        receiver.close()


def batched_rows(sizes: list[int], count: int, orderings: tuple[Ordering, ...]) -> list[dict]:
    """Per-theory mean times of `count` theories per size: argc batched (`solve_many`), argc
    one at a time and PyArg, each in a fresh process, statuses compared."""
    rows = []
    for ordering in orderings:
        for size in sizes:
            theories = [arggym_theory(size, 100 + index) for index in range(count)]
            row: dict = {"ordering": str(ordering), "size": size, "theories": count}
            answers = {}
            for engine in ("argc batched", "argc", "pyarg"):
                print(f"batched: {ordering} size {size}: {engine}", file=sys.stderr, flush=True)
                wall, cpu, answers[engine] = timed_in_child(engine, theories, ordering)
                row[engine] = {"seconds": wall / count, "cpu_seconds": cpu / count}
            row["agree"] = sum(a == b == c for a, b, c in zip(*answers.values(), strict=True))
            rows.append(row)
    return rows


def batched_table(rows: list[dict]) -> str:
    header = [
        "ordering",
        "size",
        "argc batched",
        "argc",
        "PyArg",
        "PyArg/batched",
        "PyArg/argc",
        "PyArg/batched CPU",
        "agree",
    ]
    body = []
    for row in rows:
        batch, single, pyarg = row["argc batched"], row["argc"], row["pyarg"]
        body.append(
            [
                row["ordering"],
                str(row["size"]),
                seconds_text(batch["seconds"]),
                seconds_text(single["seconds"]),
                seconds_text(pyarg["seconds"]),
                f"{pyarg['seconds'] / batch['seconds']:.1f}×",
                f"{pyarg['seconds'] / single['seconds']:.1f}×",
                f"{pyarg['cpu_seconds'] / batch['cpu_seconds']:.1f}×",
                f"{row['agree']}/{row['theories']}",
            ]
        )
    return markdown(header, body)


# Progress and formatting ---------------------------------------------------------------------


class Progress:
    """A tqdm bar when tqdm is installed, else one line per step on stderr."""

    def __init__(self, title: str, total: int) -> None:
        self.title = title
        self.total = total
        self.done = 0
        self.bar = tqdm(total=total or None, desc=title, file=sys.stderr) if tqdm else None

    def step(self, text: str, count: int = 1) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.set_postfix_str(text)
            self.bar.update(count)
        else:
            count_text = f"{self.done}/{self.total}" if self.total else str(self.done)
            print(f"[{self.title} {count_text}] {text}", file=sys.stderr, flush=True)

    def skip(self, count: int) -> None:
        if self.bar is not None:
            self.bar.update(count)
        self.done += count

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def seconds_text(value: float | None, timeout: float | None = None) -> str:
    if value is None or math.isinf(value):
        return f"> {timeout:g} s" if timeout else "—"
    if value < 1.0:
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"


def median_or_inf(runs: list[Run], cpu: bool = False) -> float | None:
    """Median wall (or CPU) time over theories; a run that did not finish counts as
    infinitely slow."""
    if not runs:
        return None
    return statistics.median(
        math.inf if run.seconds is None else run.cpu_seconds if cpu else run.seconds for run in runs
    )


def median_of(values: list) -> float | None:
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def ratio_text(pyarg: float | None, argc: float | None, timeout: float, bound: bool = True) -> str:
    """PyArg/argc; when PyArg timed out, a lower bound (if `bound`) or a dash."""
    if pyarg is None or argc is None or math.isinf(argc):
        return "—"
    if math.isinf(pyarg):
        return f"> {timeout / argc:,.0f}×" if bound else "—"
    return f"{pyarg / argc:,.1f}×"


def markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def json_seconds(value: float | None) -> float | str | None:
    if value is None:
        return None
    return "timeout" if math.isinf(value) else value


# Tasks ---------------------------------------------------------------------------------------


@dataclass
class Settings:
    sizes: list[int]
    preferred_sizes: list[int]
    theories: int
    repeats: int
    timeout: float
    pyarg_preferred_max: int
    scan_orderings: tuple[Ordering, ...]
    scan_repeats: int
    scan_resolution: float


def compare(
    theories: Theories,
    settings: Settings,
    ordering: Ordering,
    task: str,
    sizes: list[int],
    pyarg_sizes: list[int],
    progress: Progress,
) -> list[dict]:
    """argc and PyArg on every size; PyArg stops at its first timeout."""
    rows = []
    pyarg_on = True
    for size in sizes:
        found = theories.of_size(size)
        argc_runs: list[Run] = []
        pyarg_runs: list[Run] = []
        disagreements = 0
        try_pyarg = pyarg_on and size in pyarg_sizes
        if try_pyarg:
            state = "measured"
        elif size in pyarg_sizes:
            state = "skipped after a timeout"
        else:
            state = "not run"
        for index, theory in enumerate(found):
            argc = measure("argc", theory, ordering, task, settings.repeats, settings.timeout)
            argc_runs.append(argc)
            text = f"{task} {ordering} size {size} #{index}: argc {seconds_text(argc.seconds)}"
            pyarg_timeouts = sum(run.seconds is None for run in pyarg_runs)
            if try_pyarg and pyarg_timeouts * 2 <= len(found):
                pyarg = measure("pyarg", theory, ordering, task, settings.repeats, settings.timeout)
                pyarg_runs.append(pyarg)
                text += f", PyArg {seconds_text(pyarg.seconds, settings.timeout)}"
                if pyarg.seconds is None:
                    pyarg_on = False
                elif argc.answer is not None and argc.answer != pyarg.answer:
                    disagreements += 1
                    print(
                        f"WARNING: argc and PyArg disagree on {task} for size {size}, "
                        f"theory #{index}, {ordering}",
                        file=sys.stderr,
                    )
            progress.step(text)
        argc_median = median_or_inf(argc_runs)
        pyarg_median = median_or_inf(pyarg_runs) if pyarg_runs else None
        argc_cpu = median_or_inf(argc_runs, cpu=True)
        pyarg_cpu = median_or_inf(pyarg_runs, cpu=True) if pyarg_runs else None
        compared = sum(
            1
            for argc, pyarg in zip(argc_runs, pyarg_runs, strict=False)
            if argc.answer is not None and pyarg.answer is not None
        )
        extension_counts = [len(run.answer) for run in argc_runs if isinstance(run.answer, set)]
        rows.append(
            {
                "size": size,
                "directives": statistics.median(directive_count(theory) for theory in found),
                "arguments": median_of([run.arguments for run in argc_runs]),
                "extensions": median_of(extension_counts) if task == "preferred" else None,
                "argc_seconds": json_seconds(argc_median),
                "argc_ground_seconds": median_of([run.ground_seconds for run in argc_runs]),
                "pyarg_seconds": json_seconds(pyarg_median),
                "ratio": (
                    pyarg_median / argc_median
                    if pyarg_median and argc_median and not math.isinf(pyarg_median)
                    else None
                ),
                "argc_cpu_seconds": json_seconds(argc_cpu),
                "pyarg_cpu_seconds": json_seconds(pyarg_cpu),
                "cpu_ratio": (
                    pyarg_cpu / argc_cpu
                    if pyarg_cpu and argc_cpu and not math.isinf(pyarg_cpu)
                    else None
                ),
                "compared": compared,
                "disagreements": disagreements,
                "per_theory": [
                    {
                        "argc_seconds": argc.seconds,
                        "argc_runs": argc.runs,
                        "argc_cpu_seconds": argc.cpu_seconds,
                        "argc_note": argc.note,
                        "arguments": argc.arguments,
                        "pyarg_seconds": pyarg.seconds if pyarg else None,
                        "pyarg_runs": pyarg.runs if pyarg else [],
                        "pyarg_cpu_seconds": pyarg.cpu_seconds if pyarg else None,
                        "pyarg_note": pyarg.note if pyarg else state,
                    }
                    for argc, pyarg in _padded(argc_runs, pyarg_runs)
                ],
                "_argc": argc_median,
                "pyarg_state": state,
                "_pyarg": pyarg_median,
                "_argc_cpu": argc_cpu,
                "_pyarg_cpu": pyarg_cpu,
            }
        )
    return rows


def _padded(left: list, right: list) -> Iterator[tuple]:
    for index, item in enumerate(left):
        yield item, right[index] if index < len(right) else None


def comparison_table(rows: list[dict], timeout: float, preferred: bool = False) -> str:
    header = ["size", "directives", "arguments"]
    header += ["extensions"] if preferred else []
    header += ["argc", "argc grounding", "PyArg", "PyArg/argc", "PyArg/argc CPU", "agree"]
    body = []
    for row in rows:
        line = [str(row["size"]), f"{row['directives']:g}", _number(row["arguments"])]
        if preferred:
            line.append(_number(row["extensions"]))
        pyarg_text = {"not run": "not run", "skipped after a timeout": "skipped"}.get(
            row["pyarg_state"], seconds_text(row["_pyarg"], timeout)
        )
        line += [
            seconds_text(row["_argc"], timeout),
            seconds_text(row["argc_ground_seconds"]),
            pyarg_text,
            ratio_text(row["_pyarg"], row["_argc"], timeout),
            ratio_text(row["_pyarg_cpu"], row["_argc_cpu"], timeout, bound=False),
            _agreement(row),
        ]
        body.append(line)
    return markdown(header, body)


def _agreement(row: dict) -> str:
    """Theories whose answers agree, out of those both engines finished."""
    if not row["compared"]:
        return "—"
    return f"{row['compared'] - row['disagreements']}/{row['compared']}"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def largest_within(
    theories: Theories, settings: Settings, ordering: Ordering, progress: Progress
) -> dict:
    """Double the size from 50 until argc's median wall time exceeds the target, then bisect
    until the bracket is narrower than the scan resolution (a fraction of the size).

    A call is stopped at SCAN_TIMEOUT_FACTOR times the target: beyond that it only needs to
    count as slower than the target.
    """
    probes: dict[int, dict] = {}
    timeout = min(settings.timeout, SCAN_TIMEOUT_FACTOR * TARGET_SECONDS)

    def median_at(size: int) -> float:
        if size not in probes:
            runs = [
                measure("argc", theory, ordering, "grounded", settings.scan_repeats, timeout)
                for theory in theories.of_size(size)
            ]
            probes[size] = {
                "seconds": median_or_inf(runs),
                "cpu_seconds": median_or_inf(runs, cpu=True),
                "arguments": median_of([run.arguments for run in runs]),
                "per_theory": [run.seconds for run in runs],
            }
            progress.step(f"{ordering} size {size}: argc {seconds_text(probes[size]['seconds'])}")
        return probes[size]["seconds"]

    low, high = None, 50
    while median_at(high) <= TARGET_SECONDS and high < 100_000:
        low, high = high, high * 2
    while low is not None and high - low > max(5, low * settings.scan_resolution):
        middle = (low + high) // 2
        if median_at(middle) <= TARGET_SECONDS:
            low = middle
        else:
            high = middle
    largest = probes[low] if low is not None else {}
    return {
        "ordering": str(ordering),
        "largest_size": low,
        "largest_seconds": largest.get("seconds"),
        "largest_cpu_seconds": largest.get("cpu_seconds"),
        "largest_arguments": largest.get("arguments"),
        "first_slower_size": high,
        "first_slower_seconds": json_seconds(probes[high]["seconds"]),
        "call_timeout_seconds": timeout,
        "probes": {
            str(size): {
                "seconds": json_seconds(probe["seconds"]),
                "cpu_seconds": json_seconds(probe["cpu_seconds"]),
                "arguments": probe["arguments"],
                "per_theory": probe["per_theory"],
            }
            for size, probe in sorted(probes.items())
        },
    }


def scan_table(rows: list[dict]) -> str:
    header = [
        "ordering",
        "largest size ≤ 1 s",
        "arguments",
        "argc median",
        "argc median CPU",
        "next size probed",
    ]
    body = []
    for row in rows:
        slower = row["first_slower_seconds"]
        slower = math.inf if slower == "timeout" else slower
        body.append(
            [
                row["ordering"],
                "—" if row["largest_size"] is None else str(row["largest_size"]),
                _number(row["largest_arguments"]),
                seconds_text(row["largest_seconds"]),
                seconds_text(row["largest_cpu_seconds"]),
                f"{row['first_slower_size']} ({seconds_text(slower, row['call_timeout_seconds'])})",
            ]
        )
    return markdown(header, body)


def _seconds(value: float | str | None) -> float | None:
    return math.inf if value == "timeout" else value


def probes_text(rows: list[dict]) -> str:
    lines = []
    for row in rows:
        probes = ", ".join(
            f"{size}: {seconds_text(_seconds(probe['seconds']), row['call_timeout_seconds'])}"
            for size, probe in row["probes"].items()
        )
        lines.append(f"- {row['ordering']}: {probes}")
    return "\n".join(lines)


# Main ----------------------------------------------------------------------------------------


def argc_floor(repeats: int = 20) -> float:
    """argc's median time on a one-premise theory, after parsing every encoding the benchmark
    uses once in this process (each measuring subprocess inherits them already parsed)."""
    tiny = Theory.from_directives([Premise(Literal("a"))])
    for ordering in ORDERINGS:
        for semantics in ("grounded", "preferred"):
            solve(tiny, ordering=ordering, semantics=semantics)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        assert solve(tiny).statuses
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def machine() -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    return {
        "python": platform.python_version(),
        "clingo": clingo.__version__,
        "pyarg": metadata.version("python-argumentation"),
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "argc_commit": _git("rev-parse", "--short", "HEAD"),
        "argc_tree_modified": bool(_git("status", "--porcelain", "--", "asp", "compiler", "dsl")),
    }


def _git(*words: str) -> str:
    """Read-only git output from the repository ('' when git is unavailable)."""
    try:
        found = subprocess.run(
            ["git", *words], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout.strip()


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def write_json(path: Path, data: dict) -> None:
    """Write `data` to `path` as JSON, whole or not at all (`argc.files.write_output`)."""
    write_output(path, json.dumps(data, indent=2, default=str) + "\n")


def _public(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items() if not key.startswith("_")} for row in rows]


def parse_arguments(argv: list[str] | None) -> tuple[argparse.Namespace, Settings]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (about 2 minutes)")
    parser.add_argument("--sizes", type=int, nargs="+", help="directive counts for task 1")
    parser.add_argument(
        "--preferred-sizes", type=int, nargs="+", help="directive counts for task 2"
    )
    parser.add_argument(
        "--pyarg-preferred-max",
        type=int,
        default=40,
        help="largest size at which PyArg's preferred extensions are tried (default 40)",
    )
    parser.add_argument("--theories", type=int, help="theories per size (default 5, quick 3)")
    parser.add_argument("--repeats", type=int, help="timed runs per theory (default 3)")
    parser.add_argument(
        "--timeout", type=float, help="seconds per PyArg or argc call (default 60, quick 20)"
    )
    parser.add_argument(
        "--tasks",
        default="grounded,batched,deep,startup,scoring,preferred,scan",
        help="comma-separated subset of grounded,batched,deep,startup,scoring,preferred,scan"
        " (default: all)",
    )
    parser.add_argument("--out", type=Path, help="write the results as JSON to this file")
    options = parser.parse_args(argv)
    defaults = QUICK if options.quick else FULL
    settings = Settings(
        sizes=options.sizes or defaults["sizes"],
        preferred_sizes=options.preferred_sizes or defaults["preferred_sizes"],
        theories=options.theories or defaults["theories"],
        repeats=options.repeats or defaults["repeats"],
        timeout=options.timeout or defaults["timeout"],
        pyarg_preferred_max=options.pyarg_preferred_max,
        scan_orderings=defaults["scan_orderings"],
        scan_repeats=defaults["scan_repeats"],
        scan_resolution=defaults["scan_resolution"],
    )
    return options, settings


def main(argv: list[str] | None = None) -> int:
    options, settings = parse_arguments(argv)
    tasks = set(options.tasks.split(","))
    theories = Theories(settings.theories)
    results: dict = {
        "machine": machine(),
        "settings": {
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
            "quick": options.quick,
            "sizes": settings.sizes,
            "preferred_sizes": settings.preferred_sizes,
            "pyarg_preferred_max": settings.pyarg_preferred_max,
            "theories_per_size": settings.theories,
            "repeats": settings.repeats,
            "timeout_seconds": settings.timeout,
        },
    }
    started = time.perf_counter()
    results["load_average"] = {"start": load_text()}
    floor = argc_floor()
    results["argc_one_premise_seconds"] = floor

    def save() -> None:
        results["elapsed_seconds"] = time.perf_counter() - started
        if options.out:
            write_json(options.out, results)

    info = results["machine"]
    print(
        f"# argc vs PyArg {info['pyarg']} — Python {info['python']}, clingo {info['clingo']}, "
        f"{info['cores']} cores ({info['cpu']})\n\n"
        f"{settings.theories} theories per size, up to {settings.repeats} runs each, "
        f"timeout {settings.timeout:g} s; times are medians over the theories of a size.\n"
        f"argc on a one-premise theory (its fixed cost per call): {seconds_text(floor)}.\n"
        f"argc commit {info['argc_commit'] or '?'}"
        f"{' (engine files modified)' if info['argc_tree_modified'] else ''}; "
        f"load average at start: {results['load_average']['start']} (1, 5, 15 min).",
        flush=True,
    )
    task_started = time.perf_counter()

    def finished(task: str) -> None:
        nonlocal task_started
        took = time.perf_counter() - task_started
        results.setdefault("task_seconds", {})[task] = took
        results["load_average"][f"after {task}"] = load_text()
        print(f"\n({task} took {took:.0f} s; load average {load_text()})", flush=True)
        task_started = time.perf_counter()
        save()

    if "grounded" in tasks:
        results["grounded"] = {}
        steps = len(ORDERINGS) * len(settings.sizes) * settings.theories
        progress = Progress("grounded", steps)
        for ordering in ORDERINGS:
            rows = compare(
                theories, settings, ordering, "grounded", settings.sizes, settings.sizes, progress
            )
            results["grounded"][str(ordering)] = _public(rows)
            print(f"\n## Grounded claim statuses — {ordering}\n", flush=True)
            print(comparison_table(rows, settings.timeout), flush=True)
            save()
        progress.close()
        finished("grounded")
    if "batched" in tasks:
        rows = batched_rows(
            BATCH_SIZES, BATCH_THEORIES, ORDERINGS if not options.quick else ORDERINGS[:1]
        )
        results["batched"] = rows
        print(f"\n## Grounded statuses in batches of {BATCH_THEORIES} theories\n", flush=True)
        print(batched_table(rows), flush=True)
        finished("batched")
    if "deep" in tasks:
        import deep

        rows = deep.deep_rows(timeout=settings.timeout)
        results["deep"] = rows
        print("\n## Deep theories: chains and trees of rules\n", flush=True)
        print(deep.markdown(rows), flush=True)
        finished("deep")
    if "startup" in tasks:
        import startup

        rows = startup.startup_rows(repeats=7 if options.quick else startup.REPEATS)
        results["startup"] = rows
        print("\n## `argc check` against a PyArg script, as whole processes\n", flush=True)
        print(startup.table(rows), flush=True)
        finished("startup")
    if "scoring" in tasks:
        import scoring

        rows = scoring.scoring_rows(levels=(2, 10) if options.quick else scoring.LEVELS)
        results["scoring"] = rows
        print("\n## Constructive verifications per second per core\n", flush=True)
        print(scoring.scoring_table(rows), flush=True)
        finished("scoring")
    if "preferred" in tasks:
        ordering = ORDERINGS[0]
        sizes = settings.preferred_sizes
        pyarg_sizes = [size for size in sizes if size <= settings.pyarg_preferred_max]
        progress = Progress("preferred", len(sizes) * settings.theories)
        rows = compare(theories, settings, ordering, "preferred", sizes, pyarg_sizes, progress)
        progress.close()
        results["preferred"] = {"ordering": str(ordering), "rows": _public(rows)}
        print(f"\n## Preferred extensions — {ordering}\n", flush=True)
        print(comparison_table(rows, settings.timeout, preferred=True), flush=True)
        finished("preferred")
    if "scan" in tasks:
        progress = Progress("scan", 0)
        rows = [
            largest_within(theories, settings, ordering, progress)
            for ordering in settings.scan_orderings
        ]
        progress.close()
        results["largest_within_1s"] = rows
        print("\n## Largest size with argc's grounded statuses within 1 s\n", flush=True)
        print(scan_table(rows))
        print("\nSizes probed (median argc time):\n")
        print(probes_text(rows), flush=True)
        finished("scan")
    print(f"\nTotal time: {time.perf_counter() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
