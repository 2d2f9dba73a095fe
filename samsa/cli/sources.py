"""Where ``samsa score`` reads its sources: gold XML files or raw sentences, one per system line, or
(``--documents``) documents, one per line, as one passage of their sentences each."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from samsa.cli.common import dask_target, default_parser
from samsa.engine.pipeline import worker_count
from samsa.engine.worker import Item
from samsa.errors import InputError
from samsa.fileio import read_lines
from samsa.registry import get_parser

__all__ = ["DocumentItems", "check_count", "manual_lines", "sentence_items", "source_lines", "text_parser"]


def check_count(
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


def source_lines(args: argparse.Namespace) -> tuple[str, list[str]]:
    if args.test_set:
        from samsa.testsets import get_orig_sents, get_test_set, test_set_files

        path = test_set_files(get_test_set(args.test_set).name, args.data)[0]
        return str(path), get_orig_sents(args.test_set, args.data)
    return args.source, read_lines(args.source, allow_empty_lines=False, max_tokens=args.max_tokens)


def sentence_items(
    args: argparse.Namespace, systems: dict[str, list[str]], files: dict[str, str]
) -> tuple[list[Item], Any]:
    """One pipeline item per source line (gold XML file or raw sentence), and the parser (None for gold)."""
    columns = list(zip(*systems.values(), strict=True))
    if args.ucca and not (args.source or args.test_set):
        xml = get_parser("xml", directory=args.ucca)
        for name, outputs in systems.items():
            check_count(files[name], len(outputs), args.ucca, len(xml.files), xml.files)
        return [Item("xml", f, outs, str(f)) for f, outs in zip(xml.files, columns, strict=True)], xml
    source_path, sources = source_lines(args)
    for name, outputs in systems.items():
        check_count(files[name], len(outputs), source_path, len(sources))
    parser = text_parser(args)
    if args.lowercase:
        sources = [s.lower() for s in sources]
    manual = manual_lines(args.ucca, len(sources)) if args.ucca else {}
    items = [
        Item("xml", manual[i], outs, str(manual[i])) if i in manual else Item("parse", s, outs, f"{source_path}:{i}")
        for i, (s, outs) in enumerate(zip(sources, columns, strict=True), 1)
    ]
    return items, parser


def manual_lines(directory: str, n: int) -> dict[int, Path]:
    """Mixed sources: the UCCA XML files of ``directory`` by the 1-based source line each names (``17.xml``).
    A file not so named, or naming no line of the ``n``, is refused in one line naming it."""
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(folder, None, "not a directory of UCCA XML files")
    found: dict[int, Path] = {}
    for f in sorted(folder.iterdir()):
        if f.suffix != ".xml" or not f.is_file():
            continue
        if not re.fullmatch(r"[1-9][0-9]*", f.stem):
            raise InputError(f, None, "with --source, a UCCA file is named by the source line it annotates (17.xml)")
        line = int(f.stem)
        if line > n:
            raise InputError(f, None, f"names line {line}, but the sources have {n} lines")
        found[line] = f
    return found


class DocumentItems:
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
                check_count(files[name], len(outputs), args.ucca, len(self.files), places, unit="documents")
            self.origins = [str(p) for p in places]
            self.parser: Any = "xml"
            return
        lines = read_lines(args.source, allow_empty_lines=False, max_tokens=args.max_tokens)
        for name, outputs in systems.items():
            check_count(files[name], len(outputs), args.source, len(lines))
        lines = [x.lower() for x in lines] if args.lowercase else lines
        self.texts = [
            document_sentences(x, separator=args.sentence_separator, splitter=args.splitter, where=(args.source, k))
            for k, x in enumerate(lines, 1)
        ]
        self.origins = [f"{args.source}:{k}" for k in range(1, len(lines) + 1)]
        self.parser = text_parser(args)

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
            graphs = parse_documents(
                self.parser,
                self.texts,
                cache=cache,
                jobs=worker_count(self.args.jobs),
                dask=dask_target(self.args),
                origin=self.args.source,
            )
        for g, outs, origin in zip(graphs, self.columns, self.origins, strict=True):
            yield Item("graph", g, outs, origin)


def text_parser(args: argparse.Namespace) -> Any:
    try:
        return get_parser(default_parser(args))
    except TypeError:
        raise InputError(
            None,
            None,
            f"parser {args.parser!r} cannot parse raw text (it needs options, e.g. the xml parser needs --ucca DIR)",
        ) from None
