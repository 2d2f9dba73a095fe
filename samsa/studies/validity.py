"""Does automatic SAMSA reward what manual SAMSA rewards? A battery of synthetic outputs built from gold UCCA,
each scored on the manual annotation and on a parser's annotation of the same tokens.

SAMSA exists to judge sentence splitting, so the one output whose score is known to be near 100 is a split
with one sentence per gold Scene. The battery (:data:`OUTPUTS`) puts it beside the unchanged sentence and
four outputs that do not split along Scene lines; the summaries say how much of the manual gain of the
perfect split over the identity the parsed annotation keeps (**split sensitivity**), whether the six outputs
rank the same (**Kendall tau**, and the pairs more than 5 points apart on manual UCCA ranked the other way
round), and how often the perfect split scores 0 on the parse (its Scene count below the sentences').

Everything here but :func:`battery_scores` (which scores the battery) is a pure function of graphs and scores;
``benchmarks/validity.py`` runs it on a gold set.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from samsa.ucca.graph import tokens
from samsa.ucca.queries import scenes, unit_terminals

__all__ = [
    "OUTPUTS",
    "SEPARATOR",
    "OutputStats",
    "battery_scores",
    "kendall_tau",
    "output_stats",
    "pearson",
    "reversals",
    "split_sensitivity",
    "synthetic_outputs",
]

#: the sentence separator of the synthetic outputs (tokens are the gold ones, joined by spaces)
SEPARATOR = "<::::>"
_CONJUNCTIONS = frozenset({"and", "but"})


def identity(g: nx.DiGraph, _k: int) -> str:
    """The unchanged sentence."""
    return " ".join(tokens(g))


def scene_split(g: nx.DiGraph, _k: int) -> str:
    """One sentence per gold Scene: each Scene's words (nested Scenes' words included), in Scene order."""
    parts = [" ".join(g.nodes[t]["text"] for t in unit_terminals(g, s)) for s in scenes(g)]
    return f" {SEPARATOR} ".join(parts) or identity(g, _k)


def conjunction_split(g: nx.DiGraph, _k: int) -> str:
    """Cut at every standalone 'and' / 'but' (the conjunction dropped)."""
    return _join(_cut(tokens(g), lambda t: t.lower() in _CONJUNCTIONS))


def comma_split(g: nx.DiGraph, k: int) -> str:
    """Cut at one comma, drawn with a seed of the sentence's index (the comma dropped); no comma: identity."""
    words = tokens(g)
    commas = [i for i, t in enumerate(words) if t == ","]
    if not commas:
        return identity(g, k)
    cut = random.Random(k).choice(commas)
    return _join([words[:cut], words[cut + 1 :]])


def comma_deletion(g: nx.DiGraph, k: int) -> str:
    """Every second comma-separated segment deleted (the 2nd, 4th, ...); no comma: identity."""
    segments = _cut(tokens(g), lambda t: t == ",", keep_empty=True)
    kept = [s for i, s in enumerate(segments) if i % 2 == 0 and s]
    return " , ".join(" ".join(s) for s in kept) or identity(g, k)


def first_half(g: nx.DiGraph, _k: int) -> str:
    """The first half of the tokens (rounded up)."""
    words = tokens(g)
    return " ".join(words[: math.ceil(len(words) / 2)])


def _cut(words: Sequence[str], at: Callable[[str], bool], *, keep_empty: bool = False) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if at(w):
            out.append([])
        else:
            out[-1].append(w)
    return out if keep_empty else [s for s in out if s]


def _join(parts: Sequence[Sequence[str]]) -> str:
    return f" {SEPARATOR} ".join(" ".join(p) for p in parts if p)


#: the battery, in a fixed order: name -> builder(gold graph, 0-based sentence index) -> output line
OUTPUTS: dict[str, Callable[[nx.DiGraph, int], str]] = {
    "identity": identity,
    "scene-split": scene_split,
    "conjunction-split": conjunction_split,
    "comma-split": comma_split,
    "comma-deletion": comma_deletion,
    "first-half": first_half,
}


def synthetic_outputs(gold: Sequence[nx.DiGraph]) -> dict[str, list[str]]:
    """Every output of the battery for every gold sentence."""
    return {name: [build(g, k) for k, g in enumerate(gold)] for name, build in OUTPUTS.items()}


def battery_scores(gold: Sequence[nx.DiGraph], parsed: Sequence[nx.DiGraph]) -> dict[str, dict[str, list[float]]]:
    """Per output of the battery, the sentence scores on the manual (``gold``) and the parsed annotation of the
    same tokens: ``manual``, ``parsed`` (SAMSA) and ``manual_abl``, ``parsed_abl`` (SAMSA-abl); paper mode, exact
    aligner, the gold tokens."""
    from samsa.scoring.metric import Samsa
    from samsa.scoring.paper import paper_structure

    metric = Samsa(tokenizer="none", separator=SEPARATOR)
    # each graph's structure (its Scene ladder's included) once, for the six outputs
    structures = {id(g): paper_structure(g) for g in (*gold, *parsed)}
    scores = {}
    for name, lines in synthetic_outputs(gold).items():
        m = [metric.sentence_score(g, o, structure=structures[id(g)]) for g, o in zip(gold, lines, strict=True)]
        p = [metric.sentence_score(g, o, structure=structures[id(g)]) for g, o in zip(parsed, lines, strict=True)]
        scores[name] = {"manual": [r.samsa for r in m], "parsed": [r.samsa for r in p],
                        "manual_abl": [r.samsa_abl for r in m], "parsed_abl": [r.samsa_abl for r in p]}  # fmt: skip
    return scores


@dataclass(frozen=True)
class OutputStats:
    """One output of the battery: mean manual and parsed SAMSA, their mean absolute difference, the shares of
    sentences scored 0, and the per-sentence Pearson correlation (None where a side is constant)."""

    mean_manual: float
    mean_parsed: float
    mean_abs_difference: float
    zero_manual: float
    zero_parsed: float
    pearson: float | None


def output_stats(manual: Sequence[float], parsed: Sequence[float]) -> OutputStats:
    """:class:`OutputStats` of line-parallel sentence scores.

    >>> s = output_stats([100.0, 50.0], [0.0, 50.0])
    >>> s.mean_manual, s.mean_parsed, s.mean_abs_difference, s.zero_manual, s.zero_parsed, s.pearson
    (75.0, 25.0, 50.0, 0.0, 0.5, -1.0)
    """
    if len(manual) != len(parsed) or not manual:
        raise ValueError("manual and parsed scores must be line-parallel and not empty")
    n = len(manual)
    return OutputStats(
        mean_manual=sum(manual) / n,
        mean_parsed=sum(parsed) / n,
        mean_abs_difference=sum(abs(a - b) for a, b in zip(manual, parsed, strict=True)) / n,
        zero_manual=sum(a == 0 for a in manual) / n,
        zero_parsed=sum(b == 0 for b in parsed) / n,
        pearson=pearson(manual, parsed),
    )


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None when either side is constant (undefined).

    >>> pearson([1, 2, 3], [2, 4, 7])
    0.9933992677987828
    """
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx, syy = sum((a - mx) ** 2 for a in x), sum((b - my) ** 2 for b in y)
    return None if sxx == 0 or syy == 0 else sxy / math.sqrt(sxx * syy)


def split_sensitivity(stats: Mapping[str, OutputStats]) -> float | None:
    """(parsed gain of the perfect split over the identity) / (manual gain); 1 keeps all of it. None when the
    manual gain is 0.

    >>> s = {"identity": output_stats([50.0], [50.0]), "scene-split": output_stats([100.0], [75.0])}
    >>> split_sensitivity(s)
    0.5
    """
    gain = stats["scene-split"].mean_manual - stats["identity"].mean_manual
    if gain == 0:
        return None
    return (stats["scene-split"].mean_parsed - stats["identity"].mean_parsed) / gain


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b of two rankings given as scores (ties allowed); None when either side is all tied.

    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    """
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return None if denominator == 0 else (concordant - discordant) / denominator


def reversals(stats: Mapping[str, OutputStats], margin: float = 5.0) -> list[tuple[str, str]]:
    """Pairs (a, b) whose manual means differ by more than ``margin`` points (a above b) while the parsed means
    rank b above a.

    >>> s = {"x": output_stats([90.0], [40.0]), "y": output_stats([60.0], [50.0]), "z": output_stats([58.0], [45.0])}
    >>> reversals(s)
    [('x', 'y'), ('x', 'z')]
    """
    out = []
    names = list(stats)
    for a in names:
        for b in names:
            sa, sb = stats[a], stats[b]
            if sa.mean_manual - sb.mean_manual > margin and sb.mean_parsed > sa.mean_parsed:
                out.append((a, b))
    return out
