"""The predicates a query reads that nothing defines: most often a misspelt name.

A query's rule bodies read the solved model's predicates (docs/encodings.md). A predicate
that no encoding mentions, no fact of the theory has and no rule of the query defines has
no atoms, so the rules reading it never fire and the query silently shows nothing (or is
unsatisfiable); `undefined_predicates` names each such predicate where it is first read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from clingo import ast

from argc.compiler.control import parsed_encoding

Signature = tuple[str, int]


def _atoms(node: ast.AST) -> Iterator[tuple[Signature, ast.AST]]:
    """The predicate of every symbolic atom below `node`, with the atom."""
    if node.ast_type == ast.ASTType.SymbolicAtom:
        term = node.symbol
        if term.ast_type == ast.ASTType.Function and not term.external:
            yield (term.name, len(term.arguments)), term
        elif term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type.name == "Function":
            yield (term.symbol.name, len(term.symbol.arguments)), term
        return
    for key in node.child_keys:
        child = getattr(node, key)
        for item in child if isinstance(child, Sequence) else [child]:
            if isinstance(item, ast.AST):
                yield from _atoms(item)


def _statements(text: str) -> list[ast.AST]:
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return statements


def _heads_and_bodies(
    statements: Iterable[ast.AST],
) -> tuple[set[Signature], dict[Signature, ast.AST]]:
    """The predicates the statements define (rule heads) and those they read (first use)."""
    defined: set[Signature] = set()
    read: dict[Signature, ast.AST] = {}
    for statement in statements:
        if statement.ast_type != ast.ASTType.Rule:
            continue
        defined.update(signature for signature, _ in _atoms(statement.head))
        for part in statement.body:
            for signature, term in _atoms(part):
                read.setdefault(signature, term)
    return defined, read


@cache
def known_predicates(encodings: tuple[str, ...]) -> frozenset[Signature]:
    """Every predicate the encodings mention, in heads or bodies (the theory's fact
    predicates among them: the encodings read each one), computed once per program."""
    known: set[Signature] = set()
    for name in encodings:
        defined, read = _heads_and_bodies(parsed_encoding(name))
        known |= defined | set(read)
    return frozenset(known)


def undefined_predicates(program: str, known: frozenset[Signature]) -> list[str]:
    """`<block>:line:column: warning: ...` for each predicate the program reads that neither
    `known` nor a head of the program gives, in the order first read."""
    defined, read = _heads_and_bodies(_statements(program))
    warnings = []
    for (name, arity), term in read.items():
        if (name, arity) in known or (name, arity) in defined:
            continue
        begin = term.location.begin
        warnings.append(
            f"<block>:{begin.line}:{begin.column}: warning: {name}/{arity} has no atoms: no"
            " encoding, fact or rule of the query defines it (misspelt? docs/encodings.md"
            " lists the predicates)"
        )
    return warnings
