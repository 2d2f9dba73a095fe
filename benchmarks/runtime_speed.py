"""End-to-end speed of ``samsa score``, today's runtime beside a baseline installation, measured in one run.

Usage:
    python benchmarks/runtime_speed.py [--baseline /path/to/old/venv/bin/samsa] [--repeat 3]

Workload: HSplit (the 359 TurkCorpus sources, raw text, parsed by the built-in
parser) x the 4 HSplit references as systems, exact aligner. Configurations:
the baseline command (no cache, one process; and with a cold and a warm cache
of its own and ``--jobs 2``), and this checkout with a cold
cache and ``--jobs 1`` / ``--jobs 2``, then a warm cache (also over the input
repeated ten times, whose warm rate is long enough to time). Start-up is the same
command on a one-line input (first source line, first line of each system);
"excluding start-up" rates are (N - 1) / (wall(N) - wall(1)). Also the
start-up of ``samsa score`` on one line with gold UCCA. Each timing is the
median of ``--repeat`` runs, taken in rounds: every round runs every command
once, so a slow spell of the shared machine hits all configurations alike
instead of all the repeats of one. The scores of this checkout's configurations must be
identical; the baseline's are recorded with its signature (they differ when its
default parser decodes differently). This checkout's modules are compiled to
bytecode first, as ``pip install .`` leaves an installation (the baseline's
too): an editable install under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise
compile every samsa module again on every run. Every
round's wall time is recorded beside the medians. Writes ``benchmarks/results/runtime_speed.json``
(``--out`` another name).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import HSPLIT_SOURCES, HSPLIT_SYSTEMS, ROOT, compile_checkout, samsa_executable, write_json

TIMES = 10  # the longer warm workload: HSplit's sources and systems repeated


def run_once(cmd: list[str], env: dict[str, str], before=None) -> tuple[float, str]:
    if before is not None:
        before()
    start = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if res.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return wall, res.stdout


def in_rounds(probes: dict[str, tuple[list[str], object]], env: dict[str, str], repeat: int) -> dict[str, tuple]:
    """Median wall time, last output and every round's wall time of every probe, running each once per round
    for ``repeat`` rounds."""
    walls: dict[str, list[float]] = {name: [] for name in probes}
    outs: dict[str, str] = {}
    for r in range(repeat):
        for name, (cmd, before) in probes.items():
            wall, outs[name] = run_once(cmd, env, before)
            walls[name].append(wall)
        print(f"round {r + 1}/{repeat}", file=sys.stderr, flush=True)
    return {name: (statistics.median(w), outs[name], w) for name, w in walls.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default=None, help="samsa executable of the installation to compare with")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="runtime_speed.json", help="result file name under benchmarks/results/")
    args = ap.parse_args()
    samsa = samsa_executable()
    if not compile_checkout():
        raise SystemExit("could not compile this checkout's modules")
    tmp = Path(tempfile.mkdtemp(prefix="samsa-speed-"))
    src, systems = HSPLIT_SOURCES, HSPLIT_SYSTEMS
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
                                  + " ".join(sys.argv[1:]), "checkout_bytecode_compiled": True}  # fmt: skip
    warm = tmp / "warm.sqlite"
    probes: dict[str, tuple[list[str], object]] = {}

    def one_line(full: list[str]) -> list[str]:
        small = list(full)
        small[small.index("--source") + 1] = str(one / "src.txt")
        return small[: small.index("--system") + 1] + [str(p) for p in one_sys] + small[small.index("--system") + 5 :]

    # the warm rate again over ten times the input (the same sentences, so the same cache entries): a warm
    # HSplit run does ~0.3 s of work between two ~0.6 s start-ups, too little to time alone
    src10 = tmp / "src10.txt"
    systems10 = [tmp / f"sys10_{k}.txt" for k in range(len(systems))]
    for repeated, original in zip([src10, *systems10], [src, *systems], strict=True):
        repeated.write_text("".join(line + "\n" for line in original.read_text(encoding="utf-8").splitlines()) * TIMES,
                            encoding="utf-8")  # fmt: skip

    configs: dict[str, tuple[list[str], object]] = {}
    base_cold, base_warm = tmp / "b.sqlite", tmp / "bwarm.sqlite"

    def clear_baseline() -> None:
        for p in tmp.glob("b.sqlite*"):
            p.unlink()

    if args.baseline:
        configs["baseline"] = (cmd(args.baseline, src, systems, "--quiet", "--no-cache"), None)
        for kind, path, before in (("cold", base_cold, clear_baseline), ("warm", base_warm, None)):
            extra = ("--quiet", "--cache", str(path), "--jobs", "2")
            configs[f"baseline_{kind}_jobs2"] = (cmd(args.baseline, src, systems, *extra), before)
    for kind, path, before in (("cold", cache, clear), ("warm", warm, None)):
        for jobs in ("1", "2"):
            extra = ("--quiet", "--cache", str(path), "--jobs", jobs)
            configs[f"{kind}_jobs{jobs}"] = (cmd(samsa, src, systems, *extra), before)
            if kind == "warm":
                configs[f"warm_x{TIMES}_jobs{jobs}"] = (cmd(samsa, src10, systems10, *extra), before)
    for name, (full, before) in configs.items():
        probes[name] = (full, before)
        if not name.startswith(f"warm_x{TIMES}"):  # its one-line run is warm_jobsN's, the same command
            probes[f"{name}:one"] = (one_line(full), before)
    gold = [samsa, "score", "--ucca", str(gold_one), "--system", str(tmp / "gold_sys.txt"), "--quiet"]
    parsed = cmd(samsa, one / "src.txt", [one / "sys0.txt"], "--quiet", "--no-cache")
    probes["startup_gold"] = (gold, None)
    probes["startup_parser"] = (parsed, None)
    if args.baseline:
        probes["baseline_startup_gold"] = ([args.baseline, *gold[1:]], None)
        probes["baseline_startup_parser"] = ([args.baseline, *parsed[1:]], None)  # --no-cache kept
    # the warm cache: filled once (the full input and the one-line input), then only read
    for jobs in ("1", "2"):
        for name in (f"warm_jobs{jobs}", f"warm_jobs{jobs}:one", f"warm_x{TIMES}_jobs{jobs}"):
            run_once(probes[name][0], env)
    for name in ("baseline_warm_jobs2", "baseline_warm_jobs2:one"):
        if name in probes:
            run_once(probes[name][0], env)
    timings = in_rounds(probes, env, args.repeat)
    outputs = {}
    for name in configs:
        wall, out, rounds = timings[name]
        start, _, start_rounds = timings[f"{name.replace(f'_x{TIMES}', '')}:one"]
        outputs[name] = [(r["samsa"], r["samsa_abl"]) for r in json.loads(out)]
        row = {"wall_s": round(wall, 2), "startup_s": round(start, 2)}
        lines = n * TIMES if name.startswith(f"warm_x{TIMES}") else n
        if "warm" not in name:
            row["sources_per_s_excl_startup"] = round((lines - 1) / max(wall - start, 1e-9), 1)
        row["pairs_per_s_excl_startup"] = round(4 * (lines - 1) / max(wall - start, 1e-9), 1)
        # every round, so that a reader sees how far this VM's spells move one command
        row["wall_s_per_round"] = [round(w, 2) for w in rounds]
        row["startup_s_per_round"] = [round(w, 2) for w in start_rounds]
        results[name] = row
        print(name, row, file=sys.stderr, flush=True)
    results["startup_gold_one_line_s"] = round(timings["startup_gold"][0], 2)
    results["startup_parser_one_line_s"] = round(timings["startup_parser"][0], 2)
    baseline_signature = None
    if args.baseline:
        baseline_signature = json.loads(timings["baseline"][1])[0]["signature"]
        results["baseline_startup_gold_one_line_s"] = round(timings["baseline_startup_gold"][0], 2)
        results["baseline_startup_parser_one_line_s"] = round(timings["baseline_startup_parser"][0], 2)
        results["speedup_cold_jobs2_vs_baseline"] = round(
            results["baseline"]["wall_s"] / results["cold_jobs2"]["wall_s"], 2)  # type: ignore[index]  # fmt: skip
        for kind in ("cold", "warm"):  # the same command, --jobs 2, of both: this checkout's time over the baseline's
            results[f"{kind}_jobs2_over_baseline"] = round(
                results[f"{kind}_jobs2"]["wall_s"] / results[f"baseline_{kind}_jobs2"]["wall_s"], 2)  # type: ignore[index]  # fmt: skip
    ours = {k: v for k, v in outputs.items() if not k.startswith(("baseline", f"warm_x{TIMES}"))}
    results["same_scores_in_every_configuration"] = len({json.dumps(v) for v in ours.values()}) == 1
    # the repeated input's means are the same numbers, summed in another order
    results[f"warm_x{TIMES}_same_scores_to_1e-9"] = all(
        math.isclose(a, b, rel_tol=0, abs_tol=1e-9)
        for k in (f"warm_x{TIMES}_jobs1", f"warm_x{TIMES}_jobs2")
        for pair, ref in zip(outputs[k], outputs["warm_jobs1"], strict=True)
        for a, b in zip(pair, ref, strict=True)
    )
    results["scores"] = outputs["cold_jobs2"]
    if "baseline" in outputs:  # the same only when both run the same parser decoding (see docs/BENCHMARKS.md)
        results["baseline_scores"] = outputs["baseline"]
        results["baseline_signature"] = baseline_signature
    shutil.rmtree(tmp, ignore_errors=True)
    print(write_json(args.out, results))


if __name__ == "__main__":
    main()
