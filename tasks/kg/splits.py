"""The split plans of generated KG worlds and their rows.

A split enumerates its (D, T) cells and draws a fixed number of graphs per cell (Appendix
A.2.7 of the paper): `pretrain` D1-D4 x T1-T2 with 400,000 graphs a cell (3.2M), `rl`
D1-D10 x T1-T6 with 20,000 a cell (1.2M) and `eval` the same 60 cells with 80 a cell
(4,800). Graph i of cell (D, T) has the seed given by a sha256 of the split, the cell, i and
the plan's seed, and its rendering a stream seeded the same way, so a split is deterministic
cell by cell. `write_jsonl` (`argc.files`) writes rows atomically.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from tqdm import tqdm

from argc.files import write_jsonl
from argc.tasks.kg.generator import COMPLEXITIES, DEPTHS, KgGraph, generate_graph
from argc.tasks.kg.rendering import render
from argc.tasks.norms.families import stream

__all__ = ["PLANS", "SplitPlan", "generate_split", "graph_row", "split_rows", "write_jsonl"]


@dataclass(frozen=True)
class SplitPlan:
    """The cells of a split and its default number of graphs per cell."""

    split: str
    depths: tuple[int, ...]
    complexities: tuple[int, ...]
    per_cell: int

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(D, T) of each cell, D major."""
        return [(d, t) for d in self.depths for t in self.complexities]


PLANS: dict[str, SplitPlan] = {
    "pretrain": SplitPlan("pretrain", (1, 2, 3, 4), (1, 2), 400_000),
    "rl": SplitPlan("rl", tuple(DEPTHS), tuple(COMPLEXITIES), 20_000),
    "eval": SplitPlan("eval", tuple(DEPTHS), tuple(COMPLEXITIES), 80),
}


def graph_seed(split: str, depth: int, complexity: int, index: int, seed: int = 0) -> int:
    """The seed of graph `index` of cell (D, T) of a split: a sha256 of them (63 bits)."""
    key = f"kg-split:{split}:{depth}:{complexity}:{index}:{seed}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


def generate_split(split: str, per_cell: int | None = None, seed: int = 0) -> Iterator[KgGraph]:
    """The graphs of a split, cell by cell (`per_cell` graphs a cell, the plan's by
    default), with a progress bar on long runs."""
    if split not in PLANS:
        raise ValueError(f"unknown split {split!r}: one of {', '.join(PLANS)}")
    plan = PLANS[split]
    count = plan.per_cell if per_cell is None else per_cell
    if count < 0:
        raise ValueError("the number of graphs per cell is not negative")
    total = count * len(plan.cells)
    with tqdm(total=total, desc=f"kg {split}", disable=total < 1000) as progress:
        for depth, complexity in plan.cells:
            for index in range(count):
                yield generate_graph(
                    depth, complexity, graph_seed(split, depth, complexity, index, seed), split
                )
                progress.update()


def graph_row(graph: KgGraph) -> dict:
    """A graph as a JSON-ready row: its world text, its story, D, T, target, split, seed."""
    rng = stream("kg-render", graph.split, graph.depth, graph.complexity, graph.seed)
    return {
        "world": graph.world.to_text(),
        "rendering": render(graph, rng),
        "depth": graph.depth,
        "complexity": graph.complexity,
        "target": graph.target,
        "split": graph.split,
        "seed": graph.seed,
    }


def split_rows(split: str, per_cell: int | None = None, seed: int = 0) -> Iterator[dict]:
    """The rows of a split's graphs, in order."""
    return map(graph_row, generate_split(split, per_cell, seed))
