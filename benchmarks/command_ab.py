"""The whole cold ``samsa score --jobs N`` command of this checkout against another checkout, in alternating rounds.

Usage:
    git worktree add /tmp/other <revision>          # or a copy with another weights file in place
    python benchmarks/command_ab.py --other /tmp/other [--rounds 9] [--jobs 2] [--dask] [--out command_ab.json]

Why: ``runtime_speed.py`` compares this checkout with an installed release; this compares two checkouts on
the same interpreter and virtualenv, so that what differs between them is the code or a weights file (a
candidate network, say: copy its file over ``parsers/builtin/weights/ucca-span-v2-scenes.npz`` in the other
checkout and it becomes that checkout's ``fast``). The workload is ``runtime_speed.py``'s: the 359 HSplit
sources (raw text, parsed by the default parser) x the 4 HSplit references, exact aligner, a fresh parse
cache for every run; ``--dask``: on a LocalCluster of ``--jobs`` workers (``--dask local``; the cluster's
start is part of the command) instead of the process pool. Each round runs the command once per checkout
(``PYTHONPATH`` pointing at it, started as the ``samsa`` executable starts, ``samsa.cli.console``), the order
alternating between rounds, so that a slow spell of the shared VM hits both. Both checkouts' bytecode is
compiled first. Records every round's wall time, the medians, in how many rounds this checkout was faster,
each checkout's SAMSA per system and its parser signature. Writes ``benchmarks/results/<--out>``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import HSPLIT_SOURCES, HSPLIT_SYSTEMS, ROOT, compile_checkout, write_json

START = "from samsa.cli import console; console()"


def run(root: Path, argv: list[str], cache: Path) -> tuple[float, list[dict]]:
    """Wall seconds and parsed JSON output of one cold run of ``samsa`` from checkout ``root``."""
    for p in cache.parent.glob(cache.name + "*"):
        p.unlink()
    env = dict(os.environ, PYTHONPATH=str(root), SAMSA_CACHE=str(cache))
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", START, *argv], capture_output=True, text=True, env=env,
                         cwd=cache.parent)  # fmt: skip
    wall = time.perf_counter() - start
    if res.returncode:
        raise SystemExit(f"{root}: samsa {' '.join(argv)} failed:\n{res.stderr}")
    return wall, json.loads(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--other", required=True, help="the other checkout (a git worktree)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dask", action="store_true", help="run the command on a local Dask cluster of --jobs "
                    "workers (--dask local; needs the dask extra) instead of a process pool")  # fmt: skip
    ap.add_argument("--out", default="command_ab.json", help="result file name under benchmarks/results/")
    args = ap.parse_args()
    roots = {"this": ROOT, "other": Path(args.other).resolve()}
    if not all(compile_checkout(r) for r in roots.values()):
        raise SystemExit("could not compile a checkout's modules")
    argv = ["score", "--source", str(HSPLIT_SOURCES), "--system", *map(str, HSPLIT_SYSTEMS), "--tokenizer", "none",
            "--json", "--jobs", str(args.jobs), "--quiet", *(["--dask", "local"] if args.dask else [])]  # fmt: skip
    cache = Path(tempfile.mkdtemp(prefix="samsa-ab-")) / "cache.sqlite"
    walls: dict[str, list[float]] = {name: [] for name in roots}
    outputs: dict[str, list[dict]] = {}
    for k in range(args.rounds):
        order = list(roots) if k % 2 == 0 else list(reversed(roots))
        for name in order:
            wall, out = run(roots[name], argv, cache)
            walls[name].append(round(wall, 3))
            outputs.setdefault(name, out)
        print(k + 1, {name: w[-1] for name, w in walls.items()}, file=sys.stderr, flush=True)
    medians = {name: round(statistics.median(w), 3) for name, w in walls.items()}
    results = {
        "command": "python benchmarks/command_ab.py " + " ".join(sys.argv[1:]),
        "workload": "HSplit: 359 TurkCorpus sources (raw text) x 4 HSplit references, exact aligner, cold cache",
        "jobs": args.jobs,
        "executor": "dask local" if args.dask else "process pool",
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "wall_s_median": medians,
        "wall_s_per_round": walls,
        "this_over_other": round(medians["this"] / medians["other"], 3),
        "this_faster_in_rounds": sum(a < b for a, b in zip(walls["this"], walls["other"], strict=True)),
        "samsa": {name: {s["system"]: s["samsa"] for s in out} for name, out in outputs.items()},
        "signature": {name: out[0]["signature"] for name, out in outputs.items()},
    }
    print(json.dumps(results, indent=2))
    print(write_json(args.out, results), file=sys.stderr)


if __name__ == "__main__":
    main()
