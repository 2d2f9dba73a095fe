"""``easse.samsa``: SAMSA with EASSE's defaults (EASSE's quirks, Sultan aligner, 13a, no lowercasing).

The sources are parsed by samsa's built-in parser (EASSE uses TUPA), once per process;
given the same UCCA graphs and aligner, ``compat="easse"`` agrees with EASSE bit for bit
(docs/samsa.md). Every keyword of :class:`samsa.Samsa` may be passed as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from samsa.scoring import metric

__all__ = ["corpus_samsa", "get_samsa_sentence_scores", "sentence_samsa"]

EASSE_DEFAULTS: dict[str, Any] = {"compat": "easse", "aligner": "sultan", "tokenizer": "13a", "lowercase": False}


def _settings(lowercase: bool, tokenizer: str, verbose: bool, extra: dict[str, Any]) -> dict[str, Any]:
    return {**EASSE_DEFAULTS, "lowercase": lowercase, "tokenizer": tokenizer, "verbose": verbose, **extra}


def get_samsa_sentence_scores(
    orig_sents: Sequence[Any],
    sys_sents: Sequence[str],
    lowercase: bool = False,
    tokenizer: str = "13a",
    verbose: bool = False,
    **settings: Any,
) -> list[float]:
    """SAMSA (0-100) of each sentence pair."""
    return metric.get_samsa_sentence_scores(orig_sents, sys_sents, **_settings(lowercase, tokenizer, verbose, settings))


def corpus_samsa(
    orig_sents: Sequence[Any],
    sys_sents: Sequence[str],
    lowercase: bool = False,
    tokenizer: str = "13a",
    verbose: bool = False,
    **settings: Any,
) -> float:
    """Corpus SAMSA (0-100): the mean of sentence scores."""
    return metric.corpus_samsa(orig_sents, sys_sents, **_settings(lowercase, tokenizer, verbose, settings))


def sentence_samsa(
    orig_sent: Any, sys_sent: str, lowercase: bool = False, tokenizer: str = "13a", **settings: Any
) -> float:
    """SAMSA (0-100) of one source and one output."""
    return metric.sentence_samsa(orig_sent, sys_sent, **_settings(lowercase, tokenizer, False, settings))
