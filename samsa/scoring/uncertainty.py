"""Parse uncertainty: how far parsed SAMSA moves over the trees the parser finds plausible (docs/validity.md). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CORPUS_DRAWS",
    "Calibration",
    "ParseInterval",
    "TreeMenu",
    "corpus_draws",
    "count_error",
    "draw_trees",
    "fit_margin",
    "fit_top_map",
    "menu_from_draws",
    "point_menu",
    "raw_counts",
    "scene_counts",
    "sentence_interval",
    "structure_key",
    "suggestion_order",
    "top_count",
]

#: joint draws of trees (one per source, shared by every system) behind a corpus parse interval
CORPUS_DRAWS = 1000


@dataclass(frozen=True)
class Calibration:
    """How a pipeline's draws become probabilities, fitted on the dev sets (``lab.uncertainty``).

    ``n_draws``, ``tau``, ``sigma``: the perturbation (:class:`~samsa.parsers.builtin.sampling.Perturbation`);
    ``keep``: the share of the mass the one-best tree keeps (the three set the width of the SAMSA intervals);
    ``floor``: the share of a Scene-count distribution spread over counts near the one-best's, so that no count
    is called impossible; ``top_map``: (upper bin edge, probability) pairs, non-decreasing, that map the most
    probable count's probability over the trees to how often such a count was the annotators' on the dev sets
    (histogram binning made monotone, :func:`fit_top_map`); ``margin``: SAMSA points added on both sides of
    every per-sentence interval (clipped to 0-100), the dev quantile that gives the 90% interval 90% coverage of
    manual SAMSA on the dev battery (split conformal calibration, :func:`fit_margin`).
    """

    n_draws: int
    tau: float
    sigma: float
    keep: float
    floor: float = 0.0
    top_map: tuple[tuple[float, float], ...] = ()
    margin: float = 0.0

    def signature(self) -> str:
        """How the parse interval was computed: the perturbation, the calibration and the version of the drawing
        rules (:data:`~samsa.parsers.builtin.sampling.SAMPLER_VERSION`)."""
        from samsa.parsers.builtin.sampling import SAMPLER_VERSION

        return (
            f"parse-uncertainty|draws.{self.n_draws}+tau.{self.tau:g}+sigma.{self.sigma:g}+keep.{self.keep:g}"
            f"+floor.{self.floor:g}+margin.{self.margin:g}+sampler.{SAMPLER_VERSION}"
        )

    def top_probability(self, raw: float) -> float:
        """The calibrated probability of the most probable count, from its probability over the trees."""
        for edge, value in self.top_map:
            if raw <= edge + 1e-12:
                return value
        return raw


@dataclass(frozen=True)
class TreeMenu:
    """A source's distinct trees (as structure keys) with their Scene counts and probabilities; tree 0 is the
    one-best parse (the headline score's)."""

    keys: tuple[Hashable, ...]
    counts: tuple[int, ...]
    weights: tuple[float, ...]


@dataclass(frozen=True)
class ParseInterval:
    """SAMSA of one (source, output) pair over the source's trees: the mean, a 90% interval, and P(score = 0)."""

    mean: float
    low: float
    high: float
    p_zero: float

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in self.__dict__.items()}


def structure_key(structure: Sequence) -> tuple:
    """What paper-mode scoring reads of a structure (:class:`~samsa.scoring.paper.PaperScene`), without node IDs:
    two trees with the same key score the same on every output."""
    return tuple(
        (
            sc.leaves,
            tuple(sorted(sc.main_relation.terminals)),
            tuple(tuple(sorted(p.terminals)) for p in sc.participants),
        )
        for sc in structure
    )


def point_menu(key: Hashable, count: int) -> TreeMenu:
    """A source without doubt (manual UCCA): one tree, probability 1."""
    return TreeMenu((key,), (count,), (1.0,))


def menu_from_draws(one_best: tuple[Hashable, int], draws: Sequence[tuple[Hashable, int]], keep: float) -> TreeMenu:
    """The calibrated menu of a source: the one-best tree (key, Scene count) keeps ``keep`` of the mass, and the
    drawn trees share the rest by frequency (a draw of the one-best tree adds to its share)."""
    keys: list[Hashable] = [one_best[0]]
    counts = [one_best[1]]
    weights = [keep if draws else 1.0]
    index = {one_best[0]: 0}
    share = (1.0 - keep) / len(draws) if draws else 0.0
    for key, count in draws:
        k = index.get(key)
        if k is None:
            k = index[key] = len(keys)
            keys.append(key)
            counts.append(count)
            weights.append(0.0)
        weights[k] += share
    return TreeMenu(tuple(keys), tuple(counts), tuple(weights))


def raw_counts(menu: TreeMenu, floor: float = 0.0) -> dict[int, float]:
    """The Scene counts of a menu's trees (count -> probability), with ``floor`` of the mass spread over the
    counts 0 .. one-best + 3 in proportion to 2^-(distance from the one-best's count)."""
    out: dict[int, float] = {}
    for c, w in zip(menu.counts, menu.weights, strict=True):
        out[c] = out.get(c, 0.0) + w * (1.0 - floor)
    if floor > 0:
        c0 = menu.counts[0]
        spread = {c: 2.0 ** -abs(c - c0) for c in range(0, c0 + 4)}
        total = sum(spread.values())
        for c, s in spread.items():
            out[c] = out.get(c, 0.0) + floor * s / total
    return out


def top_count(dist: Mapping[int, float]) -> int:
    """The most probable count (the smaller one on a tie)."""
    return max(dist, key=lambda c: (dist[c], -c))


def scene_counts(menu: TreeMenu, calibration: Calibration) -> dict[int, float]:
    """The calibrated Scene-count distribution (count -> probability) of a source: :func:`raw_counts` with the
    calibration's floor, the most probable count's probability mapped by ``top_map`` and the other counts
    rescaled to the rest."""
    dist = raw_counts(menu, calibration.floor)
    top = top_count(dist)
    p = calibration.top_probability(dist[top])
    rest = 1.0 - dist[top]
    out = {c: (p if c == top else (1.0 - p) * q / rest if rest > 0 else 0.0) for c, q in dist.items()}
    return {c: round(q, 6) for c, q in sorted(out.items())}


def count_error(menu: TreeMenu, calibration: Calibration) -> float:
    """The expected distance between the one-best's Scene count and the annotators', under the calibrated count
    distribution (:func:`scene_counts`): the error model's second feature."""
    return float(sum(p * abs(c - menu.counts[0]) for c, p in scene_counts(menu, calibration).items()))


def _rate(block: list) -> float:
    return (block[0] + 1.0) / (block[1] + 2.0)


def fit_top_map(raw: Sequence[float], hit: Sequence[bool], bins: int = 10) -> tuple[tuple[float, float], ...]:
    """Histogram binning of the most probable count's raw probability against whether it was the annotators'
    (``bins`` equal-width bins, each valued (right + 1) / (sentences + 2) so that no bin says 0 or 1, adjacent
    bins pooled until the values do not decrease; an empty bin takes its neighbour's value)."""
    r, h = np.asarray(raw, dtype=float), np.asarray(hit, dtype=float)
    idx = np.minimum((r * bins).astype(int), bins - 1)
    blocks = [[float(h[idx == b].sum()), float((idx == b).sum()), [b]] for b in range(bins) if (idx == b).any()]
    merged: list[list] = []
    for blk in blocks:  # pool adjacent violators
        merged.append(blk)
        while len(merged) > 1 and _rate(merged[-2]) > _rate(merged[-1]):
            top = merged.pop()
            merged[-1] = [merged[-1][0] + top[0], merged[-1][1] + top[1], merged[-1][2] + top[2]]
    value = {b: _rate(m) for m in merged for b in m[2]}
    out, last = [], next(iter(value.values()))
    for b in range(bins):
        last = value.get(b, last)
        out.append(((b + 1) / bins, round(last, 4)))
    return tuple(out)


def _quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The smallest value whose cumulative weight (values ascending) reaches ``q``."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    k = int(np.searchsorted(cum, q * cum[-1] - 1e-12))
    return float(values[order][min(k, len(values) - 1)])


def sentence_interval(
    scores: Sequence[float], menu: TreeMenu, level: float = 0.9, margin: float = 0.0
) -> ParseInterval:
    """:class:`ParseInterval` of one output's scores on the menu's trees (in menu order): the weighted mean,
    the ``level`` quantile interval widened by ``margin`` on both sides (within 0-100), and P(score = 0)."""
    s = np.asarray(scores, dtype=float)
    w = np.asarray(menu.weights, dtype=float)
    tail = (1.0 - level) / 2
    return ParseInterval(
        mean=float(s @ w / w.sum()),
        low=max(0.0, _quantile(s, w, tail) - margin),
        high=min(100.0, _quantile(s, w, 1.0 - tail) + margin),
        p_zero=float(w[s == 0].sum() / w.sum()),
    )


def fit_margin(lows: Sequence[float], highs: Sequence[float], manual: Sequence[float], level: float = 0.9) -> float:
    """The smallest margin that puts ``level`` of the manual scores inside their intervals, with the split
    conformal correction (the ceil((n + 1) level)-th smallest conformity score, ``max(low - y, y - high)``)."""
    e = np.sort(np.maximum(np.asarray(lows) - np.asarray(manual), np.asarray(manual) - np.asarray(highs)))
    k = min(len(e) - 1, int(np.ceil((len(e) + 1) * level)) - 1)
    return round(max(0.0, float(e[k])), 2)


def draw_trees(menus: Sequence[TreeMenu], draws: int, seed: int = 0) -> np.ndarray:
    """(draws, sources) tree indices, each source's drawn independently from its menu; every system scored on
    the same sources reads the same draws (paired comparisons share the parse noise)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((draws, len(menus)), dtype=np.int64)
    for i, m in enumerate(menus):
        if len(m.weights) > 1:
            p = np.asarray(m.weights, dtype=float)
            out[:, i] = rng.choice(len(p), size=draws, p=p / p.sum())
    return out


def corpus_draws(
    tree_scores: Sequence[Sequence[float]], trees: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """The corpus mean of one system under each joint draw: ``tree_scores[i][t]`` is source i's score on its
    tree t, ``trees`` the (draws, sources) tree indices of :func:`draw_trees`; ``rows`` (draws, sources), when
    given, resamples the sources of each draw (a bootstrap replicate: parse and sampling uncertainty together)."""
    width = max(len(s) for s in tree_scores)
    table = np.full((len(tree_scores), width), np.nan)
    for i, s in enumerate(tree_scores):
        table[i, : len(s)] = s
    if rows is None:
        rows = np.broadcast_to(np.arange(len(tree_scores)), trees.shape)
    picked = table[rows, np.take_along_axis(trees, rows, axis=1)]
    return picked.mean(axis=1)


def suggestion_order(
    menus: Sequence[TreeMenu], tree_scores: Mapping[str, Sequence[Sequence[float]]], calibration: Calibration
) -> list[int]:
    """Source indices, most worth annotating first: by the expected distance between the one-best tree's Scene
    count and the annotators', under the calibrated count distribution (:func:`scene_counts`: a wrong count
    is what moves SAMSA most, and the more Scenes a sentence has the more ways to miss), then by the expected
    absolute distance between the one-best score and the score on a drawn tree, summed over the systems; ties
    by position. (Chosen on the dev sets against the raw probability of a wrong count and the score distance
    alone: ``lab.uncertainty``.)"""
    miss = [round(sum(p * abs(c - m.counts[0]) for c, p in scene_counts(m, calibration).items()), 9) for m in menus]
    worth = np.zeros(len(menus))
    for scores in tree_scores.values():
        for i, (m, s) in enumerate(zip(menus, scores, strict=True)):
            v = np.asarray(s, dtype=float)
            worth[i] += float(np.abs(v - v[0]) @ np.asarray(m.weights))
    return sorted(range(len(menus)), key=lambda i: (-miss[i], -worth[i], i))
