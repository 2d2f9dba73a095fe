"""A :class:`~samsa.ucca.skeleton.Skeleton` written back as a valid UCCA passage. More: docs/architecture.md, "Module
notes"."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from samsa.ucca import graph as G
from samsa.ucca.skeleton import Center, Skeleton
from samsa.ucca.skeleton_builder import WRITTEN_BY, PassageBuilder
from samsa.ucca.skeleton_repair import exact, repair
from samsa.ucca.xml import to_standard_xml

__all__ = ["DRAFT", "WRITTEN_BY", "skeleton_graph", "skeleton_xml"]

#: the passage attribute of a line the annotator has not marked done: ``samsa score --plan`` refuses it
DRAFT = {"draft": "yes"}


def _build_centers(w: PassageBuilder) -> None:
    """One unit per distinct center, smallest first. A center holding smaller ones is their unit's ``C`` parent,
    its other words under one more ``C``: its minimal centers are then the pieces, whose words SAMSA reads as one run
    (:meth:`~samsa.ucca.skeleton.Skeleton.runs`), the center itself."""
    found = {c for s in w.sk.scenes for c in s.main if c}
    found |= {c for s in w.sk.scenes for p in s.participants for c in p.centers if c}
    top: dict[int, tuple[Center, str]] = {}  # position -> the largest center unit holding it so far
    for c in sorted(found, key=lambda c: (len(c), c)):
        uid = w.unit()
        inner: list[str] = []
        for pos in c:
            if pos in top and not set(top[pos][0]) <= set(c):
                raise ValueError(f"centers {_words(w.sk, top[pos][0])!r} and {_words(w.sk, c)!r} overlap")
            if pos in top and top[pos][1] not in inner:
                inner.append(top[pos][1])
        rest = [pos for pos in c if pos not in top]
        if inner and rest:
            inner.append(w.unit())
        for child in inner:
            w.edge(uid, child, "C")
        for pos in rest:
            w.terminal(inner[-1] if inner else uid, pos)
        for pos in c:
            top[pos] = (c, uid)
        w.centers[c] = uid


def _words(sk: Skeleton, c: Center) -> str:
    return " ".join(sk.tokens[p - 1] for p in c)


def _attach(w: PassageBuilder, parent: str, centers: Sequence[Center], cat: str, remote: bool = False) -> None:
    """``parent`` -cat-> the unit of ``centers``: one center's unit, an implicit unit (no words), or a unit
    whose ``C`` children they are, one for each set of centers (units without words score alike, so several
    become one)."""
    found = tuple(c for c in centers if c)
    if not found:
        w.edge(parent, w.unit(implicit=True), cat)
    elif len(found) == 1:
        w.link(parent, w.centers[found[0]], cat, remote)
    else:
        if found not in w.groups:
            w.groups[found] = w.unit()
            for c in found:
                w.link(w.groups[found], w.centers[c], "C")
        w.link(parent, w.groups[found], cat, remote)


def _innermost_first(sk: Skeleton) -> list[int]:
    """Scenes by their number of words, and among as many words, one that is a participant of another (at
    any depth) before that one."""
    depth = [0] * len(sk.scenes)
    for _ in sk.scenes:  # longest chain of "is a participant of" above each Scene (cycles stop growing)
        for k, scene in enumerate(sk.scenes):
            for p in scene.participants:
                if p.scene is not None and p.scene != k:
                    depth[p.scene] = min(len(sk.scenes), max(depth[p.scene], depth[k] + 1))
    return sorted(range(len(sk.scenes)), key=lambda k: (len(sk.scenes[k].words), -depth[k], k))


def _attach_scenes(w: PassageBuilder) -> None:
    for k in _innermost_first(w.sk):
        scene, sid = w.sk.scenes[k], w.scene_ids[k]
        _attach(w, sid, scene.main or ((),), "P")
        for p in scene.participants:
            if p.scene is not None:
                w.link(sid, w.scene_ids[p.scene], "A", p.remote)
            else:
                _attach(w, sid, p.centers or ((),), "A", p.remote)


def _leaves(w: PassageBuilder) -> None:
    """Give each Scene the words it has beyond its main relation's and participants', innermost Scenes first:
    a word no unit holds under a function unit of the Scene; one another unit holds through the smallest unit that
    holds it and only words of the Scene (carved out of its owner when there is none: :func:`_holder`), reached as
    :func:`_reach` says."""
    wrappers: set[str] = set()  # the units made to hold a participant's unit and a Scene
    for k in _innermost_first(w.sk):
        sid, words = w.scene_ids[k], set(w.sk.scenes[k].words)
        missing = words - w.reach(sid)
        free = sorted(p for p in missing if p not in w.owner)
        if free:
            filler = w.unit()
            w.edge(sid, filler, "F")
            for pos in free:
                w.terminal(filler, pos)
        for pos in sorted(missing - set(free)):
            if pos not in w.reach(sid):
                _reach(w, sid, _holder(w, pos, words), wrappers)


def _reach(w: PassageBuilder, sid: str, holder: str, wrappers: set[str]) -> None:
    """Scene ``sid`` reaches ``holder``, a unit that holds some of its words: another Scene as an ``E`` of one of
    its participants (a relative clause's place in gold; ``G`` when it has none to hold it, or, where that would
    put a ``G`` under a ``G``, of a participant that is a Scene: SAMSA reads that one by its main relation all the
    same), any other unit as a remote ``D``."""
    if holder not in w.scene_ids:
        w.link(sid, holder, "D", remote=True)
        return
    free = holder not in w.parent  # a participant reached remotely can hold it: it gives the wrapper a word
    edges = [(c, d) for c, d in w.g.succ[sid].items() if d["categories"] == ("A",) and (free or not d["remote"])]
    near = [(d["remote"], c) for c, d in edges if c in wrappers or not (c in w.scene_ids or w.g.nodes[c]["implicit"])]
    grounds = [*w.g.in_edges(sid, data=True), *w.g.out_edges(holder, data=True)]
    if not near and any("G" in d["categories"] for _, _, d in grounds):
        near = [(d["remote"], c) for c, d in edges if c in w.scene_ids]
    if not near:
        w.link(sid, holder, "G")
        return
    ys = w.reach(holder)
    remote, child = min(
        near, key=lambda rc: (rc[0], min(abs(a - b) for a in w.reach(rc[1]) for b in ys), G.node_key(rc[1]))
    )
    if child not in wrappers:
        wrapper = w.unit()
        w.g.remove_edge(sid, child)
        w.edge(sid, wrapper, "A")
        w.edge(wrapper, child, "C", remote=remote)
        wrappers.add(wrapper)
        child = wrapper
    w.link(child, holder, "E")


def _holder(w: PassageBuilder, pos: int, words: set[int]) -> str:
    """The unit with the fewest words that holds ``pos`` and only words among ``words``; without one, a new
    unit under the word's owner holding the owner's words that are among ``words``."""
    best: tuple[int, str] | None = None
    centers = [(set(c), uid) for c, uid in w.centers.items()]  # a center's unit holds its words, no more
    for reach, uid in [*centers, *((w.reach(sid), sid) for sid in w.scene_ids)]:
        if pos in reach and reach <= words and (best is None or len(reach) < best[0]):
            best = (len(reach), uid)
    if best is not None:
        return best[1]
    owner = w.owner[pos]
    carved = w.unit()
    w.edge(owner, carved, "F")
    for t in sorted(w.g.successors(owner), key=G.node_key):
        data = w.g.nodes[t]
        if data["layer"] == "0" and data["position"] in words:
            w.g.remove_edge(owner, t)
            w.terminal(carved, data["position"])
    return carved


def _rest(w: PassageBuilder) -> None:
    """Words no Scene holds under one function unit of the root; each punctuation mark under one of its own;
    Scenes and centers with no primary parent under the root."""
    words = [k for k in range(1, len(w.sk.tokens) + 1) if k not in w.owner and not w.sk.punct[k - 1]]
    if words:
        rest = w.unit()
        w.edge(G.ROOT_ID, rest, "F")
        for pos in words:
            w.terminal(rest, pos)
    for pos in (k for k in range(1, len(w.sk.tokens) + 1) if w.sk.punct[k - 1]):
        mark = w.unit(type_="PNCT")
        w.edge(G.ROOT_ID, mark, "U")
        w.terminal(mark, pos)
    for sid in w.scene_ids:
        if sid not in w.parent:
            w.edge(G.ROOT_ID, sid, "H")
    for uid in [*w.centers.values(), *w.groups.values()]:
        if uid not in w.parent:
            w.edge(G.ROOT_ID, uid, "F")


def skeleton_graph(sk: Skeleton) -> nx.DiGraph:
    """The passage of a skeleton (see the module's description).

    Raises
    ------
    ValueError
        Two centers overlap without one holding the other, or a unit cannot be given a word.
    """
    w = PassageBuilder(sk)
    _build_centers(w)
    _attach_scenes(w)
    _leaves(w)
    _rest(w)
    repair(w)
    if not exact(w, primary=True):
        raise ValueError(f"cannot write the skeleton of passage {sk.passage_id} as UCCA")
    return w.g


def skeleton_xml(sk: Skeleton, draft: bool = False) -> bytes:
    """The skeleton as standard UCCA XML (what ``samsa skeleton`` and ``samsa annotate`` write); a ``draft`` (a line
    the annotator has not marked done) says so in its passage attributes (:data:`DRAFT`)."""
    g = skeleton_graph(sk)
    if draft:
        g.graph["attributes"].update(DRAFT)
    return to_standard_xml(g)
