"""How parsed SAMSA should treat the parser's uncertainty about Scenes: four treatments side by side on the dev
sets, in both directions (the validity battery, ``lab.validity``) and against human structural
simplicity (``lab.agreement``).

    python benchmarks/parse_uncertainty.py [--pipeline fast] [--biases -1 0 1]

Each sentence is decoded at every Scene bias of :data:`GRID` (the network run once). An output is scored on

* ``one-best``: the parse at the bias, as the paper reads a parse (what the pipelines do);
* ``ladder``: the same, but an output with more sentences than the parse has Scenes on the first of the parses
  at the bias + 1, 2, 3, 4, 5 with enough Scenes (the treatment the pipelines had before this benchmark);
* ``expected``: the expected SAMSA over the sentence's distinct parses, each weighted by its probability under
  the network, ``exp((sum of its units' log-odds + bias x its main relations) / temperature)``, normalized;
* ``confident-ladder``: the ladder, climbing only to a parse whose log-probability is within ``delta`` of the
  parse's.

Writes ``benchmarks/results/parse_uncertainty.json`` and prints, per treatment and setting, split sensitivity,
over-split excess, the identity's mean absolute difference, perfect splits scored 0 and below 10, reversals,
and the human agreement (Pearson, outputs with more than one sentence).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

from lab.validity import (
    SEPARATOR,
    output_stats,
    over_split_excess,
    reversals,
    split_sensitivity,
    synthetic_outputs,
)
from samsa.scoring.metric import Samsa
from samsa.scoring.paper import paper_structure

#: the Scene biases every sentence is decoded at
GRID = tuple(x / 2 for x in range(-8, 15))  # -4, -3.5, ..., 7
LADDER_STEPS = (1.0, 2.0, 3.0, 4.0, 5.0)
DEV_SETS = ("wiki/dev", "ewt/dev")


@dataclass
class Tree:
    """One decoding of a sentence: the biases that gave it, its log-odds under the network, its main relations,
    its Scenes, and its paper-mode structure."""

    biases: list[float]
    log_odds: float
    n_main: int
    n_scenes: int
    structure: Any
    graph: Any


def tree_menus(parser: Any, token_lists: Sequence[Sequence[str]]) -> list[list[Tree]]:
    """Per sentence, its distinct parses over :data:`GRID`, each with the biases that gave it and the best
    log-odds of the trees behind it."""
    from samsa.parsers.builtin import _batches
    from samsa.parsers.builtin.decode import (
        _sentence_graph,
        at_least_one_scene,
        cky_batch,
        main_relation_mask,
        span_charts,
    )
    from samsa.parsers.builtin.features import featurize
    from samsa.parsers.builtin.runtime import batch_span_log_probs, span_row
    from samsa.parsers.builtin.tree import Span
    from samsa.ucca.graph import to_json
    from samsa.ucca.queries import scenes

    net, vocab = parser.net, parser.vocab
    mask = main_relation_mask(vocab)
    index = {label: k for k, label in enumerate(vocab.labels)}
    order = sorted((k for k, t in enumerate(token_lists) if t), key=lambda k: len(token_lists[k]))
    out: list[list[Tree]] = [[] for _ in token_lists]
    for idx in _batches(order, [len(t) for t in token_lists], parser.batch_size):
        batch = [list(token_lists[k]) for k in idx]
        feats = featurize(parser.nlp, vocab, batch, encoder=parser.encoder, style=parser._style_id)
        fence, lengths = net.encode(feats)
        rows = batch_span_log_probs(net, fence, lengths)
        first = np.cumsum([0] + [n * (n + 1) // 2 for n in lengths])
        menus: list[dict[str, Tree]] = [{} for _ in idx]
        for bias in GRID:
            best, gain = span_charts(rows, lengths, bias * mask)
            for bi, found in enumerate(cky_batch(gain, lengths)):
                n, lp = lengths[bi], rows.log_probs[first[bi] : first[bi + 1]]
                spans = [Span(i, j, vocab.labels[best[bi, i, j]]) for i, j in found]
                graph = partial(_sentence_graph, net=net, vocab=vocab, fence=fence, b=bi, words=batch[bi],
                                log_probs=lp, mask=mask, steps=True, passage_id="1")  # fmt: skip
                g = graph(spans, bias)  # the later steps read the biased scores: the same spans can end apart
                if parser.min_scene and not scenes(g):
                    g = at_least_one_scene(lp, n, mask, vocab.labels, bias, graph) or g
                odds = sum(float(lp[span_row(n, s.start, s.end)][index[s.label]] - lp[span_row(n, s.start, s.end)][0])
                           for s in spans)  # fmt: skip
                n_main = sum(any(x.rstrip("^") in ("P", "S") for x in s.label.split("/")) for s in spans)
                key = to_json(g)
                if key in menus[bi]:
                    tree = menus[bi][key]
                    tree.biases.append(bias)
                    if odds + bias * n_main > tree.log_odds + bias * tree.n_main:
                        tree.log_odds, tree.n_main = odds, n_main
                    continue
                st = paper_structure(g)
                menus[bi][key] = Tree([bias], odds, n_main, len(st), st, g)
        for bi, k in enumerate(idx):
            out[k] = list(menus[bi].values())
    return out


Weights = list[tuple[float, Tree]]


def at(trees: Sequence[Tree], bias: float) -> Tree:
    return next(t for t in trees if bias in t.biases)


def one_best(trees: Sequence[Tree], n_out: int, bias: float) -> Weights:
    return [(1.0, at(trees, bias))]


def ladder(trees: Sequence[Tree], n_out: int, bias: float) -> Weights:
    parse = at(trees, bias)
    count = parse.n_scenes
    if n_out <= count:
        return [(1.0, parse)]
    for step in LADDER_STEPS:
        rung = at(trees, bias + step)
        if rung.n_scenes > count:
            count = rung.n_scenes
            if count >= n_out:
                return [(1.0, rung)]
    return [(1.0, parse)]


def expected(trees: Sequence[Tree], n_out: int, bias: float, temperature: float) -> Weights:
    logits = np.array([(t.log_odds + bias * t.n_main) / temperature for t in trees])
    w = np.exp(logits - logits.max())
    return list(zip((w / w.sum()).tolist(), trees, strict=True))


def confident_ladder(trees: Sequence[Tree], n_out: int, bias: float, delta: float) -> Weights:
    parse = at(trees, bias)
    if n_out <= parse.n_scenes:
        return [(1.0, parse)]
    base = parse.log_odds + bias * parse.n_main
    fits = [t for t in trees if t.n_scenes >= n_out and base - (t.log_odds + bias * t.n_main) <= delta]
    return [(1.0, max(fits, key=lambda t: t.log_odds + bias * t.n_main) if fits else parse)]


Treatment = Callable[[Sequence[Tree], int], Weights]


def expected_score(metric: Samsa, weights: Weights, sentences: list[list[str]]) -> float:
    return sum(w * metric.score_graph(t.graph, sentences, structure=t.structure).samsa for w, t in weights if w > 0)


def battery(gold: Sequence[Any], menus: Sequence[Sequence[Tree]], treatment: Treatment) -> dict[str, Any]:
    metric = Samsa(tokenizer="none", separator=SEPARATOR)
    structures = [paper_structure(g) for g in gold]
    scores: dict[str, dict[str, list[Any]]] = {}
    for name, lines in synthetic_outputs(gold).items():
        s: dict[str, list[Any]] = {"sentences": [], "manual": [], "parsed": []}
        for k, (g, line) in enumerate(zip(gold, lines, strict=True)):
            if line is None:
                continue
            sentences = metric.split(line)
            s["sentences"].append(k)
            s["manual"].append(metric.score_graph(g, sentences, structure=structures[k]).samsa)
            s["parsed"].append(expected_score(metric, treatment(menus[k], len(sentences)), sentences))
        scores[name] = s
    stats = {n: output_stats(s["manual"], s["parsed"]) for n, s in scores.items()}
    perfect = scores["scene-split"]["parsed"]
    return {
        "split_sensitivity": round(split_sensitivity(stats) or math.nan, 4),
        "over_split_excess": {k: round(v, 2) for k, v in over_split_excess(stats).items()},
        "identity_mean_abs_difference": round(stats["identity"].mean_abs_difference, 2),
        "perfect_split_zero_share": round(sum(x == 0 for x in perfect) / len(perfect), 4),
        "perfect_split_below_10_share": round(sum(x < 10 for x in perfect) / len(perfect), 4),
        "reversals": [list(p) for p in reversals(scores)],
    }


def human(menus: Sequence[Sequence[Tree]], outputs: dict, ratings: dict, treatment: Treatment) -> float:
    from lab.agreement import RatedOutput, agreement

    metric = Samsa(tokenizer="none")
    items = []
    for system, lines in outputs.items():
        for k, line in enumerate(lines):
            if (system, k) in ratings:
                sentences = metric.split(line)
                samsa = expected_score(metric, treatment(menus[k], len(sentences)), sentences)
                items.append(RatedOutput(system, k, len(sentences), ratings[system, k], samsa))
    return round(agreement(items, resamples=0)["split_outputs"].r, 4)


def settings(biases: Sequence[float]) -> list[tuple[str, dict[str, float], Treatment]]:
    out: list[tuple[str, dict[str, float], Treatment]] = []
    for b in biases:
        out.append(("one-best", {"bias": b}, partial(one_best, bias=b)))
        out.append(("ladder", {"bias": b}, partial(ladder, bias=b)))
        for tau in (0.25, 0.5, 1.0):
            out.append(("expected", {"bias": b, "temperature": tau}, partial(expected, bias=b, temperature=tau)))
        for delta in (1.0, 2.0):
            out.append(
                ("confident-ladder", {"bias": b, "delta": delta}, partial(confident_ladder, bias=b, delta=delta))
            )
    return out


def main() -> None:
    from lab.agreement import acl2018_items
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", default="fast", help="the pipeline whose network is decoded (default: fast)")
    ap.add_argument("--biases", type=float, nargs="+", default=[-1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    ap.add_argument("--out", default="parse_uncertainty.json", help="result file under benchmarks/results/")
    args = ap.parse_args()
    gold = {s: [load_passage(f) for f in list_passage_files(DATA / "ucca" / s)] for s in DEV_SETS}
    menus = {}
    for s, graphs in gold.items():
        parser = get_parser(f"builtin:{args.pipeline}", style="ewt" if s.startswith("ewt") else "wiki")
        menus[s] = tree_menus(parser, [tokens(g) for g in graphs])
    sources, outputs, ratings = acl2018_items(DATA)
    wiki = get_parser(f"builtin:{args.pipeline}")
    human_menus = tree_menus(wiki, [wiki.tokenize(x) for x in sources])
    rows = []
    for name, options, treatment in settings(args.biases):
        row = {"treatment": name, **options, "sets": {s: battery(gold[s], menus[s], treatment) for s in gold},
               "human": human(human_menus, outputs, ratings, treatment)}  # fmt: skip
        rows.append(row)
        cells = " | ".join(
            f"{s}: {r['split_sensitivity']:.2f} / {r['over_split_excess']['over-split']:+.1f} / "
            f"{r['over_split_excess']['chunks']:+.1f}, id {r['identity_mean_abs_difference']:.1f}, "
            f"0: {100 * r['perfect_split_zero_share']:.0f}% <10: {100 * r['perfect_split_below_10_share']:.0f}%, "
            f"rev {len(r['reversals'])}"
            for s, r in row["sets"].items()
        )
        print(f"{name} {options}: {cells} | human {row['human']:+.3f}", flush=True)
    command = "python benchmarks/parse_uncertainty.py " + " ".join(sys.argv[1:])
    write_json(args.out, {"command": command.strip(), "pipeline": args.pipeline, "grid": GRID, "rows": rows})


if __name__ == "__main__":
    main()
