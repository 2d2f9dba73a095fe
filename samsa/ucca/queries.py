"""Queries over a UCCA graph (see :mod:`samsa.ucca.graph`): scenes, relations, centers. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import networkx as nx

from samsa.ucca.graph import child_table, node_key, node_table

__all__ = [
    "MAIN_RELATION_TAGS",
    "centers",
    "children",
    "is_scene",
    "main_relations",
    "minimal_centers",
    "parallel_scenes",
    "participants",
    "scenes",
    "unit_terminals",
]

MAIN_RELATION_TAGS = frozenset({"P", "S"})


def children(
    g: nx.DiGraph,
    unit: str,
    tags: Collection[str] | None = None,
    *,
    first_only: bool = False,
    remote: bool = True,
) -> list[str]:
    """Children of ``unit`` ordered by node ID, optionally filtered by edge category.

    Parameters
    ----------
    tags
        Keep a child when its edge carries one of these categories (``None``: all).
    first_only
        Look only at the edge's first category (what ``edge.tag`` means in the
        ``ucca`` package) instead of all of them.
    remote
        Include children reached over remote edges.
    """
    wanted = None if tags is None else tags if isinstance(tags, (set, frozenset)) else frozenset(tags)
    out = []
    for child, data in child_table(g)[unit].items():
        if not remote and data["remote"]:
            continue
        if wanted is not None:
            cats = data["categories"][:1] if first_only else data["categories"]
            if wanted.isdisjoint(cats):
                continue
        out.append(child)
    out.sort(key=node_key)
    return out


def is_scene(g: nx.DiGraph, unit: str) -> bool:
    """A unit with an outgoing P or S edge (remote included, any category of the edge)."""
    return _is_scene_row(node_table(g)[unit], child_table(g)[unit])


def _is_scene_row(data: Mapping[str, Any], kids: Mapping[str, Any]) -> bool:
    """:func:`is_scene` on one node's attributes and its child edges, as networkx stores them."""
    return (
        data["layer"] == "1"
        and data["type"] == "FN"
        and any(not MAIN_RELATION_TAGS.isdisjoint(d["categories"]) for d in kids.values())
    )


def scenes(g: nx.DiGraph) -> list[str]:
    """All scene units in node-ID order (the order of the text for gold and parsed passages).

    One pass over networkx's dictionaries instead of :func:`is_scene`'s lookups per node (this runs on
    every parsed sentence)."""
    succ = child_table(g)
    return sorted((n for n, data in node_table(g).items() if _is_scene_row(data, succ[n])), key=node_key)


def main_relations(g: nx.DiGraph, scene: str) -> list[str]:
    """Children over an edge whose category list contains P or S."""
    return children(g, scene, MAIN_RELATION_TAGS)


def participants(g: nx.DiGraph, scene: str) -> list[str]:
    """Children over an A edge, remote participants included."""
    return children(g, scene, {"A"})


def parallel_scenes(g: nx.DiGraph, unit: str) -> list[str]:
    """Children over an H edge."""
    return children(g, unit, {"H"})


def centers(g: nx.DiGraph, unit: str) -> list[str]:
    """Children over a C edge."""
    return children(g, unit, {"C"})


def _walk_terminals(g: nx.DiGraph, unit: str, remotes: bool) -> set[str]:
    """Terminals reachable from ``unit``, each node visited once (remote edges may close a cycle)."""
    nodes, succ = node_table(g), child_table(g)
    found: set[str] = set()
    seen = {unit}  # each node expanded once: the same terminals as following each edge once, in fewer steps
    stack = [unit]  # explicit stack: no recursion limit on deep graphs
    while stack:
        node = stack.pop()
        if nodes[node]["layer"] == "0":
            found.add(node)
            continue
        for child, data in succ[node].items():
            if (data["remote"] and not remotes) or child in seen:
                continue
            seen.add(child)
            stack.append(child)
    return found


def unit_terminals(g: nx.DiGraph, unit: str, *, punct: bool = False, remotes: bool = True) -> list[str]:
    """Terminal IDs under ``unit``, each once, in text order.

    ``punct=False`` drops punctuation terminals; ``remotes=True`` also follows
    remote edges at any depth (SAMSA counts a remote participant's words as part
    of the scene).
    """
    nodes = node_table(g)
    found = _walk_terminals(g, unit, remotes)
    if not punct:
        found = {t for t in found if nodes[t]["type"] != "Punctuation"}
    return sorted(found, key=lambda t: nodes[t]["position"])


def minimal_centers(g: nx.DiGraph, unit: str) -> list[str]:
    """The minimal centers of ``unit`` following the paper (section 4.2), in node-ID order.

    Rules, applied recursively from ``unit``:

    1. a terminal, an implicit unit, or a unit with none of the children below
       is its own minimal center;
    2. a scene contributes the minimal centers of its main relation(s)
       ("if a Participant (or a Center inside a Participant) is a Scene, its
       center is the main relation");
    3. otherwise a unit with Center children contributes the minimal centers of
       **all** of them (coordination has several centers; footnote 4 then
       requires all of them);
    4. otherwise a unit with parallel scenes (H) contributes theirs.

    Remote edges are followed like primary ones. Cycles are cut.
    """
    result: list[str] = []
    _collect_centers(g, unit, result, set())
    return sorted(dict.fromkeys(result), key=node_key)


def _collect_centers(g: nx.DiGraph, unit: str, out: list[str], path: set[str]) -> None:
    """Depth-first over the center rules; ``path`` holds the units being expanded, so cycles are cut.

    An explicit stack of (unit, entering?) events replaces recursion: deep
    graphs need no recursion limit, and the visit order is the recursive one.
    """
    nodes = node_table(g)
    stack: list[tuple[str, bool]] = [(unit, True)]
    while stack:
        node, entering = stack.pop()
        if not entering:
            path.discard(node)
            continue
        if node in path:
            continue
        data = nodes[node]
        if data["layer"] == "0" or data.get("implicit"):
            out.append(node)
            continue
        rules = (main_relations,) if is_scene(g, node) else (centers, parallel_scenes)
        nxt = next((found for found in (rule(g, node) for rule in rules) if found), None)
        if nxt is None:
            out.append(node)
            continue
        path.add(node)
        stack.append((node, False))
        stack.extend((child, True) for child in reversed(nxt))
