"""BLEU through sacrebleu (never re-implemented) and iBLEU on top of it.

Inputs are normalized by :func:`samsa.normalize.normalize` first and
handed to sacrebleu with ``tokenize="none"``, so every metric in the suite sees
the same tokens; this equals sacrebleu's own tokenization (EASSE does the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["IBLEU_ALPHA", "BleuResult", "corpus_bleu", "corpus_ibleu", "sentence_bleu"]

IBLEU_ALPHA = 0.9


@dataclass(frozen=True)
class BleuResult:
    score: float
    signature: str


def _bleu(smooth_method: str, smooth_value: float | None, effective_order: bool):
    from sacrebleu.metrics import BLEU

    return BLEU(
        lowercase=False,
        tokenize="none",
        force=True,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


def corpus_bleu(
    sys_sents: Sequence[str],
    ref_streams: Sequence[Sequence[str | None]],
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> BleuResult:
    """Corpus BLEU (0-100) of normalized sentences; ``ref_streams[k][i]`` is reference k of sentence i.

    ``None`` or ``""`` in a stream means sentence ``i`` has fewer references.
    """
    bleu = _bleu(smooth_method, smooth_value, effective_order)
    refs = [[r if r is not None else "" for r in stream] for stream in ref_streams]
    score = bleu.corpus_score(list(sys_sents), refs)
    return BleuResult(score.score, str(bleu.get_signature()))


def sentence_bleu(
    sys_sent: str,
    refs: Sequence[str],
    *,
    smooth_method: str = "floor",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> BleuResult:
    """Sentence BLEU with EASSE's defaults (floor smoothing 0.1, effective order)."""
    bleu = _bleu(smooth_method, smooth_value, effective_order)
    score = bleu.sentence_score(sys_sent, list(refs))
    return BleuResult(score.score, str(bleu.get_signature()))


def corpus_ibleu(
    orig_sents: Sequence[str],
    sys_sents: Sequence[str],
    ref_streams: Sequence[Sequence[str | None]],
    *,
    alpha: float = IBLEU_ALPHA,
    **bleu_options: object,
) -> float:
    """iBLEU = alpha * BLEU(O, R) - (1 - alpha) * BLEU(O, I) (Sun & Zhou 2012; Xu et al. 2016 eq. 1), 0-100.

    Both BLEU terms use the same (already applied) normalization and options.
    """
    adequacy = corpus_bleu(sys_sents, ref_streams, **bleu_options).score  # type: ignore[arg-type]
    copying = corpus_bleu(sys_sents, [list(orig_sents)], **bleu_options).score  # type: ignore[arg-type]
    return alpha * adequacy - (1 - alpha) * copying
