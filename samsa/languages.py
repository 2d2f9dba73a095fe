"""What samsa does differently by language, in one table: add an entry here to add a language.

Each :class:`Language` names its pieces by the registries' names: the tokenizer and sentence splitter of text
(``samsa.text``), the built-in parser's pipeline, where lemmas come from, whether the Sultan aligner's
resources exist for it, and its readability formulas (``samsa.lexical``). Scoring itself never asks which
language it reads; :class:`~samsa.config.SamsaConfig` and the commands resolve the pieces here.

>>> get_language("de").parser
'builtin:de'
>>> get_language("fr")
Traceback (most recent call last):
...
samsa.errors.ConfigError: no resources for language 'fr'; supported languages: de (German), en (English)
"""

from __future__ import annotations

from dataclasses import dataclass

from samsa.errors import ConfigError

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Language", "get_language", "language_choices"]


@dataclass(frozen=True)
class Language:
    """One language's resources, each by its registry name.

    code, name
        ISO 639-1 code (``--lang``) and English name.
    tokenizer, splitter
        Defaults of ``SamsaConfig.tokenizer`` / ``splitter`` (``samsa.text.TOKENIZERS`` / ``SPLITTERS``).
    parser
        The parser that parses raw sources unless ``--parser`` says otherwise (a registry name).
    lemmas
        Where the ``lemma`` aligner's lemmas come from: ``spacy`` (the English model) or ``simplemma``.
    sultan
        Whether the Sultan aligner's resources (PPDB, English dependency tables) exist for the language.
    readability
        The readability metrics of the lexical suite that apply (``samsa evaluate -m``).
    bleu_tokenizer
        sacrebleu's tokenizer for SARI and BLEU when the test set does not name one.
    """

    code: str
    name: str
    tokenizer: str
    splitter: str
    parser: str
    lemmas: str
    sultan: bool
    readability: tuple[str, ...]
    bleu_tokenizer: str = "13a"


#: the supported languages; English is the default everywhere
LANGUAGES: dict[str, Language] = {
    "en": Language(
        code="en",
        name="English",
        tokenizer="wordpunct",
        splitter="rule.v2",
        parser="builtin",
        lemmas="spacy",
        sultan=True,
        readability=("fkgl",),
    ),
    "de": Language(
        code="de",
        name="German",
        tokenizer="de",
        splitter="de.v1",
        parser="builtin:de",
        lemmas="simplemma",
        sultan=False,
        readability=("fre_amstad", "wstf"),
        bleu_tokenizer="de",
    ),
}
DEFAULT_LANGUAGE = "en"


def language_choices() -> str:
    """The supported languages as ``--help`` and error messages name them."""
    return ", ".join(f"{code} ({lang.name})" for code, lang in sorted(LANGUAGES.items()))


def get_language(code: str) -> Language:
    """The resources of ``code``; a language without them is refused in one line naming those supported."""
    try:
        return LANGUAGES[code]
    except KeyError:
        raise ConfigError(f"no resources for language {code!r}; supported languages: {language_choices()}") from None
