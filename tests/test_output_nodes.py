"""Outputs and caches at nodes that are not regular files: written in place or refused, never replaced.

Each test makes its own FIFO or character device in a temporary directory; none points samsa at the machine's
own device files except ``/dev/stdout`` of a child process whose standard output is a pipe the test reads.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from samsa.cli import main

ROOT = Path(__file__).resolve().parent.parent
UCCA, OUT = str(ROOT / "fixtures" / "ucca" / "paper"), str(ROOT / "fixtures" / "paper_outputs.txt")


def _reader(fifo: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as fh:
            into.append(fh.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("option", ["-o", "--per-sentence"])
def test_fifo_output_is_written_in_place(option, tmp_path, capsys):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _reader(fifo, got)
    assert main(["score", "--ucca", UCCA, OUT, option, str(fifo), "-f", "json", "-q"]) == 0
    t.join(10)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the FIFO
    if option == "-o":
        assert b'"samsa": 75.0,' in got[0]  # the corpus score of the paper's bad splits
    else:
        assert [json.loads(x)["line"] for x in got[0].splitlines()] == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]  # no temporary file left beside it


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root (CI runs as root)")
@pytest.mark.parametrize("command", ["score-o", "per-sentence", "report", "cache"])
def test_character_device_is_never_replaced(command, tmp_path, capsys):
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device of the test's own
    argv = {
        "score-o": ["score", "--ucca", UCCA, OUT, "-o", str(node), "-q"],
        "per-sentence": ["score", "--ucca", UCCA, OUT, "--per-sentence", str(node), "-q"],
        "report": ["report", "--ucca", UCCA, OUT, "-o", str(node), "-q", "--bootstrap", "10"],
        "cache": ["score", "--source", str(ROOT / "fixtures" / "paper_sources.txt"), OUT, "--cache", str(node), "-q"],
    }[command]
    assert main(argv) == 0
    mode = node.lstat().st_mode
    assert stat.S_ISCHR(mode) and os.major(node.lstat().st_rdev) == 1 and os.minor(node.lstat().st_rdev) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
    if command == "cache":
        assert "is not a samsa parse cache" in capsys.readouterr().err


def test_dev_stdout_is_the_standard_output(tmp_path):
    r = subprocess.run([sys.executable, "-m", "samsa", "score", "--ucca", UCCA, OUT, "-o", "/dev/stdout", "-q"],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2].startswith("paper_outputs.txt    75.00")


def test_symlink_output_replaces_the_file_not_the_link(tmp_path, capsys):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert main(["score", "--ucca", UCCA, OUT, "-o", str(link), "-q"]) == 0
    assert link.is_symlink() and "75.00" in real.read_text()


def test_output_that_is_an_input_is_refused(tmp_path, capsys):
    copy = tmp_path / "out.txt"
    shutil.copy(OUT, copy)
    before = copy.read_bytes()
    assert main(["score", "--ucca", UCCA, str(copy), "-o", str(copy), "-q"]) == 1
    assert "is an input of this run" in capsys.readouterr().err
    assert copy.read_bytes() == before


def test_a_socket_is_refused(tmp_path, capsys):
    import socket

    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    try:
        assert main(["score", "--ucca", UCCA, OUT, "-o", str(path), "-q"]) == 1
        assert "neither a regular file, a FIFO nor a character device" in capsys.readouterr().err
        assert stat.S_ISSOCK(path.lstat().st_mode)
    finally:
        sock.close()
