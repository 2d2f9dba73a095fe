"""The one way in to a scoring run: what ``samsa score`` (and every command that scores sources the way it does)
reads, as one typed object built once from the arguments in the command's ``run``: the sources (gold XML files,
raw sentences, a named test set, or documents), the systems, the language and the text settings. It turns them
into the pipeline's items: one per source line, or (``--documents``) one per document, as one passage of its
sentences."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from samsa.cli.common import AlignerChoice, hint_language, parser_name, resolve_language
from samsa.cli.io import named_systems, read_text_lines, shown
from samsa.engine.worker import Item
from samsa.errors import InputError
from samsa.fileio import DEFAULT_MAX_TOKENS, read_lines
from samsa.languages import Language
from samsa.registry import get_parser

__all__ = [
    "DocumentItems",
    "ScoreInputs",
    "ScoreOptions",
    "check_annotation",
    "check_count",
    "manual_lines",
    "suggest_option",
]


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


class ScoreInputs(NamedTuple):
    """What a scoring run reads.

    systems
        (name, path) of each system output file (``-`` standard input).
    language, lang_given
        The text's language, and whether ``--lang`` named it (else the test set's, or English).
    source, test_set, data, ucca
        Raw sources (``--source``), a named test set (``-t``, under the data root ``--data``), and UCCA XML
        (``--ucca DIR``: every line's, or beside raw sources each annotated line's ``N.xml``).
    parser
        The registry name of the parser of raw sources.
    tokenizer, separator, splitter, lowercase
        How output lines become sentences and tokens (None: the language's).
    max_tokens, documents
        The longest line read; whether each line is a document.
    """

    systems: tuple[tuple[str, str], ...]
    language: Language
    parser: str
    lang_given: bool = False
    source: str | None = None
    test_set: str | None = None
    data: str | None = None
    ucca: str | None = None
    tokenizer: str | None = None
    separator: str | None = None
    splitter: str | None = None
    lowercase: bool = False
    max_tokens: int = 1000
    documents: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace, max_tokens: int = DEFAULT_MAX_TOKENS) -> ScoreInputs:
        """The inputs as the shared options gave them (the systems, ``--source``, ``-t``, ``--data``, ``--ucca``,
        ``--parser``, ``--lang`` and the text options; those a command lacks keep their defaults)."""
        lang = resolve_language(args.lang, args.test_set)
        paths = [*args.systems, *args.inputs]
        return cls(
            systems=tuple(named_systems(paths, args.names, required=args.systems_required)),
            language=lang,
            parser=parser_name(args.parser, lang),
            lang_given=args.lang is not None,
            source=args.source,
            test_set=args.test_set,
            data=args.data,
            ucca=getattr(args, "ucca", None),
            tokenizer=args.tokenizer,
            separator=args.sentence_separator,
            splitter=args.splitter,
            lowercase=getattr(args, "lowercase", False),
            max_tokens=max_tokens,
            documents=getattr(args, "documents", False),
        )

    @property
    def parses(self) -> bool:
        """Whether raw sources are parsed (``--source`` or ``-t``; with ``--ucca`` too, for the lines it lacks)."""
        return bool(self.source or self.test_set)

    @property
    def splitter_name(self) -> str:
        return self.splitter or self.language.splitter

    def input_files(self) -> list[str]:
        """The paths an output must never overwrite."""
        return [p for _, p in self.systems if p != "-"] + [x for x in (self.source, self.ucca) if x]

    def read_systems(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """Each system's lines (an empty line warned about: it has no sentence and scores 0), and each system's
        file as messages name it."""
        systems = {name: self._read_system(path) for name, path in self.systems}
        return systems, {name: shown(path) for name, path in self.systems}

    def _read_system(self, path: str) -> list[str]:
        outputs = read_text_lines(path, allow_empty_lines=True, max_tokens=self.max_tokens)
        sep = self.separator
        empty = [i for i, line in enumerate(outputs, 1) if not (line.replace(sep, " ") if sep else line).strip()]
        if empty:
            what = "empty or separator-only" if sep else "empty"
            print(
                f"samsa: warning: {shown(path)}: {len(empty)} {what} output line(s) (first: line {empty[0]}); "
                "they have no sentence and score 0",
                file=sys.stderr,
            )
        return outputs

    def read_sources(self) -> tuple[str, list[str]]:
        """(path as messages name it, lines) of the raw sources: a test set's, or ``--source``'s."""
        if self.test_set:
            from samsa.testsets import get_orig_sents, get_test_set, test_set_files

            path = test_set_files(get_test_set(self.test_set).name, self.data)[0]
            return str(path), get_orig_sents(self.test_set, self.data)
        assert self.source is not None
        return self.source, read_lines(self.source, allow_empty_lines=False, max_tokens=self.max_tokens)

    def text_parser(self) -> Any:
        """The parser of raw sources; one that cannot parse text (it needs options) is refused in one line."""
        try:
            return get_parser(self.parser)
        except TypeError:
            needs = "it needs options, e.g. the xml parser needs --ucca DIR"
            raise InputError(None, None, f"parser {self.parser!r} cannot parse raw text ({needs})") from None

    def sentence_items(
        self, systems: dict[str, list[str]], files: dict[str, str], corpus: tuple[str, list[str]] | None = None
    ) -> tuple[list[Item], Any]:
        """One pipeline item per source line (gold XML file or raw sentence), and the parser (the xml parser for
        gold alone); ``corpus``: the raw sources, when the command has read them already."""
        columns = list(zip(*systems.values(), strict=True))
        if self.ucca and not self.parses:
            xml = get_parser("xml", directory=self.ucca)
            for name, outputs in systems.items():
                check_count(files[name], len(outputs), self.ucca, len(xml.files), xml.files)
            return [Item("xml", f, outs, str(f)) for f, outs in zip(xml.files, columns, strict=True)], xml
        source_path, sources = corpus or self.read_sources()
        hint_language(sources, self.language, self.lang_given, source_path)
        for name, outputs in systems.items():
            check_count(files[name], len(outputs), source_path, len(sources))
        parser = self.text_parser()
        if self.lowercase:
            sources = [s.lower() for s in sources]
        manual = manual_lines(self.ucca, len(sources)) if self.ucca else {}
        for k, path in manual.items():
            check_annotation(path, k, sources[k - 1], source_path)
        items = [
            Item("xml", manual[i], outs, str(manual[i]))
            if i in manual
            else Item("parse", s, outs, f"{source_path}:{i}")
            for i, (s, outs) in enumerate(zip(sources, columns, strict=True), 1)
        ]
        return items, parser


#: what the comparison of an annotation with its source line ignores: quotes written one way or another, PTB's
#: bracket escapes, case and spaces (tokenizers differ in all of these, never in the words)
_SAME = {
    "``": '"',
    "''": '"',
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2018": "'",
    "\u2019": "'",
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
}


def _chars(words: list[str]) -> tuple[str, list[int]]:
    """The words as one string to compare (:data:`_SAME`), and for each of its characters the word it came from."""
    text, owner = [], []
    for k, w in enumerate(words):
        for ch in _SAME.get(w, w).casefold():
            ch = _SAME.get(ch, ch)
            if not ch.isspace():
                text.append(ch)
                owner.append(k)
    return "".join(text), owner


def check_annotation(path: Path, line: int, source: str, source_name: str) -> None:
    """Refuse, in one line, a manual annotation whose words are not its source line's (a file named for another
    line: the likeliest mistake when annotating lines by number), naming the file, the line and the first word
    that differs."""
    from samsa.ucca.xml import passage_tokens

    xml_words = passage_tokens(path)
    ours, ours_owner = _chars(xml_words)
    words = source.split()
    theirs, theirs_owner = _chars(words)
    if ours == theirs:
        return
    at = next((k for k, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    found = xml_words[ours_owner[at]] if at < len(ours) else "(its end)"
    wanted = words[theirs_owner[at]] if at < len(theirs) else "(its end)"
    raise InputError(
        path,
        None,
        f"does not annotate line {line} of {source_name}: it reads {found!r} where the line reads {wanted!r} "
        f"(a file is named by the line it annotates: is this line {line}'s?)",
    )


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

    def __init__(self, inputs: ScoreInputs, systems: dict[str, list[str]], files: dict[str, str]) -> None:
        from samsa.engine.documents import document_files, document_sentences

        self.inputs = inputs
        self.columns = list(zip(*systems.values(), strict=True))
        if inputs.test_set:
            raise InputError(None, None, "--documents reads documents from --source or --ucca DIR, not a test set")
        self.files: list[list[Any]] | None = None
        self.texts: list[list[str]] = []
        if inputs.ucca:
            self.files = document_files(inputs.ucca)
            places = [d[0] if d[0].parent.samefile(inputs.ucca) else d[0].parent for d in self.files]  # file or folder
            for name, outputs in systems.items():
                check_count(files[name], len(outputs), inputs.ucca, len(self.files), places, unit="documents")
            self.origins = [str(p) for p in places]
            self.parser: Any = "xml"
            return
        assert inputs.source is not None
        lines = read_lines(inputs.source, allow_empty_lines=False, max_tokens=inputs.max_tokens)
        hint_language(lines, inputs.language, inputs.lang_given, inputs.source)
        for name, outputs in systems.items():
            check_count(files[name], len(outputs), inputs.source, len(lines))
        lines = [x.lower() for x in lines] if inputs.lowercase else lines
        split = inputs.splitter_name
        self.texts = [
            document_sentences(x, separator=inputs.separator, splitter=split, where=(inputs.source, k))
            for k, x in enumerate(lines, 1)
        ]
        self.origins = [f"{inputs.source}:{k}" for k in range(1, len(lines) + 1)]
        self.parser = inputs.text_parser()

    def __len__(self) -> int:
        return len(self.origins)

    @property
    def parsing(self) -> bool:
        return self.files is None

    def items(self, execution: Any) -> Iterator[Item]:
        """The documents as graph items: loaded, or parsed with ``execution`` (not counted in its progress)."""
        from samsa.engine.documents import load_documents, parse_documents

        if self.files is not None:
            graphs = load_documents(self.files)
        else:
            graphs = parse_documents(
                self.parser, self.texts, execution._replace(progress=None, origin=self.inputs.source)
            )
        for g, outs, origin in zip(graphs, self.columns, self.origins, strict=True):
            yield Item("graph", g, outs, origin)


class ScoreOptions(NamedTuple):
    """How ``samsa score`` scores and what it writes beside its result: the definition (``--compat``), the aligner,
    ``--lenient``, the per-sentence rows, the parse doubt and the lines to annotate."""

    compat: str = "paper"
    aligner: AlignerChoice = AlignerChoice()
    lenient: bool = False
    per_sentence: str | None = None
    parse_uncertainty: bool = False
    suggest: int | None = None
    suggest_file: str | None = None

    @property
    def doubt(self) -> bool:
        return self.parse_uncertainty or self.suggest is not None


def suggest_option(values: list[str] | None) -> tuple[int | None, str | None]:
    """(N, FILE or None) of ``--suggest-annotation N [FILE]``."""
    if values is None:
        return None, None
    if len(values) > 2 or not values[0].isdigit() or int(values[0]) < 1:
        raise InputError(
            None, None, "--suggest-annotation takes a number of lines (at least 1) and, optionally, a FILE"
        )
    return int(values[0]), values[1] if len(values) == 2 else None
