"""Validity of automatic SAMSA in both directions: the synthetic battery of ``lab.validity`` on gold
UCCA sets, scored on the manual annotation and on each pipeline's annotation of the same tokens (exact aligner,
paper mode), and each pipeline's agreement with human structural simplicity on the ACL-2018 benchmark
(``lab.agreement``).

    python benchmarks/validity.py                      # the three pipelines; Wiki and EWT dev, Wiki and 20K test
    python benchmarks/validity.py --gold wiki/dev --parser builtin --out validity_wiki_dev_fast.json
    python benchmarks/validity.py --gold de20k/dev de20k/test --parser builtin:de builtin --no-human --deplain \
        --add                                          # German, the English parser beside it (EASSE-DE's way)

Writes ``benchmarks/results/validity.json`` (``--out`` names another file) and prints one table per
pipeline and set: per output, mean manual and parsed SAMSA, mean absolute difference, the shares scored
0, Pearson; then split sensitivity, the over-split excess of the outputs with more sentences than Scenes,
the battery's mean absolute difference, Kendall tau of the nine outputs' ranking, the share of perfect splits
scored 0 (and below 10) on the parse, the pairs of outputs more than 5 points apart on manual UCCA that the
parse ranks the other way round; and the human agreement with its bootstrap interval over sources (needs the
``human`` extra; ``--no-human`` skips it). Choices are made on the dev sets; the test sets are reported for
the record.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import DATA, RESULTS, write_json

from lab.corpora import guideline_style
from lab.validity import (
    OUTPUTS,
    battery_mad,
    battery_scores,
    kendall_tau,
    output_stats,
    over_split_excess,
    reversals,
    split_sensitivity,
)
from samsa.registry import get_parser
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage


def one_set(gold_rel: str, parser: str, scene_bias: float | None = None) -> dict:
    """The battery on one gold set; EWT sets are parsed under their guidelines' style (UCCA v2), the others
    under the Wiki style, as ``benchmarks/parser_eval.py`` parses them."""
    gold = [load_passage(f) for f in list_passage_files(DATA / "ucca" / gold_rel)]
    options = _options(parser, scene_bias, guideline_style(gold_rel))
    start = time.perf_counter()
    built = get_parser(parser, **options)
    parsed = built.parse([tokens(g) for g in gold])
    parse_seconds = time.perf_counter() - start
    scores = battery_scores(gold, parsed)
    stats = {n: output_stats(s["manual"], s["parsed"]) for n, s in scores.items()}
    abl = {n: output_stats(s["manual_abl"], s["parsed_abl"]) for n, s in scores.items()}
    names = list(OUTPUTS)
    perfect = scores["scene-split"]["parsed"]
    return {
        "gold": gold_rel,
        "sentences": len(gold),
        "parser_options": options,
        "parser_signature": built.signature() if hasattr(built, "signature") else parser,
        "parse_seconds": round(parse_seconds, 1),
        "outputs": {n: {"sentences": len(scores[n]["manual"]), **_rounded(asdict(stats[n]))} for n in names},
        "outputs_abl": {n: _rounded(asdict(abl[n])) for n in names},
        "split_sensitivity": _round(split_sensitivity(stats)),
        "split_sensitivity_abl": _round(split_sensitivity(abl)),
        "over_split_excess": _rounded(over_split_excess(stats)),
        "battery_mad": _round(battery_mad(stats)),
        "kendall_tau": _round(
            kendall_tau([stats[n].mean_manual for n in names], [stats[n].mean_parsed for n in names])
        ),
        "kendall_tau_abl": _round(
            kendall_tau([abl[n].mean_manual for n in names], [abl[n].mean_parsed for n in names])
        ),
        "perfect_split_zero_share": _round(stats["scene-split"].zero_parsed),
        "perfect_split_below_10_share": _round(sum(x < 10 for x in perfect) / len(perfect)),
        "reversals_over_5_points": [list(p) for p in reversals(scores)],
    }


def human_agreement(parser: str, scene_bias: float | None = None, resamples: int = 1000) -> dict:
    """The parser's SAMSA against the ACL-2018 structural-simplicity ratings (``lab.agreement``)."""
    from lab.agreement import acl2018_items, agreement, human_items

    sources, outputs, ratings = acl2018_items(DATA)
    graphs = get_parser(parser, **_options(parser, scene_bias, "wiki")).parse(sources)
    result = agreement(human_items(graphs, outputs, ratings), resamples=resamples)
    return {name: a.to_dict() for name, a in result.items()}


def deplain(parser: str, scene_bias: float | None = None) -> dict:
    """The parser's German SAMSA (paper mode, exact aligner, German tokenizer and splitter) on DEplain-web's
    rated pairs, against their one rater's structural simplicity and meaning preservation (``lab.deplain``)."""
    from lab.deplain import deplain_agreement, deplain_items
    from samsa.config import SamsaConfig
    from samsa.scoring.metric import Samsa

    items = deplain_items(DATA)
    built = get_parser(parser, **_options(parser, scene_bias, "wiki"))
    graphs = built.parse([it.original for it in items])
    metric = Samsa(SamsaConfig(language="de", parser=built))
    scores = [metric.sentence_score(g, it.simplification).samsa for g, it in zip(graphs, items, strict=True)]
    return {"signature": metric.signature(), **deplain_agreement(items, scores)}


def _options(parser: str, scene_bias: float | None, style: str) -> dict:
    options: dict = {"style": style} if parser.startswith("builtin") else {}
    if scene_bias is not None:
        options["scene_bias"] = scene_bias
    return options


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _rounded(d: dict) -> dict:
    return {k: _round(v) if isinstance(v, float) or v is None else v for k, v in d.items()}


def table(r: dict) -> str:
    head = "| output | manual | parsed | mean abs diff | zero manual | zero parsed | Pearson |\n" + "|---" * 7 + "|"
    rows = [
        f"| {n} | {s['mean_manual']:.1f} | {s['mean_parsed']:.1f} | {s['mean_abs_difference']:.1f} | "
        f"{100 * s['zero_manual']:.0f}% | {100 * s['zero_parsed']:.0f}% | "
        f"{'-' if s['pearson'] is None else format(s['pearson'], '.3f')} |"
        for n, s in r["outputs"].items()
    ]
    excess = ", ".join(f"{k} {v:+.1f}" for k, v in r["over_split_excess"].items())
    tail = (
        f"split sensitivity {r['split_sensitivity']}, over-split excess {excess}, battery MAD {r['battery_mad']}, "
        f"Kendall tau {r['kendall_tau']}, perfect splits scored 0: {100 * r['perfect_split_zero_share']:.1f}% "
        f"(below 10: {100 * r['perfect_split_below_10_share']:.1f}%), reversals over 5 points: "
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
    ap.add_argument("--no-human", action="store_true", help="skip the agreement with the ACL-2018 ratings")
    ap.add_argument(
        "--deplain", action="store_true", help="German: agreement with DEplain-web's ratings (reported, never tuned on)"
    )
    ap.add_argument(
        "--out", default="validity.json", help="result file under benchmarks/results/ (default: %(default)s)"
    )
    ap.add_argument("--add", action="store_true", help="merge these runs into the result file's (others kept)")
    args = ap.parse_args()
    runs = []
    for parser in args.parser:
        results = [one_set(g, parser, args.scene_bias) for g in args.gold]
        for r in results:
            print(f"{parser}: {table(r)}", end="\n\n")
        run: dict = {"parser": parser, "sets": results}
        if not args.no_human:
            run["human_agreement"] = human_agreement(parser, args.scene_bias)
            print(f"{parser}: human agreement {run['human_agreement']}", end="\n\n")
        if args.deplain:
            run["deplain_agreement"] = deplain(parser, args.scene_bias)
            print(f"{parser}: DEplain-web agreement {run['deplain_agreement']}", end="\n\n")
        runs.append(run)
    command = ("python benchmarks/validity.py " + " ".join(sys.argv[1:])).strip()
    result = {"command": command, "runs": runs}
    if args.add and (RESULTS / args.out).is_file():
        result = merged(json.loads((RESULTS / args.out).read_text(encoding="utf-8")), runs, command)
    write_json(args.out, result)


def merged(old: dict, runs: list[dict], command: str) -> dict:
    """``old`` with each new run's sets and agreements put in the run of the same parser (added when none)."""
    by_parser = {r["parser"]: r for r in old["runs"]}
    for run in runs:
        run["command"] = command
        mine = by_parser.get(run["parser"])
        if mine is None:
            old["runs"].append(run)
            continue
        sets = {s["gold"]: s for s in mine["sets"]}
        sets.update({s["gold"]: s for s in run["sets"]})
        mine["sets"] = list(sets.values())
        mine.update({k: v for k, v in run.items() if k not in ("sets", "parser")})
    old.setdefault("commands", [old.get("command")])
    old["commands"] = [*dict.fromkeys([*old["commands"], command])]
    return old


if __name__ == "__main__":
    main()
