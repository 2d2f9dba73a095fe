"""A passage held in the two tables networkx keeps for a graph, without networkx: what the built-in parser hands
scoring. More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

from typing import Any

import networkx as nx

__all__ = ["CompactPassage", "as_graph"]


class CompactPassage:
    """Nodes and child edges with their attributes, as networkx keeps them: ``_node`` (``{node: attributes}``,
    in insertion order) and ``_succ`` (``{node: {child: edge attributes}}``, every node a key, in the same order).

    Supports what building a parse needs (``n in p``, :meth:`has_edge`, :meth:`add_edge` with networkx's
    signature, so that :func:`samsa.ucca.graph.add_edge` works on it) and reading it; nothing removes a node.
    """

    def __init__(self, graph: dict[str, Any]) -> None:
        self.graph = graph
        self._node: dict[str, dict[str, Any]] = {}
        self._succ: dict[str, dict[str, dict[str, Any]]] = {}

    def add_node(self, node: str, attributes: dict[str, Any]) -> None:
        """Add a node (a new one: the parser numbers its nodes) with its attribute dictionary (kept, not copied)."""
        self._node[node] = attributes
        self._succ[node] = {}

    def add_edge(self, parent: str, child: str, **attributes: Any) -> None:
        """Add the edge ``parent -> child`` after the parent's other child edges (both nodes exist)."""
        self._succ[parent][child] = attributes

    def has_edge(self, parent: str, child: str) -> bool:
        return child in self._succ.get(parent, ())

    def __contains__(self, node: object) -> bool:
        return node in self._node

    def __len__(self) -> int:
        return len(self._node)

    def to_graph(self) -> nx.DiGraph:
        """The same passage as a :class:`networkx.DiGraph`: equal nodes, edges and attributes, in the same order."""
        g = nx.DiGraph(**self.graph)
        g.add_nodes_from(self._node.items())
        g.add_edges_from((u, v, d) for u, kids in self._succ.items() for v, d in kids.items())
        return g


def as_graph(passage: Any) -> Any:
    """``passage`` as a :class:`networkx.DiGraph` (a :class:`CompactPassage` converted; anything else as given)."""
    return passage.to_graph() if isinstance(passage, CompactPassage) else passage
