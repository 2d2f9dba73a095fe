"""spaCy's matrix products through numpy's BLAS (the default) against thinc's BLIS: same parses, time saved.

Usage:
    python benchmarks/gemm_parity.py [--pipeline fast|accurate] [--repeat 3] [--out NAME.json]

``samsa.aligners.annotate.load_spacy`` hands spaCy's networks thinc's ``NumpyOps(use_blis=False)``, whose
matrix products are ``numpy.dot`` (OpenBLAS in numpy's wheels) instead of the BLIS library bundled with
thinc. Float32 sums then come in another order. Reported per set (Wiki, 20K and EWT test, gold tokens,
each set's guideline style; the 359 HSplit sources, raw text): the sentences whose parsed graph differs
(the parse-cache encoding, byte for byte; each one listed), the tokens whose spaCy tag, dependency label
or head differs, the largest absolute difference of spaCy's tok2vec outputs, and the seconds spaCy takes
to annotate the set with each backend (median of ``--repeat`` passes after a warm-up, the backends
alternating, BLAS at one thread as in a parse). Also the GFLOP/s of one product of tok2vec's shape
(3,000 x 288 by 288 x 288) with each. Writes ``benchmarks/results/gemm_parity.json`` (``--out``:
another name there).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, HSPLIT_SOURCES, write_json
from parser_eval import SETS, STYLE, TEST_SETS

BACKENDS = ("blis", "numpy")


def gflops(repeat: int = 20) -> dict[str, float]:
    """GFLOP/s of a (3000, 288) x (288, 288) float32 product through thinc's BLIS and through numpy."""
    from thinc.api import NumpyOps

    rng = np.random.default_rng(0)
    a, b = rng.random((3000, 288), dtype=np.float32), rng.random((288, 288), dtype=np.float32)
    out = {}
    for name in BACKENDS:
        ops = NumpyOps(use_blis=name == "blis")
        ops.gemm(a, b)
        start = time.perf_counter()
        for _ in range(repeat):
            ops.gemm(a, b)
        out[name] = round(2 * 3000 * 288 * 288 * repeat / (time.perf_counter() - start) / 1e9, 1)
    return out


def annotate(nlp, sentences: list[list[str]]) -> list:
    from spacy.tokens import Doc

    return list(nlp.pipe((Doc(nlp.vocab, words=s) for s in sentences), batch_size=256))


def compare_set(parsers: dict, sentences: list, repeat: int) -> dict:
    from samsa.parse_cache import encode_graph
    from samsa.parsers.builtin import UNUSED_PIPES

    graphs = {name: [encode_graph(g) for g in p.parse(sentences)] for name, p in parsers.items()}
    differing = [k + 1 for k, (a, b) in enumerate(zip(*graphs.values(), strict=True)) if a != b]
    tokens = [p if isinstance(p, list) else parsers["numpy"].tokenize(p) for p in sentences]
    docs, seconds = {}, {name: [] for name in BACKENDS}
    for name, p in parsers.items():
        with p.nlp.select_pipes(disable=[c for c in UNUSED_PIPES if c in p.nlp.pipe_names]):
            docs[name] = annotate(p.nlp, tokens)  # also the warm-up
    for _ in range(repeat):
        for name, p in parsers.items():
            start = time.perf_counter()
            annotate(p.nlp, tokens)
            seconds[name].append(time.perf_counter() - start)
    pairs = list(zip(docs["blis"], docs["numpy"], strict=True))
    tokens_of_both = [(x, y) for a, b in pairs for x, y in zip(a, b, strict=True)]
    return {
        "sentences": len(sentences),
        "tokens": sum(len(t) for t in tokens),
        "graphs_differing": len(differing),
        "differing_sentences": differing,
        "tag_differences": sum(x.tag_ != y.tag_ for x, y in tokens_of_both),
        "dependency_differences": sum((x.dep_, x.head.i) != (y.dep_, y.head.i) for x, y in tokens_of_both),
        "max_abs_tok2vec_difference": float(max(np.abs(a.tensor - b.tensor).max() for a, b in pairs)),
        "spacy_s": {name: round(statistics.median(s), 3) for name, s in seconds.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pipeline", default="fast", choices=("fast", "accurate"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="gemm_parity.json")
    args = ap.parse_args()

    from threadpoolctl import threadpool_limits

    from samsa.fileio import read_lines
    from samsa.graph import tokens
    from samsa.parsers.builtin import BuiltinParser
    from samsa.ucca_xml import list_passage_files, load_passage

    inputs = {s: [tokens(load_passage(f)) for f in list_passage_files(DATA / SETS[s])] for s in TEST_SETS}
    inputs["hsplit_sources"] = read_lines(HSPLIT_SOURCES)
    command = "python benchmarks/gemm_parity.py" + (f" --pipeline {args.pipeline}" if args.pipeline != "fast" else "")
    result: dict = {"command": command, "pipeline": args.pipeline, "repeat": args.repeat}
    with threadpool_limits(1):
        result["gflops_3000x288x288"] = gflops()
        result["sets"] = {}
        by_style: dict[str, dict[str, BuiltinParser]] = {}  # one pair per guideline style, loaded once
        for name, sentences in inputs.items():
            style = STYLE.get(name, "wiki")  # the HSplit sources: Wikipedia
            if style not in by_style:
                by_style[style] = {b: BuiltinParser(pipeline=args.pipeline, style=style, gemm=b) for b in BACKENDS}
            result["sets"][name] = found = compare_set(by_style[style], sentences, args.repeat)
            print(name, found["graphs_differing"], found["spacy_s"], flush=True)
    print(f"wrote {write_json(args.out, result)}")


if __name__ == "__main__":
    main()
