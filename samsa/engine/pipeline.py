"""Parse and score a corpus chunk by chunk: in this process, in a process pool (``--jobs N``), or on Dask.

The same :class:`~samsa.engine.worker.Worker` does the work of each chunk in this
process (``jobs=1``), in each process of a pool, or on each Dask worker
(:mod:`samsa.engine.executors`, :mod:`samsa.engine.distributed`); this module decides what
goes into the chunks and what happens to the results.

Chunks have a fixed size (:data:`CHUNK`) and are cut from windows of
:data:`WINDOW` chunks, sources to parse longest first (:func:`chunk_order`),
whatever the number of workers; results come back in input order, so the
output is byte-identical for every ``--jobs``. The parent process keeps only
what is needed to merge: corpus SAMSA is the mean of sentence scores, so
partial results merge exactly. The
parse cache is read and written by the parent only (workers never touch it).
When a run only needs paper-mode scores, a cache hit travels as the source's
scoring structure, not its graph: a warm run rebuilds no graph at all.
"""

from __future__ import annotations

import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import networkx as nx

from samsa.engine.executors import PoolExecutor, SerialExecutor
from samsa.engine.seams import CachingParser, EntryCache, Executor, ItemKind, Want
from samsa.engine.worker import Item, ItemResult, Job, Worker
from samsa.errors import InputError
from samsa.parsers.base import Parser

if TYPE_CHECKING:
    from samsa.scoring.result import SentenceResult

__all__ = [
    "CHUNK",
    "WINDOW",
    "Item",
    "ItemResult",
    "Job",
    "Worker",
    "chunk_order",
    "line_origin",
    "make_executor",
    "parse_corpus",
    "progress_bar",
    "run_items",
    "score_means",
    "sentence_results",
    "worker_count",
]

#: sentences per task: large enough to batch the parser well, small enough to keep memory flat
CHUNK = 64
#: chunks per window: the items of a window are chunked in :func:`chunk_order` (parse items by length)
WINDOW = 16


# -- the corpus loop ------------------------------------------------------------------------------------------


def _windows(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    window: list[Item] = []
    for it in items:
        window.append(it)
        if len(window) == size:
            yield window
            window = []
    if window:
        yield window


def _with_cache(
    window: list[Item], cache: EntryCache, key: str, scenes: str | None, draws_key: str | None = None
) -> list[Item]:
    """The window with its parse items that have a cache entry turned into ``cached`` items carrying its graph
    payload, or its structure when ``scenes`` (the current structure version) is given and the entry has one
    (decoded by the workers). With ``draws_key`` (parse uncertainty) a hit needs the structure and the drawn
    trees' entry under that key as well."""
    out = list(window)
    todo = [k for k, it in enumerate(window) if it.kind == "parse"]
    sources = [window[k].source for k in todo]
    found = cache.get_entries(key, sources, scenes) if todo else []
    drawn = cache.get_entries(draws_key, sources, scenes) if todo and draws_key else [None] * len(todo)
    for k, entry, trees in zip(todo, found, drawn, strict=True):
        if entry is None or (draws_key is not None and (entry[1] is None or trees is None or trees[1] is None)):
            continue
        it = window[k]
        out[k] = Item("cached", it.source, it.outputs, it.origin, *entry, draws=trees[1] if trees else None)
    return out


#: what a tokenizer would split a raw source into, near enough to order by: runs of word characters, and
#: every other non-space character alone
_TOKEN = re.compile(r"\w+|[^\w\s]")


def _length(it: Item) -> int:
    """A source's length in tokens: its tokens when given, else an estimate known before tokenizing."""
    return len(_TOKEN.findall(it.source)) if isinstance(it.source, str) else len(it.source)


def chunk_order(window: Sequence[Item]) -> list[int]:
    """The order a window's items are cut into chunks in: those still to parse, longest first (ties in input
    order), then the others in input order.

    Why: the parser pads each batch to its longest sentence, and a chunk of
    sentences of similar length pads little; and the longest chunks go first, so
    that the last ones, which decide when a pool is done, are the shortest.
    Gold passages and cache hits keep their order: consecutive chunks,
    results streamed as before. The order depends on the input alone, never on
    ``--jobs``.
    """
    parse = sorted((k for k, it in enumerate(window) if it.kind == "parse"), key=lambda k: -_length(window[k]))
    return parse + [k for k, it in enumerate(window) if it.kind != "parse"]


@dataclass
class _Window:
    """One window's items (as given), their results as they come, and how many were yielded (input order)."""

    items: list[Item]
    results: list[ItemResult | None]
    done: int = 0

    def ready(self) -> Iterator[tuple[Item, ItemResult]]:
        """The items whose result, and every earlier item's, is in; each once."""
        while self.done < len(self.items) and self.results[self.done] is not None:
            res = self.results[self.done]
            self.results[self.done] = None  # let a yielded graph go
            self.done += 1
            yield self.items[self.done - 1], res  # type: ignore[misc]


def run_items(
    items: Iterable[Item],
    executor: Executor,
    *,
    cache: EntryCache | None = None,
    parser: Parser | None = None,
    return_graphs: bool = False,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    window: int = WINDOW,
) -> Iterator[tuple[Item, ItemResult]]:
    """Run items through ``executor`` chunk by chunk; parsed graphs go to ``cache`` (when given) as they come.

    Yields ``(item, result)`` in input order; ``result.graph`` is set for every
    item with ``return_graphs`` (else graphs stay in the workers). Items are
    read ``window`` chunks of ``chunk`` items at a time and cut into chunks in
    :func:`chunk_order`; results are yielded as soon as they and all earlier
    ones are in (so at most a window of items is in memory: large items, such as
    documents, take smaller chunks). A run that only scores in paper mode reads
    and writes the structures the cache keeps beside its graphs.
    """
    from samsa.engine.entries import STRUCTURE_VERSION

    key = parser.cache_key() if cache is not None and isinstance(parser, CachingParser) else None
    job = executor.job
    paper = job.score and job.config.compat == "paper" and not return_graphs
    version = STRUCTURE_VERSION if key is not None and paper else None
    # parse uncertainty: the drawn trees' structures are cached under their own key (they need the structures)
    draws_key = _draws_key(key, job) if key is not None and job.uncertainty is not None else None
    submitted: deque[tuple[_Window, list[int]]] = deque()

    def chunks() -> Iterator[list[Item]]:
        for given in _windows(items, chunk * window):
            read = key is not None and cache is not None and (job.uncertainty is None or version is not None)
            found = _with_cache(given, cache, key, version, draws_key) if read and cache is not None and key else given
            state = _Window(given, [None] * len(given))
            order = chunk_order(found)
            for c in range(0, len(order), chunk):
                idx = order[c : c + chunk]
                submitted.append((state, idx))
                yield [found[k] for k in idx]

    want: Want = ("all" if key is not None else "graphs") if return_graphs else "parsed" if key is not None else "none"
    for results in executor.map(chunks(), want):
        state, idx = submitted.popleft()
        if key is not None and cache is not None:
            _store(cache, key, version, [state.items[k] for k in idx], results, draws_key)
        for k, res in zip(idx, results, strict=True):
            state.results[k] = res
        yield from state.ready()
        if progress is not None:
            progress(len(idx))


def _draws_key(key: str, job: Job) -> str:
    """The cache key of a source's drawn trees (:func:`~samsa.engine.uncertainty.draws_cache_key`)."""
    from samsa.engine.uncertainty import draws_cache_key

    assert job.uncertainty is not None
    return draws_cache_key(key, job.uncertainty)


def _store(
    cache: EntryCache,
    key: str,
    version: str | None,
    chunk: list[Item],
    results: list[ItemResult],
    draws_key: str | None = None,
) -> None:
    """Fresh parses and repaired entries come back encoded (with their structures, when ``version``); cache hits
    come back without a payload, and with a structure where the cache had only the graph. Drawn trees (parse
    uncertainty) go under ``draws_key``, as a structure without a graph."""
    new = [
        (it.source, r.payload, r.scenes)
        for it, r in zip(chunk, results, strict=True)
        if r.payload is not None and it.kind in ("parse", "cached")
    ]
    cache.dropped += sum(r.repaired for r in results)
    if new:
        cache.put_encoded(
            key, [s for s, _, _ in new], [b for _, b, _ in new], [st for _, _, st in new] if version else None, version
        )
    derived = [  # parsed items only: a manual line of mixed sources (xml) is not the parser's
        (it.source, r.scenes)
        for it, r in zip(chunk, results, strict=True)
        if r.payload is None and r.scenes is not None and it.kind in ("parse", "cached")
    ]
    if derived and version:
        cache.put_scenes(key, [s for s, _ in derived], [st for _, st in derived], version)
    drawn = [(it.source, r.draws) for it, r in zip(chunk, results, strict=True) if r.draws is not None]
    if drawn and version and draws_key:
        cache.put_encoded(draws_key, [s for s, _ in drawn], [b""] * len(drawn), [d for _, d in drawn], version)


def parse_corpus(
    parser: Parser,
    sentences: Sequence[str | Sequence[str]],
    *,
    cache: EntryCache | None = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    origin: str | Sequence[str] | None = None,
) -> list[nx.DiGraph]:
    """Parse sentences (cached, in parallel): graph ``k`` gets passage ID ``k`` (1-based), as ``parser.parse``.
    ``origin``: the file the sentences are the lines of, or each sentence's own file (named by a refusal)."""
    executor = make_executor(Job.parse_only(parser), jobs=jobs, dask=dask)
    try:
        where = [str(o) for o in origin] if origin is not None and not isinstance(origin, str) else None
        items = (
            Item("parse", s, origin=where[k - 1] if where else line_origin(origin, k))  # type: ignore[arg-type]
            for k, s in enumerate(sentences, 1)
        )
        graphs = [
            _graph(r)
            for _, r in run_items(items, executor, cache=cache, parser=parser, return_graphs=True, progress=progress)
        ]
    finally:
        executor.close()
    for k, g in enumerate(graphs, 1):
        g.graph["passage_id"] = str(k)
    return graphs


def score_means(
    sources: Iterable[Any],
    systems: Sequence[Sequence[str]],
    job: Job,
    *,
    kind: ItemKind = "parse",
    jobs: int = 1,
    dask: str | None = None,
    cache: EntryCache | None = None,
    progress: Callable[[int], None] | None = None,
    chunk: int = CHUNK,
    window: int = WINDOW,
    doubt: Any = None,
    origin: str | None = None,
) -> list[tuple[float, float]]:
    """Corpus (SAMSA, SAMSA-abl) of each system over ``sources`` (raw sentences, graphs or XML files per ``kind``).

    Every system is scored in the same pass, so the sources are parsed once. ``doubt``: an
    :class:`~samsa.engine.uncertainty.UncertaintyTotals` that records each line's trees (``job.uncertainty``
    set). ``origin``: the file raw sources are the lines of (named by a refusal).
    """
    from samsa.scoring.result import CorpusTotals

    columns = list(zip(*systems, strict=True))
    items = (
        Item(kind, src, outs, str(src) if kind == "xml" else line_origin(origin, k))
        for k, (src, outs) in enumerate(zip(sources, columns, strict=True), 1)
    )
    totals = [CorpusTotals() for _ in systems]
    executor = make_executor(job, jobs=jobs, dask=dask)
    try:
        parser = job.parser if kind == "parse" else None
        run = run_items(items, executor, cache=cache, parser=parser, progress=progress, chunk=chunk, window=window)
        for line, (item, res) in enumerate(run, 1):
            scored = sentence_results(item, line, res, lenient=job.lenient)
            if scored is None:
                continue
            for total, r in zip(totals, scored, strict=True):
                total.add(r)
            if doubt is not None:
                doubt.add(line, res.menu, res.tree_scores)
    finally:
        executor.close()
    return [t.means() for t in totals]


def sentence_results(
    item: Item, line: int, res: ItemResult, systems: Sequence[str] | None = None, *, lenient: bool = False
) -> list[SentenceResult] | None:
    """One SentenceResult per system, or None for a passage dropped in lenient mode (a warning says why).

    A scoring error (e.g. EASSE's index error) becomes an InputError naming the system file and line and the
    source passage; in lenient mode it drops the line instead.
    """
    if res.dropped is not None:
        warn(f"dropped line {line}: {res.dropped}")
        return None
    for s, r in enumerate(res.results):
        if isinstance(r, str):
            name = systems[s] if systems else None
            message = f"{r} (source: {item.origin or 'line ' + str(line)})"
            if lenient:
                warn(f"dropped line {line}: {InputError(name, line, message)}")
                return None
            raise InputError(name, line, message)
    return cast("list[SentenceResult]", res.results)


def line_origin(path: str | None, line: int) -> str:
    """An item's ``origin``, ``path:line`` (empty when the path is not known)."""
    return f"{path}:{line}" if path else ""


def warn(message: str) -> None:
    """One line on stderr, the way the CLI reports everything."""
    print(f"samsa: warning: {message}", file=sys.stderr)


def worker_count(jobs: int) -> int:
    """``--jobs 0`` means one worker per CPU core."""
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def progress_bar(total: int | None, desc: str, quiet: bool) -> Any:
    """A tqdm bar on stderr (off when not a terminal, or with ``--quiet``)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="sent", file=sys.stderr, disable=True if quiet else None, leave=False)


def _graph(result: ItemResult) -> nx.DiGraph:
    """The graph of a parse item's result (asked for with ``return_graphs``)."""
    if result.graph is None:
        raise RuntimeError("a parse item came back without its graph")
    return result.graph


def make_executor(job: Job, *, jobs: int = 1, dask: str | None = None) -> Executor:
    """``dask``: ``"local"`` for a LocalCluster of ``jobs`` workers, or a scheduler address; else a pool or serial."""
    if dask:
        from samsa.engine.distributed import DaskExecutor

        return DaskExecutor(job, dask, workers=max(jobs, 1))
    if jobs > 1:
        return PoolExecutor(job, jobs)
    return SerialExecutor(job)
