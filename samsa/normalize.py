"""Text normalization shared by every lexical metric: one place, one set of names.

Order of operations: Moses-entity unescaping (optional), lowercasing (optional),
then a sacrebleu tokenizer (``13a``, ``intl``) or none. sacrebleu's tokenizers
are used as they are, never re-implemented.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from samsa.errors import ConfigError

__all__ = ["MOSES_ENTITIES", "TOKENIZERS", "get_tokenizer", "normalize", "unescape_moses"]

#: sacrebleu's ``13a`` and ``intl``, ``de`` (German rules, ``samsa.german``), or none
TOKENIZERS = ("13a", "intl", "de", "none")

#: Escapes written by the Moses tokenizer (``escape=True``), seen in real system outputs.
MOSES_ENTITIES = {
    "&apos;": "'",
    "&quot;": '"',
    "&lt;": "<",
    "&gt;": ">",
    "&#91;": "[",
    "&#93;": "]",
    "&#124;": "|",
    "&amp;": "&",  # last: "&amp;apos;" must become "&apos;", not "'"
}
_ENTITY_RE = re.compile("|".join(re.escape(k) for k in MOSES_ENTITIES))


def unescape_moses(text: str) -> str:
    """Undo Moses escaping in one pass (``&apos;`` -> ``'``, ``&amp;lt;`` -> ``&lt;``).

    >>> unescape_moses("John &apos;s &quot;car&quot; &amp; bike")
    'John \\'s "car" & bike'
    """
    return _ENTITY_RE.sub(lambda m: MOSES_ENTITIES[m.group(0)], text)


@cache
def get_tokenizer(name: str) -> Callable[[str], str]:
    """A string -> string tokenizer by name (sacrebleu's ``13a`` / ``intl``, German ``de``, or ``none``)."""
    if name in ("none", "plain"):  # "plain" is EASSE's name for no tokenization
        return lambda s: s
    if name not in TOKENIZERS:
        raise ConfigError(f"unknown tokenizer {name!r}; choose from {', '.join(TOKENIZERS)}")
    if name == "de":
        from samsa.german import tokenize_de

        return lambda s: " ".join(tokenize_de(s))
    from sacrebleu.metrics.bleu import _get_tokenizer

    return _get_tokenizer(name)()


def normalize(text: str, *, lowercase: bool = False, tokenizer: str = "13a", unescape: bool = False) -> str:
    """Normalize one sentence; the same function serves SARI, BLEU, FKGL and the rest.

    >>> normalize("It&apos;s 3.5, OK?", lowercase=True, unescape=True)
    "it's 3.5 , ok ?"
    """
    if unescape:
        text = unescape_moses(text)
    if lowercase:
        text = text.lower()
    return get_tokenizer(tokenizer)(text)
