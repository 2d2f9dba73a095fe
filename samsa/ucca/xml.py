"""Read and write UCCA XML: the standard format and the older annotation-site format. More: docs/architecture.md,
"Module notes"."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from os import PathLike
from pathlib import Path

import networkx as nx

from samsa.errors import InputError
from samsa.ucca import graph as G
from samsa.ucca.site import read_site
from samsa.ucca.validate import check_passage
from samsa.ucca.xmlsafe import Element, parse_xml, read_xml, standard_words

__all__ = [
    "list_passage_files",
    "load_passage",
    "load_passages",
    "natural_key",
    "passage_tokens",
    "read_site",
    "read_standard",
    "to_standard_xml",
    "write_standard",
]


def natural_key(name: str) -> list[object]:
    """Sort key putting ``s2.xml`` before ``s10.xml``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


# --------------------------------------------------------------------------- standard


def _attributes(el: Element) -> dict[str, str]:
    sub = el.find("attributes")
    return dict(sub.attrib) if sub is not None else {}


def _extra(el: Element) -> dict[str, str]:
    sub = el.find("extra")
    return dict(sub.attrib) if sub is not None else {}


def _parts(el: Element) -> tuple[dict[str, str], dict[str, str], list[Element], list[Element]]:
    """One pass over a node or edge element: attributes, extra, edges, categories."""
    attrs: dict[str, str] = {}
    extra: dict[str, str] = {}
    edges: list[Element] = []
    cats: list[Element] = []
    for c in el.children:
        if c.tag == "edge":
            edges.append(c)
        elif c.tag == "category":
            cats.append(c)
        elif c.tag == "attributes":
            attrs = dict(c.attrib)
        elif c.tag == "extra":
            extra = dict(c.attrib)
    return attrs, extra, edges, cats


def read_standard(root: Element, path: str | PathLike[str] = "<xml>", *, validate: bool = True) -> nx.DiGraph:
    """Convert a parsed standard-format document into a passage graph.

    ``validate=False`` skips the structural checks of :mod:`samsa.ucca.validate` (only for graphs another tool
    derived from valid ones, such as the ``ucca`` package's evaluation normalization).

    Raises
    ------
    InputError
        Unknown node types, edges to missing nodes, malformed IDs; the message
        names ``path`` and the line of the offending element.
    """
    if root.tag != "root":
        raise InputError(path, root.line, f"expected a <root> element, found <{root.tag}>")
    g = G.new_passage(root.get("passageID") or Path(str(path)).stem, attributes=_attributes(root))
    g.graph["extra"] = _extra(root)
    edges: list[tuple[str, Element]] = []
    lines: dict[str, int] = {}  # node ID -> line of its <node>, for duplicate IDs and validation errors
    layers: dict[str, int] = {}
    for layer in root.findall("layer"):
        lid = layer.get("layerID")
        if lid not in ("0", "1"):
            raise InputError(path, layer.line, f"unknown layer {lid!r}; UCCA XML has layers '0' and '1'")
        if lid in layers:
            raise InputError(path, layer.line, f"layer {lid} appears twice (first on line {layers[lid]})")
        layers[lid] = layer.line
        g.graph["layer_attributes"][lid] = (_attributes(layer), _extra(layer))
        for node in layer.findall("node"):
            edges.extend(_read_node(g, node, lid, lines, path))
    for parent, edge in edges:
        _read_edge(g, parent, edge, path)
    for lid in ("0", "1"):
        if lid not in layers:
            raise InputError(path, root.line, f"layer {lid} is missing; UCCA XML has layers '0' and '1'")
    lines.setdefault(G.ROOT_ID, root.line)
    return check_passage(g, path, lines) if validate else g


def _read_node(
    g: nx.DiGraph, node: Element, lid: str, lines: dict[str, int], path: str | PathLike[str]
) -> list[tuple[str, Element]]:
    """Add a ``<node>`` of layer ``lid`` to ``g`` (its line into ``lines``); its ``<edge>`` elements, to read once
    every node is in."""
    nid, ntype = node.get("ID"), node.get("type")
    if not nid or not ntype:
        raise InputError(path, node.line, "<node> needs both ID and type attributes")
    if nid in lines:
        raise InputError(path, node.line, f"node ID {nid} is used twice (first on line {lines[nid]})")
    lines[nid] = node.line
    try:
        nlayer, number = G.node_key(nid)
    except ValueError as e:
        raise InputError(path, node.line, str(e)) from None
    if str(nlayer) != lid:
        raise InputError(path, node.line, f"node {nid} is inside layer {lid}")
    attrs, extra, node_edges, _ = _parts(node)
    if lid == "0":
        if ntype not in ("Word", "Punctuation"):
            raise InputError(path, node.line, f"terminal {nid} has type {ntype!r}; expected Word or Punctuation")
        if "text" not in attrs:
            raise InputError(path, node.line, f"terminal {nid} has no text attribute")
        try:
            para = int(attrs.get("paragraph", 1))
            ppos = int(attrs.get("paragraph_position", number))
        except ValueError:
            raise InputError(path, node.line, f"terminal {nid} has a non-integer paragraph attribute") from None
        g.add_node(
            nid,
            layer="0",
            type=ntype,
            text=attrs["text"],
            position=number,
            paragraph=para,
            paragraph_position=ppos,
            attributes=attrs,
            extra=extra,
        )
    else:
        if ntype not in ("FN", "PNCT", "LKG"):
            raise InputError(path, node.line, f"unit {nid} has type {ntype!r}; expected FN, PNCT or LKG")
        G.add_unit(g, nid, type=ntype, implicit=attrs.get("implicit") == "True", attributes=attrs, extra=extra)
    return [(nid, e) for e in node_edges]


def _read_edge(g: nx.DiGraph, parent: str, edge: Element, path: str | PathLike[str]) -> None:
    """Add an ``<edge>`` of node ``parent`` to ``g``: its categories (``<category>`` elements, or the old format's
    edge type) and attributes; the same edge written twice is read once."""
    child = edge.get("toID")
    if child is None or child not in g:
        raise InputError(path, edge.line, f"edge from {parent} points to unknown node {child!r}")
    attrs, _, _, cat_elems = _parts(edge)
    cat_attrs = [dict(c.attrib) for c in cat_elems]
    if not cat_attrs:  # old format: the category is the edge type
        etype = edge.get("type")
        if not etype:
            raise InputError(path, edge.line, f"edge {parent} -> {child} has neither type nor <category>")
        cats: tuple[str, ...] = (etype,)
    else:
        missing = [c for c in cat_attrs if not c.get("tag")]
        if missing:
            raise InputError(path, edge.line, f"edge {parent} -> {child} has a <category> without tag")
        cats = tuple(c["tag"] for c in cat_attrs)
    if g.has_edge(parent, child) and _repeats(g.edges[parent, child], cats, attrs):
        return  # the same edge written twice (German-20K train 25702014, a linkage argument): read once
    try:
        G.add_edge(
            g,
            parent,
            child,
            cats,
            remote=attrs.get("remote") == "True",
            attributes=attrs,
            category_attributes=cat_attrs or None,
        )
    except ValueError as e:
        raise InputError(path, edge.line, str(e)) from None
    g.edges[parent, child]["legacy_type"] = not cat_attrs


def _repeats(existing: dict, cats: tuple[str, ...], attrs: dict[str, str]) -> bool:
    """Whether an edge read again has the same categories and attributes as the one already read."""
    return tuple(existing["categories"]) == cats and existing["attributes"] == {
        **attrs,
        **({"remote": "True"} if attrs.get("remote") == "True" else {}),
    }


# --------------------------------------------------------------------------- files


def load_passage(path: str | PathLike[str]) -> nx.DiGraph:
    """Read one UCCA XML file, standard or site format (detected from the document)."""
    root = read_xml(path)
    if root.find("units") is not None:
        return read_site(root, path)
    return read_standard(root, path)


def passage_tokens(path: str | PathLike[str]) -> list[str]:
    """The words of a UCCA XML file in order (what the check of an annotation against its source line reads):
    a standard file is read only up to the end of its layer 0, without building its graph; any other file (the
    site format, or one this does not read so) is read whole, and refused as :func:`load_passage` refuses it."""
    words = standard_words(path)
    if words is not None:
        return words
    root = read_xml(path)
    return G.tokens(read_site(root, path) if root.find("units") is not None else read_standard(root, path))


def list_passage_files(directory: str | PathLike[str]) -> list[Path]:
    """The ``*.xml`` files of a directory in natural sort order (``2.xml`` before ``10.xml``).

    File k annotates line k, so two names with the same place in that order (``1.xml`` and ``01.xml``) are
    refused: which one came first would be an accident of the file system.
    """
    d = Path(directory)
    if not d.is_dir():
        raise InputError(d, None, "not a directory of UCCA XML files")
    files = sorted((p for p in d.iterdir() if p.suffix == ".xml" and p.is_file()), key=lambda p: natural_key(p.name))
    for a, b in pairwise(files):
        if natural_key(a.name) == natural_key(b.name):
            raise InputError(
                b,
                None,
                f"sorts at the same place as {a.name} (numbers compare by value): "
                "rename one, since file k annotates line k",
            )
    return files


def load_passages(paths: Iterable[str | PathLike[str]]) -> list[nx.DiGraph]:
    """Read several UCCA XML files, in the given order."""
    return [load_passage(p) for p in paths]


# --------------------------------------------------------------------------- writing


def to_standard_xml(g: nx.DiGraph) -> bytes:
    """Serialize a passage graph to standard UCCA XML (UTF-8 bytes, indented).

    The layout follows the ``ucca`` package's writer, so that
    ``ucca.convert.from_standard`` reads the output back. The bytes are those
    ElementTree writes for the same tree indented by ``ET.indent`` (attributes in
    insertion order, ``<tag />`` for elements without children), written here
    directly: building and serializing the element tree was most of ``samsa
    parse``'s own time, in the one process that writes the files
    (``benchmarks/parser_speed.py --other`` times the command side by side;
    ``tests/test_ucca_xml.py`` compares the two writers' bytes on every fixture
    and corpus passage).
    """
    x = _Writer()
    x.write(f'<root passageID="{x.esc(str(g.graph.get("passage_id", "1")))}" annotationID="0">')
    x.leaf("\n  ", "attributes", g.graph.get("attributes", {}))
    if g.graph.get("extra"):
        x.leaf("\n  ", "extra", g.graph["extra"])
    layer_attrs = g.graph.get("layer_attributes", {})
    for lid in ("0", "1"):
        attrs, extra = layer_attrs.get(lid, ({}, {}))
        x.write(f'\n  <layer layerID="{lid}">')
        x.leaf("\n    ", "attributes", attrs)
        if extra:
            x.leaf("\n    ", "extra", extra)
        for nid in sorted((n for n, d in g.nodes(data=True) if d["layer"] == lid), key=G.node_key):
            _write_node(g, x, nid)
        x.write("\n  </layer>")
    x.write("\n</root>\n")
    return "".join(x.parts).encode("utf-8", "xmlcharrefreplace")  # as ElementTree encodes


#: what ElementTree escapes in an attribute value (``xml.etree.ElementTree._escape_attrib``)
_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}
)
#: attribute names written as they are (ElementTree does not check them either; this writer refuses the rest)
_NAME = re.compile(r"[^\W\d][\w.:-]*")


class _Writer:
    """The document's text in parts, and what one document has escaped and checked already (values repeat:
    categories, ``True``, paragraph numbers)."""

    __slots__ = ("escaped", "names", "parts", "write")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.write = self.parts.append
        self.escaped: dict[str, str] = {}
        self.names: set[str] = set()

    def esc(self, value: object) -> str:
        """An attribute value escaped as ElementTree escapes it (a TypeError, as there, for a non-string)."""
        if not isinstance(value, str):
            raise TypeError(f"cannot serialize {value!r} (type {type(value).__name__})")
        out = self.escaped.get(value)
        if out is None:
            out = self.escaped[value] = value.translate(_ATTR_ESCAPES)
        return out

    def name(self, key: object) -> str:
        if key not in self.names:
            if not isinstance(key, str) or not _NAME.fullmatch(key):
                raise ValueError(f"cannot write attribute name {key!r}: not an XML name")
            self.names.add(key)
        return key

    def leaf(self, indent: str, tag: str, attrs: dict[str, str]) -> None:
        """An element without children on its own line: ``<tag a="v" />``."""
        text = "".join([f' {self.name(k)}="{self.esc(v)}"' for k, v in attrs.items()])
        self.write(f"{indent}<{tag}{text} />")


def _write_node(g: nx.DiGraph, x: _Writer, nid: str) -> None:
    data = g.nodes[nid]
    x.write(f'\n    <node ID="{x.esc(nid)}" type="{x.esc(data["type"])}">')
    attrs = dict(data.get("attributes", {}))
    if data["layer"] == "0":
        attrs.setdefault("text", data["text"])
        attrs.setdefault("paragraph", str(data.get("paragraph", 1)))
        attrs.setdefault("paragraph_position", str(data.get("paragraph_position", data["position"])))
    elif data.get("implicit"):
        attrs["implicit"] = "True"
    x.leaf("\n      ", "attributes", attrs)
    if data.get("extra"):
        x.leaf("\n      ", "extra", data["extra"])
    succ = g.succ[nid]
    for child in sorted(succ, key=G.node_key):
        e = succ[child]
        x.write(f'\n      <edge toID="{x.esc(child)}" type="{x.esc(e["categories"][0])}">')
        eattrs = e.get("attributes", {})
        x.leaf("\n        ", "attributes", {**eattrs, "remote": "True"} if e["remote"] else eattrs)
        if not e.get("legacy_type"):
            for cat in e.get("category_attributes") or [{"tag": t} for t in e["categories"]]:
                x.leaf("\n        ", "category", cat)
        x.write("\n      </edge>")
    x.write("\n    </node>")


def write_standard(g: nx.DiGraph, path: str | PathLike[str]) -> None:
    """Write a passage graph as standard UCCA XML."""
    Path(path).write_bytes(to_standard_xml(g))


def parse_standard_bytes(data: bytes, path: str | PathLike[str] = "<xml>", *, validate: bool = True) -> nx.DiGraph:
    """Parse standard UCCA XML given as bytes (used by tests and the ucca bridge)."""
    return read_standard(parse_xml(data, path), path, validate=validate)
