"""Per-sentence sufficient statistics of the report's metrics (see :mod:`samsa.report.stats`).

Each builder returns a :class:`CorpusStat` whose ``value()`` equals the number that
``samsa evaluate`` prints with the same settings (tested), so the interval and the point
estimate always describe the same metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from samsa.report.stats import CorpusStat

__all__ = [
    "RESAMPLABLE",
    "bleu_stat",
    "bleu_stats",
    "fkgl_stat",
    "ld_sc_stat",
    "mean_stat",
    "sari_stat",
    "suite_stats",
    "wstf_stat",
]


def mean_stat(values: Sequence[float]) -> CorpusStat:
    """A corpus score that is the mean of sentence scores (SAMSA, SAMSA-abl, LD_SC)."""
    rows = np.column_stack([np.asarray(values, dtype=np.float64), np.ones(len(values))])
    return CorpusStat(rows, lambda s: s[0] / s[1])


def sari_stat(orig: Sequence[str], sys: Sequence[str], refs: Sequence[Sequence[str]]) -> CorpusStat:
    """EASSE corpus SARI (F1 deletion, macro averaging) over normalized text: summed n-gram counts."""
    from samsa.lexical.sari import EasseStats, easse_from_stats, easse_stats

    rows = np.array(
        [
            np.concatenate(
                [
                    np.asarray(r, dtype=np.float64)
                    for r in easse_stats(o.split(), s.split(), [x.split() for x in rs]).rows()
                ]
            )
            for o, s, rs in zip(orig, sys, refs, strict=True)
        ]
    )

    def score(total: np.ndarray) -> float:
        fields = total.reshape(9, -1)
        return easse_from_stats(EasseStats(*(tuple(float(v) for v in f) for f in fields))).sari

    return CorpusStat(rows, score)


def bleu_stats(systems: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> list[CorpusStat]:
    """sacrebleu corpus BLEU (exp smoothing, as samsa evaluate) over normalized text, from its per-sentence
    counts; the references are analysed once for every system."""
    from sacrebleu.metrics import BLEU

    from samsa.lexical import ref_streams

    streams = [[r if r is not None else "" for r in s] for s in ref_streams(refs)]
    bleu = BLEU(
        lowercase=False, tokenize="none", force=True, smooth_method="exp", effective_order=False, references=streams
    )

    def score(total: np.ndarray) -> float:
        return bleu._compute_score_from_stats([int(v) for v in total]).score

    return [
        CorpusStat(np.array(bleu._extract_corpus_statistics(list(s), None), dtype=np.float64), score) for s in systems
    ]


def bleu_stat(sys: Sequence[str], refs: Sequence[Sequence[str]]) -> CorpusStat:
    """:func:`bleu_stats` of one system."""
    return bleu_stats([sys], refs)[0]


def fkgl_stat(sys: Sequence[str], *, tokenizer: str = "13a", splitter: str | None = None) -> CorpusStat:
    """EASSE corpus FKGL from pooled words, sentences and syllables."""
    from samsa.lexical.readability import _counts, fkgl_from_counts
    from samsa.text import SPLITTER_NAME

    rows = np.array([_counts([s], "easse", tokenizer, splitter or SPLITTER_NAME) for s in sys], dtype=np.float64)
    return CorpusStat(rows, lambda t: max(0.0, fkgl_from_counts(t[0], t[1], t[2])) if t[1] else 0.0)


def wstf_stat(sys: Sequence[str], *, splitter: str = "de.v1") -> CorpusStat:
    """The first Wiener Sachtextformel (German) from pooled counts (``samsa.lexical.readability_de``)."""
    from samsa.lexical.readability_de import GermanCounts, german_counts, wstf_from_counts

    rows = np.array([list(vars(german_counts([s], splitter=splitter)).values()) for s in sys], dtype=np.float64)
    return CorpusStat(rows, lambda t: wstf_from_counts(GermanCounts(*(int(v) for v in t))))


def ld_sc_stat(orig: Sequence[str], sys: Sequence[str]) -> CorpusStat:
    """Mean character Levenshtein distance from output to source (normalized text)."""
    from samsa.lexical.edits import levenshtein

    return mean_stat([float(levenshtein(s, o)) for o, s in zip(orig, sys, strict=True)])


#: metrics whose bootstrap intervals ``samsa evaluate -ci`` can give (summable per-sentence statistics)
RESAMPLABLE = ("sari", "bleu", "fkgl", "ld_sc")


def suite_stats(
    orig: Sequence[str], sys: Sequence[str], refs: Sequence[Sequence[str]] | None, metrics: Sequence[str], config: Any
) -> dict[str, CorpusStat]:
    """Sufficient statistics of ``metrics`` (those in :data:`RESAMPLABLE`) under a
    :class:`samsa.lexical.suite.SuiteConfig`, normalized as ``samsa evaluate`` normalizes them. Only the settings
    these statistics reproduce are accepted (EASSE SARI with F1 deletion, not legacy; no pre-normalization; the
    pooled FKGL): the caller compares each ``value()`` with the printed score as well."""
    from samsa.normalize import normalize

    norm = {"lowercase": config.lowercase, "tokenizer": config.tokenizer, "unescape": config.unescape}
    n_orig = [normalize(x, **norm) for x in orig]
    n_sys = [normalize(x, **norm) for x in sys]
    n_refs = [[normalize(x, **norm) for x in rs] for rs in refs] if refs else None
    out: dict[str, CorpusStat] = {}
    for m in metrics:
        if m == "fkgl" and config.fkgl_variant == "easse":
            out[m] = fkgl_stat(sys, splitter=config.splitter)
        elif m == "ld_sc":
            out[m] = ld_sc_stat(n_orig, n_sys)
        elif m == "bleu" and n_refs:
            out[m] = bleu_stat(n_sys, n_refs)
        elif m == "sari" and n_refs and config.sari_variant == "easse" and config.sari_del_f1 and not config.legacy:
            out[m] = sari_stat(n_orig, n_sys, n_refs)
    return out
