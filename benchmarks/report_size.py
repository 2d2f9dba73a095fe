"""`samsa report` on HSplit: page size and time for 1, 2 and 4 real systems (acl2018 outputs).

    python benchmarks/report_size.py            # writes benchmarks/results/report_size.json

Each run is the real command (a subprocess, warm parse cache after the first run, one process);
the budget of the evaluation-workflow issue is 5 MB for 359 sentences x 4 systems.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

SYSTEMS = ["Moses_all", "DSS_all", "SENTSh1_default_model_all", "SEMoses_all"]


def main() -> None:
    a = DATA / "acl2018" / "All_system_outputs"
    samsa = Path(sys.executable).parent / "samsa"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "SAMSA_DATA": str(DATA), "SAMSA_CACHE": str(Path(tmp) / "cache.sqlite")}
        for k in (1, 2, 4, 4):  # the first run parses (cold cache); the last 4 runs warm
            out = Path(tmp) / f"r{k}.html"
            start = time.perf_counter()
            subprocess.run([str(samsa), "report", "-t", "hsplit", *(str(a / s) for s in SYSTEMS[:k]), "-o", str(out),
                            "-q"], check=True, env=env, capture_output=True)  # fmt: skip
            seconds = round(time.perf_counter() - start, 2)
            rows.append({"systems": k, "sentences": 359, "bytes": out.stat().st_size, "seconds": seconds,
                         "cache": "cold" if not rows else "warm"})  # fmt: skip
            print(rows[-1])
    write_json("report_size.json", {"command": "python benchmarks/report_size.py", "runs": rows,
                                    "budget_bytes_4_systems": 5_000_000})  # fmt: skip


if __name__ == "__main__":
    main()
