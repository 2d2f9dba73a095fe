"""What ``samsa annotate`` serves: the lines to annotate, their parse, and the files it saves. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from samsa.annotate.requests import Line, SaveError, meaningful, page_skeleton, read_edit, read_skeleton
from samsa.ucca.skeleton import Skeleton, skeleton_of
from samsa.ucca.skeleton_write import DRAFT, WRITTEN_BY, skeleton_xml

__all__ = ["DONE", "Line", "SaveError", "Workspace", "file_status", "remove_stray_files"]

#: the states of a line's file that count as annotated: done here, or another tool's file of the line's words
DONE = frozenset({"done", "foreign"})


def file_status(path: Path, tokens: tuple[str, ...]) -> tuple[str, Skeleton | None, str]:
    """The file's state, its skeleton (when it has these words) and its version (a digest of its bytes; ``""``
    when absent). The state: ``absent``; ``draft`` or ``done`` (a skeleton file of these tokens that samsa wrote:
    resumed, and overwritten freely); ``foreign`` (any other file: another tool's annotation, or one of other
    words)."""
    from samsa.errors import SamsaError
    from samsa.ucca.xml import load_passage

    if not path.exists() and not path.is_symlink():
        return "absent", None, ""
    if path.is_symlink() or not path.is_file():
        return "foreign", None, "?"
    try:
        version = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        g = load_passage(path)
        sk = skeleton_of(g)
    except (SamsaError, ValueError, OSError):
        return "foreign", None, "?"
    if sk.tokens != tokens:
        return "foreign", None, version
    attributes = g.graph.get("attributes", {})
    if not all(attributes.get(k) == v for k, v in WRITTEN_BY.items()):
        return "foreign", sk, version
    return ("draft" if all(attributes.get(k) == v for k, v in DRAFT.items()) else "done"), sk, version


class Workspace:
    """The lines, the folder, the plan's drawn lines, and the estimate of the systems named (``estimator``: None
    without a plan or without systems). Each line's state is read once and then kept as this workspace saves it,
    so that a save costs the same whatever the folder holds."""

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
        self.drawn = frozenset(plan_drawn or ())
        self.states: dict[int, str] = {}
        self.done = {"all": 0, "drawn": 0}  # kept as states change: a save costs the same for 5 lines or 5,000
        for n in self.order:
            self._set(n, self._read(n)[0])

    def _set(self, number: int, status: str) -> None:
        step = (status in DONE) - (self.states.get(number) in DONE)
        self.done["all"] += step
        self.done["drawn"] += step if number in self.drawn else 0
        self.states[number] = status

    def path(self, number: int) -> Path:
        return self.directory / f"{int(number)}.xml"

    def _read(self, number: int) -> tuple[str, Skeleton | None, str]:
        return file_status(self.path(number), self.lines[number].parse.tokens)

    def counts(self) -> dict[str, Any]:
        """How many lines are done (a draft is not), of how many; with a plan, how many drawn lines are."""
        out: dict[str, Any] = {"done": self.done["all"], "total": len(self.order)}
        if self.plan_drawn is not None:
            done, available = self.done["drawn"], self.estimator is not None
            out["plan"] = {"drawn": len(self.drawn), "annotated": done, "estimate_available": available}
        return out

    def overview(self) -> dict[str, Any]:
        """Every line's number, state and text (shortened), the counts, and the first line not done."""
        rows = [{"line": n, "status": self.states[n], "text": self.lines[n].text[:120]} for n in self.order]
        first = next((k for k, r in enumerate(rows) if r["status"] not in DONE), 0)
        return {"lines": rows, **self.counts(), "resume": first}

    def open(self, number: int) -> dict[str, Any]:
        """The page's view of a line: tokens, punctuation, the parse's skeleton, the saved one (ours, or a
        foreign file's of these words), the file's state and version, the parse's doubt, the line's probability."""
        line = self.lines[number]
        status, saved, version = self._read(number)
        self._set(number, status)
        return {
            "line": number,
            "tokens": list(line.parse.tokens),
            "punct": list(line.parse.punct),
            "parse": {"scenes": line.parse.to_json()["scenes"]},
            "saved": None if saved is None else {"scenes": saved.in_text_order().to_json()["scenes"]},
            "status": status,
            "version": version,
            "file": self.path(number).name,
            "scene_counts": {str(k): round(p, 4) for k, p in sorted(line.scene_counts.items())},
            "probability": line.probability,
        }

    def save(self, number: int, doc: Any) -> dict[str, Any]:
        """Write line ``number``'s skeleton to ``N.xml`` atomically, a draft unless ``done``; refused (409) over a
        foreign file unless ``overwrite``, and over a file changed since the page's ``version``."""
        line = self.lines[number]
        sk = read_skeleton(doc, line)
        done = doc.get("done") is True
        try:
            data = skeleton_xml(sk, draft=not done)
        except ValueError as e:
            raise SaveError(422, f"cannot be written as UCCA: {e}") from None
        name = self.path(number).name
        with self.lock:
            status, _, version = self._read(number)
            if "version" in doc and doc["version"] != version:
                raise SaveError(409, f"{name} changed since it was opened (another tab or tool): reload it", "stale")
            if status == "foreign" and doc.get("overwrite") is not True:
                raise SaveError(409, f"{name} was written by another tool: replace it only if you mean to")
            _atomic_write(self.path(number), data)
            self._set(number, "done" if done else "draft")
        new_version = hashlib.sha256(data).hexdigest()[:16]
        return {"saved": name, "status": self.states[number], "version": new_version, **self.counts()}

    def edit(self, number: int, doc: Any) -> dict[str, Any]:
        """The page's skeleton of line ``number`` after one edit (:func:`samsa.annotate.edits.apply`), its Scenes in
        samsa's order, and the Scene to make active (the new one after ``new_scene``); nothing is saved. An edit whose
        result means nothing (:func:`~samsa.annotate.requests.meaningful`) is refused, naming why."""
        from samsa.annotate.edits import apply

        line = self.lines[number]
        sk = page_skeleton(doc, line)
        e = read_edit(doc.get("edit"), line)
        try:
            after = apply(sk, e)
        except (ValueError, IndexError) as err:
            raise SaveError(422, str(err)) from None
        active = len(sk.scenes) if e.name == "new_scene" else e.scene
        order = after.text_order()
        active = order.index(active) if active in order else len(order) - 1
        ordered = after._replace(scenes=after.renumbered(order))
        return {"scenes": meaningful(ordered, unfinished=True).to_json()["scenes"], "active": active}

    def estimate(self) -> dict[str, Any]:
        """Each system's estimate, computed in this process (``estimator``), once every drawn line is done."""
        if self.plan_drawn is None:
            return {"available": False, "why": "no plan"}
        for n in (n for n in self.plan_drawn if self.states[n] not in DONE):  # another tool may have written them
            self._set(n, self._read(n)[0])
        missing = [n for n in self.plan_drawn if self.states[n] not in DONE]
        if missing:
            return {"available": False, "why": f"{len(missing)} drawn line(s) to annotate and mark done"}
        if self.estimator is None:
            return {"available": False, "why": "no system named: give their files after samsa annotate's options"}
        from samsa.errors import SamsaError

        try:
            return {"available": True, **self.estimator()}
        except SamsaError as e:
            return {"available": False, "why": str(e)}


#: the temporary files a save leaves only when it is killed half-way (``_atomic_write``'s names)
STRAY = re.compile(r"\.[1-9][0-9]*\.xml\..+\.tmp")


def remove_stray_files(directory: Path) -> int:
    """Remove what killed saves left in ``directory`` (:data:`STRAY`), and say how many."""
    stray = [p for p in directory.iterdir() if STRAY.fullmatch(p.name) and p.is_file() and not p.is_symlink()]
    for p in stray:
        p.unlink(missing_ok=True)
    return len(stray)


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
