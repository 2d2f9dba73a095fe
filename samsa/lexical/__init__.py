"""Lexical metrics reported beside SAMSA, with EASSE-compatible names and signatures. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Sequence

from samsa.errors import ConfigError, InputError
from samsa.lexical import bleu as _bleu
from samsa.lexical.edits import SplitStats, compression_ratio, mean_ld, split_stats
from samsa.lexical.readability import corpus_fkgl, fkbleu, sentence_fk_xu
from samsa.lexical.sari import (
    EasseStats,
    SariComponents,
    easse_from_stats,
    easse_stats,
    sentence_sari_xu,
)
from samsa.normalize import normalize

__all__ = [
    "SARI_VARIANTS",
    "SariComponents",
    "SplitStats",
    "compression_ratio",
    "corpus_bleu",
    "corpus_fkbleu",
    "corpus_fkgl",
    "corpus_ibleu",
    "corpus_sari",
    "ld_sc",
    "ld_sr",
    "normalize",
    "per_sentence_refs",
    "ref_streams",
    "sari_components",
    "sentence_bleu",
    "sentence_sari",
    "split_stats",
]

SARI_VARIANTS = ("xu2016", "easse", "hf")

Refs = Sequence[Sequence[str | None]]


def per_sentence_refs(
    refs: Refs, n_sentences: int, layout: str = "streams", *, names: Sequence[str] | None = None
) -> list[list[str]]:
    """References as one list per sentence, whatever the input layout; missing ones dropped.

    ``names`` (streams layout: the file of each stream) makes errors name the file and line.
    """
    if layout == "sentences":
        out = [[r for r in rs if r] for rs in refs]
        if len(out) != n_sentences:
            raise InputError(None, None, f"{len(out)} reference lists for {n_sentences} sentences")
    elif layout == "streams":
        for k, stream in enumerate(refs):
            if len(stream) != n_sentences:
                if names:
                    line = min(len(stream), n_sentences) + 1
                    raise InputError(names[k], line, f"has {len(stream)} lines for {n_sentences} sources")
                raise InputError(
                    None, None, f"reference stream {k} has {len(stream)} sentences, expected {n_sentences}"
                )
        out = [[stream[i] for stream in refs if stream[i]] for i in range(n_sentences)]  # type: ignore[misc]
    else:
        raise ConfigError(f"unknown references layout {layout!r}; choose streams or sentences")
    missing = [i for i, rs in enumerate(out) if not rs]
    if missing and names:
        raise InputError(names[0], missing[0] + 1, "no reference for this line in any reference file")
    if missing:
        raise InputError(None, None, f"sentence {missing[0] + 1} has no reference")
    return out


def ref_streams(per_sentence: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """Per-sentence references -> streams padded with ``None`` (for sacrebleu)."""
    width = max(len(rs) for rs in per_sentence)
    return [[rs[k] if k < len(rs) else None for rs in per_sentence] for k in range(width)]


def _variant_defaults(variant: str, lowercase: bool | None, tokenizer: str | None) -> tuple[bool, str]:
    if variant not in SARI_VARIANTS:
        raise ConfigError(f"unknown SARI variant {variant!r}; choose from {', '.join(SARI_VARIANTS)}")
    default_tok = "none" if variant == "xu2016" else "13a"
    return (True if lowercase is None else lowercase), (tokenizer or default_tok)


def sari_components(
    orig_sents: Sequence[str],
    sys_sents: Sequence[str],
    refs_sents: Refs,
    *,
    variant: str = "easse",
    lowercase: bool | None = None,
    tokenizer: str | None = None,
    unescape: bool = False,
    legacy: bool = False,
    use_f1_for_deletion: bool = True,
    use_paper_version: bool = False,
    refs_layout: str = "streams",
) -> SariComponents:
    """Corpus SARI with its add/keep/delete components (0-100), in the chosen variant.

    Defaults per variant: ``xu2016`` lowercases and splits on single spaces
    (tokenizer ``none``); ``hf`` and ``easse`` lowercase and use 13a.
    ``legacy`` (EASSE) leaves the source untouched and does not lowercase, for
    the tokenized lowercased TurkCorpus files. ``use_f1_for_deletion`` and
    ``use_paper_version`` only apply to ``easse``.
    """
    if len(orig_sents) != len(sys_sents):
        raise InputError(None, None, f"{len(orig_sents)} sources but {len(sys_sents)} system sentences")
    lc, tok = _variant_defaults(variant, lowercase, tokenizer)
    refs = per_sentence_refs(refs_sents, len(sys_sents), refs_layout)
    if variant == "easse" and legacy:
        lc = False

    def norm(s: str) -> str:
        return normalize(s, lowercase=lc, tokenizer=tok, unescape=unescape)

    src = [s if (variant == "easse" and legacy) else norm(s) for s in orig_sents]
    out = [norm(s) for s in sys_sents]
    rs = [[norm(r) for r in rr] for rr in refs]
    if variant == "easse":
        stats = EasseStats.zero()
        for s, o, r in zip(src, out, rs, strict=True):
            stats = stats + easse_stats(s.split(), o.split(), [x.split() for x in r])
        return easse_from_stats(stats, del_f1=use_f1_for_deletion, paper_averaging=use_paper_version)
    scores = [
        sentence_sari_xu(s.split(" "), o.split(" "), [x.split(" ") for x in r], hf=variant == "hf")
        for s, o, r in zip(src, out, rs, strict=True)
    ]
    n = len(scores)
    return SariComponents(
        sum(x.sari for x in scores) / n,
        sum(x.add for x in scores) / n,
        sum(x.keep for x in scores) / n,
        sum(x.delete for x in scores) / n,
    )


def corpus_sari(orig_sents: Sequence[str], sys_sents: Sequence[str], refs_sents: Refs, **options: object) -> float:
    """Corpus SARI (0-100); ``variant`` selects xu2016 / easse / hf (see :func:`sari_components`)."""
    return sari_components(orig_sents, sys_sents, refs_sents, **options).sari  # type: ignore[arg-type]


def sentence_sari(orig_sent: str, sys_sent: str, ref_sents: Sequence[str], **options: object) -> float:
    """SARI of one sentence (0-100); default variant ``xu2016`` (Xu's released sentence score)."""
    options.setdefault("variant", "xu2016")
    return corpus_sari([orig_sent], [sys_sent], [list(ref_sents)], refs_layout="sentences", **options)


def _norm_all(sents: Sequence[str], lowercase: bool, tokenizer: str, unescape: bool) -> list[str]:
    return [normalize(s, lowercase=lowercase, tokenizer=tokenizer, unescape=unescape) for s in sents]


def _normalized_streams(
    refs_sents: Refs, n: int, layout: str, lowercase: bool, tokenizer: str, unescape: bool
) -> list[list[str | None]]:
    """References of either layout as sacrebleu streams (``None`` = missing), normalized."""
    return [
        [None if r is None else normalize(r, lowercase=lowercase, tokenizer=tokenizer, unescape=unescape) for r in s]
        for s in ref_streams(per_sentence_refs(refs_sents, n, layout))
    ]


def corpus_bleu(
    sys_sents: Sequence[str],
    refs_sents: Refs,
    *,
    lowercase: bool = False,
    tokenizer: str = "13a",
    unescape: bool = False,
    refs_layout: str = "streams",
    **bleu_options: object,
) -> float:
    """Corpus BLEU (0-100) through sacrebleu, EASSE's signature and defaults."""
    streams = _normalized_streams(refs_sents, len(sys_sents), refs_layout, lowercase, tokenizer, unescape)
    return _bleu.corpus_bleu(_norm_all(sys_sents, lowercase, tokenizer, unescape), streams, **bleu_options).score  # type: ignore[arg-type]


def sentence_bleu(
    sys_sent: str, ref_sents: Sequence[str], *, lowercase: bool = False, tokenizer: str = "13a", **options: object
) -> float:
    """Sentence BLEU with floor smoothing and effective order (EASSE's defaults)."""
    refs = _norm_all(ref_sents, lowercase, tokenizer, False)
    return _bleu.sentence_bleu(normalize(sys_sent, lowercase=lowercase, tokenizer=tokenizer), refs, **options).score  # type: ignore[arg-type]


def corpus_ibleu(
    orig_sents: Sequence[str],
    sys_sents: Sequence[str],
    refs_sents: Refs,
    *,
    alpha: float = _bleu.IBLEU_ALPHA,
    lowercase: bool = False,
    tokenizer: str = "13a",
    unescape: bool = False,
    refs_layout: str = "streams",
) -> float:
    """iBLEU (0-100) = alpha * BLEU(O, R) - (1 - alpha) * BLEU(O, I), same normalization on both terms."""
    streams = _normalized_streams(refs_sents, len(sys_sents), refs_layout, lowercase, tokenizer, unescape)
    return _bleu.corpus_ibleu(
        _norm_all(orig_sents, lowercase, tokenizer, unescape),
        _norm_all(sys_sents, lowercase, tokenizer, unescape),
        streams,
        alpha=alpha,
    )


def corpus_fkbleu(
    orig_sents: Sequence[str],
    sys_sents: Sequence[str],
    refs_sents: Refs,
    *,
    form: str = "geometric",
    sign: str = "printed",
    lowercase: bool = False,
    tokenizer: str = "13a",
    unescape: bool = False,
    refs_layout: str = "streams",
) -> float:
    """Corpus FKBLEU (0-100): corpus iBLEU and the mean of Xu's sentence FK of inputs and outputs."""
    ib = corpus_ibleu(
        orig_sents,
        sys_sents,
        refs_sents,
        lowercase=lowercase,
        tokenizer=tokenizer,
        unescape=unescape,
        refs_layout=refs_layout,
    )
    fk_in = [sentence_fk_xu(s.split()) for s in _norm_all(orig_sents, lowercase, tokenizer, unescape)]
    fk_out = [sentence_fk_xu(s.split()) for s in _norm_all(sys_sents, lowercase, tokenizer, unescape)]
    n = len(fk_in)
    return 100.0 * fkbleu(ib / 100.0, sum(fk_in) / n, sum(fk_out) / n, form=form, sign=sign)


def ld_sc(orig_sents: Sequence[str], sys_sents: Sequence[str], **norm: object) -> float:
    """Mean character Levenshtein distance from output to source (LD_SC; papers report its negative)."""
    o = [normalize(s, **norm) for s in orig_sents]  # type: ignore[arg-type]
    s = [normalize(x, **norm) for x in sys_sents]  # type: ignore[arg-type]
    return mean_ld(s, [[x] for x in o])


def ld_sr(sys_sents: Sequence[str], refs_sents: Refs, *, refs_layout: str = "streams", **norm: object) -> float:
    """Mean character Levenshtein distance from output to its closest reference (LD_SR)."""
    refs = per_sentence_refs(refs_sents, len(sys_sents), refs_layout)
    s = [normalize(x, **norm) for x in sys_sents]  # type: ignore[arg-type]
    return mean_ld(s, [[normalize(r, **norm) for r in rr] for rr in refs])  # type: ignore[arg-type]
