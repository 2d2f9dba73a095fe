"""Where the chunks of a corpus run: in this process or in a process pool (``--jobs N``), each on a
:class:`~samsa.engine.worker.Worker`; on Dask in :mod:`samsa.engine.distributed`.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any, Protocol

from samsa.engine.seams import Want
from samsa.engine.worker import Item, ItemResult, Job, Worker
from samsa.errors import SamsaError

__all__ = ["INLINE_CHUNKS", "Executor", "PoolExecutor", "SerialExecutor", "WorkerDied"]


class Executor(Protocol):
    """Runs chunks of items on workers built from one :class:`~samsa.engine.worker.Job`; results in input
    order."""

    job: Job

    def map(self, tasks: Iterable[list[Item]], want: Want) -> Iterator[list[ItemResult]]: ...

    def close(self) -> None: ...


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


#: chunks of cache hits (per worker) a pool runs in its own process before it starts its workers
INLINE_CHUNKS = 4


class PoolExecutor:
    """A process pool; at most ``2 * jobs`` chunks in flight, results in input order. Until the pool starts,
    up to :data:`INLINE_CHUNKS` chunks per worker that are all cache hits with their structures (nothing to parse
    or rebuild) run in this process: starting workers for them would cost more than their work."""

    def __init__(self, job: Job, jobs: int) -> None:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        # fork on Linux: workers inherit the imported modules and start in milliseconds (the parent has only
        # idle BLAS threads then); elsewhere forkserver, or spawn where that is missing (Windows)
        methods = mp.get_all_start_methods()
        method = "fork" if sys.platform.startswith("linux") else "forkserver" if "forkserver" in methods else "spawn"
        ctx = mp.get_context(method)
        if method == "forkserver":
            ctx.set_forkserver_preload(["samsa.engine.worker", "samsa.scoring.metric"])
        self.job = job
        self.jobs = jobs
        self.forks = method == "fork"
        self.started = False
        self.here: Worker | None = None  # runs the chunks of cache hits that come before the pool starts
        self.ran_here = 0
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
            if self.ran_here < INLINE_CHUNKS * self.jobs and all(it.encoded_structure is not None for it in task):
                return self._run_here(task, want)
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

    def _run_here(self, task: list[Item], want: Want) -> Future[list[ItemResult]]:
        """A chunk of cache hits with their structures, scored in this process: it needs no parser, and a warm
        run made only of such chunks then starts no worker at all."""
        self.ran_here += 1
        if self.here is None:
            self.here = Worker(self.job)
        done: Future[list[ItemResult]] = Future()
        done.set_result(self.here.run(task, want))
        return done

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
