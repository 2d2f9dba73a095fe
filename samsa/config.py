"""The settings of a SAMSA computation: one immutable, picklable object that validates itself once.

Everything that changes a SAMSA number is a field of :class:`SamsaConfig`; its
defaults are the defaults of the Python API and of every command. The metric
(:class:`samsa.scoring.metric.Samsa`), the engine's workers and the commands are
built from it, and the signature is written from it.

>>> SamsaConfig(tokenizer="none").tokenizer
'none'
>>> SamsaConfig(compat="strict")
Traceback (most recent call last):
...
samsa.errors.ConfigError: unknown compat mode 'strict'; choose from ['easse', 'paper']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, get_args

from samsa import __version__
from samsa.errors import ConfigError
from samsa.languages import DEFAULT_LANGUAGE, Language, get_language
from samsa.signature import format_signature
from samsa.text import SPLITTERS, TOKENIZERS

if TYPE_CHECKING:
    from samsa.aligners.base import Aligner
    from samsa.parsers.base import Parser

__all__ = [
    "COMPAT_NAMES",
    "DEFAULT_ALIGNER",
    "Compat",
    "SamsaConfig",
    "check_choice",
    "shared_aligner",
    "shared_parser",
]

#: the aligner SAMSA uses unless told (the paper's "simple match between identical words", section 5.1)
DEFAULT_ALIGNER = "exact"
#: ``paper``: the definition of Sulem et al. (2018); ``easse``: EASSE's implementation (docs/samsa.md)
Compat = Literal["paper", "easse"]
COMPAT_NAMES: tuple[Compat, ...] = get_args(Compat)


def check_choice(what: str, value: object, choices: Mapping[str, Any] | tuple[str, ...]) -> None:
    """Raise :class:`ConfigError` unless ``value`` is one of ``choices`` (a registry dict or names)."""
    if value not in choices:
        raise ConfigError(f"unknown {what} {value!r}; choose from {sorted(choices)}")


@dataclass(frozen=True)
class SamsaConfig:
    """What a SAMSA number depends on.

    compat
        ``"paper"`` (default) or ``"easse"``; see ``docs/samsa.md``.
    aligner, aligner_options
        A registry name (``"exact"``) and the options its factory takes (``{"ppdb": path}``), built where the
        scoring runs (each worker builds its own); or an :class:`~samsa.aligners.base.Aligner` object.
    tokenizer
        How output sentences are tokenized: ``"wordpunct"`` (English's default, as the original scripts),
        ``"none"`` (already tokenized; EASSE's ``"plain"``), sacrebleu's ``"13a"`` / ``"intl"`` (EASSE's
        ``tokenizer=``), or German's own (``de``). None: the language's.
    splitter
        The rule-based sentence splitter of outputs (``samsa.text.SPLITTERS``), when ``separator`` is None;
        None: the language's (``rule.v2`` for English, ``de.v1`` for German).
    lowercase
        Lowercase the output tokens (after sentence splitting, which reads capitals), and sources given as text
        before they are parsed (EASSE's ``lowercase=``). The exact aligner ignores case either way.
    separator
        Sentence separator inside an output line (e.g. ``"<::::>"``).
    parser
        A parser object or registry name: what parses sources given as text (default: the built-in parser), and
        what the signature names (``None``: sources are given as graphs).
    manual
        Mixed sources (``samsa score --ucca DIR --source FILE``): how many lines have manual UCCA, as
        ``"17/359"``; the signature names it. None: all lines are of one kind.
    language
        The language of sources and outputs (``samsa.languages``; default English): it picks the default
        tokenizer, splitter and parser, and the lemma aligner's lemmas; the signature names it unless English.
    """

    compat: Compat = "paper"
    aligner: str | Aligner = DEFAULT_ALIGNER
    aligner_options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    tokenizer: str = None  # type: ignore[assignment]  # None: the language's, set in __post_init__
    splitter: str = None  # type: ignore[assignment]  # as the tokenizer
    lowercase: bool = False
    separator: str | None = None
    parser: Parser | str | None = None
    language: str = DEFAULT_LANGUAGE
    manual: str | None = None

    def __post_init__(self) -> None:
        lang = get_language(self.language)
        if self.tokenizer is None:
            object.__setattr__(self, "tokenizer", lang.tokenizer)
        if self.splitter is None:
            object.__setattr__(self, "splitter", lang.splitter)
        check_choice("compat mode", self.compat, COMPAT_NAMES)
        check_choice("tokenizer", self.tokenizer, TOKENIZERS)
        check_choice("sentence splitter", self.splitter, SPLITTERS)
        if self.aligner_options and not isinstance(self.aligner, str):
            raise ConfigError("aligner options go with an aligner named by its registry name")
        object.__setattr__(self, "lowercase", bool(self.lowercase))
        object.__setattr__(self, "aligner_options", language_aligner_options(self.aligner, self.aligner_options, lang))

    def build_aligner(self) -> Aligner:
        """The aligner: the object given, or the registry's (shared within a process when it has no options)."""
        if not isinstance(self.aligner, str):
            return self.aligner
        if not self.aligner_options:
            return shared_aligner(self.aligner)
        from samsa.registry import get_aligner

        return get_aligner(self.aligner, **self.aligner_options)

    def signature(self, aligner: Aligner, *, documents: bool = False) -> str:
        """``SAMSA|compat:...|version:...``: how a number was computed, given the built aligner (whose own
        signature names its options and data); ``documents``: document-level SAMSA (``doc:yes``)."""
        return format_signature(
            "SAMSA",
            {
                "compat": self.compat,
                "parser": self.parser_name() or "given",
                "manual": self.manual,
                "aligner": aligner.signature(),
                "tok": self.tokenizer,
                "lc": "yes" if self.lowercase else "no",
                "split": "sep" if self.separator else self.splitter,
                "doc": "yes" if documents else None,
                "lang": None if self.language == DEFAULT_LANGUAGE else self.language,
            },
            __version__,
        )

    def parser_name(self) -> str | None:
        """The parser as the signature names it (its own signature, for a parser object)."""
        return self.parser if isinstance(self.parser, str) or self.parser is None else self.parser.signature()

    def to_dict(self, aligner: Aligner) -> dict[str, Any]:
        """The settings as JSON values (the ``config`` of a corpus result)."""
        return {
            "compat": self.compat,
            "aligner": aligner.signature(),
            "tokenizer": self.tokenizer,
            "lowercase": self.lowercase,
            "separator": self.separator,
            "splitter": self.splitter,
            **({} if self.language == DEFAULT_LANGUAGE else {"language": self.language}),
        }


def language_aligner_options(aligner: Any, options: Mapping[str, Any], lang: Language) -> dict[str, Any]:
    """The aligner's options for a language (:meth:`~samsa.languages.Language.aligner_options`); an aligner given
    as an object keeps its own."""
    if not isinstance(aligner, str):
        return dict(options)
    return lang.aligner_options(aligner, options)


@lru_cache(maxsize=8)
def shared_parser(name: str) -> Any:
    """The parser registered as ``name`` with default options, built once per process.

    Loading the built-in parser reads spaCy and the weights; the EASSE-style functions are called once per
    sentence or corpus, so they share it.
    """
    from samsa.registry import get_parser

    return get_parser(name)


@lru_cache(maxsize=8)
def shared_aligner(name: str) -> Aligner:
    """The aligner registered as ``name`` with default options, built once per process (spaCy for sultan)."""
    from samsa.registry import get_aligner

    return get_aligner(name)
