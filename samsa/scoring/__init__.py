"""SAMSA scoring: the paper's definition and the EASSE-compatible one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from samsa.aligners.base import Aligner
from samsa.config import COMPAT_NAMES, Compat, check_choice
from samsa.scoring.easse import score_easse
from samsa.scoring.formula import corpus_mean, samsa_from_scene_scores, scene_score
from samsa.scoring.paper import paper_structure, score_paper
from samsa.scoring.result import SceneResult, SentenceResult, UnitCheck

__all__ = [
    "COMPAT_MODES",
    "SceneResult",
    "SentenceResult",
    "UnitCheck",
    "corpus_mean",
    "fit_graph",
    "graph_structure",
    "samsa_from_scene_scores",
    "scene_score",
    "scene_tokens",
    "score_easse",
    "score_paper",
    "score_passage",
]

COMPAT_MODES = {"paper": score_paper, "easse": score_easse}


def scene_tokens(g: nx.DiGraph, compat: Compat = "paper") -> list[list[str]]:
    """The token list each scene is aligned with, in the given mode (for batch pre-annotation)."""
    from samsa.scoring.easse import easse_words
    from samsa.ucca.queries import scenes, unit_terminals

    if compat == "easse":
        return [easse_words(g, sc) for sc in scenes(g)]
    return [[g.nodes[t]["text"] for t in unit_terminals(g, sc)] for sc in scenes(g)]


def score_passage(
    g: nx.DiGraph,
    sentences: Sequence[Sequence[str]],
    aligner: Aligner,
    compat: Compat = "paper",
    structure: Any = None,
) -> SentenceResult:
    """Score one source graph against tokenized output sentences in the chosen mode.

    ``structure``: :func:`graph_structure` of ``g``, to reuse across several outputs of the same source.
    """
    check_choice("compat mode", compat, COMPAT_NAMES)
    fn = COMPAT_MODES[compat]
    if structure is not None and compat == "paper":
        return score_paper(g, sentences, aligner, structure)
    return fn(g, sentences, aligner)


def graph_structure(g: nx.DiGraph, compat: Compat = "paper") -> Any:
    """The output-independent part of scoring ``g`` (paper mode; ``None`` for modes that have none)."""
    return paper_structure(g) if compat == "paper" else None
