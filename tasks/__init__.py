"""Reasoning tasks built on solved theories: generators, ASP gates and targets, prompts,
answer grammars and scorers, registered by name."""

from argc.tasks import arggym  # noqa: F401  (ArgGYM's tasks: importing them registers them)
from argc.tasks.framework import (
    LEVELS,
    REGISTRY,
    GenerationFailed,
    Instance,
    Score,
    Task,
    generate,
    generated_tasks,
    get_task,
    register,
    score,
    score_group,
    score_groups,
    suite_tasks,
)
from argc.tasks.kg import scoring  # noqa: F401  (the KG task families)
from argc.tasks.norms import ladder  # noqa: F401  (the normative-world tasks)

__all__ = [
    "LEVELS",
    "REGISTRY",
    "GenerationFailed",
    "Instance",
    "Score",
    "Task",
    "generate",
    "generated_tasks",
    "get_task",
    "register",
    "score",
    "score_group",
    "score_groups",
    "suite_tasks",
]
