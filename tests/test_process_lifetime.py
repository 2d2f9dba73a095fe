"""No process outlives its run: kill -9 or SIGTERM of a ``--jobs 2`` parent leaves no samsa process 5 s later,
SIGTERM leaves no temporary file and exits 143 with one line; a killed worker is one line, not a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")


def session_members(sid: int) -> list[int]:
    """PIDs of live processes in session ``sid`` (zombies are dead)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(d.name))
    return out


def children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except OSError:
                continue
    return out


@pytest.fixture
def long_run(tmp_path, data_dir):
    """A `samsa score --jobs 2` parse of 4 x 359 sources (long enough to be stopped on a fast machine), its own
    session, started; yields (process, output path)."""
    lines = (data_dir / "easse" / "test_sets" / "hsplit" / "hsplit.tok.src").read_text(encoding="utf-8")
    src = tmp_path / "src.txt"
    src.write_text(lines * 4, encoding="utf-8")
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "per.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "samsa", "score", "--source", str(src), str(src), "--jobs", "2",
                             "--no-cache", "--per-sentence", str(out), "--tokenizer", "none"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while len(children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(1.0)  # the workers are parsing
    assert proc.poll() is None, "the run ended before the test could stop it"
    yield proc, out
    for pid in session_members(proc.pid):
        os.kill(pid, signal.SIGKILL)


def _gone_within(sid: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = session_members(sid)
        if not alive:
            return []
        time.sleep(0.1)
    return session_members(sid)


def test_kill_9_of_the_parent_ends_the_workers(long_run):
    proc, _ = long_run
    assert len(children(proc.pid)) >= 2
    proc.kill()
    proc.wait(10)
    assert _gone_within(proc.pid, 5) == []


def test_sigterm_ends_the_run_cleanly(long_run):
    proc, out = long_run
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 143
    assert proc.stderr is not None
    assert proc.stderr.read().decode().splitlines() == [
        "samsa: terminated (SIGTERM); no output was written or replaced"
    ]
    assert _gone_within(proc.pid, 5) == []
    assert sorted(p.name for p in out.parent.iterdir()) == []  # no output, no temporary file


def test_a_killed_worker_is_one_line(long_run):
    proc, _ = long_run
    os.kill(children(proc.pid)[0], signal.SIGKILL)
    assert proc.wait(60) == 1
    assert proc.stderr is not None
    (line,) = proc.stderr.read().decode().splitlines()
    assert line.startswith("samsa: error: a worker process died")
    assert _gone_within(proc.pid, 5) == []


def test_a_reader_that_goes_away_ends_the_run_quietly(data_dir):
    """``samsa extract-text DIR | head -0``: exit 141 as a shell tool ended by SIGPIPE, nothing on stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "samsa", "extract-text", str(data_dir / "ucca" / "wiki" / "test")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    assert proc.wait(60) == 141
    assert proc.stderr.read().decode() == ""
