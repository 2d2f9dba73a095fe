"""Where the wall time of one cold ``samsa score --jobs N`` goes, phase by phase.

Usage:
    python benchmarks/runtime_timeline.py [--jobs 2] [--repeat 5]

The workload of ``benchmarks/runtime_speed.py`` (HSplit: the 359 TurkCorpus
sources, raw text, x the 4 HSplit references, exact aligner, a fresh parse
cache each run), run as the ``samsa`` executable runs it (``console()``), with
timestamps taken in the process and its pool's workers:

- ``interpreter_start``: from launching the process to its first line;
- ``imports``: importing ``samsa.cli``;
- ``to_parser_load``: reading the inputs and the cache, up to loading the parser;
- ``parser_load``: spaCy's import and pipeline and the parser's network, in the
  parent (before the pool forks);
- ``to_first_chunk``: forking the pool, until a worker starts its first chunk;
- ``parse_window``: from the first chunk's start to the last chunk's end;
  ``cores_busy`` is the workers' summed chunk time over ``jobs`` x that window
  (1.0: every core parsed all the time);
- ``after_last_chunk``: merging, writing the JSON, closing the pool, up to the
  command's last line;
- ``teardown``: from there to the process's end;
- ``parent_user_s``/``parent_sys_s``, ``workers_user_s``/``workers_sys_s``: CPU time of the
  process and of its pool's workers together, and their minor page faults.

Each round runs the command twice: as the executable runs it, and with glibc's
allocator left at its defaults (``samsa.cli.startup.tune_allocator`` not
called: ``allocator_default``), in alternating order. Medians over
``--repeat`` rounds. Writes ``benchmarks/results/runtime_timeline.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import HSPLIT_SOURCES, HSPLIT_SYSTEMS, write_json

#: the instrumented ``samsa``: timestamps (time.time()) appended to $TIMELINE by the process and its workers
PROBE = r"""
import os, sys, time
def mark(*event):
    with open(os.environ["TIMELINE"], "a") as f:
        f.write(" ".join([repr(time.time()), str(os.getpid()), *map(str, event)]) + "\n")
mark("start")
import samsa.cli
mark("imported")
if os.environ.get("DEFAULT_ALLOCATOR"):
    import samsa.cli.startup
    samsa.cli.startup.tune_allocator = lambda: False
import samsa.executors as ex
run, load = ex.Worker.run, ex._load_parser
def timed_run(self, items, want="none"):
    mark("chunk_start")
    try:
        return run(self, items, want)
    finally:
        mark("chunk_end")
def timed_load(job, first):
    mark("load_start")
    try:
        return load(job, first)
    finally:
        mark("load_end")
ex.Worker.run, ex._load_parser = timed_run, timed_load
import atexit, resource
def usage():
    for who, flag in (("parent", resource.RUSAGE_SELF), ("workers", resource.RUSAGE_CHILDREN)):
        r = resource.getrusage(flag)
        mark(f"{who}_usage", r.ru_utime, r.ru_stime, r.ru_minflt)
    mark("end")
atexit.register(usage)
sys.argv = ["samsa", *sys.argv[1:]]
samsa.cli.console()
"""


def phases(launched: float, ended: float, lines: list[str], jobs: int) -> dict[str, float]:
    """Phase durations (s) of one run from its timestamp lines."""
    events: dict[str, list[float]] = {}
    chunks: dict[str, list[float]] = {}
    usage: dict[str, float] = {}
    for line in lines:
        t, pid, name, *values = line.split()
        events.setdefault(name, []).append(float(t))
        if name.endswith("_usage"):
            who = name.removesuffix("_usage")
            usage.update({f"{who}_user_s": float(values[0]), f"{who}_sys_s": float(values[1]),
                          f"{who}_page_faults": float(values[2])})  # fmt: skip
        if name.startswith("chunk_"):
            chunks.setdefault(pid, []).append(float(t) if name == "chunk_end" else -float(t))
    first, last = min(events["chunk_start"]), max(events["chunk_end"])
    busy = sum(sum(v) for v in chunks.values())  # ends minus starts
    return {
        "interpreter_start": events["start"][0] - launched,
        "imports": events["imported"][0] - events["start"][0],
        "to_parser_load": events["load_start"][0] - events["imported"][0],
        "parser_load": events["load_end"][0] - events["load_start"][0],
        "to_first_chunk": first - events["load_end"][0],
        "parse_window": last - first,
        "cores_busy": busy / (jobs * (last - first)),
        "after_last_chunk": events["end"][0] - last,
        "teardown": ended - events["end"][0],
        "wall": ended - launched,
        **usage,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    src, systems = HSPLIT_SOURCES, [str(p) for p in HSPLIT_SYSTEMS]
    runs: dict[str, list[dict[str, float]]] = {"executable": [], "allocator_default": []}
    # glibc's own knobs in the environment would switch tune_allocator off in both configurations
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            order = list(runs) if k % 2 == 0 else list(reversed(runs))
            for config in order:
                log = Path(tmp) / f"timeline_{config}{k}.txt"
                cmd = [sys.executable, "-c", PROBE, "score", "--source", str(src), "--system", *systems,
                       "--tokenizer", "none", "--json", "--quiet", "--cache", f"{tmp}/cache_{config}{k}.sqlite",
                       "--jobs", str(args.jobs)]  # fmt: skip
                run_env = dict(env, TIMELINE=str(log))
                if config == "allocator_default":
                    run_env["DEFAULT_ALLOCATOR"] = "1"
                launched = time.time()
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=run_env, cwd=tmp)
                ended = time.time()
                runs[config].append(phases(launched, ended, log.read_text().splitlines(), args.jobs))
                print(k + 1, config, {name: round(v, 3) for name, v in runs[config][-1].items()}, file=sys.stderr,
                      flush=True)  # fmt: skip
    result: dict[str, object] = {
        "command": "python benchmarks/runtime_timeline.py " + " ".join(sys.argv[1:]),
        "jobs": args.jobs,
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
    }
    for config, rows in runs.items():
        prefix = "" if config == "executable" else f"{config}_"
        result[f"{prefix}median_s"] = {name: round(statistics.median(r[name] for r in rows), 3) for name in rows[0]}
        result[f"{prefix}runs"] = [{name: round(v, 3) for name, v in r.items()} for r in rows]
    print(write_json("runtime_timeline.json", result))


if __name__ == "__main__":
    main()
