"""``samsa ucca-eval GOLD_DIR PRED_DIR``: the standard UCCA evaluation, plus scene-level scores."""

from __future__ import annotations

import argparse
import json

from samsa.cli.io import Output, add_command, add_format_options
from samsa.errors import InputError
from samsa.ucca.evaluation import evaluate_corpus, scene_scores
from samsa.ucca.graph import tokens
from samsa.ucca.xml import list_passage_files, load_passage

DESCRIPTION = """\
Evaluate predicted UCCA passages against gold ones: labeled and unlabeled
precision, recall and F1 for primary, remote and implicit units and their pooled
average (primary + remote, as in SemEval 2019), plus scene-unit F1 and
minimal-center accuracy (what SAMSA consumes). Files are paired by name when both
directories hold the same names, otherwise in natural order.

examples:
  samsa parse --tokenizer none --input 20k.txt --output-dir predicted/   # 20k.txt from samsa extract-text
  samsa ucca-eval $SAMSA_DATA/ucca/20k/test predicted/
  samsa ucca-eval $SAMSA_DATA/ucca/20k/test predicted/ -f json -o scores.json
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "ucca-eval", "UCCA evaluation (labeled F1, scene F1)", DESCRIPTION)
    p.add_argument("gold", metavar="GOLD_DIR")
    p.add_argument("pred", metavar="PRED_DIR")
    add_format_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar (not EASSE's -q, quality estimation)")
    p.add_argument(
        "--normalize",
        action="store_true",
        help="apply the ucca evaluator's normalization first, as the SemEval 2019 scorer does (needs the "
        "optional ucca package; default: off, the ucca evaluator's normalize=False)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    output = Output.from_args(args)
    output.check([args.gold, args.pred])
    gold, pred = list_passage_files(args.gold), list_passage_files(args.pred)
    if [f.name for f in gold] != [f.name for f in pred] and len(gold) != len(pred):
        raise InputError(args.pred, None, f"holds {len(pred)} XML files but {args.gold} holds {len(gold)}")
    from samsa.engine.pipeline import progress_bar

    pairs = []
    bar = progress_bar(len(gold), "load", args.quiet)
    for g, p in zip(gold, pred, strict=True):
        bar.update(1)
        gg, pp = load_passage(g), load_passage(p)
        if tokens(gg) != tokens(pp):
            raise InputError(p, None, f"its terminals differ from those of {g}; both must tokenize the same text")
        pairs.append((pp, gg))
    bar.close()
    scores = evaluate_corpus(pairs, normalize=args.normalize).to_dict()
    scenes = scene_scores(pairs)
    normalization = "none"
    if args.normalize:
        from samsa.ucca.interop import ucca_version

        normalization = f"ucca-{ucca_version()}"
    if args.format == "json":
        output.emit(
            json.dumps({"passages": len(pairs), "normalization": normalization, **scores, "scenes": scenes}, indent=2)
        )
        return 0
    from samsa.tables import render

    columns = {"P": "p", "R": "r", "F1": "f1", "guessed": "guessed", "ref": "ref", "matches": "matches"}
    by_type = [(t, c, v) for t, by_c in scores.items() for c, v in by_c.items()]
    rows = [{"type": t, "construction": c, **{name: v[k] for name, k in columns.items()}} for t, c, v in by_type]
    table = render(rows, list(rows[0]), args.format, width=max(args.width, 3))
    note = (
        f"scene F1 {scenes['scene_f1']:.3f} (P {scenes['scene_p']:.3f}, R {scenes['scene_r']:.3f}); "
        f"main-relation center accuracy {scenes['main_relation_center_accuracy']:.3f}; "
        f"participant center accuracy {scenes['participant_center_accuracy']:.3f}\n"
        f"normalization: {normalization} (UCCA F1 rows; scene scores are never normalized)"
    )
    if args.format == "csv":
        output.emit(table)
    elif args.format == "latex":
        output.emit(table + "\n" + "\n".join(f"% {x}" for x in note.splitlines()))
    else:
        output.emit(table + "\n\n" + note)
    return 0
