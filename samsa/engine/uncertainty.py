"""Parse uncertainty over a corpus run: the calibration a parser ships with, and what a run collects of each line's
trees (per-sentence ``parse`` objects, corpus parse intervals, shared draws for paired comparisons, lines worth
annotating). The arithmetic is :mod:`samsa.scoring.uncertainty`'s."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from samsa.errors import ConfigError, InputError
from samsa.scoring.estimate import ErrorModel
from samsa.scoring.uncertainty import (
    CORPUS_DRAWS,
    Calibration,
    TreeMenu,
    corpus_draws,
    draw_trees,
    scene_counts,
    sentence_interval,
    suggestion_order,
)

if TYPE_CHECKING:
    from samsa.engine.entries import DrawnStructures
    from samsa.parsers.builtin.sampling import DrawnTrees, Perturbation

__all__ = [
    "CALIBRATION_FILE",
    "LineDoubt",
    "SourceTrees",
    "UncertaintyTotals",
    "calibration_key",
    "calibration_sampler",
    "drawn_structures",
    "line_interval",
    "parser_calibration",
    "parser_error_model",
    "perturbation",
    "run_doubt",
    "trees_from_structures",
    "trees_of",
]

#: the calibrations of the shipped weights, by weights file name, or ``NAME@CODE`` for one language's (written by
#: ``lab.uncertainty --fit``)
CALIBRATION_FILE = "uncertainty.json"


def calibration_key(parser: Any) -> str:
    """A parser's key in the calibration table: its weights file's name, ``NAME@CODE`` for a language's pipeline
    whose weights another pipeline shares (French's, the multilingual file: a calibration of its own)."""
    from samsa.parsers.builtin import PIPELINES

    name, pipeline = parser.weights.name, getattr(parser, "pipeline", None)
    shared = sum(f == name for f in PIPELINES.values()) > 1
    return f"{name}@{pipeline}" if shared and pipeline == getattr(parser, "language", None) else name


def _calibration_entry(parser: Any) -> dict[str, Any]:
    weights = getattr(parser, "weights", None)
    if weights is None or not hasattr(parser, "parse_with_draws"):
        raise ConfigError("--parse-uncertainty needs the built-in parser (its trees are drawn from its network)")
    text = (resources.files("samsa.parsers.builtin") / "weights" / CALIBRATION_FILE).read_text(encoding="utf-8")
    table = json.loads(text)
    entry = table.get(calibration_key(parser)) or table.get(weights.name)
    if entry is None:
        shipped = ", ".join(sorted(table))
        raise ConfigError(f"no parse-uncertainty calibration ships for {weights.name} (only for {shipped})")
    return dict(entry)


def parser_error_model(parser: Any) -> ErrorModel:
    """How the parser's doubt predicts its errors, and the estimate's settings, fitted on the dev sets
    (``lab/estimate.py``); a ConfigError (one line) where none ships."""
    entry = _calibration_entry(parser)
    m = entry.get("error_model")
    if m is None:
        raise ConfigError(f"no error model ships for {parser.weights.name}: its estimate cannot be made")
    fields = {k: m[k] for k in ErrorModel._fields if k in m}
    return ErrorModel(**{**fields, "coef": tuple(m["coef"])})


def parser_calibration(parser: Any) -> Calibration:
    """The calibration fitted on the dev sets for the parser's weights file; a ConfigError (one line) when the
    parser is not the built-in one or its weights have none."""
    c = _calibration_entry(parser)["calibration"]
    return Calibration(**{**c, "top_map": tuple(tuple(x) for x in c.get("top_map", ()))})


class LineDoubt(NamedTuple):
    """One line's parse doubt as a run brings it back: its menu of trees, each system's SAMSA on every tree (tree 0
    the one-best's), and each tree's Scenes (a text a Scene: the readings the report shows)."""

    menu: TreeMenu
    tree_scores: list[list[float]]
    tree_scenes: tuple[tuple[str, ...], ...] = ()
    tree_scores_abl: list[list[float]] = []  # noqa: RUF012  # per system, SAMSA-abl on each tree (never mutated)


def line_interval(menu: TreeMenu, scores: Sequence[float], calibration: Calibration) -> dict[str, float]:
    """``mean``, ``low``, ``high`` (the calibrated 90% interval: the trees' widened by the calibration's margin)
    and ``p_zero`` of one (source, output) pair's scores on the source's trees."""
    return sentence_interval(scores, menu, margin=calibration.margin).as_dict()


@dataclass
class UncertaintyTotals:
    """The menus and tree scores of every line of a run, in order (a dropped line is left out)."""

    calibration: Calibration
    menus: list[TreeMenu] = field(default_factory=list)
    scores: list[list[list[float]]] = field(default_factory=list)  # per line, per system, per tree
    lines: list[int] = field(default_factory=list)  # each recorded line's 1-based number
    scores_abl: list[list[list[float]]] = field(default_factory=list)  # the same of SAMSA-abl, where recorded

    def add(
        self, line: int, menu: TreeMenu | None, tree_scores: list[list[float]], abl: list[list[float]] | None = None
    ) -> dict[str, Any] | None:
        """Record line ``line`` (``abl``: its SAMSA-abl on each tree); returns its ``parse`` object for the first
        system (None without a menu)."""
        if menu is None:
            return None
        self.lines.append(line)
        self.menus.append(menu)
        self.scores.append(tree_scores)
        self.scores_abl.append(abl or [])
        return self.parse_object(menu, tree_scores[0])

    def parse_object(self, menu: TreeMenu, scores: Sequence[float]) -> dict[str, Any]:
        """``mean``, ``low``, ``high`` (90%), ``p_zero`` and ``scene_counts`` of one (source, output) pair."""
        counts = scene_counts(menu, self.calibration)
        return {**line_interval(menu, scores, self.calibration), "scene_counts": {str(c): p for c, p in counts.items()}}

    def trees(self, seed: int = 0, draws: int = CORPUS_DRAWS) -> np.ndarray:
        """The run's joint draws of trees, shared by every system."""
        return draw_trees(self.menus, draws, seed)

    def system_draws(self, system: int, trees: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """System ``system``'s corpus SAMSA under each joint draw (``rows``: bootstrap resamples as well)."""
        return corpus_draws([s[system] for s in self.scores], trees, rows)

    def interval(self, system: int, level: float = 0.95, seed: int = 0) -> dict[str, float]:
        """The parse interval of a system's corpus SAMSA: percentiles of its corpus means over joint draws."""
        values = self.system_draws(system, self.trees(seed))
        tail = (1 - level) / 2 * 100
        lo, hi = np.percentile(values, [tail, 100 - tail])
        return {"low": round(float(lo), 4), "high": round(float(hi), 4), "level": level, "draws": len(values)}

    def suggest(self, n: int) -> list[int]:
        """The 1-based numbers of the (at most) ``n`` parsed lines whose manual annotation could move the scores
        most, over all systems, most first; a line with one tree (manual UCCA, or no doubt) is never suggested."""
        n_systems = len(self.scores[0]) if self.scores else 0
        per_system = {str(s): [line[s] for line in self.scores] for s in range(n_systems)}
        order = suggestion_order(self.menus, per_system, self.calibration)
        return [self.lines[i] for i in order if len(self.menus[i].weights) > 1][:n]


@dataclass(frozen=True)
class SourceTrees:
    """One source's menu and the scoring structure of each of its trees, by key (what scoring an output on every
    tree needs, in this process)."""

    menu: TreeMenu
    structures: dict[Any, Any]

    def scores(self, metric: Any, output: Any, skip: int = 0, abl: list[float] | None = None) -> list[float]:
        """SAMSA of ``output`` on each of the menu's trees after the first ``skip`` (paper mode), and its SAMSA-abl
        appended to ``abl`` when given: the output is split once, and each (Scene, sentence) pair is aligned once
        however many trees share the Scene."""
        from samsa.scoring.paper import score_paper

        sentences = metric.split(output)
        aligner = _OnceAligner(metric.aligner)
        results = [score_paper(None, sentences, aligner, self.structures[k]) for k in self.menu.keys[skip:]]
        if abl is not None:
            abl.extend(r.samsa_abl for r in results)
        return [r.samsa for r in results]

    def scene_words(self) -> tuple[tuple[str, ...], ...]:
        """Each of the menu's trees as its Scenes' words (one text a Scene), in menu order: what the report shows
        of a line's readings."""
        return tuple(tuple(" ".join(sc.words) for sc in self.structures[k]) for k in self.menu.keys)


class _OnceAligner:
    """An aligner that aligns each pair of token lists once (the trees of a source share most Scenes)."""

    def __init__(self, aligner: Any) -> None:
        self.aligner = aligner
        self.name = aligner.name
        self.memo: dict[tuple[tuple[str, ...], tuple[str, ...]], Any] = {}

    def align(self, source: Sequence[str], target: Sequence[str]) -> Any:
        key = (tuple(source), tuple(target))
        if key not in self.memo:
            self.memo[key] = self.aligner.align(source, target)
        return self.memo[key]

    def signature(self) -> str:
        return str(self.aligner.signature())


def trees_of(best: Any, drawn: DrawnTrees, keep: float) -> SourceTrees:
    """The calibrated :class:`SourceTrees` of a source from its one-best scoring structure and its drawn trees."""
    return trees_from_structures(best, drawn_structures(drawn), keep)


def drawn_structures(drawn: DrawnTrees) -> DrawnStructures:
    """The paper-mode structure of each distinct drawn tree (computed once a tree), with the draws' order and the
    passages (to encode for the cache)."""
    from samsa.engine.entries import DrawnStructures
    from samsa.scoring.paper import paper_structure

    return DrawnStructures(tuple(paper_structure(p) for p in drawn.trees), drawn.order, drawn.trees)


def trees_from_structures(best: Any, drawn: DrawnStructures | None, keep: float) -> SourceTrees:
    """:func:`trees_of` from the drawn trees' structures (the parse cache keeps these, not the passages); trees
    are told apart by :func:`~samsa.scoring.uncertainty.structure_key` (what scoring reads of them). No draws:
    one tree."""
    from samsa.scoring.uncertainty import menu_from_draws, structure_key

    key = structure_key(best)
    table: dict[Any, Any] = {key: best}
    distinct = []
    for st in drawn.structures if drawn is not None else ():
        k = structure_key(st)
        table.setdefault(k, st)
        distinct.append((k, len(st)))
    draws = [distinct[i] for i in drawn.order] if drawn is not None else []
    return SourceTrees(menu_from_draws((key, len(best)), draws, keep), table)


def perturbation(calibration: Calibration) -> Perturbation:
    """The draws a calibration was fitted on."""
    from samsa.parsers.builtin.sampling import Perturbation

    return Perturbation(calibration.n_draws, calibration.tau, calibration.sigma)


def calibration_sampler(calibration: Calibration) -> str:
    """The parse cache's name of the draws a calibration asks for (:func:`~samsa.engine.entries.sampler_key`)."""
    from samsa.engine.entries import sampler_key

    return sampler_key(calibration.n_draws, calibration.tau, calibration.sigma)


def run_doubt(
    parser: Any,
    *,
    wanted: bool,
    parsed: bool = True,
    documents: bool = False,
    compat: str = "paper",
    unless_unavailable: bool = False,
) -> Calibration | None:
    """Whether a run carries parse doubt, decided in one place: None when not ``wanted``; else the parser's
    calibration, or a refusal in one line when the run cannot have it (manual sources only, documents, EASSE
    mode, a parser without draws or without a calibration). ``unless_unavailable``: a parser that draws no trees
    means no doubt rather than a refusal (a command whose doubt is on by default)."""
    if not wanted or (unless_unavailable and not hasattr(parser, "parse_with_draws")):
        return None
    if documents:
        raise InputError(None, None, "--parse-uncertainty scores sentences, not --documents")
    if compat != "paper":
        raise InputError(None, None, "--parse-uncertainty needs paper-mode SAMSA (--compat paper)")
    if not parsed or parser is None:
        raise InputError(None, None, "--parse-uncertainty needs parsed sources (--source or -t)")
    return parser_calibration(parser)
