"""Edit-based and structural statistics: Levenshtein, compression, sentence splits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from samsa.errors import InputError

__all__ = ["SplitStats", "compression_ratio", "levenshtein", "mean_ld", "split_stats"]


def levenshtein(a: str, b: str) -> int:
    """Unit-cost character edit distance (insert, delete, substitute), as ``nltk.edit_distance``.

    rapidfuzz is imported here, not with the module: every ``samsa`` command imports this package for its
    options, and only the LD metrics need rapidfuzz (its import is otherwise part of every command's start-up)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def mean_ld(outputs: Sequence[str], targets: Sequence[Sequence[str]]) -> float:
    """Mean over sentences of the distance to the closest target (LD_SC: targets = [source])."""
    if not outputs:
        raise InputError(None, None, "no sentences")
    from rapidfuzz.distance import Levenshtein  # imported on use: see levenshtein()

    distance = Levenshtein.distance
    return sum(min(distance(o, t) for t in ts) for o, ts in zip(outputs, targets, strict=True)) / len(outputs)


def compression_ratio(orig: Sequence[str], sys: Sequence[str]) -> float:
    """Mean of len(output) / len(source) in characters (EASSE/tseval); 0 for an empty source."""
    ratios = [len(s) / len(o) if o else 0.0 for o, s in zip(orig, sys, strict=True)]
    return sum(ratios) / len(ratios)


@dataclass(frozen=True)
class SplitStats:
    """Splitting statistics of a corpus of outputs.

    ``sentences_per_output`` is #S/C (mean sentences per complex sentence),
    ``split_proportion`` the percentage of outputs with more than one sentence,
    ``tokens_per_sentence`` #T/S (tokens per simple sentence, pooled).
    """

    outputs: int
    split_outputs: int
    split_proportion: float
    sentences_per_output: float
    tokens_per_sentence: float


def split_stats(sentences_per_line: Sequence[Sequence[Sequence[str]]]) -> SplitStats:
    """Statistics from outputs already split into tokenized sentences."""
    n = len(sentences_per_line)
    if n == 0:
        raise InputError(None, None, "no outputs")
    counts = [len(s) for s in sentences_per_line]
    total_sents = sum(counts)
    tokens = sum(len(t) for s in sentences_per_line for t in s)
    split = sum(1 for c in counts if c > 1)
    return SplitStats(n, split, 100.0 * split / n, total_sents / n, tokens / total_sents if total_sents else 0.0)
