"""Structural validation of a UCCA passage graph, run on every passage samsa loads or receives from a parser. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from os import PathLike

import networkx as nx

from samsa.errors import InvalidGraphError
from samsa.ucca.graph import ROOT_ID, child_table, node_table

__all__ = ["CATEGORIES", "Violation", "check_passage", "violations"]

#: UCCA's edge categories, foundational layer v1 and v2 (the ``ucca`` package's ``layer1.EdgeTags``) and the
#: terminal edge; UNA and UNC are legacy markers of unanalyzable and uncertain units
CATEGORIES = frozenset(
    {"H", "A", "P", "S", "D", "G", "C", "E", "F", "N", "R", "T", "Q", "L", "U", "LR", "LA", "Terminal", "UNA", "UNC"}
)
_TERMINAL_EDGE = frozenset({"Terminal", "U"})

_UNIT_TYPES = frozenset({"FN", "PNCT", "LKG"})
_TERMINAL_TYPES = frozenset({"Word", "Punctuation"})
_LINKAGE_TAGS = frozenset({"LR", "LA"})


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: the node it concerns (``None`` for the passage as a whole) and what is wrong."""

    node: str | None
    message: str


def violations(g: nx.DiGraph) -> list[Violation]:
    """Every structural rule ``g`` breaks (empty for a valid passage), in a fixed order."""
    out = _node_violations(g)
    if out:  # later rules assume well-typed nodes
        return out
    adj = _Adjacency.of(g)
    out += _edge_violations(g, adj)
    order = _primary_order(adj)
    out += _cycle_violations(adj, order)
    if not out:  # reachability is only defined on a DAG
        out += _terminal_reach_violations(g, adj, order)
    return out


@dataclass(frozen=True, slots=True)
class _Adjacency:
    """Children and parents of every node (edge data by neighbour) and primary children, as plain dicts.

    Built once per graph: networkx's per-node views cost more than the checks
    themselves, and this runs on every parsed sentence. ``succ`` is the
    graph's own dictionary (read only); ``pred`` is rebuilt from it, so its
    order is not the graph's (messages that name one parent read ``g.pred``).
    """

    succ: Mapping[str, Mapping[str, dict]]  # the graph's own child table
    pred: dict[str, dict[str, dict]]
    primary: dict[str, list[str]]

    @classmethod
    def of(cls, g: nx.DiGraph) -> _Adjacency:
        succ = child_table(g)
        pred: dict[str, dict[str, dict]] = {n: {} for n in succ}
        for n, nbrs in succ.items():
            for c, e in nbrs.items():
                pred[c][n] = e
        primary = {n: [c for c, e in nbrs.items() if not e["remote"]] for n, nbrs in succ.items()}
        return cls(succ, pred, primary)


def check_passage(
    g: nx.DiGraph, path: str | PathLike[str] | None = None, lines: Mapping[str, int] | None = None
) -> nx.DiGraph:
    """Return ``g`` if it is a valid passage, else raise :class:`InvalidGraphError` for its first violation.

    ``lines`` maps node IDs to the line of the XML element that defined them, so
    the error reads ``file:line: passage P: node 1.7: ...``.
    """
    found = violations(g)
    if not found:
        return g
    v = found[0]
    line = (lines or {}).get(v.node or ROOT_ID)
    more = f" (and {len(found) - 1} more problem(s))" if len(found) > 1 else ""
    where = f"node {v.node}: " if v.node else ""
    raise InvalidGraphError(
        path, line, f"passage {g.graph.get('passage_id', '?')}: {where}{v.message}{more}", node=v.node
    )


def _node_violations(g: nx.DiGraph) -> list[Violation]:
    out: list[Violation] = []
    if ROOT_ID not in g:
        return [Violation(None, "no root unit 1.1")]
    root = g.nodes[ROOT_ID]
    if root.get("layer") != "1" or root.get("type") != "FN" or root.get("implicit"):
        out.append(Violation(ROOT_ID, "the root must be a non-implicit FN unit"))
    positions: list[int] = []
    for n, d in node_table(g).items():
        layer = d.get("layer")
        prefix, _, number = str(n).partition(".")
        if layer not in ("0", "1") or prefix != layer or not number.isdigit():
            out.append(Violation(n, f"ID does not match its layer {layer!r} (expected '{layer}.<number>')"))
        elif layer == "0":
            if d.get("type") not in _TERMINAL_TYPES:
                out.append(Violation(n, f"terminal of type {d.get('type')!r}; expected Word or Punctuation"))
            if not isinstance(d.get("text"), str) or not d["text"]:
                out.append(Violation(n, "terminal without text"))
            positions.append(int(number))
        elif d.get("type") not in _UNIT_TYPES:
            out.append(Violation(n, f"unit of type {d.get('type')!r}; expected FN, PNCT or LKG"))
    if not positions:
        out.append(Violation(None, "the passage has no terminals (layer 0 is missing or empty)"))
    elif sorted(positions) != list(range(1, len(positions) + 1)):
        # n terminals that are not 0.1 ... 0.n miss one of those n numbers (bounded by n, not by the largest ID)
        missing = min(set(range(1, len(positions) + 1)).difference(positions))
        out.append(Violation(None, f"terminal IDs must run 0.1 ... 0.{len(positions)}; missing 0.{missing}"))
    return out


def _edge_violations(g: nx.DiGraph, adj: _Adjacency) -> list[Violation]:
    out: list[Violation] = []
    if adj.pred[ROOT_ID]:
        parent = next(iter(g.pred[ROOT_ID]))
        out.append(Violation(ROOT_ID, f"edge from {parent} back into the root"))
    out += [Violation(n, "edge from a node to itself") for n, kids in adj.succ.items() if n in kids]
    nodes = node_table(g)
    out += _category_violations(adj, nodes)
    for n, d in nodes.items():
        if n == ROOT_ID:
            continue
        preds = adj.pred[n]
        if d["layer"] == "0":
            if adj.succ[n]:
                out.append(Violation(n, f"terminal with children ({', '.join(sorted(adj.succ[n]))})"))
            if len(preds) > 1:
                out.append(Violation(n, f"terminal with {len(preds)} parents ({', '.join(sorted(preds))})"))
            elif any(e["remote"] for e in preds.values()):
                out.append(Violation(n, "terminal reached by a remote edge"))
            continue
        if d["type"] == "LKG":
            if preds:
                out.append(Violation(n, f"linkage unit with a parent ({next(iter(g.pred[n]))})"))
            kids = adj.succ[n]
            bad = [c for c, e in kids.items() if not _LINKAGE_TAGS.issuperset(e["categories"]) or e["remote"]]
            if bad or not kids:
                out.append(Violation(n, "linkage unit needs primary LR/LA edges only"))
            continue
        primary = [p for p, e in preds.items() if not e["remote"] and nodes[p].get("type") != "LKG"]
        if not primary:
            kind = "remote parents only" if preds else "no parent"
            out.append(Violation(n, f"orphan unit ({kind}): not connected to the root by primary edges"))
        elif len(primary) > 1:
            out.append(Violation(n, f"unit with {len(primary)} primary parents ({', '.join(sorted(primary))})"))
    return out


def _category_violations(adj: _Adjacency, nodes: Mapping[str, dict]) -> list[Violation]:
    """Edges whose categories are not UCCA's, and edges into terminals that are not Terminal edges."""
    out: list[Violation] = []
    for n, kids in adj.succ.items():
        for c, e in kids.items():
            cats = e.get("categories") or ()
            unknown = [t for t in cats if t not in CATEGORIES]
            if not cats or unknown:
                what = ", ".join(repr(t) for t in unknown) if cats else "none"
                out.append(
                    Violation(n, f"edge {n} -> {c} has category {what}; UCCA's are {', '.join(sorted(CATEGORIES))}")
                )
            elif nodes[c].get("layer") == "0" and not _TERMINAL_EDGE.issuperset(cats):
                out.append(Violation(n, f"edge {n} -> terminal {c} is {'|'.join(cats)}, not a Terminal edge"))
            elif nodes[c].get("layer") != "0" and "Terminal" in cats:
                out.append(Violation(n, f"edge {n} -> unit {c} is a Terminal edge"))
    return out


def _primary_order(adj: _Adjacency) -> list[str]:
    """Kahn's algorithm over primary edges: every node after all its primary parents. Nodes on or under a
    cycle are never freed, so the order then misses them (read by :func:`_cycle_violations`); on a DAG,
    reversed, it lists children before parents (read by :func:`_terminal_reach_violations`)."""
    indegree = dict.fromkeys(adj.primary, 0)
    for kids in adj.primary.values():
        for c in kids:
            indegree[c] += 1
    ready = [n for n, k in indegree.items() if k == 0]
    order: list[str] = []
    while ready:
        n = ready.pop()
        order.append(n)
        for c in adj.primary[n]:
            indegree[c] -= 1
            if indegree[c] == 0:
                ready.append(c)
    return order


def _cycle_violations(adj: _Adjacency, order: list[str]) -> list[Violation]:
    """Whatever :func:`_primary_order` never freed lies on or under a cycle of primary edges."""
    if len(order) == len(adj.primary):
        return []
    # what is left lies on a cycle or below one; peel off the part below (nodes with no stuck child)
    stuck = set(adj.primary).difference(order)
    outdegree = {n: sum(c in stuck for c in adj.primary[n]) for n in stuck}
    leaves = [n for n, k in outdegree.items() if k == 0]
    while leaves:
        n = leaves.pop()
        stuck.discard(n)
        for p, e in adj.pred[n].items():
            if p in stuck and not e["remote"]:
                outdegree[p] -= 1
                if outdegree[p] == 0:
                    leaves.append(p)
    first = min(stuck, key=_id_key)
    return [Violation(first, f"cycle of primary edges through {len(stuck)} unit(s)")]


def _terminal_reach_violations(g: nx.DiGraph, adj: _Adjacency, order: list[str]) -> list[Violation]:
    """Units (implicit ones aside) that reach no terminal; implicit units with children. Assumes a DAG, whose
    :func:`_primary_order` reversed visits children before parents."""
    out: list[Violation] = []
    reaches: dict[str, bool] = {}
    nodes = node_table(g)
    for n, d in nodes.items():
        if d.get("implicit") and adj.succ[n]:
            out.append(Violation(n, "implicit unit with children"))
    for n in reversed(order):
        d = nodes[n]
        if d["layer"] == "0":
            reaches[n] = True
            continue
        reaches[n] = any(reaches[c] for c in adj.primary[n])
        if not reaches[n] and not d.get("implicit"):
            out.append(Violation(n, "unit without terminals (not implicit, yet nothing under it is a word)"))
    return sorted(out, key=lambda v: _id_key(v.node or ""))


def _id_key(node_id: str) -> tuple[int, int]:
    layer, _, number = node_id.partition(".")
    return (int(layer), int(number)) if layer.isdigit() and number.isdigit() else (9, 0)
