"""Hostile UCCA files end in one line naming file and line, under a memory cap, never in a traceback.

The cases are ``benchmarks/fuzz.py``'s fixed hostile set (huge and renamed IDs, unknown and misplaced
categories), made from the paper's fixture; each runs ``samsa score`` in its own process under a 1.5 GB
address-space cap, so a case that allocated without bound would end in a MemoryError here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from fuzz import hostile_cases, independent_problems  # noqa: E402

SOURCE = (ROOT / "fixtures" / "ucca" / "paper" / "2_read_book.xml").read_bytes()
CASES = dict(hostile_cases(SOURCE))
#: cases that are valid passages: a unit's number and a terminal's paragraph numbers size nothing
VALID = {"huge-unit-id", "huge-paragraph", "huge-paragraph-position"}
CAPPED = """
import resource, sys
cap = int(1.5 * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
sys.argv = ["samsa", *sys.argv[1:]]
from samsa.cli import console
console()
"""


def test_the_hostile_set_is_whole():
    assert set(CASES) >= {"huge-terminal-id", "huge-unit-id", "4301-digit-id", "terminal-edge-labelled-A",
                          "unknown-category-Z", "lowercase-category", "empty-category"}  # fmt: skip
    for name, data in CASES.items():
        assert bool(independent_problems(data)) is (name not in VALID), name


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux keeps it")
@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_file_is_one_line_under_a_memory_cap(name, tmp_path):
    d = tmp_path / "ucca"
    d.mkdir()
    (d / "1.xml").write_bytes(CASES[name])
    out = tmp_path / "out.txt"
    out.write_text("I read the book . John wrote it .\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-c", CAPPED, "score", "--ucca", str(d), str(out), "-f", "json"],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    if name in VALID:  # read and scored as usual
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 1
    (line,) = r.stderr.strip().splitlines()
    assert re.match(rf"samsa: error: {re.escape(str(d / '1.xml'))}:\d+: ", line), line


def test_two_files_at_one_place_in_the_order_are_refused(tmp_path, capsys):
    from samsa.cli import main

    d = tmp_path / "ucca"
    d.mkdir()
    (d / "1.xml").write_bytes(SOURCE)
    (d / "01.xml").write_bytes(SOURCE)
    out = tmp_path / "out.txt"
    out.write_text("I read the book .\nJohn wrote it .\n", encoding="utf-8")
    assert main(["score", "--ucca", str(d), str(out)]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert "sorts at the same place as" in line and "1.xml" in line


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [("-w", "-2", "must be from 0 to 20, not -2"), ("--max-tokens", "-5", "must be at least 1, not -5"),
     ("--jobs", "-3", "must be from 0 to 1024, not -3"), ("--jobs", "two", "expected a whole number, not 'two'")],
)  # fmt: skip
def test_numeric_options_are_range_checked(option, value, message, capsys):
    from samsa.cli import main

    with pytest.raises(SystemExit) as e:
        main(["score", "--ucca", "fixtures/ucca/paper", "fixtures/paper_outputs.txt", option, value])
    assert e.value.code == 2
    assert message in capsys.readouterr().err
