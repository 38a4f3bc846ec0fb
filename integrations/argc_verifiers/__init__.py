"""The verifiers taskset `argc-verifiers` (`vf-eval argc-verifiers`).

A re-export of `argc.integrations.verifiers`, whose docstring shows its use: verifiers imports a
taskset id as a top-level package (`argc-verifiers` as `argc_verifiers`) and takes the Taskset
subclass its `__all__` exports. Installed as its own package (pyproject's package-dir).
"""

from argc.integrations.verifiers import *  # noqa: F403 - the same names
from argc.integrations.verifiers import __all__  # noqa: F401 - and the same exports
