"""The corruption matrix: whatever happened to the cache file, the scores equal --no-cache's, exit 0, at most one
warning line, and a file that is not samsa's is never written, moved or replaced.

Damage: truncations, byte flips, payloads and structures swapped between keys (each with a valid checksum of
its own), another program's SQLite database, a text file (the run's own source, as a slip of ``--cache``).
Every case runs twice: the run that meets the damage and the run after it.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from samsa.cli import main

SRC, OUT = "fixtures/paper_sources.txt", "fixtures/paper_outputs.txt"


def score(capsys, cache: Path | None) -> tuple[int, dict, list[str]]:
    args = ["score", "--source", SRC, OUT, SRC, "--name", "split", "identity", "-f", "json", "-q"]
    rc = main([*args, "--cache", str(cache)] if cache else [*args, "--no-cache"])
    out, err = capsys.readouterr()
    return rc, json.loads(out) if rc == 0 else {}, err.splitlines()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    import contextlib
    import io

    from samsa.cli import main as run

    cache = tmp_path_factory.mktemp("cache") / "good.sqlite"
    with contextlib.redirect_stdout(io.StringIO()) as plain:
        assert run(["score", "--source", SRC, OUT, SRC, "--name", "split", "identity", "-f", "json", "-q",
                    "--no-cache"]) == 0  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()):
        assert run(["score", "--source", SRC, OUT, SRC, "--name", "split", "identity", "-f", "json", "-q",
                    "--cache", str(cache)]) == 0  # fmt: skip
    return {"scores": json.loads(plain.getvalue()), "cache": cache}


def _swap(path: Path, columns: str) -> None:
    db = sqlite3.connect(path)
    rows = db.execute(f"SELECT key, {columns} FROM parses ORDER BY key").fetchall()
    assert len(rows) >= 2
    (k1, *a), (k2, *b) = rows[0], rows[1]
    sets = ", ".join(f"{c.strip()} = ?" for c in columns.split(","))
    db.execute(f"UPDATE parses SET {sets} WHERE key = ?", (*b, k1))
    db.execute(f"UPDATE parses SET {sets} WHERE key = ?", (*a, k2))
    db.commit()
    db.close()


def damages() -> dict[str, object]:
    rng = random.Random(7)
    cases: dict[str, object] = {}
    for cut in (0, 16, 50, 100, 1000, 4096, 5000, 8192, 12000, -1):
        cases[f"truncate-{cut}"] = ("truncate", cut)
    for k in range(12):
        cases[f"flip-{k}"] = ("flip", [rng.random() for _ in range(rng.randint(1, 8))])
    cases["swap-graphs"] = ("swap", "payload, digest")
    cases["swap-structures"] = ("swap", "scenes, scenes_digest, scenes_version")
    cases["swap-everything-but-key"] = ("swap", "parser, input, payload, digest, scenes, scenes_digest")
    cases["swap-inputs"] = ("swap", "input")
    cases["foreign-sqlite"] = ("foreign", None)
    cases["text-file"] = ("text", None)
    cases["the-run-s-source"] = ("source", None)
    cases["empty-file"] = ("empty", None)
    cases["wal-garbage"] = ("wal", None)
    return cases


DAMAGES = damages()


def _damage(kind: str, arg: object, good: Path, path: Path) -> bool:
    """Make the damaged file at ``path``; True when it is samsa's own (may be moved aside), False when not."""
    data = good.read_bytes()
    if kind == "truncate":
        cut = int(arg)  # type: ignore[call-overload]
        path.write_bytes(data[: cut if cut >= 0 else len(data) - 1])
    elif kind == "flip":
        b = bytearray(data)
        for x in arg:  # type: ignore[attr-defined]
            b[int(x * len(b))] ^= 0xFF
        path.write_bytes(bytes(b))
    elif kind == "swap":
        shutil.copy(good, path)
        _swap(path, str(arg))
    elif kind == "foreign":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE notes (t TEXT)")
        db.execute("INSERT INTO notes VALUES ('my own data')")
        db.commit()
        db.close()
        return False
    elif kind in ("text", "source"):
        path.write_bytes(Path(SRC).read_bytes() if kind == "source" else b"my notes\n" * 50)
        return False
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "wal":
        shutil.copy(good, path)
        Path(f"{path}-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(range(256)) * 20)
    return True


def test_the_matrix_has_at_least_31_cases():
    assert len(DAMAGES) >= 31


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_damaged_cache_gives_no_cache_scores(name, reference, tmp_path, capsys):
    kind, arg = DAMAGES[name]
    path = tmp_path / "c.sqlite"
    owned = _damage(kind, arg, reference["cache"], path)
    before = path.read_bytes()
    for attempt in ("the run that meets the damage", "the run after it"):
        rc, scores, warnings = score(capsys, path)
        assert rc == 0, (attempt, warnings)
        assert scores == reference["scores"], attempt
        assert len(warnings) <= 1, (attempt, warnings)
        assert all(w.startswith("samsa: warning: ") for w in warnings)
    if not owned:  # not samsa's: never written, moved or replaced
        assert path.read_bytes() == before
        assert not list(tmp_path.glob("c.sqlite.corrupt-*"))
