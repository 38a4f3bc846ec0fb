"""Reasoning tasks built on solved theories: generators, ASP gates and targets, prompts,
answer grammars and scorers, registered by name (`REGISTRY`: a task's module is imported when
the task is first looked up)."""

from argc.tasks.framework import (
    BUILTIN_TASKS,
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

__all__ = [
    "BUILTIN_TASKS",
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
