"""status_query: the grounded status of each queried claim."""

from __future__ import annotations

import random
from typing import Any

from argc.compiler import QueryResult
from argc.dsl.ir import Literal, Ordering, QueryHeader
from argc.tasks.answers import score_map
from argc.tasks.builder import Shape, build
from argc.tasks.framework import Candidate, Instance, Score, Task, register
from argc.tasks.prompts import answer_request, claim_list, theory_block
from argc.tasks.symbols import literal_of


def shape(level: int) -> Shape:
    """Curriculum: deeper, branching derivations with more attackers, defenders,
    preference-decided conflicts and distractors as the level rises."""
    return Shape(
        goals=1 + (level >= 10) + (level >= 14),
        depth=1 + level // 3,
        branching=level // 6,
        attackers=1 + level // 3,
        defenders=level // 4,
        contested=1 + level // 8,
        preferences=level // 3,
        strict_share=round(min(0.05 * level, 0.4), 2),
        axiom_share=0.1,
        distractors=level // 2,
    )


def query_count(level: int) -> int:
    return 5 + level // 3


@register
class StatusQuery(Task):
    name = "status_query"

    def parameters(self, level: int) -> dict[str, Any]:
        return {**vars(shape(level)), "queries": query_count(level)}

    def candidate(self, rng: random.Random, level: int) -> Candidate:
        builder, _ = build(rng, shape(level))
        theory = builder.theory()
        salient = sorted(set(builder.salient), key=str)
        others = sorted(
            {*theory.premises, *theory.axioms, *(rule.head for rule in theory.rules)}
            - set(salient),
            key=str,
        )
        wanted = query_count(level)
        queried = rng.sample(salient, min(wanted - wanted // 3, len(salient)))
        queried += rng.sample(others, min(wanted - len(queried), len(others)))
        rng.shuffle(queried)
        return Candidate(builder.theory([QueryHeader(tuple(queried))]))

    def target(self, candidate: Candidate, result: QueryResult, ordering: Ordering) -> Any:
        statuses = {
            str(literal_of(symbol.arguments[0])): symbol.arguments[1].name
            for symbol in result.shown
        }
        return {str(claim): statuses[str(claim)] for claim in candidate.theory.queries}

    def prompt(self, candidate: Candidate, target: Any, ordering: Ordering) -> str:
        return "\n\n".join(
            [
                theory_block(candidate.theory, ordering),
                "State the status of each of the following claims: "
                f"{claim_list(candidate.theory.queries)}.",
                "Possible statuses: justified, overruled, undecided. A claim is justified when"
                " some argument for it is in the grounded extension, overruled when every"
                " argument for it is defeated by the grounded extension (or it has no argument),"
                " and undecided otherwise.",
                answer_request("one line per claim, written as 'claim: status'."),
            ]
        )

    def reference(self, target: Any) -> str:
        return "\n".join(f"{claim}: {status}" for claim, status in target.items())

    def score_answer(self, instance: Instance, answer: str) -> Score:
        gold = {Literal.parse(claim): status for claim, status in instance.target.items()}
        return Score(*score_map(answer, "status_map", gold, "all statuses correct"))
