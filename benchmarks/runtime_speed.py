"""End-to-end speed of ``samsa score``, today's runtime beside a baseline installation, measured in one run.

Usage:
    python benchmarks/runtime_speed.py [--baseline /path/to/old/venv/bin/samsa] [--repeat 3]

Workload: HSplit (the 359 TurkCorpus sources, raw text, parsed by the built-in
parser) x the 4 HSplit references as systems, exact aligner. Configurations:
the baseline command (no cache, one process), and this checkout with a cold
cache and ``--jobs 1`` / ``--jobs 2``, then a warm cache. Start-up is the same
command on a one-line input (first source line, first line of each system);
"excluding start-up" rates are (N - 1) / (wall(N) - wall(1)). Also the
start-up of ``samsa score`` on one line with gold UCCA. Each timing is the
median of ``--repeat`` runs. The scores of this checkout's configurations must be
identical; the baseline's are recorded with its signature (they differ when its
default parser decodes differently). Writes ``benchmarks/results/runtime_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str], repeat: int, before=None) -> tuple[float, str]:
    walls, out = [], ""
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        if res.returncode:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stderr}")
        out = res.stdout
    return statistics.median(walls), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default=None, help="samsa executable of the installation to compare with")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    samsa = shutil.which("samsa") or str(Path(sys.executable).parent / "samsa")
    tmp = Path(tempfile.mkdtemp(prefix="samsa-speed-"))
    src = DATA / "easse" / "test_sets" / "turkcorpus" / "test.truecase.detok.orig"
    systems = [DATA / "hsplit" / "HSplit" / f"HSplit{k}_full" for k in range(1, 5)]
    one = tmp / "one"
    one.mkdir()
    (one / "src.txt").write_text(src.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    for k, s in enumerate(systems):
        (one / f"sys{k}.txt").write_text(s.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    gold_one = tmp / "gold"
    gold_one.mkdir()
    shutil.copy(ROOT / "fixtures" / "ucca" / "paper" / "1_john_home_call.xml", gold_one)
    (tmp / "gold_sys.txt").write_text("John got home . John gave Mary a call .\n")
    env = dict(os.environ, SAMSA_CACHE=str(tmp / "cache.sqlite"))
    n = len(src.read_text(encoding="utf-8").splitlines())

    def cmd(exe: str, source: Path, syss: list[Path], *extra: str) -> list[str]:
        return [exe, "score", "--source", str(source), "--system", *map(str, syss), "--tokenizer", "none",
                "--json", *extra]  # fmt: skip

    one_sys = [one / f"sys{k}.txt" for k in range(4)]
    cache = tmp / "c.sqlite"

    def clear() -> None:
        for p in tmp.glob("c.sqlite*"):
            p.unlink()

    results: dict[str, object] = {"sources": n, "pairs": n * len(systems), "repeat": args.repeat,
                                  "cpus": os.cpu_count(), "command": "python benchmarks/runtime_speed.py "
                                  + " ".join(sys.argv[1:])}  # fmt: skip
    runs: dict[str, tuple[list[str], object]] = {}
    if args.baseline:
        runs["baseline"] = (cmd(args.baseline, src, systems, "--quiet"), None)
    new = {"cold_jobs1": ("--cache", str(cache), "--jobs", "1"), "cold_jobs2": ("--cache", str(cache), "--jobs", "2")}
    for name, extra in new.items():
        runs[name] = (cmd(samsa, src, systems, "--quiet", *extra), clear)
    outputs = {}
    baseline_signature = None
    for name, (full, before) in runs.items():
        small = [str(one / "src.txt") if a == str(src) else a for a in full]
        small = small[: small.index("--system") + 1] + [str(p) for p in one_sys] + small[small.index("--system") + 5 :]
        wall, out = timed(full, env, args.repeat, before)
        start, _ = timed(small, env, args.repeat, before)
        outputs[name] = [(r["samsa"], r["samsa_abl"]) for r in json.loads(out)]
        if name == "baseline":
            baseline_signature = json.loads(out)[0]["signature"]
        results[name] = {"wall_s": round(wall, 2), "startup_s": round(start, 2),
                         "sources_per_s_excl_startup": round((n - 1) / max(wall - start, 1e-9), 1),
                         "pairs_per_s_excl_startup": round(4 * (n - 1) / max(wall - start, 1e-9), 1)}  # fmt: skip
        print(name, results[name], file=sys.stderr, flush=True)
    # warm: the cache filled by one cold run, then timed
    subprocess.run(runs["cold_jobs2"][0], capture_output=True, env=env, cwd=ROOT, check=True)
    for name, jobs in (("warm_jobs1", "1"), ("warm_jobs2", "2")):
        full = cmd(samsa, src, systems, "--quiet", "--cache", str(cache), "--jobs", jobs)
        wall, out = timed(full, env, args.repeat)
        small = cmd(samsa, one / "src.txt", one_sys, "--quiet", "--cache", str(cache), "--jobs", jobs)
        subprocess.run(small, capture_output=True, env=env, cwd=ROOT, check=True)  # its one line cached too
        start, _ = timed(small, env, args.repeat)
        outputs[name] = [(r["samsa"], r["samsa_abl"]) for r in json.loads(out)]
        results[name] = {"wall_s": round(wall, 2), "startup_s": round(start, 2),
                         "pairs_per_s_excl_startup": round(4 * (n - 1) / max(wall - start, 1e-9), 1)}  # fmt: skip
        print(name, results[name], file=sys.stderr, flush=True)
    gold = [samsa, "score", "--ucca", str(gold_one), "--system", str(tmp / "gold_sys.txt"), "--quiet"]
    results["startup_gold_one_line_s"] = round(timed(gold, env, args.repeat)[0], 2)
    parsed = cmd(samsa, one / "src.txt", [one / "sys0.txt"], "--quiet", "--no-cache")
    results["startup_parser_one_line_s"] = round(timed(parsed, env, args.repeat)[0], 2)
    if args.baseline:
        results["baseline_startup_gold_one_line_s"] = round(timed([args.baseline, *gold[1:]], env, args.repeat)[0], 2)
        results["baseline_startup_parser_one_line_s"] = round(
            timed([args.baseline, *parsed[1:-1]], env, args.repeat)[0], 2)  # fmt: skip
        results["speedup_cold_jobs2_vs_baseline"] = round(
            results["baseline"]["wall_s"] / results["cold_jobs2"]["wall_s"], 2)  # type: ignore[index]  # fmt: skip
    ours = {k: v for k, v in outputs.items() if k != "baseline"}
    results["same_scores_in_every_configuration"] = len({json.dumps(v) for v in ours.values()}) == 1
    results["scores"] = outputs["cold_jobs2"]
    if "baseline" in outputs:  # the same only when both run the same parser decoding (see docs/BENCHMARKS.md)
        results["baseline_scores"] = outputs["baseline"]
        results["baseline_signature"] = baseline_signature
    shutil.rmtree(tmp, ignore_errors=True)
    print(write_json("runtime_speed.json", results))


if __name__ == "__main__":
    main()
