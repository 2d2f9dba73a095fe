"""``samsa compare-annotations``: SAMSA with manual vs parser UCCA of the same sources."""

from __future__ import annotations

import argparse
import json
from typing import Any

from samsa.cli.common import add_aligner_options, add_runtime_options, build_aligner, dask_target, open_cache
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, read_lines
from samsa.metric import Samsa
from samsa.registry import get_parser, resolve
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
    p.add_argument(
        "--parsed",
        metavar="DIR",
        default=None,
        help="compare with these UCCA XML files instead of parsing (another annotator, a TUPA run, ...)",
    )
    p.add_argument("--compat", choices=("paper", "easse"), default="paper")
    p.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default="wordpunct")
    p.add_argument("--sentence-separator", metavar="SEP", default=None)
    add_aligner_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.compare import compare_annotations

    xml = get_parser("xml", directory=args.ucca)
    from samsa.pipeline import progress_bar

    with progress_bar(len(xml.files), "load", args.quiet) as bar:
        gold = xml.load(bar.update)
    systems = {}
    for path in args.system:
        lines = read_lines(path, max_tokens=DEFAULT_MAX_TOKENS)
        if len(lines) != len(gold):
            raise InputError(path, min(len(lines), len(gold)) + 1,
                             f"has {len(lines)} lines but {args.ucca} holds {len(gold)} UCCA XML files")  # fmt: skip
        systems[path] = lines

    if args.parsed or resolve("parsers", args.parser).startswith("xml."):
        if not args.parsed:
            raise InputError(None, None, "the xml parser reads annotations, it does not parse: give --parsed DIR")
        parser = get_parser("xml", directory=args.parsed)
        parser.check_count(len(gold))
        with progress_bar(len(parser.files), "load", args.quiet) as bar:
            parsed = parser.load(bar.update)
        _check_tokens(gold, parsed, xml.files, parser.files)
    else:
        parsed, parser = _parse(args, gold)
    metric = Samsa(aligner=build_aligner(args), compat=args.compat, tokenizer=args.tokenizer,
                   separator=args.sentence_separator, parser=parser)  # fmt: skip
    result = compare_annotations(gold, parsed, systems, metric)
    _print(result, args.json)
    return 0


def _parse(args: argparse.Namespace, gold: list[Any]) -> tuple[list[Any], Any]:
    """Parse the gold passages' sentences (their tokenization kept) with --parser."""
    from samsa.graph import tokens
    from samsa.pipeline import parse_corpus, progress_bar, worker_count

    parser = get_parser(args.parser)
    cache = open_cache(args)
    bar = progress_bar(len(gold), "parse", args.quiet)
    try:
        parsed = parse_corpus(parser, [tokens(g) for g in gold], cache=cache, jobs=worker_count(args.jobs),
                              dask=dask_target(args), progress=bar.update)  # fmt: skip
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    return parsed, parser


def _check_tokens(gold: list[Any], parsed: list[Any], gold_files: list[Any], parsed_files: list[Any]) -> None:
    """Two annotations can only be compared over the same tokens."""
    from samsa.graph import tokens

    for g, p, gf, pf in zip(gold, parsed, gold_files, parsed_files, strict=True):
        if tokens(g) != tokens(p):
            raise InputError(pf, None, f"its tokens differ from {gf}'s; both annotations must cover the same "
                             "tokenized sentence")  # fmt: skip


def _print(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2))
        return
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
