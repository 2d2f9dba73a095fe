"""How SAMSA agrees with human judgments of structural simplicity, on the ACL-2018 benchmark.

Sulem, Abend & Rappoport (ACL 2018) had 3 annotators rate the outputs of 28 systems (the source itself and
the Simple Wikipedia reference among them) for the first 70 sentences of the TurkCorpus test set; their
fourth question is **structural simplicity** (StS, -2..2). SAMSA exists for outputs that split, so the
headline figure is the Pearson correlation of per-output SAMSA with the annotators' mean StS over the
outputs with more than one sentence; beside it the same over all outputs, and the Spearman correlation of
the 28 systems' means. Each comes with a bootstrap interval over the 70 sources (a source drawn brings all
its outputs), seeded, so the same scores give the same interval.

Everything here but :func:`acl2018_items` (which reads the released files) is a pure function of numbers;
``benchmarks/validity.py`` scores the items with each parser.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "RATED_SOURCES",
    "Agreement",
    "RatedOutput",
    "acl2018_items",
    "agreement",
    "human_items",
    "pearson",
    "spearman",
]

#: the benchmark rates the outputs of the first 70 TurkCorpus test sentences
RATED_SOURCES = 70
#: the source sentences as the ACL-2018 systems read them (truecased, detokenized), under the data root
SOURCES = "easse/test_sets/turkcorpus/test.truecase.detok.orig"
RATINGS = "acl2018/Human_evaluation_benchmark_acl2018.ods"


@dataclass(frozen=True)
class RatedOutput:
    """One rated output: its system, its source (0-based), its number of sentences as the metric splits it,
    the annotators' mean structural simplicity, and its SAMSA."""

    system: str
    source: int
    sentences: int
    human: float
    samsa: float


@dataclass(frozen=True)
class Agreement:
    """A correlation, the number of items it is computed over, and its bootstrap interval (None where a
    resample left a side constant too often to give one)."""

    r: float
    n: int
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, float | int | None]:
        def rounded(x: float | None) -> float | None:
            return None if x is None or math.isnan(x) else round(x, 4)

        return {"r": rounded(self.r), "n": self.n, "ci_low": rounded(self.low), "ci_high": rounded(self.high)}


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (NaN when either side is constant or there are fewer than 2 items).

    >>> pearson([1, 2, 3, 4], [1, 3, 2, 4])
    0.8
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < 2:
        return math.nan
    a, b = a - a.mean(), b - b.mean()
    denominator = math.sqrt(float(a @ a) * float(b @ b))
    return math.nan if denominator == 0 else round(float(a @ b) / denominator, 12)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho: Pearson's r of the ranks, ties sharing their mean rank.

    >>> spearman([10, 20, 30, 40], [1, 3, 2, 4]), spearman([1, 1, 2], [3, 3, 5])
    (0.8, 1.0)
    """
    return pearson(_ranks(x), _ranks(y))


def _ranks(x: Sequence[float]) -> list[float]:
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(x)), key=lambda k: x[k])
    ranks = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in order[i : j + 1]:
            ranks[k] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _split_outputs(items: Sequence[RatedOutput]) -> float:
    kept = [it for it in items if it.sentences > 1]
    return pearson([it.samsa for it in kept], [it.human for it in kept])


def _all_outputs(items: Sequence[RatedOutput]) -> float:
    return pearson([it.samsa for it in items], [it.human for it in items])


def _systems(items: Sequence[RatedOutput]) -> float:
    """Spearman's rho of the systems' mean SAMSA and mean human score (each system's outputs as drawn)."""
    by: dict[str, tuple[list[float], list[float]]] = {}
    for it in items:
        metric, human = by.setdefault(it.system, ([], []))
        metric.append(it.samsa)
        human.append(it.human)
    return spearman([float(np.mean(m)) for m, _ in by.values()], [float(np.mean(h)) for _, h in by.values()])


def agreement(
    items: Sequence[RatedOutput], *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> dict[str, Agreement]:
    """``split_outputs`` (Pearson over the outputs with more than one sentence), ``all_outputs`` (Pearson over
    all) and ``systems`` (Spearman of the system means), each with a percentile bootstrap interval over
    sources: ``resamples`` draws of as many sources as there are, with replacement, from a seeded generator.

    >>> items = [RatedOutput("a", k, 2, h, s) for k, (h, s) in enumerate([(1, 10), (2, 30), (3, 20), (4, 40)])]
    >>> result = agreement(items, resamples=0)
    >>> result["split_outputs"].r, result["split_outputs"].n, result["split_outputs"].low
    (0.8, 4, None)
    """
    sources = sorted({it.source for it in items})
    by_source: dict[int, list[RatedOutput]] = {}
    for it in items:
        by_source.setdefault(it.source, []).append(it)
    statistics: dict[str, tuple[Callable[[Sequence[RatedOutput]], float], int]] = {
        "split_outputs": (_split_outputs, sum(it.sentences > 1 for it in items)),
        "all_outputs": (_all_outputs, len(items)),
        "systems": (_systems, len({it.system for it in items})),
    }
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, len(sources), len(sources)) for _ in range(resamples)]
    samples = [[it for k in draw for it in by_source[sources[k]]] for draw in draws]
    out = {}
    for name, (statistic, n) in statistics.items():
        values = [v for v in (statistic(s) for s in samples) if not math.isnan(v)]
        low = high = None
        if resamples and len(values) >= 0.9 * resamples:  # an interval only where nearly every draw gave a value
            tail = (1 - confidence) / 2 * 100
            low, high = (float(v) for v in np.percentile(values, [tail, 100 - tail]))
        out[name] = Agreement(statistic(items), n, low, high)
    return out


def acl2018_items(
    data: str | Path, first: int = RATED_SOURCES
) -> tuple[list[str], dict[str, list[str]], dict[tuple[str, int], float]]:
    """The benchmark as released under the data root: the ``first`` source sentences (text), each system's
    output lines for them (Moses escapes undone, clitics rejoined, lowercased: ``table2_normalize``), and the
    annotators' mean structural simplicity by (system, 0-based source). Reading the ratings needs the
    ``human`` extra (pandas, odfpy)."""
    from samsa.fileio import read_lines
    from samsa.studies.human import ACL2018_SYSTEM_FILES, load_acl2018_ratings, sentence_scores
    from samsa.studies.reproduce import table2_normalize

    root = Path(data)
    sources = read_lines(root / SOURCES)[:first]
    outputs = {
        system: [table2_normalize(x) for x in read_lines(root / rel, max_tokens=None)[:first]]
        for system, rel in ACL2018_SYSTEM_FILES.items()
    }
    frame = sentence_scores(load_acl2018_ratings(root / RATINGS), ("StS",))
    human = {(str(r.system), int(r.sentence) - 1): float(r.StS) for r in frame.itertuples() if r.sentence <= first}
    return sources, outputs, human


def human_items(
    graphs: Sequence[Any], outputs: Mapping[str, Sequence[str]], ratings: Mapping[tuple[str, int], float]
) -> list[RatedOutput]:
    """Every rated output scored against its source's graph (``graphs``, one per source): paper mode, exact
    aligner, the outputs' own tokens (``tokenizer="none"``), split by the rule-based splitter."""
    from samsa.scoring.metric import Samsa
    from samsa.scoring.paper import paper_structure

    metric = Samsa(tokenizer="none")
    structures = [paper_structure(g) for g in graphs]
    items = []
    for system, lines in outputs.items():
        for k, (g, line) in enumerate(zip(graphs, lines, strict=True)):
            if (system, k) not in ratings:
                continue
            sentences = metric.split(line)
            result = metric.score_graph(g, sentences, structure=structures[k])
            items.append(RatedOutput(system, k, len(sentences), ratings[system, k], result.samsa))
    return items
