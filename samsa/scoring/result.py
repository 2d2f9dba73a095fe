"""Result records: what a SAMSA score is made of, so every number can be explained."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from samsa.config import Compat

__all__ = ["CorpusResult", "CorpusTotals", "SceneResult", "SentenceResult", "UnitCheck"]


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
    compat: Compat = "paper"

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


@dataclass(frozen=True)
class CorpusResult:
    """Corpus SAMSA / SAMSA-abl (means of the lines' scores), the counts, and (when kept) every line's detail.

    A line is a source sentence, or a source document in document-level SAMSA; ``n_output_sentences`` counts the
    outputs' sentences.
    """

    samsa: float
    samsa_abl: float
    n_lines: int
    n_scenes: int
    n_output_sentences: int
    signature: str
    config: dict[str, Any] = field(default_factory=dict)
    sentences: tuple[SentenceResult, ...] = ()

    def to_dict(self, detail: bool = False) -> dict[str, Any]:
        """JSON-friendly dict; ``detail`` adds every line's result."""
        return {
            "name": "SAMSA",
            "samsa": self.samsa,
            "samsa_abl": self.samsa_abl,
            "n_lines": self.n_lines,
            "n_scenes": self.n_scenes,
            "n_output_sentences": self.n_output_sentences,
            "signature": self.signature,
            "config": self.config,
            **({"sentences": [s.to_dict() for s in self.sentences]} if detail else {}),
        }


class CorpusTotals:
    """Corpus SAMSA, aggregated one line's result at a time: the one place corpus scores are computed.

    ``keep``: keep each line's result (its detail) for :attr:`CorpusResult.sentences`.

    >>> t = CorpusTotals()
    >>> t.add_all([SentenceResult(100.0, 50.0, 2, 1), SentenceResult(0.0, 0.0, 1, 2)])
    >>> r = t.result("SAMSA|...")
    >>> r.samsa, r.samsa_abl, r.n_lines, r.n_scenes, r.n_output_sentences
    (50.0, 25.0, 2, 3, 3)
    """

    def __init__(self, *, keep: bool = False) -> None:
        self.samsa: list[float] = []
        self.samsa_abl: list[float] = []
        self.n_scenes = self.n_output_sentences = 0
        self.kept: list[SentenceResult] | None = [] if keep else None

    def add(self, r: SentenceResult) -> None:
        self.samsa.append(r.samsa)
        self.samsa_abl.append(r.samsa_abl)
        self.n_scenes += r.n_scenes
        self.n_output_sentences += r.n_sentences
        if self.kept is not None:
            self.kept.append(r)

    def add_all(self, results: Iterable[SentenceResult]) -> None:
        for r in results:
            self.add(r)

    def means(self) -> tuple[float, float]:
        """Corpus (SAMSA, SAMSA-abl): the means of the lines' scores (:func:`samsa.scoring.formula.corpus_mean`)."""
        from samsa.scoring.formula import corpus_mean

        return corpus_mean(self.samsa), corpus_mean(self.samsa_abl)

    def result(self, signature: str, config: dict[str, Any] | None = None) -> CorpusResult:
        """The corpus result: :meth:`means`, the counts, and the lines kept."""
        return CorpusResult(
            *self.means(),
            len(self.samsa),
            self.n_scenes,
            self.n_output_sentences,
            signature,
            dict(config or {}),
            tuple(self.kept or ()),
        )
