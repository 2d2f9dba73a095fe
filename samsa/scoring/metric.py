"""The SAMSA metric object and the EASSE-compatible function API. More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeAlias

import networkx as nx

from samsa.aligners.base import Aligner
from samsa.config import Compat, SamsaConfig, shared_aligner, shared_parser
from samsa.errors import InputError
from samsa.languages import get_language
from samsa.scoring import SentenceResult, scene_tokens, score_passage
from samsa.scoring.result import CorpusResult, CorpusTotals
from samsa.text import split_output
from samsa.ucca.validate import check_passage

__all__ = [
    "CorpusResult",
    "Samsa",
    "corpus_samsa",
    "get_samsa_sentence_scores",
    "sentence_samsa",
    "shared_aligner",
    "shared_parser",
]

#: a source: its UCCA graph, or its text (parsed with the metric's parser)
Source: TypeAlias = "nx.DiGraph | str"


class Samsa:
    """SAMSA with fixed settings: a :class:`~samsa.config.SamsaConfig`, given whole or as its keywords
    (``aligner``, ``compat``, ``tokenizer``, ``splitter``, ``lowercase``, ``separator``, ``parser``; an
    ``aligner`` may also be an :class:`~samsa.aligners.base.Aligner` object).

    Examples
    --------
    >>> from samsa.ucca.xml import load_passage
    >>> g = load_passage("fixtures/ucca/paper/1_john_home_call.xml")
    >>> Samsa(tokenizer="none").sentence_score(g, "John got home . John gave Mary a call .").samsa
    100.0
    """

    def __init__(self, config: SamsaConfig | None = None, **settings: Any) -> None:
        self.config = replace(config, **settings) if config is not None else SamsaConfig(**settings)
        self.aligner: Aligner = self.config.build_aligner()
        self.parser: Any = self.config.parser  # a registry name is built when a source comes as text

    @property
    def compat(self) -> Compat:
        return self.config.compat

    @property
    def splitter(self) -> str:
        return self.config.splitter

    def signature(self, *, documents: bool = False) -> str:
        """How a number was computed; ``documents``: document-level SAMSA (``doc:yes``, :meth:`document_score`)."""
        return self.config.signature(self.aligner, documents=documents)

    def settings(self, *, documents: bool = False) -> dict[str, Any]:
        """The settings as JSON values (a corpus result's ``config``)."""
        return {**self.config.to_dict(self.aligner), "documents": documents}

    def split(self, output: str | Sequence[Sequence[str]]) -> list[list[str]]:
        """Output line -> tokenized sentences (already split input passes through)."""
        if isinstance(output, str):
            # split first: the splitter reads capital letters ("home. John"); then lowercase the tokens
            c = self.config
            sents = split_output(output, separator=c.separator, tokenizer=c.tokenizer, splitter=c.splitter)
            return [[t.lower() for t in s] for s in sents] if c.lowercase else sents
        return [list(s) for s in output]

    def _graphs(self, sources: Sequence[Source]) -> list[nx.DiGraph]:
        """Each source's graph: given, or parsed (sources given as text)."""
        for k, s in enumerate(sources, 1):
            if isinstance(s, nx.DiGraph):
                check_passage(s, f"<source {k}>")  # a hand-built or foreign graph gets the XML reader's checks
            elif not isinstance(s, str):
                raise InputError(
                    f"<source {k}>", None, f"a source is a UCCA graph or a sentence, not {type(s).__name__}"
                )
        texts = [s.lower() if self.config.lowercase else s for s in sources if isinstance(s, str)]
        if not texts:
            return list(sources)
        if self.parser is None or isinstance(self.parser, str):
            # text sources: the language's built-in parser by default
            self.parser = shared_parser(self.parser or get_language(self.config.language).parser)
        parsed = iter(self.parser.parse(texts))
        return [next(parsed) if isinstance(s, str) else s for s in sources]

    def prepare(
        self,
        graphs: Sequence[nx.DiGraph | None],
        outputs: Sequence[str | Sequence[Sequence[str]]],
        *,
        structures: Sequence[Any] | None = None,
    ) -> None:
        """Let an aligner that annotates text (spaCy) do it once, in one batch, for the whole corpus.

        ``structures`` (paper mode, where known: ``graph_structure``) give the scenes' words without the graph.
        """
        prepare = getattr(self.aligner, "prepare", None)
        if prepare is None:
            return
        token_lists: list[list[str]] = []
        for k, g in enumerate(graphs):
            st = structures[k] if structures is not None and self.compat == "paper" else None
            if st is not None:
                token_lists.extend(list(sc.words) for sc in st)
            elif g is not None:
                token_lists.extend(scene_tokens(g, self.compat))
        token_lists += [sent for o in outputs for sent in self.split(o)]
        prepare(token_lists)

    def sentence_score(
        self, source: Source, output: str | Sequence[Sequence[str]], *, structure: Any = None
    ) -> SentenceResult:
        """Score one source (UCCA graph, or text when a parser is set) against one output line.

        ``structure`` (``samsa.scoring.graph_structure(g, compat)``) saves recomputing the
        graph's scenes and centers when one source is scored against several outputs.
        """
        _check_output(output, 1)
        (g,) = self._graphs([source])
        return self.score_graph(g, output, structure=structure)

    def score_graph(
        self, g: nx.DiGraph | None, output: str | Sequence[Sequence[str]], *, structure: Any = None
    ) -> SentenceResult:
        """:meth:`sentence_score` for a graph already validated (the pipeline's workers check each graph once);
        ``g`` may be None when a paper-mode ``structure`` is given (a warm parse cache keeps only that)."""
        return score_passage(g, self.split(output), self.aligner, self.compat, structure)

    def document_score(
        self, document: nx.DiGraph | Sequence[Source], output: str | Sequence[Sequence[str]]
    ) -> SentenceResult:
        """Document-level SAMSA of one source document and one output document (docs/samsa.md).

        ``document``: its sentences' UCCA graphs (or texts, parsed with the metric's parser), in order, or one
        passage holding them all. Every Scene of the document is matched to the output sentence that keeps most
        of it, anywhere in the output, and SAMSA's formula counts n_inp and n_out over the document: a
        one-sentence document scores its sentence-level SAMSA, and reordering the output's sentences changes
        nothing (but where a Scene ties between two sentences: the earlier one wins).
        """
        _check_output(output, 1)
        (g,) = self.document_graphs([document])
        return self.score_graph(g, output)

    def document_graphs(self, documents: Sequence[nx.DiGraph | Sequence[Source]]) -> list[nx.DiGraph]:
        """Each document as one passage (``samsa.ucca.graph.join_passages`` of its sentences' graphs); the
        sentences given as text are parsed together, in one batch."""
        from samsa.ucca.graph import join_passages

        flat: list[Source] = []
        spans: list[tuple[int, int] | None] = []
        for k, doc in enumerate(documents, 1):
            if isinstance(doc, nx.DiGraph):
                spans.append(None)
                continue
            if isinstance(doc, str) or not isinstance(doc, Sequence) or not doc:
                what = "a non-empty list of sentences (graphs or texts) or one UCCA passage"
                raise InputError(f"<document {k}>", None, f"a document is {what}")
            spans.append((len(flat), len(flat) + len(doc)))
            flat.extend(doc)
        graphs = self._graphs(flat) if flat else []
        out = []
        for k, (doc, span) in enumerate(zip(documents, spans, strict=True), 1):
            if span is None:
                assert isinstance(doc, nx.DiGraph)
                check_passage(doc, f"<document {k}>")
                out.append(doc)
            else:
                out.append(join_passages(graphs[span[0] : span[1]], str(k)))
        return out

    def corpus_document_score(
        self,
        documents: Sequence[nx.DiGraph | Sequence[Source]],
        outputs: Sequence[str | Sequence[Sequence[str]]],
        *,
        progress: Callable[[Any], Any] | None = None,
    ) -> CorpusResult:
        """:meth:`document_score` of line-parallel documents and outputs; the corpus score is the mean of the
        documents' scores, and the signature says ``doc:yes``."""
        _check_corpus(documents, outputs)
        return self._corpus(self.document_graphs(documents), outputs, progress, documents=True)

    def corpus_score(
        self,
        sources: Sequence[Source],
        outputs: Sequence[str | Sequence[Sequence[str]]],
        *,
        progress: Callable[[Any], Any] | None = None,
    ) -> CorpusResult:
        """Score line-parallel sources and outputs; the corpus score is the mean of sentence scores."""
        _check_corpus(sources, outputs)
        return self._corpus(self._graphs(sources), outputs, progress)

    def _corpus(
        self,
        graphs: Sequence[nx.DiGraph],
        outputs: Sequence[str | Sequence[Sequence[str]]],
        progress: Callable[[Any], Any] | None,
        documents: bool = False,
    ) -> CorpusResult:
        self.prepare(graphs, outputs)
        pairs = zip(graphs, outputs, strict=True)
        if progress is not None:
            pairs = progress(pairs)
        totals = CorpusTotals(keep=True)
        totals.add_all(score_passage(g, self.split(o), self.aligner, self.compat) for g, o in pairs)
        return totals.result(self.signature(documents=documents), self.settings(documents=documents))


def _metric(settings: dict[str, Any]) -> tuple[Samsa, bool]:
    verbose = bool(settings.pop("verbose", False))
    return Samsa(**settings), verbose


def _progress(verbose: bool) -> Callable[[Any], Any] | None:
    if not verbose:
        return None
    from tqdm import tqdm

    return lambda it: tqdm(it, desc="samsa", unit="sent")


def score(
    orig_sents: Sequence[Source], sys_sents: Sequence[str | Sequence[Sequence[str]]], **settings: Any
) -> CorpusResult:
    """Corpus and sentence scores with per-scene detail (which sentence each scene
    matched, which centers were found), so that every number can be explained.

    ``settings`` are :class:`Samsa`'s keywords (``aligner``, ``compat``, ``tokenizer``,
    ``lowercase``, ``separator``, ``parser``) and EASSE's ``verbose``.
    """
    metric, verbose = _metric(settings)
    return metric.corpus_score(orig_sents, sys_sents, progress=_progress(verbose))


def get_samsa_sentence_scores(orig_sents: Sequence[Source], sys_sents: Sequence[str], **settings: Any) -> list[float]:
    """Sentence-level SAMSA (0-100) of each pair, as EASSE's function of this name.

    EASSE's keywords keep their meaning: ``lowercase``, ``tokenizer`` (``"13a"``,
    ``"intl"``, ``"plain"``/``"none"``, plus ours ``"wordpunct"``, the default) and
    ``verbose``; the parser is built once per process.
    """
    return [r.samsa for r in score(orig_sents, sys_sents, **settings).sentences]


def corpus_samsa(orig_sents: Sequence[Source], sys_sents: Sequence[str], **settings: Any) -> float:
    """Corpus-level SAMSA (0-100): the mean of sentence scores, as in EASSE (same keywords)."""
    return score(orig_sents, sys_sents, **settings).samsa


def sentence_samsa(orig_sent: Source, sys_sent: str, **settings: Any) -> float:
    """SAMSA (0-100) of one source and one output line, as in EASSE (same keywords)."""
    metric, _ = _metric(settings)
    return metric.sentence_score(orig_sent, sys_sent).samsa


def _check_corpus(sources: Any, outputs: Any) -> None:
    """Line-parallel, non-empty sequences of sources and outputs (an InputError says what is wrong)."""
    for name, seq in (("sources", sources), ("outputs", outputs)):
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
            raise InputError(
                f"<{name}>", None, f"expected a sequence (one item per sentence), got {type(seq).__name__}"
            )
    if len(sources) != len(outputs):
        raise InputError(None, None, f"{len(sources)} sources but {len(outputs)} outputs; they must be line-parallel")
    if not sources:
        raise InputError(None, None, "nothing to score: no sentences")
    for k, o in enumerate(outputs, 1):
        _check_output(o, k)


def _check_output(output: Any, k: int) -> None:
    if isinstance(output, str):
        return
    if isinstance(output, Sequence) and all(
        isinstance(sent, Sequence) and not isinstance(sent, str) and all(isinstance(t, str) for t in sent)
        for sent in output
    ):
        return
    raise InputError(
        f"<outputs {k}>", None, f"an output is a line of text or a list of token lists, not {type(output).__name__}"
    )
