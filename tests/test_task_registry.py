"""The task registry: built-in tasks imported when first looked up, listed in a fixed order,
and the table of built-in tasks in step with what the task modules register."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import argc.tasks
from argc.tasks import BUILTIN_TASKS, REGISTRY, register
from argc.tasks.framework import Scorer


def test_every_task_module_of_the_package_registers_only_tasks_of_the_table():
    for module in pkgutil.walk_packages(argc.tasks.__path__, "argc.tasks."):
        importlib.import_module(module.name)
    shipped = {
        name for name, task in REGISTRY.items() if type(task).__module__.startswith("argc.tasks.")
    }
    assert shipped == set(BUILTIN_TASKS)
    for name, module in BUILTIN_TASKS.items():
        assert type(REGISTRY[name]).__module__ == module


def test_the_registry_lists_built_in_tasks_in_the_table_order_then_the_others(monkeypatch):
    monkeypatch.setattr(argc.tasks.framework.REGISTRY, "_tasks", dict(REGISTRY._tasks))
    before = list(REGISTRY)  # other tests may have registered tasks of their own

    @register
    class Extra(Scorer):
        name = "aaa_extra"

        def score_answer(self, instance, answer):
            raise NotImplementedError

    listed = list(REGISTRY)
    assert listed[: len(BUILTIN_TASKS)] == list(BUILTIN_TASKS)
    assert listed == [*before, "aaa_extra"] and len(REGISTRY) == len(before) + 1
    assert "aaa_extra" in REGISTRY and "aaa_extra" in REGISTRY.names()


def test_looking_a_task_up_imports_its_module_alone():
    code = (
        "import sys\n"
        "from argc.tasks import REGISTRY\n"
        "names = REGISTRY.names()\n"
        "assert 'kg_deductive' in REGISTRY and 'norm_answer' in names\n"
        "REGISTRY['status_query']\n"
        "print(sorted(m for m in sys.modules if m.startswith(('argc.tasks.arggym.',"
        " 'argc.tasks.kg.scoring', 'argc.tasks.norms.ladder'))))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    imported = eval(found)  # noqa: S307 - a list of module names printed just above
    assert "argc.tasks.arggym.status_query" in imported
    assert not {
        "argc.tasks.arggym.attack",
        "argc.tasks.arggym.intervention",
        "argc.tasks.kg.scoring",
        "argc.tasks.norms.ladder",
    } & set(imported)
