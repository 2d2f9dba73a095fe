"""``samsa compare-annotations``: SAMSA with manual vs parser UCCA of the same sources."""

from __future__ import annotations

import argparse
import json

from samsa.cli.common import add_aligner_options, add_runtime_options, build_aligner, dask_target, open_cache
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, read_lines
from samsa.metric import Samsa
from samsa.registry import get_parser
from samsa.text import TOKENIZERS

DESCRIPTION = """\
Score the same system outputs with manual UCCA (--ucca) and with the built-in
parser's UCCA of the same sentences (gold tokens kept), and report the UCCA F1
between the two annotations, scene counts, per-sentence SAMSA differences, their
Pearson/Spearman correlation and the system ranking under each.

example:
  samsa compare-annotations --ucca gold_xml/ --system sys1.txt sys2.txt --json
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare-annotations", help="SAMSA with manual vs parsed UCCA", description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--ucca", required=True, metavar="DIR", help="manual UCCA XML, one file per line")
    p.add_argument("--system", required=True, nargs="+", metavar="FILE", help="system output file(s)")
    p.add_argument("--parser", default="builtin", help="parser to compare with (default: %(default)s)")
    p.add_argument("--compat", choices=("paper", "easse"), default="paper")
    p.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default="wordpunct")
    p.add_argument("--sentence-separator", metavar="SEP", default=None)
    add_aligner_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.compare import compare_annotations
    from samsa.graph import tokens

    xml = get_parser("xml", directory=args.ucca)
    gold = xml.load()
    systems = {}
    for path in args.system:
        lines = read_lines(path, max_tokens=DEFAULT_MAX_TOKENS)
        if len(lines) != len(gold):
            raise InputError(path, min(len(lines), len(gold)) + 1,
                             f"has {len(lines)} lines but {args.ucca} holds {len(gold)} UCCA XML files")  # fmt: skip
        systems[path] = lines
    from samsa.pipeline import parse_corpus, progress_bar, worker_count

    parser = get_parser(args.parser)
    cache = open_cache(args)
    bar = progress_bar(len(gold), "parse", args.quiet)
    try:  # the gold tokenization is kept
        parsed = parse_corpus(parser, [tokens(g) for g in gold], cache=cache, jobs=worker_count(args.jobs),
                              dask=dask_target(args), progress=bar.update)  # fmt: skip
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    metric = Samsa(aligner=build_aligner(args), compat=args.compat, tokenizer=args.tokenizer,
                   separator=args.sentence_separator, parser=parser)  # fmt: skip
    result = compare_annotations(gold, parsed, systems, metric)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    f1 = result["ucca_labeled_f1"]
    lines = [f"UCCA labeled F1 parsed vs manual: primary {100 * f1['primary']:.1f}, remote {100 * f1['remote']:.1f}, "
             f"pooled {100 * f1['pooled']:.1f}; scene F1 {100 * result['scenes']['scene_f1']:.1f}; scenes: manual "
             f"{result['scene_counts']['gold']}, parsed {result['scene_counts']['parsed']}", "",
             "| system | SAMSA manual | SAMSA parsed | SAMSA-abl manual | SAMSA-abl parsed | mean abs diff | "
             "Pearson | Spearman |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, b in result["systems"].items():
        pr = "n/a" if b["pearson"] is None else f"{b['pearson']['r']:.2f}"
        sr = "n/a" if b["spearman"] is None else f"{b['spearman']['r']:.2f}"
        lines.append(f"| {name} | {b['samsa_gold']:.2f} | {b['samsa_parsed']:.2f} | {b['samsa_abl_gold']:.2f} | "
                     f"{b['samsa_abl_parsed']:.2f} | {b['mean_abs_difference']:.2f} | {pr} | {sr} |")  # fmt: skip
    lines.append("")
    lines.append("ranking (manual): " + " > ".join(result["ranking_gold"]))
    lines.append("ranking (parsed): " + " > ".join(result["ranking_parsed"]))
    print("\n".join(lines))
    return 0
