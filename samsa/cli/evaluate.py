"""``samsa evaluate``: lexical metrics (and SAMSA, given UCCA) for one system output."""

from __future__ import annotations

import argparse
import json
from typing import Any

from samsa.cli.common import add_language_option, add_runtime_options, add_splitter_option, dask_target, open_cache
from samsa.cli.io import (
    add_format_options,
    add_system_options,
    add_test_set_option,
    check_output,
    emit,
    int_at_least,
    read_corpus,
    read_text_lines,
    shown,
    system_files,
)
from samsa.config import SamsaConfig
from samsa.errors import InputError
from samsa.fileio import check_line_counts
from samsa.lexical import SARI_VARIANTS
from samsa.lexical.readability import FKBLEU_FORMS, FKBLEU_SIGNS, FKGL_VARIANTS
from samsa.lexical.suite import DEFAULT_METRICS, METRICS, SuiteConfig, default_metrics
from samsa.normalize import TOKENIZERS
from samsa.report.metrics import RESAMPLABLE
from samsa.tables import flatten, render

#: the lexical suite's defaults, which the options' defaults are
SUITE = SuiteConfig()

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
    p = sub.add_parser(
        "evaluate",
        help="lexical metrics (SARI, BLEU, ...) beside SAMSA",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_system_options(p)
    add_test_set_option(p)
    p.add_argument("--source", metavar="FILE", help="source sentences, one per line (instead of -t)")
    p.add_argument("--refs", metavar="FILE", nargs="+", default=[], help="reference files (instead of -t)")
    p.add_argument(
        "-m",
        "--metrics",
        nargs="+",
        action=MetricsAction,
        default=None,
        help=f"metric names, comma- or space-separated (default: {','.join(DEFAULT_METRICS)}; for German "
        f"{','.join(default_metrics('de'))})",
    )
    p.add_argument(
        "--sari-variant", choices=SARI_VARIANTS, default=SUITE.sari_variant, help="SARI variant (default: %(default)s)"
    )
    p.add_argument("--sari-del-precision", action="store_true", help="easse SARI: precision instead of F1 for deletion")
    p.add_argument(
        "--legacy",
        action="store_true",
        help="easse SARI legacy mode for tokenized lowercased TurkCorpus files (source untouched, no lowercasing)",
    )
    p.add_argument(
        "-tok",
        "--tokenizer",
        choices=TOKENIZERS,
        default=None,
        help=f"tokenizer (default: {SUITE.tokenizer}; de for German text)",
    )
    p.add_argument(
        "-lc",
        "--lowercase",
        action=argparse.BooleanOptionalAction,
        default=SUITE.lowercase,
        help="lowercase before scoring (default: yes, as the EASSE command line; --no-lc = --no-lowercase)",
    )
    p.add_argument("--no-lc", dest="lowercase", action="store_false", help=argparse.SUPPRESS)
    p.add_argument("--unescape", action="store_true", help="undo Moses escapes (&apos; ...) first")
    p.add_argument("--fkgl-variant", choices=FKGL_VARIANTS, default=SUITE.fkgl_variant, help="(default: %(default)s)")
    p.add_argument("--fkbleu-form", choices=FKBLEU_FORMS, default=SUITE.fkbleu_form, help="(default: %(default)s)")
    p.add_argument("--fkbleu-sign", choices=FKBLEU_SIGNS, default=SUITE.fkbleu_sign, help="(default: %(default)s)")
    p.add_argument(
        "--sentence-separator", metavar="SEP", default=SUITE.separator, help="sentence separator for split statistics"
    )
    add_splitter_option(p)
    add_language_option(p)
    p.add_argument(
        "--documents",
        action="store_true",
        help="each line is a document of several sentences: document-level SAMSA (--ucca DIR then holds a "
        "sub-folder of sentence XML files, or one passage file, per document; docs/samsa.md)",
    )
    p.add_argument(
        "--ucca", metavar="DIR", help="gold UCCA XML of the sources, for the samsa metric (default: parse --source)"
    )
    add_format_options(p)
    g = p.add_argument_group("statistics (as sacrebleu)")
    g.add_argument(
        "-b", "--score-only", action="store_true", help="print the scores alone, tab-separated, a line per system"
    )
    g.add_argument(
        "-ci",
        "--confidence",
        action="store_true",
        help=f"95%% bootstrap interval of {', '.join(RESAMPLABLE)} (sentences resampled)",
    )
    g.add_argument(
        "--paired-bs",
        action="store_true",
        help="paired bootstrap test of every system against the first (the baseline): p-values",
    )
    g.add_argument(
        "--bootstrap",
        type=int_at_least(1),
        default=1000,
        metavar="N",
        help="bootstrap resamples (default: %(default)s)",
    )
    g.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default: %(default)s)")
    g.add_argument(
        "--parse-uncertainty",
        action="store_true",
        help="SAMSA on parsed sources gets samsa_parse_lo/hi, the 95%% interval over trees drawn from the parser's "
        "calibrated distribution; with -ci its interval combines parse and sampling uncertainty, and "
        "--paired-bs compares systems on the same trees (docs/validity.md)",
    )
    add_runtime_options(p)
    p.set_defaults(run=run)


class MetricsAction(argparse.Action):
    """``-m sari,bleu`` and ``-m sari bleu`` alike. A word after ``-m`` that is no metric name and looks like a
    file (a path separator, a dot, '-' or an existing file) is a system output, so ``-m sari out.txt`` reads
    out.txt as argparse would have without ``nargs``."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        import os

        known = {*METRICS, "samsa"}
        metrics: list[str] = []
        for i, value in enumerate(values):
            words = [w.strip() for w in value.split(",") if w.strip()]
            file_like = (
                i > 0
                and not (set(words) & known)
                and (value == "-" or os.sep in value or "." in value or os.path.isfile(value))
            )
            if file_like:
                namespace.more_systems = values[i:]
                break
            metrics.extend(words)
        setattr(namespace, self.dest, metrics)


def run(args: argparse.Namespace) -> int:
    from samsa.engine.evaluate import evaluate, parse_metrics
    from samsa.engine.pipeline import progress_bar, worker_count
    from samsa.languages import get_language

    metrics = parse_metrics(args.metrics or default_metrics(args.lang))
    named = system_files(args)
    check_output(args, [p for _, p in named])
    source_path, source, refs = read_corpus(args)
    systems: dict[str, list[str]] = {}
    for name, path in named:
        systems[name] = read_text_lines(path)
        check_line_counts([(source_path, len(source)), (shown(path), len(systems[name]))])
    config = SuiteConfig(
        sari_variant=args.sari_variant,
        legacy=args.legacy,
        tokenizer=args.tokenizer or get_language(args.lang).bleu_tokenizer,
        lowercase=args.lowercase,
        unescape=args.unescape,
        sari_del_f1=not args.sari_del_precision,
        fkgl_variant=args.fkgl_variant,
        fkbleu_form=args.fkbleu_form,
        fkbleu_sign=args.fkbleu_sign,
        samsa=SamsaConfig(separator=args.sentence_separator, splitter=args.splitter, language=args.lang),
    )
    doubt = None
    if args.parse_uncertainty:
        from samsa.config import shared_parser
        from samsa.engine.uncertainty import UncertaintyTotals, parser_calibration

        if "samsa" not in metrics:
            raise InputError(None, None, "--parse-uncertainty is about SAMSA: add samsa to -m")
        doubt = UncertaintyTotals(parser_calibration(shared_parser(get_language(args.lang).parser)))
    cache = open_cache(args) if "samsa" in metrics and not args.ucca else None
    bar = progress_bar(None if args.documents else len(source) if "samsa" in metrics else 0, "samsa", args.quiet)
    try:
        result = evaluate(
            systems,
            orig_sents=source,
            refs_sents=refs,
            refs_layout="sentences",
            metrics=metrics,
            config=config,
            ucca=args.ucca,
            jobs=worker_count(args.jobs),
            dask=dask_target(args),
            cache=cache,
            progress=bar.update,
            documents=args.documents,
            doubt=doubt,
            source_name=source_path,
        )
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    result["test_set"] = args.test_set
    if doubt is not None and (args.confidence or args.paired_bs):
        from samsa.report.intervals import add_parse_bootstrap

        add_parse_bootstrap(
            result, doubt, resamples=args.bootstrap, seed=args.seed, intervals=args.confidence, paired=args.paired_bs
        )
    lexical_bootstrap = metrics
    if doubt is not None:  # SAMSA's figures are the parse bootstrap's; the others' as without it, when any
        from samsa.report.metrics import RESAMPLABLE

        lexical_bootstrap = [m for m in metrics if m in RESAMPLABLE]
        result["bootstrap"] = {"resamples": args.bootstrap, "seed": args.seed, "level": 0.95}
    if (args.confidence or args.paired_bs) and lexical_bootstrap:
        from samsa.report.intervals import add_bootstrap

        add_bootstrap(
            result,
            source,
            systems,
            refs,
            lexical_bootstrap,
            config,
            resamples=args.bootstrap,
            seed=args.seed,
            intervals=args.confidence,
            paired=args.paired_bs,
        )
    if args.score_only:
        lines = [
            "\t".join(_plain(v, args.width) for k, v in flatten(values).items() if k.split(".")[0] in metrics)
            for values in result["systems"].values()
        ]
        emit(args, "\n".join(lines))
        return 0
    if args.format == "json":
        emit(args, json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    rows = [{"system": name, **flatten(values)} for name, values in result["systems"].items()]
    columns = ["system", *dict.fromkeys(k for r in rows for k in r if k != "system")]
    emit(args, render(rows, columns, args.format, width=args.width, signatures=result["signatures"]))
    return 0


def _plain(value: Any, width: int) -> str:
    return f"{value:.{width}f}" if isinstance(value, float) else str(value)
