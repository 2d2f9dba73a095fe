"""A scoring run with a plan (``samsa score --plan``, ``evaluate --plan``, ``report --plan``): every line parsed, with
its parse doubt; the annotated lines read from their manual UCCA as well; and from both, each system's estimate of
its all-manual corpus SAMSA and SAMSA-abl (``samsa.scoring.estimate``), and each system's difference from the
first, paired over the same draws."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from samsa.config import SamsaConfig
from samsa.engine.corpus import parse_with_doubt, run_corpus
from samsa.engine.pipeline import sentence_results
from samsa.engine.plan import Plan
from samsa.engine.seams import EntryCache
from samsa.engine.uncertainty import UncertaintyTotals
from samsa.engine.worker import Item, Job
from samsa.scoring.estimate import ErrorModel, Estimate, estimate, line_spread
from samsa.scoring.uncertainty import Calibration, scene_counts

__all__ = ["PlannedRun", "doubt_lines", "estimates", "manual_results", "predicted_errors", "run_planned"]


class PlannedRun(NamedTuple):
    """Per line, each system's sentence result on the parse; per annotated line, on its manual UCCA; the parse
    doubt of every line; the plan."""

    parsed: list[list[Any]]
    manual: dict[int, list[Any]]
    doubt: UncertaintyTotals
    plan: Plan

    def mixed(self) -> list[list[Any]]:
        """Per line, the results the mixed sources score: the manual one where the line is annotated."""
        return [self.manual.get(k, line) for k, line in enumerate(self.parsed, 1)]


def doubt_lines(
    config: SamsaConfig,
    sources: Sequence[Any],
    outputs: Sequence[Sequence[str]],
    calibration: Calibration,
    *,
    cache: EntryCache | None = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    origin: str | None = None,
) -> tuple[list[list[Any]], UncertaintyTotals]:
    """Parse every line with its doubt (cached, in parallel): per line each system's sentence result on the parse,
    and the lines' menus and tree scores."""
    _, lines, parsed = parse_with_doubt(
        config,
        sources,
        outputs,
        calibration,
        cache=cache,
        jobs=jobs,
        dask=dask,
        progress=progress,
        origin=origin,
        graphs=False,
    )
    doubt = UncertaintyTotals(calibration)
    for k, line in enumerate(lines, 1):
        doubt.add(k, line.menu, line.tree_scores)
    return parsed, doubt


def run_planned(
    config: SamsaConfig,
    sources: Sequence[Any],
    outputs: Sequence[Sequence[str]],
    manual_files: dict[int, Path],
    plan: Plan,
    calibration: Calibration,
    **where: Any,
) -> PlannedRun:
    """:func:`doubt_lines` (``where``: its cache, jobs, Dask, progress and origin), and the annotated lines scored on
    their manual UCCA (``manual_files``: line -> XML file) too."""
    parsed, doubt = doubt_lines(config, sources, outputs, calibration, **where)
    return PlannedRun(parsed, manual_results(config, manual_files, outputs), doubt, plan)


def manual_results(
    config: SamsaConfig, manual_files: dict[int, Path], outputs: Sequence[Sequence[str]]
) -> dict[int, Any]:
    """Each annotated line's sentence result of each system on its manual UCCA (``manual_files``: line -> XML)."""
    columns = list(zip(*outputs, strict=True))
    lines = sorted(manual_files)
    xml = (Item("xml", manual_files[k], columns[k - 1], str(manual_files[k])) for k in lines)
    gold = Job(SamsaConfig(**{**_fields(config), "parser": None}))
    return {k: sentence_results(item, k, res) for k, (item, res) in zip(lines, run_corpus(xml, gold), strict=True)}


def predicted_errors(doubt: UncertaintyTotals, model: ErrorModel) -> np.ndarray:
    """(systems, lines): each line's predicted squared error of each system's parsed SAMSA (``model``: from the
    spread of its scores over the line's trees and the line's expected Scene-count error)."""
    counts = np.array([_count_error(m, doubt.calibration) for m in doubt.menus])
    n_systems = len(doubt.scores[0]) if doubt.scores else 0
    spreads = np.array(
        [
            [line_spread(sc[s], m.weights) for m, sc in zip(doubt.menus, doubt.scores, strict=True)]
            for s in range(n_systems)
        ]
    )
    return model.predicted_sq(spreads, counts).reshape(n_systems, len(doubt.menus))


def _fields(config: SamsaConfig) -> dict[str, Any]:
    return {f: getattr(config, f) for f in config.__dataclass_fields__}


def estimates(run: PlannedRun, model: ErrorModel) -> list[dict[str, Any]]:
    """Each system's estimate of its all-manual SAMSA and SAMSA-abl, and (from the second on) of its difference from
    the first system, paired: ``{"samsa": Estimate, "samsa_abl": Estimate, "vs_first": Estimate | None}``."""
    plan, doubt = run.plan, run.doubt
    pi = np.asarray(plan.probabilities)
    drawn = plan.drawn_mask & np.array([k in run.manual for k in range(1, len(pi) + 1)])
    counts = np.array([_count_error(m, doubt.calibration) for m in doubt.menus])
    n_systems = len(run.parsed[0]) if run.parsed else 0
    out = []
    for s in range(n_systems):
        block: dict[str, Any] = {}
        for key in ("samsa", "samsa_abl"):
            block[key] = _estimate(run, [s], key, pi, drawn, counts, model)
        block["vs_first"] = _estimate(run, [s, 0], "samsa", pi, drawn, counts, model) if s else None
        out.append(block)
    return out


def _estimate(
    run: PlannedRun,
    systems: list[int],
    key: str,
    pi: np.ndarray,
    drawn: np.ndarray,
    counts: np.ndarray,
    model: ErrorModel,
) -> Estimate:
    """The estimate of one system's mean ``key`` (or, for two systems, of the first's minus the second's)."""
    sign = [1.0, -1.0][: len(systems)]

    def value(results: list[Any]) -> float:
        return sum(g * getattr(results[s], key) for g, s in zip(sign, systems, strict=False))

    f = np.array([value(line) for line in run.parsed])
    y = np.array([value(run.manual[k]) if k in run.manual else 0.0 for k in range(1, len(f) + 1)])
    spreads = np.array(
        [
            line_spread(
                [sum(g * scores[s][t] for g, s in zip(sign, systems, strict=False)) for t in range(len(m.weights))],
                m.weights,
            )
            for m, scores in zip(run.doubt.menus, run.doubt.scores, strict=True)
        ]
    )
    bounds = (-100.0, 100.0) if len(systems) > 1 else (0.0, 100.0)
    return estimate(
        f,
        y,
        drawn,
        pi,
        method=model.method,
        predicted_sq=model.predicted_sq(spreads, counts),
        floor=model.floor,
        bounds=bounds,
        quantile=model.quantile,
    )


def _count_error(menu: Any, calibration: Calibration) -> float:
    return float(sum(p * abs(c - menu.counts[0]) for c, p in scene_counts(menu, calibration).items()))
