"""Vocabulary and per-token input features of the built-in parser (numpy only: no PyTorch at inference). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["NONE", "PAD", "STYLES", "UNK", "VECTOR_DIM", "Featurized", "Vocab", "doc_vectors", "featurize"]

NONE = "<none>"
PAD, UNK = "<pad>", "<unk>"
#: width of spaCy's tok2vec output used as a feature (en_core_web_sm: 96)
VECTOR_DIM = 96


@dataclass
class Vocab:
    """String <-> id tables for words, tags, dependency labels and span labels."""

    words: list[str]
    tags: list[str]
    deps: list[str]
    labels: list[str]  # labels[0] == NONE
    remotes: list[str] = field(default_factory=list)  # remote-edge categories, remotes[0] == NONE; empty: none
    subwords: list[str] = field(
        default_factory=list
    )  # character n-grams (subwords.py), subwords[0] == PAD; empty: none

    def __post_init__(self) -> None:
        self.word_id = {w: k for k, w in enumerate(self.words)}
        self.tag_id = {w: k for k, w in enumerate(self.tags)}
        self.dep_id = {w: k for k, w in enumerate(self.deps)}
        self.label_id = {w: k for k, w in enumerate(self.labels)}
        self.remote_id = {w: k for k, w in enumerate(self.remotes)}
        self.subword_id = {w: k for k, w in enumerate(self.subwords)}

    def to_dict(self) -> dict[str, list[str]]:
        tables = {
            "words": self.words,
            "tags": self.tags,
            "deps": self.deps,
            "labels": self.labels,
            "remotes": self.remotes,
        }
        if self.subwords:  # words-only vocabularies (subwords.py); the spaCy pipelines' files have none
            tables["subwords"] = self.subwords
        return tables


#: annotation guidelines a sentence follows (an input of v3 models): Wiki and 20K are UCCA v1, EWT is UCCA v2
STYLES = ("wiki", "ewt")


@dataclass
class Featurized:
    """One sentence, ready for the network: ids (n,) int64 and vectors (n, 96) float32.

    ``encoded`` (layers, n, 384) holds the frozen contextual encoder's per-word
    states for models that read them (``encoder.py``); ``style`` indexes
    :data:`STYLES`. ``subwords`` (n, k) holds each word's character n-gram ids, 0-padded, for networks of a
    words-only vocabulary (``subwords.py``).
    """

    words: np.ndarray
    tags: np.ndarray
    deps: np.ndarray
    vectors: np.ndarray
    encoded: np.ndarray | None = None
    style: int = 0
    subwords: np.ndarray | None = None


def doc_vectors(doc: Any) -> np.ndarray:
    """spaCy's ``tok2vec`` output of an annotated ``Doc``, (n, 96) float32: the vectors the parser reads."""
    return np.asarray(doc.tensor, dtype=np.float32).reshape(len(doc), -1)[:, :VECTOR_DIM].copy()


def featurize(
    nlp: Any,
    vocab: Vocab,
    sentences: Sequence[Sequence[str]],
    batch_size: int = 256,
    *,
    encoder: Any = None,
    style: int = 0,
) -> list[Featurized]:
    """spaCy-annotate token lists (kept as given) and map them to ids; ``encoder``: also its per-word states."""
    from spacy.tokens import Doc

    out = []
    docs = (Doc(nlp.vocab, words=list(s)) for s in sentences)
    unk = vocab.word_id[UNK]
    for doc in nlp.pipe(docs, batch_size=batch_size):
        out.append(
            Featurized(
                np.array([vocab.word_id.get(t.lower_, unk) for t in doc], dtype=np.int64),
                np.array([vocab.tag_id.get(t.tag_, 1) for t in doc], dtype=np.int64),
                np.array([vocab.dep_id.get(t.dep_, 1) for t in doc], dtype=np.int64),
                doc_vectors(doc),
                style=style,
            )
        )
    if encoder is not None:
        for f, enc in zip(out, encoder.words(sentences), strict=True):
            f.encoded = enc.astype(np.float16)  # as stored for training: the same inputs at inference
    return out
