"""Result records: what a SAMSA score is made of, so every number can be explained."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SceneResult", "SentenceResult", "UnitCheck"]


@dataclass(frozen=True)
class UnitCheck:
    """One main relation or participant and whether its minimal centers survived.

    ``score`` is 1 (all centers aligned into the matched sentence), 0, or 0.5
    (implicit unit / no checkable word).
    """

    units: tuple[str, ...]
    centers: tuple[str, ...]
    words: tuple[str, ...]
    score: float


@dataclass(frozen=True)
class SceneResult:
    """One source scene: the sentence it matched and how its elements scored."""

    scene: str
    words: tuple[str, ...]
    sentence: int | None
    match: int
    main_relation: UnitCheck
    participants: tuple[UnitCheck, ...]
    score: float


@dataclass(frozen=True)
class SentenceResult:
    """SAMSA and SAMSA-abl (0-100) of one source/output pair, with per-scene detail."""

    samsa: float
    samsa_abl: float
    n_scenes: int
    n_sentences: int
    scenes: tuple[SceneResult, ...] = field(default=())
    compat: str = "paper"

    def to_dict(self, detail: bool = True) -> dict[str, Any]:
        """JSON-friendly dict; ``detail=False`` keeps only the numbers."""
        d: dict[str, Any] = {
            "samsa": self.samsa,
            "samsa_abl": self.samsa_abl,
            "n_scenes": self.n_scenes,
            "n_sentences": self.n_sentences,
        }
        if detail:
            d["scenes"] = [asdict(s) for s in self.scenes]
        return d
