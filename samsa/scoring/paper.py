"""SAMSA as the paper defines it (``compat="paper"``, the default). More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

import networkx as nx

from samsa.aligners.base import Aligner
from samsa.scoring.formula import samsa_from_scene_scores, scene_score
from samsa.scoring.matching import Match, match_scenes
from samsa.scoring.result import SceneResult, SentenceResult, UnitCheck
from samsa.ucca.graph import node_table
from samsa.ucca.queries import main_relations, minimal_centers, participants, scenes, unit_terminals

__all__ = [
    "PaperScene",
    "PaperStructure",
    "PaperUnit",
    "center_terminals",
    "paper_structure",
    "score_paper",
]


@dataclass(frozen=True)
class PaperUnit:
    """A main relation or participant as scoring reads it: its units, their minimal centers, and the terminals
    that must all be aligned for it to score 1 (none: an implicit unit, 0.5)."""

    units: tuple[str, ...]
    centers: tuple[str, ...]
    terminals: frozenset[str]  # terminals that must all be aligned; empty -> 0.5
    words: tuple[str, ...] = ()  # the terminals' words in sentence order (what a report shows)

    def check(self, aligned: set[str]) -> UnitCheck:
        if not self.terminals:
            score = 0.5
        else:
            score = 1.0 if self.terminals <= aligned else 0.0
        return UnitCheck(self.units, self.centers, self.words, score)


def center_terminals(g: nx.DiGraph, center: str) -> list[str]:
    """The non-punctuation terminals of a minimal center (none for an implicit unit)."""
    data = node_table(g)[center]
    if data.get("implicit"):
        return []
    if data["layer"] == "0":
        return [] if data["type"] == "Punctuation" else [center]
    return unit_terminals(g, center, punct=False, remotes=False)


def _unit(g: nx.DiGraph, units: Sequence[str]) -> PaperUnit:
    nodes = node_table(g)
    centers: list[str] = []
    for u in units:
        centers.extend(c for c in minimal_centers(g, u) if c not in centers)
    terms = frozenset(t for c in centers for t in center_terminals(g, c))
    words = tuple(nodes[t]["text"] for t in sorted(terms, key=lambda t: nodes[t]["position"]))
    return PaperUnit(tuple(units), tuple(centers), terms, words)


@dataclass(frozen=True)
class PaperScene:
    """What scoring needs of one scene, independent of the output: computed once per graph."""

    scene: str
    leaves: tuple[str, ...]
    words: tuple[str, ...]
    main_relation: PaperUnit
    participants: tuple[PaperUnit, ...]


#: a graph's scenes, each with what scoring reads (computed once per graph)
PaperStructure: TypeAlias = tuple[PaperScene, ...]


def paper_structure(g: nx.DiGraph) -> PaperStructure:
    """The scenes of ``g`` with their words, main relations and participants' minimal centers.

    It depends on the graph only, so scoring several systems against the same
    source computes it once (``score_paper(..., structure=)``), and the parse
    cache keeps it (``samsa.engine.entries``): a warm run scores without
    rebuilding any graph.
    """
    nodes = node_table(g)
    out = []
    for sc in scenes(g):
        leaves = tuple(unit_terminals(g, sc, punct=False, remotes=True))
        out.append(
            PaperScene(
                sc,
                leaves,
                tuple(nodes[t]["text"] for t in leaves),
                _unit(g, main_relations(g, sc)),
                tuple(_unit(g, [p]) for p in participants(g, sc)),
            )
        )
    return tuple(out)


def score_paper(
    g: nx.DiGraph | None,
    sentences: Sequence[Sequence[str]],
    aligner: Aligner,
    structure: Sequence[PaperScene] | None = None,
) -> SentenceResult:
    """Score one source passage against its output sentences (token lists).

    Parameters
    ----------
    g
        The source sentence's UCCA graph (only read when ``structure`` is not given).
    sentences
        The system output, one token list per output sentence (empty: no output).
    aligner
        Maps scene tokens to sentence tokens; each scene is aligned with each
        sentence separately, as the released scripts do.
    structure
        ``paper_structure(g)``, when the caller already has it.
    """
    if structure is None:
        if g is None:
            raise ValueError("score_paper needs a graph or its structure")
        structure = paper_structure(g)
    n_inp, n_out = len(structure), len(sentences)
    if n_out > n_inp:  # case 2 of section 4.1: the score is 0 anyway, nothing is matched
        matches: list[Match] = [(None, [])] * n_inp
    else:
        rules = {"exclusive": n_inp == n_out, "take_unaligned": True, "distinct": True}
        matches = match_scenes([sc.words for sc in structure], sentences, aligner, **rules)
    results = []
    for scene, (best_j, pairs) in zip(structure, matches, strict=True):
        sc, leaves, leaf_words = scene.scene, scene.leaves, list(scene.words)
        best = {leaves[i] for i, _ in pairs}
        mr = scene.main_relation.check(best)
        parts = tuple(p.check(best) for p in scene.participants)
        results.append(
            SceneResult(
                scene=sc,
                words=tuple(leaf_words),
                sentence=best_j,
                match=len(best),
                main_relation=mr,
                participants=parts,
                score=scene_score(mr.score, [p.score for p in parts]),
            )
        )
    samsa, abl = samsa_from_scene_scores([r.score for r in results], n_out)
    return SentenceResult(samsa, abl, n_inp, n_out, tuple(results), compat="paper")
