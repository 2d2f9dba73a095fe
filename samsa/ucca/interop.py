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
from samsa.ucca.xml import parse_standard_bytes, to_standard_xml

__all__ = [
    "REMOTE_CATEGORIES",
    "from_ucca",
    "merge_duplicate_edges",
    "normalize_pair",
    "to_ucca",
    "ucca_available",
    "ucca_version",
]


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
    """``ucca.core.Passage`` -> our graph (validated unless ``validate=False``).

    The ``ucca`` package allows two edges between the same pair of units (its normalization makes them,
    flattening a unit whose child already hangs from the parent); a graph here has one edge per pair, so such
    edges become one with all their categories, as the package's evaluator counts them (one unit, every label).
    A remote edge beside a primary one between the same pair is kept as the primary edge's attribute
    :data:`REMOTE_CATEGORIES` (its categories), which :mod:`samsa.ucca.evaluation` counts as the remote unit it is.
    """
    root = _convert().to_standard(passage)
    merge_duplicate_edges(root)
    return parse_standard_bytes(ET.tostring(root), f"<ucca passage {passage.ID}>", validate=validate)


#: edge attribute: the categories of a remote edge merged into the primary edge between the same pair of units
REMOTE_CATEGORIES = "remote_categories"


def merge_duplicate_edges(root: ET.Element) -> int:
    """Merge the ``<edge>`` elements of one node that point to the same ``toID`` (standard XML, in place);
    returns how many edges were removed."""
    removed = 0
    for node in root.iter("node"):
        kept: dict[str | None, ET.Element] = {}
        for edge in list(node.findall("edge")):
            target = edge.get("toID")
            first = kept.get(target)
            if first is None:
                kept[target] = edge
                continue
            if _remote(first) and not _remote(edge):  # keep the primary edge
                node.remove(first)
                kept[target], first, edge = edge, edge, first
            else:
                node.remove(edge)
            if _remote(edge) and not _remote(first):  # the remote unit is still counted as one (ucca_eval)
                attrs = first.find("attributes")
                if attrs is None:
                    attrs = ET.SubElement(first, "attributes")
                remote_tags = [c.get("tag") or "" for c in edge.findall("category")] or [edge.get("type") or ""]
                attrs.set(REMOTE_CATEGORIES, "|".join(remote_tags))
            elif _remote(edge) == _remote(first):
                tags = {c.get("tag") for c in first.findall("category")}
                for c in edge.findall("category"):
                    if c.get("tag") not in tags:
                        first.append(c)
                        tags.add(c.get("tag"))
            removed += 1
    return removed


def _remote(edge: ET.Element) -> bool:
    attrs = edge.find("attributes")
    return attrs is not None and attrs.get("remote") == "True"


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
