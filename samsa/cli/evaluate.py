"""``samsa evaluate``: lexical metrics (and SAMSA, given UCCA) for one system output."""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

from samsa.cli.common import (
    Runtime,
    add_language_option,
    add_plan_option,
    add_runtime_options,
    add_splitter_option,
    from_options,
    hint_language,
    resolve_language,
)
from samsa.cli.io import (
    Output,
    add_command,
    add_format_options,
    add_system_options,
    add_test_set_option,
    int_at_least,
    named_systems,
    read_corpus,
    read_text_lines,
    shown,
)
from samsa.cli.results import evaluate_table
from samsa.config import SamsaConfig
from samsa.engine.uncertainty import run_doubt
from samsa.errors import InputError
from samsa.fileio import check_line_counts
from samsa.languages import Language, by_language
from samsa.lexical import SARI_VARIANTS
from samsa.lexical.readability import FKBLEU_FORMS, FKBLEU_SIGNS, FKGL_VARIANTS
from samsa.lexical.suite import SuiteConfig, default_metrics, known_metrics
from samsa.normalize import TOKENIZERS
from samsa.report.metrics import RESAMPLABLE

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
metrics: {", ".join(known_metrics())}, samsa (gold UCCA with --ucca, else the built-in parser).
Scales: 0-100 except fkgl (grade level), ld_sc/ld_sr (characters), splits (counts,
percent, sentences per output, tokens per sentence). Every value comes with a
signature saying how it was computed. An empty line in a reference file means that
sentence has one reference fewer (references may vary in number per sentence).
SARI variants: xu2016 (Xu's sentence SARI.py, corpus = mean), easse (EASSE corpus SARI,
summed statistics), hf (Hugging Face evaluate). docs/lexical.md explains each.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "evaluate", "lexical metrics (SARI, BLEU, ...) beside SAMSA", DESCRIPTION, EPILOG)
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
        help="metric names, comma- or space-separated (default: SARI, BLEU and the language's readability: "
        f"{by_language(lambda lang: ','.join(default_metrics(lang.code)))})",
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
        help=f"tokenizer (default: the language's: {by_language(lambda lang: lang.bleu_tokenizer)})",
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
    add_plan_option(
        p, "samsa_est (and samsa_est_lo/hi, samsa_abl_est, samsa_est_vs_first) estimate each system's all-manual SAMSA"
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

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        import os

        known = {*known_metrics(), "samsa"}
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


class EvaluateInputs(NamedTuple):
    """What ``samsa evaluate`` reads and computes: the systems, the sources and references, the metrics and their
    settings, SAMSA's sources (``--ucca``, ``--documents``), the statistics, and how it prints."""

    systems: tuple[tuple[str, str], ...]
    language: Language
    metrics: tuple[str, ...]
    config: SuiteConfig
    lang_given: bool = False
    test_set: str | None = None
    data: str | None = None
    source: str | None = None
    refs: tuple[str, ...] = ()
    ucca: str | None = None
    documents: bool = False
    parse_uncertainty: bool = False
    confidence: bool = False
    paired: bool = False
    bootstrap: int = 1000
    seed: int = 12345
    score_only: bool = False
    plan: str | None = None


def run(args: argparse.Namespace) -> int:
    from samsa.engine.evaluate import parse_metrics

    lang = resolve_language(args.lang, args.test_set)
    paths = [*args.systems, *getattr(args, "more_systems", []), *args.inputs]
    metrics = parse_metrics(args.metrics or default_metrics(lang.code))
    config = SuiteConfig(
        sari_variant=args.sari_variant,
        legacy=args.legacy,
        tokenizer=args.tokenizer or lang.bleu_tokenizer,
        lowercase=args.lowercase,
        unescape=args.unescape,
        sari_del_f1=not args.sari_del_precision,
        fkgl_variant=args.fkgl_variant,
        fkbleu_form=args.fkbleu_form,
        fkbleu_sign=args.fkbleu_sign,
        samsa=SamsaConfig(separator=args.sentence_separator, splitter=args.splitter, language=lang.code),
    )
    systems = tuple(named_systems(paths, args.names, required=args.systems_required))
    given = {"refs": tuple(args.refs), "paired": args.paired_bs, "lang_given": args.lang is not None}
    given.update(metrics=tuple(metrics), config=config)
    inputs = from_options(EvaluateInputs, args, systems=systems, language=lang, **given)
    return evaluate_command(inputs, Runtime.from_args(args), Output.from_args(args))


def evaluate_command(inputs: EvaluateInputs, runtime: Runtime, output: Output) -> int:
    """``samsa evaluate``: read, compute every metric (:func:`samsa.evaluate`), add the statistics, print."""
    output.check([p for _, p in inputs.systems])
    source_path, source, refs = read_corpus(
        inputs.test_set, inputs.source, list(inputs.refs), inputs.data, documents=inputs.documents
    )
    hint_language(source, inputs.language, inputs.lang_given, source_path)
    systems: dict[str, list[str]] = {}
    for name, path in inputs.systems:
        systems[name] = read_text_lines(path)
        check_line_counts([(source_path, len(source)), (shown(path), len(systems[name]))])
    if inputs.plan is not None:
        from samsa.cli.planned import evaluate_planned

        if inputs.parse_uncertainty or inputs.documents:
            raise InputError(None, None, "--plan gives SAMSA its interval: without --parse-uncertainty or --documents")
        rest = tuple(m for m in inputs.metrics if m != "samsa")
        lexical = inputs._replace(metrics=rest, ucca=None)
        none: dict[str, Any] = {"systems": {name: {} for name in systems}, "signatures": {}}
        result = _evaluate(lexical, runtime, source_path, source, refs, systems, None) if rest else none
        if "samsa" in inputs.metrics:
            evaluate_planned(result, inputs, (source_path, source), systems, runtime)
        result["test_set"] = inputs.test_set
        _statistics(lexical, result, source, systems, refs, None)
        output.emit(evaluate_table(result, inputs.metrics if inputs.score_only else None, output))
        return 0
    doubt = _doubt(inputs)
    result = _evaluate(inputs, runtime, source_path, source, refs, systems, doubt)
    result["test_set"] = inputs.test_set
    _statistics(inputs, result, source, systems, refs, doubt)
    output.emit(evaluate_table(result, inputs.metrics if inputs.score_only else None, output))
    return 0


def _doubt(inputs: EvaluateInputs) -> Any:
    """The run's parse doubt (``--parse-uncertainty``), of the language's parser."""
    if not inputs.parse_uncertainty:
        return None
    from samsa.config import shared_parser
    from samsa.engine.uncertainty import UncertaintyTotals

    if "samsa" not in inputs.metrics:
        raise InputError(None, None, "--parse-uncertainty is about SAMSA: add samsa to -m")
    calibration = run_doubt(shared_parser(inputs.language.parser), wanted=True)
    assert calibration is not None
    return UncertaintyTotals(calibration)


def _evaluate(
    inputs: EvaluateInputs,
    runtime: Runtime,
    source_path: str,
    source: list[str],
    refs: Any,
    systems: dict[str, list[str]],
    doubt: Any,
) -> dict[str, Any]:
    from samsa.engine.evaluate import evaluate

    samsa = "samsa" in inputs.metrics
    total = None if inputs.documents else len(source) if samsa else 0
    with runtime.parse_run(total, "samsa", source_path, cached=samsa and not inputs.ucca) as execution:
        return evaluate(
            systems,
            orig_sents=source,
            refs_sents=refs,
            refs_layout="sentences",
            metrics=list(inputs.metrics),
            config=inputs.config,
            ucca=inputs.ucca,
            jobs=execution.jobs,
            dask=execution.dask,
            cache=execution.cache,
            progress=execution.progress,
            documents=inputs.documents,
            doubt=doubt,
            source_name=source_path,
        )


def _statistics(
    inputs: EvaluateInputs,
    result: dict[str, Any],
    source: list[str],
    systems: dict[str, list[str]],
    refs: Any,
    doubt: Any,
) -> None:
    """-ci and --paired-bs: SAMSA's from the parse bootstrap under parse doubt, the others' from resampled
    sentences."""
    if doubt is not None and (inputs.confidence or inputs.paired):
        from samsa.report.intervals import add_parse_bootstrap

        add_parse_bootstrap(
            result,
            doubt,
            resamples=inputs.bootstrap,
            seed=inputs.seed,
            intervals=inputs.confidence,
            paired=inputs.paired,
        )
    lexical_bootstrap = list(inputs.metrics)
    if doubt is not None:  # SAMSA's figures are the parse bootstrap's; the others' as without it, when any
        lexical_bootstrap = [m for m in inputs.metrics if m in RESAMPLABLE]
        result["bootstrap"] = {"resamples": inputs.bootstrap, "seed": inputs.seed, "level": 0.95}
    if (inputs.confidence or inputs.paired) and lexical_bootstrap:
        from samsa.report.intervals import add_bootstrap

        add_bootstrap(
            result,
            source,
            systems,
            refs,
            lexical_bootstrap,
            inputs.config,
            resamples=inputs.bootstrap,
            seed=inputs.seed,
            intervals=inputs.confidence,
            paired=inputs.paired,
        )
