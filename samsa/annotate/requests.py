"""What the page of ``samsa annotate`` sends, checked before anything is applied or written: a skeleton of a line,
an edit, and whether the skeleton means something (no empty Scene, no Scene its own participant, no participant
twice, no circle of Scenes)."""

from __future__ import annotations

from typing import Any, NamedTuple

from samsa.annotate.edits import Edit
from samsa.ucca.skeleton import Participant, SceneSkeleton, Skeleton

__all__ = ["Line", "SaveError", "meaningful", "page_skeleton", "read_edit", "read_skeleton"]


class Line(NamedTuple):
    """A line to annotate: its number (1-based), its text, its parse's skeleton (tokens included), the parse's
    Scene-count distribution (empty without doubt) and its probability of being drawn (None without a plan)."""

    number: int
    text: str
    parse: Skeleton
    scene_counts: dict[int, float]
    probability: float | None = None


class SaveError(ValueError):
    """A request refused: ``status`` is the HTTP status the server answers with, ``reason`` a word the page acts on
    (``stale``: the file changed since the page opened it)."""

    def __init__(self, status: int, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.status, self.reason = status, reason


def read_skeleton(doc: Any, line: Line) -> Skeleton:
    """The page's skeleton of ``line`` to save, checked (:func:`page_skeleton`, :func:`meaningful`), canonical, its
    Scenes in samsa's order."""
    return meaningful(page_skeleton(doc, line)).in_text_order().canonical()


def _positions(value: Any, line: Line) -> tuple[int, ...]:
    """Word positions as the page sends them, checked: each a word (not punctuation) of the line."""
    tokens, punct = line.parse.tokens, line.parse.punct
    if not isinstance(value, list) or not all(
        isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= len(tokens) and not punct[w - 1] for w in value
    ):
        raise SaveError(400, f"word positions must be words of line {line.number} (1 to {len(tokens)})")
    return tuple(value)


def page_skeleton(doc: Any, line: Line) -> Skeleton:
    """The page's skeleton of ``line`` (its Scenes only: the tokens are the line's), as the page has it, checked:
    every word a position of a word (not punctuation) of the line, every Scene a participant names one of them."""
    if not isinstance(doc, dict) or not isinstance(doc.get("scenes"), list):
        raise SaveError(400, "expected {'scenes': [...]}")
    n = len(doc["scenes"])

    def positions(value: Any) -> tuple[int, ...]:
        return _positions(value, line)

    def participant(p: Any) -> Participant:
        if not isinstance(p, dict):
            raise SaveError(400, "a participant is an object")
        scene = p.get("scene")
        if scene is not None and not (isinstance(scene, int) and 0 <= scene < n):
            raise SaveError(400, f"a participant names Scene {scene!r}, not one of the {n}")
        centers = p.get("centers", [])
        if not isinstance(centers, list):
            raise SaveError(400, "a participant's centers are a list")
        return Participant(tuple(positions(c) for c in centers), scene, bool(p.get("remote")))

    scenes = []
    for s in doc["scenes"]:
        if not isinstance(s, dict) or not isinstance(s.get("main"), list):
            raise SaveError(400, "a Scene is an object with words, main and participants")
        parts = s.get("participants", [])
        if not isinstance(parts, list):
            raise SaveError(400, "a Scene's participants are a list")
        scenes.append(
            SceneSkeleton(
                positions(s.get("words", [])),
                tuple(positions(c) for c in s["main"]),
                tuple(participant(p) for p in parts),
            )
        )
    if len(scenes) > 2 * len(line.parse.tokens) or any(
        len(s.participants) > 4 * len(line.parse.tokens) for s in scenes
    ):
        raise SaveError(413, f"more Scenes or participants than line {line.number} can have")
    return line.parse._replace(scenes=tuple(scenes), passage_id=str(line.number))


def meaningful(sk: Skeleton, unfinished: bool = False) -> Skeleton:
    """``sk``, or a refusal (422) naming what means nothing in it: a Scene without words (allowed while
    ``unfinished``: an edit may leave a new implicit Scene for the next edit to give words), a Scene that is its own
    participant, the same participant twice in a Scene, Scenes that are each other's participants (a cycle)."""
    for k, s in enumerate(sk.scenes, 1):
        if not s.words and not unfinished:
            raise SaveError(422, f"Scene {k} has no words: give it a main relation or participants, or delete it")
        seen = set()
        for p in s.participants:
            if p.scene == k - 1:
                raise SaveError(422, f"Scene {k} cannot be its own participant")
            key = (p.scene, sk.runs(p.centers) if p.scene is None else ())
            if key in seen:
                raise SaveError(422, f"Scene {k} has the same participant twice")
            seen.add(key)
    cycle = _cycle({k: {p.scene for p in s.participants if p.scene is not None} for k, s in enumerate(sk.scenes)})
    if cycle:
        names = " -> ".join(f"Scene {k + 1}" for k in [*cycle, cycle[0]])
        raise SaveError(422, f"Scenes cannot be participants of each other in a circle: {names}")
    return sk


def _cycle(graph: dict[int, set[int]]) -> list[int]:
    """A cycle of the graph (its nodes in order), or [] when it has none."""
    import networkx as nx

    g = nx.DiGraph([(k, j) for k, js in graph.items() for j in js])
    try:
        return [u for u, _ in nx.find_cycle(g)]
    except nx.NetworkXNoCycle:
        return []


def read_edit(doc: Any, line: Line) -> Edit:
    """The edit the page asks for (``{"name", "scene", "participant", "selection", "target"}``), checked."""
    from samsa.annotate.edits import EDITS

    if not isinstance(doc, dict) or doc.get("name") not in EDITS:
        raise SaveError(400, f"an edit is one of {', '.join(sorted(EDITS))}")
    scene, participant, target = doc.get("scene", 0), doc.get("participant", 0), doc.get("target")
    if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in (scene, participant, target)):
        raise SaveError(400, "an edit's scene, participant and target are numbers")
    return Edit(doc["name"], scene or 0, participant or 0, _positions(doc.get("selection", []), line), target)
