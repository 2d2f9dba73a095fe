"""German readability, as EASSE-DE's users report it: Flesch reading ease after Amstad, Wiener Sachtextformel.

Counts are pooled over the corpus: each output line is split into sentences (the German splitter, or the
sentence separator) and tokenized with the German tokenizer (``samsa.german``); a word is a token with a letter
or a digit (punctuation is not a word); syllables are vowel nuclei (``samsa.german.syllables_de``).

``fre_amstad`` (Amstad 1978), higher is easier, about 0-100::

    180 - words/sentences - 58.5 * syllables/words

``wstf`` (the first Wiener Sachtextformel, Bamberger & Vanecek 1984), a school grade, 4 (easy) to 15::

    0.1935 * MS + 0.1672 * SL + 0.1297 * IW - 0.0327 * ES - 0.875

MS: percent of words with three or more syllables; SL: words per sentence; IW: percent of words longer than six
letters; ES: percent of words of one syllable.

Two sentences, six words, seven syllables (Kat-ze), five words of one syllable, one of seven letters
(schläft): 180 - 3 - 58.5 * 7/6 = 108.75, and 0.1672 * 3 + 0.1297 * 100/6 - 0.0327 * 500/6 - 0.875 = -0.94.

>>> round(fre_amstad(["Der Hund bellt. Die Katze schläft."]), 2)
108.75
>>> round(wstf(["Der Hund bellt. Die Katze schläft."]), 2)
-0.94
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from samsa.german import syllables_de, tokenize_de
from samsa.text import split_output

__all__ = [
    "SYLLABLES",
    "GermanCounts",
    "fre_amstad",
    "fre_amstad_readability",
    "german_counts",
    "wstf",
    "wstf_from_counts",
    "wstf_readability",
]

#: the syllable counter both formulas read, as their signatures name it
SYLLABLES = "de.v1"


@dataclass(frozen=True)
class GermanCounts:
    """Pooled counts of a corpus: sentences, words, syllables, and words of 1 / 3+ syllables / over 6 letters."""

    sentences: int
    words: int
    syllables: int
    one_syllable: int
    three_syllables: int
    long_words: int


def german_counts(lines: Sequence[str], *, separator: str | None = None, splitter: str = "de.v1") -> GermanCounts:
    """The counts both formulas read, over every line's sentences."""
    sentences = words = syllables = one = three = long = 0
    for line in lines:
        for sentence in split_output(line, separator=separator, tokenizer="none", splitter=splitter):
            tokens = [t for t in tokenize_de(" ".join(sentence)) if any(c.isalnum() for c in t)]
            if not tokens:
                continue
            sentences += 1
            for t in tokens:
                n = syllables_de(t) or 1  # a number is one word of one syllable
                words += 1
                syllables += n
                one += n == 1
                three += n >= 3
                long += sum(c.isalpha() for c in t) > 6
    return GermanCounts(sentences, words, syllables, one, three, long)


def fre_amstad(lines: Sequence[str], *, separator: str | None = None, splitter: str = "de.v1") -> float:
    """Flesch reading ease for German (Amstad): ``180 - ASL - 58.5 * ASW`` (0 for a corpus without words)."""
    c = german_counts(lines, separator=separator, splitter=splitter)
    if not c.words:
        return 0.0
    return 180.0 - c.words / c.sentences - 58.5 * c.syllables / c.words


def wstf(lines: Sequence[str], *, separator: str | None = None, splitter: str = "de.v1") -> float:
    """The first Wiener Sachtextformel (a school grade; 0 for a corpus without words)."""
    return wstf_from_counts(german_counts(lines, separator=separator, splitter=splitter))


def wstf_from_counts(c: GermanCounts) -> float:
    """The first Wiener Sachtextformel of pooled counts (0 without words)."""
    if not c.words:
        return 0.0
    pct = 100.0 / c.words
    return (
        0.1935 * c.three_syllables * pct
        + 0.1672 * c.words / c.sentences
        + 0.1297 * c.long_words * pct
        - 0.0327 * c.one_syllable * pct
        - 0.875
    )


def _fields(config: Any) -> dict[str, Any]:
    """The signature fields of both formulas: the language's tokenizer, the splitter (or separator), the syllables."""
    from samsa.languages import get_language

    tokenizer = get_language(config.samsa.language).tokenizer
    return {"tok": tokenizer, "split": "sep" if config.separator else config.splitter, "syl": SYLLABLES}


def fre_amstad_readability(lines: Sequence[str], config: Any) -> tuple[float, dict[str, Any]]:
    """:func:`fre_amstad` under a :class:`~samsa.lexical.suite.SuiteConfig`, and its signature fields."""
    return fre_amstad(lines, separator=config.separator, splitter=config.splitter), _fields(config)


def wstf_readability(lines: Sequence[str], config: Any) -> tuple[float, dict[str, Any]]:
    """:func:`wstf` under a :class:`~samsa.lexical.suite.SuiteConfig`, and its signature fields."""
    return wstf(lines, separator=config.separator, splitter=config.splitter), _fields(config)
