"""Where benchmarks find ../shared/data (``$SAMSA_DATA`` overrides)."""

from __future__ import annotations

import compileall
import json
import os
import shutil
import sys
from pathlib import Path

DATA = Path(os.environ.get("SAMSA_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # lab/ (not installed) is read from the checkout; samsa stays the installed one
    sys.path.append(str(ROOT))

#: the HSplit workload of the runtime benchmarks: the 359 TurkCorpus test sources (raw text) and the 4 HSplit
#: references, scored as systems
HSPLIT_SOURCES = DATA / "easse" / "test_sets" / "turkcorpus" / "test.truecase.detok.orig"
HSPLIT_SYSTEMS = [DATA / "hsplit" / "HSplit" / f"HSplit{k}_full" for k in range(1, 5)]


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


def compile_checkout(root: Path = ROOT) -> bool:
    """Bytecode for a checkout's packages, written even under ``PYTHONDONTWRITEBYTECODE``: a timed command
    then runs the checkout as ``pip install .`` would have installed it (compiled once, not on every run)."""
    return all(compileall.compile_dir(root / pkg, quiet=1) for pkg in ("samsa", "aligners", "parsers"))
