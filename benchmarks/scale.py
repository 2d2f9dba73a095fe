"""Memory and rate of ``samsa score`` on a 100,000-line corpus, with gold UCCA and with the built-in parser.

The corpus repeats real passages (EWT dev, Wiki dev, 20K test) up to N lines:
gold mode links N XML files into one directory (``--ucca``); parser mode writes
their sentences as raw text (``--source``, ``--no-cache`` so every line is parsed).
The system output is the source text itself. ``samsa score`` runs as a child
process whose stderr is a pseudo-terminal, so its progress bar is drawn as a user
would see it; RSS of the whole process tree is sampled every 0.2 s.

    python benchmarks/scale.py --mode gold --lines 100000 --jobs 1
    python benchmarks/scale.py --mode parser --lines 100000 --jobs 2

Each run writes benchmarks/results/scale_<mode>_<lines>.json (docs/BENCHMARKS.md quotes them).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

from samsa.graph import tokens
from samsa.ucca_xml import list_passage_files, load_passage

CORPORA = ("ewt/dev", "wiki/dev", "20k/test")


def tree_rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants (kB), from /proc."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                total += next((int(x.split()[1]) for x in fh if x.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def build(tmp: Path, mode: str, n: int) -> list[str]:
    files = [f for c in CORPORA for f in list_passage_files(DATA / "ucca" / c)]
    texts = [" ".join(tokens(load_passage(f))) for f in files]
    system = tmp / "system.txt"
    system.write_text("".join(texts[k % len(texts)] + "\n" for k in range(n)), encoding="utf-8")
    if mode == "gold":
        gold = tmp / "gold"
        gold.mkdir()
        for k in range(n):
            (gold / f"{k + 1}.xml").symlink_to(files[k % len(files)])
        return ["--ucca", str(gold), "--system", str(system), "--tokenizer", "none"]
    return ["--source", str(system), "--system", str(system), "--tokenizer", "none", "--no-cache"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=("gold", "parser"), required=True)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        argv = build(Path(tmp), args.mode, args.lines)
        cmd = [sys.executable, "-m", "samsa", "score", *argv, "--jobs", str(args.jobs), "--json"]
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, text=True)
        os.close(slave)
        samples: list[tuple[float, int]] = []
        progress = b""
        os.set_blocking(master, False)
        while proc.poll() is None:
            samples.append((round(time.perf_counter() - start, 1), tree_rss_kb(proc.pid)))
            try:
                progress += os.read(master, 65536)
            except (BlockingIOError, OSError):
                pass
            time.sleep(0.2)
        seconds = time.perf_counter() - start
        out = proc.stdout.read() if proc.stdout else ""
        os.close(master)
    updates = re.findall(rb"samsa:\s+\d+%\|[^\r]*?(\d+)/(\d+)", progress)
    peak = max(r for _, r in samples)
    quantiles = (0.1, 0.5, 0.9)
    result = {
        "command": "python " + " ".join(sys.argv),
        "mode": args.mode,
        "lines": args.lines,
        "jobs": args.jobs,
        "exit_code": proc.returncode,
        "seconds": round(seconds, 1),
        "lines_per_second": round(args.lines / seconds, 1),
        "peak_rss_mb_process_tree": round(peak / 1024, 1),
        "rss_mb_at_10_50_90_percent_of_run": [round(samples[int(len(samples) * q)][1] / 1024, 1) for q in quantiles],
        "progress_bar_updates_seen": len(updates),
        "last_progress": updates[-1][0].decode() + "/" + updates[-1][1].decode() if updates else None,
        "samsa": json.loads(out)["samsa"] if proc.returncode == 0 else None,
    }
    print(result)
    write_json(f"scale_{args.mode}_{args.lines}.json", result)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
