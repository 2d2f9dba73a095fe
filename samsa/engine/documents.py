"""Documents: a source document as one UCCA passage holding its sentences, for document-level SAMSA. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from samsa.engine.seams import IN_PROCESS, Execution
from samsa.errors import InputError
from samsa.text import SPLITTER_NAME, split_sentences
from samsa.ucca.graph import join_passages
from samsa.ucca.xml import list_passage_files, load_passage, natural_key

__all__ = [
    "DOCUMENT_CHUNK",
    "DOCUMENT_WINDOW",
    "MAX_DOCUMENT_TOKENS",
    "document_files",
    "document_sentences",
    "load_documents",
    "parse_documents",
]

#: the most whitespace-separated tokens a document line may hold (sources and outputs): what bounds the time and
#: memory of one document (its sentences are parsed one by one; its Scenes times the output's sentences are
#: aligned)
MAX_DOCUMENT_TOKENS = 20_000
#: documents per task and tasks per window when documents are scored (``samsa.engine.pipeline.run_items``): at
#: most 32 documents are in memory at once
DOCUMENT_CHUNK, DOCUMENT_WINDOW = 4, 8


def document_sentences(
    line: str, *, separator: str | None = None, splitter: str = SPLITTER_NAME, where: tuple[Any, int] | None = None
) -> list[str]:
    """A document line's sentences: cut at ``separator`` when given, else by the rule-based splitter; empty
    pieces dropped. A line with no sentence is an error naming ``where`` (file, line).

    >>> document_sentences("John got home. He called Mary.")
    ['John got home.', 'He called Mary.']
    >>> document_sentences("a b <::::> c", separator="<::::>")
    ['a b', 'c']
    """
    pieces = line.split(separator) if separator else split_sentences(line, splitter)
    sentences = [" ".join(p.split()) for p in pieces if p.strip()]
    if not sentences:
        path, number = where or (None, None)
        raise InputError(path, number, "a document with no sentence")
    return sentences


def document_files(directory: str | Path) -> list[list[Path]]:
    """The documents of a UCCA directory, each as its XML files in order: one sub-folder per document (natural
    order), holding the document's sentence files (natural order); or one XML passage file per document. A
    directory mixing the two, or a document folder without XML files, is an error."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError(d, None, "not a directory of UCCA documents")
    folders = sorted((p for p in d.iterdir() if p.is_dir()), key=lambda p: natural_key(p.name))
    files = list_passage_files(d)
    if folders and files:
        both = f"document folders ({folders[0].name}) and XML files ({files[0].name})"
        raise InputError(d, None, f"holds both {both}: give one folder per document, or one passage file per document")
    if not folders:
        return [[f] for f in files]
    out = []
    for folder in folders:
        sentences = list_passage_files(folder)
        if not sentences:
            raise InputError(folder, None, "a document folder without UCCA XML files")
        out.append(sentences)
    return out


def load_documents(
    documents: Sequence[Sequence[Path]], progress: Callable[[int], Any] | None = None
) -> Iterator[nx.DiGraph]:
    """Each document's files read and joined into one passage (a single passage file as it is), one document at a
    time."""
    for k, files in enumerate(documents, 1):
        yield join_passages([load_passage(f) for f in files], str(k))
        if progress is not None:
            progress(1)


def parse_documents(
    parser: Any, documents: Sequence[Sequence[str]], execution: Execution = IN_PROCESS
) -> Iterator[nx.DiGraph]:
    """Each document (its sentences as text) parsed sentence by sentence and joined into one passage, one
    document at a time: the sentences of all documents stream through one run of the parser (cached, in
    parallel, in input order: ``samsa.engine.pipeline.run_items``), so memory holds a window of them, whatever
    the corpus' size. The execution's progress counts sentences; its ``origin``: the file the documents are the
    lines of (named by a refusal)."""
    from samsa.engine.corpus import parse_items
    from samsa.engine.pipeline import line_origin
    from samsa.engine.worker import Item

    origin = execution.origin if isinstance(execution.origin, str) else None
    items = (Item("parse", s, origin=line_origin(origin, k)) for k, doc in enumerate(documents, 1) for s in doc)
    stream = parse_items(parser, items, execution)
    try:
        for k, doc in enumerate(documents, 1):
            yield join_passages([next(stream) for _ in doc], str(k))
    finally:
        stream.close()
