"""The SAMSA formula as pure functions over per-scene scores (no graphs, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from samsa.errors import InputError

__all__ = ["corpus_mean", "samsa_from_scene_scores", "scene_score"]


def scene_score(main_relation: float, participants: Sequence[float]) -> float:
    """Score of one scene: ``0.5 * MR + 0.5 * mean(participants)``.

    Notes
    -----
    The paper's sum ``1/k * sum_j 1(Par_j)`` is undefined for a scene without
    participants; the released scripts (and EASSE) use ``[0.5]`` then, so do we.
    The arithmetic order ``0.5 * (1 / k) * sum`` is EASSE's, kept so that
    ``compat="easse"`` agrees bit for bit.
    """
    parts = list(participants) or [0.5]
    return 0.5 * main_relation + 0.5 * (1 / len(parts)) * sum(parts)


def samsa_from_scene_scores(scene_scores: Sequence[float], n_sentences: int) -> tuple[float, float]:
    """SAMSA and SAMSA-abl on a 0-100 scale from the scores of a sentence's scenes.

    SAMSA = n_out / n_inp * 1 / n_inp * sum_i score_i (Sulem et al. 2018, section 4.2);
    SAMSA-abl drops the non-splitting penalty n_out / n_inp. Both are 0 when
    the source has no scene or the output has more sentences than the source has
    scenes (section 4.1, case 2).

    >>> samsa_from_scene_scores([1.0, 0.5], 2)
    (75.0, 75.0)
    >>> samsa_from_scene_scores([1.0, 1.0], 1)
    (50.0, 100.0)
    """
    n = len(scene_scores)
    if n == 0 or n_sentences > n:
        return 0.0, 0.0
    total = sum(scene_scores)
    return 100.0 * ((n_sentences / (n**2)) * total), 100.0 * (total / n)


def corpus_mean(sentence_scores: Sequence[float]) -> float:
    """Corpus-level SAMSA: the mean of sentence scores (paper section 4.2; EASSE agrees).

    Computed with ``numpy.mean`` (pairwise summation), as EASSE does, so corpus
    numbers agree to the last bit.
    """
    if len(sentence_scores) == 0:
        raise InputError(None, None, "corpus score of an empty corpus")
    return float(np.mean(np.asarray(sentence_scores, dtype=np.float64)))
