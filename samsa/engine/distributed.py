"""Scoring on a Dask cluster (the optional ``dask`` extra): the same chunk worker, one per Dask worker. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from samsa.engine.executors import _ordered_window
from samsa.engine.seams import Want
from samsa.engine.worker import Item, ItemResult, Job, Worker
from samsa.errors import PluginUnavailable

__all__ = ["DaskExecutor", "SamsaWorkerPlugin"]

try:  # the base class is needed at class-definition time; the extra is optional
    from distributed.diagnostics.plugin import WorkerPlugin as _PluginBase
except ImportError:  # pragma: no cover - exercised only without the extra
    _PluginBase = object  # type: ignore[assignment,misc]


class SamsaWorkerPlugin(_PluginBase):
    """Builds one samsa Worker per Dask worker, under ``name`` (a digest of the job); ``private``: the
    workers run nothing but samsa's tasks (a LocalCluster started by samsa)."""

    def __init__(self, job: Job, name: str, private: bool = False) -> None:
        self.job = job
        self.name = name
        self.private = private

    def setup(self, worker: Any) -> None:
        from threadpoolctl import threadpool_limits

        if self.private:
            from samsa.startup import hide_torch_from_thinc

            hide_torch_from_thinc()
        threadpool_limits(1)
        workers = getattr(worker, "samsa_workers", None)
        if workers is None:
            workers = worker.samsa_workers = {}
        workers[self.name] = Worker(self.job)


@contextmanager
def _environ_kept(names: Iterable[str]) -> Iterator[None]:
    """``os.environ``'s ``names`` as they were before the block. Dask's nanny sets its workers' environment
    in the process that starts them, for good: left there, a later cluster, or :func:`tune_allocator
    <samsa.allocator.tune_allocator>`'s check, would take Dask's glibc setting for the user's own."""
    saved = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run_on_dask_worker(name: str, items: list[Item], want: Want) -> list[ItemResult]:
    from distributed import get_worker

    workers: dict[str, Any] = get_worker().samsa_workers  # type: ignore[attr-defined]  # set by SamsaWorkerPlugin
    return workers[name].run(items, want)


class DaskExecutor:
    """Run chunks on a Dask cluster; ``address`` is ``"local"`` or a scheduler address."""

    def __init__(self, job: Job, address: str, *, workers: int = 2) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:
            raise PluginUnavailable("Dask scoring needs the dask extra: pip install 'samsa-metric[dask]'") from e
        self.job = job
        self.cluster = None
        if address == "local":
            import dask

            from samsa.allocator import allocator_environ

            # the nanny spawns each worker with this environment (Dask's own: one BLAS thread, a 64 KiB trim
            # threshold) read when it is created; samsa's allocator setting replaces that threshold
            environ = {**dask.config.get("distributed.nanny.pre-spawn-environ", {}), **allocator_environ()}
            with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}), _environ_kept(environ):
                self.cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                )
            self.client = Client(self.cluster)
        else:
            self.client = Client(address)
        self.name = "samsa-" + hashlib.sha256(pickle.dumps(job)).hexdigest()[:16]
        plugin = SamsaWorkerPlugin(job, self.name, private=self.cluster is not None)
        self.client.register_plugin(plugin, name=self.name)
        self.width = 2 * max(len(self.client.scheduler_info().get("workers", {})), 1)

    def map(self, tasks: Iterable[list[Item]], want: Want) -> Iterator[list[ItemResult]]:
        def submit(t: list[Item]) -> Any:
            return self.client.submit(_run_on_dask_worker, self.name, t, want, pure=False)

        return _ordered_window(submit, tasks, self.width)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
