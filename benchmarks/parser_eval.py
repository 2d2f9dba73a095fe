"""Evaluate the built-in UCCA parser on the Wiki, 20K and EWT test sets.

Usage:
    python benchmarks/parser_eval.py [--weights FILE] [--threads 2]

Gold tokens are given to the parser (as ``samsa parse --tokenizer none`` does).
Reported per set: labeled and unlabeled F1 (primary, remote, pooled average of
primary + remote, as in SemEval 2019) with the project's evaluator, scene-unit
F1, minimal-center accuracies, parse speed (sentences/s, model loaded, spaCy
annotation included) and peak memory. On 20K the ``ucca`` package's evaluator
(``normalize=False``) is run on the same pairs when it is installed, and every
count is compared. Each set is also decoded with the Scene bias
calibrated on dev (``parsers/calibrate.py``; ``calibrated_scene_bias``: F1 and
Scenes only, no timing).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa import __version__
from samsa.graph import tokens
from samsa.ucca_eval import evaluate_corpus, scene_scores
from samsa.ucca_xml import list_passage_files, load_passage

SETS = {"wiki_test": "ucca/wiki/test", "20k_test": "ucca/20k/test", "ewt_test": "ucca/ewt/test"}


def ucca_package_agrees(pairs) -> bool | None:
    try:
        from ucca.evaluation import evaluate
    except ImportError:
        return None
    from samsa.ucca_interop import to_ucca

    for pred, gold in pairs:
        ref = evaluate(to_ucca(pred), to_ucca(gold), normalize=False, constructions=("primary", "remote"))
        ours = evaluate_corpus([(pred, gold)])
        for t in ("labeled", "unlabeled"):
            for c, stats in ref[t].results.items():
                mine = ours.counts[t, str(c)]
                if (mine.guessed, mine.ref, mine.matches) != (stats.num_guessed, stats.num_ref, stats.num_matches):
                    return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weights", default=None)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    from parsers.builtin import BuiltinParser

    parser = BuiltinParser(weights=args.weights, threads=args.threads)
    biased = BuiltinParser(weights=args.weights, threads=args.threads, scene_bias=parser.calibrated_scene_bias)
    parser.parse([["Warm", "up", "."]])
    result: dict[str, object] = {"version": __version__, "weights": str(parser.weights), "meta": parser.meta,
                                 "scene_bias": parser.scene_bias, "sets": {}}  # fmt: skip
    for name, rel in SETS.items():
        gold = [load_passage(f) for f in list_passage_files(DATA / rel)]
        start = time.perf_counter()
        pred = parser.parse([tokens(g) for g in gold])
        secs = time.perf_counter() - start
        pairs = list(zip(pred, gold, strict=True))
        s = evaluate_corpus(pairs).to_dict()
        block = {
            "sentences": len(gold),
            "labeled": {c: round(100 * s["labeled"][c]["f1"], 2) for c in ("primary", "remote", "pooled")},
            "unlabeled": {c: round(100 * s["unlabeled"][c]["f1"], 2) for c in ("primary", "remote", "pooled")},
            "remote": {k: round(100 * s["labeled"]["remote"][k], 2) for k in ("p", "r")},
            "scenes": {k: round(v, 4) for k, v in scene_scores(pairs).items()},
            "sentences_per_s": round(len(gold) / secs, 1),
        }
        if biased.scene_bias:
            plain = list(zip(biased.parse([tokens(g) for g in gold]), gold, strict=True))
            p0 = evaluate_corpus(plain).to_dict()["labeled"]
            block["calibrated_scene_bias"] = {
                "labeled": {c: round(100 * p0[c]["f1"], 2) for c in ("primary", "remote", "pooled")},
                "scenes": {k: round(v, 4) for k, v in scene_scores(plain).items()},
            }
        if name == "20k_test":
            block["ucca_package_counts_equal"] = ucca_package_agrees(pairs)
        result["sets"][name] = block  # type: ignore[index]
        print(name, block, flush=True)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    write_json("parser_eval.json", result)
    print("peak RSS MB", result["peak_rss_mb"])


if __name__ == "__main__":
    main()
