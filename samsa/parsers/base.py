"""The parser interface: sentences -> UCCA graphs (see :mod:`samsa.ucca.graph`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import networkx as nx

__all__ = ["Parser"]


@runtime_checkable
class Parser(Protocol):
    """A UCCA parser (or a loader of manual annotations).

    ``parse`` receives the source sentences, each a string or a token list, and
    returns one graph per sentence, in order.
    """

    name: str

    def parse(self, sentences: Sequence[str | Sequence[str]]) -> list[nx.DiGraph]: ...

    def signature(self) -> str: ...
