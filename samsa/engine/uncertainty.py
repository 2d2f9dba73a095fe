"""Parse uncertainty over a corpus run: the calibration a parser ships with, and what a run collects of each line's
trees (per-sentence ``parse`` objects, corpus parse intervals, shared draws for paired comparisons, lines worth
annotating). The arithmetic is :mod:`samsa.scoring.uncertainty`'s."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from samsa.errors import ConfigError
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

__all__ = [
    "CALIBRATION_FILE",
    "SourceTrees",
    "UncertaintyTotals",
    "drawn_structures",
    "draws_cache_key",
    "parse_with_trees",
    "parser_calibration",
    "source_trees",
    "trees_from_structures",
    "trees_of",
]

#: the calibrations of the shipped weights, by weights file name (written by ``lab.uncertainty --fit``)
CALIBRATION_FILE = "uncertainty.json"


def parser_calibration(parser: Any) -> Calibration:
    """The calibration fitted on the dev sets for the parser's weights file; a ConfigError (one line) when the
    parser is not the built-in one or its weights have none."""
    weights = getattr(parser, "weights", None)
    if weights is None or not hasattr(parser, "parse_with_draws"):
        raise ConfigError("--parse-uncertainty needs the built-in parser (its trees are drawn from its network)")
    text = (resources.files("samsa.parsers.builtin") / "weights" / CALIBRATION_FILE).read_text(encoding="utf-8")
    table = json.loads(text)
    entry = table.get(weights.name)
    if entry is None:
        shipped = ", ".join(sorted(table))
        raise ConfigError(f"no parse-uncertainty calibration ships for {weights.name} (only for {shipped})")
    c = entry["calibration"]
    return Calibration(**{**c, "top_map": tuple(tuple(x) for x in c.get("top_map", ()))})


@dataclass
class UncertaintyTotals:
    """The menus and tree scores of every line of a run, in order (a dropped line is left out)."""

    calibration: Calibration
    menus: list[TreeMenu] = field(default_factory=list)
    scores: list[list[list[float]]] = field(default_factory=list)  # per line, per system, per tree
    lines: list[int] = field(default_factory=list)  # each recorded line's 1-based number

    def add(self, line: int, menu: TreeMenu | None, tree_scores: list[list[float]]) -> dict[str, Any] | None:
        """Record line ``line``; returns its ``parse`` object for the first system (None without a menu)."""
        if menu is None:
            return None
        self.lines.append(line)
        self.menus.append(menu)
        self.scores.append(tree_scores)
        return self.parse_object(menu, tree_scores[0])

    def parse_object(self, menu: TreeMenu, scores: Sequence[float]) -> dict[str, Any]:
        """``mean``, ``low``, ``high`` (90%), ``p_zero`` and ``scene_counts`` of one (source, output) pair."""
        counts = scene_counts(menu, self.calibration)
        iv = sentence_interval(scores, menu, margin=self.calibration.margin)
        return {**iv.as_dict(), "scene_counts": {str(c): p for c, p in counts.items()}}

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

    def scores(self, metric: Any, output: Any, skip: int = 0) -> list[float]:
        """SAMSA of ``output`` on each of the menu's trees after the first ``skip`` (paper mode): the output is
        split once, and each (Scene, sentence) pair is aligned once however many trees share the Scene."""
        from samsa.scoring.paper import score_paper

        sentences = metric.split(output)
        aligner = _OnceAligner(metric.aligner)
        return [score_paper(None, sentences, aligner, self.structures[k]).samsa for k in self.menu.keys[skip:]]


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


def trees_of(best: Any, draws: Sequence[Any], keep: float) -> SourceTrees:
    """The calibrated :class:`SourceTrees` of a source from its one-best scoring structure and its drawn passages
    (a passage drawn twice is the same object: its structure is computed once); no draws: one tree."""
    return trees_from_structures(best, [s for s, _ in drawn_structures(draws)], keep)


def drawn_structures(draws: Sequence[Any]) -> list[tuple[Any, Any]]:
    """``(paper-mode structure, passage)`` of each drawn passage, in order; a passage drawn twice (the same
    object) gives the same pair object, its structure computed once."""
    from samsa.scoring.paper import paper_structure

    by_id: dict[int, tuple[Any, Any]] = {}
    for p in draws:
        if id(p) not in by_id:
            by_id[id(p)] = (paper_structure(p), p)
    return [by_id[id(p)] for p in draws]


def trees_from_structures(best: Any, draws: Sequence[Any], keep: float) -> SourceTrees:
    """:func:`trees_of` from the drawn trees' structures (the parse cache keeps these, not the passages)."""
    from samsa.scoring.uncertainty import menu_from_draws, structure_key

    key = structure_key(best)
    table: dict[Any, Any] = {key: best}
    by_id: dict[int, tuple[Any, int]] = {}
    for st in draws:
        if id(st) not in by_id:
            by_id[id(st)] = (structure_key(st), len(st))
            table.setdefault(by_id[id(st)][0], st)
    return SourceTrees(menu_from_draws((key, len(best)), [by_id[id(st)] for st in draws], keep), table)


def source_trees(parser: Any, sentences: Sequence[Any], calibration: Calibration) -> list[SourceTrees]:
    """Parse ``sentences`` (texts or token lists) one-best and with the calibration's draws, in this process."""
    return parse_with_trees(parser, sentences, calibration)[1]


def parse_with_trees(
    parser: Any, sentences: Sequence[Any], calibration: Calibration, cache: Any = None, origin: str | None = None
) -> tuple[list[Any], list[SourceTrees]]:
    """Each sentence's one-best passage (the parser's own: draw 0 is byte-identical to it) and its
    :class:`SourceTrees`, the network run once, in this process; passage ``k`` gets ID ``k`` (1-based). With a
    parse ``cache``, a sentence whose one-best graph and drawn trees are there is read, and the others are parsed
    and written (the graph with its structure, and the trees, as a scoring run writes them)."""
    from samsa.errors import SentenceTooLong
    from samsa.scoring.paper import paper_structure

    hits = _cached_trees(cache, parser, sentences, calibration) if cache is not None else [None] * len(sentences)
    best: list[Any] = [None] * len(sentences)
    trees: list[Any] = [None] * len(sentences)
    for k, hit in enumerate(hits):
        if hit is not None:
            best[k], drawn = hit
            trees[k] = trees_from_structures(paper_structure(best[k]), drawn, calibration.keep)
    todo = [k for k, hit in enumerate(hits) if hit is None]
    try:
        fresh = _drawn_fresh(parser, [sentences[k] for k in todo], calibration)
    except SentenceTooLong as e:
        raise e.at(origin, todo[e.index] + 1) from None
    for k, (passage, structure, pairs) in zip(todo, fresh, strict=True):
        best[k] = passage
        trees[k] = trees_from_structures(structure, [st for st, _ in pairs], calibration.keep)
    if cache is not None and todo:
        _write_trees(cache, parser, calibration, [sentences[k] for k in todo], fresh)
    for k, p in enumerate(best, 1):
        p.graph["passage_id"] = str(k)
    return best, trees


def draws_cache_key(parser_key: str, calibration: Calibration) -> str:
    """The parse cache's key of a source's drawn trees: the parser's, the sampler's version and the perturbation."""
    from samsa.parsers.builtin.sampling import SAMPLER_VERSION

    c = calibration
    return f"{parser_key}|trees:{SAMPLER_VERSION}+draws.{c.draws}+tau.{c.tau:g}+sigma.{c.sigma:g}"


def _drawn_fresh(parser: Any, sentences: Sequence[Any], calibration: Calibration) -> list[tuple[Any, Any, Any]]:
    """Per sentence, parsed now: its one-best passage, that passage's structure and :func:`drawn_structures`."""
    from samsa.parsers.builtin.sampling import Perturbation
    from samsa.scoring.paper import paper_structure

    if not sentences:
        return []
    how = Perturbation(calibration.draws, calibration.tau, calibration.sigma)
    drawn = parser.parse_with_draws(sentences, how)
    return [(b, paper_structure(b), drawn_structures(draws)) for b, *draws in drawn]


def _cached_trees(cache: Any, parser: Any, sentences: Sequence[Any], calibration: Calibration) -> list[Any]:
    """Per sentence, ``(one-best graph, drawn trees' structures)`` from the cache, or None."""
    from samsa.engine.entries import STRUCTURE_VERSION, decode_draws

    key = parser.cache_key()
    graphs = cache.get_many(key, sentences)
    entries = cache.get_entries(draws_cache_key(key, calibration), sentences, STRUCTURE_VERSION)
    out: list[Any] = []
    for s, g, e in zip(sentences, graphs, entries, strict=True):
        drawn = None if g is None or e is None or e[1] is None else decode_draws(e[1], s)
        out.append(None if drawn is None else (g, drawn))
    return out


def _write_trees(
    cache: Any, parser: Any, calibration: Calibration, sentences: Sequence[Any], fresh: list[tuple[Any, Any, Any]]
) -> None:
    from samsa.engine.entries import STRUCTURE_VERSION, encode_draws, encode_graph, encode_structure

    key = parser.cache_key()
    graphs = [encode_graph(b) for b, _, _ in fresh]
    structures = [encode_structure(st, b).encode("utf-8") for b, st, _ in fresh]
    cache.put_encoded(key, sentences, graphs, structures, STRUCTURE_VERSION)
    drawn = [encode_draws(pairs).encode("utf-8") for _, _, pairs in fresh]
    cache.put_encoded(draws_cache_key(key, calibration), sentences, [b""] * len(fresh), drawn, STRUCTURE_VERSION)
