"""Whole-corpus runs on :func:`~samsa.engine.pipeline.run_items`, each with its executor opened and closed: parse a
corpus into graphs, score systems over it, or both with each line's parse doubt (its calibrated trees and every
system's score on each)."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from typing import Any

import networkx as nx

from samsa.config import SamsaConfig
from samsa.engine.pipeline import (
    CHUNK,
    WINDOW,
    line_origin,
    make_executor,
    run_items,
    sentence_results,
)
from samsa.engine.seams import IN_PROCESS, Execution, ItemKind
from samsa.engine.uncertainty import LineDoubt
from samsa.engine.worker import Item, ItemResult, Job
from samsa.parsers.base import Parser
from samsa.scoring.uncertainty import Calibration

__all__ = ["parse_corpus", "parse_items", "parse_with_doubt", "run_corpus", "score_means"]


def run_corpus(
    items: Iterable[Item],
    job: Job,
    execution: Execution = IN_PROCESS,
    *,
    parser: Parser | None = None,
    return_graphs: bool = False,
    chunk: int = CHUNK,
    window: int = WINDOW,
) -> Generator[tuple[Item, ItemResult], None, None]:
    """:func:`~samsa.engine.pipeline.run_items` on an executor of ``job`` (the execution's processes, or Dask),
    closed when the run ends or is abandoned."""
    executor = make_executor(job, jobs=execution.jobs, dask=execution.dask)
    try:
        yield from run_items(
            items,
            executor,
            cache=execution.cache,
            parser=parser,
            return_graphs=return_graphs,
            progress=execution.progress,
            chunk=chunk,
            window=window,
        )
    finally:
        executor.close()


def _origins(origin: str | Sequence[str] | None, n: int) -> list[str]:
    """Each sentence's ``origin``: ``path:line`` of one file, or each sentence's own (a sequence)."""
    if origin is not None and not isinstance(origin, str):
        return [str(o) for o in origin]
    return [line_origin(origin, k) for k in range(1, n + 1)]


def parse_items(
    parser: Parser, items: Iterable[Item], execution: Execution = IN_PROCESS
) -> Generator[nx.DiGraph, None, None]:
    """The one-best graph of each parse item, streamed in input order (cached, in parallel): memory holds a
    window of them, whatever the corpus' size. The run's processes end when the stream ends or is closed."""
    run = run_corpus(items, Job.parse_only(parser), execution, parser=parser, return_graphs=True)
    try:
        for _, result in run:
            yield _graph(result)
    finally:
        run.close()


def parse_corpus(
    parser: Parser, sentences: Sequence[str | Sequence[str]], execution: Execution = IN_PROCESS
) -> list[nx.DiGraph]:
    """Parse sentences (cached, in parallel): graph ``k`` gets passage ID ``k`` (1-based), as ``parser.parse``."""
    where = _origins(execution.origin, len(sentences))
    items = (Item("parse", s, origin=o) for s, o in zip(sentences, where, strict=True))
    graphs = list(parse_items(parser, items, execution))
    for k, g in enumerate(graphs, 1):
        g.graph["passage_id"] = str(k)
    return graphs


def parse_with_doubt(
    config: SamsaConfig,
    sentences: Sequence[str | Sequence[str]],
    outputs: Sequence[Sequence[str]],
    calibration: Calibration,
    execution: Execution = IN_PROCESS,
    *,
    graphs: bool = True,
) -> tuple[list[nx.DiGraph], list[LineDoubt], list[list[Any]]]:
    """Each sentence's one-best graph, its :class:`~samsa.engine.uncertainty.LineDoubt` (its calibrated trees,
    drawn by ``config.parser``, and each system's SAMSA on every one) and each system's sentence result on the
    one-best graph (``outputs``: a list of lines per system, scored with ``config``). Cached and in parallel as
    every parse is; graph ``k`` gets passage ID ``k``. ``graphs=False``: no graph comes back (the list is
    empty), nor the trees' Scene texts."""
    parser = config.parser
    columns = list(zip(*outputs, strict=True)) if outputs else [()] * len(sentences)
    where = _origins(execution.origin, len(sentences))
    items = (Item("parse", s, outs, o) for s, outs, o in zip(sentences, columns, where, strict=True))
    job = Job(config, uncertainty=calibration)
    out, doubt, results = [], [], []
    run = run_corpus(items, job, execution, parser=parser, return_graphs=graphs)  # type: ignore[arg-type]
    for line, (item, res) in enumerate(run, 1):
        scored = sentence_results(item, line, res)  # a scoring error is refused here, naming the line
        if res.menu is None or scored is None:
            raise RuntimeError("a parsed line came back without its trees")
        if graphs:
            out.append(_graph(res))
        doubt.append(LineDoubt(res.menu, res.tree_scores, res.tree_scenes, res.tree_scores_abl))
        results.append(scored)
    for k, g in enumerate(out, 1):
        g.graph["passage_id"] = str(k)
    return out, doubt, results


def score_means(
    sources: Iterable[Any],
    systems: Sequence[Sequence[str]],
    job: Job,
    execution: Execution = IN_PROCESS,
    *,
    kind: ItemKind = "parse",
    chunk: int = CHUNK,
    window: int = WINDOW,
    doubt: Any = None,
) -> list[tuple[float, float]]:
    """Corpus (SAMSA, SAMSA-abl) of each system over ``sources`` (raw sentences, graphs or XML files per ``kind``).

    Every system is scored in the same pass, so the sources are parsed once. ``doubt``: an
    :class:`~samsa.engine.uncertainty.UncertaintyTotals` that records each line's trees (``job.uncertainty``
    set).
    """
    from samsa.scoring.result import CorpusTotals

    columns = list(zip(*systems, strict=True))
    origin = execution.origin if isinstance(execution.origin, str) else None
    items = (
        Item(kind, src, outs, str(src) if kind == "xml" else line_origin(origin, k))
        for k, (src, outs) in enumerate(zip(sources, columns, strict=True), 1)
    )
    totals = [CorpusTotals() for _ in systems]
    parser = job.parser if kind == "parse" else None
    run = run_corpus(items, job, execution, parser=parser, chunk=chunk, window=window)
    for line, (item, res) in enumerate(run, 1):
        scored = sentence_results(item, line, res, lenient=job.lenient)
        if scored is None:
            continue
        for total, r in zip(totals, scored, strict=True):
            total.add(r)
        if doubt is not None:
            doubt.add(line, res.menu, res.tree_scores)
    return [t.means() for t in totals]


def _graph(result: ItemResult) -> nx.DiGraph:
    """The graph of a parse item's result (asked for with ``return_graphs``)."""
    if result.graph is None:
        raise RuntimeError("a parse item came back without its graph")
    return result.graph
