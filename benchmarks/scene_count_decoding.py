"""Could a per-sentence Scene bias fix the per-sentence Scene count? An oracle and a learned choice, on dev.

Usage:
    python benchmarks/scene_count_decoding.py [--pipeline accurate] [--gold ucca/wiki/dev] [--folds 10]

Why: SAMSA's agreement with manual UCCA turns on each sentence's number of
Scenes (docs/BENCHMARKS.md, "Where the disagreement comes from"), and one
Scene bias for every sentence (docs/parser.md) trades sentences with too few
Scenes for sentences with too many. This benchmark decodes every gold sentence
of ``--gold`` (its tokens) with the pipeline's network once and its decoder
(``builtin.v2``'s decoding, the shipped one when this was measured: Scene un-nesting included, one main
relation per Scene not) at each bias of a grid, and
reports:

- per bias: the share of sentences whose parse has the gold number of Scenes,
  fewer or more, and the total;
- the oracle: the share for which *some* bias of the grid gives the gold count
  (what a perfect per-sentence choice of bias would reach);
- a learned choice: a ridge regression predicting the gold count from the
  counts at every bias and spaCy's part-of-speech counts (non-auxiliary verbs,
  nouns, adjectives, conjunctions, commas, wh-words, prepositions, length),
  fitted and judged by ``--folds``-fold cross-validation over the dev set; each
  sentence takes the bias whose count is nearest the prediction (ties: the
  bias nearest 0);
- how the sentences with more non-auxiliary verbs than Scenes in the parse at
  bias 0 compare with the gold count (is a verb count a sign of missed Scenes?);
- what the oracle choice would buy in SAMSA agreement: ``compare_annotations.py``'s
  identity and scene-split outputs scored with the manual UCCA and with the
  parses at bias 0 (that decoding, remote edges included) and at each
  sentence's oracle bias (the grid's bias whose count is nearest the gold one,
  ties to the bias nearest 0): the two Pearson correlations and their mean, the
  figure the pipelines are chosen by (docs/parser.md), and each output's
  Pearson over the sentences whose parse has the gold number of Scenes.

Writes ``benchmarks/results/scene_count_decoding_<pipeline>.json``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import DATA, write_json

GRID = (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)
FEATURES = ("tokens", "verbs", "nouns", "adjectives", "conjunctions", "commas", "wh", "prepositions")


def sentence_features(tags: list[str], deps: list[str], words: list[str]) -> list[int]:
    """The :data:`FEATURES` of one sentence from spaCy's PTB tags and dependency labels."""
    return [
        len(words),
        sum(t.startswith("VB") and d not in ("aux", "auxpass") for t, d in zip(tags, deps, strict=True)),
        sum(t.startswith("NN") for t in tags),
        sum(t.startswith("JJ") for t in tags),
        sum(t == "CC" for t in tags),
        sum(w == "," for w in words),
        sum(t.startswith("W") for t in tags),
        sum(t == "IN" for t in tags),
    ]


def decode_grid(
    net, vocab, feats: list, sentences: list[list[str]], unnest: bool
) -> tuple[np.ndarray, np.ndarray, list]:
    """One batch decoded at every bias of :data:`GRID` from one pass of the network: its fenceposts (for
    ``predict_remotes``), its Scene counts (sentences, biases) and its parses (bias -> one graph per sentence,
    no remote edges yet), as the shipped decoder builds them."""
    from samsa.parsers.builtin.decode import cky_batch, main_relation_mask, span_charts, unnest_scenes
    from samsa.parsers.builtin.runtime import batch_span_log_probs
    from samsa.parsers.builtin.tree import Span, spans_to_graph
    from samsa.queries import scenes

    mask = main_relation_mask(vocab)
    fence, lengths = net.encode(feats)
    rows = batch_span_log_probs(net, fence, lengths)
    counts = np.zeros((len(sentences), len(GRID)), dtype=np.int64)
    graphs: list[list] = []
    for b, beta in enumerate(GRID):
        best, gain = span_charts(rows, lengths, beta * mask)
        graphs.append([])
        for bi, found in enumerate(cky_batch(gain, lengths)):
            spans = [Span(i, j, vocab.labels[best[bi, i, j]]) for i, j in found]
            g = spans_to_graph(list(sentences[bi]), unnest_scenes(spans) if unnest else spans)
            counts[bi, b] = len(scenes(g))
            graphs[b].append(g)
    return fence, counts, graphs


def counts_by_bias(
    pipeline: str, sentences: list[list[str]], gold: np.ndarray
) -> tuple[np.ndarray, np.ndarray, dict[str, list]]:
    """(sentences, biases) Scene counts of the parse at each bias of :data:`GRID`, (sentences, features), and
    the parses (remote edges added, as the shipped decoder adds them) at bias 0 and at each sentence's oracle
    bias (count nearest ``gold``, ties to the bias nearest 0)."""
    from samsa.parsers.builtin import BuiltinParser, _batches
    from samsa.parsers.builtin.decode import predict_remotes
    from samsa.parsers.builtin.features import featurize

    p = BuiltinParser(pipeline=pipeline, decoding=2)  # decode_grid applies builtin.v2's steps
    counts = np.zeros((len(sentences), len(GRID)), dtype=np.int64)
    feats_out = np.zeros((len(sentences), len(FEATURES)), dtype=np.int64)
    parses: dict[str, list] = {"bias_0": [None] * len(sentences), "oracle_bias": [None] * len(sentences)}
    zero = GRID.index(0.0)
    order = sorted(range(len(sentences)), key=lambda k: len(sentences[k]))
    for idx in _batches(order, [len(s) for s in sentences], p.batch_size):
        batch = [sentences[k] for k in idx]
        feats = featurize(p.nlp, p.vocab, batch, encoder=p.encoder, style=p._style_id)
        fence, counts[idx], graphs = decode_grid(p.net, p.vocab, feats, batch, p.unnest)
        oracle = nearest_bias(gold[idx].astype(np.float64), counts[idx])
        for bi, k in enumerate(idx):
            for name, b in (("bias_0", zero), ("oracle_bias", int(oracle[bi]))):
                g = graphs[b][bi].copy()
                predict_remotes(p.net, p.vocab, fence, bi, g)
                parses[name][k] = g
            f = feats[bi]
            feats_out[k] = sentence_features([p.vocab.tags[x] for x in f.tags], [p.vocab.deps[x] for x in f.deps],
                                             list(batch[bi]))  # fmt: skip
    return counts, feats_out, parses


def agreement(parses: list, gold_rel: str, tmp: str) -> dict[str, object]:
    """Pearson(manual SAMSA, parsed SAMSA) of ``compare_annotations.py``'s two outputs with these parses."""
    from compare_annotations import run, write_parses

    out = write_parses(parses, Path(tmp) / f"parsed{len(list(Path(tmp).iterdir()))}")
    res = run(gold_rel=gold_rel, parsed=out)
    r = {name: round(system["pearson"]["r"], 4) for name, system in res["systems"].items()}
    equal = {f"{name}_over_gold_count_sentences": system["by_scene_count"]["pearson_equal_count"]
             for name, system in res["systems"].items()}  # fmt: skip
    manual = {f"{name}_manual_samsa": system["by_scene_count"]["manual_samsa"]
              for name, system in res["systems"].items()}  # fmt: skip
    return {**r, "mean": round(sum(r.values()) / len(r), 4), "scenes": res["scene_counts"]["parsed"], **equal,
            **manual}  # fmt: skip


def shares(got: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    return {"equal": round(float(np.mean(got == gold)), 4), "fewer": round(float(np.mean(got < gold)), 4),
            "more": round(float(np.mean(got > gold)), 4), "scenes": int(got.sum())}  # fmt: skip


def nearest_bias(predicted: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each sentence's grid index whose count is nearest its predicted count (ties: the bias nearest 0)."""
    grid = np.abs(np.array(GRID))
    return (np.abs(counts - predicted[:, None]) + 1e-3 * grid[None, :]).argmin(axis=1)


def cross_validated_choice(x: np.ndarray, gold: np.ndarray, counts: np.ndarray, folds: int, ridge: float) -> np.ndarray:
    """Grid indices chosen for each sentence by a ridge regression fitted on the other folds (fixed seed)."""
    order = np.random.default_rng(0).permutation(len(gold))
    chosen = np.zeros(len(gold), dtype=np.int64)
    for f in range(folds):
        test = order[f::folds]
        train = np.setdiff1d(order, test)
        a = x[train]
        w = np.linalg.solve(a.T @ a + ridge * np.eye(a.shape[1]), a.T @ gold[train])
        chosen[test] = nearest_bias(x[test] @ w, counts[test])
    return chosen


def main() -> None:
    from samsa.graph import tokens
    from samsa.queries import scenes
    from samsa.ucca_xml import list_passage_files, load_passage

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", default="accurate", choices=("fast", "accurate"))
    ap.add_argument("--gold", default="ucca/wiki/dev", help="gold set under the data folder")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--ridge", type=float, default=1.0)
    args = ap.parse_args()
    gold_graphs = [load_passage(f) for f in list_passage_files(DATA / args.gold)]
    gold = np.array([len(scenes(g)) for g in gold_graphs])
    counts, feats, parses = counts_by_bias(args.pipeline, [tokens(g) for g in gold_graphs], gold)
    x = np.column_stack([counts, feats, np.ones(len(gold))]).astype(np.float64)
    chosen = cross_validated_choice(x, gold.astype(np.float64), counts, args.folds, args.ridge)
    rows = np.arange(len(gold))
    zero = GRID.index(0.0)
    verbs_above = feats[:, FEATURES.index("verbs")] > counts[:, zero]
    result = {
        "command": "python benchmarks/scene_count_decoding.py " + " ".join(sys.argv[1:]),
        "pipeline": args.pipeline,
        "gold": args.gold,
        "sentences": len(gold),
        "gold_scenes": int(gold.sum()),
        "by_bias": {f"{beta:g}": shares(counts[:, b], gold) for b, beta in enumerate(GRID)},
        "oracle_bias_per_sentence_equal": round(float(np.mean((counts == gold[:, None]).any(axis=1))), 4),
        "learned_bias_per_sentence": {"features": ["counts at every bias", *FEATURES], "folds": args.folds,
                                      "ridge": args.ridge, **shares(counts[rows, chosen], gold),
                                      "mean_abs_bias": round(float(np.abs(np.array(GRID))[chosen].mean()), 3)},
        "more_verbs_than_scenes_at_bias_0": {"sentences": int(verbs_above.sum()),
                                             **shares(counts[verbs_above, zero], gold[verbs_above])},
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        result["samsa_agreement"] = {name: agreement(graphs, args.gold, tmp) for name, graphs in parses.items()}
    print(write_json(f"scene_count_decoding_{args.pipeline}.json", result))


if __name__ == "__main__":
    main()
