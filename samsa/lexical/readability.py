"""Flesch-Kincaid grade level in its published variants, and FKBLEU (Xu et al. 2016, eq. 3). More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from samsa.errors import ConfigError
from samsa.normalize import normalize
from samsa.text import SPLITTER_NAME, split_sentences

__all__ = [
    "FKBLEU_FORMS",
    "FKBLEU_SIGNS",
    "FKGL_VARIANTS",
    "corpus_fkgl",
    "fkbleu",
    "fkgl_from_counts",
    "fkgl_readability",
    "sentence_fk_xu",
    "syllables_corrected",
    "syllables_easse",
]

FKGL_VARIANTS = ("easse", "corrected")

# Exceptions of the nltk_contrib readability syllable counter (also used by DRESS and EASSE): words whose syllable
# count the vowel-group heuristic gets wrong (package data)
_SPECIAL_WORDS: dict[str, int] = json.loads(
    (resources.files("samsa.lexical") / "syllable_exceptions.json").read_text(encoding="utf-8")
)
_SUBTRACT = [re.compile(p) for p in ("cial", "tia", "cius", "cious", "gui", "ion", "iou", "sia$", ".ely$")]
_ADD = [
    re.compile(p)
    for p in (
        "ia",
        "riet",
        "dien",
        "iu",
        "io",
        "ii",
        "[aeiouy]bl$",
        "mbl$",
        "[aeiou]{3}",
        "^mc",
        "ism$",
        r"(.)(?!\1)([aeiouy])\2l$",
        "[^l]llien",
        "^coad.",
        "^coag.",
        "^coal.",
        "^coax.",
        r"(.)(?!\1)[gq]ua(.)(?!\2)[aeiou]",
        "dnt$",
    )
]
_VOWEL_GROUP = re.compile(r"[aeiouy]+")


def _heuristic(word: str) -> int:
    count = len(_VOWEL_GROUP.findall(word))
    count += sum(1 for r in _ADD if r.search(word))
    count -= sum(1 for r in _SUBTRACT if r.search(word))
    return count


@lru_cache(maxsize=100_000)
def syllables_easse(word: str) -> int:
    """EASSE's syllable count, quirks included ("free" -> 0, "." -> 0)."""
    word = word.lower().strip()
    if word in _SPECIAL_WORDS:
        return _SPECIAL_WORDS[word]
    return _heuristic(word.rstrip("e"))


@lru_cache(maxsize=100_000)
def syllables_corrected(word: str) -> int:
    """Syllables with one silent final "e" removed and at least one per word with a letter or digit."""
    word = word.lower().strip()
    if word in _SPECIAL_WORDS:
        return _SPECIAL_WORDS[word]
    if not any(ch.isalnum() for ch in word):
        return 0
    stem = word[:-1] if word.endswith("e") and not word.endswith(("le", "ee")) and len(word) > 2 else word
    return max(1, _heuristic(stem))


def fkgl_from_counts(words: float, sentences: float, syllables: float) -> float:
    """0.39 * words/sentences + 11.8 * syllables/words - 15.59 (0 when there are no words)."""
    if words == 0 or sentences == 0:
        return 0.0
    return 0.39 * words / sentences + 11.8 * syllables / words - 15.59


def _counts(lines: Sequence[str], variant: str, tokenizer: str, splitter: str) -> tuple[int, int, int]:
    w = s = y = 0
    for line in lines:
        text = normalize(line, lowercase=variant == "easse", tokenizer=tokenizer)
        for sent in split_sentences(text, splitter):
            toks = sent.split()
            if variant == "corrected":
                toks = [t for t in toks if any(ch.isalnum() for ch in t)]
                y += sum(syllables_corrected(t) for t in toks)
            else:
                y += sum(syllables_easse(t) for t in toks)
            w += len(toks)
            s += 1
    return w, s, y


def corpus_fkgl(
    lines: Sequence[str], *, variant: str = "easse", tokenizer: str = "13a", splitter: str = SPLITTER_NAME
) -> float:
    """Corpus FKGL from pooled counts (see the module docstring for the variants).

    ``splitter`` names the sentence splitter (:data:`samsa.text.SPLITTERS`); the default ``rule.v2``
    counts sentences as EASSE's Punkt does on TurkCorpus outputs (``rule.v1`` is the older count).
    """
    if variant not in FKGL_VARIANTS:
        raise ConfigError(f"unknown FKGL variant {variant!r}; choose from {', '.join(FKGL_VARIANTS)}")
    w, s, y = _counts(lines, variant, tokenizer, splitter)
    score = fkgl_from_counts(w, s, y)
    return max(0.0, score) if variant == "easse" else score


def sentence_fk_xu(tokens: Sequence[str]) -> float:
    """Xu et al.'s sentence FK: punctuation tokens are words with one syllable each."""
    if not tokens:
        return 0.0
    syl = sum(syllables_corrected(t) if any(ch.isalnum() for ch in t) else 1 for t in tokens)
    return fkgl_from_counts(len(tokens), 1, syl)


#: FKBLEU's two readings of its formula (:func:`fkbleu`), the first the default
FKBLEU_FORMS = ("geometric", "product")
FKBLEU_SIGNS = ("printed", "readability")


def fkbleu(ibleu: float, fk_in: float, fk_out: float, *, form: str = "geometric", sign: str = "printed") -> float:
    """FKBLEU on a 0-1 scale from iBLEU (0-1) and the FK of input and output.

    ``form="geometric"``: iBLEU^1/2 * FKdiff^1/2 (the TACL text says "geometric
    mean"); ``form="product"``: iBLEU * FKdiff (the equation as printed in some
    versions). ``sign="printed"``: FKdiff = sigmoid(FK(O) - FK(I)) as printed,
    which grows when the output is *harder*; ``sign="readability"`` uses
    FK(I) - FK(O). A negative iBLEU counts as 0 in the geometric form.
    """
    if sign not in FKBLEU_SIGNS:
        raise ConfigError(f"unknown FKBLEU sign {sign!r}; choose printed or readability")
    if form not in FKBLEU_FORMS:
        raise ConfigError(f"unknown FKBLEU form {form!r}; choose geometric or product")
    diff = fk_out - fk_in if sign == "printed" else fk_in - fk_out
    fkdiff = 1.0 / (1.0 + math.exp(-diff))
    return math.sqrt(max(ibleu, 0.0) * fkdiff) if form == "geometric" else ibleu * fkdiff


def fkgl_readability(lines: Sequence[str], config: Any) -> tuple[float, dict[str, Any]]:
    """English's readability metric as the language table names it: corpus FKGL under a
    :class:`~samsa.lexical.suite.SuiteConfig` (its variant, tokenizer and splitter), and its signature fields."""
    value = corpus_fkgl(lines, variant=config.fkgl_variant, tokenizer=config.tokenizer, splitter=config.splitter)
    return value, {"variant": config.fkgl_variant, "tok": config.tokenizer, "split": config.splitter}
