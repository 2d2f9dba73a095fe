"""How many actions of ``samsa annotate`` turn one skeleton into another (the parse's into the gold one).

:func:`script` writes the actions out (:class:`~samsa.annotate.edits.Edit`, one undo step each, as the page
counts them); applying them (:func:`~samsa.annotate.edits.apply`) gives the target, but for the Scenes' order,
which no action changes (a new Scene goes by its first word). Scenes are paired greedily, the pair that saves
the most actions first, so the count is an upper bound of the fewest actions, not always the fewest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from samsa.annotate.edits import Edit, apply
from samsa.ucca.skeleton import Center, SceneSkeleton, Skeleton

__all__ = ["same_reading", "script"]


class _Part(NamedTuple):
    """A participant as compared: its centers (a Scene's: that Scene's main relation), whether it is a Scene
    (and which, in its own skeleton), whether remote."""

    centers: tuple[Center, ...]
    scene: int | None
    remote: bool


def _parts(sk: Skeleton, s: SceneSkeleton) -> list[_Part]:
    return [
        _Part(sk.scenes[p.scene].main if p.scene is not None else p.centers, p.scene, p.remote) for p in s.participants
    ]


def _words_of(centers: Sequence[Center]) -> set[int]:
    return {w for c in centers for w in c}


def _create_part_cost(p: _Part) -> int:
    """add_participant, add_remote_participant or add_scene_participant; toggle_remote for a remote Scene."""
    return 1 + (p.scene is not None and p.remote)


def _fix_part_cost(have: _Part, want: _Part) -> int:
    if want.scene is not None:
        fix = int(have.scene is None or have.centers != want.centers)
    else:
        fix = int(have.scene is not None or have.centers != want.centers)
    return fix + (have.remote != want.remote)


def _pair_parts(have: list[_Part], want: list[_Part]) -> list[tuple[int, int]]:
    """Participants paired greedily: equal ones first, then by shared center words (links: same main)."""
    pairs: list[tuple[int, int]] = []
    free_h, free_w = set(range(len(have))), set(range(len(want)))
    scored = []
    for i, h in enumerate(have):
        for j, w in enumerate(want):
            shared = len(_words_of(h.centers) & _words_of(w.centers))
            saving = 1 + _create_part_cost(w) - _fix_part_cost(h, w)
            if saving > 0 and (shared or h == w or (h.centers == w.centers)):
                scored.append((-saving, -shared, i, j))
    for _, _, i, j in sorted(scored):
        if i in free_h and j in free_w:
            pairs.append((i, j))
            free_h.discard(i)
            free_w.discard(j)
    return pairs


def _scene_fix_cost(have_sk: Skeleton, h: SceneSkeleton, want_sk: Skeleton, w: SceneSkeleton) -> int:
    cost = int(h.main != w.main)
    have, want = _parts(have_sk, h), _parts(want_sk, w)
    pairs = _pair_parts(have, want)
    cost += sum(_fix_part_cost(have[i], want[j]) for i, j in pairs)
    cost += (
        len(have) - len(pairs) + sum(_create_part_cost(want[j]) for j in set(range(len(want))) - {j for _, j in pairs})
    )
    return cost + (set(w.words) != set(h.words) | _words_of(w.main) | {x for p in want for x in _words_of(p.centers)})


def _scene_create_cost(want_sk: Skeleton, w: SceneSkeleton) -> int:
    want = _parts(want_sk, w)
    needed = _words_of(w.main) | {x for p in want for x in _words_of(p.centers)}
    return 1 + sum(_create_part_cost(p) for p in want) + (set(w.words) != needed)


def _pair_scenes(have: Skeleton, want: Skeleton) -> dict[int, int]:
    """Gold Scene -> parsed Scene, greedily by the actions a pairing saves (deleting and creating cost more)."""
    scored = []
    for i, h in enumerate(have.scenes):
        for j, w in enumerate(want.scenes):
            saving = 1 + _scene_create_cost(want, w) - _scene_fix_cost(have, h, want, w)
            if saving > 0:
                scored.append((-saving, i, j))
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in sorted(scored):
        if j not in out and i not in used:
            out[j] = i
            used.add(i)
    return out


class _Builder:
    """The skeleton being edited, which gold Scene each of its Scenes is, and the actions so far."""

    def __init__(self, start: Skeleton, want: Skeleton) -> None:
        self.sk, self.want = start, want
        pairs = _pair_scenes(start, want)
        back = {i: j for j, i in pairs.items()}
        self.ids: list[int | None] = [back.get(i) for i in range(len(start.scenes))]
        self.edits: list[Edit] = []

    def do(self, e: Edit) -> None:
        self.sk = apply(self.sk, e)
        self.edits.append(e)

    def at(self, j: int) -> int:
        return self.ids.index(j)

    def run(self) -> list[Edit]:
        for k in reversed(range(len(self.ids))):
            if self.ids[k] is None:
                self.do(Edit("delete_scene", k))
                del self.ids[k]
        for j, w in enumerate(self.want.scenes):
            if j not in self.ids:
                before = self.sk.scenes
                self.do(Edit("new_scene", selection=_flat(w.main)))
                new = next(k for k in range(len(self.sk.scenes)) if k >= len(before) or self.sk.scenes[k] != before[k])
                self.ids.insert(new, j)
        for j, w in enumerate(self.want.scenes):
            self._main(j, w)
            self._participants(j, w)
        for j, w in sorted(enumerate(self.want.scenes), key=lambda jw: len(jw[1].words)):  # inner Scenes first
            if self.sk.scenes[self.at(j)].words != w.words:
                self.do(Edit("set_words", self.at(j), selection=w.words))
        return self.edits

    def _main(self, j: int, w: SceneSkeleton) -> None:
        if self.sk.scenes[self.at(j)].main != w.main:
            self.do(Edit("set_main", self.at(j), selection=_flat(w.main)))

    def _participants(self, j: int, w: SceneSkeleton) -> None:
        have, want = _parts(self.sk, self.sk.scenes[self.at(j)]), _parts(self.want, w)
        pairs = _pair_parts(have, want)
        for i, jj in pairs:
            self._fix(j, i, have[i], want[jj])
        for jj in sorted(set(range(len(want))) - {b for _, b in pairs}):
            self._add(j, want[jj])
        for i in sorted(set(range(len(have))) - {a for a, _ in pairs}, reverse=True):
            self.do(Edit("remove_participant", self.at(j), i))

    def _add(self, j: int, want: _Part) -> None:
        k = self.at(j)
        if want.scene is not None:
            self.do(Edit("add_scene_participant", k, target=self.at(want.scene)))
            if want.remote:
                self.do(Edit("toggle_remote", k, len(self.sk.scenes[k].participants) - 1))
        else:
            name = "add_remote_participant" if want.remote else "add_participant"
            self.do(Edit(name, k, selection=_flat(want.centers)))

    def _fix(self, j: int, i: int, have: _Part, want: _Part) -> None:
        k = self.at(j)
        if want.scene is not None:
            target = self.at(want.scene)
            if self.sk.scenes[k].participants[i].scene != target:
                self.do(Edit("link_scene", k, i, target=target))
        elif have.scene is not None or have.centers != want.centers:
            if want.centers == ((),):
                self.do(Edit("make_implicit", k, i))
            else:
                self.do(Edit("recentre", k, i, selection=_flat(want.centers)))
        if self.sk.scenes[k].participants[i].remote != want.remote:
            self.do(Edit("toggle_remote", k, i))


def _flat(centers: Sequence[Center]) -> tuple[int, ...]:
    """The selection that gives these centers (the words of all)."""
    return tuple(sorted({w for c in centers for w in c}))


def script(start: Skeleton, target: Skeleton) -> list[Edit]:
    """The actions that turn ``start`` into ``target`` (both read as :meth:`Skeleton.canonical`)."""
    return _Builder(start.canonical(), target.canonical()).run()


def same_reading(a: Skeleton, b: Skeleton) -> bool:
    """Whether two skeletons are the same but for their Scenes' order (participants that are Scenes compared by
    that Scene's words and main relation)."""

    def key(sk: Skeleton) -> list[tuple]:
        sk = sk.canonical()
        out = []
        for s in sk.scenes:
            parts = sorted(
                (p.centers, p.remote, None if p.scene is None else (sk.scenes[p.scene].words, sk.scenes[p.scene].main))
                for p in s.participants
            )
            out.append((s.words, s.main, tuple(parts)))
        return sorted(out)

    return a.tokens == b.tokens and key(a) == key(b)
