"""The KG task families as scorers of the task framework (`kg_deductive`, `kg_abductive`,
`kg_inductive`, `kg_analogy`): a response is a solution in the paper's format, whole (no
<answer> tags). Its answer sentence gives the answer match A and its parsed trace the process
match P (Table 13; `argc.tasks.kg.solutions`). The native score is the outcome-gated reward
R = rho * P + (1 - rho) * A when A = 1, else 0 (rho = 0.8), and success is strict
process-verified correctness, P and A.

An instance keeps the gold solution text as its reference and the accepted answers in its
target (`{"form", "object", "accepted"}`); its meta holds depth, complexity and split.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from argc.tasks.answers import UnreadableAnswer
from argc.tasks.framework import Instance, Score, Scorer, register
from argc.tasks.kg.names import ENTITY_WORDS
from argc.tasks.kg.solutions import (
    Solution,
    answer_match,
    extract_answer,
    parse_solution,
    process_match,
)

#: The paper's weight of the process match in the gated reward.
PROCESS_RATIO = 0.8


@dataclass(frozen=True)
class KgScore(Score):
    """A KG score with its two binary matches."""

    process: bool = False
    answer: bool = False

    def details(self) -> dict[str, Any]:
        return {"process": self.process, "answer": self.answer}


def gated(process: bool, answer: bool, ratio: float = PROCESS_RATIO) -> float:
    """R = ratio * P + (1 - ratio) * A when A = 1, else 0."""
    return ratio * process + (1.0 - ratio) if answer else 0.0


@lru_cache(maxsize=4096)
def gold_solution(reference: str, family: str) -> Solution:
    """The gold solution of an instance, read from its reference text (cached)."""
    return parse_solution(reference, family)


class KgTask(Scorer):
    """A KG task family's scorer."""

    suite: ClassVar[str] = "kg"
    tagged: ClassVar[bool] = False
    labels: ClassVar[tuple[str, ...]] = ENTITY_WORDS
    reads_only: ClassVar[bool] = True
    kg_family: ClassVar[str]

    def score_answer(self, instance: Instance, answer: str) -> Score:
        family = self.kg_family
        gold = gold_solution(instance.reference, family)
        found = extract_answer(answer)
        matched = found is not None and answer_match(
            found, tuple(instance.target["accepted"]), family
        )
        try:
            process = process_match(parse_solution(answer, family), gold)
            why = "trace matches" if process else "the trace differs from the gold trace"
        except UnreadableAnswer as error:
            process, why = False, str(error)
        said = "answer matches" if matched else "wrong answer"
        if found is None:
            said = "no answer sentence"
        return KgScore(
            gated(process, matched),
            process and matched,
            f"{said}; {why}",
            process=process,
            answer=matched,
        )


@register
class KgDeductive(KgTask):
    name = "kg_deductive"
    kg_family = "deductive"


@register
class KgAbductive(KgTask):
    name = "kg_abductive"
    kg_family = "abductive"


@register
class KgInductive(KgTask):
    name = "kg_inductive"
    kg_family = "inductive"


@register
class KgAnalogy(KgTask):
    name = "kg_analogy"
    kg_family = "analogy"
