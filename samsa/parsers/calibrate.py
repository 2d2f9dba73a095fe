"""Calibrate the built-in parser's Scene count on the dev sets (the second step after ``samsa.parsers.train``).

Usage:
    python -m samsa.parsers.calibrate --data ../shared/data --weights parsers/builtin/weights/ucca-span-v2-scenes.npz

The span classifier finds fewer Scenes than the annotators (on the dev sets,
`fast`'s weights 93% of them), and SAMSA is most
sensitive to exactly that: an output with more sentences than the source has Scenes
scores 0. Decoding can add a bias to
the log-probability of the main-relation labels (P/S). This step decodes
``ucca/wiki/dev`` + ``ucca/ewt/dev`` with each bias of a grid and stores in the
weights file the smallest one with which the parser predicts at least as many
Scenes as the gold annotation has, with the whole grid (Scene counts, scene-unit
F1, labeled F1) for the record. ``BuiltinParser(scene_bias=0)`` turns it off.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from samsa.parsers.builtin import BuiltinParser
from samsa.parsers.builtin.decode import decode_batch
from samsa.parsers.builtin.features import featurize
from samsa.parsers.builtin.runtime import update_meta
from samsa.parsers.corpora import DEV, data_hash, load, styles_of
from samsa.ucca.evaluation import evaluate_corpus, scene_scores
from samsa.ucca.graph import tokens
from samsa.ucca.queries import scenes

GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def evaluate_bias(parser: BuiltinParser, feats, sentences, gold, bias: float) -> dict[str, float]:
    pred = decode_batch(parser.net, parser.vocab, feats, sentences, scene_bias=bias)
    pairs = list(zip(pred, gold, strict=True))
    labeled = evaluate_corpus(pairs).to_dict()["labeled"]
    row = {
        "scene_bias": bias,
        "scenes": sum(len(scenes(g)) for g in pred),
        "gold_scenes": sum(len(scenes(g)) for g in gold),
        "scene_f1": round(scene_scores(pairs)["scene_f1"], 4),
        "primary_f1": round(labeled["primary"]["f1"], 4),
        "pooled_f1": round(labeled["pooled"]["f1"], 4),
    }
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--weights", default="parsers/builtin/weights/ucca-span-v2-scenes.npz")
    ap.add_argument("--pipeline", default="fast", help="decode as this pipeline (fast, accurate; default: %(default)s)")
    args = ap.parse_args(argv)
    weights = Path(args.weights)
    parser = BuiltinParser(weights=weights, pipeline=args.pipeline)
    dev_files, gold, sentences, feats = [], [], [], []
    for d in DEV:  # annotate once, decode with every bias; v3 weights read the guideline style of each corpus
        files, graphs = load([Path(args.data) / d], None)
        toks = [tokens(g) for g in graphs]
        style = styles_of(files)[0] if parser.net.styles and files else 0
        dev_files += files
        gold += graphs
        sentences += toks
        feats += featurize(parser.nlp, parser.vocab, toks, encoder=parser.encoder, style=style)
    grid = [evaluate_bias(parser, feats, sentences, gold, bias) for bias in GRID]
    gold_scenes = grid[0]["gold_scenes"]
    chosen = next((row["scene_bias"] for row in grid if row["scenes"] >= gold_scenes), GRID[-1])
    decode = {
        "scene_bias": chosen,
        "command": "python -m samsa.parsers.calibrate " + " ".join(sys.argv[1:] if argv is None else argv),
        "dev_sha256": data_hash(dev_files),
        "grid": grid,
    }
    update_meta(weights, decode=decode)
    print(f"scene_bias {chosen} written to {weights}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
