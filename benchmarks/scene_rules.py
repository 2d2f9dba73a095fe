"""The annotation's rules behind builtin.v4 and builtin.v5, counted, and how often the parser breaks them.

Usage:
    python benchmarks/scene_rules.py [--out scene_rules.json]

Why: docs/parser.md chose two decoding steps by rules of the manual annotation ("At least one Scene per
sentence", "One center per main relation"); this is the command behind the counts it quotes. For each gold
corpus split: the sentences without a Scene, and the main relations (P/S units) with two or more C children,
with and without a connector (N) among their children. For each pipeline decoded as ``builtin.v3`` (before
either step) and as the newest decoding: the sentences parsed without a Scene, on Wiki dev (gold tokens) and
on the TurkCorpus tune and test sources (raw text, spaCy's tokens), and the main relations with two or more
C children and no N on Wiki dev.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa.graph import tokens
from samsa.queries import main_relations, scenes
from samsa.ucca_xml import list_passage_files, load_passage

GOLD = ("wiki/train", "wiki/dev", "ewt/train", "ewt/dev", "wiki/test", "20k/test", "ewt/test")
TEXTS = {"turkcorpus_tune": "tune.truecase.detok.orig", "turkcorpus_test": "test.truecase.detok.orig"}


def main_relation_centers(graphs: list) -> dict[str, int]:
    """Main relations by their C children: two or more without a connector (N), two or more with one, others."""
    out = {"two_or_more_without_n": 0, "two_or_more_with_n": 0, "other": 0}
    for g in graphs:
        for s in scenes(g):
            for m in main_relations(g, s):
                kids = [d["categories"] for _, _, d in g.out_edges(m, data=True) if not d.get("remote")]
                if sum("C" in k for k in kids) < 2:
                    out["other"] += 1
                else:
                    out["two_or_more_with_n" if any("N" in k for k in kids) else "two_or_more_without_n"] += 1
    return out


def without_scene(graphs: list) -> int:
    return sum(not scenes(g) for g in graphs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="scene_rules.json")
    args = ap.parse_args()
    from samsa.parsers.builtin import LATEST_DECODING, BuiltinParser

    result: dict = {"command": "python benchmarks/scene_rules.py " + " ".join(sys.argv[1:]), "gold": {}, "parsed": {}}
    gold_wiki_dev: list = []
    for split in GOLD:
        graphs = [load_passage(f) for f in list_passage_files(DATA / "ucca" / split)]
        gold_wiki_dev = graphs if split == "wiki/dev" else gold_wiki_dev
        result["gold"][split] = {"sentences": len(graphs), "without_scene": without_scene(graphs),
                                 "main_relation_centers": main_relation_centers(graphs)}  # fmt: skip
        print(split, result["gold"][split], file=sys.stderr)
    texts = {name: [line.strip() for line in (DATA / "easse" / "test_sets" / "turkcorpus" / f).open(encoding="utf-8")
                    if line.strip()] for name, f in TEXTS.items()}  # fmt: skip
    for pipeline in ("fast", "accurate"):
        for decoding in (3, LATEST_DECODING):
            parser = BuiltinParser(pipeline=pipeline, decoding=decoding)
            wiki_dev = parser.parse([tokens(g) for g in gold_wiki_dev])
            row = {"wiki_dev": {"sentences": len(wiki_dev), "without_scene": without_scene(wiki_dev),
                                "main_relation_centers": main_relation_centers(wiki_dev)}}  # fmt: skip
            for name, lines in texts.items():
                row[name] = {"sentences": len(lines), "without_scene": without_scene(parser.parse(lines))}
            result["parsed"][f"{pipeline}/{parser.name}"] = row
            print(pipeline, parser.name, row, file=sys.stderr)
    print(f"wrote {write_json(args.out, result)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
