"""``samsa score``: SAMSA and SAMSA-abl of a system output against UCCA-annotated sources."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from dataclasses import replace
from typing import Any, NamedTuple, TextIO

from samsa.cli.common import (
    AlignerChoice,
    Runtime,
    add_aligner_options,
    add_plan_option,
    add_raw_source_options,
    add_runtime_options,
    add_text_options,
)
from samsa.cli.inputs import DocumentItems, ScoreInputs, ScoreOptions, suggest_option
from samsa.cli.io import (
    Output,
    add_command,
    add_format_options,
    add_system_options,
    int_at_least,
)
from samsa.cli.results import corpus_summary, score_table
from samsa.config import COMPAT_NAMES, SamsaConfig
from samsa.engine.documents import DOCUMENT_CHUNK, DOCUMENT_WINDOW, MAX_DOCUMENT_TOKENS
from samsa.engine.pipeline import CHUNK, WINDOW, make_executor, run_items, sentence_results
from samsa.engine.uncertainty import UncertaintyTotals, run_doubt
from samsa.engine.worker import Job
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_open, check_output_path
from samsa.languages import by_language
from samsa.registry import available
from samsa.scoring.metric import Samsa
from samsa.scoring.result import CorpusTotals

DESCRIPTION = """\
Score a simplification system's output with SAMSA and SAMSA-abl (0-100).

examples:
  samsa score --ucca gold_xml/ output.txt --tokenizer none --sentence-separator "<::::>" --per-sentence s.jsonl
  samsa score -t hsplit sys1.txt sys2.txt --name A B        # parse the test set's sources once, one row each
  cat output.txt | samsa score --source sources.txt - -f json
  samsa score --documents --source paragraphs.txt simple.txt  # a document a line: document-level SAMSA
"""

EPILOG = """\
Each line of --system is the output for one source sentence; it may hold several
sentences, cut at --sentence-separator or, without it, by a rule-based splitter.
--compat paper follows the paper's definitions; --compat easse reproduces the
EASSE toolkit bit for bit given the same UCCA graphs and aligner (docs/samsa.md).
The corpus score is the mean of the sentence scores. With --documents each line (and
each document of --ucca DIR: a sub-folder of sentence files, or a passage file) is a
document: its Scenes are matched to the output document's sentences wherever they are,
and the signature says doc:yes.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "score", "SAMSA / SAMSA-abl of a system output", DESCRIPTION, EPILOG)
    add_system_options(p)
    p.add_argument(
        "--ucca",
        metavar="DIR",
        help="directory of UCCA XML files, one per source line (natural order); with --source or -t: manual UCCA "
        "for some lines, each file named by its 1-based source line (17.xml), the other lines parsed",
    )
    add_raw_source_options(p)
    p.add_argument(
        "--parser",
        default=None,
        help=f"parser for --source (default: the language's: {by_language(lambda lang: lang.parser)}; the fast "
        f"pipeline is English's builtin, builtin:accurate or builtin:mpnet the others; available: "
        f"{', '.join(available('parsers'))})",
    )
    add_aligner_options(p)
    p.add_argument(
        "--compat",
        choices=sorted(COMPAT_NAMES),
        default=SamsaConfig.compat,
        help="definition to follow (default: %(default)s)",
    )
    add_text_options(p)
    p.add_argument(
        "--lowercase",
        action="store_true",
        help="lowercase outputs (and raw sources before parsing), as EASSE's lowercase=True",
    )
    p.add_argument(
        "--documents",
        action="store_true",
        help="each line of --source and of every system is a document of several sentences (cut at "
        "--sentence-separator, else by the splitter); --ucca DIR holds a sub-folder of sentence XML "
        "files, or one passage file, per document: document-level SAMSA (docs/samsa.md)",
    )
    p.add_argument("--per-sentence", metavar="FILE", help="write one JSON object per system line (JSONL)")
    unc = p.add_argument_group("parse uncertainty (parsed sources; docs/validity.md)")
    unc.add_argument(
        "--parse-uncertainty",
        action="store_true",
        help="draw trees from the parser's distribution (calibrated on the dev sets): each --per-sentence row "
        "gains a 'parse' object (mean, 90%% interval, P(score=0), Scene-count distribution) and each system a "
        "95%% parse interval of its corpus SAMSA; the headline score stays the one-best parse's (the parse cache "
        "keeps the drawn trees beside each one-best parse)",
    )
    unc.add_argument(
        "--suggest-annotation",
        nargs="+",
        metavar=("N", "FILE"),
        default=None,
        help="the N source lines (1-based, most first) whose manual UCCA should change the scores most: the "
        "largest expected Scene-count error of their parse, then the widest spread of the systems' scores over "
        "their trees; written to FILE (one number a line) or shown with the scores; implies "
        "--parse-uncertainty. A look at where the parse errs: the corpus score of mixed sources stays biased "
        "(by an unknown amount) however many of them are annotated; for a corpus figure, annotate the lines "
        "samsa sample draws and score with --plan",
    )
    add_plan_option(
        unc,
        "each system also gets an estimate of its all-manual corpus SAMSA and SAMSA-abl with a 95%% interval, and "
        "from the second system on its difference from the first (docs/validity.md)",
    )
    p.add_argument(
        "--lenient",
        action="store_true",
        help="drop a passage that does not load or validate (a warning names it; the summary counts "
        "it) instead of stopping",
    )
    add_format_options(p)
    p.add_argument(
        "--max-tokens",
        type=int_at_least(1),
        default=None,
        metavar="N",
        help=f"reject lines longer than N tokens (default: {DEFAULT_MAX_TOKENS}; with --documents, "
        f"{MAX_DOCUMENT_TOKENS} per document)",
    )
    add_runtime_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    suggest, suggest_file = suggest_option(args.suggest_annotation)
    if not (args.ucca or args.source or args.test_set):
        raise InputError(None, None, "no sources: give --ucca DIR, --source FILE or -t NAME")
    longest = args.max_tokens or (MAX_DOCUMENT_TOKENS if args.documents else DEFAULT_MAX_TOKENS)
    inputs = ScoreInputs.from_args(args, longest)
    options = ScoreOptions(
        compat=args.compat,
        aligner=AlignerChoice(args.aligner, args.ppdb, args.faithful_bugs, args.spacy_model),
        lenient=args.lenient,
        per_sentence=args.per_sentence,
        parse_uncertainty=args.parse_uncertainty,
        suggest=suggest,
        suggest_file=suggest_file,
    )
    runtime = Runtime.from_args(args)
    output = Output.from_args(args)
    if args.plan:
        from samsa.cli.planned import score_planned

        return score_planned(inputs, options, args.plan, runtime, output)
    return score(inputs, options, runtime, output)


def score(inputs: ScoreInputs, options: ScoreOptions, runtime: Runtime, output: Output) -> int:
    """``samsa score``: check everything that can be checked before work, build the run, stream it, summarise."""
    _validate(inputs, options, output)
    run = _build(inputs, options)
    totals, dropped = _stream(run, inputs, options, runtime)
    summaries = _summarise(run, totals, dropped, inputs.documents)
    suggested = _suggestions(run, options)
    output.emit(_render(summaries, suggested, options, output))
    return 0


def _validate(inputs: ScoreInputs, options: ScoreOptions, output: Output) -> None:
    """The refusals that need no work, before any: conflicting sources, outputs that would overwrite an input or
    cannot be written."""
    if inputs.documents and inputs.ucca and inputs.parses:
        raise InputError(None, None, "--documents reads --ucca DIR or --source FILE, not both")
    files = inputs.input_files()
    if options.per_sentence:  # before any work: never overwrite an input, fail early on an unwritable target
        if len(inputs.systems) > 1:
            raise InputError(None, None, "--per-sentence needs a single system file")
        check_output_path(options.per_sentence, files)
    if options.suggest_file is not None:
        check_output_path(options.suggest_file, files)
    output.check(files)


class _Run(NamedTuple):
    """A scoring run as built: the systems' lines, their files, the items (or documents), the parser of raw
    sources (None when none are parsed), the settings, and the parse doubt."""

    systems: dict[str, list[str]]
    files: dict[str, str]
    items: Any
    documents: DocumentItems | None
    parser: Any
    config: SamsaConfig
    doubt: UncertaintyTotals | None


def _build(inputs: ScoreInputs, options: ScoreOptions) -> _Run:
    """Read the systems and sources into the pipeline's items; the settings (the signature counts manual lines of
    mixed sources) and the parse doubt the run carries."""
    if inputs.documents or options.compat != "paper":  # parse doubt refused before anything is read
        run_doubt(None, wanted=options.doubt, documents=inputs.documents, compat=options.compat)
    systems, files = inputs.read_systems()
    documents = DocumentItems(inputs, systems, files) if inputs.documents else None
    if documents is not None:
        items: Any = documents
        parser, parsing, named_parser = None, False, documents.parser
    else:
        items, parser = inputs.sentence_items(systems, files)
        parsing = parser is not None and (not inputs.ucca or inputs.parses)
        named_parser = parser
    settings: dict[str, Any] = {"compat": options.compat, "tokenizer": inputs.tokenizer, "separator": inputs.separator}
    settings.update(splitter=inputs.splitter_name, lowercase=inputs.lowercase)
    config = options.aligner.samsa_config(inputs.language, named_parser, **settings)
    manual = sum(it.kind == "xml" for it in items) if parsing else 0
    if manual:  # mixed sources: the signature says how many lines are manual
        config = replace(config, manual=f"{manual}/{len(items)}")
    calibration = run_doubt(parser if parsing else None, wanted=options.doubt, compat=options.compat)
    doubt = UncertaintyTotals(calibration) if calibration is not None else None
    return _Run(systems, files, items, documents, parser if parsing else None, config, doubt)


def _stream(
    run: _Run, inputs: ScoreInputs, options: ScoreOptions, runtime: Runtime
) -> tuple[list[CorpusTotals], list[int]]:
    """Run the items through the pipeline: each system's totals and the lines dropped (``--lenient``); the
    per-sentence rows streamed to their file, which replaces the target only if the run succeeds."""
    job = Job(
        replace(run.config, parser=run.parser),
        lenient=options.lenient,
        uncertainty=run.doubt.calibration if run.doubt is not None else None,
    )
    totals = [CorpusTotals() for _ in run.systems]
    dropped: list[int] = []
    names = list(run.files.values())
    with ExitStack() as stack:
        rows = _rows_file(stack, options.per_sentence)
        parsing = run.parser is not None or (run.documents is not None and run.documents.parsing)
        execution = stack.enter_context(runtime.parse_run(len(run.items), "samsa", cached=parsing))
        cache = execution.cache
        executor = make_executor(job, jobs=execution.jobs, dask=execution.dask)
        stack.callback(executor.close)
        given = run.documents.items(execution) if run.documents is not None else run.items
        chunk, window = (DOCUMENT_CHUNK, DOCUMENT_WINDOW) if run.documents is not None else (CHUNK, WINDOW)
        stream = run_items(
            given,
            executor,
            cache=cache if run.parser else None,
            parser=run.parser,
            progress=execution.progress,
            chunk=chunk,
            window=window,
        )
        for line, (item, res) in enumerate(stream, 1):
            scored = sentence_results(item, line, res, names, lenient=options.lenient)
            if scored is None:
                dropped.append(line)
                if rows is not None:
                    rows.write(json.dumps({"line": line, "dropped": True}) + "\n")
                continue
            for total, r in zip(totals, scored, strict=True):
                total.add(r)
            parse = run.doubt.add(line, res.menu, res.tree_scores) if run.doubt is not None else None
            if rows is not None:
                where = {"document" if inputs.documents else "line": line}
                extra = {"parse": parse} if parse is not None else {}
                rows.write(json.dumps({**where, **scored[0].to_dict(), **extra}, ensure_ascii=False) + "\n")
        if len(dropped) == len(run.items):  # inside the block: the per-sentence file is then not written either
            raise InputError(None, None, "every line was dropped; nothing to score")
    if dropped:
        print(
            f"samsa: warning: --lenient dropped {len(dropped)} of {len(run.items)} line(s) (first: line {dropped[0]});"
            " the scores are over the rest",
            file=sys.stderr,
        )
    return totals, dropped


def _summarise(run: _Run, totals: list[CorpusTotals], dropped: list[int], documents: bool) -> list[dict[str, Any]]:
    """Each system's corpus result (with the parse interval under parse doubt)."""
    metric = Samsa(run.config)
    summaries = [
        {"system": name, "file": run.files[name], **corpus_summary(t, metric, documents), "n_dropped": len(dropped)}
        for name, t in zip(run.systems, totals, strict=True)
    ]
    if run.doubt is not None:
        for s, summary in enumerate(summaries):
            summary["parse_interval"] = {**run.doubt.interval(s), "signature": run.doubt.calibration.signature()}
    return summaries


def _suggestions(run: _Run, options: ScoreOptions) -> list[int] | None:
    """The lines to annotate first (``--suggest-annotation``), written to their file when one is named."""
    if run.doubt is None or options.suggest is None:
        return None
    suggested = run.doubt.suggest(options.suggest)
    if options.suggest_file is not None:
        with atomic_open(options.suggest_file) as f:
            f.writelines(f"{n}\n" for n in suggested)
    return suggested


def _render(summaries: list[dict[str, Any]], suggested: list[int] | None, options: ScoreOptions, output: Output) -> str:
    """The result as JSON, or as a table with the signature lines (and the lines to annotate)."""
    shown_here = suggested is not None and options.suggest_file is None
    if output.format == "json":
        if shown_here:
            for summary in summaries:
                summary["suggest_annotation"] = suggested
        return json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2, ensure_ascii=False)
    table = score_table(summaries, output.format, output.width)
    if shown_here:
        table += f"\nannotate these source lines first: {' '.join(map(str, suggested or [])) or '(none)'}"
    return table


def _rows_file(stack: ExitStack, target: str | None) -> TextIO | None:
    return None if target is None else stack.enter_context(atomic_open(target))
