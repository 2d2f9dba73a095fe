"""Correlation between metric scores and human judgments (scipy), with stated p-values. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

import numpy as np

from samsa.errors import ConfigError, InputError

__all__ = ["Correlation", "correlate", "scatter_plot", "system_correlations", "to_csv", "to_markdown"]

METHODS = ("spearman", "pearson")


@dataclass(frozen=True)
class Correlation:
    method: str
    r: float
    p_two_sided: float
    p_one_sided: float
    n: int
    ci_low: float | None = None
    ci_high: float | None = None

    def cell(self, digits: int = 2, one_sided: bool = True) -> str:
        """``0.43 (0.2)``: the papers' format."""
        if math.isnan(self.r):
            return "n/a"
        p = self.p_one_sided if one_sided else self.p_two_sided
        return f"{self.r:.{digits}f} ({p:.2g})"


def _coefficient(x: np.ndarray, y: np.ndarray, method: str) -> tuple[float, float]:
    from scipy import stats

    if method == "spearman":
        res = stats.spearmanr(x, y)
    elif method == "pearson":
        res = stats.pearsonr(x, y)
    else:
        raise ConfigError(f"unknown correlation method {method!r}; choose from {', '.join(METHODS)}")
    return float(res.statistic), float(res.pvalue)


def correlate(
    x: Sequence[float],
    y: Sequence[float],
    method: str = "spearman",
    *,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
) -> Correlation:
    """Correlation of two equally long score lists.

    A constant input has no defined correlation: ``r`` is NaN then.
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise InputError(None, None, f"{len(a)} metric scores but {len(b)} human scores")
    if len(a) < 3:
        raise InputError(None, None, f"need at least 3 items to correlate, got {len(a)}")
    if np.all(a == a[0]) or np.all(b == b[0]):
        return Correlation(method, math.nan, math.nan, math.nan, len(a))
    r, p = _coefficient(a, b, method)
    one = p / 2 if not math.isnan(p) else math.nan  # in the direction of the observed correlation
    low = high = None
    if bootstrap:
        rng = np.random.default_rng(seed)
        values = []
        for _ in range(bootstrap):
            idx = rng.integers(0, len(a), len(a))
            if np.all(a[idx] == a[idx][0]) or np.all(b[idx] == b[idx][0]):
                continue
            values.append(_coefficient(a[idx], b[idx], method)[0])
        if values:
            alpha = (1 - confidence) / 2
            low, high = (float(v) for v in np.quantile(values, [alpha, 1 - alpha]))
    return Correlation(method, r, p, one, len(a), low, high)


def system_correlations(
    metrics: Mapping[str, Mapping[str, float]],
    human: Mapping[str, Mapping[str, float]],
    systems: Sequence[str],
    method: str = "spearman",
    **options: Any,
) -> dict[str, dict[str, Correlation]]:
    """``{metric: {dimension: Correlation}}`` over ``systems``.

    ``metrics[metric][system]`` and ``human[dimension][system]`` hold system-level scores.
    """
    out: dict[str, dict[str, Correlation]] = {}
    for m, scores in metrics.items():
        out[m] = {}
        for dim, hs in human.items():
            out[m][dim] = correlate([scores[s] for s in systems], [hs[s] for s in systems], method, **options)
    return out


def to_markdown(table: Mapping[str, Mapping[str, Correlation]], *, one_sided: bool = True) -> str:
    """Rows = metrics, columns = human dimensions, cells ``r (p)``."""
    dims = list(next(iter(table.values())))
    lines = ["| metric | " + " | ".join(dims) + " |", "|---|" + "---|" * len(dims)]
    for metric, row in table.items():
        lines.append(f"| {metric} | " + " | ".join(row[d].cell(one_sided=one_sided) for d in dims) + " |")
    return "\n".join(lines)


def to_csv(table: Mapping[str, Mapping[str, Correlation]]) -> str:
    lines = ["metric,dimension,method,r,p_two_sided,p_one_sided,n,ci_low,ci_high"]
    for metric, row in table.items():
        for dim, c in row.items():
            ci = ("" if c.ci_low is None else str(c.ci_low), "" if c.ci_high is None else str(c.ci_high))
            lines.append(f"{metric},{dim},{c.method},{c.r},{c.p_two_sided},{c.p_one_sided},{c.n},{ci[0]},{ci[1]}")
    return "\n".join(lines) + "\n"


def scatter_plot(
    x: Sequence[float],
    y: Sequence[float],
    labels: Sequence[str],
    path: str | PathLike[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
) -> None:
    """A PNG scatter plot with a least-squares regression line (matplotlib, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    ax.scatter(a, b, s=25)
    for xi, yi, lab in zip(a, b, labels, strict=True):
        ax.annotate(lab, (xi, yi), fontsize=7, xytext=(3, 3), textcoords="offset points")
    if len(a) >= 2 and not np.all(a == a[0]):
        slope, intercept = np.polyfit(a, b, 1)
        xs = np.linspace(a.min(), a.max(), 50)
        ax.plot(xs, slope * xs + intercept, linewidth=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
