"""What the report's per-sentence explorer shows: a source's Scenes and, per system, how each scored. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from samsa.scoring.metric import Samsa
from samsa.scoring.paper import PaperScene, PaperUnit, center_terminals
from samsa.ucca.graph import terminals
from samsa.ucca.queries import unit_terminals

__all__ = ["explain_output", "explain_source"]


def _positions(index: dict[str, int], ids: Sequence[str]) -> list[int]:
    return sorted(index[t] for t in ids)


def _unit(g: nx.DiGraph, index: dict[str, int], unit: PaperUnit) -> dict[str, Any]:
    span: set[str] = set()
    for u in unit.units:
        span.update(unit_terminals(g, u, punct=True, remotes=False))
    centers = [
        {
            "words": [g.nodes[t]["text"] for t in sorted(center_terminals(g, c), key=lambda t: g.nodes[t]["position"])],
            "pos": _positions(index, center_terminals(g, c)),
            "implicit": bool(g.nodes[c].get("implicit")),
        }
        for c in unit.centers
    ]
    return {"pos": _positions(index, list(span)), "centers": centers}


def explain_source(g: nx.DiGraph, structure: Sequence[PaperScene]) -> dict[str, Any]:
    """Tokens and scenes of one source graph (output-independent)."""
    terms = terminals(g)
    index = {t: i for i, t in enumerate(terms)}
    return {
        "tokens": [g.nodes[t]["text"] for t in terms],
        "scenes": [
            {
                "unit": sc.scene,
                "pos": _positions(index, sc.leaves),
                "mr": _unit(g, index, sc.main_relation),
                "parts": [_unit(g, index, p) for p in sc.participants],
            }
            for sc in structure
        ],
    }


def explain_output(
    g: nx.DiGraph, structure: Sequence[PaperScene], output: str, metric: Samsa, result: Any = None
) -> tuple[dict[str, Any], Any]:
    """How one output line scored against one source: its sentences, each scene's match and center checks
    (``result``: the line's sentence result where the run that parsed it scored it already, with ``metric``)."""
    sentences = metric.split(output)
    if result is None:
        result = metric.score_graph(g, sentences, structure=structure)
    index = {t: i for i, t in enumerate(terminals(g))}
    scenes = []
    for sc, r in zip(structure, result.scenes, strict=True):
        aligned: list[int] = []
        if r.sentence is not None:
            pairs = metric.aligner.align(list(sc.words), sentences[r.sentence])
            aligned = _positions(index, [sc.leaves[i] for i, _ in pairs])
        scenes.append(
            {
                "sent": r.sentence,
                "aligned": aligned,
                "mr": r.main_relation.score,
                "parts": [p.score for p in r.participants],
                "score": r.score,
            }
        )
    detail = {
        "out": output,
        "sents": sentences,
        "samsa": result.samsa,
        "abl": result.samsa_abl,
        "n_out": result.n_sentences,
        "scenes": scenes,
    }
    return detail, result
