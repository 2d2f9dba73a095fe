"""``samsa compare-annotations``: SAMSA with manual vs parser UCCA of the same sources."""

from __future__ import annotations

import argparse
import json
from typing import Any, NamedTuple

from samsa.cli.common import (
    AlignerChoice,
    Runtime,
    add_aligner_options,
    add_runtime_options,
    add_text_options,
    from_options,
    parser_name,
    resolve_language,
)
from samsa.cli.io import (
    Output,
    add_command,
    add_format_options,
    add_system_options,
    file_paths,
    named_systems,
    read_text_lines,
    shown,
)
from samsa.config import COMPAT_NAMES, SamsaConfig
from samsa.engine.uncertainty import UncertaintyTotals, run_doubt
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_write_text, check_output_path
from samsa.languages import Language, by_language
from samsa.registry import get_parser, resolve
from samsa.scoring.metric import Samsa

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
    p = add_command(sub, "compare-annotations", "SAMSA with manual vs parsed UCCA", DESCRIPTION)
    p.add_argument("--ucca", required=True, metavar="DIR", help="manual UCCA XML, one file per line")
    add_system_options(p)
    p.add_argument(
        "--parser",
        default=None,
        help=f"parser to compare with (default: the language's: {by_language(lambda lang: lang.parser)}; "
        "builtin:accurate, builtin:mpnet: those pipelines)",
    )
    p.add_argument(
        "--parsed",
        metavar="DIR",
        default=None,
        help="compare with these UCCA XML files instead of parsing (another annotator, a TUPA run, ...)",
    )
    p.add_argument("--compat", choices=sorted(COMPAT_NAMES), default=SamsaConfig.compat)
    add_aligner_options(p)
    add_text_options(p)
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


class CompareInputs(NamedTuple):
    """What ``samsa compare-annotations`` reads: the manual UCCA, the systems, the other annotation (a parser's, or
    ``--parsed DIR``), the language, SAMSA's settings, and what it writes."""

    ucca: str
    systems: tuple[tuple[str, str], ...]
    language: Language
    parser: str
    config: dict[str, Any]
    aligner: AlignerChoice
    parsed: str | None = None
    per_sentence: str | None = None
    parse_uncertainty: bool = False

    def samsa_config(self, parser: Any) -> SamsaConfig:
        return self.aligner.samsa_config(self.language, parser, **self.config)


def run(args: argparse.Namespace) -> int:
    lang = resolve_language(args.lang)
    inputs = from_options(
        CompareInputs,
        args,
        systems=tuple(named_systems([*args.systems, *args.inputs], args.names, required=args.systems_required)),
        language=lang,
        parser=parser_name(args.parser, lang),
        config={
            "compat": args.compat,
            "tokenizer": args.tokenizer,
            "separator": args.sentence_separator,
            **({"splitter": args.splitter} if args.splitter else {}),
        },
        aligner=AlignerChoice(args.aligner, args.ppdb, args.faithful_bugs, args.spacy_model),
    )
    return compare(inputs, Runtime.from_args(args), Output.from_args(args))


def compare(inputs: CompareInputs, runtime: Runtime, output: Output) -> int:
    """Load the manual UCCA and the systems, annotate the same sentences the other way, compare, write."""
    from samsa.studies.compare import compare_annotations

    files = [*file_paths([p for _, p in inputs.systems]), inputs.ucca, *([inputs.parsed] if inputs.parsed else [])]
    output.check(files)
    if inputs.per_sentence:
        check_output_path(inputs.per_sentence, files)
    xml = get_parser("xml", directory=inputs.ucca)
    with runtime.progress(len(xml.files), "load") as bar:
        gold = xml.load(bar.update)
    systems = _read_systems(inputs.systems, len(gold), inputs.ucca)
    doubt = None
    if inputs.parsed or resolve("parsers", inputs.parser.partition(":")[0]).startswith("xml."):
        if inputs.parse_uncertainty:
            raise InputError(None, None, "--parse-uncertainty needs parsed sources (give --parser, not --parsed)")
        parsed, parser = _load_parsed(inputs, gold, xml.files, runtime)
    else:
        parsed, parser, doubt = _parse(inputs, gold, xml.files, systems, runtime)
    metric = Samsa(inputs.samsa_config(parser))
    result = compare_annotations(gold, parsed, systems, metric)
    rows = result.pop("per_sentence")
    if doubt is not None:
        totals, lines = doubt
        names = list(systems)
        for row in rows:
            line = lines[row["line"] - 1]
            row["parse"] = totals.parse_object(line.menu, line.tree_scores[names.index(row["system"])])
    if inputs.per_sentence:
        atomic_write_text(inputs.per_sentence, "".join(json.dumps(r) + "\n" for r in rows))
    output.emit(
        json.dumps(result, indent=2) if output.format == "json" else _table(result, output.format, output.width)
    )
    return 0


def _read_systems(named: tuple[tuple[str, str], ...], n: int, ucca: str) -> dict[str, list[str]]:
    systems = {}
    for name, path in named:
        lines = read_text_lines(path, max_tokens=DEFAULT_MAX_TOKENS)
        if len(lines) != n:
            raise InputError(
                shown(path), min(len(lines), n) + 1, f"has {len(lines)} lines but {ucca} holds {n} UCCA XML files"
            )
        systems[name] = lines
    return systems


def _load_parsed(
    inputs: CompareInputs, gold: list[Any], gold_files: list[Any], runtime: Runtime
) -> tuple[list[Any], Any]:
    """The other annotation, read from ``--parsed DIR`` (over the same tokens)."""
    if not inputs.parsed:
        raise InputError(None, None, "the xml parser reads annotations, it does not parse: give --parsed DIR")
    parser = get_parser("xml", directory=inputs.parsed)
    parser.check_count(len(gold))
    with runtime.progress(len(parser.files), "load") as bar:
        parsed = parser.load(bar.update)
    _check_tokens(gold, parsed, gold_files, parser.files)
    return parsed, parser


def _parse(
    inputs: CompareInputs, gold: list[Any], files: list[Any], systems: dict[str, list[str]], runtime: Runtime
) -> tuple[list[Any], Any, tuple[UncertaintyTotals, list[Any]] | None]:
    """Parse the gold passages' sentences (their tokenization kept) with the parser, cached, in --jobs processes
    or on Dask; with parse doubt, the trees of each and every system's score on them, in the same run."""
    from samsa.engine.corpus import parse_corpus, parse_with_doubt
    from samsa.ucca.graph import tokens

    parser = get_parser(inputs.parser)
    calibration = run_doubt(parser, wanted=inputs.parse_uncertainty, compat=inputs.config["compat"])
    sentences = [tokens(g) for g in gold]
    with runtime.parse_run(len(gold), "parse", [str(f) for f in files]) as where:
        if calibration is None:
            return parse_corpus(parser, sentences, where), parser, None
        config = inputs.samsa_config(parser)
        parsed, lines, _ = parse_with_doubt(config, sentences, list(systems.values()), calibration, where)
        return parsed, parser, (UncertaintyTotals(calibration), lines)


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
