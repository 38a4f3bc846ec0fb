"""argc's tasks inside other people's environment libraries (the `integrations` extra).

`argc.integrations.reasoning_gym` registers every argc task with Reasoning Gym. Nothing here
is imported by `import argc`: each adapter is imported by name, and needs its library.
"""
