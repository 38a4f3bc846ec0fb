"""argc's tasks inside other people's environment libraries (the `integrations` extra).

`argc.integrations.reasoning_gym` registers every argc task with Reasoning Gym;
`argc.integrations.verifiers` is the verifiers taskset `argc-verifiers` (re-exported by the
top-level package `argc_verifiers`). Nothing here is imported by `import argc`: each adapter
is imported by name, and needs its library.
"""
