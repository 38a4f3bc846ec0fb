"""argc: ASPIC+ argumentation theories compiled to Answer Set Programming and solved with clingo."""

__version__ = "0.1.0"
