"""``samsa report``: an offline HTML page with metrics, significance, charts and a per-sentence explorer."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from samsa.cli.common import (
    add_language_option,
    add_runtime_options,
    add_splitter_option,
    dask_target,
    default_parser,
    open_cache,
    samsa_config,
)
from samsa.cli.io import (
    add_system_options,
    add_test_set_option,
    int_at_least,
    output_inputs,
    read_corpus,
    read_text_lines,
    shown,
    system_files,
)
from samsa.engine.documents import MAX_DOCUMENT_TOKENS
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS
from samsa.text import TOKENIZERS

DESCRIPTION = """\
Write one self-contained HTML page (no network, assets inlined) for one or more
systems: the metric table with signatures and 95% bootstrap intervals, paired
bootstrap significance between systems, charts (SAMSA / SAMSA-abl distributions,
scenes vs output sentences, SAMSA vs compression), and a per-sentence explorer that
shows each source Scene, its main relation and participants, the output sentence it
matched and which minimal centers survived (worst sentences first).

examples:
  samsa report -t hsplit sys1.txt sys2.txt --name A B -o report.html
  samsa report --ucca gold_xml/ out.txt -o report.html           # gold UCCA, reference-free
  samsa report --source src.txt --refs ref.0 ref.1 out.txt -o report.html
"""

EPILOG = """\
With references (-t, or --refs) the table adds SARI and BLEU; without, it shows
SAMSA, SAMSA-abl, FKGL, LD_SC and split statistics. Sources are parsed by the
built-in parser (cached) unless --ucca gives their annotation. SAMSA follows the
paper's definition (--compat paper) here.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="an offline HTML report that explains every SAMSA score",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_system_options(p)
    add_test_set_option(p)
    p.add_argument("--source", metavar="FILE", help="source sentences (instead of -t)")
    p.add_argument("--refs", metavar="FILE", nargs="+", default=[], help="reference files (instead of -t)")
    p.add_argument("--ucca", metavar="DIR", help="UCCA XML of the sources, one file per line (else they are parsed)")
    p.add_argument(
        "--documents",
        action="store_true",
        help="each line is a document of several sentences: document-level SAMSA, one explorer row per document "
        "(--ucca DIR then holds a sub-folder of sentence XML files, or one passage file, per document)",
    )
    p.add_argument("--no-refs", action="store_true", help="reference-free report even when the test set has some")
    p.add_argument(
        "--tokenizer",
        choices=sorted(TOKENIZERS),
        default=None,
        help="SAMSA's output tokenizer (default: the language's: wordpunct for en, de for de)",
    )
    p.add_argument("--sentence-separator", metavar="SEP", default=None, help="sentence separator in output lines")
    add_splitter_option(p)
    add_language_option(p)
    p.add_argument(
        "--bootstrap", type=int_at_least(1), default=1000, metavar="N", help="resamples (default: %(default)s)"
    )
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default: %(default)s)")
    p.add_argument(
        "--parse-uncertainty",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="parsed sources: draw trees from the parser's calibrated distribution; SAMSA's interval and "
        "significance then include parse uncertainty, and the explorer marks lines whose parse is in doubt "
        "(default: on; docs/validity.md)",
    )
    p.add_argument("--title", default=None, help="page title")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    add_runtime_options(p)
    p.set_defaults(run=run)


def _corpus(args: argparse.Namespace) -> tuple[str, list[str], list[list[str]] | None]:
    """(source path, sources or [] for --ucca alone, references per sentence or None)."""
    if args.test_set or args.source or args.refs:
        return read_corpus(args, refs=not args.no_refs)
    if not args.ucca:
        raise InputError(None, None, "no sources: give -t NAME, --source FILE or --ucca DIR")
    return args.ucca, [], None


def run(args: argparse.Namespace) -> int:
    from samsa.engine.pipeline import parse_corpus, progress_bar, worker_count
    from samsa.fileio import check_output_path
    from samsa.registry import get_parser
    from samsa.testsets import get_test_set
    from samsa.ucca.graph import tokens

    named = system_files(args)
    check_output_path(args.output, [*output_inputs(args), *(x for x in (args.source, args.ucca) if x)])
    source_path, sources, refs = _corpus(args)
    test_set = args.test_set and get_test_set(args.test_set).name
    if args.documents:
        if test_set:
            raise InputError(None, None, "--documents reads documents from --source or --ucca DIR, not a test set")
        return _documents_report(args, named, source_path, sources, refs)
    xml = get_parser("xml", directory=args.ucca) if args.ucca else None
    if xml is not None and sources:
        xml.check_count(len(sources))
    n = len(sources) if sources else len(xml.files)  # type: ignore[union-attr]
    systems = _read_systems(named, n, source_path)  # read (and counted) before any parsing
    trees = None
    if xml is not None:
        with progress_bar(len(xml.files), "load", args.quiet) as bar:
            graphs = xml.load(bar.update)
        sources = sources or [" ".join(tokens(g)) for g in graphs]
        parser, annotation = xml, f"UCCA XML of {args.ucca}"
    else:
        parser = get_parser(default_parser(args))
        if args.parse_uncertainty and hasattr(parser, "parse_with_draws"):
            graphs, trees = _parsed_with_trees(args, parser, sources, source_path)
        else:
            graphs = _parsed(
                args,
                len(sources),
                lambda cache, done: parse_corpus(
                    parser,
                    sources,
                    cache=cache,
                    jobs=worker_count(args.jobs),
                    dask=dask_target(args),
                    progress=done,
                    origin=source_path,
                ),
            )
        annotation = f"parsed ({parser.signature()})"
    title = f"SAMSA report{': ' + test_set if test_set else ''}"
    return _report(
        args,
        graphs,
        sources,
        systems,
        refs,
        parser,
        {"title": title, "test_set": test_set, "annotation": annotation},
        documents=False,
        trees=trees,
    )


def _documents_report(
    args: argparse.Namespace, named: list[tuple[str, str]], source_path: str, sources: list[str], refs: Any
) -> int:
    """``samsa report --documents``: each source line (or document of --ucca DIR) one passage of its sentences."""
    from samsa.engine.documents import document_files, document_sentences, load_documents, parse_documents
    from samsa.engine.pipeline import progress_bar, worker_count
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens

    docs = document_files(args.ucca) if args.ucca else None
    n = len(sources) if sources else len(docs or [])
    if docs is not None and sources and len(docs) != n:
        raise InputError(args.ucca, None, f"holds {len(docs)} documents for the {n} lines of {source_path}")
    systems = _read_systems(named, n, source_path, MAX_DOCUMENT_TOKENS)
    parser: Any
    if docs is not None:
        with progress_bar(len(docs), "load", args.quiet) as bar:
            graphs = list(load_documents(docs, bar.update))
        sources = sources or [" ".join(tokens(g)) for g in graphs]
        parser, annotation = "xml", f"UCCA XML of {args.ucca}"
    else:
        texts = [
            document_sentences(x, separator=args.sentence_separator, splitter=args.splitter, where=(source_path, k))
            for k, x in enumerate(sources, 1)
        ]
        parser = get_parser(default_parser(args))
        graphs = _parsed(
            args,
            sum(map(len, texts)),
            lambda cache, done: parse_documents(
                parser,
                texts,
                cache=cache,
                jobs=worker_count(args.jobs),
                dask=dask_target(args),
                progress=done,
                origin=source_path,
            ),
        )
        annotation = f"parsed ({parser.signature()})"
    info = {"title": "SAMSA report (documents)", "test_set": None, "annotation": annotation}
    return _report(args, graphs, sources, systems, refs, parser, info, documents=True)


def _read_systems(
    named: list[tuple[str, str]], n: int, source_path: str, max_tokens: int | None = DEFAULT_MAX_TOKENS
) -> dict[str, list[str]]:
    """Each system's lines, refused with one line when they are not ``n`` (the sources')."""
    systems = {}
    for name, path in named:
        lines = read_text_lines(path, max_tokens=max_tokens)
        if len(lines) != n:
            raise InputError(shown(path), min(len(lines), n) + 1, f"has {len(lines)} lines but {source_path} has {n}")
        systems[name] = lines
    return systems


def _parsed(
    args: argparse.Namespace, total: int, run: Callable[[Any, Callable[[int], Any]], Iterable[Any]]
) -> list[Any]:
    """The graphs ``run(cache, progress)`` parses, with the parse cache open and a progress bar of ``total``."""
    from samsa.engine.pipeline import progress_bar

    cache = open_cache(args)
    try:
        with progress_bar(total, "parse", args.quiet) as bar:
            return list(run(cache, bar.update))
    finally:
        if cache is not None:
            cache.close()


def _parsed_with_trees(
    args: argparse.Namespace, parser: Any, sources: list[str], source_path: str
) -> tuple[list[Any], list[Any]]:
    """The one-best graphs and the calibrated trees of ``sources``, the network run once for the sources the parse
    cache does not hold with their drawn trees (those are written to it)."""
    from samsa.engine.pipeline import progress_bar
    from samsa.engine.uncertainty import parse_with_trees, parser_calibration
    from samsa.ucca.compact import as_graph

    calibration = parser_calibration(parser)
    cache = open_cache(args)
    try:
        with progress_bar(None, "parse with uncertainty", args.quiet):
            best, trees = parse_with_trees(parser, sources, calibration, cache=cache, origin=source_path)
    finally:
        if cache is not None:
            cache.close()
    return [as_graph(p) for p in best], trees


def _report(
    args: argparse.Namespace,
    graphs: list[Any],
    sources: list[str],
    systems: dict[str, list[str]],
    refs: Any,
    parser: Any,
    info: dict[str, Any],
    documents: bool,
    trees: list[Any] | None = None,
) -> int:
    """Build and write the page (``info``: title, test set and annotation; ``--title`` wins; ``trees``: each
    source's calibrated trees, for the parse uncertainty)."""
    from samsa.engine.pipeline import progress_bar
    from samsa.report import build_report, render_html
    from samsa.scoring.metric import Samsa

    metric = Samsa(samsa_config(args, parser))
    info = {**info, "title": args.title or info["title"], "references": _ref_counts(refs)}
    calibration = None
    if trees is not None:
        from samsa.engine.uncertainty import parser_calibration

        calibration = parser_calibration(parser)
    with progress_bar(len(graphs), "report", args.quiet) as bar:
        data = build_report(
            graphs,
            sources,
            systems,
            metric=metric,
            refs=refs,
            resamples=args.bootstrap,
            seed=args.seed,
            info=info,
            progress=bar.update,
            documents=documents,
            trees=trees,
            calibration=calibration,
        )
    unit = "documents" if documents else "sentences"
    _write(args.output, render_html(data), f"{len(graphs)} {unit}, {len(systems)} system(s)")
    return 0


def _write(target: str, html: str, what: str) -> None:
    """The page, to ``target`` (``-``: standard output, the note then on standard error)."""
    from samsa.fileio import STDOUT, atomic_write_text

    atomic_write_text(target, html)
    if target == STDOUT:
        print(f"wrote the report to standard output ({what})", file=sys.stderr)
        return
    print(f"wrote {target} ({Path(target).stat().st_size / 1e6:.2f} MB, {what})")


def _ref_counts(refs: list[list[str]] | None) -> str:
    if not refs:
        return "none"
    lo, hi = min(map(len, refs)), max(map(len, refs))
    return f"{lo} per sentence" if lo == hi else f"{lo}-{hi} per sentence"
