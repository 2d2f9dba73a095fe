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
        free: dict[str | None, list[int]] = {}
        for j in range(len(target) - 1, -1, -1):  # reversed so pop() yields the leftmost
            form = _form(target[j])
            if form is not None:
                free.setdefault(form, []).append(j)
        pairs: Alignment = []
        for i, tok in enumerate(source):
            slots = free.get(_form(tok))  # None (never aligned) is not a key
            if slots:
                pairs.append((i, slots.pop()))
        return pairs

    def signature(self) -> str:
        return self.name


def make() -> ExactAligner:
    """Registry factory."""
    return ExactAligner()
