"""Bootstrap confidence intervals and paired-bootstrap significance over sufficient statistics.

A corpus metric here is a pair ``(S, f)``: ``S`` holds one row of summable statistics per
sentence and ``f`` maps a column sum to the corpus score, so that ``f(S.sum(0))`` *is* the
corpus score (SAMSA: ``[score, 1]`` and a mean; SARI: EASSE's n-gram counts; BLEU:
sacrebleu's match/total counts; FKGL: words, sentences, syllables). A resample of the test
set is then one ``S[idx].sum(0)``: exact, and fast enough for 1,000 resamples of every
metric of every system.

Paired significance follows Koehn (2004) with the null-centred p-value that sacrebleu's
``--paired-bs`` reports: the same resampled indices for both systems, the bootstrap
distribution of the difference shifted to mean 0, and
``p = (1 + #{|d_b - mean(d)| >= |d_obs|}) / (B + 1)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["CorpusStat", "bootstrap_ci", "paired_bootstrap", "resample_indices"]

Score = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class CorpusStat:
    """Per-sentence statistics ``rows`` (n x k) and the function from their sum to the corpus score."""

    rows: np.ndarray
    score: Score

    def value(self) -> float:
        return float(self.score(self.rows.sum(axis=0)))

    def resampled(self, indices: np.ndarray) -> np.ndarray:
        """The score of every resample (``indices`` is B x n)."""
        return np.array([self.score(self.rows[idx].sum(axis=0)) for idx in indices])


def resample_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """B x n sentence indices drawn with replacement; one seed gives the same draws for every system."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def bootstrap_ci(
    stat: CorpusStat, indices: np.ndarray, level: float = 0.95, *, values: np.ndarray | None = None
) -> tuple[float, float]:
    """Percentile interval of the corpus score over the resamples (``values``: ``stat.resampled(indices)``,
    when the caller has it already)."""
    values = stat.resampled(indices) if values is None else values
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(values, [tail, 100 - tail])
    return float(lo), float(hi)


def paired_bootstrap(
    a: CorpusStat, b: CorpusStat, indices: np.ndarray, *, values: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[float, float]:
    """(observed difference b - a, two-sided p-value) under the same resamples (``values``: both systems'
    resampled scores, when the caller has them already)."""
    observed = b.value() - a.value()
    va, vb = (a.resampled(indices), b.resampled(indices)) if values is None else values
    diffs = vb - va
    extreme = np.abs(diffs - diffs.mean()) >= abs(observed)
    return observed, float((1 + extreme.sum()) / (len(diffs) + 1))
