"""What one main relation per Scene (``builtin.v3``'s decoding) changes against ``builtin.v2``'s, per pipeline.

Usage:
    python benchmarks/one_main_relation.py [--pipeline fast accurate] [--sets wiki_dev ewt_dev]
        [--resamples 1000] [--out one_main_relation.json]

Why: the span decoder sometimes gives one unit two main relations (P/S children), one Scene where the
annotation has two, whose main relation then has the minimal centers of both;
``parsers/builtin/wellformed.py`` repairs each such unit by the cheapest change under the network's
scores. Each set (gold tokens, each set's guideline style) is parsed with both decodings of the same
network; reported for both: labeled pooled F1, scene-unit figures (main-relation center accuracy
included), the share of sentences with the gold number of Scenes, and how the repaired sentences moved
between "fewer / equal / more Scenes than the gold". On Wiki dev, as ``compare_annotations.py --gold
ucca/wiki/dev`` computes them, the per-sentence Pearson between manual and parsed SAMSA of the identity
and one-sentence-per-gold-Scene outputs, their mean (the figure pipelines are chosen by, docs/parser.md),
and a paired bootstrap of the mean's difference (v3 - v2; ``--resamples`` resamplings, seed 0). Writes
``benchmarks/results/<out>``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json
from parser_ensemble import agreement, bootstrap, figures
from parser_eval import SETS, STYLE

from samsa.graph import tokens
from samsa.queries import main_relations, scenes
from samsa.ucca_xml import list_passage_files, load_passage, to_standard_xml


def count_class(gold, parsed) -> str:
    """``fewer`` / ``equal`` / ``more`` Scenes in the parse than in the annotation."""
    a, b = len(scenes(gold)), len(scenes(parsed))
    return "fewer" if b < a else "more" if b > a else "equal"


def two_main_relations(graphs: list) -> int:
    """Scenes with more than one main relation in ``graphs``."""
    return sum(len(main_relations(g, s)) > 1 for g in graphs for s in scenes(g))


def compare(pipeline: str, name: str, resamples: int) -> dict:
    from samsa.parsers.builtin import BuiltinParser

    gold = [load_passage(f) for f in list_passage_files(DATA / SETS[name])]
    sentences = [tokens(g) for g in gold]
    pred = {}
    for decoding in (2, 3):
        pred[decoding] = BuiltinParser(pipeline=pipeline, style=STYLE[name], decoding=decoding).parse(sentences)
    changed = [k for k, (a, b) in enumerate(zip(pred[2], pred[3], strict=True))
               if to_standard_xml(a) != to_standard_xml(b)]  # fmt: skip
    moves = Counter(f"{count_class(gold[k], pred[2][k])} -> {count_class(gold[k], pred[3][k])}" for k in changed)
    block = {f"v{d}": dict(figures(pred[d], gold, 0.0), scenes_with_two_main_relations=two_main_relations(pred[d]))
             for d in (2, 3)}  # fmt: skip
    for d in (2, 3):
        del block[f"v{d}"]["seconds"]  # not timed here
    block["sentences_changed"] = len(changed)
    block["scene_count_moves"] = dict(sorted(moves.items()))
    if name == "wiki_dev":
        with tempfile.TemporaryDirectory() as tmp:
            agree = {d: agreement(pred[d], Path(tmp) / f"v{d}") for d in (2, 3)}
        for d in (2, 3):
            block[f"v{d}"]["samsa_agreement"] = {k: v for k, v in agree[d].items() if k != "rows"}
        block["mean_pearson_v3_minus_v2"] = bootstrap(agree[3]["rows"], agree[2]["rows"], len(gold), resamples)
    return block


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", nargs="+", default=["fast", "accurate"])
    ap.add_argument("--sets", nargs="+", choices=sorted(SETS), default=["wiki_dev", "ewt_dev"])
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--out", default="one_main_relation.json")
    args = ap.parse_args()
    result: dict = {"command": "python benchmarks/one_main_relation.py " + " ".join(sys.argv[1:]), "pipelines": {}}
    for pipeline in args.pipeline:
        result["pipelines"][pipeline] = {}
        for name in args.sets:
            result["pipelines"][pipeline][name] = compare(pipeline, name, args.resamples)
            print(pipeline, name, result["pipelines"][pipeline][name], flush=True)
    print("wrote", write_json(args.out, result))


if __name__ == "__main__":
    main()
