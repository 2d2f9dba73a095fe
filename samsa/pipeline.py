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
When a run only needs paper-mode scores, a cache hit travels as the source's
scoring structure, not its graph: a warm run rebuilds no graph at all.
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
    parse cache's graph ``payload`` or, for paper-mode scoring, its encoded structure ``scenes``), ``graph`` or
    ``xml`` (a file path)."""

    kind: str
    source: Any
    outputs: tuple[str, ...] = ()
    origin: str = ""
    payload: bytes | None = None
    scenes: bytes | None = None


@dataclass
class ItemResult:
    """The graph (when asked for), the cache payload of a graph parsed here and its encoded structure (when the
    parent caches), and one score per system or an error text."""

    graph: nx.DiGraph | None
    results: list[Any] = field(default_factory=list)
    payload: bytes | None = None
    scenes: bytes | None = None  # also for a cached graph whose structure the cache did not have
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

    @property
    def paper(self) -> bool:
        """Whether this worker scores in paper mode (the mode whose structure the parse cache keeps)."""
        return self.metric is not None and self.metric.compat == "paper"

    def load(self, items: Sequence[Item]) -> _Loaded:
        """The graph or (cache hits in paper mode) the structure of each item. Items are parsed here when they
        are raw, or when their cached entry does not decode (``repaired``); every graph that did not come from
        the cache is validated; lenient mode drops an item that does not load or validate (``dropped``)."""
        from samsa.parse_cache import decode_graph
        from samsa.scoring.paper import decode_structure
        from samsa.ucca_xml import load_passage
        from samsa.validate import check_passage

        n = len(items)
        got = _Loaded([None] * n, [None] * n, [False] * n, [False] * n, [None] * n)
        todo = []
        for k, it in enumerate(items):
            if it.kind == "cached" and it.scenes is not None:
                got.structures[k] = decode_structure(it.scenes, it.source) if self.paper else None
                got.repaired[k] = got.structures[k] is None
            elif it.kind == "cached":
                got.graphs[k] = decode_graph(it.payload or b"", it.source)
                got.repaired[k] = got.graphs[k] is None
            elif it.kind == "xml":
                got.graphs[k] = self._guard(k, got.dropped, load_passage, it.source)
            elif it.kind == "graph":
                got.graphs[k] = self._guard(k, got.dropped, check_passage, it.source, it.origin or None)
            if it.kind == "parse" or got.repaired[k]:
                todo.append(k)
        for k, g in zip(todo, self.job.parser.parse([items[k].source for k in todo]) if todo else [], strict=True):
            got.graphs[k] = self._guard(k, got.dropped, check_passage, g, items[k].origin or None)
            got.parsed[k] = got.dropped[k] is None
        return got

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
        the cache), ``parsed`` (encoded for the cache, with their paper-mode structures) or ``none``."""
        from samsa.parse_cache import encode_graph
        from samsa.scoring.paper import encode_structure

        got = self.load(items)
        keep = [k for k, d in enumerate(got.dropped) if d is None]
        n_systems = len(items[0].outputs) if items else 0
        if self.metric is not None and n_systems:
            for k in keep:
                if got.structures[k] is None:
                    got.structures[k] = _structure(got.graphs[k], self.metric.compat)
        out = []
        for k, it in enumerate(items):
            g, st = got.graphs[k], got.structures[k]
            scenes = None
            # the parent caches: structures of new parses (repaired entries included), and of cached graphs that
            # had none, go back with them
            if (
                want == "parsed"
                and self.paper
                and st is not None
                and g is not None
                and (got.parsed[k] or it.scenes is None)
            ):
                scenes = encode_structure(st, g).encode("utf-8")
            out.append(ItemResult(g if want == "all" else None,
                                  payload=encode_graph(g) if got.parsed[k] and want != "none" else None,
                                  scenes=scenes, repaired=got.repaired[k], dropped=got.dropped[k]))  # fmt: skip
        if self.metric is None:
            return out
        for s in range(n_systems):
            outputs = [items[k].outputs[s] for k in keep]
            self.metric.prepare([got.graphs[k] for k in keep], outputs,
                                structures=[got.structures[k] for k in keep])  # fmt: skip
            for k, line in zip(keep, outputs, strict=True):
                try:
                    out[k].results.append(self.metric.score_graph(got.graphs[k], line, structure=got.structures[k]))
                except ScoringError as e:
                    out[k].results.append(f"{e}")
        return out


@dataclass
class _Loaded:
    """What :meth:`Worker.load` found for each item of a chunk."""

    graphs: list[nx.DiGraph | None]
    structures: list[Any]  # paper-mode structure, where known
    parsed: list[bool]  # parsed here (new, or a cached entry that did not decode)
    repaired: list[bool]  # a cached entry that did not decode
    dropped: list[str | None]  # lenient mode: why the item left the corpus


def _structure(g: nx.DiGraph | None, compat: str) -> Any:
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
        self.job = job
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
        self.job = job
        self.jobs = jobs
        self.forks = method == "fork"
        self.started = False
        self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_process, initargs=(job,))

    def map(self, tasks: Iterable[list[Item]], want: str) -> Iterator[list[ItemResult]]:
        return _ordered_window(self._submit(want), tasks, 2 * self.jobs)

    def _submit(self, want: str) -> Callable[[list[Item]], Any]:
        def submit(task: list[Item]) -> Any:
            if not self.started:  # the pool forks its workers at the first submission
                self.started = True
                self._load_parser_before_forking(task)
            return self.pool.submit(_run_in_process, task, want)

        return submit

    def _load_parser_before_forking(self, first: list[Item]) -> None:
        """With fork, a parser loaded here (spaCy, network) is every worker's at no cost (shared pages): the
        workers then parse at once instead of each loading the same models side by side, which on two cores
        took each of them longer than one load alone. Only when the first chunk has something to parse (a warm
        cache needs no parser) and the parser says how (``BuiltinParser.load``)."""
        load = getattr(self.job.parser, "load", None)
        if self.forks and callable(load) and any(it.kind == "parse" for it in first):
            load()

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


def _with_cache(chunks: Iterable[list[Item]], cache: Any, key: str, scenes: str | None) -> Iterator[list[Item]]:
    """Turn parse items with a cache entry into ``cached`` items carrying its graph payload, or its structure when
    ``scenes`` (the current structure version) is given and the entry has one (decoded by the workers)."""
    for chunk in chunks:
        todo = [k for k, it in enumerate(chunk) if it.kind == "parse"]
        found = cache.get_entries(key, [chunk[k].source for k in todo], scenes) if todo else []
        for k, entry in zip(todo, found, strict=True):
            if entry is not None:
                it = chunk[k]
                chunk[k] = Item("cached", it.source, it.outputs, it.origin, *entry)
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
    item with ``return_graphs`` (else graphs stay in the workers). A run that
    only scores in paper mode reads and writes the structures the cache keeps
    beside its graphs.
    """
    from samsa.scoring.paper import structure_version

    key = parser.cache_key() if cache is not None and parser is not None and hasattr(parser, "cache_key") else None
    job = getattr(executor, "job", None)
    paper = job is not None and job.score and job.compat == "paper" and not return_graphs
    version = structure_version() if key is not None and paper else None
    originals: deque[list[Item]] = deque()

    def remember(chunks: Iterable[list[Item]]) -> Iterator[list[Item]]:
        for c in chunks:
            originals.append(list(c))
            yield c

    chunks: Iterable[list[Item]] = remember(_chunks(items, CHUNK))
    if key is not None:
        chunks = _with_cache(chunks, cache, key, version)
    for results in executor.map(chunks, "all" if return_graphs else "parsed" if key is not None else "none"):
        chunk = originals.popleft()
        if key is not None:
            _store(cache, key, version, chunk, results)
        yield from zip(chunk, results, strict=True)
        if progress is not None:
            progress(len(chunk))


def _store(cache: Any, key: str, version: str | None, chunk: list[Item], results: list[ItemResult]) -> None:
    """Fresh parses and repaired entries come back encoded (with their structures, when ``version``); cache hits
    come back without a payload, and with a structure where the cache had only the graph."""
    new = [(it.source, r.payload, r.scenes) for it, r in zip(chunk, results, strict=True) if r.payload is not None]
    cache.dropped += sum(r.repaired for r in results)
    if new:
        cache.put_encoded(key, [s for s, _, _ in new], [b for _, b, _ in new],
                          [st for _, _, st in new] if version else None, version)  # fmt: skip
    derived = [(it.source, r.scenes) for it, r in zip(chunk, results, strict=True)
               if r.payload is None and r.scenes is not None]  # fmt: skip
    if derived and version:
        cache.put_scenes(key, [s for s, _ in derived], [st for _, st in derived], version)


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
