"""Decoding: network scores -> CKY spans -> UCCA graphs -> remote edges (numpy only)."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from parsers.builtin.features import Featurized, Vocab
from parsers.builtin.remotes import add_remotes, candidate_pairs
from parsers.builtin.runtime import NumpySpanNet
from parsers.builtin.tree import UP, Span, spans_to_graph

__all__ = ["cky", "decode_batch", "main_relation_mask", "pair_arrays", "unnest_scenes"]

_MAIN = ("P", "S")


def unnest_scenes(spans: Sequence[Span]) -> list[Span]:
    """Relabel C a P/S unit directly inside a P/S unit ("began [living]" as a Scene inside a main relation).

    The gold annotation never nests a Scene in a main relation, while the span
    classifier sometimes does, which adds a spurious Scene and takes the main
    relation's center away (docs/parser.md). A chain label is read top-down:
    the parent's innermost category and the child's outermost one are compared.
    """
    order = sorted(range(len(spans)), key=lambda k: (spans[k].start, -spans[k].end))
    out = list(spans)
    stack: list[int] = []
    for k in order:
        s = spans[k]
        while stack and spans[stack[-1]].end <= s.start:
            stack.pop()
        if stack:
            parent = spans[stack[-1]].label.split("/")[-1].rstrip(UP)
            head, *rest = s.label.split("/")
            if parent in _MAIN and head.rstrip(UP) in _MAIN:
                out[k] = Span(s.start, s.end, "/".join(["C" + head[len(head.rstrip(UP)) :], *rest]))
        stack.append(k)
    return out


def main_relation_mask(vocab: Vocab) -> np.ndarray:
    """Span labels that make their parent a Scene: a P or S anywhere in the chain (``P``, ``H/P``, ``S^``)."""
    return np.array([any(x.rstrip("^") in ("P", "S") for x in lab.split("/")) for lab in vocab.labels])


def pair_arrays(pairs: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scene spans, unit spans, buckets) of :class:`~parsers.builtin.remotes.Pair` objects, for ``remote_logits``."""
    return (
        np.array([p.scene_span for p in pairs], dtype=np.int64).reshape(-1, 2),
        np.array([p.unit_span for p in pairs], dtype=np.int64).reshape(-1, 2),
        np.array([p.bucket for p in pairs], dtype=np.int64),
    )


def cky(scores: np.ndarray) -> list[tuple[int, int]]:
    """Best nested set of spans under per-span gains (``scores[i, j]``; a span is kept iff its gain > 0).

    Every span of the best binary bracketing is "free" (gain 0) unless its gain is
    positive, so the result is the highest-scoring tree whose units are the
    positive spans it contains. ``scores`` is (n+1, n+1); the whole sentence (0, n)
    is included when its own gain is positive.
    """
    n = scores.shape[0] - 1
    gain = np.maximum(scores, 0.0)
    chart = np.zeros((n + 1, n + 1))
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n):
        chart[i, i + 1] = gain[i, i + 1]
    for length in range(2, n + 1):
        starts = np.arange(0, n - length + 1)
        mids = starts[:, None] + np.arange(1, length)[None, :]
        vals = chart[starts[:, None], mids] + chart[mids, starts[:, None] + length]
        best = vals.argmax(axis=1)
        ends = starts + length
        chart[starts, ends] = gain[starts, ends] + vals[np.arange(len(starts)), best]
        split[starts, ends] = mids[np.arange(len(starts)), best]
    out: list[tuple[int, int]] = []
    todo = [(0, n)]
    while todo:
        i, j = todo.pop()
        if scores[i, j] > 0:
            out.append((i, j))
        if j - i > 1:
            k = int(split[i, j])
            todo.extend([(i, k), (k, j)])
    return out


def decode_batch(
    net: NumpySpanNet,
    vocab: Vocab,
    feats: Sequence[Featurized],
    tokens: Sequence[Sequence[str]],
    batch: int = 32,
    scene_bias: float = 0.0,
    unnest: bool = False,
) -> list[nx.DiGraph]:
    """Parse featurized sentences into graphs.

    ``scene_bias`` is added to the log-probability of every main-relation label
    (P/S) before decoding: more Scenes for a positive value (``parsers/calibrate.py``).
    ``unnest``: apply :func:`unnest_scenes` to the decoded spans.
    """
    bias = scene_bias * main_relation_mask(vocab)
    out: list[nx.DiGraph] = []
    for b in range(0, len(feats), batch):
        chunk = feats[b : b + batch]
        fence, lengths = net.encode(chunk)
        for bi, n in enumerate(lengths):
            iu = np.triu_indices(n + 1, 1)
            logp = net.span_log_probs(fence, bi, n) + bias  # (m, L): spans i < j in triu order
            top = logp[:, 1:].argmax(-1) + 1
            best = np.zeros((n + 1, n + 1), dtype=np.int64)
            best[iu] = top
            gain = np.full((n + 1, n + 1), -1.0)
            gain[iu] = logp[np.arange(len(top)), top] - logp[:, 0]
            spans = [Span(i, j, vocab.labels[best[i, j]]) for i, j in cky(gain)]
            if unnest:
                spans = unnest_scenes(spans)
            g = spans_to_graph(list(tokens[b + bi]), spans, passage_id=str(b + bi + 1))
            if net.has_remote:
                pairs = candidate_pairs(g)
                if pairs:
                    labels = net.remote_logits(fence, bi, *pair_arrays(pairs)).argmax(-1).tolist()
                    add_remotes(g, [(p, vocab.remotes[k]) for p, k in zip(pairs, labels, strict=True) if k])
            out.append(g)
    return out
