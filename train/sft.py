"""SFT datasets on normative worlds: the target mixes of NormWorlds-CF §3.1 ("SFT as Interface
Substrate"), as prompt-completion rows for TRL's SFTTrainer.

Each row is a generated instance of a norm task: `prompt` exactly as the GRPO dataset writes
it (`argc.train.data.row`: chat messages or text, after an optional system prompt), and
`completion`, the gold answer `<answer>{instance.reference}</answer>` (an assistant message for
chat prompts, text otherwise); the dataset's other columns (`instance`, `id`, `task`, `level`,
`ordering`, `set`) are those of the GRPO dataset, plus `residual`, the residual-failure reasons
of the instance (below). The mixes:

- `answer`: `norm_answer` (the ladder's levels alternate root and edited worlds: levels 1-4
  and 9-12 ask about the root world, 5-8 and 13-15 about its support or priority variant);
- `answer_proof`: `norm_answer` and `norm_proof`;
- `answer_proof_falsification`: `norm_answer`, `norm_proof` and `norm_falsification`;
- `targeted_replay`: that full mix, each residual-failure instance replayed `replay_factor`
  times.

Rows take the mix's tasks in turn, and each task its levels in turn (so the family types,
which cycle with the level, and root and edited worlds are balanced). The j-th instance of a
(task, level) cell has the recipes' seed `slot_seed(seed, cell, j)` (one argument ordering:
it does not change a world's verdict), so two mixes with the same seed and levels draw the
same instances of a task, one mix's a prefix of the other's: the mixes differ in their
targets, not in their worlds.

Residual failures (the paper's "unresolved-vs-priority conflicts, identity-derived support,
sibling counter-rule confusions"), the reasons of `residual`:

- `family`: the world's family type is `unresolved_conflict` or `partial_priority_conflict`;
- `identity_support`: a rule of the world's minimal support applies to the queried action
  through a fact that only an identity rule derives (`trainee(X) -> apprentice(X)` with the
  rule on `apprentice(X)`);
- `falsification`: a falsification whose error type is `defeated_rule_cited` or
  `priority_misread`.

`targeted_replay` of n rows walks the full mix's instances in order and writes each one once,
or `replay_factor` times (default DEFAULT_REPLAY_FACTOR, copies adjacent) when it has a
residual reason, until n rows are written (the last copies may be cut): its instances are a
prefix of `answer_proof_falsification`'s with the same seed. Every mix of n rows has n rows;
the trainer shuffles them. Deterministic in (mix, count, seed, levels, replay factor), whatever
the number of workers.

`gold_dataset` writes the same prompt-completion rows for any task's instances (a KG
family's completion is its solution after a space, untagged, as in its corpus).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from argc.dsl.ir import Ordering
from argc.tasks import Instance, get_task
from argc.train.data import generate_locally, generate_slot, row
from argc.train.recipes import Cell, Slot, slot_seed

#: The tasks of each mix, in the order rows take them.
MIXES: dict[str, tuple[str, ...]] = {
    "answer": ("norm_answer",),
    "answer_proof": ("norm_answer", "norm_proof"),
    "answer_proof_falsification": ("norm_answer", "norm_proof", "norm_falsification"),
    "targeted_replay": ("norm_answer", "norm_proof", "norm_falsification"),
}
#: The mix that replays residual failures.
REPLAY_MIX = "targeted_replay"
#: How many times `targeted_replay` writes an instance with a residual-failure reason.
DEFAULT_REPLAY_FACTOR = 2
#: The levels rows cycle through by default: the ladder's `.norm`-text levels, those of the
#: change-record recipe (`train/recipes/norms-change-records.yaml`).
DEFAULT_LEVELS = (1, 8)
#: The argument ordering of every slot (a world's verdict does not depend on it).
ORDERING = Ordering("last-link", "elitist")
#: Residual failures: family types, and falsification error types.
RESIDUAL_FAMILY_TYPES = ("partial_priority_conflict", "unresolved_conflict")
RESIDUAL_ERRORS = ("defeated_rule_cited", "priority_misread")


def mix_slot(mix: str, index: int, seed: int, levels: tuple[int, int] = DEFAULT_LEVELS) -> Slot:
    """The slot of a mix's `index`-th instance: the mix's tasks in turn, each task's levels in
    turn, and the cell's next seed."""
    tasks = MIXES[mix]
    low, high = levels
    per_task, task = divmod(index, len(tasks))
    cycle, offset = divmod(per_task, high - low + 1)
    cell = Cell(tasks[task], low + offset, ORDERING.principle, ORDERING.set_comparison)
    return Slot(*cell, seed=slot_seed(seed, cell, cycle))


def residual_reasons(instance: Instance) -> tuple[str, ...]:
    """Why an instance is a residual failure (`family`, `identity_support`, `falsification`);
    empty when it is none. Instances of single-world norm tasks (their target holds the world
    and its verdict)."""
    target = instance.target
    reasons = []
    if instance.meta.get("params", {}).get("family_type") in RESIDUAL_FAMILY_TYPES:
        reasons.append("family")
    if rests_on_identity(target["world"], target["verdict"]["support"]["rules"]):
        reasons.append("identity_support")
    falsification = target.get("falsification")
    if falsification is not None and falsification["error_type"] in RESIDUAL_ERRORS:
        reasons.append("falsification")
    return tuple(reasons)


def rests_on_identity(world_text: str, support: Sequence[str]) -> bool:
    """Whether a rule of the support applies to the world's queried action through an atom
    that is not a stated fact (one only identity rules derive)."""
    from argc.compiler.norms.grounding import ground_world
    from argc.dsl.norms import parse_world

    world = parse_world(world_text)
    ground = ground_world(world)
    facts = set(ground.facts)
    return any(
        instance.rule in support
        and instance.action == world.query.action
        and any(atom not in facts for atom in instance.body)
        for instance in ground.norms
    )


def _generate_tagged(slot: Slot) -> tuple[str, tuple[str, ...]]:
    """A slot's instance (JSON) and its residual reasons (in a worker process)."""
    instance = generate_slot(slot)
    return instance.to_json(), residual_reasons(instance)


def completion_of(instance: Instance, prompt_format: str) -> str | list[dict[str, str]]:
    """The completion column: the gold answer, in its <answer> region (a task whose answers
    are untagged, a KG family, continues its prompt with the reference after a space, as
    its corpus does), as an assistant message for chat prompts."""
    if get_task(instance.task).tagged:
        text = f"<answer>{instance.reference}</answer>"
    else:
        text = f" {instance.reference}"
    return text if prompt_format == "text" else [{"role": "assistant", "content": text}]


def gold_row(instance: Instance, prompt_format: str, system: str | None) -> dict[str, Any]:
    """A prompt-completion row of any task's instance: its GRPO row and its gold answer."""
    return {
        **row(instance, prompt_format, system),
        "completion": completion_of(instance, prompt_format),
    }


def gold_dataset(instances: Sequence[Instance], prompt_format: str, system: str | None):
    """A `datasets.Dataset` of the instances' prompt-completion rows (`gold_row`), in order."""
    from datasets import Dataset

    return Dataset.from_list([gold_row(instance, prompt_format, system) for instance in instances])


def mix_entries(
    mix: str,
    count: int,
    seed: int = 0,
    *,
    levels: tuple[int, int] = DEFAULT_LEVELS,
    replay_factor: int = DEFAULT_REPLAY_FACTOR,
    workers: int = 1,
) -> list[tuple[str, tuple[str, ...]]]:
    """The (instance JSON, residual reasons) of a mix's `count` rows, in order (replayed
    instances repeated). `targeted_replay` generates in rounds, each of the fewest instances
    that can fill the rows still missing."""
    if mix not in MIXES:
        raise ValueError(f"unknown SFT mix {mix!r}; known: {', '.join(MIXES)}")
    if count < 1 or replay_factor < 1:
        raise ValueError("count and replay_factor must be positive")
    factor = replay_factor if mix == REPLAY_MIX else 1
    rows: list[tuple[str, tuple[str, ...]]] = []
    generated = 0
    while len(rows) < count:
        batch = -(-(count - len(rows)) // factor)
        slots = [mix_slot(mix, generated + k, seed, levels) for k in range(batch)]
        generated += batch
        for entry in generate_locally(_generate_tagged, slots, workers, desc=f"SFT {mix}"):
            rows.extend([entry] * (factor if entry[1] else 1))
    return rows[:count]


def sft_dataset(
    mix: str,
    count: int,
    seed: int = 0,
    *,
    prompt_format: str = "chat",
    system: str | None = None,
    levels: tuple[int, int] = DEFAULT_LEVELS,
    replay_factor: int = DEFAULT_REPLAY_FACTOR,
    workers: int = 1,
):
    """A `datasets.Dataset` of a mix's `count` prompt-completion rows (module docstring), the
    prompts in the GRPO dataset's format (`prompt_format`, `system`)."""
    from datasets import Dataset

    entries = mix_entries(
        mix, count, seed, levels=levels, replay_factor=replay_factor, workers=workers
    )
    rows = []
    for record, reasons in entries:
        instance = Instance.from_record(json.loads(record))
        rows.append({**gold_row(instance, prompt_format, system), "residual": list(reasons)})
    return Dataset.from_list(rows)


def composition(dataset: Any) -> dict[str, Any]:
    """What a mix holds: rows by task, distinct instances, and rows with a residual reason."""
    return {
        "rows": len(dataset),
        "instances": len(set(dataset["id"])),
        "tasks": dict(sorted(Counter(dataset["task"]).items())),
        "residual": sum(1 for reasons in dataset["residual"] if reasons),
    }
