"""samsa compare-annotations on the 20K test gold with two synthetic outputs per sentence.

Usage:
    python benchmarks/compare_annotations.py [--parser builtin:accurate]

Outputs: "identity" (the gold tokens) and "scene-split" (one sentence per gold
scene: each scene's words, separated by <::::>). Both are scored with the manual
UCCA of ../shared/data/ucca/20k/test and with the built-in parser's UCCA of the
same tokens (exact aligner, tokenizer none). Writes ``compare_annotations.json`` for the default
parser and ``compare_annotations_<pipeline>.json`` for ``--parser builtin:<pipeline>``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa.cli import main
from samsa.graph import tokens
from samsa.queries import scenes, unit_terminals
from samsa.ucca_xml import list_passage_files, load_passage


def run(parser: str = "builtin") -> dict:
    gold_dir = DATA / "ucca" / "20k" / "test"
    gold = [load_passage(f) for f in list_passage_files(gold_dir)]
    identity = [" ".join(tokens(g)) for g in gold]
    split = [" <::::> ".join(" ".join(g.nodes[t]["text"] for t in unit_terminals(g, s)) for s in scenes(g))
             or " ".join(tokens(g)) for g in gold]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, lines in (("identity", identity), ("scene-split", split)):
            f = Path(tmp) / name
            f.write_text("\n".join(lines) + "\n", encoding="utf-8")
            files.append(str(f))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["compare-annotations", "--ucca", str(gold_dir), "--system", *files, "--tokenizer", "none",
                       "--sentence-separator", "<::::>", "--json", "--parser", parser, "--no-cache"])  # fmt: skip
    assert rc == 0
    result = json.loads(buf.getvalue())
    result["systems"] = {Path(k).name: {kk: vv for kk, vv in v.items() if kk != "per_sentence_difference"}
                         for k, v in result["systems"].items()}  # fmt: skip
    result["ranking_gold"] = [Path(x).name for x in result["ranking_gold"]]
    result["ranking_parsed"] = [Path(x).name for x in result["ranking_parsed"]]
    return result


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parser", default="builtin")
    args = ap.parse_args()
    res = run(args.parser)
    res["parser"] = args.parser
    pipeline = args.parser.partition(":")[2]
    write_json(f"compare_annotations_{pipeline}.json" if pipeline else "compare_annotations.json", res)
    print(json.dumps(res, indent=2))
