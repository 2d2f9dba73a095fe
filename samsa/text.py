"""Tokenizers and the sentence splitter applied to system outputs.

Sources come tokenized by their UCCA graph; outputs must be split into
sentences (SAMSA counts them) and tokenized in a way that matches the source
tokens the aligner compares them with.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from samsa.errors import ConfigError

__all__ = ["SPLITTER_NAME", "TOKENIZERS", "split_output", "split_sentences", "tokenize"]

_WORDPUNCT = re.compile(r"\w+|[^\w\s]+")


def _whitespace(text: str) -> list[str]:
    return text.split()


def _wordpunct(text: str) -> list[str]:
    return _WORDPUNCT.findall(text)


#: ``none``: the text is already tokenized (split on whitespace);
#: ``wordpunct``: NLTK's WordPunct rule, what the original SAMSA scripts used.
TOKENIZERS: dict[str, Callable[[str], list[str]]] = {"none": _whitespace, "wordpunct": _wordpunct}

SPLITTER_NAME = "rule.v1"

_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr vs etc e.g i.e no nos fig figs vol gen col lt sgt capt rev gov sen rep inc ltd co corp "
    "jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k".split()
)
_END = re.compile(r"[.!?]+[\"'”’»)\]]*$")
_OPENERS = "\"'“‘«([¿¡"


def tokenize(text: str, tokenizer: str = "wordpunct") -> list[str]:
    """Tokenize with a named tokenizer (see :data:`TOKENIZERS`)."""
    try:
        fn = TOKENIZERS[tokenizer]
    except KeyError:
        raise ConfigError(f"unknown tokenizer {tokenizer!r}; choose from {sorted(TOKENIZERS)}") from None
    return fn(text)


def _is_boundary(token: str, nxt: str | None) -> bool:
    if not _END.search(token):
        return False
    if nxt is None:
        return True
    core = token.rstrip("\"'”’»)]")
    if re.fullmatch(r"[.!?]+", core):  # a standalone mark: tokenized input
        return True
    stem = core.rstrip(".!?").lower()
    if core.endswith(".") and (stem in _ABBREVIATIONS or (re.fullmatch(r"(\w\.)*\w", stem) and len(stem) <= 3)):
        return False  # "Dr.", "U.S.", "J." do not end a sentence
    first = nxt.lstrip(_OPENERS)[:1]
    return bool(first) and (first.isupper() or first.isdigit() or nxt[0] in _OPENERS)


def split_sentences(text: str) -> list[str]:
    """Split a line into sentences with a small rule-based splitter (``rule.v1``).

    A sentence ends after a token ending in ``.``, ``!`` or ``?`` (closing quotes
    allowed) when the token is the mark alone (tokenized text such as
    TurkCorpus) or the next token starts with an upper-case letter, a digit or an
    opening quote, unless the token is a known abbreviation or an initial.

    >>> split_sentences("John got home . He called Mary .")
    ['John got home .', 'He called Mary .']
    >>> split_sentences("Dr. Smith left. He was tired.")
    ['Dr. Smith left.', 'He was tired.']
    """
    toks = text.split()
    out: list[str] = []
    start = 0
    for i, tok in enumerate(toks):
        if _is_boundary(tok, toks[i + 1] if i + 1 < len(toks) else None):
            out.append(" ".join(toks[start : i + 1]))
            start = i + 1
    if start < len(toks):
        out.append(" ".join(toks[start:]))
    return out


def split_output(line: str, *, separator: str | None = None, tokenizer: str = "wordpunct") -> list[list[str]]:
    """A system-output line as a list of tokenized sentences.

    With ``separator`` (e.g. ``"<::::>"`` in WikiSplit) the line is cut there;
    otherwise :func:`split_sentences` decides. Empty pieces are dropped, so an
    empty line has no sentence.
    """
    pieces = line.split(separator) if separator else split_sentences(line)
    sentences = [tokenize(p, tokenizer) for p in pieces]
    return [s for s in sentences if s]
