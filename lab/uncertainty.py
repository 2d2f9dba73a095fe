"""Fit and measure parse uncertainty (samsa.scoring.uncertainty) on gold UCCA: trees drawn from a pipeline's
distribution, Scene-count calibration, per-sentence coverage on the validity battery, corpus coverage, and the
annotation curve (suggested lines against random ones).

    python -m lab.uncertainty --pipeline fast --fit        # choose tau, sigma, keep, floor on the dev sets

``benchmarks/uncertainty.py`` measures the shipped calibration on the test sets with the same functions.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from lab.corpora import guideline_style
from lab.validity import OUTPUTS, SEPARATOR, synthetic_outputs
from samsa.engine.uncertainty import SourceTrees, trees_of
from samsa.scoring.uncertainty import (
    Calibration,
    TreeMenu,
    corpus_draws,
    draw_trees,
    fit_margin,
    fit_top_map,
    raw_counts,
    scene_counts,
    sentence_interval,
    suggestion_order,
    top_count,
)

__all__ = ["Drawn", "annotation_curve", "calibration_stats", "coverage", "draw_set", "fit"]

#: the issue's battery: every output of lab.validity
BATTERY = tuple(OUTPUTS)


@dataclass
class Drawn:
    """One gold set parsed: per sentence the gold Scene count and its trees (one-best first), weighted by the
    draws' frequencies alone (``keep`` 0: :func:`menus` re-weights them)."""

    gold: list[Any]
    gold_counts: list[int]
    trees: list[SourceTrees]

    @property
    def one_best_counts(self) -> list[int]:
        return [t.menu.counts[0] for t in self.trees]


def draw_set(parser: Any, gold: Sequence[Any], cal: Calibration, seed: int = 0) -> Drawn:
    """Parse a gold set's tokens once, one-best and with ``cal.n_draws`` draws."""
    from samsa.parsers.builtin.sampling import Perturbation
    from samsa.scoring.paper import paper_structure
    from samsa.ucca.graph import tokens

    drawn = parser.parse_with_draws([tokens(g) for g in gold], Perturbation(cal.n_draws, cal.tau, cal.sigma, seed))
    trees = [trees_of(paper_structure(d.best), d, 0.0) for d in drawn]
    return Drawn(list(gold), [len(paper_structure(g)) for g in gold], trees)


def menus(d: Drawn, cal: Calibration) -> list[TreeMenu]:
    """The sentences' menus with the one-best tree keeping ``cal.keep`` of the mass."""
    out = []
    for t in d.trees:
        w = [(1 - cal.keep) * x for x in t.menu.weights]
        w[0] += cal.keep
        out.append(replace(t.menu, weights=tuple(w)))
    return out


def raw_tops(d: Drawn, cal: Calibration) -> tuple[list[float], list[bool]]:
    """Per sentence, the most probable count's raw probability over the trees and whether it is the gold count."""
    raw, hit = [], []
    for m, gc in zip(menus(d, cal), d.gold_counts, strict=True):
        dist = raw_counts(m, cal.floor)
        top = top_count(dist)
        raw.append(dist[top])
        hit.append(top == gc)
    return raw, hit


def calibration_stats(d: Drawn, cal: Calibration, bins: int = 10) -> dict[str, float]:
    """ECE of the most probable count's calibrated probability, log-loss of the gold count, and the one-best
    point mass's accuracy."""
    conf, hit, loss = [], [], []
    for m, gc in zip(menus(d, cal), d.gold_counts, strict=True):
        dist = scene_counts(m, cal)
        top = top_count(dist)
        conf.append(dist[top])
        hit.append(top == gc)
        loss.append(-math.log(max(dist.get(gc, 0.0), 1e-6)))
    c, h = np.array(conf), np.array(hit, dtype=float)
    edges = np.minimum((c * bins).astype(int), bins - 1)
    ece = sum(abs(c[edges == b].mean() - h[edges == b].mean()) * (edges == b).mean() for b in range(bins)
              if (edges == b).any())  # fmt: skip
    acc = float(np.mean([b == gc for b, gc in zip(d.one_best_counts, d.gold_counts, strict=True)]))
    return {"ece": float(ece), "log_loss": float(np.mean(loss)), "top_accuracy": float(h.mean()),
            "one_best_accuracy": acc}  # fmt: skip


def point_log_loss(d: Drawn, accuracy: float) -> float:
    """Log-loss of the gold count under the one-best point mass smoothed by ``accuracy`` (the dev accuracy):
    the one-best count gets ``accuracy``, the rest spread as :func:`scene_counts` spreads its floor."""
    out = []
    for c0, gc in zip(d.one_best_counts, d.gold_counts, strict=True):
        spread = {c: 2.0 ** -abs(c - c0) for c in range(0, c0 + 4) if c != c0}
        total = sum(spread.values())
        p = accuracy if gc == c0 else (1 - accuracy) * spread.get(gc, 0.0) / total
        out.append(-math.log(max(p, 1e-6)))
    return float(np.mean(out))


def battery_tree_scores(d: Drawn, menus_: Sequence[TreeMenu]) -> dict[str, dict[str, Any]]:
    """Per battery output: the sentences it is defined on, manual scores, and each sentence's scores on its
    menu's trees."""
    from samsa.scoring.metric import Samsa

    metric = Samsa(tokenizer="none", separator=SEPARATOR)
    outputs = synthetic_outputs(d.gold)
    out: dict[str, dict[str, Any]] = {}
    for name in BATTERY:
        rows: dict[str, list[Any]] = {"sentences": [], "manual": [], "trees": [], "manual_abl": [], "trees_abl": []}
        for k, line in enumerate(outputs[name]):
            if line is None:
                continue
            sentences = metric.split(line)
            rows["sentences"].append(k)
            manual = metric.score_graph(d.gold[k], sentences)
            rows["manual"].append(manual.samsa)
            rows["manual_abl"].append(manual.samsa_abl)
            abl: list[float] = []
            rows["trees"].append(replace(d.trees[k], menu=menus_[k]).scores(metric, sentences, abl=abl))
            rows["trees_abl"].append(abl)
        out[name] = rows
    return out


def coverage(
    scores: dict[str, dict[str, Any]],
    menus_: Sequence[TreeMenu],
    level: float = 0.9,
    corpus: bool = True,
    margin: float = 0.0,
) -> dict[str, Any]:
    """Share of (sentence, output) pairs whose manual score lies in the per-sentence interval, and per output
    whether the manual corpus mean lies in the 95% corpus parse interval."""
    inside, total = 0, 0
    found: dict[str, Any] = {}
    for name, rows in scores.items():
        ms = [menus_[k] for k in rows["sentences"]]
        for m, man, ts in zip(ms, rows["manual"], rows["trees"], strict=True):
            iv = sentence_interval(ts, m, level, margin)
            inside += iv.low - 1e-9 <= man <= iv.high + 1e-9
            total += 1
        if not corpus:
            continue
        means = corpus_draws(rows["trees"], draw_trees(ms, 1000))
        lo, hi = np.percentile(means, [2.5, 97.5])
        manual = float(np.mean(rows["manual"]))
        one_best = float(np.mean([t[0] for t in rows["trees"]]))
        found[name] = {"manual": round(manual, 2), "one_best": round(one_best, 2), "low": round(float(lo), 2),
                        "high": round(float(hi), 2), "inside": bool(lo - 1e-9 <= manual <= hi + 1e-9)}  # fmt: skip
    return {"sentence_coverage": round(inside / total, 4), "pairs": total, "corpus": found,
            "corpus_inside": sum(c["inside"] for c in found.values())}  # fmt: skip


def _greedy_subset(diffs: np.ndarray, sizes: np.ndarray, m: int) -> list[int]:
    """``m`` lines chosen one at a time, each the one whose manual annotation most lowers the corpus error
    (mean over outputs of |sum of the remaining signed differences| / sentences): a ceiling, as it knows every
    line's manual score."""
    total = diffs.sum(axis=1)
    used = np.zeros(diffs.shape[1], dtype=bool)
    out: list[int] = []
    for _ in range(m):
        after = np.mean(np.abs(total[:, None] - diffs) / sizes[:, None], axis=0)
        after[used] = np.inf
        k = int(np.argmin(after))
        out.append(k)
        used[k] = True
        total = total - diffs[:, k]
    return out


def annotation_curve(scores: dict[str, dict[str, Any]], menus_: Sequence[TreeMenu], shares: Sequence[float],
                     cal: Calibration, seeds: int = 5,
                     gold_counts: Sequence[int] | None = None) -> dict[str, Any]:  # fmt: skip
    """Mean absolute difference between one-best and manual corpus SAMSA over the battery outputs, after
    replacing a share of the source lines with their manual annotation: suggested lines against random ones,
    and three choices that know the manual annotation: the lines whose one-best Scene count is furthest from
    the annotators' (``gold_counts``; ties by the suggestion's order), the lines with the largest absolute
    errors summed over the outputs, and the greedy best subset (:func:`_greedy_subset`)."""
    n = len(menus_)
    per_output = {name: {k: i for i, k in enumerate(rows["sentences"])} for name, rows in scores.items()}
    tree_scores: dict[str, list[list[float]]] = {}
    for name, rows in scores.items():
        full = [[0.0] * len(m.weights) for m in menus_]
        for k, ts in zip(rows["sentences"], rows["trees"], strict=True):
            full[k] = ts
        tree_scores[name] = full
    order = suggestion_order(menus_, tree_scores, cal)
    diffs = np.zeros((len(scores), n))
    for o, rows in enumerate(scores.values()):
        for k, m, ts in zip(rows["sentences"], rows["manual"], rows["trees"], strict=True):
            diffs[o, k] = ts[0] - m
    sizes = np.array([len(rows["sentences"]) for rows in scores.values()], dtype=float)
    error = np.abs(diffs).sum(axis=0)
    largest = sorted(range(n), key=lambda k: (-error[k], k))
    rank = {k: r for r, k in enumerate(order)}
    wrong = None
    if gold_counts is not None:
        off = [abs(g - m.counts[0]) for g, m in zip(gold_counts, menus_, strict=True)]
        wrong = sorted(range(n), key=lambda k: (-off[k], rank[k]))

    def mad(manual_lines: set[int]) -> float:
        out = []
        for name, rows in scores.items():
            idx = per_output[name]
            vals = [rows["manual"][i] if k in manual_lines else rows["trees"][i][0] for k, i in idx.items()]
            out.append(abs(np.mean(vals) - np.mean(rows["manual"])))
        return float(np.mean(out))

    rng = np.random.default_rng(0)
    randoms = [rng.permutation(n).tolist() for _ in range(seeds)]
    curve = []
    for share in shares:
        m = round(share * n)
        point = {"share": share, "suggested": round(mad(set(order[:m])), 3),
                 "random": round(float(np.mean([mad(set(r[:m])) for r in randoms])), 3),
                 "oracle_largest_errors": round(mad(set(largest[:m])), 3),
                 "oracle_best_subset": round(mad(set(_greedy_subset(diffs, sizes, m))), 3)}  # fmt: skip
        if wrong is not None:
            point["oracle_wrong_count"] = round(mad(set(wrong[:m])), 3)
        curve.append(point)
    return {"curve": curve}


#: the share of (sentence, output) pairs whose manual score the per-sentence 90% interval should hold
TARGET_COVERAGE = 0.90
KEEPS = (0.0, 0.2, 0.4, 0.6)
FLOORS = (0.05, 0.1, 0.2, 0.3, 0.4)


def fit(dev: dict[str, Drawn], base: Calibration) -> tuple[Calibration, dict[str, Any]]:
    """``keep`` and ``floor`` (with the top map fitted on the pooled dev sets for each) with the lowest mean dev
    log-loss of the gold count, then the conformal ``margin`` of the 90% interval on the pooled dev battery."""
    best: tuple[float, Calibration] | None = None
    for keep in KEEPS:
        for floor in FLOORS:
            cal = replace(base, keep=keep, floor=floor)
            raw: list[float] = []
            hit: list[bool] = []
            for d in dev.values():
                r, h = raw_tops(d, cal)
                raw += r
                hit += h
            cal = replace(cal, top_map=fit_top_map(raw, hit))
            loss = float(np.mean([calibration_stats(d, cal)["log_loss"] for d in dev.values()]))
            if best is None or loss < best[0] - 1e-9:
                best = (loss, cal)
    assert best is not None
    cal = best[1]
    scores = {s: battery_tree_scores(d, menus(d, cal)) for s, d in dev.items()}
    lows, highs, manual = [], [], []
    for s, d in dev.items():
        ms = menus(d, cal)
        for rows in scores[s].values():
            for k, man, ts in zip(rows["sentences"], rows["manual"], rows["trees"], strict=True):
                iv = sentence_interval(ts, ms[k])
                lows.append(iv.low)
                highs.append(iv.high)
                manual.append(man)
    return replace(cal, margin=fit_margin(lows, highs, manual, TARGET_COVERAGE)), {"scores": scores}


def measure(d: Drawn, cal: Calibration, scores: dict[str, Any] | None = None) -> dict[str, Any]:
    """Calibration, coverage and the annotation curve of one set under ``cal``."""
    ms = menus(d, cal)
    st = calibration_stats(d, cal)
    sc = scores if scores is not None else battery_tree_scores(d, ms)
    return {**{k: round(v, 4) for k, v in st.items()}, **coverage(sc, ms, margin=cal.margin),
            **annotation_curve(sc, ms, [0.0, 0.1, 0.2, 0.3], cal, gold_counts=d.gold_counts)}  # fmt: skip


def draw_sets(pipeline: str, gold: dict[str, list[Any]], base: Calibration) -> dict[str, Drawn]:
    from samsa.parsers.builtin import BuiltinParser

    out = {}
    for s, gs in gold.items():
        parser = BuiltinParser(pipeline=pipeline, style=guideline_style(s))
        out[s] = draw_set(parser, gs, base)
    return out


def load_sets(data: str, names: Sequence[str], limit: int | None = None) -> dict[str, list[Any]]:
    from samsa.ucca.xml import list_passage_files, load_passage

    return {s: [load_passage(f) for f in list_passage_files(Path(data) / "ucca" / s)[:limit]] for s in names}


def main(argv: list[str] | None = None) -> int:
    from samsa.engine.uncertainty import CALIBRATION_FILE, calibration_key
    from samsa.parsers.builtin import BuiltinParser

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--pipeline", default="fast")
    ap.add_argument("--sets", nargs="+", default=None, help="dev sets (default: the pipeline's language's)")
    ap.add_argument("--draws", type=int, default=8)
    ap.add_argument("--tau", type=float, nargs="+", default=[0.25])
    ap.add_argument("--sigma", type=float, nargs="+", default=[3.0])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--fit", action="store_true", help="write the (last) calibration to the weights' table")
    args = ap.parse_args(argv)
    from lab.corpora import CORPORA

    lang = {"de": "de", "multilingual": "multi"}.get(args.pipeline, "en")
    default = ["fr20k/dev"] if args.pipeline == "fr" else [d.removeprefix("ucca/") for d in CORPORA[lang][1]]
    sets = args.sets or default
    gold = load_sets(args.data, sets, args.limit)
    for tau in args.tau:
        for sigma in args.sigma:
            base = Calibration(args.draws, tau, sigma, 0.0)
            dev = draw_sets(args.pipeline, gold, base)
            cal, info = fit(dev, base)
            row: dict[str, Any] = {"calibration": {**cal.__dict__}}
            for s, d in dev.items():
                row[s] = measure(d, cal, info["scores"][s])
                row[s]["point_log_loss"] = round(point_log_loss(d, row[s]["one_best_accuracy"]), 4)
            print(json.dumps(row), flush=True)
    if args.fit:
        parser = BuiltinParser(pipeline=args.pipeline)
        path = parser.weights.parent / CALIBRATION_FILE
        table = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        table[calibration_key(parser)] = {
            "calibration": {**cal.__dict__, "top_map": [list(x) for x in cal.top_map]},
            "chosen_by": "keep, floor and top map: the lowest mean dev log-loss of the gold Scene count; margin: "
            f"split conformal, {TARGET_COVERAGE} coverage of manual SAMSA on the pooled dev battery (lab.uncertainty)",
            "command": "python -m lab.uncertainty " + " ".join(sys.argv[1:] if argv is None else argv),
            "dev": {s: {k: row[s][k] for k in ("ece", "log_loss", "point_log_loss", "sentence_coverage")} for s in dev},
            # the one-best Scene count's accuracy over the dev sets pooled: the point-mass baseline's smoothing
            "dev_one_best_accuracy": round(
                sum(b == g for d in dev.values() for b, g in zip(d.one_best_counts, d.gold_counts, strict=True))
                / sum(len(d.gold_counts) for d in dev.values()),
                4,
            ),
        }
        path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"calibration written to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
