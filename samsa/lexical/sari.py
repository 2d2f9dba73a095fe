"""SARI (Xu et al., TACL 2016) in every published variant, each named. More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from samsa.errors import InputError

__all__ = [
    "NGRAM_ORDER",
    "EasseStats",
    "SariComponents",
    "easse_from_stats",
    "easse_stats",
    "ngrams",
    "sentence_sari_xu",
    "xu_ngram_scores",
]

NGRAM_ORDER = 4

Tokens = Sequence[str]


@dataclass(frozen=True)
class SariComponents:
    """SARI and its three operation scores, on a 0-100 scale."""

    sari: float
    add: float
    keep: float
    delete: float

    @classmethod
    def from_unit(cls, add: float, keep: float, delete: float) -> SariComponents:
        """Build from 0-1 operation scores; SARI is their mean."""
        return cls(100.0 * (add + keep + delete) / 3, 100.0 * add, 100.0 * keep, 100.0 * delete)


def ngrams(tokens: Tokens, n: int) -> Counter[tuple[str, ...]]:
    """Counts of the contiguous n-grams of a token list."""
    return Counter(zip(*(tokens[i:] for i in range(n)), strict=False))


def _ref_ngrams(refs: Sequence[Tokens], n: int) -> Counter[tuple[str, ...]]:
    """n-gram counts summed over the references (one C-level counting pass)."""
    return Counter(g for ref in refs for g in zip(*(ref[i:] for i in range(n)), strict=False))


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p > 0 or r > 0 else 0.0


def xu_ngram_scores(
    src: Counter, sys: Counter, refs: Counter, num_refs: int, *, hf: bool = False
) -> tuple[float, float, float]:
    """(keep F1, delete precision, add F1) for one n-gram order, as Xu's ``SARIngram``.

    ``refs`` holds the n-gram counts summed over the sentence's references;
    source and system counts are multiplied by ``num_refs`` so that a reference
    count ``k`` acts as the fraction ``k / num_refs`` (the paper's R').
    ``hf=True`` applies the Hugging Face changes: 0/0 = 1 and KEEP recall as a
    ratio of summed counts. Only source n-grams can be kept or deleted, so one
    loop over them computes every KEEP and DELETE term.
    """
    zero = 1.0 if hf else 0.0
    n_keep = n_all = n_del = 0
    p_keep_sum = r_keep_sum = good_sum = all_sum = p_del_sum = 0.0
    for g, sc in src.items():
        s_rep = sc * num_refs
        c_rep = sys.get(g, 0) * num_refs
        ref = refs.get(g, 0)
        keep = min(s_rep, c_rep)
        keep_all = min(s_rep, ref)
        keep_good = min(keep, ref)
        if keep > 0:
            n_keep += 1
        if keep_all > 0:
            n_all += 1
            all_sum += keep_all
        if keep_good > 0:
            p_keep_sum += keep_good / keep
            r_keep_sum += keep_good / keep_all
            good_sum += keep_good
        deleted = s_rep - c_rep
        if deleted > 0:
            n_del += 1
            del_good = deleted - ref
            if del_good > 0:
                p_del_sum += del_good / deleted
    p_keep = p_keep_sum / n_keep if n_keep else zero
    if hf:
        r_keep = good_sum / all_sum if n_all else zero
    else:
        r_keep = r_keep_sum / n_all if n_all else zero
    p_del = p_del_sum / n_del if n_del else zero
    add = sys.keys() - src.keys()
    add_good = add & refs.keys()
    add_all = refs.keys() - src.keys()
    p_add = len(add_good) / len(add) if add else zero
    r_add = len(add_good) / len(add_all) if add_all else zero
    return _f1(p_keep, r_keep), p_del, _f1(p_add, r_add)


def sentence_sari_xu(src: Tokens, sys: Tokens, refs: Sequence[Tokens], *, hf: bool = False) -> SariComponents:
    """Sentence SARI of Xu's ``SARI.py`` (``hf=False``) or of Hugging Face ``evaluate`` (``hf=True``).

    Tokens are used as given (the variants' own lowercasing and splitting are
    applied by :func:`samsa.lexical.corpus_sari`).
    """
    if not refs:
        raise InputError(None, None, "SARI needs at least one reference")
    keep = dele = add = 0.0
    for n in range(1, NGRAM_ORDER + 1):
        k, d, a = xu_ngram_scores(ngrams(src, n), ngrams(sys, n), _ref_ngrams(refs, n), len(refs), hf=hf)
        keep, dele, add = keep + k, dele + d, add + a
    return SariComponents.from_unit(add / NGRAM_ORDER, keep / NGRAM_ORDER, dele / NGRAM_ORDER)


@dataclass(frozen=True)
class EasseStats:
    """Summable per-order SARI statistics (EASSE's ``compute_ngram_stats``).

    Each field is a tuple with one value per n-gram order 1-4. Statistics of a
    corpus are the element-wise sum of its sentences' statistics.
    """

    add_good: tuple[float, ...]
    add_sys: tuple[float, ...]
    add_ref: tuple[float, ...]
    keep_good: tuple[float, ...]
    keep_sys: tuple[float, ...]
    keep_ref: tuple[float, ...]
    del_good: tuple[float, ...]
    del_sys: tuple[float, ...]
    del_ref: tuple[float, ...]

    def __add__(self, other: EasseStats) -> EasseStats:
        return EasseStats(
            *(tuple(a + b for a, b in zip(x, y, strict=True)) for x, y in zip(self.rows(), other.rows(), strict=True))
        )

    def rows(self) -> list[tuple[float, ...]]:
        return [getattr(self, f) for f in self.__dataclass_fields__]

    @classmethod
    def zero(cls) -> EasseStats:
        return cls(*((0.0,) * NGRAM_ORDER for _ in range(9)))


def easse_stats(src: Tokens, sys: Tokens, refs: Sequence[Tokens]) -> EasseStats:
    """SARI statistics of one sentence, EASSE style (binary ADD, count-weighted KEEP/DELETE)."""
    if not refs:
        raise InputError(None, None, "SARI needs at least one reference")
    r = len(refs)
    rows: list[list[float]] = [[] for _ in range(9)]
    for n in range(1, NGRAM_ORDER + 1):
        s, c = ngrams(src, n), ngrams(sys, n)
        ref_counts = _ref_ngrams(refs, n)
        added = c.keys() - s.keys()
        keep_good = keep_sys = keep_ref = del_good = del_sys = del_ref = 0
        for g, sc in s.items():  # only source n-grams are kept or deleted
            s_rep, c_rep, ref = sc * r, c.get(g, 0) * r, ref_counts.get(g, 0)
            kept_sys = s_rep if s_rep < c_rep else c_rep
            kept_ref = s_rep if s_rep < ref else ref
            keep_sys += kept_sys
            keep_ref += kept_ref
            keep_good += kept_sys if kept_sys < kept_ref else kept_ref
            d_sys = s_rep - c_rep if s_rep > c_rep else 0
            d_ref = s_rep - ref if s_rep > ref else 0
            del_sys += d_sys
            del_ref += d_ref
            del_good += d_sys if d_sys < d_ref else d_ref
        values = (
            len(added & ref_counts.keys()),
            len(added),
            len(ref_counts.keys() - s.keys()),
            keep_good,
            keep_sys,
            keep_ref,
            del_good,
            del_sys,
            del_ref,
        )
        for row, v in zip(rows, values, strict=True):
            row.append(float(v))
    return EasseStats(*(tuple(row) for row in rows))


def _pr(good: float, sys_total: float, ref_total: float) -> tuple[float, float]:
    return (good / sys_total if sys_total > 0 else 0.0), (good / ref_total if ref_total > 0 else 0.0)


def easse_from_stats(stats: EasseStats, *, del_f1: bool = True, paper_averaging: bool = False) -> SariComponents:
    """SARI from summed statistics: EASSE's macro (default) or micro (paper) averaging."""
    per_order = []
    for n in range(NGRAM_ORDER):
        add = _pr(stats.add_good[n], stats.add_sys[n], stats.add_ref[n])
        keep = _pr(stats.keep_good[n], stats.keep_sys[n], stats.keep_ref[n])
        dele = _pr(stats.del_good[n], stats.del_sys[n], stats.del_ref[n])
        per_order.append((add, keep, dele))
    if paper_averaging:
        mean = [
            [sum(o[op][k] for o in per_order) / NGRAM_ORDER for k in (0, 1)] for op in range(3)
        ]  # [op][precision/recall]
        add_s, keep_s = _f1(*mean[0]), _f1(*mean[1])
        del_s = _f1(*mean[2]) if del_f1 else mean[2][0]
        return SariComponents.from_unit(add_s, keep_s, del_s)
    add_s = sum(_f1(*o[0]) for o in per_order) / NGRAM_ORDER
    keep_s = sum(_f1(*o[1]) for o in per_order) / NGRAM_ORDER
    del_s = sum((_f1(*o[2]) if del_f1 else o[2][0]) for o in per_order) / NGRAM_ORDER
    return SariComponents.from_unit(add_s, keep_s, del_s)
