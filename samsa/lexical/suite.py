"""The lexical suite: any set of metrics on one system output, each with its signature.

Used by ``samsa evaluate`` and by the benchmarks. Values are on a 0-100 scale
except FKGL (grade level), Levenshtein distances (characters) and split
statistics (their natural units).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from samsa import __version__
from samsa import lexical as L
from samsa.config import SamsaConfig, check_choice
from samsa.errors import ConfigError
from samsa.languages import DEFAULT_LANGUAGE, LANGUAGES, Language, Readability, get_language, resolve_function
from samsa.lexical.edits import split_stats
from samsa.lexical.readability import FKBLEU_FORMS, FKBLEU_SIGNS, FKGL_VARIANTS, fkbleu, sentence_fk_xu
from samsa.normalize import normalize
from samsa.signature import format_signature
from samsa.text import split_output

__all__ = [
    "CORE_METRICS",
    "DEFAULT_METRICS",
    "METRICS",
    "SuiteConfig",
    "check_language",
    "default_metrics",
    "evaluate_lexical",
    "known_metrics",
    "language_metrics",
]

#: the metrics of every language
CORE_METRICS = (
    "sari",
    "sari_add",
    "sari_keep",
    "sari_del",
    "bleu",
    "ibleu",
    "fkbleu",
    "ld_sc",
    "ld_sr",
    "compression",
    "splits",
)


def language_metrics() -> dict[str, Language]:
    """Each metric whose formula is one language's (its readability, FKBLEU), with that language."""
    return {m: lang for lang in LANGUAGES.values() for m in lang.metrics}


def known_metrics() -> tuple[str, ...]:
    """Every metric of the suite: the core ones and each language's readability (``samsa.languages``)."""
    readability = [r.name for lang in LANGUAGES.values() for r in lang.readability]
    return (*CORE_METRICS, *dict.fromkeys(m for m in readability if m not in CORE_METRICS))


#: every metric of the languages samsa ships (:func:`known_metrics` reads the table as it is at the call)
METRICS = known_metrics()
#: what ``samsa evaluate`` and :func:`samsa.evaluate` compute when no metric is named, for English text
DEFAULT_METRICS = ("sari", "bleu", *(r.name for r in get_language(DEFAULT_LANGUAGE).readability))


@dataclass(frozen=True)
class SuiteConfig:
    """The lexical metrics' own settings (each recorded in the signatures), checked once when built.

    The sentence separator and splitter that FKGL and the split counts read are SAMSA's, one setting for both:
    they live in ``samsa`` (a :class:`~samsa.config.SamsaConfig`, whose other fields are what SAMSA beside these
    metrics is computed with).
    """

    sari_variant: str = "easse"
    legacy: bool = False
    tokenizer: str = "13a"
    lowercase: bool = True
    unescape: bool = False
    sari_del_f1: bool = True
    fkgl_variant: str = "easse"
    fkbleu_form: str = "geometric"
    fkbleu_sign: str = "printed"
    ibleu_alpha: float = 0.9
    #: a normalization the caller applied before the suite (e.g. ``"table2"``: Moses unescaping, lowercasing,
    #: PTB clitics, as :func:`samsa.studies.reproduce.table2_normalize`); it shows in every signature
    prenorm: str | None = None
    samsa: SamsaConfig = field(default_factory=SamsaConfig)

    def __post_init__(self) -> None:
        check_choice("SARI variant", self.sari_variant, L.SARI_VARIANTS)
        check_choice("FKGL variant", self.fkgl_variant, FKGL_VARIANTS)
        check_choice("FKBLEU form", self.fkbleu_form, FKBLEU_FORMS)
        check_choice("FKBLEU sign", self.fkbleu_sign, FKBLEU_SIGNS)
        if self.prenorm is not None:
            check_choice("prenorm", self.prenorm, tuple(_PRENORMS))

    @property
    def separator(self) -> str | None:
        return self.samsa.separator

    @property
    def splitter(self) -> str:
        return self.samsa.splitter

    def samsa_config(self, parser: Any = None) -> SamsaConfig:
        """SAMSA's settings beside these metrics, with the parser that parses or names the sources."""
        return replace(self.samsa, parser=parser)


#: what each known upstream normalization does, for the signature's lc/unesc fields
_PRENORMS = {"table2": {"lc": True, "unesc": True}}


def _refs_field(refs: Sequence[Sequence[str]]) -> str:
    counts = sorted({len(r) for r in refs})
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def default_metrics(language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
    """What ``samsa evaluate`` computes when no metric is named: SARI, BLEU and the language's readability.

    >>> default_metrics()
    ('sari', 'bleu', 'fkgl')
    """
    return ("sari", "bleu", *(r.name for r in get_language(language).readability))


def check_language(metrics: Sequence[str], language: str) -> None:
    """Refuse, in one line, a metric whose formula is another language's than the text's."""
    lang = get_language(language)
    for m in metrics:
        own = language_metrics().get(m)
        if own is not None and own.code != lang.code:
            instead = ", ".join(r.name for r in lang.readability)
            raise ConfigError(f"{m} is for {own.name} text only; for {lang.name} use {instead or 'no readability'}")


def _readability(name: str) -> Readability | None:
    return next((r for lang in LANGUAGES.values() for r in lang.readability if r.name == name), None)


class _Texts(NamedTuple):
    """One system's texts as the metrics read them: as given, and normalized once (every metric then reads the
    normalized text with tokenizer ``none``); the signature fields every metric shares, and the references'."""

    orig: Sequence[str]
    sys: Sequence[str]
    n_orig: list[str]
    n_sys: list[str]
    n_refs: list[list[str]]
    common: dict[str, Any]
    nrefs: str


#: how the metrics read normalized text
_DONE: dict[str, Any] = {"tokenizer": "none", "lowercase": False}


def evaluate_lexical(
    orig: Sequence[str],
    sys: Sequence[str],
    refs: Sequence[Sequence[str]],
    metrics: Sequence[str] = DEFAULT_METRICS,
    config: SuiteConfig = SuiteConfig(),
) -> dict[str, Any]:
    """Compute ``metrics`` for line-parallel ``orig``/``sys`` and per-sentence ``refs``.

    Returns a dict with one key per metric plus ``signatures`` (metric -> string).
    """
    known = known_metrics()
    unknown = sorted(set(metrics) - set(known))
    if unknown:
        raise ConfigError(f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    c = config
    check_language(metrics, c.samsa.language)
    norm: dict[str, Any] = {"lowercase": c.lowercase, "tokenizer": c.tokenizer, "unescape": c.unescape}
    pre = _PRENORMS.get(c.prenorm or "", {})
    common = {
        "tok": c.tokenizer,
        "lc": c.lowercase or pre.get("lc", False),
        "unesc": c.unescape or pre.get("unesc", False),
        "norm": c.prenorm,
    }
    texts = _Texts(
        orig,
        sys,
        [normalize(x, **norm) for x in orig],
        [normalize(x, **norm) for x in sys],
        [[normalize(x, **norm) for x in rs] for rs in refs],
        common,
        _refs_field(refs),
    )
    out: dict[str, Any] = {}
    sigs: dict[str, str] = {}
    wanted = set(metrics)
    _sari(texts, c, wanted, out, sigs)
    _bleu(texts, c, wanted, out, sigs)
    for name in [m for m in known if m in wanted]:
        readability = _readability(name)
        if readability is not None:
            out[name], fields = resolve_function(readability.compute)(sys, c)
            sigs[name] = format_signature(readability.label, fields, __version__)
    _edits(texts, wanted, out, sigs)
    if "splits" in wanted:
        out["splits"], sigs["splits"] = _splits(sys, c)
    out["signatures"] = sigs
    return out


def _sari(t: _Texts, c: SuiteConfig, wanted: set[str], out: dict[str, Any], sigs: dict[str, str]) -> None:
    if not wanted & {"sari", "sari_add", "sari_keep", "sari_del"}:
        return
    legacy = c.legacy and c.sari_variant == "easse"
    comp = L.sari_components(
        t.orig if legacy else t.n_orig,
        t.n_sys,
        t.n_refs,
        variant=c.sari_variant,
        legacy=legacy,
        use_f1_for_deletion=c.sari_del_f1,
        refs_layout="sentences",
        **_DONE,
    )
    del_kind = "f1" if (c.sari_variant == "easse" and c.sari_del_f1) else "prec"
    legacy_field = c.legacy if c.sari_variant == "easse" else None
    sig = format_signature(
        "SARI",
        {"variant": c.sari_variant, "refs": t.nrefs, **t.common, "legacy": legacy_field, "del": del_kind},
        __version__,
    )
    for key, value in (
        ("sari", comp.sari),
        ("sari_add", comp.add),
        ("sari_keep", comp.keep),
        ("sari_del", comp.delete),
    ):
        if key in wanted:
            out[key], sigs[key] = value, sig


def _bleu(t: _Texts, c: SuiteConfig, wanted: set[str], out: dict[str, Any], sigs: dict[str, str]) -> None:
    """BLEU, iBLEU and FKBLEU (the two latter read BLEU against the source as well)."""
    if not wanted & {"bleu", "ibleu", "fkbleu"}:
        return
    bleu = L.corpus_bleu(t.n_sys, t.n_refs, refs_layout="sentences", **_DONE)
    if "bleu" in wanted:
        out["bleu"] = bleu
        sigs["bleu"] = format_signature(
            "BLEU", {"refs": t.nrefs, **t.common, "smooth": "exp", "eff": False, "impl": "sacrebleu"}, __version__
        )
    copy_bleu = L.corpus_bleu(t.n_sys, [t.n_orig], **_DONE) if wanted & {"ibleu", "fkbleu"} else 0.0
    ibleu = c.ibleu_alpha * bleu - (1 - c.ibleu_alpha) * copy_bleu
    if "ibleu" in wanted:
        out["ibleu"] = ibleu
        sigs["ibleu"] = format_signature("iBLEU", {"alpha": c.ibleu_alpha, "refs": t.nrefs, **t.common}, __version__)
    if "fkbleu" in wanted:
        fk_in = sum(sentence_fk_xu(x.split()) for x in t.n_orig) / len(t.n_orig)
        fk_out = sum(sentence_fk_xu(x.split()) for x in t.n_sys) / len(t.n_sys)
        out["fkbleu"] = 100.0 * fkbleu(ibleu / 100.0, fk_in, fk_out, form=c.fkbleu_form, sign=c.fkbleu_sign)
        fields = {"form": c.fkbleu_form, "sign": c.fkbleu_sign, "fk": "xu2016", "alpha": c.ibleu_alpha}
        sigs["fkbleu"] = format_signature("FKBLEU", {**fields, "refs": t.nrefs, **t.common}, __version__)


def _edits(t: _Texts, wanted: set[str], out: dict[str, Any], sigs: dict[str, str]) -> None:
    """Levenshtein distances to the source and to the closest reference, and the compression ratio."""
    if "ld_sc" in wanted:
        out["ld_sc"] = L.ld_sc(t.n_orig, t.n_sys, **_DONE)
        sigs["ld_sc"] = format_signature("LD_SC", {"unit": "char", **t.common}, __version__)
    if "ld_sr" in wanted:
        out["ld_sr"] = L.ld_sr(t.n_sys, t.n_refs, refs_layout="sentences", **_DONE)
        sigs["ld_sr"] = format_signature(
            "LD_SR", {"unit": "char", "refs": f"closest-of-{t.nrefs}", **t.common}, __version__
        )
    if "compression" in wanted:
        out["compression"] = 100.0 * L.compression_ratio(t.n_orig, t.n_sys)
        sigs["compression"] = format_signature("Compression", {"unit": "char", **t.common}, __version__)


def _splits(sys: Sequence[str], c: SuiteConfig) -> tuple[dict[str, Any], str]:
    """The split statistics of the outputs (sentences cut as SAMSA cuts them) and their signature."""
    split = split_stats([split_output(s, separator=c.separator, tokenizer="none", splitter=c.splitter) for s in sys])
    values = {
        "split_outputs": split.split_outputs,
        "split_proportion": split.split_proportion,
        "sentences_per_output": split.sentences_per_output,
        "tokens_per_sentence": split.tokens_per_sentence,
    }
    sig = format_signature("Splits", {"split": "sep" if c.separator else c.splitter, "tok": "whitespace"}, __version__)
    return values, sig
