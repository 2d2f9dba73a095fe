"""SAMSA exactly as the EASSE toolkit computes it (``compat="easse"``), quirks included. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import networkx as nx

from samsa.aligners.base import Aligner
from samsa.errors import ScoringError
from samsa.scoring.formula import samsa_from_scene_scores, scene_score
from samsa.scoring.matching import match_scenes
from samsa.scoring.result import SceneResult, SentenceResult, UnitCheck
from samsa.ucca.queries import children as _all_children
from samsa.ucca.queries import is_scene, scenes, unit_terminals

__all__ = ["easse_words", "score_easse"]

PS = frozenset({"P", "S"})


def _children(g: nx.DiGraph, unit: str, tags: Collection[str]) -> list[str]:
    return _all_children(g, unit, tags, first_only=True)


def easse_words(g: nx.DiGraph, unit: str) -> list[str]:
    """Words of a unit as EASSE's ``flatten_unit``: no punctuation, remotes included,
    in position order, a word dropped when equal to the previous kept word."""
    words: list[str] = []
    for t in unit_terminals(g, unit, punct=False, remotes=True):
        w = g.nodes[t]["text"]
        if not words or w != words[-1]:
            words.append(w)
    return words


def _descend(g: nx.DiGraph, nodes: list[str], tags: Collection[str]) -> list[str]:
    """Follow the LAST member's children until none are left; return the last non-empty level."""
    last = nodes
    for _ in range(g.number_of_nodes() + 1):
        if not nodes:
            return last
        nxt: list[str] = []
        for c in nodes:
            nxt = _children(g, c, tags)
        last, nodes = nodes, nxt
    raise ScoringError(f"passage {g.graph.get('passage_id')}: cycle of {sorted(tags)} edges below {last}")


def _relation_centers(g: nx.DiGraph, scene_ids: list[str]) -> list[list[str]]:
    rel: list[list[str]] = []
    for sc in scene_ids:
        mrs = _children(g, sc, PS)
        for mr in mrs:
            cs = _children(g, mr, {"C"})
            group = _descend(g, cs, {"C"}) if cs else mrs
            rel.append(easse_words(g, group[-1]))
    return rel


def _participant_nodes(g: nx.DiGraph, scene_ids: list[str]) -> list[list[list[str]]]:
    n: list[list[list[str]]] = []
    for sc in scene_ids:
        m: list[list[str]] = []
        for pa in _children(g, sc, {"A"}):
            cs = _children(g, pa, {"C"})
            if cs:
                m.append(_descend(g, cs, {"C", "P", "S"}))
            elif is_scene(g, pa):
                scs = _children(g, pa, PS)
                for s in scs:
                    cc = _children(g, s, {"C"})
                    m.append(_descend(g, cc, {"C"}) if cc else scs)
            elif any(d["categories"][0] == "H" for d in g.succ[pa].values()):
                mh: list[str] = []
                for h in _children(g, pa, {"H"}):
                    hr = _children(g, h, PS)
                    for r in hr:
                        cc = _children(g, r, {"C"})
                        mh.append(_descend(g, cc, {"C"})[0] if cc else hr[0])
                m.append(mh)
            else:
                m.append([pa])
        n.append(m)
    return n


def _participant_centers(g: nx.DiGraph, n: list[list[list[str]]]) -> list[list[list[str]]]:
    """Expand multi-node entries, take words, merge back: EASSE's index arithmetic, verbatim."""
    s: list[list[list[str]]] = []
    multi: list[tuple[int, int]] = []
    for scp in n:
        r: list[list[str]] = []
        u = n.index(scp)
        for par in scp:
            if len(par) > 1:
                d = scp.index(par)
                r.extend([x] for x in par)
                multi.append((u, d))
            else:
                r.append(par)
        s.append(r)
    out = [[easse_words(g, par[0]) for par in scp if len(par) == 1] for scp in s]
    merged: list[list[list[str]]] = []
    for scp_words in out:
        x: list[list[str]] = []
        for par in scp_words:
            for u, d in multi:
                span = len(n[u][d])
                if par == out[u][d]:
                    for k in range(1, span):
                        par.append(out[u][d + k][0])  # mutates out[u][d] in place, as EASSE does
                    x.append(par)
                elif all(par != out[u][d + k] for k in range(1, span)):
                    x.append(par)
            if not multi:
                x.append(par)
        merged.append(x)
    return merged


def _check(words: list[str], src: list[str]) -> float:
    if not words:
        return 0.5
    return 1.0 if all(w in src for w in words) else 0.0


def score_easse(g: nx.DiGraph, sentences: Sequence[Sequence[str]], aligner: Aligner) -> SentenceResult:
    """Score one source passage against its output sentences as EASSE does.

    Raises
    ------
    ScoringError
        Where EASSE raises an index error (e.g. a scene whose only main relation
        sits on a multi-category edge such as ``A``+``P``).
    """
    scene_ids = scenes(g)
    n_inp, n_out = len(scene_ids), len(sentences)
    if n_inp == 0 or n_out > n_inp:  # EASSE computes nothing in this case
        return SentenceResult(0.0, 0.0, n_inp, n_out, (), compat="easse")
    pid = g.graph.get("passage_id")
    allow_multiple = n_inp > n_out
    scene_words = [easse_words(g, sc) for sc in scene_ids]
    rules = {"exclusive": not allow_multiple, "take_unaligned": False, "distinct": False}
    matches = match_scenes(scene_words, sentences, aligner, **rules)
    matched = [j for j, _ in matches]
    aligned = [
        [(words[i], sentences[j][k]) for i, k in pairs] if j is not None else []
        for words, (j, pairs) in zip(scene_words, matches, strict=True)
    ]
    try:
        rel = _relation_centers(g, scene_ids)
        nodes = _participant_nodes(g, scene_ids)
        par_centers = _participant_centers(g, nodes)
        results = []
        for i, pairs in enumerate(aligned):
            src = [a for a, _ in pairs]
            mr = UnitCheck((), (), tuple(rel[i]), _check(rel[i], src))
            parts = tuple(UnitCheck((), (), tuple(a), _check(a, src)) for a in par_centers[i])
            v = scene_score(mr.score, [p.score for p in parts])
            results.append(SceneResult(scene_ids[i], tuple(scene_words[i]), matched[i], len(pairs), mr, parts, v))
    except IndexError:
        raise ScoringError(
            f"passage {pid}: EASSE's SAMSA raises an index error on this graph (usually a scene whose "
            "main relation is only on a multi-category edge, e.g. A+P); use compat='paper'"
        ) from None
    samsa, abl = samsa_from_scene_scores([r.score for r in results], n_out)
    return SentenceResult(samsa, abl, n_inp, n_out, tuple(results), compat="easse")
