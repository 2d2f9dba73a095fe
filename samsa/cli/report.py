"""``samsa report``: an offline HTML page with metrics, significance, charts and a per-sentence explorer."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NamedTuple

from samsa.cli.common import (
    Runtime,
    add_plan_option,
    add_runtime_options,
    add_text_options,
    from_options,
    hint_language,
    parser_name,
    resolve_language,
)
from samsa.cli.io import (
    add_command,
    add_system_options,
    add_test_set_option,
    file_paths,
    int_at_least,
    named_systems,
    read_corpus,
    read_text_lines,
    shown,
)
from samsa.config import SamsaConfig
from samsa.engine.documents import MAX_DOCUMENT_TOKENS
from samsa.engine.uncertainty import run_doubt
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS
from samsa.languages import Language

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
    p = add_command(sub, "report", "an offline HTML report that explains every SAMSA score", DESCRIPTION, EPILOG)
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
    add_text_options(p, "SAMSA's tokenizer of the output sentences")
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
    add_plan_option(p, "the page shows each system's estimate of its all-manual SAMSA beside its parsed score")
    p.add_argument("--title", default=None, help="page title")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    add_runtime_options(p)
    p.set_defaults(run=run)


class ReportInputs(NamedTuple):
    """What ``samsa report`` reads and how it writes: the systems, the sources (a test set, ``--source`` with
    ``--refs``, and or ``--ucca DIR``), the language and text settings, the statistics' settings and the page."""

    systems: tuple[tuple[str, str], ...]
    language: Language
    parser: str
    output: str
    lang_given: bool = False
    test_set: str | None = None
    data: str | None = None
    source: str | None = None
    refs: tuple[str, ...] = ()
    no_refs: bool = False
    ucca: str | None = None
    documents: bool = False
    tokenizer: str | None = None
    separator: str | None = None
    splitter: str | None = None
    bootstrap: int = 1000
    seed: int = 12345
    parse_uncertainty: bool = True
    title: str | None = None
    plan: str | None = None

    def corpus(self) -> tuple[str, list[str], list[list[str]] | None]:
        """(source path, sources or [] for --ucca alone, references per sentence or None)."""
        if self.test_set or self.source or self.refs:
            return read_corpus(
                self.test_set,
                self.source,
                list(self.refs),
                self.data,
                documents=self.documents,
                want_refs=not self.no_refs,
            )
        if not self.ucca:
            raise InputError(None, None, "no sources: give -t NAME, --source FILE or --ucca DIR")
        return self.ucca, [], None

    def samsa_config(self, parser: Any) -> SamsaConfig:
        settings: dict[str, Any] = {"tokenizer": self.tokenizer, "separator": self.separator}
        return SamsaConfig(parser=parser, language=self.language.code, splitter=self.splitter_name, **settings)

    @property
    def splitter_name(self) -> str:
        return self.splitter or self.language.splitter


def run(args: argparse.Namespace) -> int:
    lang = resolve_language(args.lang, args.test_set)
    systems = tuple(named_systems([*args.systems, *args.inputs], args.names, required=args.systems_required))
    given = {"refs": tuple(args.refs), "separator": args.sentence_separator, "lang_given": args.lang is not None}
    inputs = from_options(ReportInputs, args, systems=systems, language=lang, parser=parser_name(None, lang), **given)
    return report(inputs, Runtime.from_args(args))


def report(inputs: ReportInputs, runtime: Runtime) -> int:
    """``samsa report``: read, parse (or load) the sources, build the page and write it."""
    from samsa.fileio import check_output_path
    from samsa.registry import get_parser
    from samsa.testsets import get_test_set

    check_output_path(
        inputs.output, [*file_paths([p for _, p in inputs.systems]), *(x for x in (inputs.source, inputs.ucca) if x)]
    )
    source_path, sources, refs = inputs.corpus()
    test_set = inputs.test_set and get_test_set(inputs.test_set).name
    if inputs.documents:
        if test_set:
            raise InputError(None, None, "--documents reads documents from --source or --ucca DIR, not a test set")
        return _documents_report(inputs, runtime, source_path, sources, refs)
    plan = _plan(inputs, source_path, sources)
    xml = get_parser("xml", directory=inputs.ucca) if inputs.ucca and plan is None else None
    if xml is not None and sources:
        xml.check_count(len(sources))
    n = len(sources) if sources else len(xml.files)  # type: ignore[union-attr]
    systems = _read_systems(inputs.systems, n, source_path)  # read (and counted) before any parsing
    doubt = calibration = results = estimate = None
    if xml is not None:
        graphs, parser, sources = _load(xml, sources, runtime)
        annotation = f"UCCA XML of {inputs.ucca}"
    else:
        hint_language(sources, inputs.language, inputs.lang_given, source_path)
        parser = get_parser(inputs.parser)
        wanted = inputs.parse_uncertainty or plan is not None  # a plan's estimate reads the parse doubt
        calibration = run_doubt(parser, wanted=wanted, unless_unavailable=plan is None)
        graphs, doubt, results = _parsed(inputs, runtime, parser, sources, systems, source_path, calibration)
        annotation = f"parsed ({parser.signature()})"
        if plan is not None:
            from samsa.cli.planned import report_estimate

            estimate = report_estimate(
                plan, inputs, (source_path, sources), systems, (parser, calibration, doubt, results)
            )
    title = f"SAMSA report{': ' + test_set if test_set else ''}"
    info = {"title": title, "test_set": test_set, "annotation": annotation}
    page = Page(graphs, sources, systems, refs, parser, info, False, doubt, calibration, results, estimate)
    return _report(inputs, runtime, page)


def _plan(inputs: ReportInputs, source_path: str, sources: list[str]) -> Any:
    """The plan of ``--plan``, checked against the sources (None without one)."""
    if inputs.plan is None:
        return None
    from samsa.engine.plan import read_plan

    if not (inputs.source or inputs.test_set):
        raise InputError(None, None, "--plan estimates from parsed sentences: give --source FILE or -t NAME")
    return read_plan(inputs.plan, source_path, sources)


def _load(xml: Any, sources: list[str], runtime: Runtime) -> tuple[list[Any], Any, list[str]]:
    """The gold graphs, their parser, and the sources (the graphs' tokens where none were given)."""
    from samsa.ucca.graph import tokens

    with runtime.progress(len(xml.files), "load") as bar:
        graphs = xml.load(bar.update)
    return graphs, xml, sources or [" ".join(tokens(g)) for g in graphs]


def _parsed(
    inputs: ReportInputs,
    runtime: Runtime,
    parser: Any,
    sources: list[str],
    systems: dict[str, list[str]],
    source_path: str,
    calibration: Any,
) -> tuple[list[Any], list[Any] | None, list[Any] | None]:
    """The sources' one-best graphs (cached, in --jobs processes or on Dask) and, with parse doubt, each line's
    trees, each system's score on every one, and each system's sentence result (scored in the same run)."""
    from samsa.engine.corpus import parse_corpus, parse_with_doubt

    with runtime.parse_run(len(sources), "parse", source_path) as where:
        if calibration is None:
            return parse_corpus(parser, sources, where), None, None
        config = inputs.samsa_config(parser)
        return parse_with_doubt(config, sources, list(systems.values()), calibration, where)


def _documents_report(inputs: ReportInputs, runtime: Runtime, source_path: str, sources: list[str], refs: Any) -> int:
    """``samsa report --documents``: each source line (or document of --ucca DIR) one passage of its sentences."""
    from samsa.engine.documents import document_files, document_sentences, load_documents, parse_documents
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens

    docs = document_files(inputs.ucca) if inputs.ucca else None
    n = len(sources) if sources else len(docs or [])
    if docs is not None and sources and len(docs) != n:
        raise InputError(inputs.ucca, None, f"holds {len(docs)} documents for the {n} lines of {source_path}")
    systems = _read_systems(inputs.systems, n, source_path, MAX_DOCUMENT_TOKENS)
    parser: Any
    if docs is not None:
        with runtime.progress(len(docs), "load") as bar:
            graphs = list(load_documents(docs, bar.update))
        sources = sources or [" ".join(tokens(g)) for g in graphs]
        parser, annotation = "xml", f"UCCA XML of {inputs.ucca}"
    else:
        splitter = inputs.splitter_name
        texts = [
            document_sentences(x, separator=inputs.separator, splitter=splitter, where=(source_path, k))
            for k, x in enumerate(sources, 1)
        ]
        parser = get_parser(inputs.parser)
        with runtime.parse_run(sum(map(len, texts)), "parse", source_path) as where:
            graphs = list(parse_documents(parser, texts, where))
        annotation = f"parsed ({parser.signature()})"
    info = {"title": "SAMSA report (documents)", "test_set": None, "annotation": annotation}
    return _report(inputs, runtime, Page(graphs, sources, systems, refs, parser, info, True))


def _read_systems(
    named: tuple[tuple[str, str], ...], n: int, source_path: str, max_tokens: int | None = DEFAULT_MAX_TOKENS
) -> dict[str, list[str]]:
    """Each system's lines, refused with one line when they are not ``n`` (the sources')."""
    systems = {}
    for name, path in named:
        lines = read_text_lines(path, max_tokens=max_tokens)
        if len(lines) != n:
            raise InputError(shown(path), min(len(lines), n) + 1, f"has {len(lines)} lines but {source_path} has {n}")
        systems[name] = lines
    return systems


class Page(NamedTuple):
    """What the page shows: the source graphs and texts, the systems' lines, the references, the parser that
    annotated the sources, the header (title, test set, annotation), whether lines are documents, and the parse
    doubt."""

    graphs: list[Any]
    sources: list[str]
    systems: dict[str, list[str]]
    refs: Any
    parser: Any
    info: dict[str, Any]
    documents: bool
    doubt: list[Any] | None = None
    calibration: Any = None
    results: list[Any] | None = None
    estimate: dict[str, Any] | None = None


def _report(inputs: ReportInputs, runtime: Runtime, page: Page) -> int:
    """Build and write the page (``--title`` wins over the page's own)."""
    from samsa.report import build_report, render_html
    from samsa.scoring.metric import Samsa

    metric = Samsa(inputs.samsa_config(page.parser))
    info = {**page.info, "title": inputs.title or page.info["title"], "references": _ref_counts(page.refs)}
    with runtime.progress(len(page.graphs), "report") as bar:
        data = build_report(
            page.graphs,
            page.sources,
            page.systems,
            metric=metric,
            refs=page.refs,
            resamples=inputs.bootstrap,
            seed=inputs.seed,
            info=info,
            progress=bar.update,
            documents=page.documents,
            doubt=page.doubt,
            calibration=page.calibration,
            results=page.results,
            estimate=page.estimate,
        )
    unit = "documents" if page.documents else "sentences"
    _write(inputs.output, render_html(data), f"{len(page.graphs)} {unit}, {len(page.systems)} system(s)")
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
