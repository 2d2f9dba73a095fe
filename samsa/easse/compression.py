"""``easse.compression``: token-level F1 against the closest reference (sentence compression)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from samsa.normalize import normalize

__all__ = ["corpus_f1_token", "f1_token"]


def f1_token(sys_tokens: Sequence[str], ref_tokens: Sequence[str]) -> float:
    """F1 (0-1) of the multiset of output tokens against one reference's."""
    common = sum((Counter(sys_tokens) & Counter(ref_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(sys_tokens), common / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)


def corpus_f1_token(
    sys_sents: Sequence[str], refs_sents: Sequence[Sequence[str]], lowercase: bool = True, tokenizer: str = "13a"
) -> float:
    """Mean over sentences of the best token F1 over its references (0-100).

    As in EASSE, ``refs_sents[i]`` is the list of references of sentence ``i``.
    """
    scores = []
    for sys_sent, refs in zip(sys_sents, refs_sents, strict=True):
        out = normalize(sys_sent, lowercase=lowercase, tokenizer=tokenizer).split()
        scores.append(max(f1_token(out, normalize(r, lowercase=lowercase, tokenizer=tokenizer).split()) for r in refs))
    return 100.0 * sum(scores) / len(scores)
