"""``samsa score``: SAMSA and SAMSA-abl of a system output against UCCA-annotated sources."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from dataclasses import replace
from typing import Any, TextIO

from samsa.cli.common import (
    add_aligner_options,
    add_language_option,
    add_runtime_options,
    add_splitter_option,
    dask_target,
    open_cache,
    samsa_config,
)
from samsa.cli.io import (
    add_data_option,
    add_format_options,
    add_system_options,
    check_output,
    emit,
    int_at_least,
    output_inputs,
    read_text_lines,
    shown,
    system_files,
)
from samsa.cli.sources import DocumentItems, sentence_items
from samsa.config import COMPAT_NAMES, SamsaConfig
from samsa.engine.documents import DOCUMENT_CHUNK, DOCUMENT_WINDOW, MAX_DOCUMENT_TOKENS
from samsa.engine.pipeline import (
    CHUNK,
    WINDOW,
    make_executor,
    progress_bar,
    run_items,
    sentence_results,
    worker_count,
)
from samsa.engine.uncertainty import UncertaintyTotals, parser_calibration
from samsa.engine.worker import Job
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_open, check_output_path
from samsa.registry import available
from samsa.scoring.metric import Samsa
from samsa.scoring.result import CorpusTotals
from samsa.tables import render
from samsa.text import TOKENIZERS

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
    p = sub.add_parser(
        "score",
        help="SAMSA / SAMSA-abl of a system output",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_system_options(p)
    p.add_argument(
        "--ucca",
        metavar="DIR",
        help="directory of UCCA XML files, one per source line (natural order); with --source or -t: manual UCCA "
        "for some lines, each file named by its 1-based source line (17.xml), the other lines parsed",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--source", metavar="FILE", help="raw source sentences, parsed with --parser")
    src.add_argument("-t", "--test-set", metavar="NAME", help="the sources of a named test set (see samsa test-sets)")
    add_data_option(p)
    p.add_argument(
        "--parser",
        default=None,
        help=f"parser for --source (default: the language's: builtin, the fast pipeline, for en, builtin:de for de; "
        f"builtin:accurate or builtin:mpnet for "
        f"the others; available: {', '.join(available('parsers'))})",
    )
    add_aligner_options(p)
    p.add_argument(
        "--compat",
        choices=sorted(COMPAT_NAMES),
        default=SamsaConfig.compat,
        help="definition to follow (default: %(default)s)",
    )
    p.add_argument(
        "--tokenizer",
        choices=sorted(TOKENIZERS),
        default=None,
        help="tokenizer of the output sentences; 'none' = already tokenized (default: the language's: wordpunct "
        "for en, de for de)",
    )
    p.add_argument(
        "--sentence-separator", metavar="SEP", default=None, help="string separating sentences in an output line"
    )
    add_splitter_option(p)
    add_language_option(p)
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
        "--parse-uncertainty. Annotate them, then score again with --ucca DIR holding N.xml files",
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


def _read_system(path: str, max_tokens: int | None, separator: str | None) -> list[str]:
    outputs = read_text_lines(path, allow_empty_lines=True, max_tokens=max_tokens)
    path = shown(path)
    empty = [
        i for i, line in enumerate(outputs, 1) if not (line.replace(separator, " ") if separator else line).strip()
    ]
    if empty:
        what = "empty or separator-only" if separator else "empty"
        print(
            f"samsa: warning: {path}: {len(empty)} {what} output line(s) (first: line {empty[0]}); "
            "they have no sentence and score 0",
            file=sys.stderr,
        )
    return outputs


def run(args: argparse.Namespace) -> int:
    if not (args.ucca or args.source or args.test_set):
        raise InputError(None, None, "no sources: give --ucca DIR, --source FILE or -t NAME")
    if args.documents and args.ucca and (args.source or args.test_set):
        raise InputError(None, None, "--documents reads --ucca DIR or --source FILE, not both")
    if args.max_tokens is None:
        args.max_tokens = MAX_DOCUMENT_TOKENS if args.documents else DEFAULT_MAX_TOKENS
    named = system_files(args)
    inputs = [*output_inputs(args), *(x for x in (args.source, args.ucca) if x)]
    if args.per_sentence:  # before any work: never overwrite an input, fail early on an unwritable target
        if len(named) > 1:
            raise InputError(None, None, "--per-sentence needs a single system file")
        check_output_path(args.per_sentence, inputs)
    suggest, suggest_file = _suggest_option(args.suggest_annotation)
    if suggest_file is not None:
        check_output_path(suggest_file, inputs)
    uncertain = args.parse_uncertainty or suggest is not None
    if uncertain and args.documents:
        raise InputError(None, None, "--parse-uncertainty scores sentences, not --documents")
    if uncertain and args.compat != "paper":
        raise InputError(None, None, "--parse-uncertainty needs paper-mode SAMSA (--compat paper)")
    check_output(args, inputs)
    systems = {n: _read_system(p, args.max_tokens, args.sentence_separator) for n, p in named}
    files = {n: shown(p) for n, p in named}
    documents = DocumentItems(args, systems, files) if args.documents else None
    if documents is not None:
        items: Any = documents
        parser, parsing, named_parser = None, False, documents.parser
    else:
        items, parser = sentence_items(args, systems, files)
        parsing = parser is not None and (not args.ucca or bool(args.source or args.test_set))
        named_parser = parser
    config = samsa_config(args, named_parser)
    manual = sum(it.kind == "xml" for it in items) if parsing else 0
    if manual:  # mixed sources: the signature says how many lines are manual
        config = replace(config, manual=f"{manual}/{len(items)}")
    metric = Samsa(config)
    doubt = None
    if uncertain:
        if not parsing or parser is None:
            raise InputError(None, None, "--parse-uncertainty needs parsed sources (--source or -t)")
        doubt = UncertaintyTotals(parser_calibration(parser))
    job = Job(
        replace(config, parser=parser if parsing else None),
        lenient=args.lenient,
        uncertainty=doubt.calibration if doubt is not None else None,
    )
    totals = [CorpusTotals() for _ in systems]
    dropped: list[int] = []
    with ExitStack() as stack:
        rows = _rows_file(stack, args.per_sentence)  # streamed; replaces the target only if the run succeeds
        cache = open_cache(args) if parsing or (documents is not None and documents.parsing) else None
        if cache is not None:
            stack.callback(cache.close)
        executor = make_executor(job, jobs=worker_count(args.jobs), dask=dask_target(args))
        stack.callback(executor.close)
        bar = stack.enter_context(progress_bar(len(items), "samsa", args.quiet))
        given = documents.items(cache) if documents is not None else items
        chunk, window = (DOCUMENT_CHUNK, DOCUMENT_WINDOW) if documents is not None else (CHUNK, WINDOW)
        stream = run_items(
            given,
            executor,
            cache=cache if parsing else None,
            parser=parser if parsing else None,
            progress=bar.update,
            chunk=chunk,
            window=window,
        )
        for line, (item, res) in enumerate(stream, 1):
            scored = sentence_results(item, line, res, list(files.values()), lenient=args.lenient)
            if scored is None:
                dropped.append(line)
                if rows is not None:
                    rows.write(json.dumps({"line": line, "dropped": True}) + "\n")
                continue
            for total, r in zip(totals, scored, strict=True):
                total.add(r)
            parse = doubt.add(line, res.menu, res.tree_scores) if doubt is not None else None
            if rows is not None:
                where = {"document" if args.documents else "line": line}
                extra = {"parse": parse} if parse is not None else {}
                rows.write(json.dumps({**where, **scored[0].to_dict(), **extra}, ensure_ascii=False) + "\n")
        if len(dropped) == len(items):  # inside the block: the per-sentence file is then not written either
            raise InputError(None, None, "every line was dropped; nothing to score")
    if dropped:
        print(
            f"samsa: warning: --lenient dropped {len(dropped)} of {len(items)} line(s) (first: line {dropped[0]});"
            " the scores are over the rest",
            file=sys.stderr,
        )
    summaries = [
        {"system": name, "file": files[name], **_summary(t, metric, args.documents), "n_dropped": len(dropped)}
        for name, t in zip(systems, totals, strict=True)
    ]
    suggested = None
    if doubt is not None:
        for s, summary in enumerate(summaries):
            summary["parse_interval"] = {**doubt.interval(s), "signature": doubt.calibration.signature()}
        if suggest is not None:
            suggested = doubt.suggest(suggest)
            if suggest_file is not None:
                with atomic_open(suggest_file) as f:
                    f.writelines(f"{n}\n" for n in suggested)
    if args.format == "json":
        if suggested is not None and suggest_file is None:
            for summary in summaries:
                summary["suggest_annotation"] = suggested
        emit(args, json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2, ensure_ascii=False))
    else:
        table = _table(summaries, args.format, args.width)
        if suggested is not None and suggest_file is None:
            table += f"\nannotate these source lines first: {' '.join(map(str, suggested)) or '(none)'}"
        emit(args, table)
    return 0


def _suggest_option(values: list[str] | None) -> tuple[int | None, str | None]:
    """(N, FILE or None) of ``--suggest-annotation N [FILE]``."""
    if values is None:
        return None, None
    if len(values) > 2 or not values[0].isdigit() or int(values[0]) < 1:
        raise InputError(
            None, None, "--suggest-annotation takes a number of lines (at least 1) and, optionally, a FILE"
        )
    return int(values[0]), values[1] if len(values) == 2 else None


def _rows_file(stack: ExitStack, target: str | None) -> TextIO | None:
    return None if target is None else stack.enter_context(atomic_open(target))


def _summary(totals: CorpusTotals, metric: Samsa, documents: bool) -> dict[str, Any]:
    config = metric.settings(documents=documents)
    return totals.result(metric.signature(documents=documents), config).to_dict()


def _table(summaries: list[dict[str, Any]], fmt: str, width: int) -> str:
    """One row per system, the signature once (every system is scored with the same settings)."""
    unit = "documents" if summaries[0]["config"].get("documents") else "lines"
    rows = [
        {
            "system": s["system"],
            "SAMSA": s["samsa"],
            "SAMSA-abl": s["samsa_abl"],
            unit: s["n_lines"],
            "scenes": s["n_scenes"],
            "sentences": s["n_output_sentences"],
            "dropped": s["n_dropped"],
        }
        for s in summaries
    ]
    columns = ["system", "SAMSA", "SAMSA-abl", unit, "scenes", "sentences"]
    if "parse_interval" in summaries[0]:
        for r, s in zip(rows, summaries, strict=True):
            iv = s["parse_interval"]
            r["parse 95%"] = f"{iv['low']:.2f}-{iv['high']:.2f}"
        columns.insert(2, "parse 95%")
    if any(s["n_dropped"] for s in summaries):
        columns.append("dropped")
    signatures = {"samsa": summaries[0]["signature"]}
    if "parse_interval" in summaries[0]:
        signatures["parse 95%"] = summaries[0]["parse_interval"]["signature"]
    return render(rows, columns, fmt, width=width, signatures=signatures)
