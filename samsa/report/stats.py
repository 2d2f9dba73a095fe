"""Bootstrap confidence intervals and paired-bootstrap significance over sufficient statistics. More:
docs/architecture.md, "Module notes"."""

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
