"""UCCA graphs <-> labeled span trees, the representation the built-in parser predicts. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from samsa.ucca import graph as G
from samsa.ucca.compact import CompactPassage
from samsa.ucca.queries import scenes

__all__ = ["HARMONIZE", "Span", "implicit_main_relations", "spans_to_graph", "spans_to_passage"]

HARMONIZE = {"T": "D", "Q": "E"}
UP = "^"


@dataclass(frozen=True)
class Span:
    start: int  # token index, 0-based
    end: int  # exclusive
    label: str


def spans_to_graph(tokens: list[str], spans: list[Span], passage_id: str = "1") -> nx.DiGraph:
    """Build a UCCA passage from tokens and nested labeled spans (crossing spans are dropped): the graph of
    :func:`spans_to_passage`."""
    return spans_to_passage(tokens, spans, passage_id).to_graph()


def spans_to_passage(tokens: list[str], spans: list[Span], passage_id: str = "1") -> CompactPassage:
    """:func:`spans_to_graph` as a :class:`~samsa.ucca.compact.CompactPassage` (what the parser hands scoring).

    The tree is built in plain dictionaries (units in creation order, each unit's children in the order they are
    attached), then written out with exactly the attributes ``samsa.ucca.graph``'s helpers would give them.
    """
    kinds: dict[str, str] = {G.ROOT_ID: "FN"}  # unit -> FN or PNCT, in creation order
    children: dict[str, dict[str, str]] = {G.ROOT_ID: {}}  # unit -> {child: category}, in attachment order
    parent_of: dict[str, str] = {}

    def edge(parent: str, child: str, tag: str) -> None:
        children[parent][child] = tag
        parent_of[child] = parent

    def unit(nid: str, kind: str) -> None:
        kinds[nid] = kind
        children[nid] = {}

    terms = [f"0.{k}" for k in range(1, len(tokens) + 1)]
    punct = [not t.isalnum() and not any(ch.isalnum() for ch in t) for t in tokens]  # most tokens: one C call
    ordered = sorted(spans, key=lambda s: (s.start, -(s.end - s.start)))
    stack: list[tuple[int, int, str]] = [(0, len(tokens), G.ROOT_ID)]
    owner = [G.ROOT_ID] * len(tokens)  # innermost unit of each token
    counter = 1
    up: list[str] = []
    for s in ordered:
        while stack and not (stack[-1][0] <= s.start and s.end <= stack[-1][1]):
            stack.pop()
        if not stack:
            continue
        node = stack[-1][2]
        if kinds[node] == "PNCT":
            continue  # a span inside a punctuation unit: UCCA's punctuation units hold terminals only
        for lab in s.label.split("/"):
            counter += 1
            nid = f"1.{counter}"
            is_up = lab.endswith(UP)
            tag = lab[:-1] if is_up else lab
            punct_only = tag == "U" and all(punct[s.start : s.end])
            unit(nid, "PNCT" if punct_only else "FN")
            edge(node, nid, tag)
            if is_up:
                up.append(nid)
            node = nid
        for k in range(s.start, s.end):
            owner[k] = node
        stack.append((s.start, s.end, node))
    for k, t in enumerate(terms):
        parent = owner[k]
        if punct[k] and kinds[parent] != "PNCT":
            counter += 1
            pn = f"1.{counter}"
            unit(pn, "PNCT")
            edge(parent, pn, "U")
            parent = pn
        edge(parent, t, "Terminal")
    for nid in up:  # "^": the unit belongs to its parent's parent (its edge moves to the end of the grandparent's)
        parent = parent_of[nid]
        grand = parent_of.get(parent)
        if grand is not None and nid not in children[grand]:
            children[grand][nid] = children[parent].pop(nid)
            parent_of[nid] = grand
    _drop_empty_units(kinds, children, parent_of)
    return _passage(passage_id, tokens, punct, kinds, children)


def _passage(
    passage_id: str, tokens: list[str], punct: list[bool], kinds: dict[str, str], children: dict[str, dict[str, str]]
) -> CompactPassage:
    """The passage of a built tree: the root, the terminals, the other units, then each unit's child edges."""
    p = CompactPassage({"passage_id": str(passage_id), "attributes": {}, "layer_attributes": {}})
    p.add_node(G.ROOT_ID, {"layer": "1", "type": "FN", "implicit": False, "attributes": {}, "extra": {}})
    for k, text in enumerate(tokens):
        kind = "Punctuation" if punct[k] else "Word"
        p.add_node(
            f"0.{k + 1}",
            {
                "layer": "0",
                "type": kind,
                "text": text,
                "position": k + 1,
                "paragraph": 1,
                "paragraph_position": k + 1,
                "attributes": {},
                "extra": {},
            },
        )
    for nid, kind in kinds.items():
        if nid != G.ROOT_ID:
            p.add_node(nid, {"layer": "1", "type": kind, "implicit": False, "attributes": {}, "extra": {}})
    for u, kids in children.items():
        for v, tag in kids.items():
            p.add_edge(u, v, categories=(tag,), remote=False, attributes={}, category_attributes=[{"tag": tag}])
    return p


def _drop_empty_units(kinds: dict[str, str], children: dict[str, dict[str, str]], parent_of: dict[str, str]) -> None:
    """Units left without any terminal (a malformed prediction) are removed, bottom-up."""
    todo = [n for n in kinds if n != G.ROOT_ID and not children[n]]
    while todo:
        n = todo.pop()
        if n not in kinds or children[n]:
            continue
        parent = parent_of.pop(n)
        del kinds[n], children[n], children[parent][n]
        if parent != G.ROOT_ID and not children[parent]:
            todo.append(parent)


def implicit_main_relations(p: CompactPassage, categories: frozenset[str]) -> int:
    """Give an implicit main relation (P) to every unit that enters its parent over a primary edge whose first
    category is in ``categories`` and that has no P or S child; return how many were added.

    A span parser sees only units with words, so it never predicts the implicit Scenes the annotators mark
    (a parallel Scene H with an unexpressed process, as in "» Mein Werk ? «"), and a sentence with one scores
    every correct split 0. ``categories`` is what the weights file records (``meta.decode.implicit_scenes``,
    chosen on the dev set by ``lab.scene_bias``); empty: nothing changes."""
    if not categories:
        return 0
    nodes, found = G.node_table(p), set(scenes(p))
    todo = [
        child
        for kids in G.child_table(p).values()
        for child, edge in kids.items()
        if not edge["remote"]
        and edge["categories"][0] in categories
        and nodes[child]["layer"] == "1"
        and child not in found
    ]
    counter = max((G.node_key(n)[1] for n, d in nodes.items() if d["layer"] == "1"), default=1)
    for unit in todo:
        counter += 1
        nid = f"1.{counter}"
        p.add_node(nid, {"layer": "1", "type": "FN", "implicit": True, "attributes": {"implicit": "True"}, "extra": {}})
        G.add_edge(p, unit, nid, "P")
    return len(todo)
