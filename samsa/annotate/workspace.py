"""What ``samsa annotate`` serves: the lines to annotate, their parse, and the files it saves.

More: docs/architecture.md, "Module notes", ``samsa.annotate.workspace``.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from samsa.annotate.edits import Edit
from samsa.ucca.skeleton import Participant, SceneSkeleton, Skeleton, skeleton_of
from samsa.ucca.skeleton_write import WRITTEN_BY, skeleton_xml

__all__ = ["Line", "SaveError", "Workspace", "file_status"]


class Line(NamedTuple):
    """A line to annotate: its number (1-based), its text, its parse's skeleton (tokens included), the parse's
    Scene-count distribution (empty without doubt) and its probability of being drawn (None without a plan)."""

    number: int
    text: str
    parse: Skeleton
    scene_counts: dict[int, float]
    probability: float | None = None


class SaveError(ValueError):
    """A save refused: ``status`` is the HTTP status the server answers with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def file_status(path: Path, tokens: tuple[str, ...]) -> tuple[str, Skeleton | None]:
    """``absent``; ``ours`` (a skeleton file of these tokens: resumed, and overwritten freely); ``foreign`` (any
    other file: another tool's annotation, or one of other words), with its skeleton when it has these words."""
    from samsa.errors import SamsaError
    from samsa.ucca.xml import load_passage

    if not path.exists() and not path.is_symlink():
        return "absent", None
    if path.is_symlink() or not path.is_file():
        return "foreign", None
    try:
        g = load_passage(path)
        sk = skeleton_of(g)
    except (SamsaError, ValueError, OSError):
        return "foreign", None
    if sk.tokens != tokens:
        return "foreign", None
    ours = all(g.graph.get("attributes", {}).get(k) == v for k, v in WRITTEN_BY.items())
    return ("ours" if ours else "foreign"), sk


def read_skeleton(doc: Any, line: Line) -> Skeleton:
    """The page's skeleton of ``line``, checked (:func:`page_skeleton`), in its canonical form."""
    return page_skeleton(doc, line).canonical()


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
    return line.parse._replace(scenes=tuple(scenes), passage_id=str(line.number))


def read_edit(doc: Any, line: Line) -> Edit:
    """The edit the page asks for (``{"name", "scene", "participant", "selection", "target"}``), checked."""
    from samsa.annotate.edits import EDITS

    if not isinstance(doc, dict) or doc.get("name") not in EDITS:
        raise SaveError(400, f"an edit is one of {', '.join(sorted(EDITS))}")
    scene, participant, target = doc.get("scene", 0), doc.get("participant", 0), doc.get("target")
    if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in (scene, participant, target)):
        raise SaveError(400, "an edit's scene, participant and target are numbers")
    return Edit(doc["name"], scene or 0, participant or 0, _positions(doc.get("selection", []), line), target)


class Workspace:
    """The lines, the folder, the plan's drawn lines, and the estimate of the systems named (``estimator``: None
    without a plan or without systems)."""

    def __init__(
        self,
        lines: list[Line],
        directory: Path,
        plan_drawn: tuple[int, ...] | None = None,
        estimator: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.lines = {line.number: line for line in lines}
        self.order = [line.number for line in lines]
        self.directory = directory
        self.plan_drawn = plan_drawn
        self.estimator = estimator
        self.lock = threading.Lock()  # one save at a time: a status read and its replace belong together

    def path(self, number: int) -> Path:
        return self.directory / f"{int(number)}.xml"

    def status(self, number: int) -> str:
        return file_status(self.path(number), self.lines[number].parse.tokens)[0]

    def overview(self) -> dict[str, Any]:
        """Every line's number, status and text (shortened), how many are done, and the first not done."""
        rows = [{"line": n, "status": self.status(n), "text": self.lines[n].text[:120]} for n in self.order]
        done = sum(r["status"] != "absent" for r in rows)
        first = next((k for k, r in enumerate(rows) if r["status"] == "absent"), 0)
        out: dict[str, Any] = {"lines": rows, "done": done, "total": len(rows), "resume": first}
        if self.plan_drawn is not None:
            drawn = set(self.plan_drawn)
            out["plan"] = {
                "drawn": len(drawn),
                "annotated": sum(r["status"] != "absent" for r in rows if r["line"] in drawn),
                "estimate_available": self.estimator is not None,
            }
        return out

    def open(self, number: int) -> dict[str, Any]:
        """The page's view of a line: tokens, punctuation, the parse's skeleton, the saved one (ours, or a
        foreign file's of these words), the file's status, the parse's doubt, the line's probability."""
        line = self.lines[number]
        status, saved = file_status(self.path(number), line.parse.tokens)
        return {
            "line": number,
            "tokens": list(line.parse.tokens),
            "punct": list(line.parse.punct),
            "parse": {"scenes": line.parse.to_json()["scenes"]},
            "saved": None if saved is None else {"scenes": saved.to_json()["scenes"]},
            "status": status,
            "file": self.path(number).name,
            "scene_counts": {str(k): round(p, 4) for k, p in sorted(line.scene_counts.items())},
            "probability": line.probability,
        }

    def save(self, number: int, doc: Any) -> dict[str, Any]:
        """Write line ``number``'s skeleton to ``N.xml`` atomically; a foreign file only with ``overwrite``."""
        line = self.lines[number]
        sk = read_skeleton(doc, line)
        try:
            data = skeleton_xml(sk)
        except ValueError as e:
            raise SaveError(422, f"cannot be written as UCCA: {e}") from None
        with self.lock:
            status = self.status(number)
            if status == "foreign" and not (isinstance(doc, dict) and doc.get("overwrite") is True):
                raise SaveError(
                    409, f"{self.path(number).name} was written by another tool: replace it only if you mean to"
                )
            _atomic_write(self.path(number), data)
        return {"saved": self.path(number).name, "overview": self.overview()}

    def edit(self, number: int, doc: Any) -> dict[str, Any]:
        """The page's skeleton of line ``number`` after one edit (:func:`samsa.annotate.edits.apply`), and the
        Scene to make active (the new one after ``new_scene``); nothing is saved."""
        from samsa.annotate.edits import apply, placed

        line = self.lines[number]
        sk = page_skeleton(doc, line)
        e = read_edit(doc.get("edit"), line)
        try:
            after = apply(sk, e)
        except (ValueError, IndexError) as err:
            raise SaveError(422, str(err)) from None
        active = placed(sk, e.selection) if e.name == "new_scene" else e.scene
        return {"scenes": after.to_json()["scenes"], "active": active}

    def estimate(self) -> dict[str, Any]:
        """Each system's estimate, computed in this process (``estimator``), once every drawn line is annotated."""
        if self.plan_drawn is None:
            return {"available": False, "why": "no plan"}
        missing = [n for n in self.plan_drawn if self.status(n) == "absent"]
        if missing:
            return {"available": False, "why": f"{len(missing)} drawn line(s) to annotate"}
        if self.estimator is None:
            return {"available": False, "why": "no system named: give their files after samsa annotate's options"}
        from samsa.errors import SamsaError

        try:
            return {"available": True, **self.estimator()}
        except SamsaError as e:
            return {"available": False, "why": str(e)}


def _atomic_write(path: Path, data: bytes) -> None:
    """``data`` into ``path`` through a temporary file beside it (named after it), replaced in one step."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    from samsa.fileio import current_umask

    return current_umask()
