"""The all-manual corpus score from parsed scores and a sample of manual ones: prediction-powered estimation under a
known sampling design (docs/validity.md, "From a parsed score to a manual one"). More: docs/architecture.md, "Module
notes"."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

__all__ = [
    "METHODS",
    "Z95",
    "ErrorModel",
    "Estimate",
    "design_variance",
    "draw_lines",
    "error_features",
    "estimate",
    "inclusion_probabilities",
    "line_spread",
    "smallest_budget",
]

#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054


class Estimate(NamedTuple):
    """An estimate of a corpus mean: the value, its standard error, the 95% interval (clipped to the score's range),
    the lines whose manual score entered it, and the effective sample size of their weights."""

    value: float
    se: float
    low: float
    high: float
    n_used: int
    ess: float


class ErrorModel(NamedTuple):
    """How a parse's doubt predicts its error, and the estimate's settings, fitted and chosen on the dev sets
    (``lab/estimate.py``, ``benchmarks/estimate.py``; the parser's weights table keeps them).

    ``coef``: the predicted squared error of a line's parsed SAMSA is ``coef[0] + coef[1] * spread + coef[2] *
    100 * count_error``, where ``spread`` is the expected squared distance between the score on a drawn tree and on
    the one-best (the calibrated menu's weights) and ``count_error`` the expected distance between the one-best's
    Scene count and the annotators' (the calibrated count distribution); ``floor``, ``method``, ``quantile``:
    :func:`estimate`'s; ``design`` and ``uniform_share``: the default design of a plan and the doubt design's
    uniform share."""

    coef: tuple[float, float, float]
    floor: float = 0.0
    method: str = "ht"
    quantile: str = "t"
    design: str = "uniform"
    uniform_share: float = 0.5
    small: float = 0.0  # below this many expected drawn lines, the floor grows in proportion (:func:`estimate`)

    def predicted_sq(self, spread: np.ndarray | float, count_error: np.ndarray | float) -> np.ndarray:
        f, c = error_features(spread, count_error), self.coef
        return np.maximum(0.0, c[0] * f[..., 0] + c[1] * f[..., 1] + c[2] * f[..., 2])


def error_features(spread: np.ndarray | float, count_error: np.ndarray | float) -> np.ndarray:
    """The error model's features (last axis): 1, the spread of a score over the trees, and 100 times the line's
    expected Scene-count error (broadcast to the spread's shape): the one place the model's formula is written
    (:meth:`ErrorModel.predicted_sq`; ``lab/estimate.py`` fits the coefficients on them)."""
    sp = np.asarray(spread, dtype=float)
    ce = np.broadcast_to(np.asarray(count_error, dtype=float), sp.shape)
    return np.stack([np.ones_like(sp), sp, ce * 100.0], axis=-1)


def line_spread(scores: Sequence[float], weights: Sequence[float]) -> float:
    """The expected squared distance between a quantity's value on a drawn tree and on the one-best (tree 0),
    under a line's menu weights.

    >>> round(line_spread([50.0, 0.0, 50.0], [0.6, 0.3, 0.1]), 6)
    750.0
    """
    t, w = np.asarray(scores, dtype=float), np.asarray(weights, dtype=float)
    return float(w @ (t - t[0]) ** 2 / w.sum())


def inclusion_probabilities(
    errors: Sequence[float] | np.ndarray, budget: float, uniform_share: float = 1.0
) -> np.ndarray:
    """Each line's probability of being drawn, ``budget`` lines expected in all: a share ``uniform_share`` of the
    budget spread evenly, the rest in proportion to the line's predicted error (``errors``, >= 0), capped at 1 (a
    capped line's excess goes to the others, as before). ``uniform_share`` 1 is uniform sampling; a positive
    share keeps every line's probability above ``uniform_share * budget / N`` (the weights 1/pi bounded).

    Half the budget of 2 even (0.25 a line), half by error: line 3 would get 1.08, is capped at 1, and its
    excess goes to the others in the same proportions:

    >>> inclusion_probabilities([0.0, 1.0, 5.0, 0.0], 2, uniform_share=0.5).round(3).tolist()
    [0.273, 0.455, 1.0, 0.273]
    """
    e = np.asarray(errors, dtype=float)
    n = len(e)
    if not 0 < budget <= n:
        raise ValueError(f"a budget of {budget} lines for {n}")
    weight = np.full(n, 1.0 / n) if e.sum() <= 0 else uniform_share / n + (1 - uniform_share) * e / e.sum()
    pi = np.zeros(n)
    capped = np.zeros(n, dtype=bool)
    left = float(budget)
    for _ in range(n):  # a capped line takes 1; the rest of the budget goes to the others in proportion
        free = ~capped
        share = weight[free] / weight[free].sum() * left
        if (share <= 1.0 + 1e-12).all():
            pi[free] = share
            break
        over = np.flatnonzero(free)[share > 1.0 + 1e-12]
        capped[over] = True
        pi[over] = 1.0
        left = budget - capped.sum()
        if left <= 0:
            break
    return np.clip(pi, 0.0, 1.0)


def draw_lines(probabilities: np.ndarray, seed: int) -> np.ndarray:
    """Which lines are drawn (a boolean mask): each independently, with its probability, from ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.random(len(probabilities)) < probabilities


def design_variance(errors_sq: np.ndarray, probabilities: np.ndarray) -> float:
    """The variance of the estimate if line ``i``'s squared error were ``errors_sq[i]``: (1/N^2) sum (1 - pi) e^2 /
    pi (the expectation of :func:`estimate`'s variance estimate)."""
    pi = np.asarray(probabilities, dtype=float)
    n = len(pi)
    return float(np.sum((1 - pi) * np.asarray(errors_sq, dtype=float) / pi) / n**2)


#: the estimators: ``ht`` the Horvitz-Thompson form above (exactly unbiased); ``tuned`` the ratio (Hajek) form with
#: the prediction's weight fitted on the drawn lines (PPI++): approximately unbiased, and never much wider than the
#: manual scores alone where the parse predicts the manual score poorly
METHODS = ("ht", "tuned")


def estimate(
    parsed: np.ndarray,
    manual: np.ndarray,
    drawn: np.ndarray,
    probabilities: np.ndarray,
    *,
    method: str = "ht",
    predicted_sq: np.ndarray | None = None,
    floor: float = 0.0,
    bounds: tuple[float, float] = (0.0, 100.0),
    quantile: str = "t",
    small: float = 0.0,
) -> Estimate:
    """The estimate of the corpus mean of ``manual`` (read on the ``drawn`` lines only) from ``parsed`` (every line),
    with the floor ``floor * design_variance(predicted_sq)`` under its variance estimate, times ``small / m`` when
    the plan expects fewer than ``small`` drawn lines (``m``: the probabilities' sum); ``bounds``: the range the
    interval is clipped to (a difference: -100 to 100).

    ``method="ht"``: ``mean(f) + sum over the drawn lines of (y - f) / pi, / N``, its variance as the module says.
    ``method="tuned"``: ``lam mean(f) + m``, where ``m`` is the weighted mean (weights 1/pi) of ``y - lam f``
    over the drawn lines and ``lam`` the weighted least-squares slope of ``y`` on ``f`` there, clipped to 0-1
    (0: the manual scores alone; 1: the parsed ones corrected); variance ``n/(n-2) (1/N^2) sum (1 - pi) (z - m)^2 /
    pi^2`` over the ``n`` drawn lines, ``z = y - lam f`` (Taylor linearization of the ratio, the two fitted
    parameters' degrees of freedom taken off). With fewer than three drawn lines ``lam`` is 1."""
    f = np.asarray(parsed, dtype=float)
    pi = np.asarray(probabilities, dtype=float)
    xi = np.asarray(drawn, dtype=bool)
    n = len(f)
    y = np.asarray(manual, dtype=float)[xi]
    fs, w = f[xi], 1 / pi[xi]
    if method == "ht":
        r = y - fs
        value = float(f.mean() + np.sum(r * w) / n)
        var = float(np.sum((1 - pi[xi]) * r**2 * w**2) / n**2)
    elif method == "tuned":
        value, var = _tuned(f, fs, y, w, pi[xi])
    else:
        raise ValueError(f"unknown estimator {method!r}; choose from {', '.join(METHODS)}")
    if predicted_sq is not None and floor > 0:
        var = max(var, floor * max(1.0, small / float(pi.sum())) * design_variance(predicted_sq, pi))
    se = var**0.5
    ess = float(w.sum() ** 2 / (w**2).sum()) if xi.any() else 0.0
    q = _quantile(ess, method) if quantile == "t" else Z95
    low, high = max(bounds[0], value - q * se), min(bounds[1], value + q * se)
    return Estimate(value, se, low, high, int(xi.sum()), ess)


def _quantile(ess: float, method: str) -> float:
    """The 97.5% quantile of Student's t with the effective sample size (whole lines) less the parameters fitted
    (the mean, and the prediction's weight for ``tuned``) as its degrees of freedom (the normal's with too few
    lines for it)."""
    return _t975(int(ess) - (2 if method == "tuned" else 1))


#: Student's t 97.5% quantile for 1-4 degrees of freedom (the expansion below is for more)
_T975_SMALL = (12.706204736, 4.302652730, 3.182446305, 2.776445105)


@lru_cache(maxsize=1024)
def _t975(df: int) -> float:
    """Student's t 97.5% quantile (Cornish-Fisher expansion in 1/df around the normal's: within 1e-4 from 5
    degrees of freedom; exact below).

    >>> round(_t975(10), 3), round(_t975(60), 3)
    (2.228, 2.0)
    """
    if df < 1:
        return Z95
    if df <= len(_T975_SMALL):
        return _T975_SMALL[df - 1]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _tuned(f: np.ndarray, fs: np.ndarray, y: np.ndarray, w: np.ndarray, pis: np.ndarray) -> tuple[float, float]:
    """The ratio estimate with the fitted weight of the prediction, and its linearized variance."""
    n = len(f)
    if len(y) == 0:
        return float(f.mean()), 0.0
    lam = 1.0
    if len(y) >= 3:
        fw, yw = np.average(fs, weights=w), np.average(y, weights=w)
        den = float(np.sum(w * (fs - fw) ** 2))
        lam = float(np.clip(np.sum(w * (fs - fw) * (y - yw)) / den, 0.0, 1.0)) if den > 0 else 1.0
    z = y - lam * fs
    m = float(np.average(z, weights=w))
    # the residuals' squares over the lines less the two parameters fitted on them (the mean and the weight)
    dof = len(y) / (len(y) - 2) if len(y) > 2 else 1.0
    return lam * float(f.mean()) + m, dof * float(np.sum((1 - pis) * (z - m) ** 2 * w**2) / n**2)


def smallest_budget(errors_sq: np.ndarray, width: float, design: str, uniform_share: float) -> int | None:
    """The fewest lines (an expected count) whose predicted half-width of the 95% interval is at most ``width``
    SAMSA points for every system under ``design`` (``doubt``: probabilities from the RMS of the systems' errors;
    ``uniform``), or None when even every line is not enough (the floor's own width). ``errors_sq``: each line's
    predicted squared error, one row per system (or one row)."""
    e2 = np.atleast_2d(np.asarray(errors_sq, dtype=float))
    rms = np.sqrt(e2.mean(axis=0))
    n = e2.shape[1]
    share = 1.0 if design == "uniform" else uniform_share

    def fits(count: int) -> bool:
        pi = inclusion_probabilities(rms, count, share)
        return all(Z95 * design_variance(row, pi) ** 0.5 <= width for row in e2)

    if not fits(n):
        return None
    lo, hi = 1, n
    while lo < hi:  # the predicted half-width falls as the budget grows
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid + 1, hi)
    return lo
