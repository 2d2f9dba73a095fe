"""Read and write UCCA XML: the standard format and the older annotation-site format.

The standard format is what every public UCCA corpus ships (one ``<node>`` per
unit, ``<edge>`` children, ``<category>`` elements for multi-category edges; old
files carry the category only in the edge's ``type``). The site format is the
tree-shaped XML of the original annotation tool. Both are read with
:mod:`samsa.xmlsafe`, so hostile files are refused and every error names the
file and line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from os import PathLike
from pathlib import Path

import networkx as nx

from samsa import graph as G
from samsa.errors import InputError
from samsa.validate import check_passage
from samsa.xmlsafe import Element, parse_xml, read_xml

__all__ = [
    "list_passage_files",
    "load_passage",
    "load_passages",
    "natural_key",
    "read_site",
    "read_standard",
    "to_standard_xml",
    "write_standard",
]

SITE_TAGS = {
    "Parallel Scene": "H",
    "Linked U": "H",
    "Function": "F",
    "Participant": "A",
    "Process": "P",
    "State": "S",
    "aDverbial": "D",
    "Center": "C",
    "Elaborator": "E",
    "Linker": "L",
    "Ground": "G",
    "Connector": "N",
    "Role Marker": "R",
    "Relator": "R",
    "Time": "T",
    "Quantifier": "Q",
}


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

    ``validate=False`` skips the structural checks of :mod:`samsa.validate` (only for graphs another tool
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
                    raise InputError(
                        path, node.line, f"terminal {nid} has type {ntype!r}; expected Word or Punctuation"
                    )
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
            edges.extend((nid, e) for e in node_edges)
    for parent, edge in edges:
        child = edge.get("toID")
        if child not in g:
            raise InputError(path, edge.line, f"edge from {parent} points to unknown node {child!r}")
        attrs, _, _, cat_elems = _parts(edge)
        cat_attrs = [dict(c.attrib) for c in cat_elems]
        if not cat_attrs:  # old format: the category is the edge type
            etype = edge.get("type")
            if not etype:
                raise InputError(path, edge.line, f"edge {parent} -> {child} has neither type nor <category>")
            cats = (etype,)
        else:
            missing = [c for c in cat_attrs if not c.get("tag")]
            if missing:
                raise InputError(path, edge.line, f"edge {parent} -> {child} has a <category> without tag")
            cats = tuple(c["tag"] for c in cat_attrs)
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
    for lid in ("0", "1"):
        if lid not in layers:
            raise InputError(path, root.line, f"layer {lid} is missing; UCCA XML has layers '0' and '1'")
    lines.setdefault(G.ROOT_ID, root.line)
    return check_passage(g, path, lines) if validate else g


# --------------------------------------------------------------------------- site


class _SiteReader:
    """State of one site-XML conversion (terminals first, then units, then remotes)."""

    def __init__(self, root: Element, path: str | PathLike[str]) -> None:
        self.root, self.path = root, path
        units = root.find("units")
        if units is None or not units.children:
            raise InputError(path, root.line, "site XML without <units><unit>...</unit></units>")
        self.g = G.new_passage(units.get("passageID") or Path(str(path)).stem)
        self.paragraphs = list(units.findall("unit")[0].children)
        groups = root.find("unitGroups")
        self.groups = {u.get("id"): u for u in groups.children} if groups is not None else {}
        self.site2node: dict[str, str] = {}
        self.wrapper2terminal: dict[int, str] = {}
        self.deferred: list[tuple[str, Element]] = []
        self.next_id = 2
        self.lines: dict[str, int] = {G.ROOT_ID: units.line}

    def new_unit(self, el: Element, **kw: object) -> str:
        nid = f"1.{self.next_id}"
        self.next_id += 1
        self.lines[nid] = el.line
        return G.add_unit(self.g, nid, **kw)  # type: ignore[arg-type]

    def tags(self, el: Element) -> tuple[str, ...]:
        raw = el.get("type") or ""
        try:
            return tuple(SITE_TAGS[t] for t in raw.split("|"))
        except KeyError:
            raise InputError(
                self.path, el.line, f"unknown unit type {raw!r}; expected one of {sorted(SITE_TAGS)}"
            ) from None

    def read_terminals(self) -> None:
        for number, para in enumerate(self.paragraphs, start=1):
            in_para = 0
            for wrapper in para.iter("unit"):
                for word in wrapper.findall("word"):
                    in_para += 1
                    text = (word.text or "").replace("\\u2019", "'")
                    tid = G.add_terminal(
                        self.g,
                        text,
                        punct=wrapper.get("type") == "Punctuation",
                        paragraph=number,
                        paragraph_position=in_para,
                    )
                    self.wrapper2terminal[id(wrapper)] = tid

    def read_units(self, top: list[Element], parent: str) -> None:
        """Convert ``top`` and everything under it, in document order (an explicit stack: no depth limit)."""
        stack = [(el, parent) for el in reversed(top)]
        while stack:
            el, parent = stack.pop()
            stack.extend((sub, owner) for sub, owner in reversed(self.read_unit(el, parent)))

    def read_unit(self, el: Element, parent: str) -> list[tuple[Element, str]]:
        """Convert one element; returns its sub-elements with the unit they belong to, to be read next."""
        if el.tag == "unit":
            term = self.wrapper2terminal.get(id(el))
            if term is not None:
                if self.g.nodes[term]["type"] == "Punctuation":
                    pnct = self.new_unit(el, type="PNCT")
                    self.edge(el, parent, pnct, "U")
                    self.edge(el, pnct, term, "Terminal")
                    self.site2node[el.get("id") or f"#{id(el)}"] = pnct
                else:
                    self.edge(el, parent, term, "Terminal")
                return []
            gid = el.get("unitGroupID")
            existing = self.site2node.get(gid) if gid else None
            if existing is not None:  # a later chunk of a discontiguous unit
                self.site2node[el.get("id") or ""] = existing
                return [(sub, existing) for sub in el.children]
            work = self.groups.get(gid, el) if gid else el
            node = self.new_unit(el)
            self.edge(el, parent, node, self.tags(work), attributes=self._cmr(work))
            for key in {work.get("id"), el.get("id")} - {None}:
                self.site2node[key] = node  # type: ignore[index]
            return [(sub, node) for owner in ((el,) if work is el else (el, work)) for sub in owner.children]
        if el.tag == "implicitUnit":
            node = self.new_unit(el, implicit=True)
            self.edge(el, parent, node, self.tags(el))
            if el.get("id"):
                self.site2node[el.get("id")] = node  # type: ignore[index]
        elif el.tag in ("remoteUnit", "linkage"):
            self.deferred.append((parent, el))
        elif el.tag != "word":
            raise InputError(self.path, el.line, f"unexpected element <{el.tag}> in site XML")
        return []

    def edge(self, el: Element, parent: str, child: str, tags: str | tuple[str, ...], **kw: object) -> None:
        try:
            G.add_edge(self.g, parent, child, tags, **kw)  # type: ignore[arg-type]
        except ValueError as e:
            raise InputError(self.path, el.line, str(e)) from None

    @staticmethod
    def _cmr(el: Element) -> dict[str, str]:
        return {"Coordinated_Main_Rel": "True"} if el.get("cmr") == "true" else {}

    def resolve_deferred(self) -> None:
        for parent, el in self.deferred:
            if el.tag == "remoteUnit":
                child = self.site2node.get(el.get("id") or "")
                if child is None:
                    raise InputError(self.path, el.line, f"remoteUnit points to unknown unit id {el.get('id')!r}")
                self.edge(el, parent, child, self.tags(el), remote=True)
            else:
                args = [self.site2node.get(a) for a in (el.get("args") or "").split(",")]
                if None in args or not args:
                    raise InputError(self.path, el.line, f"linkage with unknown args {el.get('args')!r}")
                lkg = self.new_unit(el, type="LKG")
                self.edge(el, lkg, parent, "LR")
                for a in args:
                    self.edge(el, lkg, a, "LA")  # type: ignore[arg-type]

    def read(self) -> nx.DiGraph:
        self.read_terminals()
        for para in self.paragraphs:
            self.read_units(para.children, G.ROOT_ID)
        self.resolve_deferred()
        return check_passage(self.g, self.path, self.lines)


def read_site(root: Element, path: str | PathLike[str] = "<xml>") -> nx.DiGraph:
    """Convert a parsed site-format document (old annotation tool) into a passage graph.

    Unit IDs are assigned in document order; the ``ucca`` package numbers them
    the same way, so scenes and spans agree (tested against ``ucca.convert.from_site``).
    """
    return _SiteReader(root, path).read()


# --------------------------------------------------------------------------- files


def load_passage(path: str | PathLike[str]) -> nx.DiGraph:
    """Read one UCCA XML file, standard or site format (detected from the document)."""
    root = read_xml(path)
    if root.find("units") is not None:
        return read_site(root, path)
    return read_standard(root, path)


def list_passage_files(directory: str | PathLike[str]) -> list[Path]:
    """The ``*.xml`` files of a directory in natural sort order (``2.xml`` before ``10.xml``)."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError(d, None, "not a directory of UCCA XML files")
    return sorted((p for p in d.iterdir() if p.suffix == ".xml" and p.is_file()), key=lambda p: natural_key(p.name))


def load_passages(paths: Iterable[str | PathLike[str]]) -> list[nx.DiGraph]:
    """Read several UCCA XML files, in the given order."""
    return [load_passage(p) for p in paths]


# --------------------------------------------------------------------------- writing


def to_standard_xml(g: nx.DiGraph) -> bytes:
    """Serialize a passage graph to standard UCCA XML (UTF-8 bytes, indented).

    The layout follows the ``ucca`` package's writer, so that
    ``ucca.convert.from_standard`` reads the output back.
    """
    root = ET.Element("root", passageID=str(g.graph.get("passage_id", "1")), annotationID="0")
    ET.SubElement(root, "attributes", g.graph.get("attributes", {}))
    if g.graph.get("extra"):
        ET.SubElement(root, "extra", g.graph["extra"])
    layer_attrs = g.graph.get("layer_attributes", {})
    for lid in ("0", "1"):
        attrs, extra = layer_attrs.get(lid, ({}, {}))
        layer = ET.SubElement(root, "layer", layerID=lid)
        ET.SubElement(layer, "attributes", attrs)
        if extra:
            ET.SubElement(layer, "extra", extra)
        nodes = sorted((n for n, d in g.nodes(data=True) if d["layer"] == lid), key=G.node_key)
        for nid in nodes:
            _write_node(g, layer, nid)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="utf-8", xml_declaration=False) + b"\n"


def _write_node(g: nx.DiGraph, layer: ET.Element, nid: str) -> None:
    data = g.nodes[nid]
    node = ET.SubElement(layer, "node", ID=nid, type=data["type"])
    attrs = dict(data.get("attributes", {}))
    if data["layer"] == "0":
        attrs.setdefault("text", data["text"])
        attrs.setdefault("paragraph", str(data.get("paragraph", 1)))
        attrs.setdefault("paragraph_position", str(data.get("paragraph_position", data["position"])))
    elif data.get("implicit"):
        attrs["implicit"] = "True"
    ET.SubElement(node, "attributes", attrs)
    if data.get("extra"):
        ET.SubElement(node, "extra", data["extra"])
    for child in sorted(g.succ[nid], key=G.node_key):
        e = g.edges[nid, child]
        edge = ET.SubElement(node, "edge", toID=child, type=e["categories"][0])
        eattrs = dict(e.get("attributes", {}))
        if e["remote"]:
            eattrs["remote"] = "True"
        ET.SubElement(edge, "attributes", eattrs)
        if e.get("legacy_type"):
            continue
        cat_attrs = e.get("category_attributes") or [{"tag": t} for t in e["categories"]]
        for cat in cat_attrs:
            ET.SubElement(edge, "category", cat)


def write_standard(g: nx.DiGraph, path: str | PathLike[str]) -> None:
    """Write a passage graph as standard UCCA XML."""
    Path(path).write_bytes(to_standard_xml(g))


def parse_standard_bytes(data: bytes, path: str | PathLike[str] = "<xml>", *, validate: bool = True) -> nx.DiGraph:
    """Parse standard UCCA XML given as bytes (used by tests and the ucca bridge)."""
    return read_standard(parse_xml(data, path), path, validate=validate)
