"""Where benchmarks find ../shared/data (override with SAMSA_SHARED_DATA)."""

from __future__ import annotations

import json
import os
from pathlib import Path

DATA = Path(os.environ.get("SAMSA_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
RESULTS = Path(__file__).resolve().parent / "results"


def write_json(name: str, payload: object) -> Path:
    """Write a result file under benchmarks/results/ and return its path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return path
