"""The parse cache's table of drawn trees (parse uncertainty): for each input, the structures of the trees drawn
from the parser's distribution, keyed by the parser's cache key, the sampler (``samsa.engine.entries.sampler_key``)
and the input, each entry checked by a digest bound to its key and structure version, as the parses are
(``samsa.engine.cache``). Kept apart from the parses so that ``samsa cache info`` lists parsers, not tree rows."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from samsa.engine.entries import input_text

__all__ = ["DRAWN_TABLE", "DrawnTrees", "digest"]

DRAWN_TABLE = """
CREATE TABLE IF NOT EXISTS drawn (
    key BLOB PRIMARY KEY,
    parser TEXT NOT NULL,
    sampler TEXT NOT NULL,
    input TEXT NOT NULL,
    trees BLOB NOT NULL,
    digest BLOB NOT NULL,
    version TEXT NOT NULL,
    created REAL NOT NULL
) WITHOUT ROWID;
"""


def digest(key: bytes, blob: bytes, version: str = "") -> bytes:
    """A payload's checksum bound to its key (and a structure's to its scene-rules version): a payload moved to
    another key no longer checks out."""
    return hashlib.sha256(key + version.encode() + b"\0" + blob).digest()


def _drawn_key(parser_key: str, sampler: str, text: str) -> bytes:
    return hashlib.sha256(f"{parser_key}\0{sampler}\0{text}".encode()).digest()


class DrawnTrees:
    """The drawn-tree half of :class:`~samsa.engine.cache.ParseCache` (which provides the connection, the
    transactional writes and the handling of a database that fails in the middle of a run)."""

    _db: sqlite3.Connection | None
    dropped: int

    def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:  # pragma: no cover - the cache's own
        raise NotImplementedError

    def _failed(self, error: sqlite3.Error) -> None:  # pragma: no cover - the cache's own
        raise NotImplementedError

    def get_drawn(
        self, parser_key: str, sampler: str, sentences: Sequence[str | Sequence[str]], structure_version: str
    ) -> list[bytes | None]:
        """The encoded drawn trees (:func:`~samsa.engine.entries.encode_draws`) of each input, drawn by ``sampler``
        (:func:`~samsa.engine.entries.sampler_key`) from the parser's distribution, or None; an entry whose
        parser, sampler, input, structure version or digest does not check out is deleted and reported as a
        miss."""
        if self._db is None:
            return [None] * len(sentences)
        try:
            return self._drawn(parser_key, sampler, sentences, structure_version)
        except sqlite3.Error as e:
            self._failed(e)
            return [None] * len(sentences)

    def _drawn(
        self, parser_key: str, sampler: str, sentences: Sequence[str | Sequence[str]], structure_version: str
    ) -> list[bytes | None]:
        assert self._db is not None
        texts = [input_text(s) for s in sentences]
        keys = [_drawn_key(parser_key, sampler, t) for t in texts]
        found: dict[bytes, tuple[Any, ...]] = {}
        unique = list(dict.fromkeys(keys))
        for b in range(0, len(unique), 500):
            chunk = unique[b : b + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, parser, sampler, input, trees, digest, version FROM drawn WHERE key IN ({marks})"
            for r in self._db.execute(query, chunk):
                found[bytes(r[0])] = r[1:]
        out: list[bytes | None] = []
        for text, key in zip(texts, keys, strict=True):
            row = found.get(key)
            if row is None:
                out.append(None)
                continue
            parser, stored_sampler, stored_input, blob, stored_digest, version = row
            good = (parser, stored_sampler, stored_input) == (
                parser_key,
                sampler,
                text,
            ) and version == structure_version
            if not good or digest(key, bytes(blob), version) != bytes(stored_digest):
                if version == structure_version:  # another version's entry is left for the samsa that wrote it
                    self._drop_drawn(key)
                found.pop(key)
                out.append(None)
            else:
                out.append(bytes(blob))
        return out

    def _drop_drawn(self, key: bytes) -> None:
        self.dropped += 1
        assert self._db is not None
        self._db.execute("DELETE FROM drawn WHERE key = ?", (key,))

    def put_drawn(
        self,
        parser_key: str,
        sampler: str,
        sentences: Sequence[str | Sequence[str]],
        encoded: Sequence[bytes],
        structure_version: str,
    ) -> None:
        """Store each input's encoded drawn trees (one transaction)."""
        now = time.time()
        rows = []
        for s, blob in zip(sentences, encoded, strict=True):
            text = input_text(s)
            key = _drawn_key(parser_key, sampler, text)
            check = digest(key, blob, structure_version)
            rows.append((key, parser_key, sampler, text, blob, check, structure_version, now))
        self._write("INSERT OR REPLACE INTO drawn VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
