"""Does a small ensemble of the parser's networks parse Scenes better? Dev figures and SAMSA agreement.

Usage:
    python benchmarks/parser_ensemble.py --member W1 [W2 ...] [--scene-bias B] [--name NAME]
        [--sets wiki_dev ewt_dev] [--reference W] [--resamples 1000] [--decoding 2|3|4|5]

Why: ensembling is the last lever of ``../shared/docs/parser_scene_errors.md`` not yet measured ("+1-1.5
F1 at 3x parse cost", an estimate). The members are weights files of one vocabulary (every file the training
script writes from the public corpora has the same); each reads its own inputs (spaCy annotates once, the
encoder runs per member that reads it: a fine-tuned one differs from the frozen one) and their span label
log-probabilities are averaged (the log of the normalized geometric mean of their distributions), as are
their remote-edge log-probabilities; the shipped decoder runs on the average (Scene un-nesting, ``--scene-bias``
added to the P/S labels). A one-member ensemble is that file decoded as its pipeline decodes it.

Reported per set (gold tokens, each set's guideline style): labeled pooled F1, scene-unit figures, the share
of sentences with the gold number of Scenes, parse seconds (one process, spaCy included). On the sets
annotated with the guidelines SAMSA reads (Wiki dev, where pipelines are chosen, and Wiki / 20K test, to
measure a choice once), as ``compare_annotations.py --gold <set>`` computes them: the per-sentence Pearson
between manual and parsed SAMSA of the identity and one-sentence-per-gold-Scene outputs and their mean (the
figure pipelines are chosen by, docs/parser.md), and a paired bootstrap of that mean against
``--reference`` decoded at bias 0 (default: the ``accurate`` pipeline's shipped weights): ``--resamples``
resamplings of the set's sentences (seed 0), the difference's 2.5th and 97.5th percentiles. Writes
``benchmarks/results/parser_ensemble_<name>.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json
from compare_annotations import run, write_parses
from parser_eval import SETS, STYLE, scene_count_share

from samsa.graph import tokens
from samsa.ucca_eval import evaluate_corpus, scene_scores
from samsa.ucca_xml import list_passage_files, load_passage

#: sets annotated with the UCCA guidelines SAMSA's own annotation follows (v1), where agreement is measured
AGREEMENT_SETS = ("wiki_dev", "wiki_test", "20k_test")


class EnsembleNet:
    """The averaged members behind the interface ``decode_batch`` reads (``encode``, ``span_log_probs``,
    ``has_remote``, ``remote_logits``). A batch item is a tuple: one ``Featurized`` per member."""

    def __init__(self, nets: Sequence[Any]) -> None:
        self.nets = list(nets)
        self.has_remote = all(n.has_remote for n in self.nets)

    def encode(self, batch: Sequence[tuple]) -> tuple[tuple, list[int]]:
        fences, lengths = [], None
        for k, net in enumerate(self.nets):
            fence, lengths = net.encode([item[k] for item in batch])
            fences.append(fence)
        return tuple(fences), lengths

    def span_log_probs(self, fence: tuple, b: int, n: int) -> np.ndarray:
        from samsa.parsers.builtin.runtime import log_softmax

        return log_softmax(
            np.mean([net.span_log_probs(f, b, n) for net, f in zip(self.nets, fence, strict=True)], axis=0)
        )

    def remote_logits(self, fence: tuple, b: int, *pairs: np.ndarray) -> np.ndarray:
        from samsa.parsers.builtin.runtime import log_softmax

        return np.mean(
            [log_softmax(net.remote_logits(f, b, *pairs)) for net, f in zip(self.nets, fence, strict=True)], axis=0
        )


def members(paths: Sequence[str], style: str, scene_bias: float, decoding: int | None = None) -> list[Any]:
    """One ``BuiltinParser`` per weights file, in its pipeline's ``decoding`` (default: the newest, ``builtin.v5``)."""
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.runtime import read_header

    out = []
    for p in paths:
        pipeline = "accurate" if read_header(p)["config"].get("encoder_layers") else "fast"
        out.append(BuiltinParser(weights=p, pipeline=pipeline, style=style, scene_bias=scene_bias, decoding=decoding))
    if any(m.vocab.to_dict() != out[0].vocab.to_dict() for m in out):
        raise SystemExit("the members' vocabularies differ: their label distributions cannot be averaged")
    return out


def parse(parsers: Sequence[Any], sentences: Sequence[Sequence[str]], batch: int = 64) -> list:
    """The ensemble's graphs for token lists, in order."""
    from samsa.parsers.builtin.decode import decode_batch
    from samsa.parsers.builtin.features import featurize

    first = parsers[0]
    net = EnsembleNet([p.net for p in parsers])
    out: list = []
    for b in range(0, len(sentences), batch):
        chunk = [list(s) for s in sentences[b : b + batch]]
        base = featurize(first.nlp, first.vocab, chunk, style=first._style_id)
        per_member = []
        for p in parsers:
            feats = base
            if p.encoder is not None:
                feats = [dataclasses.replace(f) for f in base]
                for f, enc in zip(feats, p.encoder.words(chunk), strict=True):
                    f.encoded = enc.astype(np.float16)  # as featurize stores it
            per_member.append(feats)
        items = list(zip(*per_member, strict=True))
        graphs = decode_batch(net, first.vocab, items, chunk, batch=batch, scene_bias=first.scene_bias,
                              unnest=first.unnest, one_main=first.one_main, min_scene=first.min_scene,
                              centers=first.one_center)  # fmt: skip
        out.extend(graphs)
    return out


def figures(pred: list, gold: list, secs: float) -> dict:
    pairs = list(zip(pred, gold, strict=True))
    s = evaluate_corpus(pairs).to_dict()
    return {
        "sentences": len(gold),
        "labeled_pooled_f1": round(100 * s["labeled"]["pooled"]["f1"], 2),
        "scenes": {k: round(v, 4) for k, v in scene_scores(pairs).items()},
        "scene_count_equal": round(scene_count_share(pairs), 4),
        "seconds": round(secs, 1),
    }


def agreement(pred: list, tmp: Path, name: str = "wiki_dev") -> dict:
    """compare_annotations.py on set ``name`` with these parses: Pearsons, their mean, per-sentence rows."""
    res = run(gold_rel=SETS[name], parsed=write_parses(pred, tmp / "parsed"), rows=True)
    pearson = {name: round(res["systems"][name]["pearson"]["r"], 4) for name in ("identity", "scene-split")}
    return {"pearson": pearson, "mean_pearson": round(sum(pearson.values()) / 2, 4),
            "ranking_as_manual": res["ranking_parsed"] == res["ranking_gold"], "rows": res["per_sentence"]}  # fmt: skip


def mean_pearson(rows: list[dict], idx: np.ndarray) -> float:
    rs = []
    for name in ("identity", "scene-split"):
        sel = [r for r in rows if r["system"] == name]
        gold = np.array([sel[k]["samsa_gold"] for k in idx])
        parsed = np.array([sel[k]["samsa_parsed"] for k in idx])
        rs.append(np.corrcoef(gold, parsed)[0, 1])
    return float(np.mean(rs))


def bootstrap(cand: list[dict], ref: list[dict], n: int, resamples: int) -> dict:
    """Paired bootstrap of the mean-Pearson difference (candidate - reference) over the dev sentences."""
    rng = np.random.default_rng(0)
    full = mean_pearson(cand, np.arange(n)) - mean_pearson(ref, np.arange(n))
    diffs = []
    for _ in range(resamples):
        idx = rng.integers(0, n, n)
        diffs.append(mean_pearson(cand, idx) - mean_pearson(ref, idx))
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return {"difference": round(full, 4), "ci95": [round(float(lo), 4), round(float(hi), 4)],
            "share_above_0": round(float(np.mean(np.array(diffs) > 0)), 3), "resamples": resamples}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--member", nargs="+", required=True, help="weights files to average (one: that file alone)")
    ap.add_argument("--scene-bias", type=float, default=0.0)
    ap.add_argument("--sets", nargs="+", choices=sorted(SETS), default=["wiki_dev", "ewt_dev"])
    ap.add_argument("--reference", default=None, help="weights file compared with (default: accurate's)")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--decoding", type=int, choices=(2, 3, 4, 5), default=None,
                    help="builtin.v2's to v5's decoding, for members and reference (default: the newest; a "
                         "results file records the decoding it was written with under 'decoding')")  # fmt: skip
    ap.add_argument("--name", default=None, help="results file: parser_ensemble_<name>.json")
    args = ap.parse_args()
    from samsa.parsers.builtin import PIPELINES

    reference = args.reference or str(Path(__file__).resolve().parents[1] / "parsers/builtin/weights"
                                      / PIPELINES["accurate"])  # fmt: skip
    result: dict[str, Any] = {
        "command": "python benchmarks/parser_ensemble.py " + " ".join(sys.argv[1:]),
        "members": [Path(m).name for m in args.member],
        "scene_bias": args.scene_bias,
        "decoding": members(args.member[:1], "wiki", 0.0, args.decoding)[0].name,
        "reference": Path(reference).name,
        "sets": {},
    }
    for name in args.sets:
        gold = [load_passage(f) for f in list_passage_files(DATA / SETS[name])]
        parsers = members(args.member, STYLE[name], args.scene_bias, args.decoding)
        parse(parsers, [["Warm", "up", "."]])
        start = time.perf_counter()
        pred = parse(parsers, [tokens(g) for g in gold])
        block = figures(pred, gold, time.perf_counter() - start)
        if name in AGREEMENT_SETS:
            with tempfile.TemporaryDirectory() as tmp:
                cand = agreement(pred, Path(tmp) / "cand", name)
                ref_pred = parse(members([reference], "wiki", 0.0, args.decoding), [tokens(g) for g in gold])
                ref = agreement(ref_pred, Path(tmp) / "ref", name)
            block["samsa_agreement"] = {k: v for k, v in cand.items() if k != "rows"}
            block["reference_samsa_agreement"] = {k: v for k, v in ref.items() if k != "rows"}
            block["mean_pearson_vs_reference"] = bootstrap(cand["rows"], ref["rows"], len(gold), args.resamples)
        result["sets"][name] = block
        print(name, block, flush=True)
    stem = args.name or "+".join(Path(m).stem for m in args.member)
    print("wrote", write_json(f"parser_ensemble_{stem}.json", result))


if __name__ == "__main__":
    main()
