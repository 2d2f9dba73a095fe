"""What the built-in parser's span-tree projection loses: gold -> spans -> graph, evaluated.

Usage:
    python benchmarks/tree_oracle.py

Labeled primary and pooled F1 (percent) and scene-unit F1 of the round trip on
Wiki dev, 20K test and EWT dev (docs/parser.md); then the same with the gold
remote edges put back through the parser's remote-edge candidates (every
(Scene, unit) pair given its gold label): what the remote classifier could
reach at best.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa.parsers.builtin.remotes import oracle_remotes
from samsa.parsers.builtin.tree import graph_to_spans, spans_to_graph
from samsa.ucca_eval import evaluate_corpus, scene_scores
from samsa.ucca_xml import list_passage_files, load_passage


def with_gold_remotes(gold):
    tree = spans_to_graph(*graph_to_spans(gold))
    oracle_remotes(gold, tree)
    return tree


def main() -> None:
    result = {}
    for corpus in ("wiki/dev", "20k/test", "ewt/dev"):
        gold = [load_passage(f) for f in list_passage_files(DATA / "ucca" / corpus)]
        pairs = [(spans_to_graph(*graph_to_spans(g)), g) for g in gold]
        s = evaluate_corpus(pairs).to_dict()["labeled"]
        result[corpus] = {"primary": round(100 * s["primary"]["f1"], 2), "pooled": round(100 * s["pooled"]["f1"], 2),
                          "scene_f1": round(100 * scene_scores(pairs)["scene_f1"], 2)}  # fmt: skip
        s = evaluate_corpus([(with_gold_remotes(g), g) for g in gold]).to_dict()["labeled"]
        result[corpus]["with_gold_remotes"] = {c: round(100 * s[c]["f1"], 2) for c in ("primary", "remote", "pooled")}
        print(corpus, result[corpus], flush=True)
    write_json("tree_oracle.json", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
