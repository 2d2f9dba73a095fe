"""Bootstrap intervals and paired significance for ``samsa evaluate -ci / --paired-bs``. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from samsa.errors import ConfigError

__all__ = ["add_bootstrap", "add_parse_bootstrap"]


def add_bootstrap(
    result: dict[str, Any],
    sources: Sequence[str],
    systems: Mapping[str, Sequence[str]],
    refs: Sequence[Sequence[str]] | None,
    metrics: Sequence[str],
    config: Any,
    *,
    resamples: int = 1000,
    seed: int = 12345,
    intervals: bool = True,
    paired: bool = False,
) -> None:
    """Add the intervals and/or p-values to ``result["systems"]`` (as :func:`samsa.engine.evaluate.evaluate` returns it)
    in place; ``result["bootstrap"]`` records the resamples and seed."""
    from samsa.report.metrics import RESAMPLABLE, suite_stats
    from samsa.report.stats import bootstrap_ci, paired_bootstrap, resample_indices

    wanted = [m for m in metrics if m in RESAMPLABLE]
    if not wanted:
        raise ConfigError(f"-ci/--paired-bs resample {', '.join(RESAMPLABLE)}; none of them was asked for (-m)")
    if paired and len(systems) < 2:
        raise ConfigError("--paired-bs compares systems with the first: give at least two")
    indices = resample_indices(len(sources), resamples, seed)
    names = list(systems)
    draws: dict[str, dict[str, Any]] = {}
    for name in names:
        stats = suite_stats(sources, systems[name], refs, wanted, config)
        values = result["systems"][name]
        for m, stat in stats.items():
            if abs(stat.value() - float(values[m])) > 1e-6 * max(1.0, abs(float(values[m]))):
                continue  # settings the statistics do not reproduce: no interval rather than a wrong one
            draws.setdefault(name, {})[m] = (stat, stat.resampled(indices))
            if intervals:
                values[f"{m}_lo"], values[f"{m}_hi"] = bootstrap_ci(stat, indices, values=draws[name][m][1])
    missing = sorted({m for m in wanted for n in names if m not in draws.get(n, {})})
    if missing:
        raise ConfigError(
            f"no bootstrap for {', '.join(missing)} with these settings (it covers EASSE SARI with "
            "F1 deletion, sacrebleu BLEU, EASSE FKGL and LD_SC)"
        )
    if paired:
        base = draws[names[0]]
        for name in names[1:]:
            for m, (stat, vals) in draws[name].items():
                _, p = paired_bootstrap(base[m][0], stat, indices, values=(base[m][1], vals))
                result["systems"][name][f"{m}_p"] = p
    result["bootstrap"] = {
        "resamples": resamples,
        "seed": seed,
        "level": 0.95,
        "baseline": names[0] if paired else None,
    }


def add_parse_bootstrap(
    result: dict[str, Any],
    doubt: Any,
    *,
    resamples: int = 1000,
    seed: int = 12345,
    intervals: bool = True,
    paired: bool = False,
) -> None:
    """SAMSA's figures under parse uncertainty (:class:`~samsa.engine.uncertainty.UncertaintyTotals` ``doubt``,
    filled by :func:`samsa.engine.evaluate.evaluate`): each replicate resamples the sentences *and* draws one tree
    per source, shared by every system, so ``samsa_lo``/``samsa_hi`` combine sampling and parse uncertainty, and
    ``samsa_p`` (paired, against the first system) compares systems on the same trees: parse noise common to
    both neither hides nor fakes a difference."""
    from samsa.report.stats import resample_indices

    names = list(result["systems"])
    rows = resample_indices(len(doubt.menus), resamples, seed)
    trees = doubt.trees(seed, resamples)
    values = [doubt.system_draws(s, trees, rows) for s in range(len(names))]
    for name, v in zip(names, values, strict=True):
        if intervals:
            lo, hi = np.percentile(v, [2.5, 97.5])
            result["systems"][name]["samsa_lo"], result["systems"][name]["samsa_hi"] = float(lo), float(hi)
    if paired:
        base = float(result["systems"][names[0]]["samsa"])
        for name, v in zip(names[1:], values[1:], strict=True):
            diffs = v - values[0]
            observed = float(result["systems"][name]["samsa"]) - base
            extreme = np.abs(diffs - diffs.mean()) >= abs(observed)
            result["systems"][name]["samsa_p"] = float((1 + extreme.sum()) / (len(diffs) + 1))
