"""Time `samsa score` on 1,000 gold UCCA sentences with the exact aligner (CPU).

Usage:
    python benchmarks/samsa_speed.py [--n 1000] [--compat paper] [--out benchmarks/results/samsa_speed.json]

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

DATA = Path(os.environ.get("SAMSA_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


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


def cli() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--compat", default="paper", choices=["paper", "easse"])
    ap.add_argument("--out", default="benchmarks/results/samsa_speed.json")
    args = ap.parse_args()
    result = run(args.n, args.compat)
    text = json.dumps(result, indent=2)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    cli()
