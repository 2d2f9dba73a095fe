"""Validity of automatic SAMSA: the synthetic battery of ``samsa.studies.validity`` on gold UCCA sets, scored on
the manual annotation and on each pipeline's annotation of the same tokens (exact aligner, paper mode).

    python benchmarks/validity.py                      # the three pipelines; Wiki and EWT dev, Wiki and 20K test
    python benchmarks/validity.py --gold wiki/dev --parser builtin --out validity_wiki_dev_fast.json

Writes ``benchmarks/results/validity.json`` (``--out`` names another file) and prints one table per
pipeline and set: per output, mean manual and parsed SAMSA, mean absolute difference, the shares scored
0, Pearson; then split sensitivity, Kendall tau of the six outputs' ranking (SAMSA and SAMSA-abl), the
share of perfect splits scored 0 on the parse, and the pairs of outputs more than 5 points apart on
manual UCCA that the parse ranks the other way round. A pipeline that fits the Scene count to the output
(``fit_scenes``, docs/validity.md) is also scored on the same parses read as the paper reads them
(``without_fit_scenes``). Choices are made on the dev sets; the test sets are reported for the record.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, write_json

from samsa.registry import get_parser
from samsa.studies.validity import (
    OUTPUTS,
    battery_scores,
    kendall_tau,
    output_stats,
    reversals,
    split_sensitivity,
)
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage


def one_set(gold_rel: str, parser: str, scene_bias: float | None = None) -> dict:
    """The battery on one gold set; EWT sets are parsed under their guidelines' style (UCCA v2), the others
    under the Wiki style, as ``benchmarks/parser_eval.py`` parses them."""
    gold = [load_passage(f) for f in list_passage_files(DATA / "ucca" / gold_rel)]
    options: dict = {"style": "ewt" if gold_rel.startswith("ewt") else "wiki"} if parser.startswith("builtin") else {}
    if scene_bias is not None:
        options["scene_bias"] = scene_bias
    start = time.perf_counter()
    built = get_parser(parser, **options)
    parsed = built.parse([tokens(g) for g in gold])
    parse_seconds = time.perf_counter() - start
    scores = battery_scores(gold, parsed)
    stats = {n: output_stats(s["manual"], s["parsed"]) for n, s in scores.items()}
    # the same parses read as the paper does: an output with more sentences than the parse has Scenes scores 0
    fitted = any(g.graph.get("scene_ladder") for g in parsed)
    plain = [_without_ladder(g) for g in parsed]
    unfitted = {n: output_stats(s["manual"], s["parsed"]) for n, s in battery_scores(gold, plain).items()}
    abl = {n: output_stats(s["manual_abl"], s["parsed_abl"]) for n, s in scores.items()}
    names = list(OUTPUTS)
    return {
        "gold": gold_rel,
        "sentences": len(gold),
        "parser_options": options,
        "parser_signature": built.signature() if hasattr(built, "signature") else parser,
        "parse_seconds": round(parse_seconds, 1),
        "outputs": {n: {k: _round(v) for k, v in asdict(stats[n]).items()} for n in names},
        "outputs_abl": {n: {k: _round(v) for k, v in asdict(abl[n]).items()} for n in names},
        "split_sensitivity": _round(split_sensitivity(stats)),
        "split_sensitivity_abl": _round(split_sensitivity(abl)),
        "kendall_tau": _round(
            kendall_tau([stats[n].mean_manual for n in names], [stats[n].mean_parsed for n in names])
        ),
        "kendall_tau_abl": _round(
            kendall_tau([abl[n].mean_manual for n in names], [abl[n].mean_parsed for n in names])
        ),
        "perfect_split_zero_share": _round(stats["scene-split"].zero_parsed),
        "reversals_over_5_points": [list(p) for p in reversals(stats)],
        "without_fit_scenes": None if not fitted else {
            "split_sensitivity": _round(split_sensitivity(unfitted)),
            "perfect_split_zero_share": _round(unfitted["scene-split"].zero_parsed),
            "identity_mean_abs_difference": _round(unfitted["identity"].mean_abs_difference),
            "kendall_tau": _round(kendall_tau([unfitted[n].mean_manual for n in names],
                                              [unfitted[n].mean_parsed for n in names])),
            "reversals_over_5_points": [list(p) for p in reversals(unfitted)],
        },
    }  # fmt: skip


def _without_ladder(g: nx.DiGraph) -> nx.DiGraph:
    """A copy of ``g`` without its Scene ladder."""
    out = g.copy()
    out.graph.pop("scene_ladder", None)
    return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def table(r: dict) -> str:
    head = "| output | manual | parsed | mean abs diff | zero manual | zero parsed | Pearson |\n" + "|---" * 7 + "|"
    rows = [
        f"| {n} | {s['mean_manual']:.1f} | {s['mean_parsed']:.1f} | {s['mean_abs_difference']:.1f} | "
        f"{100 * s['zero_manual']:.0f}% | {100 * s['zero_parsed']:.0f}% | "
        f"{'-' if s['pearson'] is None else format(s['pearson'], '.3f')} |"
        for n, s in r["outputs"].items()
    ]
    tail = (
        f"split sensitivity {r['split_sensitivity']} (SAMSA-abl {r['split_sensitivity_abl']}), Kendall tau "
        f"{r['kendall_tau']} (SAMSA-abl {r['kendall_tau_abl']}), perfect splits scored 0: "
        f"{100 * r['perfect_split_zero_share']:.1f}%, reversals over 5 points: "
        f"{r['reversals_over_5_points'] or 'none'}"
    )
    return f"{r['gold']} ({r['sentences']} sentences)\n{head}\n" + "\n".join(rows) + "\n" + tail


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", nargs="+", default=["wiki/dev", "ewt/dev", "wiki/test", "20k/test"], metavar="SET",
                    help="gold sets under the data's ucca/ folder (default: %(default)s)")  # fmt: skip
    ap.add_argument("--parser", nargs="+", default=["builtin", "builtin:accurate", "builtin:mpnet"],
                    help="parsers (default: %(default)s)")  # fmt: skip
    ap.add_argument("--scene-bias", type=float, default=None, help="decode with this Scene bias (a sweep on dev)")
    ap.add_argument(
        "--out", default="validity.json", help="result file under benchmarks/results/ (default: %(default)s)"
    )
    args = ap.parse_args()
    runs = []
    for parser in args.parser:
        results = [one_set(g, parser, args.scene_bias) for g in args.gold]
        for r in results:
            print(f"{parser}: {table(r)}", end="\n\n")
        runs.append({"parser": parser, "sets": results})
    command = "python benchmarks/validity.py " + " ".join(sys.argv[1:])
    write_json(args.out, {"command": command.strip(), "runs": runs})


if __name__ == "__main__":
    main()
