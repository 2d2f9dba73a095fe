"""SAMSA as the paper defines it (``compat="paper"``, the default).

Sulem, Abend & Rappoport (NAACL 2018), sections 4.1-4.2, with the choices the
paper leaves open made explicit (docs/samsa.md lists them): every category of a
multi-category edge counts, alignment is checked by token position, a unit with
several minimal centers scores 1 only if all are aligned (footnote 4), implicit
units score 0.5.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeAlias

import networkx as nx

from samsa.aligners.base import Aligner
from samsa.scoring.formula import samsa_from_scene_scores, scene_score
from samsa.scoring.result import SceneResult, SentenceResult, UnitCheck
from samsa.ucca.graph import node_table
from samsa.ucca.queries import main_relations, minimal_centers, participants, scenes, unit_terminals

__all__ = [
    "PaperScene",
    "PaperStructure",
    "decode_structure",
    "encode_structure",
    "paper_structure",
    "score_paper",
    "structure_version",
]


@dataclass(frozen=True)
class _Unit:
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


def _center_terminals(g: nx.DiGraph, center: str) -> list[str]:
    data = node_table(g)[center]
    if data.get("implicit"):
        return []
    if data["layer"] == "0":
        return [] if data["type"] == "Punctuation" else [center]
    return unit_terminals(g, center, punct=False, remotes=False)


def _unit(g: nx.DiGraph, units: Sequence[str]) -> _Unit:
    nodes = node_table(g)
    centers: list[str] = []
    for u in units:
        centers.extend(c for c in minimal_centers(g, u) if c not in centers)
    terms = frozenset(t for c in centers for t in _center_terminals(g, c))
    words = tuple(nodes[t]["text"] for t in sorted(terms, key=lambda t: nodes[t]["position"]))
    return _Unit(tuple(units), tuple(centers), terms, words)


@dataclass(frozen=True)
class PaperScene:
    """What scoring needs of one scene, independent of the output: computed once per graph."""

    scene: str
    leaves: tuple[str, ...]
    words: tuple[str, ...]
    main_relation: _Unit
    participants: tuple[_Unit, ...]


#: a graph's scenes, each with what scoring reads (computed once per graph)
PaperStructure: TypeAlias = tuple[PaperScene, ...]


def paper_structure(g: nx.DiGraph) -> PaperStructure:
    """The scenes of ``g`` with their words, main relations and participants' minimal centers.

    It depends on the graph only, so scoring several systems against the same
    source computes it once (``score_paper(..., structure=)``), and the parse
    cache keeps it (:func:`encode_structure`): a warm run scores without
    rebuilding any graph.
    """
    nodes = node_table(g)
    out = []
    for sc in scenes(g):
        leaves = tuple(unit_terminals(g, sc, punct=False, remotes=True))
        out.append(PaperScene(sc, leaves, tuple(nodes[t]["text"] for t in leaves), _unit(g, main_relations(g, sc)),
                              tuple(_unit(g, [p]) for p in participants(g, sc))))  # fmt: skip
    return tuple(out)


@lru_cache(maxsize=1)
def structure_version() -> str:
    """A digest of the code that derives a structure from a graph (this module, ``queries``, ``graph``).

    Stored next to every cached structure: a samsa whose scene rules changed
    recomputes the structure from the cached graph instead of trusting it.
    """
    import samsa.ucca.graph
    import samsa.ucca.queries

    h = hashlib.sha256()
    for module in (samsa.ucca.graph.__file__, samsa.ucca.queries.__file__, __file__):
        h.update(Path(module).read_bytes())
    return "paper:" + h.hexdigest()[:24]


def encode_structure(structure: Sequence[PaperScene], g: nx.DiGraph) -> str:
    """A structure as compact JSON (the parse cache stores it beside the graph); :func:`decode_structure` inverts it.

    Terminals are written with their positions in ``g`` so that decoding can
    check them against the input tokens.
    """

    def unit(u: _Unit) -> list[object]:
        terms = sorted(u.terminals, key=lambda t: g.nodes[t]["position"])
        return [list(u.units), list(u.centers), terms, list(u.words)]

    def rows(st: Sequence[PaperScene]) -> list[object]:
        return [[sc.scene, [[t, g.nodes[t]["position"]] for t in sc.leaves], list(sc.words), unit(sc.main_relation),
                 [unit(p) for p in sc.participants]] for sc in st]  # fmt: skip

    doc = {"v": structure_version(), "scenes": rows(structure)}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def decode_structure(text: str | bytes, sentence: str | Sequence[str]) -> PaperStructure | None:
    """The structure in ``text``, or None when it does not decode, comes from other scene rules
    (:func:`structure_version`), or names words that are not ``sentence``'s tokens at their positions."""
    try:
        doc = json.loads(text)
        if doc["v"] != structure_version():
            return None
        tokens = None if isinstance(sentence, str) else list(sentence)
        return _decode_scenes(doc["scenes"], tokens)
    except (ValueError, TypeError, KeyError):
        return None


def _decode_scenes(rows: list[Any], tokens: list[str] | None) -> PaperStructure:
    """Scenes written by :func:`encode_structure`; ``ValueError`` where a leaf is not the token at its position."""
    out = []
    for scene, leaves, words, mr, parts in rows:
        if len(leaves) != len(words) or (tokens is not None and not _at_positions(leaves, words, tokens)):
            raise ValueError("a scene's leaves are not the input's tokens")
        leaf_ids = tuple(str(t) for t, _ in leaves)
        out.append(PaperScene(str(scene), leaf_ids, tuple(map(str, words)), _decode_unit(mr),
                              tuple(_decode_unit(p) for p in parts)))  # fmt: skip
    return tuple(out)


def _at_positions(leaves: list[list[object]], words: list[str], tokens: list[str]) -> bool:
    """Each leaf's word is the input token at the leaf's (1-based) position."""
    for (_, pos), w in zip(leaves, words, strict=True):
        if not isinstance(pos, int) or not 0 < pos <= len(tokens) or tokens[pos - 1] != w:
            return False
    return True


def _decode_unit(row: list[list[str]]) -> _Unit:
    units, centers, terms, words = row
    if len(terms) != len(words):
        raise ValueError("a unit's terminals and words differ in number")
    return _Unit(tuple(map(str, units)), tuple(map(str, centers)), frozenset(map(str, terms)), tuple(map(str, words)))


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
    info = structure
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
