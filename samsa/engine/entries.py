"""What an entry of the parse cache holds, encoded and decoded: the parser's input in a canonical form, the graph
(compressed compact JSON), and beside it the graph's paper-mode scoring structure
(``samsa.scoring.paper.paper_structure``, compact JSON tagged with the version of the Scene rules, so
that a warm run scores without rebuilding any graph and a samsa whose Scene rules changed derives it again).
Workers encode in parallel; the parent only writes (``samsa.engine.cache``)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from samsa.scoring.paper import PaperScene, PaperStructure, PaperUnit
from samsa.ucca.graph import from_json, node_table, to_json, tokens

__all__ = [
    "STRUCTURE_VERSION",
    "DrawnStructures",
    "decode_draws",
    "decode_graph",
    "decode_structure",
    "encode_draws",
    "encode_graph",
    "encode_structure",
    "input_text",
    "sampler_key",
]


def input_text(sentence: str | Sequence[str]) -> str:
    """The cache's canonical form of one parser input: raw text and token lists never collide."""
    if isinstance(sentence, str):
        return json.dumps(["text", sentence], ensure_ascii=False)
    return json.dumps(["tokens", list(sentence)], ensure_ascii=False)


def encode_graph(g: nx.DiGraph) -> bytes:
    """A graph as the cache stores it (compressed compact JSON); workers encode in parallel, the parent only writes."""
    return zlib.compress(to_json(g).encode("utf-8"), 6)


def decode_graph(payload: bytes, sentence: str | Sequence[str]) -> nx.DiGraph | None:
    """The graph in ``payload``, or None when it does not decode or its tokens are not ``sentence``'s."""
    try:
        g = from_json(zlib.decompress(payload))
    except (ValueError, zlib.error):
        return None
    if not isinstance(sentence, str) and tokens(g) != list(sentence):
        return None
    return g


#: the version of the Scene rules a cached structure was derived with (what ``samsa.scoring.paper.paper_structure``
#: gives a graph): a cached structure of another version is derived again from its graph. Raise it with any change
#: of those rules; ``tests/test_parse_cache.py`` holds a digest of the structures of known passages and says when.
STRUCTURE_VERSION = "paper:2"


def encode_structure(structure: Sequence[PaperScene], g: nx.DiGraph) -> str:
    """A structure as compact JSON (the parse cache stores it beside the graph); :func:`decode_structure` inverts it.

    Terminals are written with their positions in ``g`` so that decoding can
    check them against the input tokens.
    """
    doc = {"v": STRUCTURE_VERSION, "scenes": _scene_rows(structure, g)}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class DrawnStructures:
    """The paper-mode scoring structures of a source's drawn trees: each distinct tree's once (``structures``) and,
    for each draw, the index of its tree there (``order``); ``passages``: the trees' passages where they were drawn
    in this process (what :func:`encode_draws` reads the terminals' positions from), else None."""

    structures: tuple[PaperStructure, ...]
    order: tuple[int, ...]
    passages: tuple[Any, ...] | None = None


def encode_draws(drawn: DrawnStructures) -> str:
    """The structures of a source's drawn trees as compact JSON, each distinct tree once; :func:`decode_draws`
    inverts it."""
    if drawn.passages is None:
        raise ValueError("drawn trees are encoded from the passages they were drawn as")
    trees = [_scene_rows(st, p) for st, p in zip(drawn.structures, drawn.passages, strict=True)]
    return json.dumps(
        {"v": STRUCTURE_VERSION, "trees": trees, "order": list(drawn.order)}, ensure_ascii=False, separators=(",", ":")
    )


def _scene_rows(structure: Sequence[PaperScene], g: Any) -> list[object]:
    nodes = node_table(g)

    def unit(u: PaperUnit) -> list[object]:
        terms = sorted(u.terminals, key=lambda t: nodes[t]["position"])
        return [list(u.units), list(u.centers), terms, list(u.words)]

    return [
        [
            sc.scene,
            [[t, nodes[t]["position"]] for t in sc.leaves],
            list(sc.words),
            unit(sc.main_relation),
            [unit(p) for p in sc.participants],
        ]
        for sc in structure
    ]


def decode_structure(text: str | bytes, sentence: str | Sequence[str]) -> PaperStructure | None:
    """The structure in ``text``, or None when it does not decode, comes from other scene rules
    (:data:`STRUCTURE_VERSION`), or names words that are not ``sentence``'s tokens at their positions."""
    try:
        doc = json.loads(text)
        if doc["v"] != STRUCTURE_VERSION:
            return None
        tokens = None if isinstance(sentence, str) else list(sentence)
        return _decode_scenes(doc["scenes"], tokens)
    except (ValueError, TypeError, KeyError):
        return None


def decode_draws(text: str | bytes, sentence: str | Sequence[str]) -> DrawnStructures | None:
    """The drawn trees' structures in ``text`` (:func:`encode_draws`), or None on the terms of
    :func:`decode_structure` (and when a draw names no tree)."""
    try:
        doc = json.loads(text)
        if doc["v"] != STRUCTURE_VERSION:
            return None
        tokens = None if isinstance(sentence, str) else list(sentence)
        trees = tuple(_decode_scenes(rows, tokens) for rows in doc["trees"])
        order = tuple(int(k) for k in doc["order"])
        if any(not 0 <= k < len(trees) for k in order):
            return None
        return DrawnStructures(trees, order)
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def sampler_key(n_draws: int, tau: float, sigma: float) -> str:
    """What a source's drawn trees depend on besides the parser (whose cache key the parse cache pairs this with):
    the sampler's version and the perturbation.

    >>> sampler_key(4, 0.5, 3.0)
    '1+draws.4+tau.0.5+sigma.3'
    """
    from samsa.parsers.builtin.sampling import SAMPLER_VERSION

    return f"{SAMPLER_VERSION}+draws.{n_draws}+tau.{tau:g}+sigma.{sigma:g}"


def _decode_scenes(rows: list[Any], tokens: list[str] | None) -> PaperStructure:
    """Scenes written by :func:`encode_structure`; ``ValueError`` where a leaf is not the token at its position."""
    out = []
    for scene, leaves, words, mr, parts in rows:
        if len(leaves) != len(words) or (tokens is not None and not _at_positions(leaves, words, tokens)):
            raise ValueError("a scene's leaves are not the input's tokens")
        leaf_ids = tuple(str(t) for t, _ in leaves)
        out.append(
            PaperScene(
                str(scene), leaf_ids, tuple(map(str, words)), _decode_unit(mr), tuple(_decode_unit(p) for p in parts)
            )
        )
    return tuple(out)


def _at_positions(leaves: list[list[object]], words: list[str], tokens: list[str]) -> bool:
    """Each leaf's word is the input token at the leaf's (1-based) position."""
    for (_, pos), w in zip(leaves, words, strict=True):
        if not isinstance(pos, int) or not 0 < pos <= len(tokens) or tokens[pos - 1] != w:
            return False
    return True


def _decode_unit(row: list[list[str]]) -> PaperUnit:
    units, centers, terms, words = row
    if len(terms) != len(words):
        raise ValueError("a unit's terminals and words differ in number")
    return PaperUnit(
        tuple(map(str, units)), tuple(map(str, centers)), frozenset(map(str, terms)), tuple(map(str, words))
    )
