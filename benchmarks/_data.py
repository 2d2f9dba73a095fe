"""Where benchmarks find ../shared/data (override with SAMSA_SHARED_DATA)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

DATA = Path(os.environ.get("SAMSA_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
RESULTS = Path(__file__).resolve().parent / "results"


def write_json(name: str, payload: object) -> Path:
    """Write a result file under benchmarks/results/ and return its path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return path


def samsa_executable() -> str:
    """The ``samsa`` command of the virtualenv running the benchmark: a ``samsa`` found first on PATH (a pyenv
    shim, say) may be another installation, which timed another version of the code."""
    here = Path(sys.executable).parent / "samsa"
    return str(here) if here.exists() else shutil.which("samsa") or "samsa"
