"""Trees drawn from the parser's distribution (perturb-and-MAP), for parse uncertainty (numpy only). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from samsa.parsers.builtin.blocks import row_blocks
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
from samsa.parsers.builtin.runtime import NumpySpanNet, SpanRows, batch_span_log_probs
from samsa.parsers.builtin.tree import Span, implicit_main_relations, spans_to_passage
from samsa.parsers.builtin.wellformed import one_center, one_main_relation
from samsa.ucca.compact import CompactPassage
from samsa.ucca.queries import scenes

__all__ = ["SAMPLER_VERSION", "DrawnTrees", "Perturbation", "TreeKey", "sample_batch", "sentence_rng"]

#: the version of the drawing rules (noise, decoding of a draw): the parse cache keys drawn trees by it, so raise
#: it with any change that gives a sentence other trees for the same parser and perturbation
SAMPLER_VERSION = "1"


@dataclass(frozen=True)
class Perturbation:
    """How trees are drawn: ``n_draws`` per sentence, Gumbel noise of scale ``tau`` on each span label's
    log-probability, a Scene-bias offset of standard deviation ``sigma`` per draw, and the base ``seed``."""

    n_draws: int
    tau: float
    sigma: float
    seed: int = 0


#: a tree as its sentence's draws tell trees apart: its spans after the decoding's later steps
TreeKey = tuple[tuple[int, int, str], ...]


@dataclass(frozen=True)
class DrawnTrees:
    """A sentence's one-best passage and the trees drawn from the parser's distribution: each distinct drawn tree
    once (``trees``, in the order of its first draw) and, for each draw, the index of its tree there (``order``).
    A draw that decodes to the one-best tree has the one-best passage itself as its tree."""

    best: CompactPassage
    trees: tuple[CompactPassage, ...]
    order: tuple[int, ...]

    def draws(self) -> list[CompactPassage]:
        """The passage of each draw, in draw order."""
        return [self.trees[k] for k in self.order]

    @classmethod
    def of_keys(cls, passages: dict[TreeKey, CompactPassage], keys: Sequence[TreeKey]) -> DrawnTrees:
        """The drawn trees of a sentence whose draws decoded to ``keys`` (draw 0: the one-best tree)."""
        index: dict[TreeKey, int] = {}
        for key in keys[1:]:
            index.setdefault(key, len(index))
        return cls(passages[keys[0]], tuple(passages[k] for k in index), tuple(index[k] for k in keys[1:]))


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


def _candidates(log_probs: np.ndarray, mask: np.ndarray, bias: np.ndarray) -> _Candidates:
    """The candidates of ``log_probs + bias``, row block by row block (a block's float64 copy bounds the memory)."""
    k = min(TOP_LABELS, log_probs.shape[1] - 1)
    labels = np.empty((len(log_probs), k), dtype=np.int64)
    scores = np.empty((len(log_probs), k))
    null = np.empty(len(log_probs))
    for block in row_blocks(len(log_probs)):
        lp = log_probs[block] + bias
        part = np.argpartition(-lp[:, 1:], k - 1, axis=1)[:, :k]  # the best k, unordered
        order = np.argsort(-np.take_along_axis(lp[:, 1:], part, 1), axis=1, kind="stable")
        labels[block] = np.take_along_axis(part, order, 1) + 1
        scores[block] = np.take_along_axis(lp, labels[block], 1)
        null[block] = lp[:, 0]
    return _Candidates(labels, scores, null, mask[labels])


@dataclass
class _Sentence:
    """One sentence of a batch as the draws read it: its span rows (``rows``, log-probabilities ``lp``), its
    candidates, each draw's noise and Scene-bias offset (draw 0: none), and its distinct trees so far."""

    b: int
    words: list[str]
    rows: slice
    lp: np.ndarray
    cand: _Candidates
    noise: np.ndarray  # (n_draws + 1, rows, k + 1)
    offsets: np.ndarray  # (n_draws + 1,)
    trees: dict[TreeKey, CompactPassage]  # each distinct tree of its draws, once
    keys: list[TreeKey]  # each draw's tree


def sample_batch(
    net: NumpySpanNet,
    vocab: Vocab,
    feats: Sequence[Featurized],
    tokens: Sequence[Sequence[str]],
    how: Perturbation,
    scene_bias: float = 0.0,
    min_scene: bool = False,
    implicit_scenes: frozenset[str] = frozenset(),
) -> list[DrawnTrees]:
    """Per sentence, its one-best passage (no noise: what :func:`~samsa.parsers.builtin.decode.decode_batch`
    gives) and the trees of its ``how.n_draws`` draws (:class:`DrawnTrees`: a tree decoded by several draws is
    built once)."""
    mask = main_relation_mask(vocab)
    fence, lengths = net.encode(feats)
    rows = batch_span_log_probs(net, fence, lengths)
    assert rows.log_probs is not None
    first = np.cumsum([0] + [n * (n + 1) // 2 for n in lengths])
    sentences = []
    for b in range(len(lengths)):
        lp = rows.log_probs[first[b] : first[b + 1]]
        cand = _candidates(lp, mask, scene_bias * mask)
        rng = sentence_rng(how.seed, tokens[b])
        noise = rng.gumbel(size=(how.n_draws + 1, len(lp), cand.labels.shape[1] + 1))
        noise *= how.tau
        offsets = rng.normal(size=how.n_draws + 1) * how.sigma
        noise[0], offsets[0] = 0.0, 0.0  # draw 0: the one-best tree
        sentences.append(_Sentence(b, list(tokens[b]), slice(first[b], first[b + 1]), lp, cand, noise, offsets, {}, []))
    with_remotes: set[TreeKey] = set()  # trees built by at_least_one_scene, remote edges included
    main_labels = frozenset(label for label, m in zip(vocab.labels, mask.tolist(), strict=True) if m)
    build = partial(_build, net=net, vocab=vocab, fence=fence, mask=mask, main_labels=main_labels)
    build = partial(build, min_scene=min_scene, done=with_remotes, implicit_scenes=implicit_scenes)
    for d in range(how.n_draws + 1):
        best, gain = _draw_charts(sentences, d, rows, lengths)
        for sent, found in zip(sentences, cky_batch(gain, lengths), strict=True):
            bias = scene_bias + float(sent.offsets[d])
            at = np.array(found, dtype=np.int64).reshape(-1, 2)
            chosen = best[sent.b, at[:, 0], at[:, 1]].tolist()
            spans = [Span(i, j, vocab.labels[k]) for (i, j), k in zip(found, chosen, strict=True)]
            sent.keys.append(build(sent, spans, bias))
    for sent in sentences:
        one_best = sent.keys[0]
        if one_best not in with_remotes:  # exactly as decode_batch adds them: the headline's parse
            predict_remotes(net, vocab, fence, sent.b, sent.trees[one_best])
        others = [g for key, g in sent.trees.items() if key not in with_remotes and key != one_best]
        _add_remotes(net, vocab, fence, sent.b, others)
    return [DrawnTrees.of_keys(sent.trees, sent.keys) for sent in sentences]


def _draw_charts(
    sentences: Sequence[_Sentence], d: int, rows: SpanRows, lengths: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``d``'s best label and gain over "no unit" of every span of the batch (:func:`cky_batch`'s charts)."""
    size = max(lengths) + 1
    best = np.zeros((len(lengths), size, size), dtype=np.int64)
    gain = np.full((len(lengths), size, size), -1.0)
    for sent in sentences:
        cand, noise = sent.cand, sent.noise[d]
        scored = cand.scores + noise[:, 1:] + float(sent.offsets[d]) * cand.main
        top = scored.argmax(-1)
        picked = np.arange(len(top)), top
        cells = sent.b, rows.start[sent.rows], rows.end[sent.rows]
        best[cells] = cand.labels[picked]
        gain[cells] = scored[picked] - (cand.null + noise[:, 0])
    return best, gain


def _build(
    sent: _Sentence,
    spans: list[Span],
    bias: float,
    *,
    net: NumpySpanNet,
    vocab: Vocab,
    fence: np.ndarray,
    mask: np.ndarray,
    main_labels: frozenset[str],
    min_scene: bool,
    done: set[TreeKey],
    implicit_scenes: frozenset[str],
) -> TreeKey:
    """The key of a draw's tree, its passage built (into ``sent.trees``) once per distinct tree of the sentence
    after the decoding's later steps (read at the draw's Scene bias), without remote edges unless
    :func:`at_least_one_scene` built it (its key then goes into ``done``)."""
    n = len(sent.words)
    lookup = _sentence_log_probs(sent.lp, bias * mask, n, 0)
    spans = unnest_scenes(spans)
    spans = one_center(one_main_relation(spans, n, lookup, vocab.labels), n, lookup, vocab.labels)
    key = tuple(sorted((s.start, s.end, s.label) for s in spans))
    if key in sent.trees:
        return key
    g = spans_to_passage(sent.words, spans, passage_id="1")
    implicit_main_relations(g, implicit_scenes)
    # a P or S edge makes its parent a Scene: only a tree without one can lack a Scene
    if min_scene and not any(s.label in main_labels for s in spans) and not scenes(g):
        graph = partial(_sentence_graph, net=net, vocab=vocab, fence=fence, b=sent.b, words=sent.words)
        graph = partial(graph, log_probs=sent.lp, mask=mask, steps=True, passage_id="1")
        graph = partial(graph, implicit_scenes=implicit_scenes)
        found = at_least_one_scene(sent.lp, n, mask, vocab.labels, bias, graph)
        if found is not None:
            g = found
            done.add(key)
    sent.trees[key] = g
    return key


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
