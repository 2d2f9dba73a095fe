"""The keys of ``samsa annotate``, in one table (``assets/keys.json``): the page binds them and builds its help
from it, and docs/annotate.md's table is :func:`markdown` of it (``tests/test_annotate_server.py`` checks).

A press is a ``KeyboardEvent.key`` value, after ``Ctrl+`` when Control is held, and ``Shift+`` when Shift is
held on a key whose name is a word (Shift on a letter is the capital: ``A``). An action is an edit of
:mod:`samsa.annotate.edits` or one of the page's own (moving, selecting, saving, undoing, changing lines).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import NamedTuple

__all__ = ["Key", "keys", "markdown"]


class Key(NamedTuple):
    """The presses that do one action, how the help names them, what it does, and what it is in UCCA."""

    presses: tuple[str, ...]
    shown: str
    action: str
    does: str
    ucca: str = ""


def keys() -> tuple[Key, ...]:
    """The table, as the page reads it."""
    text = (resources.files("samsa.annotate") / "assets" / "keys.json").read_text(encoding="utf-8")
    return tuple(Key(**{**k, "presses": tuple(k["presses"])}) for k in json.loads(text))


def markdown() -> str:
    """The keys as docs/annotate.md shows them: a Markdown table, a key a row."""
    rows = [f"| {k.shown} | {k.does} | {k.ucca} |" for k in keys()]
    return "\n".join(["| key | what it does (an edit: one undo step) | in UCCA terms |", "|---|---|---|", *rows])
