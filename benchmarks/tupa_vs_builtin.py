"""TUPA (through the ``tupa`` plugin) and the built-in parser side by side on the same test sentences.

For each test set (Wiki test, 20K test; gold tokens, one sentence per line) each
parser runs as ``samsa parse --parser P --tokenizer none --no-cache`` in a child
process (RSS of the whole process tree sampled, TUPA's own process included),
then its XML is scored against the gold passages with samsa's UCCA evaluation
(normalization off): labeled F1 primary / remote / pooled, scene-unit F1,
sentences per second and peak memory, all from one run of this script.

    SAMSA_TUPA_PYTHON=/path/to/tupa-venv/bin/python SAMSA_TUPA_MODEL=/path/to/models/ucca-sparse \\
        python benchmarks/tupa_vs_builtin.py --json benchmarks/results/tupa_vs_builtin.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA
from scale import tree_rss_kb

from samsa.graph import tokens
from samsa.ucca_eval import evaluate_corpus, scene_scores
from samsa.ucca_xml import list_passage_files, load_passage

SETS = {"wiki": "ucca/wiki/test", "20k": "ucca/20k/test"}


def run_parser(parser: str, sentences: Path, out: Path) -> dict[str, float]:
    cmd = [sys.executable, "-m", "samsa", "parse", "--input", str(sentences), "--output-dir", str(out),
           "--parser", parser, "--tokenizer", "none", "--no-cache", "--quiet"]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_kb(proc.pid))
        time.sleep(0.2)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{parser} failed: {proc.stderr.read() if proc.stderr else ''}")
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(peak / 1024, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parsers", nargs="+", default=["builtin", "tupa"])
    ap.add_argument("--limit", type=int, default=None, help="first N sentences of each set (smoke runs)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    results: dict[str, dict[str, dict[str, object]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, rel in SETS.items():
            files = list_passage_files(DATA / rel)[: args.limit]
            gold = [load_passage(f) for f in files]
            sentences = Path(tmp) / f"{name}.txt"
            sentences.write_text("".join(" ".join(tokens(g)) + "\n" for g in gold), encoding="utf-8")
            for parser in args.parsers:
                out = Path(tmp) / f"{name}-{parser}"
                timing = run_parser(parser, sentences, out)
                parsed = [load_passage(f) for f in list_passage_files(out)]
                pairs = list(zip(parsed, gold, strict=True))
                scores = evaluate_corpus(pairs).to_dict()
                scenes = scene_scores(pairs)
                results.setdefault(name, {})[parser] = {
                    "sentences": len(gold),
                    "labeled_f1": {
                        c: round(100 * scores["labeled"][c]["f1"], 1) for c in ("primary", "remote", "pooled")
                    },
                    "scene_f1": round(100 * scenes["scene_f1"], 1),
                    "sentences_per_second": round(len(gold) / timing["seconds"], 2),
                    **timing,
                }
                print(name, parser, results[name][parser], flush=True)
    signatures = {}
    for parser in args.parsers:
        from samsa.registry import get_parser

        signatures[parser] = get_parser(parser).signature()
    payload = {
        "command": "python " + " ".join(sys.argv),
        "tupa_python": os.environ.get("SAMSA_TUPA_PYTHON"),
        "tupa_model": os.environ.get("SAMSA_TUPA_MODEL"),
        "signatures": signatures,
        "normalization": "none",
        "results": results,
    }
    print(json.dumps(payload, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
