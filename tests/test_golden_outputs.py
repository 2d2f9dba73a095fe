"""Every output users see is byte for byte what revision 2bb279f wrote (tests/golden/outputs.py): score's table,
JSON and per-sentence rows with and without parse uncertainty, cold and warm, one and two workers; evaluate with
-ci and --paired-bs; the report's page; compare-annotations' rows; English and German."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
import outputs

from samsa.cli import main

PINNED = json.loads(outputs.DIGESTS.read_text(encoding="utf-8"))
GROUPS = ("en_", "de_", "hsplit_", "de20k_")


def _group(prefix: str) -> list[str]:
    return [n for n in outputs.cases() if n.startswith(prefix)]


@pytest.mark.parametrize("prefix", GROUPS)
def test_outputs_are_the_pinned_ones(prefix, tmp_path):
    names = _group(prefix)
    if any(outputs.cases()[n][1] for n in names) and not outputs._data().is_dir():
        pytest.skip(f"shared data not found at {outputs._data()}")
    cache = tmp_path / "cache.sqlite"
    differ = []
    for name in names:
        argv, _ = outputs.cases()[name]
        if outputs.digest(outputs.run_case(name, argv, tmp_path, cache, main)) != PINNED[name]:
            differ.append(name)
    assert not differ, f"outputs changed: {differ} (tests/golden/outputs.py says how to see the difference)"


def test_every_case_is_pinned():
    assert set(outputs.cases()) == set(PINNED)
