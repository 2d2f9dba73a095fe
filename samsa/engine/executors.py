"""The work of one chunk of a corpus (:class:`Worker`) and where it runs: in this process or in a process pool
(``--jobs N``); on Dask in :mod:`samsa.engine.distributed`.

One :class:`Worker` does the work of one chunk: load gold XML or parse raw
sources (one parser call per chunk, so the parser batches them), then score
each system's output lines against the graphs. It is built once per process
from a picklable :class:`Job`, so models load once per worker. What goes into
chunks, in which order, and what happens to the results is
:mod:`samsa.engine.pipeline`'s.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from samsa.config import Compat, SamsaConfig
from samsa.engine.seams import ItemKind, Want
from samsa.errors import InputError, SamsaError, ScoringError

__all__ = ["Item", "ItemResult", "Job", "PoolExecutor", "SerialExecutor", "Worker"]


@dataclass(frozen=True)
class Job:
    """What every worker builds once: the SAMSA settings (``config``; its parser parses raw sources) and whether
    it scores.

    ``config.aligner`` is a registry name and its options, so that heavy aligners (spaCy, PPDB) are built inside
    each worker rather than pickled.
    """

    config: SamsaConfig = field(default_factory=SamsaConfig)
    score: bool = True
    lenient: bool = False  # drop a passage that does not load or validate (and say so) instead of stopping

    @property
    def parser(self) -> Any:
        """What parses raw sources (the built-in parser object, when the caller has one)."""
        return self.config.parser

    @classmethod
    def parse_only(cls, parser: Any) -> Job:
        """A job that parses with ``parser`` and scores nothing."""
        return cls(SamsaConfig(parser=parser), score=False)


@dataclass(frozen=True)
class Item:
    """One source line: ``kind`` is ``parse`` (``source`` is text or tokens), ``cached`` (the same, with the
    parse cache's graph ``payload`` or, for paper-mode scoring, its encoded structure ``scenes``), ``graph`` or
    ``xml`` (a file path)."""

    kind: ItemKind
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
        from samsa.scoring.metric import Samsa

        self.job = job
        self.metric = Samsa(job.config) if job.score else None

    @property
    def paper(self) -> bool:
        """Whether this worker scores in paper mode (the mode whose structure the parse cache keeps)."""
        return self.metric is not None and self.metric.compat == "paper"

    def load(self, items: Sequence[Item]) -> _Loaded:
        """The graph or (cache hits in paper mode) the structure of each item. Items are parsed here when they
        are raw, or when their cached entry does not decode (``repaired``); every graph that did not come from
        the cache is validated; lenient mode drops an item that does not load or validate (``dropped``)."""
        from samsa.engine.entries import decode_graph, decode_structure
        from samsa.ucca.validate import check_passage
        from samsa.ucca.xml import load_passage

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
            if it.kind != "parse" and not got.repaired[k]:
                continue
            todo.append(k)
        sources = [items[k].source for k in todo]
        parsed = self.job.parser.parse(sources) if todo else []
        for k, g in zip(todo, parsed, strict=True):
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

    def run(self, items: Sequence[Item], want: Want = "none") -> list[ItemResult]:
        """Score a chunk; ``want`` says which graphs travel back: ``all`` (as graphs, parsed ones also encoded for
        the cache), ``graphs`` (as graphs only: nobody caches them), ``parsed`` (encoded for the cache, with their
        paper-mode structures) or ``none``."""
        from samsa.engine.entries import encode_graph, encode_structure

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
            out.append(
                ItemResult(
                    g if want in ("all", "graphs") else None,
                    payload=encode_graph(g) if got.parsed[k] and want in ("all", "parsed") else None,
                    scenes=scenes,
                    repaired=got.repaired[k],
                    dropped=got.dropped[k],
                )
            )
        if self.metric is None:
            return out
        for s in range(n_systems):
            outputs = [items[k].outputs[s] for k in keep]
            self.metric.prepare([got.graphs[k] for k in keep], outputs, structures=[got.structures[k] for k in keep])
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


def _structure(g: nx.DiGraph | None, compat: Compat) -> Any:
    """The graph's output-independent scoring structure; None lets each scoring call raise its own error."""
    from samsa.scoring import graph_structure

    try:
        return graph_structure(g, compat)
    except ScoringError:
        return None


# -- executors: the same Worker in this process or in a process pool (on Dask: samsa.engine.distributed) ---------------

_PROCESS_WORKER: Worker | None = None  # one per pool process, set by its initializer


def _init_process(job: Job, parent_pid: int, main_thread: bool) -> None:
    global _PROCESS_WORKER
    from threadpoolctl import threadpool_limits

    from samsa.engine.lifetime import watch_parent

    watch_parent(parent_pid, kernel_signal=main_thread)  # a worker never outlives its parent
    threadpool_limits(1)  # one intra-op thread per process: processes give the speed, not threads
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (one line, exit 130)
    # SIGTERM ends a worker, as the pool expects when it terminates its workers (a forked worker would otherwise
    # inherit the command's handler, which raises, and the pool's loop would carry on)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _PROCESS_WORKER = Worker(job)


def _run_in_process(items: Sequence[Item], want: Want) -> list[ItemResult]:
    assert _PROCESS_WORKER is not None
    return _PROCESS_WORKER.run(items, want)


class SerialExecutor:
    def __init__(self, job: Job) -> None:
        self.job = job
        self.worker = Worker(job)
        self.thaw: Callable[[], None] | None = None

    def map(self, tasks: Iterable[list[Item]], want: Want) -> Iterator[list[ItemResult]]:
        for t in tasks:
            if self.thaw is None and _load_parser(self.job, t):
                self.thaw = _freeze_heap()
            yield self.worker.run(t, want)

    def close(self) -> None:
        if self.thaw is not None:
            self.thaw()
            self.thaw = None


def _load_parser(job: Job, first: list[Item]) -> bool:
    """Load the job's parser now (``BuiltinParser.load``: spaCy, network) when ``first`` has something to parse
    (a warm cache needs no parser); whether it was loaded."""
    load = getattr(job.parser, "load", None)
    if callable(load) and any(it.kind == "parse" for it in first):
        import gc

        # the collector would walk the half-built models again and again while they load (spaCy's import and
        # pipeline create many objects, none of them garbage); the caller freezes them once they are loaded
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            load()
        finally:
            if was_enabled:
                gc.enable()
        return True
    return False


def _freeze_heap() -> Callable[[], None]:
    """Move every object alive now (the loaded models above all) out of the garbage collector's reach, and
    return what undoes it (nothing where the caller had frozen objects already: theirs stay as they were).

    Why: a parsing process creates many short-lived objects (graphs), and each of
    the collector's full passes otherwise walks spaCy's whole pipeline again;
    in a forked worker it also writes to every inherited
    page, copying it (the ``gc`` module's recipe for forking servers). The
    objects are still freed by reference counting as usual.
    """
    import gc

    already = gc.get_freeze_count() > 0
    gc.freeze()
    return (lambda: None) if already else gc.unfreeze


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
            ctx.set_forkserver_preload(["samsa.engine.executors", "samsa.scoring.metric"])
        self.job = job
        self.jobs = jobs
        self.forks = method == "fork"
        self.started = False
        self._new_pool = lambda: ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=ctx,
            initializer=_init_process,
            initargs=(job, os.getpid(), threading.current_thread() is threading.main_thread()),
        )
        self.pool: Any = self._new_pool()

    def map(self, tasks: Iterable[list[Item]], want: Want) -> Iterator[list[ItemResult]]:
        """Results in input order. Once ``tasks`` is exhausted the pool is told that no chunk follows, so its
        workers exit as soon as the last result is in: their exits (their memory given back) then
        overlap the caller's last results, cache writes and outputs instead of following them. A later ``map``
        starts a fresh pool (forked again)."""
        if self.pool is None:
            self.pool, self.started = self._new_pool(), False
        return _worker_deaths_named(_ordered_window(self._submit(want), self._then_release(tasks), 2 * self.jobs))

    def _then_release(self, tasks: Iterable[list[Item]]) -> Iterator[list[Item]]:
        yield from tasks
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=False)  # the submitted chunks still run; the workers exit after them (and Python
            # waits for those exits at the latest when the process ends)

    def _submit(self, want: Want) -> Callable[[list[Item]], Any]:
        pool = self.pool

        def submit(task: list[Item]) -> Any:
            if self.started:
                return pool.submit(_run_in_process, task, want)
            self.started = True  # the pool forks all its workers at the first submission
            if self.forks:
                # loaded here, the models are every worker's at no cost (shared pages): the workers then parse at
                # once instead of each loading the same models side by side, which on two cores took each of them
                # longer than one load alone; frozen, so that the workers' collections leave those pages alone
                _load_parser(self.job, task)
                thaw = _freeze_heap()
                try:
                    return pool.submit(_run_in_process, task, want)
                finally:
                    thaw()  # this process's collector as it was: only the forked workers keep the heap frozen
            return pool.submit(_run_in_process, task, want)

        return submit

    def close(self) -> None:
        """Stop the pool of a ``map`` not run to its end (chunks not started are cancelled) and wait for its
        workers; after a finished ``map`` there is nothing to do: its workers are exiting already. After Ctrl-C or
        SIGTERM the workers are ended at once rather than left to finish their chunks."""
        from samsa.fileio import INTERRUPTED

        if self.pool is not None:
            if INTERRUPTED.is_set():
                for process in list(getattr(self.pool, "_processes", {}).values()):
                    process.terminate()
            self.pool.shutdown(cancel_futures=True)


def _worker_deaths_named(results: Iterator[Any]) -> Iterator[Any]:
    """A worker killed in the middle of a chunk (out of memory, a signal) ends the run with one line, not with
    concurrent.futures' BrokenProcessPool traceback."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        yield from results
    except BrokenProcessPool:
        raise WorkerDied(
            "a worker process died in the middle of its work (killed, or out of memory?); "
            "no output was written: run again, with fewer --jobs if memory is short"
        ) from None


class WorkerDied(SamsaError):
    """A pool worker ended before returning its chunk."""


def _ordered_window(submit: Callable[[Any], Any], tasks: Iterable[Any], width: int) -> Iterator[Any]:
    """Submit tasks keeping ``width`` in flight; yield their results in submission order."""
    pending: deque[Any] = deque()
    for t in tasks:
        pending.append(submit(t))
        if len(pending) >= width:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
