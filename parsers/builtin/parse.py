"""Decoding: network scores -> CKY spans -> UCCA graphs -> remote edges."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
import torch

from parsers.builtin.model import Featurized, SpanModel, Vocab, cky, pair_tensors
from parsers.builtin.remotes import add_remotes, candidate_pairs
from parsers.builtin.tree import Span, spans_to_graph

__all__ = ["decode_batch", "main_relation_mask"]


def main_relation_mask(vocab: Vocab) -> np.ndarray:
    """Span labels that make their parent a Scene: a P or S anywhere in the chain (``P``, ``H/P``, ``S^``)."""
    return np.array([any(x.rstrip("^") in ("P", "S") for x in lab.split("/")) for lab in vocab.labels])


def decode_batch(
    model: SpanModel,
    vocab: Vocab,
    feats: Sequence[Featurized],
    tokens: Sequence[Sequence[str]],
    batch: int = 32,
    scene_bias: float = 0.0,
) -> list[nx.DiGraph]:
    """Parse featurized sentences into graphs (model in eval mode, no gradients needed).

    ``scene_bias`` is added to the log-probability of every main-relation label
    (P/S) before decoding: more Scenes for a positive value (``parsers/calibrate.py``).
    """
    bias = scene_bias * main_relation_mask(vocab)
    out: list[nx.DiGraph] = []
    for b in range(0, len(feats), batch):
        chunk = feats[b : b + batch]
        fence, lengths = model.encode(chunk)
        for bi, n in enumerate(lengths):
            logp = torch.log_softmax(model.span_logits(fence, bi, n), dim=-1).numpy() + bias
            best = logp[..., 1:].argmax(-1) + 1
            gain = np.take_along_axis(logp, best[..., None], -1)[..., 0] - logp[..., 0]
            gain = np.triu(gain, 1) + np.tril(np.full_like(gain, -1.0))
            spans = [Span(i, j, vocab.labels[best[i, j]]) for i, j in cky(gain)]
            g = spans_to_graph(list(tokens[b + bi]), spans, passage_id=str(b + bi + 1))
            if model.remote is not None:
                pairs = candidate_pairs(g)
                if pairs:
                    labels = model.remote_logits(fence, bi, *pair_tensors(pairs)).argmax(-1).tolist()
                    add_remotes(g, [(p, vocab.remotes[k]) for p, k in zip(pairs, labels, strict=True) if k])
            out.append(g)
    return out
