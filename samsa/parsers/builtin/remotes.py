"""Remote edges: candidate (scene, unit) pairs, their gold labels, and adding predicted ones to a graph. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from typing import NamedTuple

import networkx as nx
import numpy as np

from samsa.ucca import graph as G
from samsa.ucca.queries import scenes

__all__ = [
    "Pair",
    "add_remotes",
    "candidate_pairs",
    "distance_bucket",
    "distance_buckets",
]

#: relative-position buckets of a pair: target left/right of the scene x token gap 0, 1, 2, 3-4, 5-8, 9-16, 17+
N_BUCKETS = 14


class Pair(NamedTuple):
    """A candidate remote edge, by node and by token span (start inclusive, end exclusive).

    A named tuple rather than a dataclass: a parsed sentence has about 60 candidates, built on every parse.
    """

    scene: str
    unit: str
    scene_span: tuple[int, int]
    unit_span: tuple[int, int]

    @property
    def bucket(self) -> int:
        return distance_bucket(self.scene_span, self.unit_span)


#: gap sizes closing each distance bucket (a larger gap: the last bucket)
_GAPS = (0, 1, 2, 4, 8, 16)


def distance_bucket(scene: tuple[int, int], unit: tuple[int, int]) -> int:
    right = unit[0] >= scene[1]
    gap = unit[0] - scene[1] if right else scene[0] - unit[1]
    size = next((k for k, top in enumerate(_GAPS) if gap <= top), len(_GAPS))
    return size + (len(_GAPS) + 1 if right else 0)


def distance_buckets(scenes: np.ndarray, units: np.ndarray) -> np.ndarray:
    """:func:`distance_bucket` of (m, 2) scene and unit spans at once (what the decoder feeds the network)."""
    right = units[:, 0] >= scenes[:, 1]
    gap = np.where(right, units[:, 0] - scenes[:, 1], scenes[:, 0] - units[:, 1])
    return np.searchsorted(_GAPS, gap, side="left") + np.where(right, len(_GAPS) + 1, 0)


def _primary_tokens(g: nx.DiGraph, positions: dict[str, int]) -> dict[str, frozenset[int]]:
    """Token positions under each layer-1 unit, following primary edges only."""
    out: dict[str, frozenset[int]] = {}
    succ, nodes = G.child_table(g), G.node_table(g)  # per-node views cost more than this walk

    def visit(u: str) -> frozenset[int]:
        if u in out:
            return out[u]
        if nodes[u]["layer"] == "0":
            return frozenset((positions[u],))
        acc: set[int] = set()
        for c, e in succ[u].items():
            if not e["remote"]:
                acc |= visit(c)
        out[u] = frozenset(acc)
        return out[u]

    for n in sorted((n for n, d in nodes.items() if d["layer"] == "1"), key=G.node_key):
        visit(n)
    return out


def _units(g: nx.DiGraph) -> tuple[dict[str, frozenset[int]], dict[str, tuple[int, int]]]:
    terms = G.terminals(g)
    positions = {t: k for k, t in enumerate(terms)}
    toks = _primary_tokens(g, positions)
    spans = {u: (min(t), max(t) + 1) for u, t in toks.items() if t}
    return toks, spans


def candidate_pairs(g: nx.DiGraph) -> list[Pair]:
    """Every (Scene, unit) pair that could carry a remote edge, in a fixed order.

    Units are non-root, non-punctuation, non-implicit, non-linkage units whose
    tokens are disjoint from the Scene's; of units with the same tokens (a unary
    chain) only the outermost one is a candidate.
    """
    toks, spans = _units(g)
    nodes = G.node_table(g)
    targets: dict[frozenset[int], str] = {}
    for u in sorted(spans, key=G.node_key):  # parents precede children in node-ID order for parsed graphs
        d = nodes[u]
        if u == G.ROOT_ID or d["type"] in ("PNCT", "LKG") or d.get("implicit"):
            continue
        targets.setdefault(toks[u], u)
    out = []
    for s in scenes(g):
        if s not in spans:
            continue
        s_toks, s_span = toks[s], spans[s]
        out += [Pair(s, u, s_span, spans[u]) for t_toks, u in targets.items() if not (t_toks & s_toks)]
    return out


def add_remotes(g: nx.DiGraph, predicted: list[tuple[Pair, str]]) -> None:
    """Add predicted remote edges (skipping any pair already joined by an edge)."""
    for p, label in predicted:
        if not g.has_edge(p.scene, p.unit):
            G.add_edge(g, p.scene, p.unit, label, remote=True)
