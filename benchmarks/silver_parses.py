"""Silver UCCA for self-training: raw sentences parsed by an ensemble of the parser's networks, one XML each.

Usage:
    python benchmarks/silver_parses.py --text FILE --member W1 [W2 ...] [--scene-bias B] [--limit N] --out DIR

Why: an ensemble of the networks parses better than any of them (docs/parser.md, "An ensemble of the
networks") but costs several networks' time; training the one-network ``fast`` pipeline on the
ensemble's parses of unannotated in-domain text as well as on the gold corpora (``python -m samsa.parsers.train
--silver DIR``) asks whether some of that gain can be had at one network's cost. Sentences are tokenized with
the parser's spaCy tokenizer; empty lines are skipped; files are numbered by line (``00001.xml`` ...), so the
output names the input lines it came from. ``DIR`` must not exist (nothing half-written is reused). Writes
``DIR/silver.json`` with the command, members and counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parser_ensemble import members, parse

from samsa.ucca_xml import write_standard


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--text", required=True, help="one raw sentence per line (UTF-8)")
    ap.add_argument("--member", nargs="+", required=True, help="weights files to average")
    ap.add_argument("--scene-bias", type=float, default=0.0)
    ap.add_argument("--limit", type=int, default=None, help="the first N lines only")
    ap.add_argument("--out", required=True, help="a new directory for the XML files")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True)  # fails if it exists
    lines = Path(args.text).read_text(encoding="utf-8").splitlines()[: args.limit]
    parsers = members(args.member, "wiki", args.scene_bias)
    kept = [(k, parsers[0].tokenize(line)) for k, line in enumerate(lines, 1) if line.strip()]
    graphs = parse(parsers, [toks for _, toks in kept])
    for (k, _), g in zip(kept, graphs, strict=True):
        g.graph["passage_id"] = str(k)
        write_standard(g, out / f"{k:05d}.xml")
    record = {"command": "python benchmarks/silver_parses.py " + " ".join(sys.argv[1:]),
              "members": [Path(m).name for m in args.member], "scene_bias": args.scene_bias,
              "lines": len(lines), "passages": len(kept)}  # fmt: skip
    (out / "silver.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(record)


if __name__ == "__main__":
    main()
