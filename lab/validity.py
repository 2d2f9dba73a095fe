"""Does automatic SAMSA reward what manual SAMSA rewards, and penalize what it penalizes? A battery of synthetic
outputs built from gold UCCA, each scored on the manual annotation and on a parser's annotation of the same tokens.

SAMSA exists to judge sentence splitting, so the one output whose score is known to be near 100 is a split
with one sentence per gold Scene. The battery (:data:`OUTPUTS`) puts it beside the unchanged sentence, four
outputs that do not split along Scene lines, and three that split wrongly (:data:`WRONG_SPLITS`): one sentence
fewer than Scenes, one more, and a sentence every 4 tokens. Manual SAMSA scores the last two 0 (more output
sentences than the source has Scenes). The summaries say how much of the manual gain of the perfect split over
the identity the parsed annotation keeps (**split sensitivity**), how much more than manual UCCA the parse gives
the over-split outputs (**over-split excess**), how far parsed and manual scores lie apart over the whole battery
(**battery MAD**), whether the outputs rank the same (**Kendall tau**, and the pairs more than 5 points apart on
manual UCCA ranked the other way round), and how often the perfect split scores 0 on the parse.

Everything here but :func:`battery_scores` (which scores the battery) is a pure function of graphs and scores;
``benchmarks/validity.py`` runs it on a gold set.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from samsa.ucca.graph import tokens
from samsa.ucca.queries import scenes, unit_terminals

__all__ = [
    "OUTPUTS",
    "OVER_SPLITS",
    "SEPARATOR",
    "WRONG_SPLITS",
    "OutputStats",
    "battery_mad",
    "battery_scores",
    "kendall_tau",
    "output_stats",
    "over_split_excess",
    "pearson",
    "reversals",
    "split_sensitivity",
    "synthetic_outputs",
]

#: the sentence separator of the synthetic outputs (tokens are the gold ones, joined by spaces)
SEPARATOR = "<::::>"
#: the coordinating conjunctions the ``conjunction`` output cuts at: English's and German's (no English UCCA set
#: has "und" or "aber", so the English battery is what it was)
_CONJUNCTIONS = frozenset({"and", "but", "und", "aber"})
#: tokens per sentence of the ``chunks`` output
CHUNK = 4


def identity(g: nx.DiGraph, _k: int) -> str:
    """The unchanged sentence."""
    return " ".join(tokens(g))


def scene_split(g: nx.DiGraph, _k: int) -> str:
    """One sentence per gold Scene: each Scene's words (nested Scenes' words included), in Scene order."""
    return _join(_scene_parts(g)) or identity(g, _k)


def merged(g: nx.DiGraph, _k: int) -> str | None:
    """The perfect split with its two shortest adjacent sentences joined (the pair with the fewest tokens, the
    first such pair on a tie): one sentence fewer than Scenes. None for a sentence with fewer than 2 Scenes."""
    parts = _scene_parts(g)
    if len(parts) < 2:
        return None
    j = min(range(len(parts) - 1), key=lambda i: len(parts[i]) + len(parts[i + 1]))
    return _join([*parts[:j], [*parts[j], *parts[j + 1]], *parts[j + 2 :]])


def over_split(g: nx.DiGraph, _k: int) -> str | None:
    """The perfect split with its longest sentence (the first on a tie) cut before its middle token (token
    ``len // 2``): one sentence more than Scenes (the unchanged sentence cut in two where there is no Scene).
    None when that sentence has a single token."""
    parts = _scene_parts(g) or [list(tokens(g))]
    j = max(range(len(parts)), key=lambda i: len(parts[i]))
    longest = parts[j]
    if len(longest) < 2:
        return None
    middle = len(longest) // 2
    return _join([*parts[:j], longest[:middle], longest[middle:], *parts[j + 1 :]])


def chunks(g: nx.DiGraph, _k: int) -> str:
    """A new sentence every :data:`CHUNK` source tokens."""
    words = tokens(g)
    return _join([words[i : i + CHUNK] for i in range(0, len(words), CHUNK)])


def _scene_parts(g: nx.DiGraph) -> list[list[str]]:
    """Each gold Scene's words (nested Scenes' words included), in Scene order."""
    return [[g.nodes[t]["text"] for t in unit_terminals(g, s)] for s in scenes(g)]


def conjunction_split(g: nx.DiGraph, _k: int) -> str:
    """Cut at every standalone 'and' / 'but' ('und' / 'aber' in German; the conjunction dropped)."""
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


#: the battery, in a fixed order: name -> builder(gold graph, 0-based sentence index) -> output line, or None
#: where the output is not defined for the sentence (it is then left out of that output's figures)
OUTPUTS: dict[str, Callable[[nx.DiGraph, int], str | None]] = {
    "identity": identity,
    "scene-split": scene_split,
    "conjunction-split": conjunction_split,
    "comma-split": comma_split,
    "comma-deletion": comma_deletion,
    "first-half": first_half,
    "merged": merged,
    "over-split": over_split,
    "chunks": chunks,
}
#: the outputs that split wrongly; manual SAMSA scores the last two 0 (more sentences than Scenes)
WRONG_SPLITS = ("merged", "over-split", "chunks")
#: the outputs whose over-split excess is reported
OVER_SPLITS = ("over-split", "chunks")


def synthetic_outputs(gold: Sequence[nx.DiGraph]) -> dict[str, list[str | None]]:
    """Every output of the battery for every gold sentence (None where an output is not defined)."""
    return {name: [build(g, k) for k, g in enumerate(gold)] for name, build in OUTPUTS.items()}


def battery_scores(gold: Sequence[nx.DiGraph], parsed: Sequence[nx.DiGraph]) -> dict[str, dict[str, list[Any]]]:
    """Per output of the battery, the sentence scores on the manual (``gold``) and the parsed annotation of the
    same tokens: ``manual``, ``parsed`` (SAMSA) and ``manual_abl``, ``parsed_abl`` (SAMSA-abl), over the
    sentences where the output is defined (their 0-based indices in ``sentences``); paper mode, exact aligner,
    the gold tokens."""
    from samsa.scoring.metric import Samsa
    from samsa.scoring.paper import paper_structure

    metric = Samsa(tokenizer="none", separator=SEPARATOR)
    structures = {id(g): paper_structure(g) for g in (*gold, *parsed)}  # each graph's once, for every output
    scores: dict[str, dict[str, list[Any]]] = {}
    for name, lines in synthetic_outputs(gold).items():
        kept = [(k, g, p, o) for k, (g, p, o) in enumerate(zip(gold, parsed, lines, strict=True)) if o is not None]
        m = [metric.score_graph(g, o, structure=structures[id(g)]) for _, g, _, o in kept]
        p = [metric.score_graph(q, o, structure=structures[id(q)]) for _, _, q, o in kept]
        scores[name] = {
            "sentences": [k for k, _, _, _ in kept],
            "manual": [r.samsa for r in m],
            "parsed": [r.samsa for r in p],
            "manual_abl": [r.samsa_abl for r in m],
            "parsed_abl": [r.samsa_abl for r in p],
        }
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


def over_split_excess(stats: Mapping[str, OutputStats]) -> dict[str, float]:
    """Per over-split output (:data:`OVER_SPLITS`), its parsed mean minus its manual mean: what the parse gives
    an output that manual SAMSA scores 0 for having more sentences than Scenes.

    >>> over_split_excess({"over-split": output_stats([0.0, 0.0], [50.0, 0.0]), "chunks": output_stats([0.0], [0.0])})
    {'over-split': 25.0, 'chunks': 0.0}
    """
    return {n: stats[n].mean_parsed - stats[n].mean_manual for n in OVER_SPLITS if n in stats}


def battery_mad(stats: Mapping[str, OutputStats]) -> float:
    """The mean over the battery's outputs of their mean absolute difference between parsed and manual SAMSA.

    >>> battery_mad({"a": output_stats([10.0], [20.0]), "b": output_stats([0.0, 0.0], [0.0, 4.0])})
    6.0
    """
    return sum(s.mean_abs_difference for s in stats.values()) / len(stats)


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


def reversals(scores: Mapping[str, Mapping[str, Sequence[float]]], margin: float = 5.0) -> list[tuple[str, str]]:
    """Pairs (a, b) whose manual means differ by more than ``margin`` points (a above b) while the parsed means
    rank b above a, each pair compared on the sentences where both outputs are defined. ``scores``: per output,
    ``manual`` and ``parsed`` sentence scores and the ``sentences`` they belong to (:func:`battery_scores`;
    without ``sentences``, the first ones in order).

    >>> s = {"x": {"manual": [90.0], "parsed": [40.0]}, "y": {"manual": [60.0], "parsed": [50.0]},
    ...      "z": {"manual": [58.0], "parsed": [45.0]}}
    >>> reversals(s)
    [('x', 'y'), ('x', 'z')]
    >>> s = {"x": {"manual": [90.0, 90.0], "parsed": [80.0, 10.0]}, "y": {"sentences": [0], "manual": [60.0],
    ...      "parsed": [50.0]}}
    >>> reversals(s)  # on sentence 0, the only one y has, x stays above
    []
    """
    means = {}
    names = list(scores)
    for a in names:
        for b in names:
            if a == b:
                continue
            ia, ib = _indexed(scores[a]), _indexed(scores[b])
            common = sorted(ia.keys() & ib.keys())
            if not common:
                continue
            means[a, b] = [sum(ix[k][side] for k in common) / len(common) for ix in (ia, ib) for side in (0, 1)]
    return [(a, b) for (a, b), (ma, pa, mb, pb) in means.items() if ma - mb > margin and pb > pa]


def _indexed(s: Mapping[str, Sequence[float]]) -> dict[int, tuple[float, float]]:
    """Sentence index -> (manual, parsed) of one output's scores."""
    index = s.get("sentences", range(len(s["manual"])))
    return {int(k): (m, p) for k, m, p in zip(index, s["manual"], s["parsed"], strict=True)}
