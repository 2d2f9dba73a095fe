"""The ``exact`` aligner: case-insensitive identical tokens, one-to-one, left to right."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from samsa.aligners.base import Alignment

__all__ = ["ExactAligner", "alignable"]


def alignable(token: str) -> bool:
    """Only tokens with a letter or a digit are aligned (punctuation never is)."""
    return token.isalnum() or any(ch.isalnum() for ch in token)  # the first test settles most tokens


@lru_cache(maxsize=1 << 16)
def _form(token: str) -> str | None:
    """The form a token is matched by (lowercased), or None for a token never aligned. Memoized: SAMSA aligns
    each scene with each output sentence, so the same tokens come back many times (a pure function of the
    token, so the memo cannot change a result)."""
    return token.lower() if alignable(token) else None


@lru_cache(maxsize=1 << 12)
def _positions(target: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    """Each form of a target sentence and its positions, left to right. Memoized: a sentence is aligned with every
    Scene of its source (a pure function of the tokens)."""
    out: dict[str, list[int]] = {}
    for j, tok in enumerate(target):
        form = _form(tok)
        if form is not None:
            out.setdefault(form, []).append(j)
    return {form: tuple(js) for form, js in out.items()}


class ExactAligner:
    """Each source token, left to right, takes the leftmost unused target token
    with the same lowercased form.

    This is the "simple match between identical words" the SAMSA paper suggests
    for purely structural systems (section 5.1). It is deterministic and fast.

    >>> ExactAligner().align(["John", "saw", "John", "."], ["john", "left", ".", "John"])
    [(0, 0), (2, 3)]
    """

    name = "exact.v1"

    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        index = _positions(tuple(target))
        taken: dict[str, int] = {}  # per form, how many of its target positions are used (leftmost first)
        pairs: Alignment = []
        for i, tok in enumerate(source):
            form = _form(tok)
            if form is None:  # never aligned
                continue
            slots = index.get(form, ())
            k = taken.get(form, 0)
            if k < len(slots):
                pairs.append((i, slots[k]))
                taken[form] = k + 1
        return pairs

    def signature(self) -> str:
        return self.name


def make() -> ExactAligner:
    """Registry factory."""
    return ExactAligner()
