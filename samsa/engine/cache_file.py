"""Where the parse cache lives, and whether a file there is samsa's: the checks made before anything is written.

A file is samsa's only if its SQLite header carries samsa's application ID, or (for caches written before
samsa set one) its ``info`` table names a samsa schema; anything else is never written, moved or replaced.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

__all__ = ["APPLICATION_ID", "default_cache_path", "samsa_owned"]

#: SQLite's ``application_id`` (header bytes 68-71) of a samsa cache: "SmSa"
APPLICATION_ID = 0x536D5361
SQLITE_MAGIC = b"SQLite format 3\x00"


def default_cache_path() -> Path:
    """``$SAMSA_CACHE``, else the platform's user cache directory (``platformdirs``) + ``samsa/parses.sqlite``."""
    env = os.environ.get("SAMSA_CACHE")
    if env:
        return Path(env)
    from platformdirs import user_cache_path

    # $XDG_CACHE_HOME/samsa or ~/.cache/samsa, ~/Library/Caches/samsa, %LOCALAPPDATA%\samsa
    return user_cache_path("samsa", appauthor=False, opinion=False) / "parses.sqlite"


def samsa_owned(path: Path) -> bool | None:
    """True when the file at ``path`` is a samsa cache by its header (or, before the header had samsa's ID, by
    its schema); False when it is something else; None when there is no file or it is empty (safe to create)."""
    try:
        if path.stat().st_size == 0 and path.is_file():
            return None
        with open(path, "rb") as fh:
            head = fh.read(100)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    if not path.is_file() or not head.startswith(SQLITE_MAGIC) or len(head) < 72:
        return False
    if int.from_bytes(head[68:72], "big") == APPLICATION_ID:
        return True
    try:  # a cache written before samsa set its application ID: read its schema, read-only
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            row = db.execute("SELECT value FROM info WHERE name = 'schema'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return bool(row) and str(row[0]).startswith("samsa-parse-cache")
