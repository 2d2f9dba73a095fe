"""Scaling of ``samsa score --source`` with the corpus size: time and peak memory at 1k / 10k / 50k pairs; and
(``--long``) with the length of one sentence.

Usage:
    python benchmarks/scaling.py [--sizes 1000 10000 50000] [--jobs 2]
    python benchmarks/scaling.py --long [--tokens 100 1000 5000 20000]      # scaling.json, under "long"

``--long``: one line of N tokens, without sentence punctuation, scored against itself (``--max-tokens`` raised to
N where N is above the default line limit), in English and German, one process (it is the worker), with and
without ``--parse-uncertainty``: whether it scored or was refused in one line, the wall time and the peak RSS.

Workload: the WikiSplit test set (5,000 real sentence pairs, raw text; the
split side as the system output), repeated to each size. ``--no-cache`` so that
every sentence is really parsed (repetitions would otherwise be cache hits).
Peak memory is the largest sum of RSS, and of PSS (shared pages counted
once), over the samsa process and all its descendants (the pool workers),
sampled every 0.2 s from /proc (Linux). The
per-worker rate gives a projection for 1M pairs on N Dask workers (linear in
N: chunks are independent and only sentence scores come back). Writes
``benchmarks/results/scaling.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, samsa_executable, write_json

ROOT = Path(__file__).resolve().parents[1]


def tree_memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes of ``pid`` and all its descendants. Pool workers forked from a parent that loaded
    the parser share its pages: summed RSS counts them once per process, summed PSS (each shared page
    divided among its sharers) counts them once."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(d.name)] = int(stat[1])
            rss[int(d.name)] = int(stat[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    family, frontier = {pid}, [pid]
    while frontier:
        p = frontier.pop()
        for child, parent in parents.items():
            if parent == p and child not in family:
                family.add(child)
                frontier.append(child)
    return sum(rss.get(p, 0) for p in family), sum(_pss(p) for p in family)


def _pss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def measure(cmd: list[str]) -> tuple[float, int, int, int, str]:
    """(wall seconds, peak RSS, peak PSS, exit code, stderr) of ``cmd`` and its descendants, sampled every 0.05 s."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        peak_rss = peak_pss = 0
        while proc.poll() is None:
            rss, pss = tree_memory(proc.pid)
            peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
            time.sleep(0.05)
        wall = time.perf_counter() - start
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return wall, peak_rss, peak_pss, proc.returncode, text


def run(cmd: list[str]) -> tuple[float, int, int]:
    wall, peak_rss, peak_pss, code, err = measure(cmd)
    if code:
        raise SystemExit(err or "failed")
    return wall, peak_rss, peak_pss


#: the words of the long lines: no sentence punctuation, so that no splitter finds a boundary
LONG_WORDS = {
    "en": "the cat sat on the mat and the dog ran to the park while people walked along the river".split(),
    "de": "der Hund lief schnell über die Straße und die Katze schlief auf dem Sofa während Leute gingen".split(),
}


def long_line(lang: str, n: int) -> str:
    """``n`` words of ``lang`` drawn with a fixed seed: the same line on every run."""
    import random

    rng = random.Random(n)
    return " ".join(rng.choice(LONG_WORDS[lang]) for _ in range(n))


def long_rows(samsa: str, sizes: list[int]) -> list[dict[str, object]]:
    """Peak RSS and time of one long line, scored (or refused) in each language, with and without the trees."""
    tmp = Path(tempfile.mkdtemp(prefix="samsa-long-"))
    rows = []
    try:
        for lang in LONG_WORDS:
            for n in sizes:
                path = tmp / f"{lang}{n}.txt"
                path.write_text(long_line(lang, n) + "\n", encoding="utf-8")
                for doubt in (False, True):
                    cmd = [samsa, "score", "--lang", lang, "--source", str(path), str(path), "--no-cache", "--quiet",
                           "--max-tokens", str(max(n, 1000))] + (["--parse-uncertainty"] if doubt else [])  # fmt: skip
                    wall, peak_rss, _, code, err = measure(cmd)
                    row = {"lang": lang, "tokens": n, "parse_uncertainty": doubt, "exit": code,
                           "outcome": "scored" if code == 0 else "refused" if code == 1 else "failed",
                           "message": err.strip().splitlines()[-1] if code else "",
                           "wall_s": round(wall, 2), "peak_rss_mb": round(peak_rss / 2**20, 1)}  # fmt: skip
                    print(row, file=sys.stderr, flush=True)
                    rows.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--long", action="store_true", help="one long line instead of many pairs")
    ap.add_argument("--tokens", type=int, nargs="+", default=[100, 1000, 5000, 20000])
    args = ap.parse_args()
    samsa = samsa_executable()
    if args.long:
        rows = long_rows(samsa, args.tokens)
        kept = _kept()
        kept["long"] = {"command": "python benchmarks/scaling.py " + " ".join(sys.argv[1:]), "results": rows}
        print(write_json("scaling.json", kept))
        return
    d = DATA / "easse" / "test_sets" / "wikisplit"
    src = (d / "wikisplit.test.untok.orig").read_text(encoding="utf-8").splitlines()
    out = (d / "wikisplit.test.untok.split").read_text(encoding="utf-8").splitlines()
    tmp = Path(tempfile.mkdtemp(prefix="samsa-scaling-"))
    rows = []
    for size in args.sizes:
        reps = -(-size // len(src))
        (tmp / "src.txt").write_text("\n".join((src * reps)[:size]) + "\n", encoding="utf-8")
        (tmp / "sys.txt").write_text("\n".join((out * reps)[:size]) + "\n", encoding="utf-8")
        cmd = [samsa, "score", "--source", str(tmp / "src.txt"), "--system", str(tmp / "sys.txt"), "--no-cache",
               "--quiet", "--jobs", str(args.jobs), "--per-sentence", str(tmp / "rows.jsonl")]  # fmt: skip
        wall, peak_rss, peak_pss = run(cmd)
        row = {"pairs": size, "wall_s": round(wall, 1), "pairs_per_s": round(size / wall, 1),
               "peak_rss_mb": round(peak_rss / 2**20, 1), "peak_pss_mb": round(peak_pss / 2**20, 1)}  # fmt: skip
        print(row, file=sys.stderr, flush=True)
        rows.append(row)
    shutil.rmtree(tmp, ignore_errors=True)
    rate = rows[-1]["pairs_per_s"] / args.jobs  # per worker, at the largest size
    projection = {f"{n}_workers_hours": round(1_000_000 / (rate * n) / 3600, 2) for n in (2, 16, 64, 256)}
    write = {"command": "python benchmarks/scaling.py " + " ".join(sys.argv[1:]), "jobs": args.jobs,
             "results": rows, "per_worker_pairs_per_s": round(rate, 1), "projection_1M_pairs": projection}  # fmt: skip
    if "long" in _kept():
        write["long"] = _kept()["long"]
    print(write_json("scaling.json", write))


def _kept() -> dict:
    """scaling.json as it is (each part rewrites only its own)."""
    from _data import RESULTS

    path = RESULTS / "scaling.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


if __name__ == "__main__":
    main()
