"""Formalization answers and instances shared by the tests: hand-made instances, renamed
references, and the status-table answer that succeeds behaviourally without formalizing."""

from __future__ import annotations

import random

from argc.compiler import query
from argc.dsl.canonical import canonical
from argc.dsl.ir import Axiom, Literal, Ordering, Premise, QueryHeader, Theory
from argc.dsl.parser import parse_theory
from argc.tasks import Instance, get_task
from argc.tasks.arggym.formalization import Described

TASK = get_task("formalization")


def in_answer(text: str) -> str:
    return f"<answer>\n{text}\n</answer>"


def renamed_reference(reference: str, seed: int) -> str:
    """The reference with every rule renamed (undercutters and preferences follow) and its
    directives shuffled."""
    lines = canonical(parse_theory(reference), rename_atoms=False).to_text().splitlines()
    random.Random(seed).shuffle(lines)
    return "\n".join(lines)


def hand_instance(text: str, queries: str, ordering: Ordering | None = None) -> Instance:
    """A level-1 formalization instance of a hand-written theory querying `queries`."""
    ordering = ordering or Ordering()
    header = QueryHeader(tuple(Literal.parse(q) for q in queries.split(",")))
    theory = Theory.from_directives([*parse_theory(text).directives(), header])
    candidate = Described(theory=theory)
    result = query(theory, TASK.program, ordering=ordering)
    assert result.satisfiable
    target = TASK.target(candidate, result, ordering)
    return Instance(
        id="hand",
        task="formalization",
        level=1,
        ordering=ordering.principle,
        set=ordering.set_comparison,
        seed=0,
        theory=theory.to_text(),
        prompt="",
        reference=TASK.reference(target),
        target=target,
        meta={},
    )


#: The fresh names of the status table: an anchor axiom, an undecided literal, rule names.
ANCHOR, UNDECIDED, RULE = "table_anchor", "table_undecided", "table_r"


def status_table(instance: Instance, copy_knowledge: bool = False) -> str:
    """An answer that only reproduces the reference's grounded statuses (`target["statuses"]`):
    an axiom for every justified literal; two rules from a fresh axiom that rebut each other,
    so that a fresh literal is undecided, and one rule from it to each undecided literal;
    nothing for the overruled ones. With `copy_knowledge`, the reference's premises and axioms
    whose literal is justified are written as the description gives them instead."""
    statuses = instance.target["statuses"]
    reference = parse_theory(instance.reference)
    assert not {ANCHOR, UNDECIDED} & {Literal.parse(text).atom for text in statuses}
    assert not any(rule.name.startswith(RULE) for rule in reference.rules)
    justified = [text for text, status in statuses.items() if status == "justified"]
    lines = [f"[axiom: {text}]" for text in justified]
    if copy_knowledge:
        known = [
            d
            for d in reference.directives()
            if isinstance(d, Premise | Axiom) and str(d.literal) in justified
        ]
        copied = {str(d.literal) for d in known}
        lines = [str(d) for d in known] + [f"[axiom: {t}]" for t in justified if t not in copied]
    undecided = [text for text, status in statuses.items() if status == "undecided"]
    if undecided:
        lines += [
            f"[axiom: {ANCHOR}]",
            f"[defeasible {RULE}p: {ANCHOR} => {UNDECIDED}]",
            f"[defeasible {RULE}n: {ANCHOR} => -{UNDECIDED}]",
        ]
        lines += [f"[defeasible {RULE}{k}: {UNDECIDED} => {t}]" for k, t in enumerate(undecided)]
    return "\n".join(lines)
