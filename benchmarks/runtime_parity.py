"""The numpy inference runtime against the PyTorch network it replaces, on the Wiki, 20K and EWT test sets.

Usage (needs the ``train`` extra for torch; ``accurate`` also the MiniLM package, ``mpnet`` the MPNet packages):
    python benchmarks/runtime_parity.py [--pipeline fast accurate mpnet] [--out NAME.json]

Both networks get the same weights file and the same spaCy features (gold
tokens). Reported per set: the largest absolute difference of span
log-probabilities and of remote-edge logits, the number of sentences whose
standard UCCA XML differs (each one listed), labeled F1 of both, and the decode
time of each (features excluded). Each pipeline's weights, inputs (encoder, guideline style per set) and
decoding, for both networks. Writes ``benchmarks/results/runtime_parity.json`` (``--out``: another name there).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json
from parser_eval import SETS, STYLE, TEST_SETS

from samsa.parsers.builtin import PIPELINES


class TorchNet:
    """``SpanModel`` behind the numpy runtime's interface, decoding exactly as the PyTorch-era parser did."""

    def __init__(self, model) -> None:
        import torch

        self.torch = torch
        self.model = model
        self.has_remote = model.remote is not None

    def encode(self, batch):
        from lab.model import to_torch

        with self.torch.no_grad():
            return self.model.encode(to_torch(batch))

    def span_log_probs(self, fence, b, n):
        """(m, L) over the spans i < j in ``np.triu_indices`` order, as the numpy runtime returns them."""
        with self.torch.no_grad():
            full = self.torch.log_softmax(self.model.span_logits(fence, b, n), dim=-1).numpy()
        return full[np.triu_indices(n + 1, 1)]

    def remote_logits(self, fence, b, scenes, units, buckets):
        t = self.torch
        with t.no_grad():
            return self.model.remote_logits(fence, b, t.from_numpy(scenes), t.from_numpy(units),
                                            t.from_numpy(buckets)).numpy()  # fmt: skip


def max_differences(torch_net: TorchNet, numpy_net, feats, batch: int = 32) -> dict[str, float]:
    """Largest |difference| of span log-probabilities and remote logits (all pairs of each sentence's spans)."""
    span = remote = 0.0
    for b in range(0, len(feats), batch):
        chunk = feats[b : b + batch]
        tf, lengths = torch_net.encode(chunk)
        nf, _ = numpy_net.encode(chunk)
        for bi, n in enumerate(lengths):
            a, c = torch_net.span_log_probs(tf, bi, n), numpy_net.span_log_probs(nf, bi, n)
            span = max(span, float(np.abs(a - c).max()))
            spans = np.array([(i, j) for i in range(n) for j in range(i + 1, min(n, i + 4) + 1)])
            buckets = np.zeros(len(spans), dtype=np.int64)
            a = torch_net.remote_logits(tf, bi, spans, spans[::-1].copy(), buckets)
            c = numpy_net.remote_logits(nf, bi, spans, spans[::-1].copy(), buckets)
            remote = max(remote, float(np.abs(a - c).max()))
    return {"max_abs_span_logprob_difference": span, "max_abs_remote_logit_difference": remote}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", nargs="+", default=list(PIPELINES), choices=list(PIPELINES))
    ap.add_argument("--out", default="runtime_parity.json", help="file name under benchmarks/results")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    results: dict[str, object] = {"torch": torch.__version__, "numpy": np.__version__}
    for pipeline in args.pipeline:
        results[pipeline] = compare(pipeline)
    print(write_json(args.out, results))


def compare(pipeline: str) -> dict[str, object]:
    """One pipeline's parity on each test set."""
    import torch

    from lab.model import SpanModel
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.decode import decode_batch
    from samsa.parsers.builtin.features import STYLES, featurize
    from samsa.ucca.evaluation import evaluate_corpus
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage, to_standard_xml

    parser = BuiltinParser(pipeline=pipeline)
    config = dict(parser.net.config)
    model = SpanModel(parser.vocab, encoder_name=config.pop("encoder", "minilm"), **config)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in parser.net.s.items()})
    model.eval()
    reference = TorchNet(model)
    results: dict[str, object] = {"signature": parser.signature()}
    for name in TEST_SETS:
        gold = [load_passage(f) for f in list_passage_files(DATA / SETS[name])]
        sents = [tokens(g) for g in gold]
        # a network without styles ignores the style
        feats = featurize(parser.nlp, parser.vocab, sents, encoder=parser.encoder, style=STYLES.index(STYLE[name]))
        row: dict[str, object] = {"sentences": len(gold)}
        min_scene = not parser.net.styles or STYLE[name] == "wiki"  # as BuiltinParser(style=...) decodes
        graphs = {}
        for label, net in (("torch", reference), ("numpy", parser.net)):
            start = time.perf_counter()
            passages = decode_batch(net, parser.vocab, feats, sents, scene_bias=parser.scene_bias, min_scene=min_scene)
            graphs[label] = [p.to_graph() for p in passages]
            row[f"{label}_decode_s"] = round(time.perf_counter() - start, 2)
            f1 = evaluate_corpus(zip(graphs[label], gold, strict=True)).to_dict()["labeled"]
            row[f"{label}_labeled_pooled_f1"] = round(100 * f1["pooled"]["f1"], 3)
        differ = [k + 1 for k, (a, b) in enumerate(zip(graphs["torch"], graphs["numpy"], strict=True))
                  if to_standard_xml(a) != to_standard_xml(b)]  # fmt: skip
        row["xml_differs"] = len(differ)
        row["xml_differs_lines"] = differ
        row.update(max_differences(reference, parser.net, feats))
        results[name] = row
        print(pipeline, name, row, file=sys.stderr, flush=True)
    return results


if __name__ == "__main__":
    main()
