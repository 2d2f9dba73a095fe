"""The ``lemma`` aligner: the exact aligner, then identical spaCy lemmas, still one-to-one."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from samsa.aligners.annotate import Annotator
from samsa.aligners.base import Alignment
from samsa.aligners.exact import ExactAligner, alignable

__all__ = ["LemmaAligner", "make"]


class LemmaAligner:
    """Pass 1: :class:`~samsa.aligners.exact.ExactAligner`. Pass 2: each still unaligned source
    token, left to right, takes the leftmost unused target token with the same
    lower-cased lemma ("died" ~ "dies", "men" ~ "man"). Tokens are the caller's;
    spaCy only annotates them (cached per sentence)."""

    name = "lemma.v1"

    def __init__(self, *, model: str | None = None, annotator: Annotator | None = None) -> None:
        self.annotator = annotator or Annotator(model)
        self._exact = ExactAligner()

    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        pairs = self._exact.align(source, target)
        used_s = {i for i, _ in pairs}
        used_t = {j for _, j in pairs}
        s, t = self.annotator.annotate_many([source, target])
        free: dict[str, list[int]] = defaultdict(list)
        for j in range(len(target) - 1, -1, -1):
            if j not in used_t and alignable(target[j]):
                free[t.lemmas[j + 1].lower()].append(j)
        for i, tok in enumerate(source):
            if i in used_s or not alignable(tok):
                continue
            slots = free.get(s.lemmas[i + 1].lower())
            if slots:
                pairs.append((i, slots.pop()))
        return sorted(pairs)

    def prepare(self, sentences: Sequence[Sequence[str]]) -> None:
        """Annotate many token lists in one spaCy batch (later alignments hit the cache)."""
        self.annotator.annotate_many(sentences)

    def align_batch(self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[Alignment]:
        self.annotator.annotate_many([x for p in pairs for x in p])
        return [self.align(s, t) for s, t in pairs]

    def signature(self) -> str:
        return self.name


def make(*, model: str | None = None) -> LemmaAligner:
    """Registry factory."""
    return LemmaAligner(model=model)
