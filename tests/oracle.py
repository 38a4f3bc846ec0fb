"""PyArg 2.0.2 as the reference oracle, for the tests: see `argc.bench.oracle`."""

from argc.bench.oracle import (
    ORDERINGS,
    SEMANTICS,
    OracleResult,
    build,
    oracle,
    transitive_closure,
)

__all__ = ["ORDERINGS", "SEMANTICS", "OracleResult", "build", "oracle", "transitive_closure"]
