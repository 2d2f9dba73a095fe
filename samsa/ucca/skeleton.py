"""The Scene skeleton: the part of a UCCA graph that SAMSA reads, as a small data structure. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any, NamedTuple

import networkx as nx

from samsa.ucca import graph as G
from samsa.ucca.queries import is_scene, main_relations, minimal_centers, participants, scenes, unit_terminals

__all__ = ["Center", "Participant", "SceneSkeleton", "Skeleton", "skeleton_of"]

Center = tuple[int, ...]


class Participant(NamedTuple):
    """A participant of a Scene: its minimal centers, or (``scene``) the index of the Scene it is; ``remote``: it
    is a participant over a remote edge (another Scene's words)."""

    centers: tuple[Center, ...] = ()
    scene: int | None = None
    remote: bool = False


class SceneSkeleton(NamedTuple):
    """A Scene: its words (positions, remote ones included), its main relation's minimal centers, its
    participants."""

    words: tuple[int, ...]
    main: tuple[Center, ...]
    participants: tuple[Participant, ...] = ()


class Skeleton(NamedTuple):
    """A passage's tokens (text, whether punctuation) and its Scenes in order."""

    tokens: tuple[str, ...]
    punct: tuple[bool, ...]
    scenes: tuple[SceneSkeleton, ...]
    passage_id: str = "1"

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens": list(self.tokens),
            "punct": list(self.punct),
            "passage_id": self.passage_id,
            "scenes": [
                {
                    "words": list(s.words),
                    "main": [list(c) for c in s.main],
                    "participants": [
                        {"centers": [list(c) for c in p.centers], "scene": p.scene, "remote": p.remote}
                        for p in s.participants
                    ],
                }
                for s in self.scenes
            ],
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Skeleton:
        scenes_ = tuple(
            SceneSkeleton(
                tuple(int(w) for w in s["words"]),
                tuple(tuple(int(w) for w in c) for c in s["main"]),
                tuple(
                    Participant(
                        tuple(tuple(int(w) for w in c) for c in p.get("centers", ())),
                        p.get("scene"),
                        bool(p.get("remote")),
                    )
                    for p in s.get("participants", ())
                ),
            )
            for s in doc["scenes"]
        )
        return cls(tuple(doc["tokens"]), tuple(bool(x) for x in doc["punct"]), scenes_, str(doc.get("passage_id", "1")))

    def runs(self, centers: Sequence[Center]) -> tuple[Center, ...]:
        """A unit's centers as SAMSA reads them: the words of all of them (it scores 1 when all are aligned, 0.5
        when there are none: an implicit unit), cut into runs of neighbouring words (punctuation between them
        does not cut). A coordination's centers ("clothes and make - up") are its runs ("clothes", "make up")."""
        words = sorted({w for c in centers for w in c})
        if not words:
            return ((),)
        out: list[list[int]] = [[words[0]]]
        for a, b in pairwise(words):
            if any(not self.punct[k - 1] for k in range(a + 1, b)):
                out.append([])
            out[-1].append(b)
        return tuple(tuple(run) for run in out)

    def canonical(self) -> Skeleton:
        """The same skeleton with each unit's centers as :meth:`runs` and participants in one order (by
        position): two skeletons that SAMSA reads alike, but for their Scenes' order (which it reads), are then
        equal and written alike."""
        scenes_ = []
        for s in self.scenes:
            parts = sorted(
                (
                    Participant(self.runs(p.centers) if p.scene is None else (), p.scene, p.remote)
                    for p in s.participants
                ),
                key=lambda p: (p.scene is not None, p.scene or 0, p.centers, p.remote),
            )
            scenes_.append(SceneSkeleton(tuple(sorted(set(s.words))), self.runs(s.main), tuple(parts)))
        return self._replace(scenes=tuple(scenes_))

    def text_order(self) -> tuple[int, ...]:
        """The Scenes' indices in samsa's order (docs/samsa.md, "Scene order"): by their first word (a Scene
        without words last), a Scene before those of fewer words (one inside it), then by the Scene as
        :meth:`canonical` writes it (a Scene participant by that Scene's words): the same Scenes in whatever order
        get one order."""
        sk = self.canonical()

        def key(k: int) -> tuple[Any, ...]:
            s = sk.scenes[k]
            first = min(s.words or [len(sk.tokens) + 1])
            parts = sorted(
                (p.centers, p.remote, () if p.scene is None else sk.scenes[p.scene].words) for p in s.participants
            )
            return first, -len(s.words), s.words, s.main, parts

        return tuple(sorted(range(len(sk.scenes)), key=key))

    def in_text_order(self) -> Skeleton:
        """The same skeleton with its Scenes in :meth:`text_order`."""
        return self._replace(scenes=self.renumbered(self.text_order()))

    def renumbered(self, order: Sequence[int]) -> tuple[SceneSkeleton, ...]:
        """The Scenes ``order`` names (by index), in that order, their Scene participants renumbered (a participant
        that is a Scene left out goes with it)."""
        new = {old: k for k, old in enumerate(order)}
        kept = [[p for p in s.participants if p.scene is None or p.scene in new] for s in self.scenes]
        parts = [tuple(p if p.scene is None else p._replace(scene=new[p.scene]) for p in ps) for ps in kept]
        return tuple(self.scenes[old]._replace(participants=parts[old]) for old in order)


def skeleton_of(g: nx.DiGraph) -> Skeleton:
    """The skeleton of a passage graph: what :func:`~samsa.scoring.paper.paper_structure` reads of it."""
    nodes = G.node_table(g)
    terms = G.terminals(g)
    position = {t: nodes[t]["position"] for t in terms}
    order = scenes(g)
    index = {s: k for k, s in enumerate(order)}

    def center(c: str) -> Center:
        data = nodes[c]
        if data.get("implicit"):
            return ()
        if data["layer"] == "0":
            return () if data["type"] == "Punctuation" else (position[c],)
        return tuple(position[t] for t in unit_terminals(g, c, punct=False, remotes=False))

    def centers_of(units: Sequence[str]) -> tuple[Center, ...]:
        found: list[str] = []
        for u in units:
            found.extend(c for c in minimal_centers(g, u) if c not in found)
        return tuple(center(c) for c in found)

    out = []
    for sc in order:
        words = tuple(position[t] for t in unit_terminals(g, sc, punct=False, remotes=True))
        parts = []
        for p in participants(g, sc):
            remote = bool(g.edges[sc, p]["remote"])
            if is_scene(g, p):
                parts.append(Participant(scene=index[p], remote=remote))
            else:
                parts.append(Participant(centers_of([p]), remote=remote))
        out.append(SceneSkeleton(words, centers_of(main_relations(g, sc)), tuple(parts)))
    punct = tuple(nodes[t]["type"] == "Punctuation" for t in terms)
    sk = Skeleton(tuple(nodes[t]["text"] for t in terms), punct, tuple(out), str(g.graph.get("passage_id", "1")))
    return sk.canonical()
