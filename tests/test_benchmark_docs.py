"""docs/BENCHMARKS.md and benchmarks/ agree: every benchmark script is run by a command the page shows, every
result file belongs to one script (one current file each), every file the page names exists, and the start-up
table shows the figures of ``samsa_speed.json``."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "BENCHMARKS.md"
SCRIPTS = sorted(p.stem for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))
RESULTS = ROOT / "benchmarks" / "results"


def test_every_benchmark_has_its_command_on_the_page():
    text = DOC.read_text(encoding="utf-8")
    assert [s for s in SCRIPTS if f"python benchmarks/{s}.py" not in text] == []


def test_one_current_result_file_per_benchmark():
    files = sorted(p.stem for p in RESULTS.glob("*.json"))
    assert [f for f in files if f not in SCRIPTS] == []  # no result of a script that is gone, no second file
    assert len(SCRIPTS) <= 22


def test_every_result_file_the_docs_name_exists():
    named = set()
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"\b([a-z_]+\.json)\b", doc.read_text(encoding="utf-8")))
    produced = {p.name for p in RESULTS.glob("*.json")}
    # other JSON files the docs name: outputs of the commands they show
    assert sorted(n for n in named if n.removesuffix(".json") in SCRIPTS and n not in produced) == []


def startup_rows() -> dict[str, list[str]]:
    """The start-up table of docs/BENCHMARKS.md: first cell -> the three figures."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Start-up") :]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[1].endswith(" s"):
            rows[cells[0]] = cells[1:]
        elif rows and not line.startswith("|"):
            break
    return rows


def test_the_startup_table_shows_samsa_speed_json():
    seconds = json.loads((RESULTS / "samsa_speed.json").read_text())["startup"]["seconds"]
    rows = startup_rows()
    assert len(rows) == len(seconds)
    for config, figures in seconds.items():
        [row] = [cells for first, cells in rows.items() if first.startswith(f"`{config}`") or first == config]
        want = [f"{figures[job]:.2f} s" for job in ("help", "score_gold_one_line", "score_parser_one_line")]
        assert row == want, config
