"""Features of a parser that reads no spaCy model (German): word shapes and character n-grams (numpy only). More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from samsa.parsers.builtin.features import PAD, UNK, Featurized, Vocab

__all__ = [
    "MAX_NGRAMS",
    "NGRAM_SIZES",
    "SHAPES",
    "char_ngrams",
    "featurize_words",
    "ngram_table",
    "subword_ids",
    "word_shape",
]

#: character n-gram lengths of the subword features
NGRAM_SIZES = (3, 4, 5)
#: n-grams read per word at most (a long compound keeps its first ones; the mean is over those kept)
MAX_NGRAMS = 48
#: word shapes (the tag table of a words-only vocabulary)
SHAPES = ("lower", "capital", "upper", "digit", "ordinal", "punct", "quote", "hyphen", "mixed", "other")

_QUOTES = set("\"'`«»‹›„“”‚‘’")


def word_shape(word: str) -> str:
    """One of :data:`SHAPES`: how a token is written (case, digits, punctuation), whatever its language."""
    if not word:
        return "other"
    if all(c in _QUOTES for c in word):
        return "quote"
    if word.isdigit():
        return "digit"
    if word[:-1].isdigit() and word.endswith("."):
        return "ordinal"  # German "3." (der 3. Mai)
    if all(unicodedata.category(c).startswith("P") or unicodedata.category(c).startswith("S") for c in word):
        return "punct"
    if "-" in word.strip("-") and any(c.isalpha() for c in word):
        return "hyphen"  # compounds such as "E-Mail", "Nord-Süd"
    if word.islower():
        return "lower"
    if word.isupper() and len(word) > 1:
        return "upper"
    if word[0].isupper() and (len(word) == 1 or word[1:].islower()):
        return "capital"
    if any(c.isalpha() for c in word):
        return "mixed"
    return "other"


def char_ngrams(word: str) -> list[str]:
    """The lowercased word's character n-grams of :data:`NGRAM_SIZES`, ``<`` and ``>`` around it, in order."""
    w = f"<{word.lower()}>"
    return [w[i : i + n] for n in NGRAM_SIZES for i in range(len(w) - n + 1)]


def ngram_table(sentences: Iterable[Sequence[str]], min_count: int = 3) -> list[str]:
    """The subword table of a vocabulary: ``PAD``, then the n-grams seen ``min_count`` times, sorted."""
    counts = Counter(g for words in sentences for w in words for g in set(char_ngrams(w)))
    return [PAD, *sorted(g for g, c in counts.items() if c >= min_count)]


def subword_ids(vocab: Vocab, words: Sequence[str]) -> np.ndarray:
    """(n, k) int64: each word's known n-grams (at most :data:`MAX_NGRAMS`), 0-padded; a row of 0s has none."""
    rows = [[vocab.subword_id[g] for g in char_ngrams(w) if g in vocab.subword_id][:MAX_NGRAMS] for w in words]
    width = max((len(r) for r in rows), default=0) or 1
    out = np.zeros((len(words), width), dtype=np.int64)
    for k, r in enumerate(rows):
        out[k, : len(r)] = r
    return out


def featurize_words(
    vocab: Vocab, sentences: Sequence[Sequence[str]], *, style: int = 0, encoder: Any = None, lexical: bool = True
) -> list[Featurized]:
    """Token lists (kept as given) as the network of a words-only vocabulary reads them (no spaCy); ``encoder``:
    also its per-word states (the ``multilingual`` pipeline's). ``lexical=False``: every word unknown and without
    n-grams (as ``lab.train --lexical-dropout`` hides some), for a language never trained on (``parser_lexical``)."""
    unk = vocab.word_id[UNK]
    out = []
    for words in sentences:
        n = len(words)
        out.append(
            Featurized(
                np.array([vocab.word_id.get(w.lower(), unk) if lexical else unk for w in words], dtype=np.int64),
                np.array([vocab.tag_id.get(word_shape(w), 1) for w in words], dtype=np.int64),
                np.ones(n, dtype=np.int64),
                np.zeros((n, 0), dtype=np.float32),
                style=style,
                subwords=subword_ids(vocab, words) if lexical else np.zeros((n, 1), dtype=np.int64),
            )
        )
    if encoder is not None:
        for f, enc in zip(out, encoder.words(sentences), strict=True):
            f.encoded = enc.astype(np.float16)  # as stored for training: the same inputs at inference
    return out
