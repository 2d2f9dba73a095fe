"""spaCy (ClearNLP-style) dependencies -> Stanford Dependencies, collapsed and cc-processed. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from typing import Any

__all__ = ["RENAME", "TEMPORAL_LEMMAS", "stanford_dependencies"]

RENAME = {
    "compound": "nn",
    "nummod": "num",
    "relcl": "rcmod",
    "acl": "vmod",
    "oprd": "xcomp",
    "intj": "discourse",
    "meta": "dep",
}

TEMPORAL_LEMMAS = frozenset(
    "day week month year today yesterday tomorrow night morning evening afternoon tonight weekend decade "
    "century hour minute second time monday tuesday wednesday thursday friday saturday sunday".split()
)

Edge = list  # [label, governor, dependent], mutable while converting


def stanford_dependencies(
    doc: Any,
) -> tuple[list[tuple[str, int, int]], dict[int, list[tuple[int, str]]], dict[int, list[tuple[int, str]]]]:
    """SD triples of a parsed spaCy ``Doc``, plus fallback relatives of collapsed tokens."""
    edges: list[Edge] = []
    for t in doc:
        if t.dep_ == "ROOT" or t.head.i == t.i:
            edges.append(["root", 0, t.i + 1])
        else:
            edges.append([t.dep_.lower(), t.head.i + 1, t.i + 1])
    lemma = {t.i + 1: t.lemma_.lower() for t in doc}
    lower = {t.i + 1: t.lower_ for t in doc}
    tag = {t.i + 1: t.tag_ for t in doc}
    ent = {t.i + 1: t.ent_type_ for t in doc}
    _copula(edges, lemma)
    extra_parents: dict[int, list[tuple[int, str]]] = {}
    extra_children: dict[int, list[tuple[int, str]]] = {}
    _prepositions(edges, lower, extra_parents, extra_children)
    _conjunctions(edges, lower, extra_parents, extra_children)
    out = []
    for label, gov, dep in edges:
        if label == "punct":
            continue
        if label == "npadvmod" and (ent[dep] in ("DATE", "TIME") or lemma[dep] in TEMPORAL_LEMMAS):
            label = "tmod"
        elif label == "case" and tag[dep] == "POS":
            label = "possessive"
        out.append((RENAME.get(label, label), gov, dep))
    return out, extra_parents, extra_children


def _children(edges: list[Edge], gov: int) -> list[Edge]:
    return [e for e in edges if e[1] == gov]


def _copula(edges: list[Edge], lemma: dict[int, str]) -> None:
    for be in [e[2] for e in edges if lemma[e[2]] == "be"]:
        kids = _children(edges, be)
        if any(e[0] == "expl" for e in kids):
            continue
        pred = next((e for e in kids if e[0] in ("acomp", "attr")), None)
        if pred is None:
            continue
        incoming = next(e for e in edges if e[2] == be)
        pred[0], pred[1] = incoming[0], incoming[1]  # the predicate takes over be's place
        incoming[0], incoming[1] = "cop", pred[2]
        for e in kids:
            if e is not pred:
                e[1] = pred[2]


def _prepositions(
    edges: list[Edge],
    lower: dict[int, str],
    extra_parents: dict[int, list[tuple[int, str]]],
    extra_children: dict[int, list[tuple[int, str]]],
) -> None:
    for e in [e for e in edges if e[0] in ("prep", "agent", "dative")]:
        prep = e[2]
        pobj = next((c for c in _children(edges, prep) if c[0] == "pobj"), None)
        if pobj is None:
            if e[0] == "dative":
                e[0] = "iobj"
            continue
        label = "agent" if e[0] == "agent" else f"prep_{lower[prep]}"
        head = e[1]
        edges.remove(e)
        pobj[0], pobj[1] = label, head
        extra_parents.setdefault(prep, []).append((head, label))
        extra_children.setdefault(prep, []).append((pobj[2], label))
        for other in _children(edges, prep):  # e.g. an adverb modifying the preposition
            other[1] = head


def _conjunctions(
    edges: list[Edge],
    lower: dict[int, str],
    extra_parents: dict[int, list[tuple[int, str]]],
    extra_children: dict[int, list[tuple[int, str]]],
) -> None:
    for e in [e for e in edges if e[0] == "conj"]:
        first, second = e[1], e[2]
        cc = next((c for c in _children(edges, first) if c[0] == "cc"), None)
        cc = cc or next((c for c in _children(edges, second) if c[0] == "cc"), None)
        if cc is None:
            continue
        label = f"conj_{lower[cc[2]]}"
        e[0] = label
        edges.remove(cc)
        extra_parents.setdefault(cc[2], []).append((first, label))
        extra_children.setdefault(cc[2], []).append((second, label))
        incoming = next((x for x in edges if x[2] == first and not x[0].startswith("conj")), None)
        if incoming is not None and incoming[0] != "root":
            edges.append([incoming[0], incoming[1], second])
