"""What samsa does differently by language, in one table: add an entry here to add a language.

Each :class:`Language` names its pieces by the registries' names: the tokenizer and sentence splitter of text
(``samsa.text``), the parser and the built-in parser's weights, where lemmas come from, which aligners have its
resources, its readability metrics (each as the function that computes it, ``module:function``: the lexical suite
and the report call them, this table only names them) and the cheap signs that text is in it. Scoring never asks
which language it reads; :class:`~samsa.config.SamsaConfig` and the commands resolve the pieces here.

>>> get_language("de").parser
'builtin:de'
>>> get_language("DE").code, get_language("de_AT").code, get_language("en-GB").code
('de', 'de', 'en')
>>> get_language("it")
Traceback (most recent call last):
...
samsa.errors.ConfigError: no resources for language 'it'; supported languages: de (German), en (English), fr (French)
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from samsa.errors import ConfigError

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "SHIPPED_ALIGNERS",
    "Language",
    "Readability",
    "by_language",
    "get_language",
    "language_choices",
    "language_hint",
    "normalize_code",
    "resolve_function",
]


class Readability(NamedTuple):
    """A readability metric of one language's text.

    name, label
        Its name in ``samsa evaluate -m`` and its name in signatures and tables.
    compute
        ``(lines, suite_config) -> (value, signature fields)``: a function, or its ``module:function`` name.
    higher
        Whether a higher value means easier text (None: neither).
    report_stat
        The report's bootstrap statistic of it, ``(lines, splitter) -> CorpusStat`` (or its name); None: the report
        leaves it out.
    """

    name: str
    label: str
    compute: str | Callable[..., tuple[float, dict[str, Any]]]
    higher: bool | None = None
    report_stat: str | Callable[..., Any] | None = None


@dataclass(frozen=True)
class Language:
    """One language's resources, each by its registry name.

    code, name
        ISO 639-1 code (``--lang``) and English name.
    tokenizer, splitter
        Defaults of ``SamsaConfig.tokenizer`` / ``splitter`` (``samsa.text.TOKENIZERS`` / ``SPLITTERS``).
    parser
        The parser that parses raw sources unless ``--parser`` says otherwise (a registry name).
    parser_weights
        The built-in parser's weights file for the language, a pipeline named by its code (``builtin:CODE``);
        None where the language's parser is another.
    lemmas
        Where the ``lemma`` aligner's lemmas come from: ``spacy`` (the English model) or ``simplemma``.
    aligners
        The aligners whose resources exist for the language (the Sultan aligner reads English PPDB and
        dependency tables); another is refused in one line.
    readability
        Its readability metrics (:class:`Readability`), what ``samsa evaluate`` computes by default beside SARI
        and BLEU.
    own_metrics
        Other metrics whose formula is this language's (FKBLEU reads English syllables): refused for another.
    bleu_tokenizer
        sacrebleu's tokenizer for SARI and BLEU when the test set does not name one.
    function_words, letters
        Frequent words of the language and letters its text has and English's does not: how text given as
        English is noticed to be in it (:func:`language_hint`).
    parser_style
        The guidelines the built-in parser follows for the language's pipeline: ``wiki`` (UCCA v1, as Wiki, 20K,
        German-20K) or ``ewt`` (v2, as EWT and French-20K: articles are Function, quantities Q, time T).
    parser_lexical
        Whether the built-in parser reads the words themselves (their embeddings and character n-grams, learned on
        its training languages); False for a language it never saw: the encoder's states and word shapes only.
    parse_caveat
        What a user must know before trusting SAMSA on the language's parses, said in one line whenever its raw
        text is parsed ("" where the parser was chosen by the rules of docs/parser.md).
    """

    code: str
    name: str
    tokenizer: str
    splitter: str
    parser: str
    lemmas: str
    aligners: tuple[str, ...]
    readability: tuple[Readability, ...]
    parser_weights: str | None = None
    own_metrics: tuple[str, ...] = ()
    bleu_tokenizer: str = "13a"
    function_words: frozenset[str] = field(default_factory=frozenset)
    letters: str = ""
    parser_style: str = "wiki"
    parser_lexical: bool = True
    parse_caveat: str = ""

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics whose formula is this language's: its readability and :attr:`own_metrics`."""
        return (*(r.name for r in self.readability), *self.own_metrics)

    def aligner_options(self, aligner: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options of registry aligner ``aligner`` (``exact.v1``) for text in this language: the lemma aligner
        reads the language's lemmas; an aligner without the language's resources is refused in one line."""
        base = aligner.split(".v")[0]
        if base in SHIPPED_ALIGNERS and base not in self.aligners:  # a plug-in aligner answers for itself
            raise ConfigError(
                f"the {base} aligner needs English resources (PPDB, English dependency tables); for {self.name} "
                f"use --aligner {' or '.join(self.aligners)}"
            )
        if base == "lemma" and self.lemmas != "spacy":  # lemmas of the language's own dictionary, not spaCy's
            return {**{k: v for k, v in options.items() if k != "model"}, "language": self.code}
        return dict(options)


#: the aligners samsa ships, whose resources the table records per language
SHIPPED_ALIGNERS = ("exact", "lemma", "sultan")

_ENGLISH_WORDS = """the of and to a is was that for it with as on by he she his her be are this from at which
were have has or not they their its had been but who would will there when one all an about more these some""".split()
_GERMAN_WORDS = """der die das und ist nicht ein eine zu mit den dem des von auf sich im für auch es wurde sie er
war als werden sind wird nach bei einer eines noch wie aus oder nur zum zur ich wir ihr sein hat haben kann
über vor durch dass""".split()
_FRENCH_WORDS = """le la les un une des du de et est sont il elle ils elles ne pas que qui dans pour sur avec ce cette
ces au aux son sa ses leur leurs nous vous se par plus mais ou était été être avait ont a été fut comme""".split()

#: the supported languages; English is the default everywhere
LANGUAGES: dict[str, Language] = {
    "en": Language(
        code="en",
        name="English",
        tokenizer="wordpunct",
        splitter="rule.v2",
        parser="builtin",
        lemmas="spacy",
        aligners=("exact", "lemma", "sultan"),
        readability=(
            Readability(
                "fkgl",
                "FKGL",
                "samsa.lexical.readability:fkgl_readability",
                higher=False,
                report_stat="samsa.report.metrics:fkgl_stat",
            ),
        ),
        own_metrics=("fkbleu",),
        function_words=frozenset(_ENGLISH_WORDS),
    ),
    "de": Language(
        code="de",
        name="German",
        tokenizer="de",
        splitter="de.v1",
        parser="builtin:de",
        parser_weights="ucca-span-de-words.npz",
        lemmas="simplemma",
        aligners=("exact", "lemma"),
        readability=(
            Readability("fre_amstad", "FRE_AMSTAD", "samsa.lexical.readability_de:fre_amstad_readability", True),
            Readability(
                "wstf",
                "WSTF",
                "samsa.lexical.readability_de:wstf_readability",
                higher=False,
                report_stat="samsa.report.metrics:wstf_stat",
            ),
        ),
        bleu_tokenizer="de",
        function_words=frozenset(_GERMAN_WORDS),
        letters="äöüß",
    ),
    "fr": Language(
        code="fr",
        name="French",
        tokenizer="fr",
        splitter="fr.v1",
        parser="builtin:fr",
        parser_weights="ucca-span-multi-e5.npz",
        lemmas="simplemma",
        aligners=("exact", "lemma"),
        readability=(
            Readability("kandel_moles", "KANDEL_MOLES", "samsa.lexical.readability_fr:kandel_moles_readability", True),
        ),
        function_words=frozenset(_FRENCH_WORDS),
        letters="éèêàçùœ",
        parser_style="ewt",
        parser_lexical=False,
        parse_caveat="the multilingual parser never saw French: it finds 48% of French-20K's Scenes; parsed SAMSA in "
        "French is not to be trusted on its own: annotate a sample for the estimate (samsa sample, samsa annotate, "
        "samsa score --plan; docs/parser.md)",
    ),
}
DEFAULT_LANGUAGE = "en"


def normalize_code(code: str) -> str:
    """A language code as the table keys it: lower case, the region dropped (``DE``, ``de_DE``, ``de-AT``: ``de``)."""
    return re.split(r"[-_]", code.strip(), maxsplit=1)[0].lower()


def language_choices() -> str:
    """The supported languages as ``--help`` and error messages name them."""
    return ", ".join(f"{code} ({lang.name})" for code, lang in sorted(LANGUAGES.items()))


def by_language(what: Callable[[Language], str]) -> str:
    """A fact of every language for ``--help``: ``wordpunct for en, de for de``."""
    return ", ".join(f"{what(lang)} for {code}" for code, lang in LANGUAGES.items())


def get_language(code: str) -> Language:
    """The resources of ``code`` (in any case, a region allowed: :func:`normalize_code`); a language without them is
    refused in one line naming those supported."""
    try:
        return LANGUAGES[normalize_code(code)]
    except KeyError:
        raise ConfigError(f"no resources for language {code!r}; supported languages: {language_choices()}") from None


def resolve_function(ref: str | Callable[..., Any]) -> Callable[..., Any]:
    """A function named ``module:function`` in the table, imported when first called for."""
    if callable(ref):
        return ref
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


_WORD = re.compile(r"[^\W\d_]+")


def language_hint(lines: Sequence[str], read_as: str = DEFAULT_LANGUAGE, sample: int = 100) -> Language | None:
    """The language that text read as ``read_as`` looks like instead, or None.

    A cheap signal over the first ``sample`` lines: the share of words that are each language's function words,
    plus words with its own letters (umlauts, ß). Another language is named when its share is at least 10% and
    at least twice ``read_as``'s.

    >>> language_hint(["Der Hund schläft, weil er müde ist."]).code
    'de'
    >>> language_hint(["The dog sleeps because it is tired."]) is None
    True
    """
    counts = Counter(w.lower() for line in lines[:sample] for w in _WORD.findall(line))
    total = sum(counts.values())
    if not total:
        return None
    own = get_language(read_as)

    def share(lang: Language) -> float:
        letters = set(lang.letters)
        hits = sum(n for w, n in counts.items() if w in lang.function_words or (letters and not letters.isdisjoint(w)))
        return hits / total

    base = share(own)
    found = [(share(lang), lang) for lang in LANGUAGES.values() if lang.code != own.code]
    best = max(found, key=lambda x: x[0], default=None)
    if best is None or best[0] < 0.10 or best[0] < 2 * base:
        return None
    return best[1]
