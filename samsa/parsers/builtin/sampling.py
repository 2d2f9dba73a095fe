"""Trees drawn from the parser's distribution (perturb-and-MAP), for parse uncertainty (numpy only).

A draw adds Gumbel noise, scaled by ``tau``, to the log-probabilities of each span's best labels and of "no
unit", and a Scene-bias offset drawn from N(0, ``sigma``) to its main-relation labels, then decodes the perturbed
scores exactly as the one-best parse is decoded (:func:`~samsa.parsers.builtin.decode.decode_batch`'s steps,
remote edges included). The network runs once per sentence; only the decoding repeats. Each sentence's noise
comes from a generator seeded by ``seed`` and the sentence's tokens, so a sentence gets the same draws in any
batch, chunk or process. Only each span's best :data:`TOP_LABELS` labels are perturbed (the rest almost never
win, and perturbing every label cost most of the time).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from samsa.parsers.builtin.decode import (
    _sentence_graph,
    _sentence_log_probs,
    at_least_one_scene,
    cky_batch,
    main_relation_mask,
    pair_arrays,
    predict_remotes,
    unnest_scenes,
)
from samsa.parsers.builtin.features import Featurized, Vocab
from samsa.parsers.builtin.remotes import Pair, add_remotes, candidate_pairs
from samsa.parsers.builtin.runtime import NumpySpanNet, batch_span_log_probs
from samsa.parsers.builtin.tree import Span, spans_to_passage
from samsa.parsers.builtin.wellformed import one_center, one_main_relation
from samsa.ucca.compact import CompactPassage
from samsa.ucca.queries import scenes

__all__ = ["Perturbation", "sample_batch", "sentence_rng"]


@dataclass(frozen=True)
class Perturbation:
    """How trees are drawn: ``draws`` per sentence, Gumbel noise of scale ``tau`` on each span label's
    log-probability, a Scene-bias offset of standard deviation ``sigma`` per draw, and the base ``seed``."""

    draws: int = 24
    tau: float = 1.0
    sigma: float = 1.0
    seed: int = 0

    def signature(self) -> str:
        return f"draws.{self.draws}+tau.{self.tau:g}+sigma.{self.sigma:g}+seed.{self.seed}"


def sentence_rng(seed: int, words: Sequence[str]) -> np.random.Generator:
    """The noise generator of one sentence: its base seed and a checksum of its tokens (stable across runs)."""
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(words).encode("utf-8"))])


#: labels per span that a draw chooses among: the network's best few (noise on the rest would cost time and
#: almost never win)
TOP_LABELS = 3


@dataclass(frozen=True)
class _Candidates:
    """One sentence's span rows reduced to what draws perturb: the best :data:`TOP_LABELS` labels of each span
    (indices and log-probabilities), the no-unit log-probability, and which candidates are main relations."""

    labels: np.ndarray  # (rows, k)
    scores: np.ndarray  # (rows, k)
    null: np.ndarray  # (rows,)
    main: np.ndarray  # (rows, k) bool


def _candidates(log_probs: np.ndarray, mask: np.ndarray) -> _Candidates:
    k = min(TOP_LABELS, log_probs.shape[1] - 1)
    part = np.argpartition(-log_probs[:, 1:], k - 1, axis=1)[:, :k]  # the best k, unordered
    order = np.argsort(-np.take_along_axis(log_probs[:, 1:], part, 1), axis=1, kind="stable")
    labels = np.take_along_axis(part, order, 1) + 1
    return _Candidates(labels, np.take_along_axis(log_probs, labels, 1), log_probs[:, 0], mask[labels])


def sample_batch(
    net: NumpySpanNet,
    vocab: Vocab,
    feats: Sequence[Featurized],
    tokens: Sequence[Sequence[str]],
    how: Perturbation,
    scene_bias: float = 0.0,
    min_scene: bool = False,
) -> list[list[CompactPassage]]:
    """Per sentence, its one-best passage (no noise: what :func:`~samsa.parsers.builtin.decode.decode_batch`
    gives) followed by the passages of its ``how.draws`` draws, in draw order; a draw that decodes to the same
    tree as an earlier one of its sentence returns that passage object again."""
    mask = main_relation_mask(vocab)
    labels = list(vocab.labels)
    main_labels = {label for label, m in zip(labels, mask.tolist(), strict=True) if m}
    fence, lengths = net.encode(feats)
    rows = batch_span_log_probs(net, fence, lengths)
    assert rows.log_probs is not None
    first = np.cumsum([0] + [n * (n + 1) // 2 for n in lengths])
    size = max(lengths) + 1
    per_sentence = []
    for b in range(len(lengths)):
        lp = rows.log_probs[first[b] : first[b + 1]]
        cand = _candidates(lp + scene_bias * mask, mask)
        rng = sentence_rng(how.seed, tokens[b])
        noise = rng.gumbel(size=(how.draws + 1, len(lp), cand.labels.shape[1] + 1)) * how.tau
        offsets = rng.normal(size=how.draws + 1) * how.sigma
        noise[0], offsets[0] = 0.0, 0.0  # draw 0: the one-best tree
        per_sentence.append((lp, cand, noise, offsets))
    out: list[list[CompactPassage]] = [[] for _ in lengths]
    seen: list[dict[tuple[tuple[int, int, str], ...], CompactPassage]] = [{} for _ in lengths]
    remotes_done: set[int] = set()
    for d in range(how.draws + 1):
        best = np.zeros((len(lengths), size, size), dtype=np.int64)
        gain = np.full((len(lengths), size, size), -1.0)
        for b, (_, cand, noise, offsets) in enumerate(per_sentence):
            bias = scene_bias + float(offsets[d])
            scored = cand.scores + noise[d, :, 1:] + float(offsets[d]) * cand.main
            top = scored.argmax(-1)
            r = slice(first[b], first[b + 1])
            best[b, rows.start[r], rows.end[r]] = cand.labels[np.arange(len(top)), top]
            gain[b, rows.start[r], rows.end[r]] = scored[np.arange(len(top)), top] - (cand.null + noise[d, :, 0])
        for b, found in enumerate(cky_batch(gain, lengths)):
            lp = per_sentence[b][0]
            bias = scene_bias + float(per_sentence[b][3][d])
            n = lengths[b]
            # the later steps read the network's scores at the draw's Scene bias; trees equal after them are built
            # once
            lookup = _sentence_log_probs(lp, bias * mask, n, 0)
            at = np.array(found, dtype=np.int64).reshape(-1, 2)
            chosen = best[b, at[:, 0], at[:, 1]].tolist()
            spans = unnest_scenes([Span(i, j, labels[k]) for (i, j), k in zip(found, chosen, strict=True)])
            spans = one_center(one_main_relation(spans, n, lookup, vocab.labels), n, lookup, vocab.labels)
            key = tuple(sorted((s.start, s.end, s.label) for s in spans))
            if key not in seen[b]:
                g = spans_to_passage(list(tokens[b]), spans, passage_id="1")
                # a P or S edge makes its parent a Scene: only a tree without one can lack a Scene
                if min_scene and not any(x.label in main_labels for x in spans) and not scenes(g):
                    graph = partial(_sentence_graph, net=net, vocab=vocab, fence=fence, b=b, words=list(tokens[b]),
                                    log_probs=lp, mask=mask, steps=True, passage_id="1")  # fmt: skip
                    found_scene = at_least_one_scene(lp, n, mask, vocab.labels, bias, graph)
                    g = found_scene if found_scene is not None else g
                    if found_scene is not None:  # built with its remote edges
                        remotes_done.add(id(g))
                seen[b][key] = g
            out[b].append(seen[b][key])
    for b, trees in enumerate(seen):
        one_best = out[b][0]
        if id(one_best) not in remotes_done:  # exactly as decode_batch adds them: the headline's parse
            predict_remotes(net, vocab, fence, b, one_best)
        _add_remotes(
            net, vocab, fence, b, [g for g in trees.values() if id(g) not in remotes_done and g is not one_best]
        )
    return out


def _add_remotes(net: NumpySpanNet, vocab: Vocab, fence: np.ndarray, b: int, trees: list[CompactPassage]) -> None:
    """:func:`~samsa.parsers.builtin.decode.predict_remotes` for all the trees of sentence ``b`` at once: each
    distinct (Scene span, unit span) pair is classified once (a pair's label depends on its spans alone)."""
    if not net.has_remote or not trees:
        return
    pairs = [candidate_pairs(g) for g in trees]
    index: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
    todo: list[Pair] = []
    for ps in pairs:
        for p in ps:
            if (p.scene_span, p.unit_span) not in index:
                index[(p.scene_span, p.unit_span)] = len(todo)
                todo.append(p)
    if not todo:
        return
    labels = net.remote_logits(fence, b, *pair_arrays(todo)).argmax(-1).tolist()
    for g, ps in zip(trees, pairs, strict=True):
        found = [(p, labels[index[(p.scene_span, p.unit_span)]]) for p in ps]
        add_remotes(g, [(p, vocab.remotes[k]) for p, k in found if k])
