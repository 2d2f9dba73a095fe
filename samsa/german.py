"""German text processing: tokenizer, sentence splitter and syllables, by rules (lemmas: ``aligners.lemma``).

The package index has no German spaCy model, so samsa tokenizes and splits German with its own rules
(``benchmarks/language_text.py`` measures them against German-20K's gold tokens and the sentence splits of
BiSECT's and DEplain's references). What the rules know:

* abbreviations keep their period (``z.B.``, ``usw.``, ``Dr.``, ``Nr.``), as do ordinals before a word
  (``am 3. Mai``, ``im 19. Jahrhundert``) and dates (``3.5.2020``, ``03.05.``);
* German quotes (``„…“``, ``‚…‘``, ``»…«``, ``›…‹``) and brackets are tokens of their own, and a closing quote
  after a final mark ends the sentence with it;
* hyphenated compounds stay one token (``E-Mail``, ``Nord-Süd-Konflikt``, ``Ein-`` in ``Ein- und Ausgang``),
  as do numbers (``1.000``, ``3,5``) and inner apostrophes (``geht's``);
* the marker ``_SPLIT_`` (BiSECT's references) is a token and a sentence boundary of its own.

>>> tokenize_de("Am 3. Mai schrieb Dr. Müller z.B. eine E-Mail: „Wir kommen.“")
['Am', '3.', 'Mai', 'schrieb', 'Dr.', 'Müller', 'z.B.', 'eine', 'E-Mail', ':', '„', 'Wir', 'kommen', '.', '“']
>>> split_de("Er kam am 3. Mai. Sie ging. _SPLIT_ Dann regnete es")
['Er kam am 3. Mai.', 'Sie ging.', 'Dann regnete es']
"""

from __future__ import annotations

import re

__all__ = ["SPLIT_MARKER", "split_de", "syllables_de", "tokenize_de"]

#: the sentence marker of BiSECT's references
SPLIT_MARKER = "_SPLIT_"

#: abbreviations that keep their period (lower case, without it); single letters and letter-dot chains
#: (``z.B``, ``d.h``, ``u.a``) are recognized by form
ABBREVIATIONS = frozenset(
    "abb abs abt allg anm bd bzgl bzw ca chr dgl dr dt ebd evtl entspr etc exkl ev gebr gegr ggf hl hg hrsg inkl "
    "insb jh jhd jr kap kath kl lt mio mrd nr nrn od pfd prof rd sog st std str tel usw verh vgl vs "
    "zb zt zzgl zit jan feb febr apr jun jul aug sep sept okt nov dez ff hr fr frl".split()
)
_MONTHS = frozenset("januar februar märz april mai juni juli august september oktober november dezember jänner".split())
_OPENERS = "„‚»›«‹\"'([{"
_CLOSERS = "“‘«‹»›\"'”’)]}"
_TRAILING = ",;:!?…"
_DATE = re.compile(r"\d{1,2}\.\d{1,2}\.(\d{2,4})?")
_NUMBER = re.compile(r"\d+([.,]\d+)*")
_LETTER_CHAIN = re.compile(r"(\w\.)*\w", re.UNICODE)
_ORDINAL = re.compile(r"\d{1,3}\.")


def _is_abbreviation(core: str) -> bool:
    """Whether ``core`` (a word without its final period) keeps the period as an abbreviation."""
    stem = core.lower()
    if len(stem) == 1:
        return stem.isalpha()  # "z. B.", "S. 5", an initial
    return stem in ABBREVIATIONS or (len(stem) <= 4 and _LETTER_CHAIN.fullmatch(stem) is not None and "." in stem)


def _split_chunk(chunk: str, nxt: str | None) -> list[str]:
    """One whitespace-separated chunk as tokens; ``nxt`` is the next chunk (None at the end of the text)."""
    if chunk == SPLIT_MARKER:
        return [chunk]
    head: list[str] = []
    tail: list[str] = []
    while chunk and chunk[0] in _OPENERS and len(chunk) > 1:
        head.append(chunk[0])
        chunk = chunk[1:]
    while chunk:
        if chunk.endswith("..."):
            tail.append("...")
            chunk = chunk[:-3]
        elif chunk[-1] in _CLOSERS or chunk[-1] in _TRAILING:
            if chunk[-1] in "'’" and len(chunk) > 1 and chunk[-2].isalpha() and chunk[0] != "'":
                break  # "hab'": an elided final e
            tail.append(chunk[-1])
            chunk = chunk[:-1]
        elif chunk.endswith(".") and len(chunk) > 1:
            if _keeps_period(chunk, nxt if not tail else None):
                break
            tail.append(".")
            chunk = chunk[:-1]
        else:
            break
    middle = [chunk] if chunk else []
    return head + middle + tail[::-1]


def _keeps_period(word: str, nxt: str | None) -> bool:
    """Whether a word's final period is part of it: an abbreviation, a date, or an ordinal before a word."""
    core = word[:-1]
    if _DATE.fullmatch(word) or _DATE.fullmatch(core):
        return True
    if _ORDINAL.fullmatch(word):  # "3." before a word ("am 3. Mai"), not at the end of the text
        return nxt is not None and (nxt.lower().strip(_CLOSERS + _TRAILING + ".") in _MONTHS or nxt[:1].isalnum())
    return any(c.isalpha() for c in core) and _is_abbreviation(core)


def tokenize_de(text: str) -> list[str]:
    """German tokens of ``text`` (see the module's rules)."""
    chunks = text.split()
    out: list[str] = []
    for k, chunk in enumerate(chunks):
        out.extend(_split_chunk(chunk, chunks[k + 1] if k + 1 < len(chunks) else None))
    return out


def _ends_sentence(token: str, nxt: str | None, prev: str | None = None) -> bool:
    """Whether a boundary follows ``token`` (whitespace-separated, as written) when ``nxt`` comes next and
    ``prev`` came before."""
    core = token.rstrip(_CLOSERS)
    if not core or core[-1] not in ".!?…":
        return False
    if nxt is None:
        return True
    if re.fullmatch(r"[.!?…]+", core):  # a standalone mark: tokenized text ("Nr .", "am 1 . Juli")
        return not (core == "." and prev is not None and _keeps_period(prev + ".", nxt))
    if core.endswith(".") and core[-2:-1] != "." and _keeps_period(core, nxt):
        return False
    return _starts_sentence(nxt)


def split_de(text: str) -> list[str]:
    """German sentences of a line, each as its whitespace-separated chunks rejoined; ``_SPLIT_`` is a boundary.

    A sentence ends after a chunk ending in ``.``, ``!``, ``?`` or ``…`` (closing quotes and brackets
    allowed) when the next chunk starts with a capital, a digit or an opening quote, unless the chunk is an
    abbreviation, a date or an ordinal before a word. A chunk of closing quotes right after the boundary
    stays with the sentence it closes.
    """
    chunks = text.split()
    out: list[str] = []
    current: list[str] = []
    for k, chunk in enumerate(chunks):
        if chunk == SPLIT_MARKER:
            if current:
                out.append(" ".join(current))
            current = []
            continue
        current.append(chunk)
        nxt = chunks[k + 1] if k + 1 < len(chunks) else None
        if nxt is not None and nxt != SPLIT_MARKER and _only_closers(nxt) and _ends_sentence(chunk, None):
            continue  # `` kommen. “ ``: the closing quote joins the sentence; the boundary comes after it
        if _only_closers(chunk) and len(current) > 1 and _ends_sentence(current[-2], None):
            ends = nxt is None or _starts_sentence(nxt)
        else:
            ends = _ends_sentence(chunk, nxt, chunks[k - 1] if k else None)
        if ends:
            out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return out


def _only_closers(chunk: str) -> bool:
    return all(c in _CLOSERS for c in chunk)


def _starts_sentence(chunk: str) -> bool:
    first = chunk.lstrip(_OPENERS)[:1]
    return chunk == SPLIT_MARKER or (bool(first) and (first.isupper() or first.isdigit() or chunk[0] in _OPENERS))


_VOWEL_GROUP = re.compile(r"(?:äu|eu|ei|ai|au|ie|ey|ay|[aeiouyäöü])", re.IGNORECASE)


def syllables_de(word: str) -> int:
    """German syllables of a word, counted as vowel nuclei (diphthongs and ``ie`` one; at least 1 per word)."""
    letters = "".join(c for c in word if c.isalpha())
    if not letters:
        return 0
    return max(1, len(_VOWEL_GROUP.findall(letters)))
