"""--jobs, the parse cache through the CLI, Dask, and import cost: the same numbers however the work runs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import ClassVar

import pytest

from samsa.cli import main
from samsa.config import SamsaConfig
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage


@pytest.fixture(scope="module")
def corpus(data_dir, tmp_path_factory):
    """300 20K test sentences (two chunks of the pipeline), an identity output and a one-sentence-per-scene one."""
    tmp = tmp_path_factory.mktemp("corpus")
    files = list_passage_files(data_dir / "ucca" / "20k" / "test")[:300]
    sents = [" ".join(tokens(load_passage(f))) for f in files]
    (tmp / "src.txt").write_text("\n".join(sents) + "\n")
    (tmp / "id.txt").write_text("\n".join(sents) + "\n")
    split = [s.replace(" , ", " . ", 1) for s in sents]
    (tmp / "split.txt").write_text("\n".join(split) + "\n")
    return tmp


def _score(corpus, capsys, *extra: str) -> tuple[str, str]:
    out = corpus / f"rows{len(extra)}-{abs(hash(extra))}.jsonl"
    args = ["score", "--source", str(corpus / "src.txt"), "--system", str(corpus / "split.txt"), "--tokenizer",
            "none", "--per-sentence", str(out), "--json", "--quiet", *extra]  # fmt: skip
    assert main(args) == 0
    return capsys.readouterr().out, out.read_text()


def test_jobs_give_byte_identical_outputs(corpus, capsys):
    one = _score(corpus, capsys, "--no-cache", "--jobs", "1")
    two = _score(corpus, capsys, "--no-cache", "--jobs", "2")
    assert one == two
    assert json.loads(one[0])["n_lines"] == 300 and len(one[1].splitlines()) == 300


def test_warm_cache_gives_the_same_result_and_names_the_parser(corpus, capsys, tmp_path):
    cache = str(tmp_path / "c.sqlite")
    cold = _score(corpus, capsys, "--cache", cache)
    warm = _score(corpus, capsys, "--cache", cache, "--jobs", "2")
    assert cold == warm
    assert "parser:builtin.v5+fast+ucca-span-v2-scenes-w4|" in json.loads(warm[0])["signature"]
    assert main(["cache", "info", "--cache", cache, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["entries"] == 300
    key = next(iter(info["parsers"]))
    assert key.startswith("builtin.v5+fast+ucca-span-v2-scenes-w4|sha256:")
    assert main(["cache", "clear", "--cache", cache]) == 0
    assert "removed 300" in capsys.readouterr().out


def test_warm_run_derives_missing_structures_from_cached_graphs_without_parsing(corpus, capsys, tmp_path):
    """A cache filled by ``samsa parse`` has graphs only: the first scoring run derives and stores their
    structures (no re-parse: the graphs stay as they were); later runs read only the structures."""
    import sqlite3

    cache = str(tmp_path / "c.sqlite")
    reference = _score(corpus, capsys, "--no-cache")
    out = tmp_path / "parsed"
    assert main(["parse", "--input", str(corpus / "src.txt"), "--output-dir", str(out), "--cache",
                 cache, "--quiet"]) == 0  # fmt: skip
    db = sqlite3.connect(cache)
    before = db.execute("SELECT key, payload, scenes FROM parses ORDER BY key").fetchall()
    assert len(before) == 300 and all(row[2] is None for row in before)
    assert _score(corpus, capsys, "--cache", cache) == reference
    after = db.execute("SELECT key, payload, scenes FROM parses ORDER BY key").fetchall()
    assert [r[0] for r in after] == [r[0] for r in before]
    assert [r[1] for r in after] == [r[1] for r in before]  # no graph parsed again
    assert all(r[2] is not None for r in after)
    db.execute("UPDATE parses SET payload = X'00'")  # graphs unreadable now: a warm run must not need them
    db.commit()
    db.close()
    assert _score(corpus, capsys, "--cache", cache, "--jobs", "2") == reference


def test_parse_and_compare_annotations_with_jobs(data_dir, tmp_path, capsys):
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    for f in list_passage_files(data_dir / "ucca" / "20k" / "test")[:20]:
        (gold_dir / f.name).write_bytes(f.read_bytes())
    lines = [" ".join(tokens(load_passage(f))) for f in list_passage_files(gold_dir)]
    (tmp_path / "s.txt").write_text("\n".join(lines) + "\n")
    outs = {}
    for jobs in ("1", "2"):
        d = tmp_path / f"parsed{jobs}"
        assert main(["parse", "--tokenizer", "none", "--input", str(tmp_path / "s.txt"), "--output-dir", str(d),
                     "--quiet", "--no-cache", "--jobs", jobs]) == 0  # fmt: skip
        outs[jobs] = [f.read_bytes() for f in sorted(d.glob("*.xml"))]
        assert main(["compare-annotations", "--ucca", str(gold_dir), "--system", str(tmp_path / "s.txt"), "--json",
                     "--quiet", "--no-cache", "--jobs", jobs]) == 0  # fmt: skip
        outs["compare" + jobs] = capsys.readouterr().out
    assert outs["1"] == outs["2"] and len(outs["1"]) == 20
    assert outs["compare1"] == outs["compare2"]
    assert json.loads(outs["compare1"])["sentences"] == 20


def test_dask_local_cluster_equals_single_process(data_dir):
    pytest.importorskip("distributed")
    from samsa.engine.corpus import score_means
    from samsa.engine.seams import Execution
    from samsa.engine.worker import Job
    from samsa.parsers.builtin import BuiltinParser

    files = list_passage_files(data_dir / "ucca" / "20k" / "test")[:60]
    sents = [" ".join(tokens(load_passage(f))) for f in files]
    systems = [sents, [s.replace(" , ", " . ") for s in sents]]
    gold = score_means(files, systems, Job(), kind="xml")
    assert score_means(files, systems, Job(), Execution(jobs=2, dask="local"), kind="xml") == gold
    job = Job(SamsaConfig(parser=BuiltinParser(), tokenizer="none"))
    parsed = score_means(sents, systems, job, kind="parse")
    assert score_means(sents, systems, job, Execution(jobs=2, dask="local"), kind="parse") == parsed
    assert parsed != gold  # the parse is not the gold annotation: the check compares real, different numbers


def _heavy_modules() -> list[str]:
    return sorted(m for m in ("spacy", "thinc.compat", "torch") if m in sys.modules)


def test_a_local_dask_cluster_parses_without_pytorch_where_it_is_installed():
    """Workers of a LocalCluster samsa started run only samsa's tasks, so thinc does not import PyTorch there (as
    in the executable); the score is the in-process one."""
    pytest.importorskip("distributed")
    pytest.importorskip("torch")
    from samsa.engine.distributed import DaskExecutor
    from samsa.engine.worker import Item, Job, Worker
    from samsa.parsers.builtin import BuiltinParser

    job = Job(SamsaConfig(parser=BuiltinParser(), tokenizer="none"))
    chunk = [Item("parse", "John gave Mary a call .", ("John called Mary .",))]
    executor = DaskExecutor(job, "local", workers=1)
    try:
        (results,) = list(executor.map([chunk], "none"))
        loaded = executor.client.run(_heavy_modules)
    finally:
        executor.close()
    assert list(loaded.values()) == [["spacy", "thinc.compat"]]  # spaCy parsed there, without PyTorch
    assert results[0].results == Worker(job).run(chunk)[0].results


def _faults_of_a_block_freed_and_taken_again() -> int:
    """Page faults of writing an 8 MB block (a parser temporary's size) of the same size as one just freed."""
    import resource

    import numpy as np

    np.ones(2 << 20, dtype=np.float32)  # written, then freed
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(2 << 20, dtype=np.float32)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def _environ(name: str) -> str | None:
    import os

    return os.environ.get(name)


def test_a_local_dask_clusters_workers_reuse_large_freed_blocks_as_the_executable_does():
    """Dask spawns its workers with a 64 KiB glibc trim threshold, which maps every block above 128 KiB afresh
    (some 500 page faults for 8 MB here); the workers of samsa's LocalCluster get the executable's setting instead,
    and the environment of the process that started them stays as it was."""
    pytest.importorskip("distributed")
    from samsa.allocator import MMAP_THRESHOLD, allocator_environ
    from samsa.engine.distributed import DaskExecutor
    from samsa.engine.worker import Job

    if not allocator_environ():
        pytest.skip("not glibc, or glibc's allocator knobs are set in the environment")
    names = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "OMP_NUM_THREADS")
    before = {name: _environ(name) for name in names}
    executor = DaskExecutor(Job(), "local", workers=1)
    try:
        after = {name: _environ(name) for name in names}
        faults = executor.client.run(_faults_of_a_block_freed_and_taken_again)
        threshold = executor.client.run(_environ, "MALLOC_MMAP_THRESHOLD_")
    finally:
        executor.close()
    assert after == before  # Dask sets its workers' environment in the starting process; samsa puts it back
    assert list(threshold.values()) == [str(MMAP_THRESHOLD)]
    assert all(f < 16 for f in faults.values()), faults


IMPORTS = """
import sys
from samsa.cli import main
main({args!r})
heavy = ("spacy", "torch", "thinc", "samsa.parsers.builtin.runtime", "samsa.parsers.builtin", "rapidfuzz")
print(sorted(m for m in heavy if m in sys.modules))
"""


@pytest.mark.parametrize("args", [["score", "--ucca", "fixtures/ucca/paper", "--system", "fixtures/paper_outputs.txt",
                                   "--quiet"], ["cache", "info"]])  # fmt: skip
def test_gold_scoring_imports_neither_spacy_nor_the_parser_runtime(args):
    # nor rapidfuzz, which only the LD metrics of `evaluate` use
    code = IMPORTS.format(args=args)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=_root())
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "[]"


def test_help_imports_neither_spacy_nor_the_parser_runtime():
    code = "import sys\nfrom samsa.cli import build_parser\nbuild_parser().format_help()\n" \
           "print(sorted(m for m in ('spacy', 'torch', 'samsa.parsers.builtin') if m in sys.modules))"  # fmt: skip
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=_root())
    assert res.stdout.strip() == "[]", res.stderr


def _root():
    from pathlib import Path

    return Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("column", ["payload", "scenes"])
def test_cached_entry_that_does_not_decode_is_parsed_again_and_replaced(corpus, capsys, tmp_path, column):
    """Workers decode cached graphs and structures; one that passes the digest but does not decode is re-parsed,
    never used. A warm scoring run reads the structure; without one it reads the graph."""
    import hashlib
    import sqlite3
    import zlib

    cache = str(tmp_path / "c.sqlite")
    cold = _score(corpus, capsys, "--cache", cache)
    if column == "payload":
        bad = zlib.compress(b'{"v": 2, "graph": {}, "nodes": "not a list"}')
        damage = "payload = ?1, digest = ?2, scenes = NULL, scenes_digest = NULL, scenes_version = NULL"
    else:
        bad = b'{"v": "another version", "scenes": []}'
        damage = "scenes = ?1, scenes_digest = ?2"
    db = sqlite3.connect(cache)
    db.execute(f"UPDATE parses SET {damage} WHERE key IN (SELECT key FROM parses LIMIT 3)",
               (bad, hashlib.sha256(bad).digest()))  # fmt: skip
    db.commit()
    db.close()
    for jobs in ("1", "2"):
        assert _score(corpus, capsys, "--cache", cache, "--jobs", jobs) == cold
        db = sqlite3.connect(cache)
        (n_bad,) = db.execute(f"SELECT COUNT(*) FROM parses WHERE {column} = ?", (bad,)).fetchone()
        (n_without,) = db.execute("SELECT COUNT(*) FROM parses WHERE scenes IS NULL").fetchone()
        db.close()
        assert n_bad == 0 and n_without == 0  # replaced by the fresh parses, each with its structure


def test_evaluate_and_benchmark_give_the_same_numbers_for_every_jobs(data_dir, tmp_path, capsys, corpus):
    src = corpus / "src.txt"
    outs = {}
    for jobs in ("1", "2"):
        assert main(["evaluate", "--source", str(src), "--system", str(corpus / "split.txt"), "--metrics",
                     "samsa,fkgl", "--json", "--quiet", "--no-cache", "--jobs", jobs]) == 0  # fmt: skip
        outs["evaluate", jobs] = json.loads(capsys.readouterr().out)
        a = data_dir / "acl2018" / "Evaluation_system_outputs"
        assert main(["benchmark", "hsplit", "--data", str(data_dir), "--system", str(a / "DSS"), "--name", "DSS",
                     "--first", "70", "--quiet", "--no-cache", "--jobs", jobs, "-f", "json", "-o",
                     str(tmp_path / f"b{jobs}.json")]) == 0  # fmt: skip
        capsys.readouterr()
        outs["benchmark", jobs] = json.loads((tmp_path / f"b{jobs}.json").read_text())
    assert outs["evaluate", "1"] == outs["evaluate", "2"]
    assert 0 < outs["evaluate", "1"]["systems"]["split.txt"]["samsa"] < 100
    assert "builtin.v5+fast" in outs["evaluate", "1"]["signatures"]["samsa"]
    assert outs["benchmark", "1"] == outs["benchmark", "2"]
    assert set(outs["benchmark", "1"]["systems"]["DSS"]["samsa"]) == {"samsa", "samsa_abl"}


NETWORKX = """
import sys
from samsa.startup import NETWORKX_DEFERRED, defer_networkx_library
assert defer_networkx_library()
import networkx as nx
from samsa.ucca.graph import tokens
from samsa.ucca.xml import load_passage
g = load_passage("fixtures/ucca/paper/1_john_home_call.xml")
loaded = sorted(s for s in NETWORKX_DEFERRED if "networkx." + s in sys.modules)
{use}
print(tokens(g)[:2], loaded, len(dir(nx)) > 900, sorted(s for s in NETWORKX_DEFERRED if "networkx." + s in sys.modules))
"""


@pytest.mark.parametrize(
    "use",
    [
        "assert nx.descendants(g, '1.1') >= {'0.1', '0.2'} and nx.is_directed_acyclic_graph(g)",
        "import networkx.algorithms.isomorphism as iso; assert iso.DiGraphMatcher(g, g).is_isomorphic()",
        "from networkx import path_graph; assert len(path_graph(3)) == 3",
        "from networkx.readwrite import json_graph; assert json_graph.node_link_data(g, edges='edges')['nodes']",
    ],
)
def test_the_samsa_executable_imports_networkx_algorithms_only_when_used(use):
    """The ``samsa`` executable has ``import networkx`` leave out its algorithms, generators, readers and drawing
    (two thirds of its import time; samsa's graph model is ``networkx.classes``): passages still load, and any
    use of what was left out gets the real thing, with networkx's whole namespace."""
    code = NETWORKX.format(use=use)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=_root())
    assert res.returncode == 0, res.stderr
    deferred = "['algorithms', 'drawing', 'generators', 'linalg', 'readwrite']"
    assert res.stdout.strip() == f"['John', 'got'] [] True {deferred}"


EXECUTABLE_NETWORKX = """
import atexit, sys
from samsa.startup import NETWORKX_DEFERRED
deferred = lambda: sorted(s for s in NETWORKX_DEFERRED if "networkx." + s in sys.modules)
atexit.register(lambda: print("networkx" in sys.modules, deferred()))
from samsa.cli import console
console()
"""


def test_the_samsa_executable_scores_without_networkx_algorithms():
    """``import samsa.cli`` imports no networkx (the executable defers part of it first), and scoring a gold
    passage never uses what was deferred."""
    args = ["score", "--ucca", "fixtures/ucca/paper", "--system", "fixtures/paper_outputs.txt", "--quiet", "--no-cache"]
    res = subprocess.run([sys.executable, "-c", EXECUTABLE_NETWORKX, *args], capture_output=True, text=True,
                         cwd=_root())  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().splitlines()[-1] == "True []"
    assert "75.00" in res.stdout  # the paper example's score (README)


HIDDEN = """
import sys
from samsa.startup import hide_torch_from_thinc
registered = hide_torch_from_thinc()
import spacy, thinc.compat
nlp = spacy.load("{model}", exclude=["senter", "ner", "lemmatizer"])
tags = [t.tag_ for t in nlp("John gave Mary a call .")]
hidden = "torch" not in sys.modules and not thinc.compat.has_torch
import torch
finder_left = any(type(f).__name__ == "_TorchHiddenFromThinc" for f in sys.meta_path)
print(tags, registered, hidden, callable(torch.tensor), finder_left, hide_torch_from_thinc())
"""


def test_the_samsa_executable_lets_thinc_find_no_pytorch_and_pytorch_still_imports_afterwards():
    """Where PyTorch is installed, thinc imports it with spaCy (2 s of every start-up); the executable hides it
    from thinc's import only: spaCy tags the same, and ``import torch`` works afterwards."""
    pytest.importorskip("torch")
    from samsa.aligners.annotate import DEFAULT_MODELS, spacy_model_id

    model = next(m for m in DEFAULT_MODELS if spacy_model_id(m) != m)
    res = subprocess.run([sys.executable, "-c", HIDDEN.format(model=model)], capture_output=True, text=True,
                         cwd=_root())  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "['NNP', 'VBD', 'NNP', 'DT', 'NN', '.'] True True True False False"


TUNED = """
import resource, sys
import numpy as np
from samsa.allocator import tune_allocator
tuned = tune_allocator()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
np.ones(2 << 20, dtype=np.float32)  # 8 MB, written, then freed
before = faults()
again = np.ones(2 << 20, dtype=np.float32)
print(tuned, faults() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_the_samsa_executable_has_glibc_reuse_large_freed_blocks_unless_the_environment_tunes_malloc():
    """A freed 8 MB block (a parser temporary's size) is reused without a page fault in the tuned process;
    glibc's own settings in the environment switch the tuning off."""
    import os

    try:
        glibc = bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):
        glibc = False
    if not glibc:
        pytest.skip("not glibc")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    for extra, expected in (({}, True), ({"MALLOC_ARENA_MAX": "4"}, False), ({"GLIBC_TUNABLES": ""}, False)):
        res = subprocess.run([sys.executable, "-c", TUNED], capture_output=True, text=True, cwd=_root(),
                             env={**clean, **extra})  # fmt: skip
        assert res.returncode == 0, res.stderr
        tuned, faults = res.stdout.split()
        assert tuned == str(expected), extra
        if expected:
            # 8 MB of fresh 4 KB pages: ~2,000 faults (~500 here untuned; only with huge pages always on would a
            # fresh block also fault a handful of times, which this bound cannot tell from reuse)
            assert int(faults) < 16


def test_the_allocator_environment_for_spawned_workers_is_the_executables_setting_unless_glibc_is_tuned_already(
    monkeypatch,
):
    """What a LocalCluster's workers get (glibc reads it at start-up): the values ``tune_allocator`` sets, and
    nothing where the environment already sets glibc's knobs (whoever set them decides) or off glibc."""
    import os

    from samsa.allocator import MMAP_THRESHOLD, TRIM_THRESHOLD, allocator_environ

    for name in [n for n in os.environ if n.startswith("MALLOC_") or n == "GLIBC_TUNABLES"]:
        monkeypatch.delenv(name)
    try:
        glibc = sys.platform.startswith("linux") and bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError):
        glibc = False
    expected = {"MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD), "MALLOC_TRIM_THRESHOLD_": str(TRIM_THRESHOLD)}
    assert allocator_environ() == (expected if glibc else {})
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert allocator_environ() == {}
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
    assert allocator_environ() == {}


class _CountingParser:
    """Parses a token list into one unit over all tokens; counts ``load`` calls (in the process that makes them)."""

    loads = 0

    def load(self) -> None:
        type(self).loads += 1

    def parse(self, sentences):
        from samsa.ucca.graph import add_edge, add_unit, from_tokens

        out = []
        for s in sentences:
            g = from_tokens(list(s))
            add_unit(g, "1.2")
            add_edge(g, "1.1", "1.2", "H")
            for k in range(1, len(s) + 1):
                add_edge(g, "1.2", f"0.{k}", "Terminal")
            out.append(g)
        return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_pool_loads_the_parser_once_in_the_parent_before_forking_and_only_to_parse():
    from samsa.engine.executors import PoolExecutor
    from samsa.engine.worker import Item, Job

    job = Job.parse_only(_CountingParser())
    pool = PoolExecutor(job, 2)
    try:
        results = list(pool.map([[Item("parse", ["a", "b"])], [Item("parse", ["c"])]], "all"))
    finally:
        pool.close()
    assert _CountingParser.loads == 1 and [tokens(r[0].graph) for r in results] == [["a", "b"], ["c"]]
    _CountingParser.loads = 0
    pool = PoolExecutor(job, 2)
    try:
        gold = _CountingParser().parse([["x"]])[0]
        list(pool.map([[Item("graph", gold)]], "all"))  # nothing to parse: nothing loaded
    finally:
        pool.close()
    assert _CountingParser.loads == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_pool_workers_exit_once_the_last_chunk_is_done_and_a_later_map_gets_a_fresh_pool():
    import multiprocessing as mp
    import time

    from samsa.engine.executors import PoolExecutor
    from samsa.engine.worker import Item, Job

    job = Job.parse_only(_CountingParser())
    tasks = [[Item("parse", ["a", "b"])], [Item("parse", ["c"])], [Item("parse", ["d"])]]
    others = set(mp.active_children())  # children of other tests, if any
    pool = PoolExecutor(job, 2)
    try:
        first = [tokens(r[0].graph) for r in pool.map(tasks, "all")]
        deadline = time.monotonic() + 30
        while set(mp.active_children()) - others and time.monotonic() < deadline:  # exiting without close()
            time.sleep(0.05)
        assert set(mp.active_children()) - others == set()
        second = [tokens(r[0].graph) for r in pool.map(tasks, "all")]
    finally:
        pool.close()
        _CountingParser.loads = 0
    assert first == second == [["a", "b"], ["c"], ["d"]]


class _FreezeReportingParser(_CountingParser):
    """Also notes in each graph whether the collector's heap was frozen in the process that parsed it."""

    def parse(self, sentences):
        import gc

        out = super().parse(sentences)
        for g in out:
            g.graph["frozen"] = gc.get_freeze_count() > 0
        return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_loaded_models_are_frozen_out_of_the_collector_while_parsing_and_the_caller_gets_its_heap_back():
    import gc

    from samsa.engine.executors import PoolExecutor, SerialExecutor
    from samsa.engine.worker import Item, Job

    gc.unfreeze()
    job = Job.parse_only(_FreezeReportingParser())
    tasks = [[Item("parse", ["a"])], [Item("parse", ["b"])]]
    pool = PoolExecutor(job, 2)
    try:
        forked = [r[0].graph.graph["frozen"] for r in pool.map(tasks, "all")]
        parent = gc.get_freeze_count()  # thawed right after the workers were forked
    finally:
        pool.close()
    serial = SerialExecutor(job)
    try:
        here = [(r[0].graph.graph["frozen"], gc.get_freeze_count() > 0) for r in serial.map(tasks, "all")]
    finally:
        serial.close()
    assert forked == [True, True] and parent == 0
    assert here == [(True, True), (True, True)] and gc.get_freeze_count() == 0
    gold = _CountingParser().parse([["x"]])[0]
    serial = SerialExecutor(job)
    try:
        assert [r[0].graph is gold for r in serial.map([[Item("graph", gold)]], "all")] == [True]
        assert gc.get_freeze_count() == 0  # nothing to parse, nothing loaded: nothing frozen
    finally:
        serial.close()


def test_chunk_order_puts_sources_to_parse_first_longest_first_and_keeps_the_rest_in_input_order():
    from samsa.engine.pipeline import chunk_order
    from samsa.engine.worker import Item

    window = [Item("parse", "a b"), Item("cached", ["x"] * 9), Item("parse", ["a"] * 5), Item("xml", "f.xml"),
              Item("parse", "a b c d e"), Item("parse", "  a   b  c ")]  # fmt: skip
    assert chunk_order(window) == [2, 4, 5, 0, 1, 3]
    gold = [Item("xml", f"{k}.xml") for k in range(5)]
    assert chunk_order(gold) == [0, 1, 2, 3, 4]


class _RecordingParser(_CountingParser):
    """Records the token counts of each call's sentences."""

    calls: ClassVar[list[list[int]]] = []

    def parse(self, sentences):
        type(self).calls.append([len(s) for s in sentences])
        return super().parse(sentences)


def test_run_items_parses_each_window_longest_first_in_chunks_and_yields_in_input_order():
    from samsa.engine.executors import SerialExecutor
    from samsa.engine.pipeline import CHUNK, WINDOW, run_items
    from samsa.engine.worker import Item, Job

    lengths = [(k * 37) % 50 + 1 for k in range(CHUNK * WINDOW + 70)]  # a full window, then a second one
    items = [Item("parse", ["w"] * n, origin=str(k)) for k, n in enumerate(lengths)]
    executor = SerialExecutor(Job.parse_only(_RecordingParser()))
    _RecordingParser.calls = []
    try:
        got = [(it.origin, len(tokens(res.graph))) for it, res in run_items(iter(items), executor,
                                                                            return_graphs=True)]  # fmt: skip
    finally:
        executor.close()
    assert got == [(str(k), n) for k, n in enumerate(lengths)]
    first = sorted(lengths[: CHUNK * WINDOW], reverse=True)
    second = sorted(lengths[CHUNK * WINDOW :], reverse=True)
    expected = [first[c : c + CHUNK] for c in range(0, len(first), CHUNK)]
    expected += [second[c : c + CHUNK] for c in range(0, len(second), CHUNK)]
    assert _RecordingParser.calls == expected


def test_the_console_freezes_the_heap_before_the_interpreter_shuts_down_and_keeps_the_exit_code():
    # main's return value is the exit code; the heap is frozen by then, also when main raises. The counts are
    # taken against the start's: CPython 3.12 starts with objects in the permanent generation already
    code = """
import gc, sys
import samsa.cli as cli
start = gc.get_freeze_count()
seen = []
cli.main = lambda: seen.append(gc.get_freeze_count()) or 3
try:
    cli.console()
except SystemExit as e:
    print(seen[0] == start, gc.get_freeze_count() > start, e.code)
gc.unfreeze()
start = gc.get_freeze_count()
def boom():
    raise RuntimeError("x")
cli.main = boom
try:
    cli.console()
except RuntimeError:
    print(gc.get_freeze_count() > start)
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=_root())
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "True", "3", "True"]


def test_graphs_travel_back_encoded_for_the_cache_only_when_something_caches_them():
    from samsa.engine.pipeline import run_items
    from samsa.engine.worker import Item, Job, Worker

    worker = Worker(Job.parse_only(_CountingParser()))
    chunk = [Item("parse", ["a", "b"])]
    (graphs,) = worker.run(chunk, "graphs")
    (both,) = worker.run(chunk, "all")
    (encoded,) = worker.run(chunk, "parsed")
    assert graphs.graph is not None and graphs.payload is None
    assert both.graph is not None and isinstance(both.payload, bytes)
    assert encoded.graph is None and encoded.payload == both.payload

    class Recording:
        job = worker.job
        wants: ClassVar[list[str]] = []

        def map(self, tasks, want):
            self.wants.append(want)
            return (worker.run(t, want) for t in tasks)

    got = [res for _, res in run_items(iter(chunk), Recording(), return_graphs=True)]
    assert Recording.wants == ["graphs"] and got[0].payload is None and tokens(got[0].graph) == ["a", "b"]


class _GcReportingParser(_CountingParser):
    """Notes whether the garbage collector ran while it loaded."""

    collector_on_during_load: ClassVar[list[bool]] = []

    def load(self):
        import gc

        type(self).collector_on_during_load.append(gc.isenabled())
        super().load()


def test_the_collector_pauses_while_the_executor_loads_the_parser_and_runs_again_after():
    import gc

    from samsa.engine.executors import SerialExecutor
    from samsa.engine.worker import Item, Job

    assert gc.isenabled()
    executor = SerialExecutor(Job.parse_only(_GcReportingParser()))
    try:
        list(executor.map([[Item("parse", ["a"])]], "graphs"))
    finally:
        executor.close()
    assert _GcReportingParser.collector_on_during_load == [False] and gc.isenabled()


def test_startup_steps_can_be_left_out(fixture_path):
    """``SAMSA_STARTUP_OFF`` leaves start-up steps out; the scores are the same either way."""
    import os

    from samsa.startup import STEPS

    assert list(STEPS) == ["networkx", "torch", "allocator"]
    argv = [sys.executable, "-m", "samsa", "score", "--ucca", str(fixture_path("ucca/paper")),
            str(fixture_path("paper_outputs.txt")), "-f", "json"]  # fmt: skip
    outs = []
    for off in ("", "networkx,allocator", "all"):
        done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "SAMSA_STARTUP_OFF": off},
                              timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        outs.append(done.stdout)
    assert outs[0] == outs[1] == outs[2] and '"samsa": 75.0' in outs[0]


class _PassageParser(_CountingParser):
    """Also gives its parses as CompactPassages (as the built-in parser does); notes which method ran."""

    calls: ClassVar[list[str]] = []

    def parse(self, sentences):
        type(self).calls.append("parse")
        return super().parse(sentences)

    def parse_passages(self, sentences):
        from samsa.parsers.builtin.tree import Span, spans_to_passage

        type(self).calls.append("parse_passages")
        return [spans_to_passage(list(s), [Span(0, len(s), "H"), Span(0, 1, "A"), Span(1, 2, "P")]) for s in sentences]


def test_a_paper_mode_worker_scores_the_parsers_compact_passages_and_builds_graphs_only_when_asked():
    import networkx as nx

    from samsa.engine.worker import Item, Job, Worker

    parser = _PassageParser()
    items = [Item("parse", ["John", "left"], ("John left",)), Item("parse", ["Mary", "came"], ("Mary . came",))]
    worker = Worker(Job(SamsaConfig(parser=parser, tokenizer="wordpunct")))
    scored = worker.run(items, "none")
    assert _PassageParser.calls == ["parse_passages"] and [r.graph for r in scored] == [None, None]
    assert [(r.results[0].samsa, r.results[0].n_scenes) for r in scored] == [(100.0, 1), (0.0, 1)]  # 2 sentences > 1
    graphs = worker.run(items, "graphs")
    assert all(isinstance(r.graph, nx.DiGraph) for r in graphs) and tokens(graphs[0].graph) == ["John", "left"]
    assert [r.results[0].samsa for r in graphs] == [100.0, 0.0]
    _PassageParser.calls.clear()
    easse = Worker(Job(SamsaConfig(parser=parser, tokenizer="wordpunct", compat="easse"))).run(items, "none")
    assert _PassageParser.calls == ["parse"] and len(easse[0].results) == 1
    _PassageParser.calls.clear()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux only")
def test_a_pool_scores_chunks_of_cache_hits_here_and_starts_its_workers_for_the_first_chunk_to_parse():
    import multiprocessing as mp

    from samsa.engine.entries import encode_structure
    from samsa.engine.executors import PoolExecutor
    from samsa.engine.worker import Item, Job
    from samsa.scoring.paper import paper_structure

    parser = _PassageParser()
    passage = parser.parse_passages([["John", "left"]])[0]
    scenes = encode_structure(paper_structure(passage), passage).encode()
    hit = Item("cached", ["John", "left"], ("John left",), encoded_structure=scenes)
    others = set(mp.active_children())
    pool = PoolExecutor(Job(SamsaConfig(parser=parser, tokenizer="wordpunct")), 2)
    try:
        warm = list(pool.map([[hit], [hit]], "none"))
        assert set(mp.active_children()) - others == set() and pool.ran_here == 2  # no worker started
        mixed = list(pool.map([[hit], [Item("parse", ["John", "left"], ("John left",))], [hit]], "none"))
        assert pool.ran_here == 3  # the chunk after the first to parse went to the workers
    finally:
        pool.close()
        _PassageParser.calls.clear()
    assert [r[0].results[0].samsa for r in warm + mixed] == [100.0] * 5
