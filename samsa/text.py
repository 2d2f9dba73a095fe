"""Tokenizers and the sentence splitter applied to system outputs.

Sources come tokenized by their UCCA graph; outputs must be split into
sentences (SAMSA counts them) and tokenized in a way that matches the source
tokens the aligner compares them with.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

from samsa.errors import ConfigError

__all__ = ["SPLITTERS", "SPLITTER_NAME", "TOKENIZERS", "split_output", "split_sentences", "tokenize"]

_WORDPUNCT = re.compile(r"\w+|[^\w\s]+")


def _whitespace(text: str) -> list[str]:
    return text.split()


def _wordpunct(text: str) -> list[str]:
    return _WORDPUNCT.findall(text)


def _lazy(ref: str) -> Callable[[str], list[str]]:
    """The function named ``module:function`` (a language's module), imported at its first call."""
    module, _, name = ref.partition(":")
    return lambda text: getattr(importlib.import_module(module), name)(text)


def _sacrebleu(name: str) -> Callable[[str], list[str]]:
    def tok(text: str) -> list[str]:
        from samsa.normalize import get_tokenizer

        return get_tokenizer(name)(text).split()

    return tok


#: ``none`` (EASSE's ``plain``): the text is already tokenized (split on whitespace);
#: ``wordpunct``: NLTK's WordPunct rule, what the original SAMSA scripts used;
#: ``13a`` / ``intl``: sacrebleu's tokenizers, what EASSE applies before SAMSA (``tokenizer=`` there);
#: ``de``: German rules (abbreviations, ordinals, dates, German quotes; ``samsa.german``); ``fr``: French rules
#: (elisions, abbreviations, guillemets; ``samsa.french``); ``fr-spacy``: spaCy's French tokenizer (the optional
#: ``fr_core_news_md``).
TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "none": _whitespace,
    "plain": _whitespace,
    "wordpunct": _wordpunct,
    "13a": _sacrebleu("13a"),
    "intl": _sacrebleu("intl"),
    "de": _lazy("samsa.german:tokenize_de"),
    "fr": _lazy("samsa.french:tokenize_fr"),
    "fr-spacy": _lazy("samsa.french:tokenize_fr_spacy"),
}

#: the default sentence splitter; older names stay available so old signatures keep their meaning
SPLITTER_NAME = "rule.v2"

_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr vs etc e.g i.e no nos fig figs vol gen col lt sgt capt rev gov sen rep inc ltd co corp "
    "jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k".split()
)
_END = re.compile(r"[.!?]+[\"'”’»)\]]*$")
_OPENERS = "\"'“‘«([¿¡"
#: what Punkt (and so EASSE) moves back to the sentence a boundary closes: one token of these characters
_CLOSERS = re.compile(r"[\"')\]}]+")


def tokenize(text: str, tokenizer: str = "wordpunct") -> list[str]:
    """Tokenize with a named tokenizer (see :data:`TOKENIZERS`)."""
    try:
        fn = TOKENIZERS[tokenizer]
    except KeyError:
        raise ConfigError(f"unknown tokenizer {tokenizer!r}; choose from {sorted(TOKENIZERS)}") from None
    return fn(text)


#: the last character of every token ``_END`` matches (:func:`_boundaries` tests only such tokens)
_END_CHARS = frozenset(".!?\"'”’»)]")


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


def _boundaries(toks: list[str], closers: bool) -> list[int]:
    """Indices after which a sentence ends (only tokens whose last character can end one are tested)."""
    ends: list[int] = []
    n = len(toks)
    for i in [i for i, t in enumerate(toks) if t[-1:] in _END_CHARS]:
        if not _is_boundary(toks[i], toks[i + 1] if i + 1 < n else None):
            continue
        # `` sportsman . '' `` : the closing quote ends the sentence with its mark (itself never a boundary: it
        # holds no mark)
        ends.append(i + 1 if closers and i + 1 < n and _CLOSERS.fullmatch(toks[i + 1]) else i)
    return ends


def _split(text: str, closers: bool) -> list[str]:
    toks = text.split()
    out: list[str] = []
    start = 0
    for end in _boundaries(toks, closers):
        out.append(" ".join(toks[start : end + 1]))
        start = end + 1
    if start < len(toks):
        out.append(" ".join(toks[start:]))
    return out


#: ``rule.v1``: the first rule-based splitter (a closing quote after a final mark became its own sentence);
#: ``rule.v2``: the same rules, and a token of closing quotes/brackets right after a boundary stays with the
#: sentence it closes, as NLTK Punkt's boundary realignment does (so FKGL's sentence counts equal EASSE's);
#: ``de.v1``: German rules (abbreviations, ordinals, dates, German quotes, the ``_SPLIT_`` marker; ``samsa.german``);
#: ``fr.v1``: French rules (``samsa.french``); ``fr-spacy.v1``: the boundaries of spaCy's French dependency parser
#: (the optional ``fr_core_news_md``)
SPLITTERS: dict[str, Callable[[str], list[str]]] = {
    "rule.v1": lambda text: _split(text, closers=False),
    "rule.v2": lambda text: _split(text, closers=True),
    "de.v1": _lazy("samsa.german:split_de"),
    "fr.v1": _lazy("samsa.french:split_fr"),
    "fr-spacy.v1": _lazy("samsa.french:split_fr_spacy"),
}


def split_sentences(text: str, splitter: str = SPLITTER_NAME) -> list[str]:
    """Split a line into sentences with a small rule-based splitter (default ``rule.v2``).

    A sentence ends after a token ending in ``.``, ``!`` or ``?`` (closing quotes
    allowed) when the token is the mark alone (tokenized text such as
    TurkCorpus) or the next token starts with an upper-case letter, a digit or an
    opening quote, unless the token is a known abbreviation or an initial.
    ``rule.v2`` then keeps one following token of closing quotes or brackets
    with the sentence it closes (``rule.v1`` made it a sentence of its own).

    >>> split_sentences("John got home . He called Mary .")
    ['John got home .', 'He called Mary .']
    >>> split_sentences("Dr. Smith left. He was tired.")
    ['Dr. Smith left.', 'He was tired.']
    >>> split_sentences("he was a sportsman . ''")
    ["he was a sportsman . ''"]
    >>> split_sentences("he was a sportsman . ''", "rule.v1")
    ['he was a sportsman .', "''"]
    """
    try:
        fn = SPLITTERS[splitter]
    except KeyError:
        raise ConfigError(f"unknown sentence splitter {splitter!r}; choose from {sorted(SPLITTERS)}") from None
    return fn(text)


def split_output(
    line: str, *, separator: str | None = None, tokenizer: str = "wordpunct", splitter: str = SPLITTER_NAME
) -> list[list[str]]:
    """A system-output line as a list of tokenized sentences.

    With ``separator`` (e.g. ``"<::::>"`` in WikiSplit) the line is cut there;
    otherwise :func:`split_sentences` decides. Empty pieces are dropped, so an
    empty line has no sentence.
    """
    pieces = line.split(separator) if separator else split_sentences(line, splitter)
    sentences = [tokenize(p, tokenizer) for p in pieces]
    return [s for s in sentences if s]
