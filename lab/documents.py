"""Document-level SAMSA on gold documents: a battery of synthetic output documents built from consecutive
annotated sentences, scored on the manual annotation and on a parser's, and the alternative definition it is
compared with.

The gold corpora keep each sentence's passage in its file name (Wiki and 20K: ``1018000.xml`` is passage
1018, sentence 0; EWT: ``001325-0001.xml`` is passage 001325, sentence 1), so consecutive sentences of one
passage form a document (:func:`gold_documents`: windows of a few sentences, or whole passages). The battery
(:data:`OUTPUTS`) holds the unchanged document, the perfect split (one sentence per gold Scene, in document
order), the same sentences shuffled, two adjacent source sentences merged into one, one source sentence
deleted, and the source sentences in reverse order. Everything here but :func:`score_battery` is a pure function
of graphs and token lists; ``benchmarks/documents.py`` runs it on the test sets.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from samsa.ucca.graph import join_passages, tokens
from samsa.ucca.queries import scenes, unit_terminals

__all__ = [
    "OUTPUTS",
    "aligned_average",
    "gold_documents",
    "passage_of",
    "score_battery",
]

Sentences = list[list[str]]


def passage_of(path: str | Path) -> str:
    """The passage a gold sentence file belongs to, from its name.

    >>> passage_of("1018003.xml"), passage_of("ucca/ewt/test/001325-0002.xml")
    ('1018', '001325')
    """
    stem = Path(path).stem
    return stem.split("-")[0] if "-" in stem else stem[:-3]


def gold_documents(files: Sequence[Path], size: int | None = 3) -> list[list[Path]]:
    """Consecutive sentence files of one passage (``files`` in natural order) cut into documents of ``size``
    sentences (what is left of a passage at its end, fewer than ``size``, is left out); ``size=None``: whole
    passages.

    >>> [[f.name for f in d] for d in gold_documents([Path(f"1{k}.xml") for k in ("000", "001", "002", "003")], 2)]
    [['1000.xml', '1001.xml'], ['1002.xml', '1003.xml']]
    """
    passages: list[list[Path]] = []
    for f in files:
        if passages and passage_of(passages[-1][-1]) == passage_of(f):
            passages[-1].append(f)
        else:
            passages.append([f])
    if size is None:
        return passages
    return [p[i : i + size] for p in passages for i in range(0, len(p) - size + 1, size)]


def _scene_sentences(g: nx.DiGraph) -> Sentences:
    """One sentence per gold Scene (its words, nested Scenes' included); the sentence itself without a Scene."""
    return [[g.nodes[t]["text"] for t in unit_terminals(g, s)] for s in scenes(g)] or [tokens(g)]


def unchanged(doc: Sequence[nx.DiGraph], _k: int) -> Sentences:
    """The source sentences, each a sentence."""
    return [tokens(g) for g in doc]


def scene_split(doc: Sequence[nx.DiGraph], _k: int) -> Sentences:
    """One sentence per gold Scene, in document order: the perfect split."""
    return [s for g in doc for s in _scene_sentences(g)]


def shuffled(doc: Sequence[nx.DiGraph], k: int) -> Sentences:
    """The perfect split's sentences in an order drawn with the document's index as seed."""
    out = scene_split(doc, k)
    random.Random(k).shuffle(out)
    return out


def merged(doc: Sequence[nx.DiGraph], k: int) -> Sentences:
    """The source sentences with the first two joined into one (one sentence fewer than the source)."""
    out = unchanged(doc, k)
    return [out[0] + out[1], *out[2:]] if len(out) > 1 else out


def deleted(doc: Sequence[nx.DiGraph], k: int) -> Sentences:
    """The source sentences without the middle one (sentence ``len // 2``)."""
    out = unchanged(doc, k)
    return out[: len(out) // 2] + out[len(out) // 2 + 1 :] if len(out) > 1 else out


def reversed_order(doc: Sequence[nx.DiGraph], k: int) -> Sentences:
    """The source sentences in reverse order."""
    return unchanged(doc, k)[::-1]


#: the battery, in a fixed order: name -> builder(the document's gold sentence graphs, its index) -> sentences
OUTPUTS: dict[str, Callable[[Sequence[nx.DiGraph], int], Sentences]] = {
    "unchanged": unchanged,
    "scene-split": scene_split,
    "shuffled": shuffled,
    "merged": merged,
    "deleted": deleted,
    "reversed": reversed_order,
}


def aligned_average(metric: Any, doc: Sequence[nx.DiGraph], output: Sentences) -> float:
    """The alternative definition: each output sentence first given to the source sentence it shares most words
    with (exact aligner; the earlier source sentence on a tie), then the mean over the source sentences of their
    sentence-level SAMSA against the output sentences they got (none: 0)."""
    words = [tokens(g) for g in doc]
    given: list[Sentences] = [[] for _ in doc]
    for sentence in output:
        shared = [len(metric.aligner.align(w, sentence)) for w in words]
        given[shared.index(max(shared))].append(sentence)
    return sum(metric.score_graph(g, got).samsa if got else 0.0 for g, got in zip(doc, given, strict=True)) / len(doc)


def score_battery(
    gold: Sequence[Sequence[nx.DiGraph]], parsed: Sequence[Sequence[nx.DiGraph]] | None = None
) -> dict[str, dict[str, list[float]]]:
    """Per output of the battery and per document: document-level SAMSA on the manual annotation (``manual``),
    on the parse of the same tokens (``parsed``, when given), and the alternative definition on the manual
    annotation (``aligned_average``); paper mode, exact aligner, the gold tokens. For the perfect split also the
    mean sentence-level SAMSA of the same sentences (``sentence_level``)."""
    from samsa.scoring.metric import Samsa

    metric = Samsa(tokenizer="none")
    joined_gold = [join_passages(doc) for doc in gold]
    joined_parsed = [join_passages(doc) for doc in parsed] if parsed is not None else None
    out: dict[str, dict[str, list[float]]] = {}
    for name, build in OUTPUTS.items():
        rows: dict[str, list[float]] = {"manual": [], "aligned_average": []}
        if joined_parsed is not None:
            rows["parsed"] = []
        for k, doc in enumerate(gold):
            sentences = build(doc, k)
            rows["manual"].append(metric.score_graph(joined_gold[k], sentences).samsa)
            rows["aligned_average"].append(aligned_average(metric, doc, sentences))
            if joined_parsed is not None:
                rows["parsed"].append(metric.score_graph(joined_parsed[k], sentences).samsa)
        out[name] = rows
    out["scene-split"]["sentence_level"] = [
        sum(metric.score_graph(g, _scene_sentences(g)).samsa for g in doc) / len(doc) for doc in gold
    ]
    return out
