"""What the estimate of the all-manual corpus score is chosen from and measured on: per gold set, every battery
output's manual and parsed SAMSA per line, and each line's parse doubt (its calibrated menu of trees and the
output's score on each), as arrays; and the error model fitted on the dev sets.

    python -m lab.estimate --fit          # fit the error model on the dev sets, write it to the weights' table

``benchmarks/estimate.py`` simulates plans on these tables (gold UCCA playing the annotator).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from lab.corpora import guideline_style
from lab.uncertainty import BATTERY, battery_tree_scores, draw_set, load_sets, menus
from samsa.scoring.estimate import error_features
from samsa.scoring.uncertainty import count_error

__all__ = ["DEV", "TEST", "fit_error_model", "set_table", "spread"]

#: the dev sets each pipeline's error model is fitted on, and the test sets it is reported on
DEV = {"fast": ["wiki/dev", "ewt/dev"], "de": ["de20k/dev"], "fr": ["fr20k/dev"],
       "multilingual": ["wiki/dev", "ewt/dev", "de20k/dev"]}  # fmt: skip
TEST = {"fast": ["wiki/test", "20k/test"], "de": ["de20k/test"], "fr": ["fr20k/test"],
        "multilingual": ["wiki/test", "20k/test", "de20k/test"]}  # fmt: skip
#: where the tables are kept between runs (they take minutes to compute: every set parsed with its draws)
CACHE = Path(platformdirs.user_cache_dir("samsa")) / "lab" / "estimate_tables"


def set_table(data: str, name: str, pipeline: str, seed: int = 0) -> dict[str, np.ndarray]:
    """A gold set's table, computed once and kept in the user cache folder (:data:`CACHE`):
    ``manual``, ``parsed`` (outputs x lines; NaN where an output is not defined; ``manual_abl``, ``parsed_abl``,
    ``trees_abl``, ``spread_abl``: the same of SAMSA-abl), ``spread`` (outputs x lines: the
    expected squared distance between the output's score on a drawn tree and on the one-best, under the calibrated
    menu; ``trees``: each output's score on each of the line's trees, ``weights``: the menu's), ``count_error``
    (lines: the expected distance between the one-best's Scene count and the annotators' under the calibrated count
    distribution), ``tokens`` (lines). The file is named by the weights' and the calibration's digests: new
    weights or a new calibration compute it anew."""
    import hashlib

    from samsa.engine.uncertainty import parser_calibration
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.runtime import weights_digest
    from samsa.ucca.graph import tokens

    parser = BuiltinParser(pipeline=pipeline, style=guideline_style(name))
    cal = parser_calibration(parser)
    digest = hashlib.sha256(f"{weights_digest(parser.weights)}|{cal!r}".encode()).hexdigest()[:12]
    path = CACHE / f"{name.replace('/', '_')}_{pipeline}_{seed}_{digest}_abl.npz"  # with SAMSA-abl's columns
    if path.exists():
        with np.load(path) as z:
            return dict(z)
    gold = load_sets(data, [name])[name]
    drawn = draw_set(parser, gold, cal, seed)
    ms = menus(drawn, cal)
    scores = battery_tree_scores(drawn, ms)
    n = len(gold)
    width = max(len(m.weights) for m in ms)
    table = {k: np.full((len(BATTERY), n), np.nan) for k in ("manual", "parsed", "manual_abl", "parsed_abl")}
    for key in ("trees", "trees_abl"):
        table[key] = np.full((len(BATTERY), n, width), np.nan)
    table["weights"] = np.zeros((n, width))
    for k, m in enumerate(ms):
        table["weights"][k, : len(m.weights)] = m.weights
    for o, out in enumerate(BATTERY):
        rows = scores[out]
        for suffix in ("", "_abl"):
            for k, man, ts in zip(rows["sentences"], rows["manual" + suffix], rows["trees" + suffix], strict=True):
                table["manual" + suffix][o, k] = man
                table["parsed" + suffix][o, k] = ts[0]
                table["trees" + suffix][o, k, : len(ts)] = ts
    table["spread"] = spread(table["trees"], table["weights"])
    table["spread_abl"] = spread(table["trees_abl"], table["weights"])
    table["count_error"] = np.array([count_error(m, cal) for m in ms])
    table["tokens"] = np.array([len(tokens(g)) for g in gold], dtype=float)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **table)  # type: ignore[arg-type]  # numpy types **kwds as allow_pickle
    return table


def spread(trees: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(..., lines): the expected squared distance between a quantity's value on a drawn tree and on the one-best
    (tree 0), under each line's menu weights; ``trees`` (..., lines, trees) NaN-padded, ``weights`` (lines, trees)."""
    dev = np.nan_to_num(trees - trees[..., :1]) ** 2
    return (dev * weights).sum(axis=-1) / weights.sum(axis=-1)


def fit_error_model(tables: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    """Non-negative least squares of each (output, line) pair's squared error (manual - parsed)^2 on the error
    model's features (:func:`samsa.scoring.estimate.error_features`), pooled over the tables' battery outputs: the
    predicted squared error of a line is ``coef . features`` (``ErrorModel.predicted_sq``)."""
    from scipy.optimize import nnls

    xs, ys = [], []
    for t in tables:
        ok = ~np.isnan(t["manual"])
        x = error_features(t["spread"], t["count_error"])[ok]
        xs.append(x)
        ys.append(((t["manual"] - t["parsed"]) ** 2)[ok])
    x, y = np.concatenate(xs), np.concatenate(ys)
    coef, _ = nnls(x, y)
    pred = x @ coef
    corr = float(np.corrcoef(np.sqrt(pred), np.abs(np.sqrt(y)))[0, 1])
    return {"coef": [round(float(c), 6) for c in coef], "pairs": len(y), "corr_abs_error": round(corr, 4)}


def main(argv: list[str] | None = None) -> int:
    from samsa.engine.uncertainty import CALIBRATION_FILE, calibration_key
    from samsa.parsers.builtin import BuiltinParser

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--pipelines", nargs="+", default=["fast", "de"])
    ap.add_argument("--fit", action="store_true", help="write the error models to the weights' table")
    ap.add_argument("--floor", type=float, default=0.5, help="the variance floor's scale (benchmarks/estimate.py)")
    ap.add_argument("--share", type=float, default=0.5, help="the doubt design's uniform share (the same)")
    ap.add_argument("--design", choices=("doubt", "uniform"), default="doubt", help="the default design")
    ap.add_argument("--method", choices=("ht", "tuned"), default="tuned", help="the estimator (the same)")
    args = ap.parse_args(argv)
    for pipeline in args.pipelines:
        model = fit_error_model([set_table(args.data, s, pipeline) for s in DEV[pipeline]])
        model.update(fitted_on=DEV[pipeline], floor=args.floor, uniform_share=args.share, design=args.design,
                     method=args.method, quantile="t")  # fmt: skip
        model["command"] = "python -m lab.estimate " + " ".join(argv if argv is not None else sys.argv[1:])
        print(pipeline, json.dumps(model), flush=True)
        if args.fit:
            parser = BuiltinParser(pipeline=pipeline)
            path = parser.weights.parent / CALIBRATION_FILE
            table = json.loads(path.read_text(encoding="utf-8"))
            table[calibration_key(parser)]["error_model"] = model
            path.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
