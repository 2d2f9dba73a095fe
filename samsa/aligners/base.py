"""The aligner interface: source tokens x target tokens -> pairs of positions.

SAMSA needs only one thing from a monolingual aligner: which source tokens have
a counterpart in an output sentence. Positions (not strings) keep repeated
words apart; the EASSE compatibility mode turns them back into strings itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Aligner", "Alignment", "align_many"]

#: 0-based (source index, target index) pairs, sorted by source index.
Alignment = list[tuple[int, int]]


@runtime_checkable
class Aligner(Protocol):
    """A monolingual word aligner.

    Attributes
    ----------
    name
        Registry name including a version suffix, e.g. ``"exact.v1"``.
    """

    name: str

    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """Align two token lists; each token appears in at most one pair unless documented."""
        ...

    def signature(self) -> str:
        """Short description of every option that changes the output, e.g. ``exact.v1``."""
        ...


def align_many(aligner: Aligner, pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> list[Alignment]:
    """Align many pairs, using the aligner's own batch method when it has one."""
    batch = getattr(aligner, "align_batch", None)
    if batch is not None:
        return list(batch(list(pairs)))
    return [aligner.align(s, t) for s, t in pairs]
