"""Speed of the lexical suite (TurkCorpus test x 8 references) and of SARI alone (ASSET test x 10).

Usage:
    python benchmarks/lexical_speed.py [--repeat 5]

Reported: the first call in a fresh process (imports and regex compilation
included) and the median of the following calls. The comparison point is the
reference toolkit's pure-Python SARI, about 0.4 s for 359 sentences x 10
references on this kind of machine (issue 3).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa import __version__
from samsa.fileio import read_lines
from samsa.lexical import corpus_sari
from samsa.lexical.suite import METRICS, SuiteConfig, evaluate_lexical


def timed(fn, repeat: int) -> dict[str, float]:
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return {"first_s": round(first, 3), "median_s": round(statistics.median(runs), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    turk = DATA / "easse" / "test_sets" / "turkcorpus"
    orig = read_lines(turk / "test.truecase.detok.orig")
    streams = [read_lines(turk / f"test.truecase.detok.simp.{i}") for i in range(8)]
    refs = [[s[i] for s in streams] for i in range(len(orig))]
    system = read_lines(DATA / "easse" / "system_outputs" / "turkcorpus" / "test" / "ACCESS")
    suite = timed(lambda: evaluate_lexical(orig, system, refs, list(METRICS), SuiteConfig()), args.repeat)
    asset = DATA / "easse" / "test_sets" / "asset"
    a_orig = read_lines(asset / "asset.test.orig")
    a_refs = [read_lines(asset / f"asset.test.simp.{i}") for i in range(10)]
    sari = {v: timed(lambda v=v: corpus_sari(a_orig, a_orig, a_refs, variant=v), args.repeat)
            for v in ("easse", "xu2016", "hf")}  # fmt: skip
    result = {
        "benchmark": "lexical_speed",
        "suite_turkcorpus_8refs": {"sentences": len(orig), "metrics": list(METRICS), **suite},
        "sari_asset_10refs": {"sentences": len(a_orig), "system": "identity (source)", **sari},
        "reference_sari_seconds": 0.4,
        "version": __version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    write_json("lexical_speed.json", result)
    import json

    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
