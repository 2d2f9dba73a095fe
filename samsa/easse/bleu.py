"""``easse.bleu``: corpus and sentence BLEU through sacrebleu, EASSE's names and defaults."""

from __future__ import annotations

from collections.abc import Sequence

from samsa import lexical

__all__ = ["corpus_averaged_sentence_bleu", "corpus_bleu", "corpus_macro_sentence_bleu", "sentence_bleu"]


def corpus_bleu(
    sys_sents: Sequence[str],
    refs_sents: Sequence[Sequence[str]],
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    force: bool = True,
    lowercase: bool = False,
    tokenizer: str = "13a",
    use_effective_order: bool = False,
) -> float:
    """Corpus BLEU (0-100); ``force`` is accepted for compatibility (inputs are always tokenized first)."""
    return lexical.corpus_bleu(
        sys_sents,
        refs_sents,
        lowercase=lowercase,
        tokenizer=tokenizer,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=use_effective_order,
    )


def sentence_bleu(
    sys_sent: str,
    ref_sents: Sequence[str],
    smooth_method: str = "floor",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenizer: str = "13a",
    use_effective_order: bool = True,
) -> float:
    """Sentence BLEU (0-100) with EASSE's defaults (floor smoothing, effective order)."""
    return lexical.sentence_bleu(
        sys_sent,
        ref_sents,
        lowercase=lowercase,
        tokenizer=tokenizer,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=use_effective_order,
    )


def corpus_averaged_sentence_bleu(
    sys_sents: Sequence[str],
    refs_sents: Sequence[Sequence[str]],
    smooth_method: str = "floor",
    smooth_value: float | None = None,
    lowercase: bool = False,
    tokenizer: str = "13a",
    use_effective_order: bool = True,
) -> float:
    """Mean of sentence BLEU over the corpus (references as streams), as EASSE's macro-averaged BLEU."""
    per_sentence = lexical.per_sentence_refs(refs_sents, len(sys_sents))
    scores = [
        sentence_bleu(s, rs, smooth_method, smooth_value, lowercase, tokenizer, use_effective_order)
        for s, rs in zip(sys_sents, per_sentence, strict=True)
    ]
    return sum(scores) / len(scores)


#: EASSE's older name of the same function
corpus_macro_sentence_bleu = corpus_averaged_sentence_bleu
