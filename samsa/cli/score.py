"""``samsa score``: SAMSA and SAMSA-abl of a system output against UCCA-annotated sources."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, TextIO

from samsa.cli.common import (
    add_aligner_options,
    add_runtime_options,
    add_splitter_option,
    aligner_spec,
    build_aligner,
    dask_target,
    open_cache,
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
from samsa.engine.documents import DOCUMENT_CHUNK, DOCUMENT_WINDOW, MAX_DOCUMENT_TOKENS
from samsa.engine.executors import Item, Job
from samsa.engine.pipeline import (
    CHUNK,
    WINDOW,
    make_executor,
    progress_bar,
    run_items,
    sentence_results,
    worker_count,
)
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, atomic_open, check_output_path, read_lines
from samsa.registry import available, get_parser
from samsa.scoring import COMPAT_MODES, SentenceResult, corpus_mean
from samsa.scoring.metric import Samsa
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
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--ucca", metavar="DIR", help="directory of UCCA XML files, one per source line (natural order)")
    src.add_argument("--source", metavar="FILE", help="raw source sentences, parsed with --parser")
    src.add_argument("-t", "--test-set", metavar="NAME", help="the sources of a named test set (see samsa test-sets)")
    add_data_option(p)
    p.add_argument(
        "--parser",
        default=None,
        help=f"parser for --source (default: builtin, the fast pipeline; builtin:accurate or builtin:mpnet for "
        f"the others; available: {', '.join(available('parsers'))})",
    )
    add_aligner_options(p)
    p.add_argument(
        "--compat", choices=sorted(COMPAT_MODES), default="paper", help="definition to follow (default: %(default)s)"
    )
    p.add_argument(
        "--tokenizer",
        choices=sorted(TOKENIZERS),
        default="wordpunct",
        help="tokenizer of the output sentences; 'none' = already tokenized (default: %(default)s)",
    )
    p.add_argument(
        "--sentence-separator", metavar="SEP", default=None, help="string separating sentences in an output line"
    )
    add_splitter_option(p)
    p.add_argument("--lowercase", action="store_true",
                   help="lowercase outputs (and raw sources before parsing), as EASSE's lowercase=True")  # fmt: skip
    p.add_argument("--documents", action="store_true",
                   help="each line of --source and of every system is a document of several sentences (cut at "
                        "--sentence-separator, else by the splitter); --ucca DIR holds a sub-folder of sentence XML "
                        "files, or one passage file, per document: document-level SAMSA (docs/samsa.md)")  # fmt: skip
    p.add_argument("--per-sentence", metavar="FILE", help="write one JSON object per system line (JSONL)")
    p.add_argument("--lenient", action="store_true",
                   help="drop a passage that does not load or validate (a warning names it; the summary counts "
                        "it) instead of stopping")  # fmt: skip
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
        print(f"samsa: warning: {path}: {len(empty)} {what} output line(s) (first: line {empty[0]}); "
              "they have no sentence and score 0", file=sys.stderr)  # fmt: skip
    return outputs


def _check_count(
    system: str, n_out: int, source: str, n_src: int, files: list[Any] | None = None, unit: str | None = None
) -> None:
    """Name the first line (or UCCA file or document) without a counterpart, in the file that has it."""
    if n_out == n_src:
        return
    unit = unit or ("UCCA XML files" if files is not None else "lines")
    counts = f"{system} has {n_out} lines, {source} {n_src} {unit}"
    if n_out > n_src:
        raise InputError(system, n_src + 1, f"no source for this line: {counts}")
    if files is not None:  # file (or document) k in natural sort order annotates line k
        what = "document" if unit == "documents" else "UCCA file"
        raise InputError(files[n_out], None, f"{what} number {n_out + 1} has no system line: {counts}")
    raise InputError(source, n_out + 1, f"no system line for this source line: {counts}")


def _source_lines(args: argparse.Namespace) -> tuple[str, list[str]]:
    if args.test_set:
        from samsa.testsets import get_orig_sents, get_test_set, test_set_files

        path = test_set_files(get_test_set(args.test_set).name, args.data)[0]
        return str(path), get_orig_sents(args.test_set, args.data)
    return args.source, read_lines(args.source, allow_empty_lines=False, max_tokens=args.max_tokens)


def _sources(args: argparse.Namespace, systems: dict[str, list[str]], files: dict[str, str]) -> tuple[list[Item], Any]:
    """One pipeline item per source line (gold XML file or raw sentence), and the parser (None for gold)."""
    columns = list(zip(*systems.values(), strict=True))
    if args.ucca:
        xml = get_parser("xml", directory=args.ucca)
        for name, outputs in systems.items():
            _check_count(files[name], len(outputs), args.ucca, len(xml.files), xml.files)
        return [Item("xml", f, outs, str(f)) for f, outs in zip(xml.files, columns, strict=True)], xml
    source_path, sources = _source_lines(args)
    for name, outputs in systems.items():
        _check_count(files[name], len(outputs), source_path, len(sources))
    try:
        parser = get_parser(args.parser or "builtin")
    except TypeError:
        raise InputError(None, None, f"parser {args.parser!r} cannot parse raw text (it needs options, "
                         "e.g. the xml parser needs --ucca DIR)") from None  # fmt: skip
    if args.lowercase:
        sources = [s.lower() for s in sources]
    items = [Item("parse", s, outs, f"{source_path}:{i}") for i, (s, outs) in enumerate(zip(sources, columns,
                                                                                        strict=True), 1)]  # fmt: skip
    return items, parser


class _DocumentItems:
    """The pipeline items of --documents, made as they are scored: each document's sentences' graphs joined into
    one passage (read from --ucca DIR, or parsed from --source in one streamed run, cached)."""

    def __init__(self, args: argparse.Namespace, systems: dict[str, list[str]], files: dict[str, str]) -> None:
        from samsa.engine.documents import document_files, document_sentences

        self.args = args
        self.columns = list(zip(*systems.values(), strict=True))
        if args.test_set:
            raise InputError(None, None, "--documents reads documents from --source or --ucca DIR, not a test set")
        self.files: list[list[Any]] | None = None
        self.texts: list[list[str]] = []
        if args.ucca:
            self.files = document_files(args.ucca)
            places = [d[0] if d[0].parent.samefile(args.ucca) else d[0].parent for d in self.files]  # file or folder
            for name, outputs in systems.items():
                _check_count(files[name], len(outputs), args.ucca, len(self.files), places, unit="documents")
            self.origins = [str(p) for p in places]
            self.parser: Any = "xml"
            return
        lines = read_lines(args.source, allow_empty_lines=False, max_tokens=args.max_tokens)
        for name, outputs in systems.items():
            _check_count(files[name], len(outputs), args.source, len(lines))
        lines = [x.lower() for x in lines] if args.lowercase else lines
        self.texts = [
            document_sentences(x, separator=args.sentence_separator, splitter=args.splitter, where=(args.source, k))
            for k, x in enumerate(lines, 1)
        ]
        self.origins = [f"{args.source}:{k}" for k in range(1, len(lines) + 1)]
        self.parser = _text_parser(args)

    def __len__(self) -> int:
        return len(self.origins)

    @property
    def parsing(self) -> bool:
        return self.files is None

    def items(self, cache: Any) -> Iterator[Item]:
        from samsa.engine.documents import load_documents, parse_documents

        if self.files is not None:
            graphs = load_documents(self.files)
        else:
            graphs = parse_documents(self.parser, self.texts, cache=cache, jobs=worker_count(self.args.jobs),
                                     dask=dask_target(self.args))  # fmt: skip
        for g, outs, origin in zip(graphs, self.columns, self.origins, strict=True):
            yield Item("graph", g, outs, origin)


def _text_parser(args: argparse.Namespace) -> Any:
    try:
        return get_parser(args.parser or "builtin")
    except TypeError:
        raise InputError(None, None, f"parser {args.parser!r} cannot parse raw text (it needs options, "
                         "e.g. the xml parser needs --ucca DIR)") from None  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.max_tokens is None:
        args.max_tokens = MAX_DOCUMENT_TOKENS if args.documents else DEFAULT_MAX_TOKENS
    named = system_files(args)
    inputs = [*output_inputs(args), *(x for x in (args.source, args.ucca) if x)]
    if args.per_sentence:  # before any work: never overwrite an input, fail early on an unwritable target
        if len(named) > 1:
            raise InputError(None, None, "--per-sentence needs a single system file")
        check_output_path(args.per_sentence, inputs)
    check_output(args, inputs)
    systems = {n: _read_system(p, args.max_tokens, args.sentence_separator) for n, p in named}
    files = {n: shown(p) for n, p in named}
    documents = _DocumentItems(args, systems, files) if args.documents else None
    if documents is not None:
        items: Any = documents
        parser, parsing, named_parser = None, False, documents.parser
    else:
        items, parser = _sources(args, systems, files)
        parsing = parser is not None and not args.ucca
        named_parser = parser
    metric = Samsa(aligner=build_aligner(args), compat=args.compat, tokenizer=args.tokenizer,
                   separator=args.sentence_separator, parser=named_parser, splitter=args.splitter,
                   lowercase=args.lowercase)  # fmt: skip
    job = Job(parser=parser if parsing else None, aligner=aligner_spec(args), compat=args.compat,
              tokenizer=args.tokenizer, separator=args.sentence_separator, lenient=args.lenient,
              splitter=args.splitter, lowercase=args.lowercase)  # fmt: skip
    totals = [_Totals() for _ in systems]
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
        stream = run_items(given, executor, cache=cache if parsing else None, parser=parser if parsing else None,
                           progress=bar.update, chunk=chunk, window=window)  # fmt: skip
        for line, (item, res) in enumerate(stream, 1):
            scored = sentence_results(item, line, res, list(files.values()), lenient=args.lenient)
            if scored is None:
                dropped.append(line)
                if rows is not None:
                    rows.write(json.dumps({"line": line, "dropped": True}) + "\n")
                continue
            for total, r in zip(totals, scored, strict=True):
                total.add(r)
            if rows is not None:
                where = {"document" if args.documents else "line": line}
                rows.write(json.dumps({**where, **scored[0].to_dict()}, ensure_ascii=False) + "\n")
        if len(dropped) == len(items):  # inside the block: the per-sentence file is then not written either
            raise InputError(None, None, "every line was dropped; nothing to score")
    if dropped:
        print(f"samsa: warning: --lenient dropped {len(dropped)} of {len(items)} line(s) (first: line {dropped[0]});"
              " the scores are over the rest", file=sys.stderr)  # fmt: skip
    summaries = [{"system": name, "file": files[name], **t.summary(metric, args.documents), "n_dropped": len(dropped)}
                 for name, t in zip(systems, totals, strict=True)]  # fmt: skip
    if args.format == "json":
        emit(args, json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2, ensure_ascii=False))
    else:
        emit(args, _table(summaries, args.format, args.width))
    return 0


def _rows_file(stack: ExitStack, target: str | None) -> TextIO | None:
    return None if target is None else stack.enter_context(atomic_open(target))


class _Totals:
    """What the corpus summary needs of each sentence: its two scores and counts (no graphs, no detail)."""

    def __init__(self) -> None:
        self.samsa: list[float] = []
        self.abl: list[float] = []
        self.scenes = self.sentences = 0

    def add(self, r: SentenceResult) -> None:
        self.samsa.append(r.samsa)
        self.abl.append(r.samsa_abl)
        self.scenes += r.n_scenes
        self.sentences += r.n_sentences

    def summary(self, metric: Samsa, documents: bool = False) -> dict[str, Any]:
        return {
            "name": "SAMSA",
            "samsa": corpus_mean(self.samsa),
            "samsa_abl": corpus_mean(self.abl),
            "n_lines": len(self.samsa),
            "n_scenes": self.scenes,
            "n_output_sentences": self.sentences,
            "signature": metric.signature(documents=documents),
            "config": {**metric.config(), "documents": documents},
        }


def _table(summaries: list[dict[str, Any]], fmt: str, width: int) -> str:
    """One row per system, the signature once (every system is scored with the same settings)."""
    unit = "documents" if summaries[0]["config"].get("documents") else "lines"
    rows = [{"system": s["system"], "SAMSA": s["samsa"], "SAMSA-abl": s["samsa_abl"], unit: s["n_lines"],
             "scenes": s["n_scenes"], "sentences": s["n_output_sentences"], "dropped": s["n_dropped"]}
            for s in summaries]  # fmt: skip
    columns = ["system", "SAMSA", "SAMSA-abl", unit, "scenes", "sentences"]
    if any(s["n_dropped"] for s in summaries):
        columns.append("dropped")
    return render(rows, columns, fmt, width=width, signatures={"samsa": summaries[0]["signature"]})
