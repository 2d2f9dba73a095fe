"""The engine's seams: what it parses with, what it caches in, where it runs, and the words its parts speak. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from samsa.parsers.base import Parser

__all__ = ["IN_PROCESS", "CachingParser", "EntryCache", "Execution", "ItemKind", "Want"]

#: what an item's ``source`` is: raw text or tokens to parse (``parse``), the same with a cache entry
#: (``cached``), a UCCA graph (``graph``), or a UCCA XML file (``xml``)
ItemKind = Literal["parse", "cached", "graph", "xml"]

#: which graphs travel back from the workers: every one (``all``: those parsed also encoded for the cache),
#: every one as a graph only (``graphs``), those parsed, encoded for the cache (``parsed``), or none
Want = Literal["all", "graphs", "parsed", "none"]


@runtime_checkable
class CachingParser(Parser, Protocol):
    """A parser whose parses the engine may cache: ``cache_key`` names everything its output depends on."""

    def cache_key(self) -> str: ...


class EntryCache(Protocol):
    """Where parses are kept between runs, as encoded entries (``samsa.engine.entries``): each input's graph, beside
    it its paper-mode scoring structure (tagged with the version of the Scene rules), and apart from both the
    structures of the trees drawn from the parser's distribution (parse uncertainty), by sampler."""

    dropped: int  # entries found bad (and parsed again) in this run

    def get_entries(
        self, parser_key: str, sentences: Sequence[str | Sequence[str]], structure_version: str | None = None
    ) -> list[tuple[bytes | None, bytes | None] | None]:
        """Per input: ``(graph payload, None)``, ``(None, encoded structure)`` (when the entry has a structure of
        ``structure_version``), or None for a miss."""
        ...

    def put_encoded(
        self,
        parser_key: str,
        sentences: Sequence[str | Sequence[str]],
        payloads: Sequence[bytes],
        structures: Sequence[bytes | None] | None = None,
        structure_version: str | None = None,
    ) -> None:
        """Store encoded graphs (and their encoded structures) of new parses."""
        ...

    def put_structures(
        self,
        parser_key: str,
        sentences: Sequence[str | Sequence[str]],
        structures: Sequence[bytes],
        structure_version: str,
    ) -> None:
        """Add encoded structures to entries already stored."""
        ...

    def get_drawn(
        self, parser_key: str, sampler: str, sentences: Sequence[str | Sequence[str]], structure_version: str
    ) -> list[bytes | None]:
        """Per input, its encoded drawn trees (``entries.encode_draws``) of ``sampler`` (``entries.sampler_key``),
        or None for a miss."""
        ...

    def put_drawn(
        self,
        parser_key: str,
        sampler: str,
        sentences: Sequence[str | Sequence[str]],
        encoded: Sequence[bytes],
        structure_version: str,
    ) -> None:
        """Store each input's encoded drawn trees."""
        ...


class Execution(NamedTuple):
    """How a corpus run executes, never what it computes: the parse cache (``cache``), worker processes
    (``jobs``), Dask (``dask``: ``"local"`` or a scheduler's address), a progress callback (``progress``, given
    the number of lines done), and what a refusal names as a line's place (``origin``: the file the sentences are
    the lines of, or each sentence's own file). Commands build it from their options in one place
    (``samsa.cli.common.Runtime.parse_run``)."""

    cache: EntryCache | None = None
    jobs: int = 1
    dask: str | None = None
    progress: Callable[[int], None] | None = None
    origin: str | Sequence[str] | None = None


#: one process, no cache, no progress: what a run does unless told otherwise
IN_PROCESS = Execution()
