"""The edits of ``samsa annotate``, one undo step each, on a :class:`~samsa.ucca.skeleton.Skeleton`. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from typing import NamedTuple

from samsa.ucca.skeleton import Center, Participant, SceneSkeleton, Skeleton

__all__ = ["EDITS", "PARTICIPANT_EDITS", "Edit", "apply"]


class Edit(NamedTuple):
    """One action: its name (a key of :data:`EDITS`), the Scene and participant it acts on, the selection."""

    name: str
    scene: int = 0
    participant: int = 0
    selection: tuple[int, ...] = ()
    target: int | None = None  # link: the Scene the participant is


def _required(scene: SceneSkeleton, scenes: tuple[SceneSkeleton, ...]) -> set[int]:
    words = {w for c in scene.main for w in c}
    for p in scene.participants:
        words |= {w for c in p.centers for w in c}
        if p.scene is not None and 0 <= p.scene < len(scenes):
            words |= set(scenes[p.scene].words)
    return words


def _settle(sk: Skeleton, scenes: list[SceneSkeleton]) -> Skeleton:
    """Every Scene's words grown to what it needs (again while a Scene among participants grew)."""
    out = tuple(scenes)
    for _ in range(len(out) + 1):
        grown = tuple(s._replace(words=tuple(sorted(set(s.words) | _required(s, out)))) for s in out)
        if grown == out:
            break
        out = grown
    return sk._replace(scenes=out)


def _new_scene(sk: Skeleton, e: Edit) -> list[SceneSkeleton]:
    """A Scene whose main relation (and words) is the selection (none: an implicit main relation), last (samsa's
    order, :meth:`~samsa.ucca.skeleton.Skeleton.in_text_order`, puts it in its place)."""
    return [*sk.scenes, SceneSkeleton(tuple(sorted(set(e.selection))), sk.runs([e.selection]), ())]


def _delete_scene(sk: Skeleton, e: Edit) -> list[SceneSkeleton]:
    """The Scene goes, and with it every participant that was it."""
    return list(sk.renumbered([k for k in range(len(sk.scenes)) if k != e.scene]))


def _scene_edit(sk: Skeleton, e: Edit) -> list[SceneSkeleton]:
    s = sk.scenes[e.scene]
    centers = sk.runs([e.selection])
    parts = list(s.participants)
    if e.name == "set_main":
        s = s._replace(main=centers)
    elif e.name == "set_words":
        s = s._replace(words=tuple(sorted(set(e.selection))))
    elif e.name in ("add_participant", "add_remote_participant"):
        parts.append(Participant(centers, None, e.name == "add_remote_participant"))
    elif e.name == "add_scene_participant":
        parts.append(Participant((), e.target, False))
    elif e.name == "remove_participant":
        del parts[e.participant]
    else:
        parts[e.participant] = _participant_edit(parts[e.participant], e, centers)
    scenes = list(sk.scenes)
    scenes[e.scene] = s._replace(participants=tuple(parts))
    if e.name == "set_words":  # the one edit that may drop words: only those the Scene needs come back
        return list(_settle(sk, scenes).scenes)
    return scenes


def _participant_edit(p: Participant, e: Edit, centers: tuple[Center, ...]) -> Participant:
    if e.name == "recentre":
        return Participant(centers, None, p.remote)
    if e.name == "toggle_remote":
        return p._replace(remote=not p.remote)
    if e.name == "make_implicit":
        return Participant(((),), None, p.remote)
    if e.name == "link_scene":
        return Participant((), e.target, p.remote)
    raise ValueError(f"unknown edit {e.name!r}")


#: every edit by name (the page's buttons and keys: ``assets/keys.json``)
EDITS = frozenset(
    "new_scene delete_scene set_main set_words add_participant add_remote_participant add_scene_participant "
    "remove_participant recentre toggle_remote make_implicit link_scene".split()
)

#: edits that act on one participant of the Scene
PARTICIPANT_EDITS = frozenset({"remove_participant", "recentre", "toggle_remote", "make_implicit", "link_scene"})


def apply(sk: Skeleton, e: Edit) -> Skeleton:
    """The skeleton after one edit (a ValueError for one that names no Scene or participant there)."""
    if e.name not in EDITS:
        raise ValueError(f"unknown edit {e.name!r}")
    if e.name == "new_scene":
        scenes = _new_scene(sk, e)
    else:
        if not 0 <= e.scene < len(sk.scenes):
            raise ValueError(f"{e.name}: no Scene {e.scene}")
        if e.name == "delete_scene":
            scenes = _delete_scene(sk, e)
        else:
            n = len(sk.scenes[e.scene].participants)
            if e.name in PARTICIPANT_EDITS and not 0 <= e.participant < n:
                raise ValueError(f"{e.name}: Scene {e.scene} has no participant {e.participant}")
            if e.name in ("link_scene", "add_scene_participant") and not 0 <= (
                -1 if e.target is None else e.target
            ) < len(sk.scenes):
                raise ValueError("link_scene: no such Scene")
            scenes = _scene_edit(sk, e)
    return _settle(sk, scenes)
