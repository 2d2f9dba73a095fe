"""A persistent cache of parsed UCCA graphs (SQLite), so that each source is parsed once, ever. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from samsa.engine.cache_drawn import DRAWN_TABLE, DrawnTrees, digest
from samsa.engine.cache_file import APPLICATION_ID, default_cache_path, samsa_owned
from samsa.engine.entries import decode_graph, encode_graph, input_text
from samsa.errors import InputError

__all__ = ["SCHEMA", "ParseCache", "decode_graph", "default_cache_path", "encode_graph", "input_text"]

SCHEMA = "samsa-parse-cache-3"
_CREATE = (
    """
CREATE TABLE IF NOT EXISTS info (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS parses (
    key BLOB PRIMARY KEY,
    parser TEXT NOT NULL,
    input TEXT NOT NULL,
    payload BLOB NOT NULL,
    digest BLOB NOT NULL,
    created REAL NOT NULL,
    scenes BLOB,
    scenes_digest BLOB,
    scenes_version TEXT
) WITHOUT ROWID;
"""
    + DRAWN_TABLE
)
#: the ``info`` row that says the drawn trees live in their own table: older runs kept them in ``parses``, under
#: their parser's key extended by ``|trees:`` (those rows are deleted once, when a cache is first opened here)
_DRAWN_TABLE = "drawn-table"


def _key(parser_key: str, text: str) -> bytes:
    return hashlib.sha256(f"{parser_key}\0{text}".encode()).digest()


class ParseCache(DrawnTrees):
    """Get and put parsed graphs by (parser key, input).

    >>> import tempfile, pathlib
    >>> from samsa.ucca.graph import from_tokens
    >>> with ParseCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite") as cache:
    ...     cache.put_many("p", [["a", "b"]], [from_tokens(["a", "b"])])
    ...     [g is not None for g in cache.get_many("p", [["a", "b"], ["c"]])]
    [True, False]
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 60.0) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.timeout = timeout
        self.dropped = 0  # entries found corrupt or foreign and deleted
        self._db: sqlite3.Connection | None = self._open()

    # -- opening -----------------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.executescript(_CREATE)
        db.execute("INSERT OR IGNORE INTO info VALUES ('schema', ?)", (SCHEMA,))
        (schema,) = db.execute("SELECT value FROM info WHERE name = 'schema'").fetchone()
        if schema != SCHEMA:
            db.close()
            raise sqlite3.DatabaseError(f"schema {schema!r}, expected {SCHEMA!r}")
        if db.execute("SELECT 1 FROM info WHERE name = ?", (_DRAWN_TABLE,)).fetchone() is None:
            with _Transaction(db):
                db.execute("DELETE FROM parses WHERE parser LIKE '%|trees:%'")
                db.execute("INSERT OR IGNORE INTO info VALUES (?, '1')", (_DRAWN_TABLE,))
        return db

    def _create(self) -> None:
        """Make a new cache appear at the path whole: built under a private name (header, schema, WAL mode),
        then hard-linked into place, which fails if another process got there first. A process that finds the
        file never sees it half-initialised (without samsa's application ID it would be taken for another
        program's file and left alone). Where hard links are not possible the cache is initialised in place."""
        tmp = self.path.with_name(f"{self.path.name}.new-{os.getpid()}")
        try:
            tmp.unlink(missing_ok=True)
            db = sqlite3.connect(tmp, timeout=self.timeout, isolation_level=None)
            try:
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.executescript(_CREATE)
                db.execute("INSERT OR IGNORE INTO info VALUES ('schema', ?)", (SCHEMA,))
                db.execute("INSERT OR IGNORE INTO info VALUES (?, '1')", (_DRAWN_TABLE,))
                db.execute("PRAGMA journal_mode = WAL")
            finally:
                db.close()
            with contextlib.suppress(FileExistsError):
                os.link(tmp, self.path)
        except (OSError, sqlite3.Error):
            pass  # _connect initialises in place and reports what is really wrong
        finally:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):
                    Path(f"{tmp}{suffix}").unlink(missing_ok=True)

    def _open(self) -> sqlite3.Connection | None:
        """The connection, or None (with one warning) when the path holds something that is not samsa's."""
        owned = samsa_owned(self.path)
        if owned is False:
            self._warn(
                "is not a samsa parse cache; it is left as it is and this run uses no cache "
                "(give --cache another path, or --no-cache)"
            )
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise InputError(self.path, None, f"cannot create the parse cache's directory: {e.strerror}") from None
        if owned is None:
            self._create()
        try:
            return self._connect()
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError) and "locked" in str(e):
                raise InputError(self.path, None, "parse cache is locked by another process; retry later") from None
            if isinstance(e, sqlite3.OperationalError) and "unable to open" in str(e):
                raise InputError(
                    self.path, None, "cannot open the parse cache (try --cache PATH or --no-cache)"
                ) from None
            # samsa's own cache, corrupt or of another schema: keep it aside, start afresh
            aside = self._move_aside(f"{'of another samsa version' if 'schema' in str(e) else 'corrupt'} ({e})")
            return self._connect() if aside else None

    def _warn(self, what: str) -> None:
        print(f"samsa: warning: {self.path}: {what}", file=sys.stderr)

    def _move_aside(self, why: str) -> bool:
        """Move samsa's own broken cache file aside (its WAL and index files with it); False if that failed."""
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
        try:
            os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        except OSError as e:
            self._warn(f"parse cache {why}; cannot move it aside ({e.strerror}): this run uses no cache")
            return False
        self._warn(f"parse cache {why}; moved to {aside.name}, starting an empty one")
        return True

    def _failed(self, error: sqlite3.Error) -> None:
        """A database error in the middle of a run: reported once; the rest of the run goes without the cache
        (misses are parsed, so outputs equal --no-cache's). Samsa's own file is moved aside for the next run."""
        if self._db is None:
            return
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._db = None
        if samsa_owned(self.path):
            self._move_aside(f"corrupt ({error}); the rest of this run goes without it")
        else:
            self._warn(f"parse cache unreadable ({error}); the rest of this run goes without it")

    @property
    def usable(self) -> bool:
        """False when the run goes without the cache (not samsa's file, or found corrupt)."""
        return self._db is not None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()

    def __enter__(self) -> ParseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- entries -----------------------------------------------------------------------------------------------
    def get_many(self, parser_key: str, sentences: Sequence[str | Sequence[str]]) -> list[nx.DiGraph | None]:
        """The cached graph of each input, or ``None``; bad entries are deleted and reported as misses."""
        out: list[nx.DiGraph | None] = []
        for sentence, payload in zip(sentences, self.get_payloads(parser_key, sentences), strict=True):
            g = None if payload is None else decode_graph(payload, sentence)
            if payload is not None and g is None:
                self._drop(_key(parser_key, input_text(sentence)))
            out.append(g)
        return out

    def get_payloads(self, parser_key: str, sentences: Sequence[str | Sequence[str]]) -> list[bytes | None]:
        """The stored graph payload of each input whose parser key, input and digest check out, without decoding it
        (the pipeline's workers decode in parallel, with :func:`decode_graph`); bad entries are deleted."""
        return [None if e is None else e[0] for e in self.get_entries(parser_key, sentences)]

    def get_entries(
        self, parser_key: str, sentences: Sequence[str | Sequence[str]], structure_version: str | None = None
    ) -> list[tuple[bytes | None, bytes | None] | None]:
        """``(graph payload, None)`` or, when ``structure_version`` is given and the entry has a structure of that
        version, ``(None, encoded structure)``; None for a miss. Only what is returned is read and checked (digest,
        key, input); a bad entry is deleted and reported as a miss."""
        if self._db is None:
            return [None] * len(sentences)
        try:
            return self._entries(parser_key, sentences, structure_version)
        except sqlite3.Error as e:
            self._failed(e)
            return [None] * len(sentences)

    def _entries(
        self, parser_key: str, sentences: Sequence[str | Sequence[str]], structure_version: str | None
    ) -> list[tuple[bytes | None, bytes | None] | None]:
        assert self._db is not None
        texts = [input_text(s) for s in sentences]
        keys = [_key(parser_key, t) for t in texts]
        found: dict[bytes, tuple[str, str, bytes | None, bytes | None, bytes | None]] = {}
        unique = list(dict.fromkeys(keys))
        # the graph is read only where no usable structure is: the warm path never moves graphs
        query = (
            "SELECT key, parser, input, CASE WHEN scenes_version = ?1 THEN NULL ELSE payload END, "
            "CASE WHEN scenes_version = ?1 THEN NULL ELSE digest END, "
            "CASE WHEN scenes_version = ?1 THEN scenes END, CASE WHEN scenes_version = ?1 THEN scenes_digest END "
            "FROM parses WHERE key IN ({})"
        )
        for b in range(0, len(unique), 500):  # SQLite's bound-variable limit
            chunk = unique[b : b + 500]
            marks = ",".join(f"?{k + 2}" for k in range(len(chunk)))
            for r in self._db.execute(query.format(marks), [structure_version or "", *chunk]):
                if r[5] is not None:  # the structure, checked in the graph's place
                    st_check = bytes(r[6]) if r[6] is not None else None
                    found[bytes(r[0])] = (r[1], r[2], bytes(r[5]), st_check, bytes(r[5]))
                else:
                    payload, check = (bytes(r[3]), bytes(r[4])) if r[3] is not None else (None, None)
                    found[bytes(r[0])] = (r[1], r[2], payload, check, None)
        out: list[tuple[bytes | None, bytes | None] | None] = []
        for text, key in zip(texts, keys, strict=True):
            row = found.get(key)
            if row is None:
                out.append(None)
                continue
            parser, stored_input, blob, stored_digest, structure = row
            version = (structure_version or "") if structure is not None else ""
            if (
                (parser, stored_input) != (parser_key, text)
                or blob is None
                or digest(key, blob, version) != stored_digest
            ):
                self._drop(key)
                found.pop(key)
                out.append(None)
            else:
                out.append((None, structure) if structure is not None else (blob, None))
        return out

    def _drop(self, key: bytes) -> None:
        self.dropped += 1
        assert self._db is not None
        self._db.execute("DELETE FROM parses WHERE key = ?", (key,))

    def put_many(self, parser_key: str, sentences: Sequence[str | Sequence[str]], graphs: Sequence[nx.DiGraph]) -> None:
        """Store graphs (one transaction: all of them or, if the process dies, none)."""
        self.put_encoded(parser_key, sentences, [encode_graph(g) for g in graphs])

    def put_encoded(
        self,
        parser_key: str,
        sentences: Sequence[str | Sequence[str]],
        payloads: Sequence[bytes],
        structures: Sequence[bytes | None] | None = None,
        structure_version: str | None = None,
    ) -> None:
        """Store graphs already encoded by :func:`encode_graph`, with their encoded structures when given
        (one transaction)."""
        rows = []
        now = time.time()
        for k, (s, payload) in enumerate(zip(sentences, payloads, strict=True)):
            text = input_text(s)
            key = _key(parser_key, text)
            st = structures[k] if structures is not None else None
            st_digest, version = (
                (None, None) if st is None else (digest(key, st, structure_version or ""), structure_version)
            )
            rows.append((key, parser_key, text, payload, digest(key, payload), now, st, st_digest, version))
        self._write("INSERT OR REPLACE INTO parses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """One transaction of ``sql`` over ``rows``; nothing when the run goes without the cache."""
        if self._db is None:
            return
        try:
            with self._transaction():
                self._db.executemany(sql, rows)
        except sqlite3.Error as e:
            if isinstance(e, sqlite3.OperationalError) and "locked" in str(e):
                raise InputError(self.path, None, "parse cache is locked by another process; retry later") from None
            self._failed(e)

    def put_structures(
        self,
        parser_key: str,
        sentences: Sequence[str | Sequence[str]],
        structures: Sequence[bytes],
        structure_version: str,
    ) -> None:
        """Add encoded structures to entries already stored (derived from their graphs by a warm run; one
        transaction)."""
        keys = [_key(parser_key, input_text(s)) for s in sentences]
        rows = [
            (st, digest(key, st, structure_version), structure_version, key)
            for key, st in zip(keys, structures, strict=True)
        ]
        self._write("UPDATE parses SET scenes = ?, scenes_digest = ?, scenes_version = ? WHERE key = ?", rows)

    def _transaction(self) -> _Transaction:
        assert self._db is not None
        return _Transaction(self._db)

    def _usable_db(self) -> sqlite3.Connection:
        if self._db is None:
            raise InputError(self.path, None, "is not a usable samsa parse cache (see the warning above)")
        return self._db

    # -- maintenance -------------------------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """Path, size, entry count, and entries per parser key."""
        db = self._usable_db()
        per_parser = dict(db.execute("SELECT parser, COUNT(*) FROM parses GROUP BY parser ORDER BY parser"))
        drawn = dict(db.execute("SELECT parser, COUNT(*) FROM drawn GROUP BY parser ORDER BY parser"))
        size = sum(
            p.stat().st_size
            for p in self.path.parent.glob(self.path.name + "*")
            if p.is_file() and not p.name.startswith(self.path.name + ".corrupt")
        )
        return {
            "path": str(self.path),
            "schema": SCHEMA,
            "entries": sum(per_parser.values()),
            "bytes": size,
            "parsers": per_parser,
            "drawn_trees": drawn,
        }

    def clear(self) -> int:
        """Delete every entry; returns how many there were."""
        db = self._usable_db()
        with self._transaction():
            (n,) = db.execute("SELECT COUNT(*) FROM parses").fetchone()
            db.execute("DELETE FROM parses")
            db.execute("DELETE FROM drawn")
        db.execute("VACUUM")
        return int(n)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error): writers queue on the busy timeout, never interleave."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
