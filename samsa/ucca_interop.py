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

__all__ = ["from_ucca", "to_ucca", "ucca_available"]


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


def from_ucca(passage: Any) -> nx.DiGraph:
    """``ucca.core.Passage`` -> our graph."""
    return parse_standard_bytes(ET.tostring(_convert().to_standard(passage)), f"<ucca passage {passage.ID}>")
