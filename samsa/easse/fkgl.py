"""``easse.fkgl``: corpus Flesch-Kincaid grade level (EASSE's counting)."""

from __future__ import annotations

from collections.abc import Sequence

from samsa.lexical.readability import corpus_fkgl as _corpus_fkgl

__all__ = ["corpus_fkgl"]


def corpus_fkgl(sentences: Sequence[str], tokenizer: str = "13a") -> float:
    """FKGL of the corpus from pooled words, sentences and syllables (0 or more)."""
    return _corpus_fkgl(sentences, variant="easse", tokenizer=tokenizer)
