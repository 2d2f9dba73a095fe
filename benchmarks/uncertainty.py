"""Parse uncertainty on the test sets, as shipped (the calibration in the parser's weights table, fitted on the
dev sets by ``lab.uncertainty``): calibration of the Scene-count distribution, coverage of the per-sentence and
corpus intervals on the validity battery, the annotation curve, and what ``--parse-uncertainty`` costs.

    python benchmarks/uncertainty.py                       # Wiki test and 20K test (fast), German-20K test (de)
    python benchmarks/uncertainty.py --sets wiki/test --no-speed

For each set (the pipeline's trees of the gold tokens, seed 0):

* calibration: the expected calibration error (10 bins) of the most probable Scene count's probability against
  whether it is the annotators' count; the log-loss of the gold count, beside that of the one-best point mass
  smoothed by the dev accuracy (the table's ``dev.one_best_accuracy``);
* coverage: the share of (sentence, output) pairs of the battery whose manual SAMSA lies in the per-sentence 90%
  interval, and per output whether the manual corpus mean lies in the 95% corpus parse interval;
* the annotation curve: the mean absolute difference between one-best and manual corpus SAMSA over the battery
  outputs after replacing 0-30% of the lines with their manual annotation, chosen as ``--suggest-annotation``
  chooses them, at random (mean of 5 seeds), and by an oracle that knows each line's error (the ceiling).

Speed: ``samsa score`` of HSplit's four systems from raw text (no cache, one process), with and without
``--parse-uncertainty``, alternated in the same run, and the same on a warm parse cache; then ``samsa report``
of the same (``-t hsplit``, no cache), with ``--no-parse-uncertainty`` and as it runs by default (trees drawn),
alternated too, and with ``--baseline EXE`` that installation's default report beside them. ``--speed-only``
re-times and keeps the sets' figures already in the file. Writes ``benchmarks/results/uncertainty.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, HSPLIT_SOURCES, HSPLIT_SYSTEMS, RESULTS, samsa_executable, write_json

from lab.uncertainty import draw_set, load_sets, measure, point_log_loss
from samsa.engine.uncertainty import CALIBRATION_FILE, parser_calibration
from samsa.parsers.builtin import BuiltinParser

SETS = {"wiki/test": "fast", "20k/test": "fast", "de20k/test": "de"}


def one_set(name: str, pipeline: str) -> dict[str, Any]:
    parser = BuiltinParser(pipeline=pipeline, style="ewt" if name.startswith("ewt") else "wiki")
    cal = parser_calibration(parser)
    table = json.loads((parser.weights.parent / CALIBRATION_FILE).read_text(encoding="utf-8"))
    dev_accuracy = table[parser.weights.name]["dev_one_best_accuracy"]
    gold = load_sets(str(DATA), [name])[name]
    start = time.perf_counter()
    drawn = draw_set(parser, gold, cal)
    seconds = time.perf_counter() - start
    out = measure(drawn, cal)
    out["point_log_loss"] = round(point_log_loss(drawn, dev_accuracy), 4)
    out["dev_one_best_accuracy"] = dev_accuracy
    out["pipeline"] = pipeline
    out["calibration"] = cal.signature()
    out["sentences"] = len(gold)
    out["parse_seconds"] = round(seconds, 2)
    return out


def alternated(commands: dict[str, list[str]], repeat: int) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Each command's wall times over ``repeat`` rounds (the commands alternated within a round), and its last
    standard output."""
    walls: dict[str, list[float]] = {name: [] for name in commands}
    outs: dict[str, str] = {}
    for _ in range(repeat):
        for name, argv in commands.items():
            start = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, check=True)
            walls[name].append(time.perf_counter() - start)
            outs[name] = done.stdout
    return walls, outs


def timing(walls: dict[str, list[float]]) -> dict[str, Any]:
    """Medians and rounds, in seconds."""
    return {
        "seconds": {k: round(statistics.median(v), 2) for k, v in walls.items()},
        "rounds": {k: [round(x, 2) for x in v] for k, v in walls.items()},
    }


def speed(repeat: int) -> dict[str, Any]:
    exe = samsa_executable()
    base = [exe, "score", "--source", str(HSPLIT_SOURCES), "--system", *map(str, HSPLIT_SYSTEMS), "--tokenizer",
            "none", "--no-cache", "-q", "--json"]  # fmt: skip
    walls, stdout = alternated({"one_best": base, "parse_uncertainty": [*base, "--parse-uncertainty"]}, repeat)
    outs = {k: json.loads(v) for k, v in stdout.items()}
    same = [a["samsa"] == b["samsa"] and a["signature"] == b["signature"]
            for a, b in zip(outs["one_best"], outs["parse_uncertainty"], strict=True)]  # fmt: skip
    t = timing(walls)
    with tempfile.TemporaryDirectory() as tmp:  # a warm cache: the one-best parses and the drawn trees in it
        warm = [*base[: base.index("--no-cache")], "--cache", str(Path(tmp) / "c.sqlite"), *base[base.index("-q") :]]
        subprocess.run([*warm, "--parse-uncertainty"], capture_output=True, check=True)
        warm_walls, _ = alternated({"one_best": warm, "parse_uncertainty": [*warm, "--parse-uncertainty"]}, repeat)
    w = timing(warm_walls)
    return {
        "command": " ".join(base[1:]),
        **t,
        "ratio": round(t["seconds"]["parse_uncertainty"] / t["seconds"]["one_best"], 2),
        "warm_cache": {**w, "ratio": round(w["seconds"]["parse_uncertainty"] / w["seconds"]["one_best"], 2)},
        "one_best_scores_and_signatures_unchanged": all(same),
        "parse_intervals": [o["parse_interval"] for o in outs["parse_uncertainty"]],
    }


def report_speed(repeat: int, baseline: str | None) -> dict[str, Any]:
    """``samsa report`` on HSplit's four systems: without the parse doubt and with it (the default), cold (no
    cache) and warm (each installation its own cache, filled first), in one process and with ``--jobs 2``; with
    ``--baseline EXE`` that installation's default report beside them."""
    args = ["report", "-t", "hsplit", *map(str, HSPLIT_SYSTEMS), "-q", "-o"]
    with tempfile.TemporaryDirectory() as tmp:
        page = str(Path(tmp) / "r.html")
        exes = {"": samsa_executable(), **({"baseline_": baseline} if baseline else {})}
        commands: dict[str, list[str]] = {
            "no_parse_uncertainty": [samsa_executable(), *args, page, "--no-cache", "--no-parse-uncertainty"]
        }
        for prefix, exe in exes.items():
            cache = str(Path(tmp) / f"{prefix}cache.sqlite")
            subprocess.run([exe, *args, page, "--cache", cache], capture_output=True, check=True)
            commands[f"{prefix}parse_uncertainty"] = [exe, *args, page, "--no-cache"]
            commands[f"{prefix}parse_uncertainty_jobs2"] = [exe, *args, page, "--no-cache", "--jobs", "2"]
            commands[f"{prefix}warm"] = [exe, *args, page, "--cache", cache]
            commands[f"{prefix}warm_jobs2"] = [exe, *args, page, "--cache", cache, "--jobs", "2"]
        walls, _ = alternated(commands, repeat)
    t = timing(walls)
    sec = t["seconds"]
    return {
        "command": " ".join(args) + " FILE",
        **t,
        "ratio": round(sec["parse_uncertainty"] / sec["no_parse_uncertainty"], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=list(SETS), help="gold sets (default: %(default)s)")
    ap.add_argument("--no-speed", action="store_true", help="skip the HSplit timings")
    ap.add_argument("--speed-only", action="store_true", help="only the HSplit timings (the sets' figures kept)")
    ap.add_argument("--baseline", metavar="EXE", help="samsa executable of a previous revision: its report timed too")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="uncertainty.json")
    args = ap.parse_args()
    result: dict[str, Any] = {"command": "python benchmarks/uncertainty.py " + " ".join(sys.argv[1:]), "sets": {}}
    if args.speed_only:
        result = json.loads((RESULTS / args.out).read_text(encoding="utf-8"))
    for name in [] if args.speed_only else args.sets:
        result["sets"][name] = one_set(name, SETS.get(name, "fast"))
        r = result["sets"][name]
        print(f"{name}: ECE {r['ece']:.3f}, log-loss {r['log_loss']:.3f} (point {r['point_log_loss']:.3f}), "
              f"coverage {r['sentence_coverage']:.3f}, corpus inside {r['corpus_inside']}/9, "
              f"curve {r['curve']}", file=sys.stderr, flush=True)  # fmt: skip
    if not args.no_speed:
        result["timed_by"] = "python benchmarks/uncertainty.py " + " ".join(sys.argv[1:])
        result["speed"] = speed(args.repeat)
        sp = result["speed"]
        print(f"speed: {sp['seconds']} ratio {sp['ratio']}; warm {sp['warm_cache']['seconds']}", file=sys.stderr)
        result["report_speed"] = report_speed(args.repeat, args.baseline)
        rs = result["report_speed"]
        print(f"report: {rs['seconds']} ratio {rs['ratio']}", file=sys.stderr)
    print(write_json(args.out, result))


if __name__ == "__main__":
    main()
