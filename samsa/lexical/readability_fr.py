"""French readability: Kandel & Moles' adaptation of Flesch's reading ease (Kandel & Moles 1958, "Application de
l'indice de Flesch à la langue française", Cahiers Études de Radio-Télévision 19), higher is easier::

    207 - 1.015 * words/sentences - 73.6 * syllables/words

Counts are pooled over the corpus as for German (``samsa.lexical.readability_de``): each line split into
sentences (the French splitter, or the sentence separator), tokenized with the French rules (``samsa.french``); a
word is a token with a letter or a digit; syllables are vowel groups less a final mute ``e``
(``samsa.french.syllables_fr``).

Two sentences, six words, eight syllables (ca-pi-taine three): 207 - 1.015 * 3 - 73.6 * 8/6 = 105.82.

>>> round(kandel_moles(["Le chien dort. Le capitaine part."]), 2)
105.82
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from samsa.french import syllables_fr, tokenize_fr
from samsa.text import split_output

__all__ = ["SYLLABLES", "kandel_moles", "kandel_moles_readability"]

#: the syllable counter the formula reads, as its signature names it
SYLLABLES = "fr.v1"


def kandel_moles(lines: Sequence[str], *, separator: str | None = None, splitter: str = "fr.v1") -> float:
    """Kandel & Moles' reading ease of a corpus (0 for a corpus without words)."""
    sentences = words = syllables = 0
    for line in lines:
        for sentence in split_output(line, separator=separator, tokenizer="none", splitter=splitter):
            tokens = [t for t in tokenize_fr(" ".join(sentence)) if any(c.isalnum() for c in t)]
            sentences += bool(tokens)
            words += len(tokens)
            syllables += sum(syllables_fr(t) or 1 for t in tokens)  # a number is one word of one syllable
    if not words:
        return 0.0
    return 207.0 - 1.015 * words / sentences - 73.6 * syllables / words


def kandel_moles_readability(lines: Sequence[str], config: Any) -> tuple[float, dict[str, Any]]:
    """:func:`kandel_moles` under a :class:`~samsa.lexical.suite.SuiteConfig`, and its signature fields."""
    fields = {"tok": "fr", "split": "sep" if config.separator else config.splitter, "syl": SYLLABLES}
    return kandel_moles(lines, separator=config.separator, splitter=config.splitter), fields
