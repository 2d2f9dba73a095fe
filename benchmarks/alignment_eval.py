"""Precision, recall, F1 and speed of the aligners on gold monolingual alignments ("sure" links).

Usage:
    python benchmarks/alignment_eval.py [--limit N]

Datasets (../shared/data/alignment): Edinburgh++ test (306 pairs), MSR RTE-2006
test (800), MultiMWA Wiki test (1,051). Scores are micro-averaged over links;
E is the share of pairs aligned exactly. Speed is pairs per second once every
sentence's spaCy annotation is cached (the cache is filled first and timed as
"annotate_s"): "first_pass_pairs_per_s" is the first alignment pass (word-similarity
caches cold), "pairs_per_s" a second pass over the same pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa import __version__
from samsa.registry import get_aligner

PPDB = DATA / "ppdb" / "ppdb-1.0-xxxl-lexical.extended.synonyms.uniquepairs"
DATASETS = {
    "edinburgh_test": (DATA / "alignment" / "edinburgh" / "sure_test.txt", "plain"),
    "msr_test": (DATA / "alignment" / "RTE-2006-Aligned" / "sure_test.txt", "plain"),
    "multimwa_wiki_test": (DATA / "alignment" / "MultiMWA" / "MultiMWA-Wiki" / "wiki-test.tsv", "multimwa"),
}
ALIGNERS = {
    "exact": ("exact", {}),
    "lemma": ("lemma", {}),
    "sultan": ("sultan", {}),
    "sultan+ppdb": ("sultan", {"ppdb": str(PPDB)}),
    "sultan+ppdb-fixed": ("sultan", {"ppdb": str(PPDB), "faithful_bugs": False}),
}


def links(field: str) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in (x.split("-") for x in field.split())}


def load(path: Path, kind: str) -> list[tuple[list[str], list[str], set[tuple[int, int]]]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        f = line.split("\t")
        if kind == "plain":
            rows.append((f[0].split(), f[1].split(), links(f[2]) if len(f) > 2 else set()))
        else:  # MultiMWA: id, s1, _, s2, _, _, _, sure, possible
            rows.append((f[1].split(), f[3].split(), links(f[7])))
    return rows


def score(pred: list[set[tuple[int, int]]], gold: list[set[tuple[int, int]]]) -> dict[str, float]:
    tp = sum(len(p & g) for p, g in zip(pred, gold, strict=True))
    n_pred, n_gold = sum(map(len, pred)), sum(map(len, gold))
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    e = sum(1 for a, b in zip(pred, gold, strict=True) if a == b) / len(gold)
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4), "exact": round(e, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="only the first N pairs of each set")
    args = ap.parse_args()
    results: dict[str, object] = {"version": __version__, "sets": {}}
    for set_name, (path, kind) in DATASETS.items():
        rows = load(path, kind)[: args.limit]
        pairs = [(s, t) for s, t, _ in rows]
        gold = [g for _, _, g in rows]
        block = {}
        for label, (name, opts) in ALIGNERS.items():
            aligner = get_aligner(name, **opts)
            start = time.perf_counter()
            if hasattr(aligner, "annotator"):
                aligner.annotator.annotate_many([x for p in pairs for x in p])
            annotate_s = time.perf_counter() - start
            start = time.perf_counter()
            pred = [set(aligner.align(s, t)) for s, t in pairs]
            cold = time.perf_counter() - start
            start = time.perf_counter()
            again = [set(aligner.align(s, t)) for s, t in pairs]
            warm = time.perf_counter() - start
            assert again == pred, "aligner is not deterministic"
            block[label] = {**score(pred, gold), "pairs": len(pairs), "annotate_s": round(annotate_s, 2),
                            "first_pass_pairs_per_s": round(len(pairs) / cold, 1),
                            "pairs_per_s": round(len(pairs) / warm, 1), "signature": aligner.signature()}  # fmt: skip
            print(set_name, label, json.dumps(block[label]), flush=True)
        results["sets"][set_name] = block  # type: ignore[index]
    write_json("alignment_eval.json", results)


if __name__ == "__main__":
    main()
