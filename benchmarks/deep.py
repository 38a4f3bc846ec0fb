"""Time argc against PyArg 2.0.2 on deep theories: chains and trees of rules.

    python benchmarks/deep.py [--sizes N ...] [--shapes NAME ...] [--timeout S] [--no-pyarg]
                              [--out FILE.json]

Shapes (`size` rules each, up to rounding for the binary tree):

- chain: `a0` an ordinary premise, `r_i: a_{i-1} => a_i`;
- attacked chain: the same with the axiom `-a0`, which undermines the bottom premise, so
  that the defeat reaches every argument of the chain;
- tree: branching 2, `r_i: a_{i-1}, b_i => a_i` with every `b_i` an ordinary premise;
- attacked tree: the same with the axiom `-a0`;
- binary tree: a complete binary tree of rules over premises at the leaves;
- ring: the chain closed into a cycle (`a_{n-1} => a0`): every literal on one cycle.

Every measurement runs in a forked subprocess (clingo keeps every symbol a process has seen),
argc under `Limits(seconds=timeout)` and PyArg killed at the timeout; once PyArg times out on a
shape it is not tried at larger sizes. The time is `solve(...)` and reading the claim
statuses for argc, and building the theory, its arguments, defeats and grounded statuses for
PyArg; both answers are compared where both finish. The table goes to stdout, progress to
stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from argc.compiler import LimitExceeded, Limits, solve
from argc.dsl.ir import Ordering, Theory
from argc.dsl.parser import parse_theory

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from engine_vs_pyarg import markdown as markdown_table  # noqa: E402

SIZES = (100, 300, 1000, 3000)
TIMEOUT = 60.0


# Theories ----------------------------------------------------------------------------------


def chain(size: int, attacked: bool = False) -> str:
    """`a0` an ordinary premise and `r_i: a_{i-1} => a_i` up to `a_size`; `attacked` adds the
    axiom `-a0`, which undermines the bottom premise and so defeats every argument."""
    lines = ["[premise: a0]"]
    lines += [f"[defeasible r{i}: a{i - 1} => a{i}]" for i in range(1, size + 1)]
    if attacked:
        lines.append("[axiom: -a0]")
    return "\n".join(lines) + "\n"


def tree(size: int, attacked: bool = False) -> str:
    """A tree of branching 2: `r_i: a_{i-1}, b_i => a_i` with `a0` and every `b_i` ordinary
    premises; `attacked` adds the axiom `-a0`."""
    lines = ["[premise: a0]"]
    for i in range(1, size + 1):
        lines += [f"[premise: b{i}]", f"[defeasible r{i}: a{i - 1} AND b{i} => a{i}]"]
    if attacked:
        lines.append("[axiom: -a0]")
    return "\n".join(lines) + "\n"


def binary_tree(size: int) -> str:
    """A complete binary tree of about `size` rules: with `levels` the nearest whole
    log2(size + 1), 2**levels premises at the leaves and 2**levels - 1 rules, each concluding
    its node from its two children."""
    levels = max(1, round(math.log2(size + 1)))
    lines: list[str] = []
    stack = [(levels, "n", False)]
    while stack:  # post-order without recursion: children before their parent
        level, name, expanded = stack.pop()
        if level == 0:
            lines.append(f"[premise: {name}]")
        elif expanded:
            lines.append(f"[defeasible r{name}: {name}l AND {name}r => {name}]")
        else:
            stack += [(level, name, True), (level - 1, name + "r", False)]
            stack.append((level - 1, name + "l", False))
    return "\n".join(lines) + "\n"


def ring(size: int) -> str:
    """A cycle of `size` rules through the premise `a0`: every literal lies on one cycle, so
    every argument is checked against every literal of the ring."""
    lines = ["[premise: a0]"]
    lines += [f"[defeasible r{i}: a{i - 1} => a{i}]" for i in range(1, size)]
    lines.append(f"[defeasible r{size}: a{size - 1} => a0]")
    return "\n".join(lines) + "\n"


SHAPES: dict[str, Callable[[int], str]] = {
    "chain": chain,
    "attacked chain": lambda size: chain(size, attacked=True),
    "tree": tree,
    "attacked tree": lambda size: tree(size, attacked=True),
    "binary tree": binary_tree,
    "ring": ring,
}


# Measurements in forked subprocesses -------------------------------------------------------


def _argc(theory: Theory, timeout: float) -> dict:
    started = time.perf_counter()
    solution = solve(theory, limits=Limits(seconds=timeout))
    statuses = {str(literal): status for literal, status in solution.statuses.items()}
    return {
        "seconds": time.perf_counter() - started,
        "ground": solution.timings.get("ground"),
        "arguments": len(solution.arguments),
        "answer": statuses,
    }


def _pyarg(theory: Theory, _timeout: float) -> dict:
    sys.path.insert(0, str(ROOT / "tests"))
    from oracle import oracle  # the PyArg reference, from the test helpers

    started = time.perf_counter()
    result = oracle(theory, theory.ordering or Ordering())
    statuses = result.statuses(list(theory.claims()))
    return {
        "seconds": time.perf_counter() - started,
        "arguments": len(result.arguments),
        "answer": statuses,
    }


ENGINES = {"argc": _argc, "pyarg": _pyarg}


def _child(engine: str, text: str, timeout: float, pipe) -> None:
    try:
        pipe.send(("ok", ENGINES[engine](parse_theory(text), timeout)))
    except LimitExceeded as error:
        pipe.send(("limit", str(error)))


def measure(engine: str, text: str, timeout: float) -> dict:
    """One engine on one theory in a forked subprocess: its result, or a note saying why
    there is none (a limit, the timeout, a dead subprocess)."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(engine, text, timeout, sender), daemon=True)
    process.start()
    sender.close()
    wait = timeout + 10.0 if engine == "argc" else timeout  # argc's own limit stops it
    try:
        if not receiver.poll(wait):
            return {"note": f"> {timeout:g} s"}
        kind, found = receiver.recv()
        return found if kind == "ok" else {"note": found}
    except EOFError:
        return {"note": "the subprocess died"}
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()


def deep_rows(
    sizes: Sequence[int] = SIZES,
    timeout: float = TIMEOUT,
    shapes: Sequence[str] = tuple(SHAPES),
    pyarg: bool = True,
) -> list[dict]:
    """One row per shape and size: rules, arguments, argc's and PyArg's wall seconds (None
    when it did not finish, with a note), argc's grounding seconds, and whether the two gave
    the same claim statuses (None unless both finished)."""
    rows = []
    for shape in shapes:
        pyarg_gave_up = not pyarg
        for size in sizes:
            text = SHAPES[shape](size)
            rules = sum(1 for line in text.splitlines() if " => " in line)
            print(f"deep: {shape} {size}: argc", file=sys.stderr, flush=True)
            argc = measure("argc", text, timeout)
            row = {
                "shape": shape,
                "size": size,
                "rules": rules,
                "arguments": argc.get("arguments"),
                "argc_seconds": argc.get("seconds"),
                "argc_ground_seconds": argc.get("ground"),
                "argc_note": argc.get("note", ""),
                "pyarg_seconds": None,
                "pyarg_note": "not run" if pyarg_gave_up else "",
                "agree": None,
            }
            if not pyarg_gave_up:
                print(f"deep: {shape} {size}: PyArg", file=sys.stderr, flush=True)
                found = measure("pyarg", text, timeout)
                row["pyarg_seconds"] = found.get("seconds")
                row["pyarg_note"] = found.get("note", "")
                if "answer" in found and "answer" in argc:
                    row["agree"] = found["answer"] == argc["answer"]
                pyarg_gave_up = row["pyarg_seconds"] is None
            rows.append(row)
    return rows


# Output -------------------------------------------------------------------------------------


def _seconds(value: float | None, note: str) -> str:
    return f"{value:.3f}" if value is not None else (note or "—")


def markdown(rows: list[dict]) -> str:
    header = [
        "shape",
        "size",
        "rules",
        "arguments",
        "argc (s)",
        "argc ground (s)",
        "PyArg (s)",
        "PyArg/argc",
        "agree",
    ]
    table = []
    for row in rows:
        argc, pyarg = row["argc_seconds"], row["pyarg_seconds"]
        ratio = f"{pyarg / argc:.1f}" if argc and pyarg else "—"
        agree = {True: "yes", False: "NO", None: "—"}[row["agree"]]
        ground = row["argc_ground_seconds"]
        cells = [
            row["shape"],
            str(row["size"]),
            str(row["rules"]),
            str(row["arguments"]) if row["arguments"] is not None else "—",
            _seconds(argc, row["argc_note"]),
            f"{ground:.3f}" if ground is not None else "—",
            _seconds(pyarg, row["pyarg_note"]),
            ratio,
            agree,
        ]
        table.append(cells)
    return markdown_table(header, table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per call")
    parser.add_argument("--no-pyarg", action="store_true", help="time argc only")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON")
    options = parser.parse_args(argv)
    rows = deep_rows(options.sizes, options.timeout, options.shapes, not options.no_pyarg)
    print(markdown(rows))
    if options.out:
        options.out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
