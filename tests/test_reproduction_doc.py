"""docs/REPRODUCTION.md shows what its commands print now: every table between
``<!-- begin: samsa reproduce ... -->`` and ``<!-- end -->`` is regenerated and compared.

``SAMSA_UPDATE_DOCS=1 python -m pytest tests/test_reproduction_doc.py`` rewrites the tables instead.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from samsa.cli import main

DOC = Path(__file__).resolve().parent.parent / "docs" / "REPRODUCTION.md"
BLOCK = re.compile(r"^<!-- begin: (samsa reproduce [^\n]*?) -->\n(.*?)^<!-- end -->$", re.M | re.S)


def blocks() -> list[str]:
    return [m.group(1) for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))]


def generate(command: str, data_dir: Path, tmp_path: Path) -> str:
    argv = shlex.split(command)[1:]  # drop "samsa"
    out = tmp_path / "table.md"
    assert main([*argv, "--data", str(data_dir), "-o", str(out), "--quiet"]) == 0
    return out.read_text(encoding="utf-8").strip("\n") + "\n"


def test_the_doc_has_its_tables():
    assert len(blocks()) == 5


@pytest.mark.parametrize("command", blocks())
def test_table_equals_what_its_command_prints(command, data_dir, tmp_path, capsys):
    table = generate(command, data_dir, tmp_path)
    capsys.readouterr()
    text = DOC.read_text(encoding="utf-8")
    found = next(m for m in BLOCK.finditer(text) if m.group(1) == command)
    if os.environ.get("SAMSA_UPDATE_DOCS") == "1":
        DOC.write_text(text[: found.start(2)] + table + text[found.end(2) :], encoding="utf-8")
        return
    assert found.group(2) == table, f"docs/REPRODUCTION.md is out of date for `{command}`"
