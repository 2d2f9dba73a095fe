"""Decoding: network scores -> CKY spans -> UCCA passages -> remote edges (numpy only)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from samsa.parsers.builtin.blocks import row_blocks
from samsa.parsers.builtin.features import Featurized, Vocab
from samsa.parsers.builtin.remotes import add_remotes, candidate_pairs, distance_buckets
from samsa.parsers.builtin.runtime import NumpySpanNet, SpanRows, batch_span_log_probs, span_row
from samsa.parsers.builtin.tree import UP, Span, implicit_main_relations, spans_to_passage
from samsa.parsers.builtin.wellformed import MAIN, LogProbs, one_center, one_main_relation
from samsa.ucca.compact import CompactPassage
from samsa.ucca.queries import scenes

__all__ = [
    "MIN_SCENE_BIASES",
    "at_least_one_scene",
    "cky",
    "cky_batch",
    "decode_batch",
    "main_relation_mask",
    "pair_arrays",
    "predict_remotes",
    "span_charts",
    "unnest_scenes",
]


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
            if parent in MAIN and head.rstrip(UP) in MAIN:
                out[k] = Span(s.start, s.end, "/".join(["C" + head[len(head.rstrip(UP)) :], *rest]))
        stack.append(k)
    return out


def main_relation_mask(vocab: Vocab) -> np.ndarray:
    """Span labels that make their parent a Scene: a P or S anywhere in the chain (``P``, ``H/P``, ``S^``)."""
    return np.array([any(x.rstrip("^") in ("P", "S") for x in lab.split("/")) for lab in vocab.labels])


def pair_arrays(pairs: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scene spans, unit spans, buckets) of :class:`~samsa.parsers.builtin.remotes.Pair` objects, for
    ``remote_logits``."""
    scene_spans = np.array([p.scene_span for p in pairs], dtype=np.int64).reshape(-1, 2)
    unit_spans = np.array([p.unit_span for p in pairs], dtype=np.int64).reshape(-1, 2)
    return scene_spans, unit_spans, distance_buckets(scene_spans, unit_spans).astype(np.int64)


def cky(scores: np.ndarray) -> list[tuple[int, int]]:
    """Best nested set of spans under per-span gains (``scores[i, j]``; a span is kept iff its gain > 0).

    Every span of the best binary bracketing is "free" (gain 0) unless its gain is
    positive, so the result is the highest-scoring tree whose units are the
    positive spans it contains. ``scores`` is (n+1, n+1); the whole sentence (0, n)
    is included when its own gain is positive.
    """
    return cky_batch(scores[None], [scores.shape[0] - 1])[0]


def cky_batch(scores: np.ndarray, lengths: Sequence[int]) -> list[list[tuple[int, int]]]:
    """:func:`cky` of a batch of sentences at once: ``scores`` (B, N+1, N+1) holds sentence b's gains in its
    top-left (n_b+1, n_b+1) corner (what lies outside is never read for it).

    The chart is filled one span length at a time for the whole batch, so the
    number of numpy calls grows with the longest sentence, not with the number
    of sentences; each sentence's cells get the same values (same operations,
    same order, same tie-breaking) as on its own.
    """
    bsz, size = scores.shape[0], scores.shape[1]
    n_max = size - 1
    gain = np.maximum(scores, 0.0)
    chart = np.zeros((bsz, size, size))
    split = np.zeros((bsz, size, size), dtype=np.int64)
    diag = np.arange(n_max)
    chart[:, diag, diag + 1] = gain[:, diag, diag + 1]
    for length in range(2, n_max + 1):
        starts = np.arange(0, n_max - length + 1)
        mids = starts[:, None] + np.arange(1, length)[None, :]
        vals = chart[:, starts[:, None], mids] + chart[:, mids, starts[:, None] + length]  # (B, starts, mids)
        best = vals.argmax(axis=-1)
        ends = starts + length
        chart[:, starts, ends] = gain[:, starts, ends] + np.take_along_axis(vals, best[..., None], -1)[..., 0]
        split[:, starts, ends] = mids[np.arange(len(starts)), best]
    out = []
    for b, n in enumerate(lengths):
        spans: list[tuple[int, int]] = []
        todo = [(0, n)]
        while todo:
            i, j = todo.pop()
            if scores[b, i, j] > 0:
                spans.append((i, j))
            if j - i > 1:
                k = int(split[b, i, j])
                todo.extend([(i, k), (k, j)])
        out.append(spans)
    return out


def span_charts(rows: SpanRows, lengths: Sequence[int], bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each span's best label and its gain over "no unit", as padded (B, N+1, N+1) charts for :func:`cky_batch`.

    ``bias`` is added to every row's log-probabilities first (the Scene bias);
    cells that are not spans of their sentence hold label 0 and gain -1.
    """
    assert rows.log_probs is not None
    size = max(lengths) + 1
    best = np.zeros((len(lengths), size, size), dtype=np.int64)
    gain = np.full((len(lengths), size, size), -1.0)
    for block in row_blocks(len(rows.log_probs)):  # row by row: blocks bound the float64 copy's memory
        logp = rows.log_probs[block] + bias  # (spans of the block, L)
        top = logp[:, 1:].argmax(-1) + 1
        cells = rows.sentence[block], rows.start[block], rows.end[block]
        best[cells] = top
        gain[cells] = logp[np.arange(len(top)), top] - logp[:, 0]
    return best, gain


def decode_batch(
    net: NumpySpanNet,
    vocab: Vocab,
    feats: Sequence[Featurized],
    tokens: Sequence[Sequence[str]],
    batch: int = 32,
    scene_bias: float = 0.0,
    steps: bool = True,
    min_scene: bool = False,
    implicit_scenes: frozenset[str] = frozenset(),
) -> list[CompactPassage]:
    """Parse featurized sentences into passages (:class:`~samsa.ucca.compact.CompactPassage`).

    ``scene_bias`` is added to the log-probability of every main-relation label
    (P/S) before decoding: more Scenes for a positive value (``lab.scene_bias``).
    ``steps``: the parser's decoding steps after the spans, in order: :func:`unnest_scenes`,
    :func:`~samsa.parsers.builtin.wellformed.one_main_relation` (one P/S per unit) and
    :func:`~samsa.parsers.builtin.wellformed.one_center` (one center per main relation); training scores its
    dev epochs on the network's own spans (``steps=False``). ``min_scene``: a sentence decoded without a Scene
    is decoded again as :func:`at_least_one_scene` says (the Wiki guidelines give every sentence a Scene).
    ``implicit_scenes``: the categories whose units without a main relation get an implicit one
    (:func:`~samsa.parsers.builtin.tree.implicit_main_relations`), before the remote edges.
    """
    mask = main_relation_mask(vocab)
    out: list[CompactPassage] = []
    for b in range(0, len(feats), batch):
        chunk = feats[b : b + batch]
        fence, lengths = net.encode(chunk)
        rows = batch_span_log_probs(net, fence, lengths)
        best, gain = span_charts(rows, lengths, scene_bias * mask)
        first_row = np.cumsum([0] + [n * (n + 1) // 2 for n in lengths])
        assert rows.log_probs is not None  # scored by the network above
        for bi, found in enumerate(cky_batch(gain, lengths)):
            log_probs = rows.log_probs[first_row[bi] : first_row[bi + 1]]
            graph = partial(
                _sentence_graph,
                net=net,
                vocab=vocab,
                fence=fence,
                b=bi,
                words=list(tokens[b + bi]),
                log_probs=log_probs,
                mask=mask,
                steps=steps,
                passage_id=str(b + bi + 1),
                implicit_scenes=implicit_scenes,
            )
            spans = [Span(i, j, vocab.labels[best[bi, i, j]]) for i, j in found]
            g = graph(spans, scene_bias)
            if min_scene and not scenes(g):
                g = at_least_one_scene(log_probs, lengths[bi], mask, vocab.labels, scene_bias, graph) or g
            out.append(g)
    return out


def _sentence_graph(
    spans: list[Span],
    bias: float,
    *,
    net: NumpySpanNet,
    vocab: Vocab,
    fence: np.ndarray,
    b: int,
    words: list[str],
    log_probs: np.ndarray,
    mask: np.ndarray,
    steps: bool,
    passage_id: str,
    implicit_scenes: frozenset[str] = frozenset(),
) -> CompactPassage:
    """Sentence ``b``'s passage from its decoded spans (decoded at Scene bias ``bias``): the later steps, the
    implicit main relations, then remote edges."""
    if steps:
        spans = unnest_scenes(spans)
        lookup = _sentence_log_probs(log_probs, bias * mask, len(words), 0)
        spans = one_main_relation(spans, len(words), lookup, vocab.labels)
        spans = one_center(spans, len(words), lookup, vocab.labels)
    g = spans_to_passage(words, spans, passage_id=passage_id)
    implicit_main_relations(g, implicit_scenes)
    predict_remotes(net, vocab, fence, b, g)
    return g


#: the extra Scene biases :func:`at_least_one_scene` tries, smallest first
MIN_SCENE_BIASES = tuple(np.arange(0.5, 10.01, 0.5).tolist())


def at_least_one_scene(
    log_probs: np.ndarray,
    n: int,
    mask: np.ndarray,
    labels: Sequence[str],
    scene_bias: float,
    graph: Callable[[list[Span], float], CompactPassage],
) -> CompactPassage | None:
    """The sentence decoded at the smallest extra Scene bias of :data:`MIN_SCENE_BIASES` at which it has a
    Scene (None if none of them gives one): the network's best tree with a Scene, for the least boost.

    Why: every one of the 4,721 sentences of the Wiki training and dev annotation (UCCA v1 guidelines, the
    ones SAMSA reads) has a Scene, while the span decoder leaves 0.5-1.4% of Wikipedia sentences without one
    (docs/parser.md), and SAMSA scores every output of a source without a Scene 0, whatever it says.
    ``log_probs``: the sentence's span rows (:func:`~samsa.parsers.builtin.runtime.span_rows` order); ``graph``
    builds the graph of decoded spans at a bias (the same later steps as the first decoding)."""
    rows = SpanRows(np.zeros(len(log_probs), dtype=np.int64), *np.triu_indices(n + 1, 1), log_probs)
    for extra in MIN_SCENE_BIASES:
        bias = scene_bias + extra
        best, gain = span_charts(rows, [n], bias * mask)
        (found,) = cky_batch(gain, [n])
        chosen = [int(best[0, i, j]) for i, j in found]
        if not mask[chosen].any():  # no P or S span: no Scene, whatever the later steps do
            continue
        g = graph([Span(i, j, labels[k]) for (i, j), k in zip(found, chosen, strict=True)], bias)
        if scenes(g):
            return g
    return None


def _sentence_log_probs(log_probs: np.ndarray, bias: np.ndarray, n: int, row0: int) -> LogProbs:
    """One sentence's span label log-probabilities (Scene bias added) by (start, end), from a batch's rows."""

    def lookup(i: int, j: int) -> np.ndarray:
        return log_probs[row0 + span_row(n, i, j)] + bias

    return lookup


def predict_remotes(net: NumpySpanNet, vocab: Vocab, fence: np.ndarray, b: int, g: CompactPassage) -> None:
    """Add to ``g`` (sentence ``b`` of the batch ``fence`` encodes) the remote edges the network predicts."""
    pairs = candidate_pairs(g) if net.has_remote else []
    if pairs:
        labels = net.remote_logits(fence, b, *pair_arrays(pairs)).argmax(-1).tolist()
        add_remotes(g, [(p, vocab.remotes[k]) for p, k in zip(pairs, labels, strict=True) if k])
