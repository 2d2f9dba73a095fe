"""What training reads and writes of the built-in parser, beside what inference needs (``samsa.parsers.builtin``):
the gold projections a network learns from (a passage's labeled spans, its remote pairs) and the weights file's
writers. Nothing installed calls them; ``python -m lab.train`` and ``lab/pack.py`` do.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from samsa.parsers.builtin.features import Vocab
from samsa.parsers.builtin.remotes import Pair, _units, add_remotes, candidate_pairs
from samsa.parsers.builtin.runtime import FORMATS, META_KEY
from samsa.parsers.builtin.tree import HARMONIZE, UP, Span
from samsa.ucca import graph as G

__all__ = ["gold_pairs", "graph_to_spans", "oracle_remotes", "save_weights", "update_meta"]


def graph_to_spans(g: nx.DiGraph, harmonize: bool = True) -> tuple[list[str], list[Span]]:
    """Tokens and labeled spans (root excluded) of a gold passage; ``harmonize``: UCCA v2's T and Q read as v1's
    D and E (``tree.HARMONIZE``), otherwise kept."""
    terms = G.terminals(g)
    pos = {t: k for k, t in enumerate(terms)}
    children: dict[str, list[str]] = {}
    label: dict[str, str] = {}
    parent: dict[str, str] = {}
    for u, v, d in g.edges(data=True):
        if d["remote"] or g.nodes[u]["layer"] != "1" or g.nodes[u]["type"] == "LKG":
            continue
        if g.nodes[v]["layer"] == "1" and (g.nodes[v].get("implicit") or g.nodes[v]["type"] == "LKG"):
            continue
        children.setdefault(u, []).append(v)
        if g.nodes[v]["layer"] == "1":
            label[v] = HARMONIZE.get(d["categories"][0], d["categories"][0]) if harmonize else d["categories"][0]
            parent[v] = u

    def tokens_of(u: str) -> set[int]:
        if g.nodes[u]["layer"] == "0":
            return {pos[u]}
        out: set[int] = set()
        for c in children.get(u, []):
            out |= tokens_of(c)
        return out

    # make every unit contiguous by adopting the units that fill its gaps (each unit moves at most once)
    moved: set[str] = set()
    changed = True
    while changed:
        changed = False
        for u in sorted(children, key=G.node_key):
            span = tokens_of(u)
            if not span or max(span) - min(span) + 1 == len(span):
                continue
            gap = set(range(min(span), max(span) + 1)) - span
            for p in sorted(gap):
                x = _gap_filler(terms[p], parent, children, tokens_of, gap, u)
                if x is None or x in moved:
                    continue
                moved.add(x)
                old = parent[x]
                children[old].remove(x)
                children[u].append(x)
                parent[x] = u
                label[x] = label[x] + UP
                changed = True
                break
            if changed:
                break
    spans: list[Span] = []

    def visit(u: str) -> None:
        chain = [label[u]] if u in label else []
        node = u
        while True:
            kids = [c for c in children.get(node, []) if g.nodes[c]["layer"] == "1"]
            terms_here = [c for c in children.get(node, []) if g.nodes[c]["layer"] == "0"]
            if len(kids) == 1 and not terms_here and tokens_of(kids[0]) == tokens_of(node) and node != G.ROOT_ID:
                node = kids[0]
                chain.append(label[node])
                continue
            break
        toks = tokens_of(u)
        if u != G.ROOT_ID and toks:
            spans.append(Span(min(toks), max(toks) + 1, "/".join(chain)))
        for c in children.get(node, []):
            if g.nodes[c]["layer"] == "1":
                visit(c)

    visit(G.ROOT_ID)
    return [g.nodes[t]["text"] for t in terms], spans


def _gap_filler(term, parent, children, tokens_of, gap, u):
    """The highest unit above ``term`` whose tokens lie inside ``gap`` and which is not under ``u``."""
    x = next((p for p, kids in children.items() if term in kids), None)
    if x is None or x == u:
        return None
    best = None
    while x is not None and x in parent and tokens_of(x) <= gap:
        best = x
        x = parent[x]
        if x == u:
            return None
    return best


def gold_pairs(g: nx.DiGraph) -> Iterator[tuple[Pair, str]]:
    """Candidate pairs of a gold passage with the remote label each carries ('' for none).

    A gold remote edge is matched to a candidate by the token spans of its two
    ends, so that the label attaches to whatever unit of a unary chain the
    parser will predict.
    """
    _, spans = _units(g)
    labels: dict[tuple[tuple[int, int], tuple[int, int]], str] = {}
    for u, v, d in g.edges(data=True):
        if d["remote"] and u in spans and v in spans:
            cat = d["categories"][0]
            labels[spans[u], spans[v]] = HARMONIZE.get(cat, cat)
    for p in candidate_pairs(g):
        yield p, labels.get((p.scene_span, p.unit_span), "")


def oracle_remotes(gold: nx.DiGraph, tree: nx.DiGraph) -> None:
    """Give ``tree`` the gold passage's remote edges that its candidate pairs can express (the classifier's ceiling)."""
    wanted = {(p.scene_span, p.unit_span): lab for p, lab in gold_pairs(gold) if lab}
    add_remotes(
        tree,
        [
            (p, wanted[p.scene_span, p.unit_span])
            for p in candidate_pairs(tree)
            if (p.scene_span, p.unit_span) in wanted
        ],
    )


def save_weights(
    path: str | os.PathLike[str],
    *,
    state: Mapping[str, np.ndarray],
    vocab: Vocab,
    config: Mapping[str, Any],
    meta: Mapping[str, Any],
    fmt: str = FORMATS[-1],
) -> None:
    """Write weights (float tensors as float16) and their record; atomic (temporary file, then rename)."""
    header = {"format": fmt, "vocab": vocab.to_dict(), "config": dict(config), "meta": dict(meta)}
    arrays = {
        f"state/{k}": (v.astype(np.float16) if np.issubdtype(v.dtype, np.floating) else v) for k, v in state.items()
    }
    arrays[META_KEY] = np.frombuffer(json.dumps(header, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as allow_pickle
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make a shared weights file unreadable to others
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_meta(path: str | os.PathLike[str], **fields: Any) -> None:
    """Add ``fields`` to a saved weights file's training record (atomic rewrite)."""
    with np.load(path, allow_pickle=False) as z:
        header = json.loads(z[META_KEY].tobytes().decode("utf-8"))
        state = {k[len("state/") :]: z[k] for k in z.files if k.startswith("state/")}
    header["meta"].update(fields)
    save_weights(
        path,
        state=state,
        vocab=Vocab(**header["vocab"]),
        config=header["config"],
        meta=header["meta"],
        fmt=header["format"],
    )
