"""Graph algorithms the languages' checks share."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence


def strongly_connected(graph: Mapping[Hashable, Sequence[Hashable]]) -> Iterator[set[Hashable]]:
    """The strongly connected components of a directed graph, given as each node's
    successors (a node missing as a key has none), by Tarjan's algorithm, iterative: linear
    in the graph, with no recursion limit."""
    index: dict[Hashable, int] = {}
    low: dict[Hashable, int] = {}
    stack: list[Hashable] = []
    on_stack: set[Hashable] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph.get(successor, ()))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    yield component
