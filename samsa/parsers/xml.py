"""The ``xml`` parser: gold/manual UCCA annotations read from a directory of XML files.

It does not parse anything: file ``k`` (natural sort order of file names, so
``2.xml`` comes before ``10.xml``) is the annotation of source line ``k``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from os import PathLike
from pathlib import Path

import networkx as nx

from samsa.errors import InputError
from samsa.ucca.xml import list_passage_files, load_passage

__all__ = ["XmlParser", "make"]


class XmlParser:
    """Load the UCCA graphs of ``directory`` in natural file-name order.

    Parameters
    ----------
    directory
        A directory of standard (or site) UCCA XML files, one sentence each.
    """

    name = "xml.v1"

    def __init__(self, directory: str | PathLike[str]) -> None:
        self.directory = Path(directory)
        self.files = list_passage_files(self.directory)
        if not self.files:
            raise InputError(self.directory, None, "directory holds no *.xml files")

    def load(self, progress: Callable[[int], object] | None = None) -> list[nx.DiGraph]:
        """All graphs, without pairing them with sentences; ``progress(1)`` after each file."""
        graphs = []
        for f in self.files:
            graphs.append(load_passage(f))
            if progress is not None:
                progress(1)
        return graphs

    def parse(self, sentences: Sequence[str | Sequence[str]] | int) -> list[nx.DiGraph]:
        """The graphs for ``sentences`` (or for a count of lines); counts must agree."""
        self.check_count(sentences if isinstance(sentences, int) else len(sentences))
        return self.load()

    def check_count(self, n: int) -> None:
        """Raise unless the directory holds one file per line of an ``n``-line output (nothing is loaded)."""
        if n != len(self.files):
            raise InputError(
                self.directory,
                None,
                f"holds {len(self.files)} UCCA XML files but the system output has {n} lines; "
                "they are paired in natural sort order of file names, so the counts must be equal",
            )

    def signature(self) -> str:
        return "xml"


def make(*, directory: str | PathLike[str]) -> XmlParser:
    """Registry factory."""
    return XmlParser(directory)
