"""Optional bridge to the ``ucca`` package (``pip install --no-deps ucca``).

The ``ucca`` package pins spaCy 2, so it is never a dependency; when it is
importable, these functions convert between its ``core.Passage`` and our graphs
through standard XML, the format both sides read and write.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import networkx as nx

from samsa.errors import PluginUnavailable
from samsa.ucca_xml import parse_standard_bytes, to_standard_xml

__all__ = ["from_ucca", "normalize_pair", "to_ucca", "ucca_available", "ucca_version"]


def _convert() -> Any:
    try:
        import ucca.convert
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise PluginUnavailable("the 'ucca' package is not installed; run: pip install --no-deps ucca==1.3.11") from e
    return ucca.convert


def ucca_available() -> bool:
    """True when ``import ucca.convert`` works."""
    try:
        _convert()
    except PluginUnavailable:
        return False
    return True


def to_ucca(g: nx.DiGraph) -> Any:
    """Our graph -> ``ucca.core.Passage``."""
    return _convert().from_standard(ET.fromstring(to_standard_xml(g)))


def from_ucca(passage: Any, *, validate: bool = True) -> nx.DiGraph:
    """``ucca.core.Passage`` -> our graph (validated unless ``validate=False``)."""
    data = ET.tostring(_convert().to_standard(passage))
    return parse_standard_bytes(data, f"<ucca passage {passage.ID}>", validate=validate)


def ucca_version() -> str:
    """The installed ``ucca`` package's version (for signatures)."""
    from importlib.metadata import PackageNotFoundError, version

    _convert()
    try:
        return version("ucca")
    except PackageNotFoundError:  # pragma: no cover - imported from a source tree
        return "unknown"


def normalize_pair(guessed: nx.DiGraph, ref: nx.DiGraph) -> tuple[nx.DiGraph, nx.DiGraph]:
    """The ``ucca`` evaluator's ``normalize=True`` step (the SemEval 2019 scoring setting), on copies.

    Each passage is normalized (``ucca.normalization.normalize``: punctuation
    re-attached, unary centers/functions/participants flattened, coordinated main
    relations split), then Function units with the same yield in both passages
    move under the root (``ucca.evaluation.move_functions``). It needs the
    optional ``ucca`` package: it is that package's own procedure, not a re-implementation.
    """
    _convert()
    from ucca.evaluation import move_functions
    from ucca.normalization import normalize

    pg, pr = to_ucca(guessed), to_ucca(ref)
    normalize(pg)
    normalize(pr)
    move_functions(pg, pr)
    # normalization may leave a unit without terminals (all its children moved away); the ucca evaluator
    # scores such graphs as they are, and so do we
    return from_ucca(pg, validate=False), from_ucca(pr, validate=False)
