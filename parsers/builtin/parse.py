"""Decoding: network scores -> CKY spans -> UCCA graphs."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
import torch

from parsers.builtin.model import Featurized, SpanModel, Vocab, cky
from parsers.builtin.tree import Span, spans_to_graph

__all__ = ["decode_batch"]


def decode_batch(
    model: SpanModel, vocab: Vocab, feats: Sequence[Featurized], tokens: Sequence[Sequence[str]], batch: int = 32
) -> list[nx.DiGraph]:
    """Parse featurized sentences into graphs (model in eval mode, no gradients needed)."""
    out: list[nx.DiGraph] = []
    for b in range(0, len(feats), batch):
        chunk = feats[b : b + batch]
        fence, lengths = model.encode(chunk)
        for bi, n in enumerate(lengths):
            logp = torch.log_softmax(model.span_logits(fence, bi, n), dim=-1).numpy()
            best = logp[..., 1:].argmax(-1) + 1
            gain = np.take_along_axis(logp, best[..., None], -1)[..., 0] - logp[..., 0]
            gain = np.triu(gain, 1) + np.tril(np.full_like(gain, -1.0))
            spans = [Span(i, j, vocab.labels[best[i, j]]) for i, j in cky(gain)]
            out.append(spans_to_graph(list(tokens[b + bi]), spans, passage_id=str(b + bi + 1)))
    return out
