"""A task written outside argc: which asked defeasible rules does the grounded extension
undercut? Load it with `--load examples/new_task/undercut_status.py` (docs/new-task.md)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from argc.compiler import QueryResult
from argc.dsl.ir import Ordering
from argc.tasks import Instance, Score, Task, register
from argc.tasks.answers import pair_f1
from argc.tasks.builder import Shape, build
from argc.tasks.framework import Candidate
from argc.tasks.prompts import answer_request, theory_block

LINE = re.compile(
    r"^\s*(?:[-*]\s+)?`?([A-Za-z_][A-Za-z0-9_]*)`?\s*:\s*(undercut|intact)\.?\s*$", re.IGNORECASE
)


@register
class UndercutStatus(Task):
    name = "undercut_status"
    program_file = Path(__file__).with_suffix(".lp")

    def parameters(self, level: int) -> dict[str, Any]:
        return {"attackers": 2 + level // 3, "defenders": 1 + level // 4, "depth": 1 + level // 4}

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        knobs = self.parameters(level)
        builder, _ = build(
            rng,
            Shape(
                depth=knobs["depth"],
                attackers=knobs["attackers"],
                defenders=knobs["defenders"],
                contested=0,
            ),
        )
        undercut = sorted(
            {r.head.atom for r in builder.rules if r.head.negated}
            & {r.name for r in builder.rules if not r.strict}
        )
        others = sorted(r.name for r in builder.rules if not r.strict and r.name not in undercut)
        asked = undercut + rng.sample(others, min(2, len(others)))
        return Candidate(builder.theory(), {"ask": asked})

    def gate_program(self, candidate: Candidate) -> str:
        facts = "".join(f'ask("{name}").\n' for name in candidate.params["ask"])
        return facts + self.program

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        return {s.arguments[0].string: s.arguments[1].name for s in result.shown}

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering),
                f"For each of the rules {', '.join(target)}, say whether an accepted argument"
                " (in the grounded extension) undercuts it.",
                answer_request("one line per rule, written as 'rule: undercut' or 'rule: intact'."),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(f"{rule}: {outcome}" for rule, outcome in target.items())

    def score_answer(self, instance: Instance, answer: str) -> Score:
        entries = []
        for line in filter(str.strip, answer.splitlines()):
            match = LINE.match(line)
            if match is None:
                return Score(0.0, False, f"unreadable line: {line.strip()!r}")
            entries.append((match[1], match[2].lower()))
        f1, exact = pair_f1(entries, instance.target)
        return Score(f1, exact, "all outcomes correct" if exact else f"pair F1 {f1:.3f}")
