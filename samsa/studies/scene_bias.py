"""Choose the built-in parser's Scene bias on the dev sets by what SAMSA needs of a parse (the step after
``samsa.parsers.train``).

Usage:
    python -m samsa.studies.scene_bias --pipeline fast [--data ../shared/data] [--weights FILE] [--fit-scenes]

A bias added to the log-probability of the main-relation labels (P/S) before decoding makes the parser find
more Scenes. Too few Scenes make SAMSA score a correct split 0 (more output sentences than source Scenes);
too many lower every score through the non-splitting penalty. For each bias of :data:`GRID` this decodes
Wiki dev and EWT dev (EWT under its guidelines' style), scores the validity battery
(:mod:`samsa.studies.validity`) on the manual and on the parsed annotation, and keeps the bias with the
highest mean **split sensitivity** among those whose identity mean absolute difference stays within
:data:`MAD_SLACK` points of the unbiased decoding's on every set (:func:`choose`). The choice and the whole
grid go into the weights file (``meta.decode``); the parser decodes with that bias unless it is given
another (``scene_bias=``), and its signature names it. With ``--fit-scenes`` every parse carries its Scene
ladder (``samsa.parsers.builtin.decode.scene_ladder``), which SAMSA reads for outputs with more sentences than
the parse has Scenes; the choice then says so too (``meta.decode.fit_scenes``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from samsa.studies.validity import OutputStats, battery_scores, output_stats, split_sensitivity

__all__ = ["GRID", "MAD_SLACK", "battery_stats", "choose", "main"]

#: the Scene biases tried, in order
GRID = (0.0, 0.5, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
#: how much worse than the unbiased decoding's the identity output's mean absolute difference may get
MAD_SLACK = 1.0
#: the dev sets the choice is made on, under the data root's ``ucca/`` folder
DEV_SETS = ("wiki/dev", "ewt/dev")


def battery_stats(gold: Sequence[Any], parsed: Sequence[Any]) -> dict[str, OutputStats]:
    """The validity battery's SAMSA :class:`~samsa.studies.validity.OutputStats` of ``parsed`` against ``gold``."""
    return {name: output_stats(s["manual"], s["parsed"]) for name, s in battery_scores(gold, parsed).items()}


def grid_row(bias: float, per_set: Mapping[str, Mapping[str, OutputStats]]) -> dict[str, Any]:
    """One bias's record: per set, split sensitivity, identity mean absolute difference, perfect splits at 0."""
    sets = {}
    for name, stats in per_set.items():
        sensitivity = split_sensitivity(stats)
        sets[name] = {
            "split_sensitivity": None if sensitivity is None else round(sensitivity, 4),
            "identity_mean_abs_difference": round(stats["identity"].mean_abs_difference, 4),
            "perfect_split_zero_share": round(stats["scene-split"].zero_parsed, 4),
        }
    return {"scene_bias": bias, "sets": sets}


def choose(
    grid: Sequence[Mapping[str, Any]], slack: float = MAD_SLACK, reference: Mapping[str, Any] | None = None
) -> float:
    """The bias of ``grid`` (rows of :func:`grid_row`, the unbiased one first) with the highest mean split
    sensitivity over the sets among those whose identity mean absolute difference is within ``slack`` of the
    ``reference`` row's (default: the first row, the same weights unbiased) on every set; the smaller bias on
    a tie; the first row when none is within. New weights are held to the identity difference of the weights
    they replace (``reference``).

    >>> row = lambda b, s, m: {"scene_bias": b, "sets": {"x": {"split_sensitivity": s,
    ...                                                        "identity_mean_abs_difference": m}}}
    >>> choose([row(0.0, 0.2, 8.0), row(1.0, 0.4, 8.9), row(2.0, 0.5, 9.1)])
    1.0
    """
    base = (grid[0] if reference is None else reference)["sets"]

    def allowed(row: Mapping[str, Any]) -> bool:
        return all(
            s["identity_mean_abs_difference"] <= base[name]["identity_mean_abs_difference"] + slack
            for name, s in row["sets"].items()
        )

    def mean_sensitivity(row: Mapping[str, Any]) -> float:
        values = [s["split_sensitivity"] for s in row["sets"].values() if s["split_sensitivity"] is not None]
        return sum(values) / len(values) if values else float("-inf")

    candidates = [r for r in grid if allowed(r)] or [grid[0]]  # none within the slack: no bias
    best = max(candidates, key=lambda r: (mean_sensitivity(r), -r["scene_bias"]))
    return float(best["scene_bias"])


def main(argv: list[str] | None = None) -> int:
    from samsa.parsers.builtin import BuiltinParser
    from samsa.parsers.builtin.runtime import update_meta, weights_digest
    from samsa.parsers.corpora import data_hash
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data", help="data root (default: %(default)s)")
    ap.add_argument("--pipeline", default="fast", help="the pipeline whose weights to decode (default: %(default)s)")
    ap.add_argument("--weights", default=None, help="another weights file, decoded as --pipeline's")
    ap.add_argument(
        "--fit-scenes",
        action="store_true",
        help="decode every parse with its Scene ladder (the parser's fit_scenes option)",
    )
    ap.add_argument("--reference-weights", default=None, metavar="FILE",
                    help="hold the identity difference to this file's unbiased decoding (the weights the new ones "
                         "replace; default: the weights' own)")  # fmt: skip
    args = ap.parse_args(argv)
    files = {name: list_passage_files(Path(args.data) / "ucca" / name) for name in DEV_SETS}
    gold = {name: [load_passage(f) for f in fs] for name, fs in files.items()}

    def rows(weights: str | None, biases: Sequence[float], fit: bool) -> list[dict[str, Any]]:
        per_set: list[dict[str, Any]] = [{} for _ in biases]
        for name, graphs in gold.items():  # each set featurized once, decoded at every bias
            parser = BuiltinParser(pipeline=args.pipeline, weights=weights, fit_scenes=fit,
                                   style="ewt" if name.startswith("ewt") else "wiki")  # fmt: skip
            parsed = parser.parse_at_biases([tokens(g) for g in graphs], biases)
            for stats, at_bias in zip(per_set, parsed, strict=True):
                stats[name] = battery_stats(graphs, at_bias)
        return [grid_row(bias, stats) for bias, stats in zip(biases, per_set, strict=True)]

    reference = None  # the weights the new ones replace, decoded as they were: unbiased, without a ladder
    if args.reference_weights or args.fit_scenes:
        ref = args.reference_weights or str(BuiltinParser(pipeline=args.pipeline, weights=args.weights).weights)
        reference = {**rows(ref, [0.0], False)[0], "weights": Path(ref).name, "sha256": weights_digest(ref),
                     "fit_scenes": False}  # fmt: skip
    grid = rows(args.weights, GRID, args.fit_scenes)
    for r in grid:
        print(json.dumps(r), file=sys.stderr, flush=True)
    chosen = choose(grid, reference=reference)
    weights = BuiltinParser(pipeline=args.pipeline, weights=args.weights).weights
    update_meta(weights, decode={
        "scene_bias": chosen,
        "fit_scenes": args.fit_scenes,
        "chosen_by": f"the highest mean split sensitivity with the identity mean absolute difference within "
                     f"{MAD_SLACK:g} of the reference's unbiased decoding (samsa.studies.scene_bias)",
        "reference": reference or "these weights, unbiased",
        "command": "python -m samsa.studies.scene_bias " + " ".join(sys.argv[1:] if argv is None else argv),
        "dev_sha256": data_hash([f for fs in files.values() for f in fs]),
        "grid": grid,
    })  # fmt: skip
    print(f"scene_bias {chosen} (fit_scenes {args.fit_scenes}) written to {weights}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
