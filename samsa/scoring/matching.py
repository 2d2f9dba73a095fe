"""Which output sentence each Scene is scored against: the one its words align with most (section 4.1), as
both modes read it; each mode passes its rules (pure over words, sentences and an aligner; no graphs)."""

from __future__ import annotations

from collections.abc import Sequence

from samsa.aligners.base import Aligner

__all__ = ["Match", "match_scenes"]

#: a Scene's sentence (None: none) and the (scene word, sentence word) index pairs aligned into it
Match = tuple[int | None, list[tuple[int, int]]]


def match_scenes(
    scene_words: Sequence[Sequence[str]],
    sentences: Sequence[Sequence[str]],
    aligner: Aligner,
    *,
    exclusive: bool,
    take_unaligned: bool,
    distinct: bool,
) -> list[Match]:
    """Each Scene (its words, in order) matched to the sentence with the most aligned words, the earliest on a
    tie, each Scene aligned with each sentence on its own.

    ``exclusive``: a sentence a Scene took is not offered to the later ones (paper: when there are as many
    sentences as Scenes; EASSE: when there are not more Scenes than sentences). ``take_unaligned``: a Scene
    that aligns with no sentence still takes the first one offered (paper: the ``argmax``) rather than none
    (EASSE), and uses it up. ``distinct``: count the Scene's aligned words (paper) rather than the aligned
    pairs (EASSE).

    >>> from samsa.aligners.exact import ExactAligner
    >>> a = ExactAligner()
    >>> match_scenes([["a", "b"], ["c"]], [["c"], ["a", "b"]], a, exclusive=True, take_unaligned=True, distinct=True)
    [(1, [(0, 0), (1, 1)]), (0, [(0, 0)])]
    >>> match_scenes([["x"]], [["c"]], a, exclusive=True, take_unaligned=False, distinct=False)
    [(None, [])]
    """
    used: set[int] = set()
    out: list[Match] = []
    for words in scene_words:
        best_j: int | None = None
        best: list[tuple[int, int]] = []
        best_n = -1 if take_unaligned else 0
        for j, sent in enumerate(sentences):
            if exclusive and j in used:
                continue
            pairs = list(aligner.align(list(words), sent))
            n = len({i for i, _ in pairs}) if distinct else len(pairs)
            if n > best_n:  # strict: ties go to the earliest sentence
                best_n, best_j, best = n, j, pairs
        if exclusive and best_j is not None:
            used.add(best_j)
        out.append((best_j, best))
    return out
