"""How German SAMSA agrees with human ratings, on DEplain-web's rated pairs (Stodden et al. 2023).

384 manually aligned pairs of DEplain-web, each rated once (one rater per pair) for structural simplicity
(-2..2) and meaning preservation (1..5), among other aspects, with the simplification operations marked
(``sentence#split*``: the pair splits a sentence; 105 pairs). Reported, never tuned on: with one rater per pair
the ratings are noisy. Per pair SAMSA is correlated with each rating (Pearson and Spearman) over all pairs,
over the split pairs and over the others, and the mean SAMSA of split and of non-split pairs is given.

Everything here but :func:`deplain_items` (which reads the released file) is a pure function of numbers;
``benchmarks/validity.py --deplain`` scores the pairs with each parser.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lab.agreement import pearson, spearman

__all__ = ["RATED", "RatedPair", "deplain_agreement", "deplain_items"]

#: under the data root
RATED = "easse_de/human_judgements/DEplain-web/DEplain-web-manual-public-rated.csv"
#: the ratings correlated with SAMSA
ASPECTS = ("structural_simplicity", "meaning_preservation")


@dataclass(frozen=True)
class RatedPair:
    """One rated pair: the original and its simplification, the two ratings, whether it splits a sentence."""

    original: str
    simplification: str
    structural_simplicity: float
    meaning_preservation: float
    split: bool


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return math.nan


def deplain_items(data: Path) -> list[RatedPair]:
    """The rated pairs, in file order (a rating left blank is NaN and drops out of its correlations)."""
    with (data / RATED).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        RatedPair(
            " ".join(r["original"].split()),
            " ".join(r["simplification"].split()),
            _number(r["structural_simplicity"]),
            _number(r["meaning_preservation"]),
            _number(r.get("sentence#split*") or "0") > 0,
        )
        for r in rows
    ]


def _correlations(scores: Sequence[float], ratings: Sequence[float]) -> dict[str, float | int | None]:
    kept = [(s, r) for s, r in zip(scores, ratings, strict=True) if not math.isnan(r)]
    if len(kept) < 3:
        return {"n": len(kept), "pearson": None, "spearman": None}
    x, y = [s for s, _ in kept], [r for _, r in kept]

    def rounded(v: float) -> float | None:
        return None if math.isnan(v) else round(v, 4)

    return {"n": len(kept), "pearson": rounded(pearson(x, y)), "spearman": rounded(spearman(x, y))}


def deplain_agreement(items: Sequence[RatedPair], samsa: Sequence[float]) -> dict:
    """Pearson and Spearman of per-pair SAMSA with each rating, over all, split and non-split pairs; and the
    mean SAMSA of split and of non-split pairs."""
    groups = {
        "all": list(range(len(items))),
        "split": [k for k, it in enumerate(items) if it.split],
        "not_split": [k for k, it in enumerate(items) if not it.split],
    }
    out: dict = {}
    for name, idx in groups.items():
        block: dict = {
            "pairs": len(idx),
            "mean_samsa": round(sum(samsa[k] for k in idx) / len(idx), 2) if idx else None,
        }
        for aspect in ASPECTS:
            block[aspect] = _correlations([samsa[k] for k in idx], [getattr(items[k], aspect) for k in idx])
        out[name] = block
    return out
