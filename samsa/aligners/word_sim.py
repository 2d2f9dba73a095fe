"""Word relatedness of the Sultan et al. aligner (``wordRelatedness``), as a small object. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Set
from functools import lru_cache

from samsa.aligners.resources import PUNCTUATIONS

__all__ = ["PPDB_SIM", "WordSim", "canonical", "stem"]

PPDB_SIM = 0.9


def canonical(word: str) -> str:
    """Lower-case-free canonical form: ``.``, ``-`` and ``,`` removed from words longer than one character."""
    return word if len(word) <= 1 else word.replace(".", "").replace("-", "").replace(",", "")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """NLTK's Snowball (Porter2) English stem (lower-cases; words of <= 2 characters unchanged)."""
    return _stemmer().stem(word)


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


class WordSim:
    """Relatedness with a fixed stopword list and optional PPDB pairs."""

    def __init__(self, stopwords: Set[str], ppdb: Set[tuple[str, str]] = frozenset()) -> None:
        self.stopwords = stopwords
        self.ppdb = ppdb
        self._cache: dict[tuple[str, str, str, str], float] = {}

    def __call__(self, w1: str, pos1: str, w2: str, pos2: str) -> float:
        key = (w1, pos1, w2, pos2)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._relatedness(w1, pos1, w2, pos2)
        return hit

    def _relatedness(self, w1: str, pos1: str, w2: str, pos2: str) -> float:
        c1, c2 = canonical(w1), canonical(w2)
        if c1.lower() == c2.lower():
            return 1.0
        if stem(w1).lower() == stem(w2).lower():
            return 1.0
        if c1.isdigit() and c2.isdigit() and c1 != c2:
            return 0.0
        if pos1.lower() == "cd" and pos2.lower() == "cd" and not c1.isdigit() and not c2.isdigit() and c1 != c2:
            return 0.0
        if (w1.lower() in self.stopwords) != (w2.lower() in self.stopwords):
            return 0.0
        if w1 in PUNCTUATIONS or w2 in PUNCTUATIONS:
            return 0.0
        a, b = w1.lower(), w2.lower()
        return PPDB_SIM if (a, b) in self.ppdb or (b, a) in self.ppdb else 0.0
