"""Parser CPU time of this checkout against another checkout of samsa, in alternating rounds.

Usage:
    git worktree add /tmp/samsa-old <revision>
    python benchmarks/parse_ab.py --other /tmp/samsa-old [--rounds 3] [--json parse_ab.json]

Why: whole-command timings on the shared 2-core VM drift by a third between
hours, more than most code changes gain. This isolates the parser: each round
starts one fresh interpreter per checkout (``PYTHONPATH`` pointing at it), which
loads the default parser, tokenizes the 359 HSplit sources, parses them once to
warm up, then takes the CPU time (``time.process_time``, BLAS at one thread) of
three ``BuiltinParser.parse`` + ``check_passage`` passes, keeping the best. The
two checkouts alternate, so a slow spell hits both. Also checks that both
produce the same graphs. Writes ``benchmarks/results/parse_ab.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import HSPLIT_SOURCES, ROOT, write_json

PROBE = """
import hashlib, json, sys, time
from threadpoolctl import threadpool_limits
from samsa.graph import to_json
from samsa.registry import get_parser
from samsa.validate import check_passage
src = open(sys.argv[1], encoding="utf-8").read().splitlines()
parser = get_parser("builtin.v2")
parser.load()
toks = [parser.tokenize(s) for s in src]
with threadpool_limits(1):
    graphs = parser.parse(toks)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for g in parser.parse(toks):
            check_passage(g)
        best = min(best, time.process_time() - start)
digest = hashlib.sha256("\\n".join(map(to_json, graphs)).encode()).hexdigest()
print(json.dumps({"cpu_s": best, "sentences": len(toks), "graphs_sha256": digest, "signature": parser.signature()}))
"""


def probe(checkout: Path, src: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    res = subprocess.run([sys.executable, "-c", PROBE, str(src)], capture_output=True, text=True, env=env,
                         cwd="/", check=True)  # fmt: skip
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--other", required=True, type=Path, help="another samsa checkout (e.g. a git worktree)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default="parse_ab.json", help="result file name under benchmarks/results/")
    args = ap.parse_args()
    src = HSPLIT_SOURCES
    checkouts = {"this": ROOT, "other": args.other.resolve()}
    runs: dict[str, list[dict]] = {name: [] for name in checkouts}
    for r in range(args.rounds):
        for name, path in checkouts.items():
            runs[name].append(probe(path, src))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]['cpu_s']:.3f} s" for k, v in runs.items()), file=sys.stderr)
    rev = subprocess.run(["git", "-C", str(args.other), "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()  # fmt: skip
    out: dict[str, object] = {"command": "python benchmarks/parse_ab.py " + " ".join(sys.argv[1:]),
                              "other_revision": rev, "rounds": args.rounds,
                              "sentences": runs["this"][0]["sentences"]}  # fmt: skip
    for name, rows in runs.items():
        cpu = [row["cpu_s"] for row in rows]
        out[name] = {"cpu_s_per_round": [round(c, 3) for c in cpu], "median_cpu_s": round(statistics.median(cpu), 3),
                     "ms_per_sentence": round(1000 * statistics.median(cpu) / rows[0]["sentences"], 2),
                     "signature": rows[0]["signature"]}  # fmt: skip
    out["same_graphs"] = len({row["graphs_sha256"] for rows in runs.values() for row in rows}) == 1
    this, other = out["this"]["median_cpu_s"], out["other"]["median_cpu_s"]  # type: ignore[index]
    out["cpu_change_percent"] = round(100 * (this - other) / other, 1)
    print(write_json(args.json, out))


if __name__ == "__main__":
    main()
