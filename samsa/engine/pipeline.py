"""Parse and score a corpus chunk by chunk: in this process, in a process pool (``--jobs N``), or on Dask. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from samsa.engine.executors import Executor, PoolExecutor, SerialExecutor
from samsa.engine.seams import CachingParser, EntryCache, Want
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
    "progress_bar",
    "run_items",
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


class _CacheKeys(NamedTuple):
    """Where a run's parses live in the cache: the parser's key; the structure version read (paper-mode scoring
    that returns no graphs: the structure stands in for the graph) and the one written (paper-mode scoring); and
    with parse uncertainty the sampler of the drawn trees."""

    parser: str
    read_version: str | None
    write_version: str | None
    sampler: str | None


def _cache_keys(parser: Parser | None, cache: EntryCache | None, job: Job, return_graphs: bool) -> _CacheKeys | None:
    """The run's :class:`_CacheKeys`, or None when it does not use the cache."""
    from samsa.engine.entries import STRUCTURE_VERSION
    from samsa.engine.uncertainty import calibration_sampler

    if cache is None or not isinstance(parser, CachingParser):
        return None
    paper = job.score and job.config.compat == "paper"
    return _CacheKeys(
        parser.cache_key(),
        STRUCTURE_VERSION if paper and not return_graphs else None,
        STRUCTURE_VERSION if paper else None,
        calibration_sampler(job.uncertainty) if job.uncertainty is not None else None,
    )


def _with_cache(window: list[Item], cache: EntryCache, keys: _CacheKeys) -> list[Item]:
    """The window with its parse items that have a cache entry turned into ``cached`` items carrying its graph
    payload, or its encoded structure when the run reads structures and the entry has one (decoded by the
    workers). With parse uncertainty a hit needs the drawn trees' entry as well."""
    from samsa.engine.entries import STRUCTURE_VERSION

    out = list(window)
    todo = [k for k, it in enumerate(window) if it.kind == "parse"]
    if not todo:
        return out
    sources = [window[k].source for k in todo]
    found = cache.get_entries(keys.parser, sources, keys.read_version)
    drawn: list[bytes | None] = [None] * len(todo)
    if keys.sampler is not None:
        drawn = cache.get_drawn(keys.parser, keys.sampler, sources, STRUCTURE_VERSION)
    for k, entry, trees in zip(todo, found, drawn, strict=True):
        if entry is None or (keys.sampler is not None and trees is None):
            continue
        it = window[k]
        out[k] = Item("cached", it.source, it.outputs, it.origin, entry[0], entry[1], trees)
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
    """Run items through ``executor`` chunk by chunk; what is parsed goes to ``cache`` (when given) as it comes.

    Yields ``(item, result)`` in input order; ``result.graph`` is set for every
    item with ``return_graphs`` (else graphs stay in the workers). Items are
    read ``window`` chunks of ``chunk`` items at a time and cut into chunks in
    :func:`chunk_order`; results are yielded as soon as they and all earlier
    ones are in (so at most a window of items is in memory: large items, such as
    documents, take smaller chunks). This is the one path of parses to and from
    the cache: the graphs, their paper-mode structures (a run that only scores in
    paper mode reads the structure in the graph's place) and, with parse
    uncertainty (``executor.job.uncertainty``), the trees drawn for each source.
    """
    job = executor.job
    keys = _cache_keys(parser, cache, job, return_graphs)
    submitted: deque[tuple[_Window, list[int]]] = deque()

    def chunks() -> Iterator[list[Item]]:
        for given in _windows(items, chunk * window):
            found = _with_cache(given, cache, keys) if keys is not None and cache is not None else given
            state = _Window(given, [None] * len(given))
            order = chunk_order(found)
            for c in range(0, len(order), chunk):
                idx = order[c : c + chunk]
                submitted.append((state, idx))
                yield [found[k] for k in idx]

    want: Want = (
        ("all" if keys is not None else "graphs") if return_graphs else "parsed" if keys is not None else "none"
    )
    for results in executor.map(chunks(), want):
        state, idx = submitted.popleft()
        if keys is not None and cache is not None:
            _store(cache, keys, [state.items[k] for k in idx], results)
        for k, res in zip(idx, results, strict=True):
            state.results[k] = res
        yield from state.ready()
        if progress is not None:
            progress(len(idx))


def _store(cache: EntryCache, keys: _CacheKeys, chunk: list[Item], results: list[ItemResult]) -> None:
    """Fresh parses and repaired entries come back encoded (with their structures, when the run writes them, and
    their drawn trees); cache hits come back without a payload, and with a structure where the cache had only the
    graph. A manual line of mixed sources (xml) is not the parser's: never stored."""
    from samsa.engine.entries import STRUCTURE_VERSION

    cache.dropped += sum(r.repaired for r in results)
    new_sources, payloads, structures = [], [], []
    derived_sources, derived = [], []
    drawn_sources, drawn = [], []
    for it, r in zip(chunk, results, strict=True):
        if it.kind not in ("parse", "cached"):
            continue
        if r.payload is not None:
            new_sources.append(it.source)
            payloads.append(r.payload)
            structures.append(r.encoded_structure)
        elif r.encoded_structure is not None:
            derived_sources.append(it.source)
            derived.append(r.encoded_structure)
        if r.encoded_draws is not None:
            drawn_sources.append(it.source)
            drawn.append(r.encoded_draws)
    if new_sources:
        written = structures if keys.write_version else None
        cache.put_encoded(keys.parser, new_sources, payloads, written, keys.write_version)
    if derived and keys.write_version:
        cache.put_structures(keys.parser, derived_sources, derived, keys.write_version)
    if drawn and keys.sampler is not None:
        cache.put_drawn(keys.parser, keys.sampler, drawn_sources, drawn, STRUCTURE_VERSION)


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


def make_executor(job: Job, *, jobs: int = 1, dask: str | None = None) -> Executor:
    """``dask``: ``"local"`` for a LocalCluster of ``jobs`` workers, or a scheduler address; else a pool or serial."""
    if dask:
        from samsa.engine.distributed import DaskExecutor

        return DaskExecutor(job, dask, workers=max(jobs, 1))
    if jobs > 1:
        return PoolExecutor(job, jobs)
    return SerialExecutor(job)
