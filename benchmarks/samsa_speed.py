"""Time `samsa score` on 1,000 gold UCCA sentences with the exact aligner (CPU).

Usage:
    python benchmarks/samsa_speed.py [--n 1000] [--compat paper] [--out benchmarks/results/samsa_speed.json]
    python benchmarks/samsa_speed.py --startup [--baseline-src DIR]  # adds the start-up figures to the same file

``--startup`` times ``python -m samsa`` (the ``samsa`` executable's code) in this virtualenv on three one-line
jobs (``--help``, ``score`` on one gold XML file, ``score`` parsing one sentence without the cache), the
median of ``--repeat`` runs taken in rounds (every configuration once per round), with all of the start-up
steps (``samsa.startup``), with each left out (``SAMSA_STARTUP_OFF``), and with none. ``--baseline-src DIR``
adds another revision's source tree (``git worktree add DIR REV``), run the same way with its ``samsa``
package first on ``PYTHONPATH``: the before and after of a change, measured side by side.

The first N files of ../shared/data/ucca/wiki/train (natural order) are copied
into a temporary directory; the system output is each source sentence with its
scenes as separate sentences (a realistic split). The timed part is exactly
what the CLI does: read the XML files, split and tokenize the outputs, align,
score, write the per-sentence JSONL.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from samsa import __version__
from samsa.cli import main
from samsa.ucca.queries import scenes, unit_terminals
from samsa.ucca.xml import list_passage_files, load_passage

DATA = Path(os.environ.get("SAMSA_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def split_output(path: Path) -> str:
    g = load_passage(path)
    parts = [" ".join(g.nodes[t]["text"] for t in unit_terminals(g, s)) for s in scenes(g)]
    return " <::::> ".join(parts) or "nothing"


def run(n: int, compat: str) -> dict[str, object]:
    files = list_passage_files(DATA / "ucca" / "wiki" / "train")[:n]
    with tempfile.TemporaryDirectory() as tmp:
        gold = Path(tmp) / "gold"
        gold.mkdir()
        for i, f in enumerate(files, 1):
            shutil.copy(f, gold / f"{i:05d}.xml")
        system = Path(tmp) / "system.txt"
        system.write_text("\n".join(split_output(f) for f in files) + "\n", encoding="utf-8")
        argv = [
            "score",
            "--ucca",
            str(gold),
            "--system",
            str(system),
            "--aligner",
            "exact",
            "--compat",
            compat,
            "--tokenizer",
            "none",
            "--sentence-separator",
            "<::::>",
            "--per-sentence",
            str(Path(tmp) / "o.jsonl"),
            "--json",
            "--quiet",
        ]
        start = time.perf_counter()
        rc = main(argv)
        seconds = time.perf_counter() - start
    assert rc == 0
    return {
        "benchmark": "samsa_speed",
        "sentences": len(files),
        "compat": compat,
        "aligner": "exact.v1",
        "seconds": round(seconds, 3),
        "sentences_per_second": round(len(files) / seconds, 1),
        "version": __version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }


STARTUP_CONFIGS = {"all steps": "", "without networkx": "networkx", "without torch": "torch",
                   "without allocator": "allocator", "no step": "all"}  # fmt: skip


def startup(repeat: int, baseline_src: str | None = None) -> dict[str, object]:
    import statistics
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    exe = [sys.executable, "-m", "samsa"]
    with tempfile.TemporaryDirectory() as tmp:
        gold = Path(tmp) / "gold"
        gold.mkdir()
        shutil.copy(root / "fixtures/ucca/paper/1_john_home_call.xml", gold / "1.xml")
        out = Path(tmp) / "out.txt"
        out.write_text("John got home. John gave Mary a call.\n", encoding="utf-8")
        src = Path(tmp) / "src.txt"
        src.write_text("John got home and gave Mary a call.\n", encoding="utf-8")
        jobs = {"help": [*exe, "--help"], "score_gold_one_line": [*exe, "score", "--ucca", str(gold), str(out)],
                "score_parser_one_line": [*exe, "score", "--source", str(src), str(out), "--no-cache"]}  # fmt: skip
        base = {k: v for k, v in os.environ.items() if k not in ("SAMSA_STARTUP_OFF", "PYTHONPATH")}
        envs = {config: {**base, "SAMSA_STARTUP_OFF": off} for config, off in STARTUP_CONFIGS.items()}
        if baseline_src:
            envs["baseline"] = {**base, "PYTHONPATH": str(Path(baseline_src).resolve())}
        for env in envs.values():  # bytecode compiled, page cache warm
            for argv in jobs.values():
                subprocess.run(argv, env=env, check=True, capture_output=True)
        times: dict[tuple[str, str], list[float]] = {(c, n): [] for c in envs for n in jobs}
        for _ in range(repeat):
            for config, env in envs.items():
                for name, argv in jobs.items():
                    start = time.perf_counter()
                    subprocess.run(argv, env=env, check=True, capture_output=True)
                    times[config, name].append(time.perf_counter() - start)
        table = {c: {n: round(statistics.median(times[c, n]), 3) for n in jobs} for c in envs}
        print(json.dumps(table, indent=1), flush=True)
    try:
        import torch  # noqa: F401

        torch_installed = True
    except ImportError:
        torch_installed = False
    out: dict[str, object] = {"repeat": repeat, "torch_installed": torch_installed, "seconds": table}
    if baseline_src:
        revision = subprocess.run(["git", "-C", baseline_src, "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True).stdout.strip()  # fmt: skip
        out["baseline_revision"] = revision or None
    return out


def cli() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--compat", default="paper", choices=["paper", "easse"])
    ap.add_argument("--out", default="benchmarks/results/samsa_speed.json")
    ap.add_argument("--startup", action="store_true", help="time the executable's start-up steps instead")
    ap.add_argument("--repeat", type=int, default=7, help="--startup: runs per figure (default: %(default)s)")
    ap.add_argument(
        "--baseline-src",
        default=None,
        metavar="DIR",
        help="--startup: also time another revision's source tree (git worktree add DIR REV)",
    )
    args = ap.parse_args()
    if args.startup:
        result = json.loads(Path(args.out).read_text()) if Path(args.out).is_file() else {}
        result["startup"] = startup(args.repeat, args.baseline_src)
        baseline = f" --baseline-src {args.baseline_src}" if args.baseline_src else ""
        result["startup"]["command"] = f"python benchmarks/samsa_speed.py --startup --repeat {args.repeat}{baseline}"
    else:
        kept = json.loads(Path(args.out).read_text()).get("startup") if Path(args.out).is_file() else None
        result = run(args.n, args.compat)
        if kept:
            result["startup"] = kept
    text = json.dumps(result, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    cli()
