"""``samsa evaluate``: lexical metrics (and SAMSA, given UCCA) for one system output."""

from __future__ import annotations

import argparse
import json
from typing import Any

from samsa.cli.common import add_runtime_options, add_splitter_option, dask_target, open_cache
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, check_line_counts, read_lines
from samsa.lexical import SARI_VARIANTS
from samsa.lexical.normalize import TOKENIZERS
from samsa.lexical.suite import METRICS, SuiteConfig, evaluate_lexical

DESCRIPTION = """\
Compute lexical metrics beside SAMSA for one system output.

example (TurkCorpus, 8 references):
  samsa evaluate --source test.orig --system output.txt --refs ref.0 ref.1 ref.2 \\
                 --metrics sari,bleu,fkgl --sari-variant easse --json
"""

EPILOG = f"""\
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
    p.add_argument("--source", metavar="FILE", required=True, help="source sentences, one per line")
    p.add_argument("--system", metavar="FILE", required=True, help="system output, line-parallel to --source")
    p.add_argument("--refs", metavar="FILE", nargs="+", default=[], help="reference files, line-parallel")
    p.add_argument("--metrics", default="sari,bleu,fkgl", help="comma-separated metric names (default: %(default)s)")
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
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_runtime_options(p)
    p.set_defaults(run=run)


def _read_refs(paths: list[str], source: str, n: int) -> list[list[str]]:
    """Reference files -> references per sentence; counts checked against the source, read once."""
    streams = [read_lines(p, max_tokens=DEFAULT_MAX_TOKENS) for p in paths]
    check_line_counts([(source, n), *((p, len(s)) for p, s in zip(paths, streams, strict=True))])
    per_sentence = [[s[i] for s in streams if s[i].strip()] for i in range(n)]
    for i, rs in enumerate(per_sentence, 1):
        if not rs:
            raise InputError(paths[0], i, "no reference for this line in any reference file")
    return per_sentence


def run(args: argparse.Namespace) -> int:
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    unknown = sorted(set(metrics) - set(METRICS) - {"samsa"})
    if unknown:
        raise InputError(None, None, f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}, samsa")
    source = read_lines(args.source, allow_empty_lines=False)
    system = read_lines(args.system)
    check_line_counts([(args.source, len(source)), (args.system, len(system))])
    needs_refs = set(metrics) & {"sari", "sari_add", "sari_keep", "sari_del", "bleu", "ibleu", "fkbleu", "ld_sr"}
    if needs_refs and not args.refs:
        raise InputError(None, None, f"metric(s) {', '.join(sorted(needs_refs))} need --refs")
    refs = _read_refs(args.refs, args.source, len(source)) if args.refs else [[s] for s in source]
    config = SuiteConfig(
        sari_variant=args.sari_variant, legacy=args.legacy, tokenizer=args.tokenizer, lowercase=args.lowercase,
        unescape=args.unescape, sari_del_f1=not args.sari_del_precision, fkgl_variant=args.fkgl_variant,
        fkbleu_form=args.fkbleu_form, fkbleu_sign=args.fkbleu_sign, separator=args.sentence_separator,
        splitter=args.splitter,
    )  # fmt: skip
    result = evaluate_lexical(source, system, refs, [m for m in metrics if m != "samsa"], config)
    if "samsa" in metrics:
        result.update(_samsa(args, source, system))
        result["signatures"] = {**result["signatures"], **result.pop("_samsa_signatures")}
    print(json.dumps(result, indent=2) if args.json else _table(result, metrics))
    return 0


def _samsa(args: argparse.Namespace, source: list[str], system: list[str]) -> dict[str, Any]:
    """SAMSA with the gold UCCA of --ucca, else with the built-in parser's UCCA of --source."""
    from samsa.metric import Samsa
    from samsa.pipeline import Job, progress_bar, score_means, worker_count
    from samsa.registry import get_parser

    if args.ucca:
        xml = get_parser("xml", directory=args.ucca)
        xml.check_count(len(system))
        sources, kind, parser, cache = xml.files, "xml", xml, None
    else:
        parser = get_parser("builtin")
        sources, kind, cache = source, "parse", open_cache(args)
    metric = Samsa(separator=args.sentence_separator, parser=parser, splitter=args.splitter)
    job = Job(parser=parser if kind == "parse" else None, separator=args.sentence_separator, splitter=args.splitter)
    bar = progress_bar(len(system), "samsa", args.quiet)
    try:
        ((samsa_score, abl),) = score_means(sources, [system], job, kind=kind, jobs=worker_count(args.jobs),
                                            dask=dask_target(args), cache=cache, progress=bar.update)  # fmt: skip
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    sig = metric.signature()
    return {"samsa": samsa_score, "samsa_abl": abl, "_samsa_signatures": {"samsa": sig, "samsa_abl": sig}}


def _table(result: dict[str, Any], metrics: list[str]) -> str:
    rows = []
    for m in [*metrics, "samsa_abl"] if "samsa" in metrics else metrics:
        value = result[m]
        if isinstance(value, dict):
            for i, (k, v) in enumerate(value.items()):
                sig = result["signatures"][m] if i == 0 else ""
                rows.append((f"{m}.{k}", f"{v:.2f}" if isinstance(v, float) else str(v), sig))
        else:
            rows.append((m, f"{value:.2f}", result["signatures"][m]))
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{k:<{width}}  {v:>8}  {s}" for k, v, s in rows)
