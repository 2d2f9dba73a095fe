"""The parse cache: hits and misses, changed signatures, corrupt or foreign entries, concurrent and killed writers."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from samsa.engine.cache import ParseCache
from samsa.ucca.graph import add_edge, add_unit, from_tokens, tokens
from samsa.ucca.xml import list_passage_files, load_passage, to_standard_xml


def graph(words: list[str]):
    g = from_tokens(words)
    add_unit(g, "1.2")
    add_edge(g, "1.1", "1.2", "H")
    for k in range(1, len(words) + 1):
        add_edge(g, "1.2", f"0.{k}", "Terminal")
    return g


def test_hit_miss_and_exact_round_trip(tmp_path):
    with ParseCache(tmp_path / "c.sqlite") as cache:
        g = graph(["John", "left", "."])
        cache.put_many("parser-A", [["John", "left", "."]], [g])
        hit, miss = cache.get_many("parser-A", [["John", "left", "."], ["John", "left"]])
        assert miss is None and to_standard_xml(hit) == to_standard_xml(g)
        assert cache.get_many("parser-A", ["John left ."]) == [None]  # raw text and tokens never collide
        assert cache.info()["entries"] == 1


def test_changed_parser_signature_misses(tmp_path):
    with ParseCache(tmp_path / "c.sqlite") as cache:
        cache.put_many("builtin.v5+w|sha256:aaa", [["a"]], [graph(["a"])])
        assert cache.get_many("builtin.v5+w|sha256:bbb", [["a"]]) == [None]
        assert cache.get_many("builtin.v5+w|sha256:aaa", [["a"]])[0] is not None


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE parses SET payload = X'00112233'",  # corrupt bytes (digest no longer matches)
        'UPDATE parses SET input = \'["tokens", ["b"]]\'',  # a foreign entry under this key
        "UPDATE parses SET parser = 'other'",
    ],
)
def test_corrupt_or_foreign_entries_are_dropped_never_returned(tmp_path, damage):
    path = tmp_path / "c.sqlite"
    with ParseCache(path) as cache:
        cache.put_many("p", [["a", "b"]], [graph(["a", "b"])])
    db = sqlite3.connect(path)
    db.execute(damage)
    db.commit()
    db.close()
    with ParseCache(path) as cache:
        assert cache.get_many("p", [["a", "b"]]) == [None]
        assert cache.dropped == 1 and cache.info()["entries"] == 0


def test_payload_with_valid_digest_but_wrong_tokens_is_dropped(tmp_path):
    import hashlib
    import zlib

    from samsa.ucca.graph import to_json

    path = tmp_path / "c.sqlite"
    with ParseCache(path) as cache:
        cache.put_many("p", [["a", "b"]], [graph(["a", "b"])])
    payload = zlib.compress(to_json(graph(["x", "y"])).encode())
    db = sqlite3.connect(path)
    db.execute("UPDATE parses SET payload = ?, digest = ?", (payload, hashlib.sha256(payload).digest()))
    db.commit()
    db.close()
    with ParseCache(path) as cache:
        assert cache.get_many("p", [["a", "b"]]) == [None]


def test_a_file_that_is_not_a_cache_is_left_alone(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    data = b"this is not an sqlite database" * 100
    path.write_bytes(data)
    with ParseCache(path) as cache:
        assert not cache.usable
        cache.put_many("p", [["a"]], [graph(["a"])])  # nothing is written
        assert cache.get_many("p", [["a"]]) == [None]
    (warning,) = capsys.readouterr().err.splitlines()
    assert "is not a samsa parse cache; it is left as it is" in warning
    assert path.read_bytes() == data and sorted(tmp_path.iterdir()) == [path]


def _writer(path: str, start: int, n: int) -> None:
    with ParseCache(path) as cache:
        for k in range(start, start + n, 10):
            sents = [[f"w{j}", "x"] for j in range(k, k + 10)]
            cache.put_many("p", sents, [graph(s) for s in sents])


def test_concurrent_writers(tmp_path):
    path = str(tmp_path / "c.sqlite")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, start, 200)) for start in (0, 100, 200, 300)]  # overlapping
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with ParseCache(path) as cache:
        got = cache.get_many("p", [[f"w{j}", "x"] for j in range(500)])
        assert all(g is not None and tokens(g) == [f"w{j}", "x"] for j, g in enumerate(got))
        assert cache.info()["entries"] == 500 and cache.dropped == 0


def _first_open(path: str) -> None:
    with ParseCache(path) as cache:
        sys.exit(0 if cache.usable else 3)


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork to start openers at once")
def test_processes_creating_the_cache_at_once_all_get_it(tmp_path, capsys):
    # a new cache file must never be seen half-initialised: before it was created whole, a process opening it
    # while another was writing its header took it for another program's file (about 1 trial in 3 here)
    ctx = mp.get_context("fork")
    for trial in range(20):
        path = str(tmp_path / f"c{trial}.sqlite")
        procs = [ctx.Process(target=_first_open, args=(path,)) for _ in range(6)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0] * 6, capsys.readouterr().err
    assert sorted(f.name for f in tmp_path.iterdir() if ".new-" in f.name) == []


KILLED_WRITER = """
import sys
from samsa.engine.cache import ParseCache
from samsa.ucca.graph import from_tokens
cache = ParseCache(sys.argv[1])
k = 0
while True:
    sents = [[f"k{k}-{j}"] * 30 for j in range(200)]
    cache.put_many("p", sents, [from_tokens(s) for s in sents])
    k += 1
    print(k, flush=True)
"""


def test_killed_writer_leaves_a_consistent_cache(tmp_path):
    path = tmp_path / "c.sqlite"
    with ParseCache(path) as cache:
        cache.put_many("p", [["before"]], [graph(["before"])])
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # at least one transaction committed; kill during a later one
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    with ParseCache(path) as cache:
        assert cache.get_many("p", [["before"]])[0] is not None
        n = cache.info()["entries"] - 1
        assert n > 0 and n % 200 == 0  # whole transactions only
        assert cache.get_many("p", [["k0-0"] * 30])[0] is not None and cache.dropped == 0


def test_graph_json_round_trip_is_exact_on_gold_passages(data_dir):
    from samsa.ucca.graph import from_json, to_json
    from samsa.ucca.xml import list_passage_files, load_passage

    for f in list_passage_files(data_dir / "ucca" / "ewt" / "test")[:100]:
        g = load_passage(f)
        h = from_json(to_json(g))
        assert list(h.nodes(data=True)) == list(g.nodes(data=True))
        assert list(h.edges(data=True)) == list(g.edges(data=True))
        assert h.graph == g.graph


def test_structure_is_returned_instead_of_the_graph_only_for_its_version(tmp_path):
    path = tmp_path / "c.sqlite"
    with ParseCache(path) as cache:
        cache.put_encoded("p", [["a", "b"], ["c"]], [b"graph-ab", b"graph-c"], [b"scenes-ab", None], "V1")
        assert cache.get_entries("p", [["a", "b"], ["c"], ["d"]], "V1") == [(None, b"scenes-ab"), (b"graph-c", None),
                                                                           None]  # fmt: skip
        assert cache.get_entries("p", [["a", "b"]], "V2") == [(b"graph-ab", None)]  # other scene rules: the graph
        assert cache.get_entries("p", [["a", "b"]]) == [(b"graph-ab", None)]
        cache.put_structures("p", [["c"]], [b"scenes-c"], "V2")
        assert cache.get_entries("p", [["c"]], "V2") == [(None, b"scenes-c")]
    db = sqlite3.connect(path)
    db.execute("UPDATE parses SET scenes = X'00'")  # corrupt structures (digest no longer matches)
    db.commit()
    db.close()
    with ParseCache(path) as cache:
        assert cache.get_entries("p", [["a", "b"], ["c"]], "V1") == [None, (b"graph-c", None)]
        assert cache.dropped == 1 and cache.info()["entries"] == 1


def test_a_cache_of_another_schema_is_moved_aside(tmp_path, capsys):
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE info (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO info VALUES ('schema', 'samsa-parse-cache-1')")
    db.commit()
    db.close()
    with ParseCache(path) as cache:
        assert cache.info()["entries"] == 0
    assert "parse cache of another samsa version" in capsys.readouterr().err


def test_the_structure_version_names_the_scene_rules_that_derived_the_cached_structures(data_dir):
    """Cached structures are trusted while their version is ``STRUCTURE_VERSION``. When this digest of the
    structures of the fixtures and 400 dev passages (UCCA v1 and v2) changes, the Scene rules changed: raise
    ``STRUCTURE_VERSION`` (so that users' caches derive their structures again) and record both here."""
    import hashlib
    from pathlib import Path

    from samsa.engine.entries import STRUCTURE_VERSION, encode_structure
    from samsa.scoring.paper import paper_structure

    fixtures = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "ucca").rglob("*.xml"))
    dev = [list_passage_files(data_dir / "ucca" / name / "dev")[:200] for name in ("ewt", "wiki")]
    digest = hashlib.sha256()
    for f in [*fixtures, *dev[0], *dev[1]]:
        g = load_passage(f)
        digest.update(json.dumps(json.loads(encode_structure(paper_structure(g), g))["scenes"]).encode())
    assert (STRUCTURE_VERSION, digest.hexdigest()[:16]) == ("paper:2", "6e587e69967b604c")
