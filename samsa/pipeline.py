"""Parse and score a corpus chunk by chunk: in this process, in a process pool (``--jobs N``), or on Dask.

One :class:`Worker` does the work of one chunk: load gold XML or parse raw
sources (one parser call per chunk, so the parser batches them), then score
each system's output lines against the graphs. The same worker runs in this
process (``jobs=1``), in each process of a pool, or on each Dask worker; it
is built once per process from a picklable :class:`Job`, so models load once
per worker.

Chunks have a fixed size (:data:`CHUNK`) whatever the number of workers, and
results come back in input order, so the output is byte-identical for every
``--jobs``. The parent process keeps only what is needed to merge: corpus
SAMSA is the mean of sentence scores, so partial results merge exactly. The
parse cache is read and written by the parent only (workers never touch it).
"""

from __future__ import annotations

import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from samsa.errors import InputError, ScoringError
from samsa.text import SPLITTER_NAME

__all__ = [
    "CHUNK",
    "Item",
    "ItemResult",
    "Job",
    "Worker",
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


@dataclass(frozen=True)
class Job:
    """What every worker builds once: the parser (for raw sources) and the SAMSA settings (for scoring).

    ``aligner`` is a registry name and its options, so that heavy aligners
    (spaCy, PPDB) are built inside each worker rather than pickled.
    """

    parser: Any = None
    aligner: tuple[str, dict[str, Any]] = ("exact", {})
    compat: str = "paper"
    tokenizer: str = "wordpunct"
    separator: str | None = None
    score: bool = True
    splitter: str = SPLITTER_NAME
    lenient: bool = False  # drop a passage that does not load or validate (and say so) instead of stopping
    lowercase: bool = False  # output tokens lowercased after splitting (sources are lowercased by the caller)


@dataclass(frozen=True)
class Item:
    """One source line: ``kind`` is ``parse`` (``source`` is text or tokens), ``cached`` (the same, with the
    parse cache's ``payload``), ``graph`` or ``xml`` (a file path)."""

    kind: str
    source: Any
    outputs: tuple[str, ...] = ()
    origin: str = ""
    payload: bytes | None = None


@dataclass
class ItemResult:
    """The graph (when asked for), the cache payload of a graph parsed here (when the parent caches), and one
    score per system or an error text."""

    graph: nx.DiGraph | None
    results: list[Any] = field(default_factory=list)
    payload: bytes | None = None
    repaired: bool = False  # a cached payload that did not decode: parsed again (the new payload replaces it)
    dropped: str | None = None  # lenient mode: why this passage left the corpus


class Worker:
    """Builds the models of a :class:`Job` once and runs chunks of :class:`Item`."""

    def __init__(self, job: Job) -> None:
        from samsa.metric import Samsa
        from samsa.registry import get_aligner

        self.job = job
        self.metric = None
        if job.score:
            name, options = job.aligner
            self.metric = Samsa(aligner=get_aligner(name, **options), compat=job.compat, tokenizer=job.tokenizer,
                                separator=job.separator, parser=job.parser, splitter=job.splitter,
                                lowercase=job.lowercase)  # fmt: skip

    def graphs(self, items: Sequence[Item]) -> tuple[list[nx.DiGraph | None], list[bool], list[bool], list[str | None]]:
        """The graph of each item, whether it was parsed here, whether that repaired a bad cached payload, and
        (lenient mode) why an item was dropped. Every graph that did not come from the cache is validated."""
        from samsa.parse_cache import decode_graph
        from samsa.ucca_xml import load_passage
        from samsa.validate import check_passage

        out: list[nx.DiGraph | None] = []
        repaired = [False] * len(items)
        dropped: list[str | None] = [None] * len(items)
        for k, it in enumerate(items):
            if it.kind == "cached":
                g = decode_graph(it.payload or b"", it.source)
                repaired[k] = g is None
                out.append(g)
            elif it.kind == "xml":
                out.append(self._guard(k, dropped, load_passage, it.source))
            elif it.kind == "graph":
                out.append(self._guard(k, dropped, check_passage, it.source, it.origin or None))
            else:
                out.append(None)
        todo = [k for k, g in enumerate(out) if g is None and dropped[k] is None]
        for k, g in zip(todo, self.job.parser.parse([items[k].source for k in todo]) if todo else [], strict=True):
            out[k] = self._guard(k, dropped, check_passage, g, items[k].origin or None)
        parsed = [(it.kind == "parse" or bad) and d is None for it, bad, d in zip(items, repaired, dropped,
                                                                                  strict=True)]  # fmt: skip
        return out, parsed, repaired, dropped

    def _guard(self, k: int, dropped: list[str | None], fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``; in lenient mode an InputError drops item ``k`` (its message kept) instead."""
        try:
            return fn(*args)
        except InputError as e:
            if not self.job.lenient:
                raise
            dropped[k] = str(e)
            return None

    def run(self, items: Sequence[Item], want: str = "none") -> list[ItemResult]:
        """Score a chunk; ``want`` says which graphs travel back: ``all`` (as graphs, parsed ones also encoded for
        the cache), ``parsed`` (encoded for the cache) or ``none``."""
        from samsa.parse_cache import encode_graph

        graphs, parsed, repaired, dropped = self.graphs(items)
        out = [ItemResult(g if want == "all" else None, payload=encode_graph(g) if p and want != "none" else None,
                          repaired=r, dropped=d) for g, p, r, d in zip(graphs, parsed, repaired, dropped,
                                                                       strict=True)]  # fmt: skip
        if self.metric is None:
            return out
        keep = [k for k, d in enumerate(dropped) if d is None]
        kept = [graphs[k] for k in keep]
        n_systems = len(items[0].outputs) if items else 0
        structures = [_structure(g, self.metric.compat) for g in kept] if n_systems else []
        for s in range(n_systems):
            outputs = [items[k].outputs[s] for k in keep]
            self.metric.prepare(kept, outputs)
            for k, g, st, line in zip(keep, kept, structures, outputs, strict=True):
                try:
                    out[k].results.append(self.metric.score_graph(g, line, structure=st))
                except ScoringError as e:
                    out[k].results.append(f"{e}")
        return out


def _structure(g: nx.DiGraph, compat: str) -> Any:
    """The graph's output-independent scoring structure; None lets each scoring call raise its own error."""
    from samsa.scoring import graph_structure

    try:
        return graph_structure(g, compat)
    except ScoringError:
        return None


# -- executors: the same Worker in this process, in a process pool, or on Dask ---------------------------------

_PROCESS_WORKER: Worker | None = None  # one per pool process, set by its initializer


def _init_process(job: Job) -> None:
    global _PROCESS_WORKER
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # one intra-op thread per process: processes give the speed, not threads
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (one line, exit 130)
    _PROCESS_WORKER = Worker(job)


def _run_in_process(items: Sequence[Item], want: str) -> list[ItemResult]:
    assert _PROCESS_WORKER is not None
    return _PROCESS_WORKER.run(items, want)


class SerialExecutor:
    def __init__(self, job: Job) -> None:
        self.worker = Worker(job)

    def map(self, tasks: Iterable[list[Item]], want: str) -> Iterator[list[ItemResult]]:
        for t in tasks:
            yield self.worker.run(t, want)

    def close(self) -> None:
        pass


class PoolExecutor:
    """A process pool; at most ``2 * jobs`` chunks in flight, results in input order."""

    def __init__(self, job: Job, jobs: int) -> None:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        # fork on Linux: workers inherit the imported modules and start in milliseconds (the parent has only
        # idle BLAS threads then); elsewhere forkserver, or spawn where that is missing (Windows)
        methods = mp.get_all_start_methods()
        method = "fork" if sys.platform.startswith("linux") else "forkserver" if "forkserver" in methods else "spawn"
        ctx = mp.get_context(method)
        if method == "forkserver":
            ctx.set_forkserver_preload(["samsa.pipeline", "samsa.metric"])
        self.jobs = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_process, initargs=(job,))

    def map(self, tasks: Iterable[list[Item]], want: str) -> Iterator[list[ItemResult]]:
        return _ordered_window((lambda t: self.pool.submit(_run_in_process, t, want)), tasks, 2 * self.jobs)

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


def _ordered_window(submit: Callable[[Any], Any], tasks: Iterable[Any], width: int) -> Iterator[Any]:
    """Submit tasks keeping ``width`` in flight; yield their results in submission order."""
    pending: deque[Any] = deque()
    for t in tasks:
        pending.append(submit(t))
        if len(pending) >= width:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def make_executor(job: Job, *, jobs: int = 1, dask: str | None = None) -> Any:
    """``dask``: ``"local"`` for a LocalCluster of ``jobs`` workers, or a scheduler address; else a pool or serial."""
    if dask:
        from samsa.distributed import DaskExecutor

        return DaskExecutor(job, dask, workers=max(jobs, 1))
    if jobs > 1:
        return PoolExecutor(job, jobs)
    return SerialExecutor(job)


# -- the corpus loop ------------------------------------------------------------------------------------------


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for it in items:
        chunk.append(it)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _with_cache(chunks: Iterable[list[Item]], cache: Any, key: str) -> Iterator[list[Item]]:
    """Turn parse items with a cache entry into ``cached`` items carrying its payload (decoded by the workers)."""
    for chunk in chunks:
        todo = [k for k, it in enumerate(chunk) if it.kind == "parse"]
        found = cache.get_payloads(key, [chunk[k].source for k in todo]) if todo else []
        for k, payload in zip(todo, found, strict=True):
            if payload is not None:
                it = chunk[k]
                chunk[k] = Item("cached", it.source, it.outputs, it.origin, payload)
        yield chunk


def run_items(
    items: Iterable[Item],
    executor: Any,
    *,
    cache: Any = None,
    parser: Any = None,
    return_graphs: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[Item, ItemResult]]:
    """Run items through ``executor`` chunk by chunk; parsed graphs go to ``cache`` (when given) as they come.

    Yields ``(item, result)`` in input order; ``result.graph`` is set for every
    item with ``return_graphs`` (else graphs stay in the workers).
    """
    key = parser.cache_key() if cache is not None and parser is not None and hasattr(parser, "cache_key") else None
    originals: deque[list[Item]] = deque()

    def remember(chunks: Iterable[list[Item]]) -> Iterator[list[Item]]:
        for c in chunks:
            originals.append(list(c))
            yield c

    chunks: Iterable[list[Item]] = remember(_chunks(items, CHUNK))
    if key is not None:
        chunks = _with_cache(chunks, cache, key)
    for results in executor.map(chunks, "all" if return_graphs else "parsed" if key is not None else "none"):
        chunk = originals.popleft()
        if key is not None:
            # fresh parses and repaired entries come back encoded; cache hits come back without a payload
            new = [(it.source, r.payload) for it, r in zip(chunk, results, strict=True) if r.payload is not None]
            cache.dropped += sum(r.repaired for r in results)
            if new:
                cache.put_encoded(key, [s for s, _ in new], [b for _, b in new])
        yield from zip(chunk, results, strict=True)
        if progress is not None:
            progress(len(chunk))


def parse_corpus(
    parser: Any,
    sentences: Sequence[str | Sequence[str]],
    *,
    cache: Any = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[nx.DiGraph]:
    """Parse sentences (cached, in parallel): graph ``k`` gets passage ID ``k`` (1-based), as ``parser.parse``."""
    executor = make_executor(Job(parser=parser, score=False), jobs=jobs, dask=dask)
    try:
        items = (Item("parse", s) for s in sentences)
        graphs = [r.graph for _, r in run_items(items, executor, cache=cache, parser=parser, return_graphs=True,
                                                progress=progress)]  # fmt: skip
    finally:
        executor.close()
    for k, g in enumerate(graphs, 1):
        g.graph["passage_id"] = str(k)
    return graphs


def score_means(
    sources: Sequence[Any],
    systems: Sequence[Sequence[str]],
    job: Job,
    *,
    kind: str = "parse",
    jobs: int = 1,
    dask: str | None = None,
    cache: Any = None,
    progress: Callable[[int], None] | None = None,
) -> list[tuple[float, float]]:
    """Corpus (SAMSA, SAMSA-abl) of each system over ``sources`` (raw sentences, graphs or XML files per ``kind``).

    Every system is scored in the same pass, so the sources are parsed once.
    """
    from samsa.scoring import corpus_mean

    columns = list(zip(*systems, strict=True))
    items = (Item(kind, src, outs, str(src) if kind == "xml" else "") for src, outs in zip(sources, columns,
                                                                                            strict=True))  # fmt: skip
    scores: list[tuple[list[float], list[float]]] = [([], []) for _ in systems]
    executor = make_executor(job, jobs=jobs, dask=dask)
    try:
        parser = job.parser if kind == "parse" else None
        for line, (item, res) in enumerate(run_items(items, executor, cache=cache, parser=parser,
                                                     progress=progress), 1):  # fmt: skip
            scored = sentence_results(item, line, res, lenient=job.lenient)
            if scored is None:
                continue
            for (samsa, abl), r in zip(scores, scored, strict=True):
                samsa.append(r.samsa)
                abl.append(r.samsa_abl)
    finally:
        executor.close()
    return [(corpus_mean(a), corpus_mean(b)) for a, b in scores]


def sentence_results(
    item: Item, line: int, res: ItemResult, systems: Sequence[str] | None = None, *, lenient: bool = False
) -> list[Any] | None:
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
    return res.results


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
