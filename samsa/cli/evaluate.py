"""``samsa evaluate``: lexical metrics (and SAMSA, given UCCA) for one system output."""

from __future__ import annotations

import argparse
import json
from typing import Any

from samsa.cli.common import add_runtime_options, add_splitter_option, dask_target, open_cache
from samsa.cli.io import (
    add_format_options,
    add_system_options,
    add_test_set_option,
    check_output,
    emit,
    read_text_lines,
    system_files,
)
from samsa.errors import InputError
from samsa.fileio import check_line_counts, read_lines
from samsa.lexical import SARI_VARIANTS
from samsa.lexical.normalize import TOKENIZERS
from samsa.lexical.suite import METRICS, SuiteConfig, evaluate_lexical
from samsa.tables import flatten, render

DESCRIPTION = """\
Compute lexical metrics (and SAMSA) for one or more system outputs: one row per system.

examples:
  samsa evaluate -t hsplit -m sari,bleu,fkgl,samsa out1.txt out2.txt --name A B
  cat out.txt | samsa evaluate -t turkcorpus_test -m sari,bleu -i - -f json
  samsa evaluate --source test.orig --refs ref.0 ref.1 -i output.txt -m sari,bleu,fkgl --sari-variant easse
"""

EPILOG = f"""\
test sets (-t): hsplit, turkcorpus_test, turkcorpus_test_legacy, asset_test, pwkp_test, qats_test,
wikisplit_test (and _valid sets) under the data root (--data, $SAMSA_DATA or the config file).
metrics: {", ".join(METRICS)}, samsa (gold UCCA with --ucca, else the built-in parser).
Scales: 0-100 except fkgl (grade level), ld_sc/ld_sr (characters), splits (counts,
percent, sentences per output, tokens per sentence). Every value comes with a
signature saying how it was computed. An empty line in a reference file means that
sentence has one reference fewer (references may vary in number per sentence).
SARI variants: xu2016 (Xu's sentence SARI.py, corpus = mean), easse (EASSE corpus SARI,
summed statistics), hf (Hugging Face evaluate). docs/lexical.md explains each.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="lexical metrics (SARI, BLEU, ...) beside SAMSA", description=DESCRIPTION,
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    add_system_options(p)
    add_test_set_option(p)
    p.add_argument("--source", metavar="FILE", help="source sentences, one per line (instead of -t)")
    p.add_argument("--refs", metavar="FILE", nargs="+", default=[], help="reference files (instead of -t)")
    p.add_argument("-m", "--metrics", default="sari,bleu,fkgl",
                   help="comma-separated metric names (default: %(default)s)")  # fmt: skip
    p.add_argument("--sari-variant", choices=SARI_VARIANTS, default="easse", help="SARI variant (default: %(default)s)")
    p.add_argument("--sari-del-precision", action="store_true", help="easse SARI: precision instead of F1 for deletion")
    p.add_argument(
        "--legacy",
        action="store_true",
        help="easse SARI legacy mode for tokenized lowercased TurkCorpus files (source untouched, no lowercasing)",
    )
    p.add_argument("--tokenizer", choices=TOKENIZERS, default="13a", help="tokenizer (default: %(default)s)")
    p.add_argument(
        "--lowercase",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="lowercase before scoring (default: yes, as the EASSE command line)",
    )
    p.add_argument("--unescape", action="store_true", help="undo Moses escapes (&apos; ...) first")
    p.add_argument("--fkgl-variant", choices=("easse", "corrected"), default="easse", help="(default: %(default)s)")
    p.add_argument(
        "--fkbleu-form", choices=("geometric", "product"), default="geometric", help="(default: %(default)s)"
    )
    p.add_argument(
        "--fkbleu-sign", choices=("printed", "readability"), default="printed", help="(default: %(default)s)"
    )
    p.add_argument("--sentence-separator", metavar="SEP", default=None, help="sentence separator for split statistics")
    add_splitter_option(p)
    p.add_argument("--ucca", metavar="DIR",
                   help="gold UCCA XML of the sources, for the samsa metric (default: parse --source)")  # fmt: skip
    add_format_options(p)
    add_runtime_options(p)
    p.set_defaults(run=run)


def _read_refs(paths: list[str], source: str, n: int, separator: str | None = None) -> list[list[str]]:
    """Reference files -> references per sentence; counts checked against the source, read once."""
    streams = [read_lines(p, max_tokens=None) for p in paths]
    check_line_counts([(source, n), *((p, len(s)) for p, s in zip(paths, streams, strict=True))])
    if separator:  # a split reference is one text for the lexical metrics (as EASSE collapses WikiSplit)
        streams = [[" ".join(x.replace(separator, " ").split()) for x in s] for s in streams]
    per_sentence = [[s[i] for s in streams if s[i].strip()] for i in range(n)]
    for i, rs in enumerate(per_sentence, 1):
        if not rs:
            raise InputError(paths[0], i, "no reference for this line in any reference file")
    return per_sentence


def _corpus(args: argparse.Namespace) -> tuple[str, list[str], list[str], str | None]:
    """(source path, source lines, reference paths, reference separator) from -t or --source/--refs."""
    if args.test_set:
        from samsa.testsets import get_test_set, test_set_files

        if args.source or args.refs:
            raise InputError(None, None, "give either -t/--test-set or --source/--refs, not both")
        ts = get_test_set(args.test_set)
        orig, refs = test_set_files(ts.name, args.data)
        return (
            str(orig),
            read_lines(orig, allow_empty_lines=False, max_tokens=None),
            [str(r) for r in refs],
            ts.separator,
        )
    if not args.source:
        raise InputError(None, None, "no sources: give -t/--test-set NAME or --source FILE")
    return args.source, read_lines(args.source, allow_empty_lines=False), args.refs, None


def run(args: argparse.Namespace) -> int:
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    unknown = sorted(set(metrics) - set(METRICS) - {"samsa"})
    if unknown:
        raise InputError(None, None, f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}, samsa")
    named = system_files(args)
    check_output(args, [p for _, p in named])
    source_path, source, ref_paths, ref_sep = _corpus(args)
    systems: dict[str, list[str]] = {}
    for name, path in named:
        systems[name] = read_text_lines(path)
        check_line_counts([(source_path, len(source)), ("<stdin>" if path == "-" else path, len(systems[name]))])
    needs_refs = set(metrics) & {"sari", "sari_add", "sari_keep", "sari_del", "bleu", "ibleu", "fkbleu", "ld_sr"}
    if needs_refs and not ref_paths:
        raise InputError(None, None, f"metric(s) {', '.join(sorted(needs_refs))} need references (--refs or -t)")
    refs = _read_refs(ref_paths, source_path, len(source), ref_sep) if ref_paths else [[s] for s in source]
    config = SuiteConfig(
        sari_variant=args.sari_variant, legacy=args.legacy, tokenizer=args.tokenizer, lowercase=args.lowercase,
        unescape=args.unescape, sari_del_f1=not args.sari_del_precision, fkgl_variant=args.fkgl_variant,
        fkbleu_form=args.fkbleu_form, fkbleu_sign=args.fkbleu_sign, separator=args.sentence_separator,
        splitter=args.splitter,
    )  # fmt: skip
    lexical = [m for m in metrics if m != "samsa"]
    results: dict[str, dict[str, Any]] = {}
    signatures: dict[str, str] = {}
    for name, system in systems.items():
        r = evaluate_lexical(source, system, refs, lexical, config)
        signatures.update(r.pop("signatures"))
        results[name] = r
    if "samsa" in metrics:
        scores, sig = _samsa(args, source, list(systems.values()))
        for name, (samsa_score, abl) in zip(systems, scores, strict=True):
            results[name].update(samsa=samsa_score, samsa_abl=abl)
        signatures.update(samsa=sig, samsa_abl=sig)
    if args.format == "json":
        emit(args, json.dumps({"test_set": args.test_set, "systems": results, "signatures": signatures}, indent=2,
                              ensure_ascii=False))  # fmt: skip
        return 0
    rows = [{"system": name, **flatten(values)} for name, values in results.items()]
    columns = ["system", *(k for k in rows[0] if k != "system")]
    emit(args, render(rows, columns, args.format, width=args.width, signatures=signatures))
    return 0


def _samsa(args: argparse.Namespace, source: list[str], systems: list[list[str]]) -> tuple[list[Any], str]:
    """SAMSA of every system (one parse of the sources): gold UCCA of --ucca, else the built-in parser's UCCA."""
    from samsa.metric import Samsa
    from samsa.pipeline import Job, progress_bar, score_means, worker_count
    from samsa.registry import get_parser

    if args.ucca:
        xml = get_parser("xml", directory=args.ucca)
        xml.check_count(len(source))
        sources, kind, parser, cache = xml.files, "xml", xml, None
    else:
        parser = get_parser("builtin")
        sources, kind, cache = source, "parse", open_cache(args)
    metric = Samsa(separator=args.sentence_separator, parser=parser, splitter=args.splitter)
    job = Job(parser=parser if kind == "parse" else None, separator=args.sentence_separator, splitter=args.splitter)
    bar = progress_bar(len(source), "samsa", args.quiet)
    try:
        scores = score_means(sources, systems, job, kind=kind, jobs=worker_count(args.jobs), dask=dask_target(args),
                             cache=cache, progress=bar.update)  # fmt: skip
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    return scores, metric.signature()
