"""A scoring run with a plan (``samsa score --plan``, ``evaluate --plan``, ``report --plan``): every line parsed, with
its parse doubt; the annotated lines read from their manual UCCA as well; and from both, each system's estimate of
its all-manual corpus SAMSA and SAMSA-abl (``samsa.scoring.estimate``), and each system's difference from the
first, paired over the same draws."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from samsa.config import SamsaConfig
from samsa.engine.corpus import parse_with_doubt, run_corpus
from samsa.engine.pipeline import sentence_results
from samsa.engine.plan import Plan
from samsa.engine.seams import IN_PROCESS, Execution
from samsa.engine.uncertainty import UncertaintyTotals
from samsa.engine.worker import Item, Job
from samsa.scoring.estimate import ErrorModel, Estimate, estimate, line_spread
from samsa.scoring.uncertainty import Calibration, count_error

__all__ = ["PlannedEstimate", "PlannedRun", "doubt_lines", "estimate_from_plan", "estimates", "predicted_errors"]


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


class PlannedEstimate(NamedTuple):
    """A planned run, each system's estimates (:func:`estimates`) and the estimate's signature."""

    run: PlannedRun
    estimates: list[dict[str, Any]]
    signature: str


def estimate_from_plan(
    config: SamsaConfig,
    sources: Sequence[Any],
    outputs: Sequence[Sequence[str]],
    plan: Plan,
    manual_files: dict[int, Path],
    doubt: tuple[Calibration, ErrorModel],
    execution: Execution = IN_PROCESS,
    parsed: tuple[list[list[Any]], UncertaintyTotals] | None = None,
) -> PlannedEstimate:
    """From the sources, the systems' outputs, the plan, the annotated lines (``manual_files``: line -> XML) and
    the parse doubt (the calibration ``config.parser`` draws with, and the error model) to each system's estimate
    of its all-manual SAMSA: every line parsed with its doubt (:func:`doubt_lines`, unless ``parsed`` holds the
    results already), the annotated lines scored on their manual UCCA."""
    calibration, model = doubt
    if parsed is None:
        parsed = doubt_lines(config, sources, outputs, calibration, execution)
    results, totals = parsed
    run = PlannedRun(results, _manual_results(config, manual_files, outputs), totals, plan)
    annotated = sum(k in manual_files for k in plan.drawn)
    return PlannedEstimate(run, estimates(run, model), plan.signature(annotated))


def doubt_lines(
    config: SamsaConfig,
    sources: Sequence[Any],
    outputs: Sequence[Sequence[str]],
    calibration: Calibration,
    execution: Execution = IN_PROCESS,
) -> tuple[list[list[Any]], UncertaintyTotals]:
    """Parse every line with its doubt (cached, in parallel): per line each system's sentence result on the parse,
    and the lines' menus and tree scores."""
    _, lines, parsed = parse_with_doubt(config, sources, outputs, calibration, execution, graphs=False)
    return parsed, doubt_totals(calibration, lines)


def doubt_totals(calibration: Calibration, lines: Sequence[Any]) -> UncertaintyTotals:
    """The lines' menus and tree scores (:class:`~samsa.engine.uncertainty.LineDoubt`), gathered."""
    doubt = UncertaintyTotals(calibration)
    for k, line in enumerate(lines, 1):
        doubt.add(k, line.menu, line.tree_scores, line.tree_scores_abl)
    return doubt


def _manual_results(
    config: SamsaConfig, manual_files: dict[int, Path], outputs: Sequence[Sequence[str]]
) -> dict[int, Any]:
    """Each annotated line's sentence result of each system on its manual UCCA (``manual_files``: line -> XML)."""
    columns = list(zip(*outputs, strict=True))
    lines = sorted(manual_files)
    xml = (Item("xml", manual_files[k], columns[k - 1], str(manual_files[k])) for k in lines)
    gold = Job(replace(config, parser=None))
    return {k: sentence_results(item, k, res) for k, (item, res) in zip(lines, run_corpus(xml, gold), strict=True)}


def predicted_errors(doubt: UncertaintyTotals, model: ErrorModel) -> np.ndarray:
    """(systems, lines): each line's predicted squared error of each system's parsed SAMSA (``model``: from the
    spread of its scores over the line's trees and the line's expected Scene-count error)."""
    counts = _count_errors(doubt)
    n_systems = len(doubt.scores[0]) if doubt.scores else 0
    spreads = np.array([_spreads(doubt, [s]) for s in range(n_systems)])
    return model.predicted_sq(spreads, counts).reshape(n_systems, len(doubt.menus))


def estimates(run: PlannedRun, model: ErrorModel) -> list[dict[str, Any]]:
    """Each system's estimate of its all-manual SAMSA and SAMSA-abl, and (from the second on) of its difference from
    the first system, paired: ``{"samsa": Estimate, "samsa_abl": Estimate, "vs_first": Estimate | None}``."""
    pi = np.asarray(run.plan.probabilities)
    drawn = run.plan.drawn_mask & np.array([k in run.manual for k in range(1, len(pi) + 1)])
    counts = _count_errors(run.doubt)
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
    bounds = (-100.0, 100.0) if len(systems) > 1 else (0.0, 100.0)
    return estimate(
        f,
        y,
        drawn,
        pi,
        method=model.method,
        predicted_sq=model.predicted_sq(np.array(_spreads(run.doubt, systems, key)), counts),
        floor=model.floor,
        bounds=bounds,
        quantile=model.quantile,
        small=model.small,
    )


def _spreads(doubt: UncertaintyTotals, systems: list[int], key: str = "samsa") -> list[float]:
    """Per line, the spread over its trees of one system's ``key`` (or of the first's minus the second's): SAMSA-abl
    spreads over its own tree scores where the run recorded them."""
    sign = [1.0, -1.0][: len(systems)]
    abl = key == "samsa_abl" and len(doubt.scores_abl) == len(doubt.scores) and all(doubt.scores_abl)
    return [
        line_spread(
            [sum(g * scores[s][t] for g, s in zip(sign, systems, strict=False)) for t in range(len(m.weights))],
            m.weights,
        )
        for m, scores in zip(doubt.menus, doubt.scores_abl if abl else doubt.scores, strict=True)
    ]


def _count_errors(doubt: UncertaintyTotals) -> np.ndarray:
    return np.array([count_error(m, doubt.calibration) for m in doubt.menus])
