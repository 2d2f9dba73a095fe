"""Outputs never destroy inputs or old results: refused targets, kept modes, Ctrl-C, kill -9, a full disk."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from samsa.cli import main
from samsa.errors import ConfigError, InputError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def gold(tmp_path, fixture_path):
    d = tmp_path / "gold"
    d.mkdir()
    shutil.copy(fixture_path("ucca/paper/1_john_home_call.xml"), d / "1.xml")
    shutil.copy(fixture_path("ucca/paper/2_read_book.xml"), d / "2.xml")
    return d


@pytest.fixture
def system(tmp_path):
    path = tmp_path / "sys.txt"
    path.write_text("John got home . John gave Mary a call .\nI read the book .\n")
    return path


def score(gold, system, *extra):
    return main(["score", "--ucca", str(gold), "--system", str(system), "--tokenizer", "none", "--quiet", *extra])


def test_per_sentence_equal_to_an_input_is_refused_before_any_work(tmp_path, gold, system, capsys):
    before = system.read_bytes()
    link = tmp_path / "link.txt"
    os.link(system, link)
    for target in (system, link, gold / "1.xml"):
        assert score(gold, system, "--per-sentence", str(target)) == 1
        err = capsys.readouterr().err
        assert "is an input of this run" in err and err.count("\n") == 1
    assert system.read_bytes() == before and (gold / "1.xml").read_text().startswith("<root")


def test_unwritable_targets_fail_before_any_work(tmp_path, gold, system, capsys):
    for target, message in ((tmp_path / "missing" / "rows.jsonl", "does not exist"), (tmp_path, "is a directory")):
        assert score(gold, system, "--per-sentence", str(target)) == 1
        assert message in capsys.readouterr().err


def test_replaced_output_keeps_its_mode(tmp_path, gold, system):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("old\n")
    rows.chmod(0o640)
    assert score(gold, system, "--per-sentence", str(rows)) == 0
    assert rows.stat().st_mode & 0o777 == 0o640 and json.loads(rows.read_text().splitlines()[0])["line"] == 1
    fresh = tmp_path / "fresh.jsonl"
    old_mask = os.umask(0o022)
    try:
        assert score(gold, system, "--per-sentence", str(fresh)) == 0
    finally:
        os.umask(old_mask)
    assert fresh.stat().st_mode & 0o777 == 0o644


def _big_corpus(tmp_path, fixture_path, n):
    d = tmp_path / "big"
    d.mkdir()
    data = fixture_path("ucca/paper/1_john_home_call.xml").read_bytes()
    for k in range(1, n + 1):
        (d / f"{k}.xml").write_bytes(data)
    out = tmp_path / "big.txt"
    out.write_text("John got home . John gave Mary a call .\n" * n)
    return d, out


def _samsa(*argv, **kw):
    return subprocess.Popen([sys.executable, "-m", "samsa", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)  # fmt: skip


def _wait_for_rows(directory: Path, proc) -> None:
    """Until the run's temporary output holds its first chunk of rows."""
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if any(p.stat().st_size > 0 for p in directory.glob(".rows.jsonl.*.tmp")):
            return
        time.sleep(0.01)
    pytest.fail("the run finished or stalled before writing its first rows")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_keeps_the_old_output(tmp_path, fixture_path, sig):
    gold, system = _big_corpus(tmp_path, fixture_path, 8000)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("old result\n")
    proc = _samsa("score", "--ucca", str(gold), "--system", str(system), "--per-sentence", str(rows), "--quiet")
    _wait_for_rows(tmp_path, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert rows.read_text() == "old result\n"
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert err == "samsa: interrupted; no output was written or replaced\n"
        assert not list(tmp_path.glob(".rows.jsonl.*"))  # the temporary file is removed too
    else:
        assert proc.returncode == -signal.SIGKILL  # nothing can clean up; the target is still the old file


class _SigintInFinalizer:
    """Ctrl-C landing while Python runs a finalizer (here a ``__del__``; also an unfinished generator being
    closed): the KeyboardInterrupt raised there is only reported by Python, and the run goes on."""

    def __del__(self):
        signal.raise_signal(signal.SIGINT)


def test_ctrl_c_that_python_drops_in_a_finalizer_still_keeps_the_old_output(tmp_path, gold, system, monkeypatch,
                                                                            capsys):  # fmt: skip
    import samsa.cli.score as cli_score
    from samsa.fileio import INTERRUPTED

    real = cli_score.sentence_results

    def scored(item, line, *args, **kwargs):
        if line == 2:
            _SigintInFinalizer()  # made and dropped at once: its finalizer runs here
        return real(item, line, *args, **kwargs)

    monkeypatch.setattr(cli_score, "sentence_results", scored)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("old result\n")
    previous = signal.getsignal(signal.SIGINT)
    assert score(gold, system, "--per-sentence", str(rows)) == 130
    assert rows.read_text() == "old result\n" and not list(tmp_path.glob(".rows.jsonl.*"))
    assert capsys.readouterr().err == "samsa: interrupted; no output was written or replaced\n"
    assert signal.getsignal(signal.SIGINT) is previous and not INTERRUPTED.is_set()  # as before the run
    monkeypatch.undo()
    assert score(gold, system, "--per-sentence", str(rows)) == 0  # the next run is not taken for interrupted
    assert json.loads(rows.read_text().splitlines()[1])["line"] == 2


def test_full_disk_keeps_the_old_output(tmp_path, fixture_path):
    """A file-size limit makes writes fail the way a full disk does (EFBIG instead of ENOSPC)."""
    gold, system = _big_corpus(tmp_path, fixture_path, 200)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("old result\n")

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    proc = _samsa("score", "--ucca", str(gold), "--system", str(system), "--per-sentence", str(rows), "--quiet",
                  preexec_fn=limit)  # fmt: skip
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and err.count("\n") == 1
    assert err.startswith(f"samsa: error: {rows}: cannot write: File too large; the old file (if any) is kept")
    assert rows.read_text() == "old result\n" and not list(tmp_path.glob(".rows.jsonl.*"))


def test_text_input_errors_name_file_and_line(tmp_path, gold, capsys):
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"John got home .\nI read\x00 the book .\n")
    assert score(gold, nul) == 1
    assert f"{nul}:2: NUL byte" in capsys.readouterr().err
    sep = tmp_path / "sep.txt"
    sep.write_text("John got home . <::::> John gave Mary a call .\n<::::>\n")
    assert score(gold, sep, "--sentence-separator", "<::::>") == 0
    assert "1 empty or separator-only output line(s) (first: line 2)" in capsys.readouterr().err


class _Flat:
    """A stand-in parser: every word straight under one scene-less unit."""

    def parse(self, sentences):
        from samsa.ucca import graph as G

        out = []
        for s in sentences:
            g = G.from_tokens(s.split() if isinstance(s, str) else s)
            G.add_unit(g, "1.2")
            G.add_edge(g, "1.1", "1.2", "H")
            for t in G.terminals(g):
                G.add_edge(g, "1.2", t, "Terminal")
            out.append(g)
        return out

    def signature(self):
        return "flat"


def test_parse_replaces_its_output_directory(tmp_path, monkeypatch):
    """A reused directory ends up with exactly this run's files; one holding other files is refused."""
    from samsa.registry import register

    register("parsers", "flat-test.v1", _Flat)
    src = tmp_path / "src.txt"
    out = tmp_path / "parsed"
    src.write_text("a b\nc d\ne f\n")
    assert main(["parse", "--input", str(src), "--output-dir", str(out), "--parser", "flat-test", "-q"]) == 0
    src.write_text("a b\n")
    assert main(["parse", "--input", str(src), "--output-dir", str(out), "--parser", "flat-test", "-q"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["000001.xml"]
    (out / "notes.txt").write_text("mine")
    assert main(["parse", "--input", str(src), "--output-dir", str(out), "--parser", "flat-test", "-q"]) == 1
    assert (out / "notes.txt").read_text() == "mine"


def test_parse_keeps_the_old_directory_after_a_ctrl_c_dropped_in_a_finalizer(tmp_path, monkeypatch, capsys):
    import samsa.cli.parse as cli_parse
    from samsa.registry import register

    register("parsers", "flat-test.v1", _Flat)
    src = tmp_path / "src.txt"
    out = tmp_path / "parsed"
    src.write_text("a b\n")
    assert main(["parse", "--input", str(src), "--output-dir", str(out), "--parser", "flat-test", "-q"]) == 0
    before = (out / "000001.xml").read_bytes()
    real = cli_parse.to_standard_xml

    def xml(g):
        _SigintInFinalizer()
        return real(g)

    monkeypatch.setattr(cli_parse, "to_standard_xml", xml)
    src.write_text("c d\ne f\n")
    assert main(["parse", "--input", str(src), "--output-dir", str(out), "--parser", "flat-test", "-q"]) == 130
    assert sorted(p.name for p in out.iterdir()) == ["000001.xml"] and (out / "000001.xml").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging directory left
    assert capsys.readouterr().err == "samsa: interrupted; no output was written or replaced\n"


def test_api_raises_the_projects_error_classes():
    from samsa import corpus_samsa
    from samsa.lexical import corpus_fkgl
    from samsa.ucca.xml import load_passage

    g = load_passage(ROOT / "fixtures" / "ucca" / "paper" / "2_read_book.xml")
    with pytest.raises(InputError, match="nothing to score"):
        corpus_samsa([], [])
    with pytest.raises(InputError, match="1 sources but 2 outputs"):
        corpus_samsa([g], ["a", "b"])
    with pytest.raises(InputError, match="<outputs>: expected a sequence"):
        corpus_samsa([g], None)
    with pytest.raises(InputError, match="<outputs 1>: an output is a line of text"):
        corpus_samsa([g], [None])
    with pytest.raises(ConfigError, match="unknown compat mode"):
        corpus_samsa([g], ["I read the book ."], compat="bogus")
    with pytest.raises(ConfigError, match="unknown FKGL variant"):
        corpus_fkgl(["a ."], variant="bogus")
    assert issubclass(InputError, ValueError) and issubclass(ConfigError, ValueError)  # old except clauses still work
