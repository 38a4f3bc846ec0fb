"""Reasoning tasks built on solved theories: generators, ASP gates and targets, prompts,
answer grammars and scorers, registered by name."""

from argc.tasks import claim_chain, formalization, status_query  # noqa: F401  (registers tasks)
from argc.tasks.framework import (
    LEVELS,
    REGISTRY,
    GenerationFailed,
    Instance,
    Score,
    Task,
    generate,
    get_task,
    register,
    score,
)

__all__ = [
    "LEVELS",
    "REGISTRY",
    "GenerationFailed",
    "Instance",
    "Score",
    "Task",
    "generate",
    "get_task",
    "register",
    "score",
]
