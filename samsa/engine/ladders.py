"""Which parses carry their Scene ladder (``fit_scenes``, docs/validity.md) in a scoring run.

The ladder (the parser's best trees with more Scenes) is read only by an output with more sentences than
its source's parse has Scenes, and computing it costs about as much as the parse, so ``samsa score`` asks
the parser for it only where an output needs it. A cached parse stored without a ladder is parsed again,
with it, the first time an output needs it. Scores never depend on where ladders were computed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import networkx as nx

__all__ = ["lacks_ladder", "ladder_need"]


def ladder_need(job: Any, metric: Any, items: Sequence[Any]) -> list[float]:
    """Per item, the most sentences an output of it has (what its parse's ladder must cover) as the job's
    ``ladders`` says (``needed``, ``all``: every parse, ``none``); 0 everywhere for a parser without
    ``fit_scenes`` or a job that does not score."""
    if not getattr(job.parser, "fit_scenes", False) or job.ladders == "none":
        return [0] * len(items)
    if job.ladders == "all":
        return [math.inf] * len(items)
    if metric is None:
        return [0] * len(items)
    return [max((len(metric.split(o)) for o in it.outputs), default=0) for it in items]


def lacks_ladder(found: Any, need: float) -> bool:
    """Whether a cached parse (its paper-mode structure or its graph) was stored without the ladder an output
    of ``need`` sentences reads: more sentences than it has Scenes, and no ladder computed.

    >>> from samsa.scoring.paper import PaperStructure
    >>> lacks_ladder(PaperStructure([None]), 2), lacks_ladder(PaperStructure([None], laddered=True), 2)
    (True, False)
    >>> lacks_ladder(PaperStructure([None]), 1), lacks_ladder(None, 3)
    (False, False)
    """
    if found is None or need <= 0:
        return False
    if isinstance(found, nx.DiGraph):
        from samsa.ucca.queries import scenes

        return "scene_ladder" not in found.graph and need > len(scenes(found))
    return not getattr(found, "laddered", False) and need > len(found)
