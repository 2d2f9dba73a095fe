"""The lexical suite: any set of metrics on one system output, each with its signature.

Used by ``samsa evaluate`` and by the benchmarks. Values are on a 0-100 scale
except FKGL (grade level), Levenshtein distances (characters) and split
statistics (their natural units).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from samsa import __version__
from samsa import lexical as L
from samsa.config import SamsaConfig, check_choice
from samsa.errors import ConfigError
from samsa.lexical.edits import split_stats
from samsa.lexical.readability import FKBLEU_FORMS, FKBLEU_SIGNS, FKGL_VARIANTS, fkbleu, sentence_fk_xu
from samsa.lexical.readability_de import fre_amstad, wstf
from samsa.normalize import normalize
from samsa.signature import format_signature
from samsa.text import split_output

__all__ = [
    "DEFAULT_METRICS",
    "LANGUAGE_METRICS",
    "METRICS",
    "SuiteConfig",
    "check_language",
    "default_metrics",
    "evaluate_lexical",
]

METRICS = (
    "sari",
    "sari_add",
    "sari_keep",
    "sari_del",
    "bleu",
    "ibleu",
    "fkgl",
    "fkbleu",
    "ld_sc",
    "ld_sr",
    "compression",
    "splits",
    "fre_amstad",
    "wstf",
)
#: metrics whose formula or syllable counter is English's / German's (refused for another language)
LANGUAGE_METRICS = {"fkgl": "en", "fkbleu": "en", "fre_amstad": "de", "wstf": "de"}
#: what ``samsa evaluate`` and :func:`samsa.evaluate` compute when no metric is named
DEFAULT_METRICS = ("sari", "bleu", "fkgl")


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


def default_metrics(language: str = "en") -> tuple[str, ...]:
    """What ``samsa evaluate`` computes when no metric is named: SARI, BLEU and the language's readability.

    >>> default_metrics("en"), default_metrics("de")
    (('sari', 'bleu', 'fkgl'), ('sari', 'bleu', 'fre_amstad', 'wstf'))
    """
    from samsa.languages import get_language

    return ("sari", "bleu", *get_language(language).readability)


def check_language(metrics: Sequence[str], language: str) -> None:
    """Refuse, in one line, a readability metric made for another language than the text's."""
    from samsa.languages import get_language

    lang = get_language(language)
    for m in metrics:
        own = LANGUAGE_METRICS.get(m)
        if own is not None and own != language:
            instead = ", ".join(r for r in lang.readability if r in METRICS)
            raise ConfigError(
                f"{m} is for {get_language(own).name} text only; for {lang.name} use {instead or 'no readability'}"
            )


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
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ConfigError(f"unknown metric(s) {', '.join(unknown)}; choose from {', '.join(METRICS)}")
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
    nrefs = _refs_field(refs)
    out: dict[str, Any] = {}
    sigs: dict[str, str] = {}
    wanted = set(metrics)
    # Normalize once; every metric below then works on the normalized text (tokenizer "none").
    n_orig = [normalize(x, **norm) for x in orig]
    n_sys = [normalize(x, **norm) for x in sys]
    n_refs = [[normalize(x, **norm) for x in rs] for rs in refs]
    done: dict[str, Any] = {"tokenizer": "none", "lowercase": False}
    if wanted & {"sari", "sari_add", "sari_keep", "sari_del"}:
        legacy = c.legacy and c.sari_variant == "easse"
        comp = L.sari_components(
            orig if legacy else n_orig,
            n_sys,
            n_refs,
            variant=c.sari_variant,
            legacy=legacy,
            use_f1_for_deletion=c.sari_del_f1,
            refs_layout="sentences",
            **done,
        )
        del_kind = "f1" if (c.sari_variant == "easse" and c.sari_del_f1) else "prec"
        sig = format_signature(
            "SARI",
            {
                "variant": c.sari_variant,
                "refs": nrefs,
                **common,
                "legacy": c.legacy if c.sari_variant == "easse" else None,
                "del": del_kind,
            },
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
    if wanted & {"bleu", "ibleu", "fkbleu"}:
        bleu = L.corpus_bleu(n_sys, n_refs, refs_layout="sentences", **done)
        if "bleu" in wanted:
            out["bleu"] = bleu
            sigs["bleu"] = format_signature(
                "BLEU", {"refs": nrefs, **common, "smooth": "exp", "eff": False, "impl": "sacrebleu"}, __version__
            )
        copy_bleu = L.corpus_bleu(n_sys, [n_orig], **done) if wanted & {"ibleu", "fkbleu"} else 0.0
        ibleu = c.ibleu_alpha * bleu - (1 - c.ibleu_alpha) * copy_bleu
        if "ibleu" in wanted:
            out["ibleu"] = ibleu
            sigs["ibleu"] = format_signature("iBLEU", {"alpha": c.ibleu_alpha, "refs": nrefs, **common}, __version__)
        if "fkbleu" in wanted:
            fk_in = sum(sentence_fk_xu(x.split()) for x in n_orig) / len(n_orig)
            fk_out = sum(sentence_fk_xu(x.split()) for x in n_sys) / len(n_sys)
            out["fkbleu"] = 100.0 * fkbleu(ibleu / 100.0, fk_in, fk_out, form=c.fkbleu_form, sign=c.fkbleu_sign)
            sigs["fkbleu"] = format_signature(
                "FKBLEU",
                {
                    "form": c.fkbleu_form,
                    "sign": c.fkbleu_sign,
                    "fk": "xu2016",
                    "alpha": c.ibleu_alpha,
                    "refs": nrefs,
                    **common,
                },
                __version__,
            )
    if "fkgl" in wanted:
        out["fkgl"] = L.corpus_fkgl(sys, variant=c.fkgl_variant, tokenizer=c.tokenizer, splitter=c.splitter)
        sigs["fkgl"] = format_signature(
            "FKGL", {"variant": c.fkgl_variant, "tok": c.tokenizer, "split": c.splitter}, __version__
        )
    for name, formula in (("fre_amstad", fre_amstad), ("wstf", wstf)):
        if name in wanted:
            out[name] = formula(sys, separator=c.separator, splitter=c.splitter)
            sigs[name] = format_signature(
                name.upper(), {"tok": "de", "split": "sep" if c.separator else c.splitter, "syl": "de.v1"}, __version__
            )
    if "ld_sc" in wanted:
        out["ld_sc"] = L.ld_sc(n_orig, n_sys, **done)
        sigs["ld_sc"] = format_signature("LD_SC", {"unit": "char", **common}, __version__)
    if "ld_sr" in wanted:
        out["ld_sr"] = L.ld_sr(n_sys, n_refs, refs_layout="sentences", **done)
        sigs["ld_sr"] = format_signature(
            "LD_SR", {"unit": "char", "refs": f"closest-of-{nrefs}", **common}, __version__
        )
    if "compression" in wanted:
        out["compression"] = 100.0 * L.compression_ratio(n_orig, n_sys)
        sigs["compression"] = format_signature("Compression", {"unit": "char", **common}, __version__)
    if "splits" in wanted:
        split = split_stats(
            [split_output(s, separator=c.separator, tokenizer="none", splitter=c.splitter) for s in sys]
        )
        out["splits"] = {
            "split_outputs": split.split_outputs,
            "split_proportion": split.split_proportion,
            "sentences_per_output": split.sentences_per_output,
            "tokens_per_sentence": split.tokens_per_sentence,
        }
        sigs["splits"] = format_signature(
            "Splits", {"split": "sep" if c.separator else c.splitter, "tok": "whitespace"}, __version__
        )
    out["signatures"] = sigs
    return out
