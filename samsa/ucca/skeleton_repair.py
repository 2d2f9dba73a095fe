"""The last step of writing a skeleton (:mod:`samsa.ucca.skeleton_write`): every unit gets a word of its own. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

import networkx as nx

from samsa.ucca import graph as G

if TYPE_CHECKING:
    from samsa.ucca.skeleton_builder import PassageBuilder

__all__ = ["bare", "exact", "repair"]

Move = Callable[[], None]


def bare(w: PassageBuilder) -> list[str]:
    """Units (implicit ones aside) with no word below them over primary edges."""
    held: set[str] = set()
    for unit in w.owner.values():
        node: str | None = unit
        while node is not None and node not in held:
            held.add(node)
            node = w.parent.get(node)
    return [n for n, d in G.node_table(w.g).items() if d["layer"] == "1" and not d["implicit"] and n not in held]


def exact(w: PassageBuilder, primary: bool = False) -> bool:
    """Whether each Scene reaches its words (``primary``: exactly; else, during repair, none beyond them) and
    each center unit holds exactly its center's words."""
    for scene, sid in zip(w.sk.scenes, w.scene_ids, strict=True):
        reach = w.reach(sid)
        if reach != set(scene.words) if primary else not reach <= set(scene.words):
            return False
    return all(_primary_words(w, uid) == set(c) for c, uid in w.centers.items())


def _primary_words(w: PassageBuilder, unit: str) -> set[int]:
    out: set[int] = set()
    stack = [unit]
    while stack:
        node = stack.pop()
        for child, data in w.g.succ[node].items():
            if data["remote"]:
                continue
            if w.g.nodes[child]["layer"] == "0":
                out.add(w.g.nodes[child]["position"])
            else:
                stack.append(child)
    return out


def repair(w: PassageBuilder) -> None:
    """Move until no unit is bare. Raises ValueError when no move helps."""
    while True:
        left = bare(w)
        if not left:
            return
        if not any(_try(w, move, len(left)) for unit in left for move in _moves(w, unit)):
            raise ValueError(f"cannot write the skeleton of passage {w.sk.passage_id}: unit {left[0]} holds no word")


def _try(w: PassageBuilder, move: Move, before: int) -> bool:
    """Make ``move``; keep it if SAMSA reads the same and fewer units are bare, else put everything back."""
    saved = (copy.deepcopy(w.g), dict(w.parent), dict(w.owner))
    move()
    if exact(w) and len(bare(w)) < before:
        return True
    w.g, w.parent, w.owner = saved
    return False


def _moves(w: PassageBuilder, unit: str) -> Iterator[Move]:
    """What might give ``unit`` a word, in the order tried:

    - adopt: a unit it reaches remotely becomes its primary child (the old parent reaches it remotely);
    - through its Scene: a center it reaches as ``C`` whose Scene has it as its only main relation is reached
      through that Scene, which it adopts (coordinated Scenes, "good or bad");
    - between: a Scene whose only main relation is a ``C`` of a larger center takes its place there, and holds it
      ("The owner operator": two Scenes' main relations, one participant's center);
    - a punctuation mark: a Scene without words (a parse's Scene of punctuation only) holds a mark that hung
      under the root (SAMSA reads no punctuation).
    """
    fixed = set(w.centers.values())
    for child, data in sorted(w.g.succ[unit].items(), key=lambda kv: G.node_key(kv[0])):
        if data["remote"] and w.parent.get(child) not in fixed and not w.above(child, unit):
            yield partial(_adopt, w, unit, child)
            scene = w.parent.get(child)
            if "C" in data["categories"] and scene in w.scene_ids and not w.g.has_edge(unit, scene):
                if _only_main(w, scene) == child and not w.above(scene, unit):
                    yield partial(_through, w, unit, child, scene)
        holder = w.parent.get(child)
        if data["remote"] and holder is not None and "C" in w.g.edges[holder, child]["categories"]:
            if _only_main(w, unit) == child and not nx.has_path(w.g, unit, holder):  # no cycle, remote edges too
                yield partial(_between, w, unit, child, holder)
    marks = [c for c, d in w.g.succ[G.ROOT_ID].items() if w.g.nodes[c]["type"] == "PNCT" and not d["remote"]]
    if marks:
        yield partial(_adopt_mark, w, unit, min(marks, key=G.node_key))


def _set_remote(w: PassageBuilder, parent: str, child: str, remote: bool) -> None:
    data = w.g.edges[parent, child]
    data["remote"] = remote
    if remote:
        data["attributes"]["remote"] = "True"
    else:
        data["attributes"].pop("remote", None)
        w.parent[child] = parent


def _detach(w: PassageBuilder, child: str) -> None:
    """``child``'s primary parent reaches it remotely from now on (the root lets it go)."""
    old = w.parent.pop(child, None)
    if old == G.ROOT_ID:
        w.g.remove_edge(old, child)
    elif old is not None:
        _set_remote(w, old, child, True)


def _adopt(w: PassageBuilder, unit: str, child: str) -> None:
    _detach(w, child)
    _set_remote(w, unit, child, False)


def _only_main(w: PassageBuilder, scene: str) -> str | None:
    mains = [c for c, d in w.g.succ[scene].items() if {"P", "S"} & set(d["categories"])]
    return mains[0] if len(mains) == 1 else None


def _through(w: PassageBuilder, unit: str, child: str, scene: str) -> None:
    w.g.remove_edge(unit, child)
    _detach(w, scene)
    w.edge(unit, scene, "C")


def _between(w: PassageBuilder, scene: str, child: str, holder: str) -> None:
    w.g.remove_edge(holder, child)
    _detach(w, scene)
    w.edge(holder, scene, "C")
    _set_remote(w, scene, child, False)


def _adopt_mark(w: PassageBuilder, unit: str, mark: str) -> None:
    w.g.remove_edge(G.ROOT_ID, mark)
    w.edge(unit, mark, "U")
