"""The UCCA graph model: a passage is a :class:`networkx.DiGraph`. More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

__all__ = [
    "ROOT_ID",
    "add_edge",
    "add_terminal",
    "add_unit",
    "child_table",
    "from_json",
    "from_tokens",
    "is_terminal",
    "join_passages",
    "new_passage",
    "node_key",
    "node_table",
    "terminals",
    "to_json",
    "tokens",
]

ROOT_ID = "1.1"


def node_key(node_id: str) -> tuple[int, int]:
    """Sort key of a UCCA node ID: layer, then the numeric part (``1.2`` before ``1.10``).

    This is the order the ``ucca`` package keeps children and ``layer.all`` in,
    which the EASSE compatibility mode depends on.
    """
    layer, _, number = node_id.partition(".")
    try:
        return int(layer), int(number)
    except ValueError:
        raise ValueError(f"malformed UCCA node ID {node_id!r}; expected '<layer>.<number>'") from None


def new_passage(passage_id: str = "1", *, attributes: Mapping[str, str] | None = None) -> nx.DiGraph:
    """An empty passage holding only the root unit ``1.1``."""
    g = nx.DiGraph(passage_id=str(passage_id), attributes=dict(attributes or {}), layer_attributes={})
    g.add_node(ROOT_ID, layer="1", type="FN", implicit=False, attributes={}, extra={})
    return g


def add_terminal(
    g: nx.DiGraph,
    text: str,
    *,
    punct: bool = False,
    paragraph: int = 1,
    paragraph_position: int | None = None,
    attributes: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
    node_id: str | None = None,
    position: int | None = None,
) -> str:
    """Append a terminal after the existing ones and return its ID (``0.<position>``).

    ``position`` (1-based) may be given by a caller that builds terminals in order,
    which saves counting the existing ones (quadratic over a sentence).
    """
    if position is None:
        position = sum(1 for _, layer in g.nodes(data="layer") if layer == "0") + 1
    nid = node_id or f"0.{position}"
    g.add_node(
        nid,
        layer="0",
        type="Punctuation" if punct else "Word",
        text=text,
        position=position,
        paragraph=paragraph,
        paragraph_position=paragraph_position if paragraph_position is not None else position,
        attributes=dict(attributes or {}),
        extra=dict(extra or {}),
    )
    return nid


def add_unit(
    g: nx.DiGraph,
    node_id: str,
    *,
    type: str = "FN",
    implicit: bool = False,
    attributes: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
) -> str:
    """Add (or update) a layer-1 unit and return its ID."""
    node_key(node_id)
    attrs = dict(attributes or {})
    if implicit:
        attrs.setdefault("implicit", "True")
    g.add_node(node_id, layer="1", type=type, implicit=implicit, attributes=attrs, extra=dict(extra or {}))
    return node_id


def add_edge(
    g: nx.DiGraph,
    parent: str,
    child: str,
    categories: str | Sequence[str],
    *,
    remote: bool = False,
    attributes: Mapping[str, str] | None = None,
    category_attributes: Sequence[Mapping[str, str]] | None = None,
) -> None:
    """Add an edge; ``categories`` is one tag or a sequence of tags (first = primary tag).

    Raises
    ------
    ValueError
        If an endpoint is missing, no category is given, or the edge would
        duplicate an existing parent-child pair (UCCA allows one edge per pair;
        several roles go into one multi-category edge).
    """
    cats = (categories,) if isinstance(categories, str) else tuple(categories)
    if not cats:
        raise ValueError(f"edge {parent} -> {child} has no category")
    for end in (parent, child):
        if end not in g:
            raise ValueError(f"edge {parent} -> {child}: node {end} does not exist")
    if g.has_edge(parent, child):
        raise ValueError(f"duplicate edge {parent} -> {child}; merge the categories into one edge")
    attrs = dict(attributes or {})
    if remote:
        attrs["remote"] = "True"
    g.add_edge(
        parent,
        child,
        categories=cats,
        remote=remote,
        attributes=attrs,
        category_attributes=[dict(c) for c in (category_attributes or [{"tag": t} for t in cats])],
    )


def is_terminal(g: nx.DiGraph, node: str) -> bool:
    """True for layer-0 nodes (words and punctuation)."""
    return node_table(g)[node]["layer"] == "0"


# networkx's own dictionaries, read as its algorithms read them: its per-call views (``g.nodes[n]``,
# ``g.succ[n]``) cost more than the queries that scoring runs some hundred times per sentence. Read only.
def node_table(g: nx.DiGraph) -> Mapping[str, dict[str, Any]]:
    """``{node: attributes}`` of ``g`` (``g.nodes[n]`` without a view per call), read only."""
    return g._node


def child_table(g: nx.DiGraph) -> Mapping[str, Mapping[str, dict[str, Any]]]:
    """``{node: {child: edge attributes}}`` of ``g`` (``g.succ[n]`` without a view per call), read only."""
    return g._succ


def terminals(g: nx.DiGraph) -> list[str]:
    """All terminal IDs in text order."""
    nodes = node_table(g)
    return sorted((n for n, d in nodes.items() if d["layer"] == "0"), key=lambda n: nodes[n]["position"])


def tokens(g: nx.DiGraph) -> list[str]:
    """The passage text as a token list (punctuation included)."""
    return [g.nodes[t]["text"] for t in terminals(g)]


def from_tokens(words: Iterable[str], passage_id: str = "1", *, punct: Iterable[bool] | None = None) -> nx.DiGraph:
    """A passage holding only terminals: a starting point for hand-built graphs and parsers."""
    g = new_passage(passage_id)
    flags = list(punct) if punct is not None else None
    for i, w in enumerate(words):
        add_terminal(g, w, punct=bool(flags[i]) if flags is not None else False)
    return g


def join_passages(graphs: Sequence[nx.DiGraph], passage_id: str = "1") -> nx.DiGraph:
    """One passage holding ``graphs`` in order (a document of sentences): terminals numbered on (``0.k``, their
    positions counting on, each graph's paragraphs after the ones before), units renumbered after the ones before
    (``1.k``, in each graph's order), and the graphs' roots made one root ``1.1`` whose children are every graph's
    top-level units and terminals, in order. Every unit, edge and category (remote edges included) is the graph's
    own, so the joined passage has exactly the graphs' Scenes, in order. A single graph comes back as a copy of
    itself (its IDs unchanged), named ``passage_id``.

    >>> a, b = from_tokens(["Hi", "."]), from_tokens(["Bye"])
    >>> j = join_passages([a, b], "doc")
    >>> tokens(j), [j.nodes[t]["paragraph"] for t in terminals(j)], j.graph["passage_id"]
    (['Hi', '.', 'Bye'], [1, 1, 2], 'doc')
    """
    if len(graphs) == 1:
        out = graphs[0].copy()
        out.graph["passage_id"] = passage_id
        return out
    out = new_passage(passage_id)
    n_terms = n_units = n_paragraphs = 0
    for g in graphs:
        nodes = node_table(g)
        terms = terminals(g)
        units = sorted((n for n, d in nodes.items() if d["layer"] == "1" and n != ROOT_ID), key=node_key)
        rename = {ROOT_ID: ROOT_ID}
        rename.update({t: f"0.{n_terms + i}" for i, t in enumerate(terms, 1)})
        rename.update({u: f"1.{n_units + i}" for i, u in enumerate(units, 2)})
        for n, d in nodes.items():
            if n == ROOT_ID:
                continue
            data = dict(d)
            if d["layer"] == "0":
                data["position"] = int(rename[n].partition(".")[2])
                data["paragraph"] = n_paragraphs + int(d.get("paragraph", 1))
            out.add_node(rename[n], **data)
        edges = child_table(g).items()
        out.add_edges_from((rename[u], rename[v], dict(d)) for u, kids in edges for v, d in kids.items())
        n_terms += len(terms)
        n_units += len(units)
        n_paragraphs += max((int(nodes[t].get("paragraph", 1)) for t in terms), default=0)
    return out


_TERMINAL_KEYS = ("layer", "type", "text", "position", "paragraph", "paragraph_position", "attributes", "extra")
_UNIT_KEYS = ("layer", "type", "implicit", "attributes", "extra")
_EDGE_KEYS = ("categories", "remote", "attributes", "category_attributes")
_TERMINAL_SET, _UNIT_SET, _EDGE_SET = frozenset(_TERMINAL_KEYS), frozenset(_UNIT_KEYS), frozenset(_EDGE_KEYS)


def _default_edge_attrs(cats: Sequence[str], remote: bool) -> tuple[dict[str, str], list[dict[str, str]]]:
    return ({"remote": "True"} if remote else {}), [{"tag": t} for t in cats]


def to_json(g: nx.DiGraph) -> str:
    """The whole graph (attributes, node and edge order) as compact JSON; :func:`from_json` inverts it exactly.

    Rows instead of dictionaries, and attributes left out where they have their
    default value: about three times smaller and faster to read than a plain
    node-link dump, which matters for the parse cache.
    """
    nodes = []
    for n, d in node_table(g).items():
        keys, known = (_TERMINAL_KEYS, _TERMINAL_SET) if d.get("layer") == "0" else (_UNIT_KEYS, _UNIT_SET)
        row: list[Any] = [n, *map(d.get, keys)]
        row[-2] = row[-2] or None  # empty attribute dictionaries
        row[-1] = row[-1] or None
        if not known.issuperset(d):
            row.append({k: v for k, v in d.items() if k not in known})
        nodes.append(row)
    edges = []
    for u, nbrs in child_table(g).items():
        for v, d in nbrs.items():
            cats = list(d["categories"])
            remote = bool(d["remote"])
            attrs, cat_attrs = d.get("attributes"), d.get("category_attributes")
            row = [
                u,
                v,
                cats,
                remote,
                None if attrs == ({"remote": "True"} if remote else {}) else attrs,
                None if cat_attrs == [{"tag": t} for t in cats] else cat_attrs,
            ]
            if not _EDGE_SET.issuperset(d):
                row.append({k: x for k, x in d.items() if k not in _EDGE_SET})
            edges.append(row)
    return json.dumps(
        {"v": 2, "graph": g.graph, "nodes": nodes, "edges": edges}, ensure_ascii=False, separators=(",", ":")
    )


def from_json(text: str | bytes) -> nx.DiGraph:
    """Rebuild a graph written by :func:`to_json`; ``ValueError`` when the text is not one."""
    try:
        data = json.loads(text)
        if data.get("v") != 2:
            raise ValueError(f"unknown version {data.get('v')!r}")
        g = nx.DiGraph(**data["graph"])
        if isinstance(g.graph.get("layer_attributes"), dict):  # the XML reader keeps (attributes, extra) tuples
            g.graph["layer_attributes"] = {k: tuple(v) for k, v in g.graph["layer_attributes"].items()}
        nodes = []
        for row in data["nodes"]:
            layer = row[1]
            keys = _TERMINAL_KEYS if layer == "0" else _UNIT_KEYS
            if layer not in ("0", "1") or not isinstance(row[0], str) or len(row) not in (len(keys) + 1, len(keys) + 2):
                raise ValueError(f"bad node row {row[:2]!r}")
            attrs = dict(zip(keys, row[1 : len(keys) + 1], strict=True))
            attrs["attributes"] = attrs["attributes"] or {}
            attrs["extra"] = attrs["extra"] or {}
            if len(row) == len(keys) + 2:
                attrs.update(row[-1])
            nodes.append((row[0], attrs))
        g.add_nodes_from(nodes)
        edges = []
        for row in data["edges"]:
            u, v, cats, remote, attributes, cat_attrs = row[:6]
            if u not in g or v not in g or not cats:
                raise ValueError(f"bad edge {u!r} -> {v!r}")
            default_attrs, default_cats = _default_edge_attrs(cats, remote)
            attrs = {
                "categories": tuple(cats),
                "remote": bool(remote),
                "attributes": default_attrs if attributes is None else attributes,
                "category_attributes": default_cats if cat_attrs is None else cat_attrs,
            }
            if len(row) == 7:
                attrs.update(row[6])
            edges.append((u, v, attrs))
        g.add_edges_from(edges)
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        raise ValueError(f"not a serialized UCCA graph: {e!r}") from None
    if ROOT_ID not in g:
        raise ValueError("not a serialized UCCA graph: no root unit")
    return g
