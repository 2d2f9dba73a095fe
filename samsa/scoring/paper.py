"""SAMSA as the paper defines it (``compat="paper"``, the default).

Sulem, Abend & Rappoport (NAACL 2018), sections 4.1-4.2, with the choices the
paper leaves open made explicit (docs/samsa.md lists them): every category of a
multi-category edge counts, alignment is checked by token position, a unit with
several minimal centers scores 1 only if all are aligned (footnote 4), implicit
units score 0.5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from aligners.base import Aligner
from samsa.graph import is_terminal
from samsa.queries import main_relations, minimal_centers, participants, scenes, unit_terminals
from samsa.scoring.formula import samsa_from_scene_scores, scene_score
from samsa.scoring.result import SceneResult, SentenceResult, UnitCheck

__all__ = ["PaperScene", "paper_structure", "score_paper"]


@dataclass(frozen=True)
class _Unit:
    units: tuple[str, ...]
    centers: tuple[str, ...]
    terminals: frozenset[str]  # terminals that must all be aligned; empty -> 0.5

    def check(self, g: nx.DiGraph, aligned: set[str]) -> UnitCheck:
        if not self.terminals:
            score = 0.5
        else:
            score = 1.0 if self.terminals <= aligned else 0.0
        words = tuple(g.nodes[t]["text"] for t in sorted(self.terminals, key=lambda t: g.nodes[t]["position"]))
        return UnitCheck(self.units, self.centers, words, score)


def _center_terminals(g: nx.DiGraph, center: str) -> list[str]:
    if g.nodes[center].get("implicit"):
        return []
    if is_terminal(g, center):
        return [] if g.nodes[center]["type"] == "Punctuation" else [center]
    return unit_terminals(g, center, punct=False, remotes=False)


def _unit(g: nx.DiGraph, units: Sequence[str]) -> _Unit:
    centers: list[str] = []
    for u in units:
        centers.extend(c for c in minimal_centers(g, u) if c not in centers)
    terms = frozenset(t for c in centers for t in _center_terminals(g, c))
    return _Unit(tuple(units), tuple(centers), terms)


@dataclass(frozen=True)
class PaperScene:
    """What scoring needs of one scene, independent of the output: computed once per graph."""

    scene: str
    leaves: tuple[str, ...]
    words: tuple[str, ...]
    main_relation: _Unit
    participants: tuple[_Unit, ...]


def paper_structure(g: nx.DiGraph) -> tuple[PaperScene, ...]:
    """The scenes of ``g`` with their words, main relations and participants' minimal centers.

    It depends on the graph only, so scoring several systems against the same
    source computes it once (``score_paper(..., structure=)``).
    """
    out = []
    for sc in scenes(g):
        leaves = tuple(unit_terminals(g, sc, punct=False, remotes=True))
        out.append(PaperScene(sc, leaves, tuple(g.nodes[t]["text"] for t in leaves), _unit(g, main_relations(g, sc)),
                              tuple(_unit(g, [p]) for p in participants(g, sc))))  # fmt: skip
    return tuple(out)


def score_paper(
    g: nx.DiGraph,
    sentences: Sequence[Sequence[str]],
    aligner: Aligner,
    structure: Sequence[PaperScene] | None = None,
) -> SentenceResult:
    """Score one source passage against its output sentences (token lists).

    Parameters
    ----------
    g
        The source sentence's UCCA graph.
    sentences
        The system output, one token list per output sentence (empty: no output).
    aligner
        Maps scene tokens to sentence tokens; each scene is aligned with each
        sentence separately, as the released scripts do.
    structure
        ``paper_structure(g)``, when the caller already has it.
    """
    info = paper_structure(g) if structure is None else structure
    n_inp, n_out = len(info), len(sentences)
    one_to_one = n_inp == n_out
    skip_matching = n_out > n_inp  # case 2 of section 4.1: the score is 0 anyway
    used: set[int] = set()
    results = []
    for scene in info:
        sc, leaves, leaf_words = scene.scene, scene.leaves, list(scene.words)
        best_j: int | None = None
        best: set[str] = set()
        if not skip_matching:
            best_n = -1
            for j, sent in enumerate(sentences):
                if one_to_one and j in used:
                    continue
                aligned = {leaves[i] for i, _ in aligner.align(leaf_words, sent)}
                if len(aligned) > best_n:  # strict: ties go to the earliest sentence
                    best_n, best_j, best = len(aligned), j, aligned
            if one_to_one and best_j is not None:
                used.add(best_j)
        mr = scene.main_relation.check(g, best)
        parts = tuple(p.check(g, best) for p in scene.participants)
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
