"""``samsa compare-annotations``: SAMSA with manual vs parser UCCA of the same sources."""

from __future__ import annotations

import argparse
import json
from typing import Any

from samsa.cli.common import (
    add_aligner_options,
    add_language_option,
    add_runtime_options,
    dask_target,
    default_parser,
    open_cache,
    samsa_config,
)
from samsa.cli.io import (
    add_format_options,
    add_system_options,
    check_output,
    emit,
    output_inputs,
    read_text_lines,
    shown,
    system_files,
)
from samsa.config import COMPAT_NAMES, SamsaConfig
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_write_text, check_output_path
from samsa.registry import get_parser, resolve
from samsa.scoring.metric import Samsa
from samsa.text import TOKENIZERS

DESCRIPTION = """\
Score the same system outputs with manual UCCA (--ucca) and with the built-in
parser's UCCA of the same sentences (gold tokens kept), and report the UCCA F1
between the two annotations, scene counts, per-sentence SAMSA differences, their
Pearson/Spearman correlation and the system ranking under each.

examples:
  samsa compare-annotations --ucca gold_xml/ sys1.txt sys2.txt --name A B
  samsa compare-annotations --ucca gold_xml/ --parsed tupa_xml/ out.txt --per-sentence rows.jsonl -f json
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare-annotations",
        help="SAMSA with manual vs parsed UCCA",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--ucca", required=True, metavar="DIR", help="manual UCCA XML, one file per line")
    add_system_options(p)
    p.add_argument(
        "--parser",
        default=None,
        help="parser to compare with (default: the language's: builtin for en, builtin:de for de; "
        "builtin:accurate, builtin:mpnet: those pipelines)",
    )
    p.add_argument(
        "--parsed",
        metavar="DIR",
        default=None,
        help="compare with these UCCA XML files instead of parsing (another annotator, a TUPA run, ...)",
    )
    p.add_argument("--compat", choices=sorted(COMPAT_NAMES), default=SamsaConfig.compat)
    p.add_argument(
        "--tokenizer",
        choices=sorted(TOKENIZERS),
        default=None,
        help="(default: the language's: wordpunct for en, de for de)",
    )
    p.add_argument("--sentence-separator", metavar="SEP", default=None)
    add_aligner_options(p)
    add_language_option(p)
    p.add_argument(
        "--per-sentence",
        metavar="FILE",
        help="write one JSON object per line and system: scene counts and SAMSA under each annotation",
    )
    p.add_argument(
        "--parse-uncertainty",
        action="store_true",
        help="draw trees from the parser's distribution (as samsa score --parse-uncertainty): each "
        "--per-sentence row gains a 'parse' object (mean, 90%% interval, P(score=0), Scene-count distribution)",
    )
    add_format_options(p)
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from samsa.engine.pipeline import progress_bar
    from samsa.studies.compare import compare_annotations

    named = system_files(args)
    inputs = [*output_inputs(args), args.ucca, *([args.parsed] if args.parsed else [])]
    check_output(args, inputs)
    if args.per_sentence:
        check_output_path(args.per_sentence, inputs)
    xml = get_parser("xml", directory=args.ucca)

    with progress_bar(len(xml.files), "load", args.quiet) as bar:
        gold = xml.load(bar.update)
    systems = {}
    for name, path in named:
        lines = read_text_lines(path, max_tokens=DEFAULT_MAX_TOKENS)
        if len(lines) != len(gold):
            raise InputError(
                shown(path),
                min(len(lines), len(gold)) + 1,
                f"has {len(lines)} lines but {args.ucca} holds {len(gold)} UCCA XML files",
            )
        systems[name] = lines

    args.parser = default_parser(args)
    if args.parsed or resolve("parsers", args.parser.partition(":")[0]).startswith("xml."):
        if not args.parsed:
            raise InputError(None, None, "the xml parser reads annotations, it does not parse: give --parsed DIR")
        parser = get_parser("xml", directory=args.parsed)
        parser.check_count(len(gold))
        with progress_bar(len(parser.files), "load", args.quiet) as bar:
            parsed = parser.load(bar.update)
        _check_tokens(gold, parsed, xml.files, parser.files)
    else:
        parsed, parser = _parse(args, gold, xml.files)
    metric = Samsa(samsa_config(args, parser))
    result = compare_annotations(gold, parsed, systems, metric)
    rows = result.pop("per_sentence")
    if args.parse_uncertainty:
        _add_parse_objects(rows, gold, systems, parser, metric)
    if args.per_sentence:
        atomic_write_text(args.per_sentence, "".join(json.dumps(r) + "\n" for r in rows))
    emit(args, json.dumps(result, indent=2) if args.format == "json" else _table(result, args.format, args.width))
    return 0


def _parse(args: argparse.Namespace, gold: list[Any], files: list[Any]) -> tuple[list[Any], Any]:
    """Parse the gold passages' sentences (their tokenization kept) with --parser."""
    from samsa.engine.pipeline import parse_corpus, progress_bar, worker_count
    from samsa.ucca.graph import tokens

    parser = get_parser(args.parser)
    cache = open_cache(args)
    bar = progress_bar(len(gold), "parse", args.quiet)
    try:
        parsed = parse_corpus(
            parser,
            [tokens(g) for g in gold],
            cache=cache,
            jobs=worker_count(args.jobs),
            dask=dask_target(args),
            progress=bar.update,
            origin=[str(f) for f in files],
        )
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    return parsed, parser


def _add_parse_objects(
    rows: list[dict[str, Any]], gold: list[Any], systems: dict[str, list[str]], parser: Any, metric: Samsa
) -> None:
    """Give each per-sentence row the ``parse`` object of its line and system (trees of the gold tokens)."""
    from samsa.engine.uncertainty import UncertaintyTotals, parser_calibration, source_trees
    from samsa.ucca.graph import tokens

    doubt = UncertaintyTotals(parser_calibration(parser))
    trees = source_trees(parser, [tokens(g) for g in gold], doubt.calibration)
    for row in rows:
        t = trees[row["line"] - 1]
        row["parse"] = doubt.parse_object(t.menu, t.scores(metric, systems[row["system"]][row["line"] - 1]))


def _check_tokens(gold: list[Any], parsed: list[Any], gold_files: list[Any], parsed_files: list[Any]) -> None:
    """Two annotations can only be compared over the same tokens."""
    from samsa.ucca.graph import tokens

    for g, p, gf, pf in zip(gold, parsed, gold_files, parsed_files, strict=True):
        if tokens(g) != tokens(p):
            raise InputError(
                pf, None, f"its tokens differ from {gf}'s; both annotations must cover the same tokenized sentence"
            )


def _table(result: dict[str, Any], fmt: str, width: int) -> str:
    from samsa.tables import render

    f1 = result["ucca_labeled_f1"]
    rows = [
        {
            "system": name,
            "SAMSA manual": b["samsa_gold"],
            "SAMSA parsed": b["samsa_parsed"],
            "SAMSA-abl manual": b["samsa_abl_gold"],
            "SAMSA-abl parsed": b["samsa_abl_parsed"],
            "mean abs diff": b["mean_abs_difference"],
            "Pearson": None if b["pearson"] is None else b["pearson"]["r"],
            "Spearman": None if b["spearman"] is None else b["spearman"]["r"],
        }
        for name, b in result["systems"].items()
    ]
    table = render(rows, list(rows[0]), fmt, width=width)
    if fmt == "csv":
        return table
    notes = [
        f"UCCA labeled F1 parsed vs manual: primary {100 * f1['primary']:.1f}, remote {100 * f1['remote']:.1f}, "
        f"pooled {100 * f1['pooled']:.1f}; scene F1 {100 * result['scenes']['scene_f1']:.1f}; scenes: manual "
        f"{result['scene_counts']['gold']}, parsed {result['scene_counts']['parsed']}",
        "ranking (manual): " + " > ".join(result["ranking_gold"]),
        "ranking (parsed): " + " > ".join(result["ranking_parsed"]),
    ]
    prefix = "% " if fmt == "latex" else ""
    return table + "\n" + "\n".join(prefix + n for n in notes)
