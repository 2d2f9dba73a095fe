"""French text processing by rules: tokenizer, sentence splitter and syllables (lemmas: ``aligners.lemma``); spaCy's
``fr_core_news_md`` as the other tokenizer and splitter (``fr-spacy``, ``fr-spacy.v1``), where it is installed.

``benchmarks/language_text.py`` measures the tokenizer against French-20K's gold tokens. What the rules know:

* elided articles and pronouns end with their apostrophe (``l'``, ``d'``, ``qu'``, ``jusqu'``), as French-20K
  writes them; hyphenated words stay one token (``sous-marin``, ``peut-être``, ``a-t-il``);
* abbreviations keep their period (``M.``, ``Mme.``, ``etc.``, ``p.``, initials), numbers their comma (``3,5``);
* quotes (``«``, ``»``, ``“``), brackets and other punctuation are tokens of their own; a closing quote after a
  final mark ends the sentence with it.

>>> tokenize_fr("« L'homme qu'il vit, M. Dupont, a-t-il 3,5 ans ? »")
['«', "L'", 'homme', "qu'", 'il', 'vit', ',', 'M.', 'Dupont', ',', 'a-t-il', '3,5', 'ans', '?', '»']
>>> split_fr("Il est parti. M. Dupont est resté ! « Pourquoi ? » Personne ne sait.")
['Il est parti.', 'M. Dupont est resté !', '« Pourquoi ? »', 'Personne ne sait.']
>>> [syllables_fr(w) for w in ("capitaine", "sous-marin", "eau", "plongea", "le", "3")]
[3, 3, 1, 2, 1, 0]
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from samsa.errors import PluginUnavailable

__all__ = ["SPACY_MODEL", "spacy_fr", "split_fr", "split_fr_spacy", "syllables_fr", "tokenize_fr", "tokenize_fr_spacy"]

#: spaCy's French pipeline (LGPL-LR, the ``fr-spacy`` extra) of ``--tokenizer fr-spacy`` and ``--splitter fr-spacy.v1``
SPACY_MODEL = "fr_core_news_md"

#: abbreviations that keep their period (lower case, without it); single letters are initials
ABBREVIATIONS = frozenset(
    "m mm mme mmes mlle mlles dr pr st ste etc cf ex p pp vol chap av apr env fig éd ed no nos art al "
    "janv févr avr juil sept oct nov déc".split()
)
_ELIDED = r"(?:jusqu|lorsqu|puisqu|quoiqu|presqu|qu|[cdjlmnst])['’]"
_ELISION = re.compile(rf"(?<!\w)({_ELIDED})(?=\w)", re.IGNORECASE)
_ELIDED_WORD = re.compile(_ELIDED, re.IGNORECASE)
_OPENERS = "«‹“‘\"'([{"
_CLOSERS = "»›”’\"')]}"
_TRAILING = ",;:!?…"
_NUMBER = re.compile(r"\d+([.,]\d+)*")
_VOWELS = re.compile(r"[aeiouyàâäéèêëîïôöùûüœæ]+", re.IGNORECASE)


def _core(chunk: str) -> tuple[list[str], str, list[str]]:
    """(leading marks, the word, trailing marks) of one whitespace-separated chunk."""
    head: list[str] = []
    tail: list[str] = []
    while len(chunk) > 1 and chunk[0] in _OPENERS:
        head.append(chunk[0])
        chunk = chunk[1:]
    while len(chunk) > 1 and (chunk[-1] in _CLOSERS or chunk[-1] in _TRAILING) and not _ELIDED_WORD.fullmatch(chunk):
        tail.insert(0, chunk[-1])
        chunk = chunk[:-1]
    if len(chunk) > 3 and chunk.endswith("..."):
        tail.insert(0, "...")
        chunk = chunk[:-3]
    if len(chunk) > 1 and chunk.endswith(".") and not chunk.endswith(".."):
        stem = chunk[:-1]
        if not (stem.lower() in ABBREVIATIONS or (len(stem) == 1 and stem.isalpha()) or "." in stem):
            tail.insert(0, ".")
            chunk = stem
    return head, chunk, tail


def _word(word: str) -> list[str]:
    """A word without its marks: elisions split off after their apostrophe, other punctuation its own token."""
    if _NUMBER.fullmatch(word) or word in ("...", "…"):
        return [word]
    out: list[str] = []
    for piece in _ELISION.split(word):
        if not piece:
            continue
        if _ELIDED_WORD.fullmatch(piece):
            out.append(piece)
        else:
            out.extend(t for t in re.findall(r"[\w'’.-]+|[^\w\s]", piece) if t)
    return out


def tokenize_fr(text: str) -> list[str]:
    """French tokens of a text (the rules in the module's docstring)."""
    out: list[str] = []
    for chunk in text.split():
        head, word, tail = _core(chunk)
        out.extend([*head, *(_word(word) if word else []), *tail])
    return out


def _ends(chunk: str) -> bool:
    """Whether a chunk ends with a final mark (closing marks after it allowed) that is not an abbreviation's."""
    bare = chunk.rstrip(_CLOSERS)
    if not bare or bare[-1] not in ".!?…":
        return False
    return bare[-1] != "." or len(bare) == 1 or _core(bare)[2][-1:] == ["."]


def split_fr(text: str) -> list[str]:
    """French sentences of a text: a chunk ending in ``.``, ``!``, ``?`` or ``…`` (closing marks allowed, and
    chunks of closing marks after it) ends one when the next chunk starts with a capital, a digit or an opening
    mark, unless the chunk is an abbreviation."""
    chunks = text.split()
    out: list[str] = []
    start = k = 0
    while k < len(chunks):
        k += 1
        if not _ends(chunks[k - 1]):
            continue
        while k < len(chunks) and all(c in _CLOSERS for c in chunks[k]):
            k += 1
        nxt = chunks[k] if k < len(chunks) else " "
        if nxt == " " or nxt[0] in _OPENERS or nxt[0].isupper() or nxt[0].isdigit():
            out.append(" ".join(chunks[start:k]))
            start = k
    if start < len(chunks):
        out.append(" ".join(chunks[start:]))
    return out


def syllables_fr(word: str) -> int:
    """French syllables of a word, counted as vowel groups, a final mute ``e`` / ``es`` not counted (at least 1 per
    word with a letter; 0 without)."""
    letters = "".join(c for c in word.lower() if c.isalpha())
    if not letters:
        return 0
    n = len(_VOWELS.findall(letters))
    if n > 1 and re.search(r"[^aeiouy]es?$", letters):
        n -= 1
    return max(1, n)


@lru_cache(maxsize=2)
def spacy_fr(model: str = SPACY_MODEL) -> Any:
    """spaCy's French ``model`` with its tokenizer and dependency parser only (the parser places sentence
    boundaries), loaded once per process. Not installed: one line saying what to install."""
    try:
        import spacy

        nlp = spacy.load(model, exclude=["morphologizer", "tagger", "attribute_ruler", "lemmatizer", "ner", "senter"])
    except (ImportError, OSError):
        msg = f'the fr-spacy tokenizer and splitter need spaCy\'s {model}: pip install "samsa-metric[fr-spacy]" '
        raise PluginUnavailable(msg + "(or use French's own rules: --tokenizer fr, --splitter fr.v1)") from None
    return nlp


def tokenize_fr_spacy(text: str) -> list[str]:
    """French tokens of a text by spaCy's French tokenizer (``fr_core_news_md``'s)."""
    return [t.text for t in spacy_fr().tokenizer(text) if not t.is_space]


def split_fr_spacy(text: str) -> list[str]:
    """French sentences of a text where ``fr_core_news_md``'s dependency parser places their boundaries."""
    return [s.text.strip() for s in spacy_fr()(text).sents if s.text.strip()]
