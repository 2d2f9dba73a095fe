"""``easse.utils.helpers``: reading files of split sentences (WikiSplit's ``<::::>``)."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike

from samsa.fileio import read_lines

__all__ = ["collapse_split_sentences", "read_lines", "read_split_lines"]


def read_split_lines(path: str | PathLike[str], split_sep: str = "<::::>") -> list[list[str]]:
    """Each line as its list of sentences (cut at ``split_sep``, each stripped)."""
    return [[s.strip() for s in line.split(split_sep)] for line in read_lines(path, max_tokens=None)]


def collapse_split_sentences(
    sys_sents: Sequence[Sequence[str]], refs_sents: Sequence[Sequence[Sequence[str]]]
) -> tuple[list[str], list[list[str]]]:
    """Join the sentences of each line with a space: outputs, and each reference stream."""
    return [" ".join(s) for s in sys_sents], [[" ".join(s) for s in stream] for stream in refs_sents]
