"""How many gold UCCA passages make EASSE's SAMSA fail (docs/samsa.md, difference 1).

Usage:
    python benchmarks/easse_errors.py

Each gold passage is scored against its own tokens (one output sentence) with
``compat="easse"``; a passage counts when scoring raises ScoringError (EASSE
would raise an index error there).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

from samsa import Samsa, ScoringError
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage

CORPORA = ["wiki/train", "wiki/dev", "wiki/test", "ewt/train", "ewt/dev", "ewt/test", "20k/test"]


def main() -> None:
    metric = Samsa(compat="easse", tokenizer="none")
    result = {}
    for corpus in CORPORA:
        files = list_passage_files(DATA / "ucca" / corpus)
        errors = 0
        for f in files:
            g = load_passage(f)
            try:
                metric.sentence_score(g, " ".join(tokens(g)))
            except ScoringError:
                errors += 1
        result[corpus] = {"files": len(files), "easse_errors": errors}
        print(corpus, result[corpus], flush=True)
    write_json("easse_errors.json", result)
    print(json.dumps(result))


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
