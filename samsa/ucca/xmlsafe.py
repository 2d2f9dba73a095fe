"""A small, hostile-input-safe XML element reader that remembers line numbers. More: docs/architecture.md, "Module
notes"."""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any
from xml.parsers import expat

from samsa.errors import InputError

__all__ = ["Element", "parse_xml", "passage_attributes", "read_xml", "standard_words"]

#: Refuse files larger than this many bytes: a UCCA sentence file is a few KB.
MAX_XML_BYTES = 50_000_000


@dataclass(slots=True)
class Element:
    """An XML element: tag, attributes, children, text, and the line it starts on."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    text: str = ""

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.attrib.get(key, default)

    def find(self, tag: str) -> Element | None:
        """First direct child with this tag."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        """All direct children with this tag."""
        return [c for c in self.children if c.tag == tag]

    def iter(self, tag: str | None = None):
        """This element and its descendants in document order."""
        stack = [self]  # explicit stack: documents nested thousands deep are read without recursion
        while stack:
            el = stack.pop()
            if tag is None or el.tag == tag:
                yield el
            stack.extend(reversed(el.children))


def parse_xml(
    data: bytes, path: str | PathLike[str] = "<xml>", text_tags: frozenset[str] = frozenset({"word"})
) -> Element:
    """Parse XML bytes into an :class:`Element` tree; errors name ``path`` and the line.

    Character data is kept only inside elements whose tag is in ``text_tags``
    (UCCA keeps text in attributes, except the site format's ``<word>``).

    Raises
    ------
    InputError
        Malformed XML, a DOCTYPE/entity declaration, an undefined entity, or an
        empty document.
    """
    if len(data) > MAX_XML_BYTES:
        raise InputError(path, None, f"XML file is {len(data)} bytes; refusing files over {MAX_XML_BYTES} bytes")
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    stack: list[Element] = []
    root: list[Element] = []

    def refuse_doctype(*_args: object) -> Any:  # raises: pyexpat types the handlers by their return values
        raise InputError(
            path,
            parser.CurrentLineNumber,
            "DOCTYPE/entity declarations are not allowed in UCCA XML (possible entity-expansion attack)",
        )

    def chars(text: str) -> None:
        stack[-1].text += text

    def start(tag: str, attrib: dict[str, str]) -> None:
        el = Element(tag, attrib, parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(el)
        stack.append(el)
        if tag in text_tags:  # collect text only where a format has any
            parser.CharacterDataHandler = chars

    def end(_tag: str) -> None:
        stack.pop()
        parser.CharacterDataHandler = None

    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_doctype
    parser.ExternalEntityRefHandler = refuse_doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as e:
        raise InputError(
            path, e.lineno, f"malformed XML: {expat.ErrorString(e.code)} (column {e.offset + 1})"
        ) from None
    if not root:
        raise InputError(path, None, "no XML element found")
    return root[0]


def read_xml(path: str | PathLike[str]) -> Element:
    """Read and parse an XML file safely (see :func:`parse_xml`)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_XML_BYTES:
            raise InputError(p, None, f"XML file is {size} bytes; refusing files over {MAX_XML_BYTES} bytes")
        data = p.read_bytes()
    except OSError as e:
        raise InputError(p, None, f"cannot read file: {e.strerror}") from None
    return parse_xml(data, p)


class _Stop(Exception):
    """Layer 0 has been read (or the file is not one :func:`standard_words` reads)."""


def standard_words(path: str | PathLike[str]) -> list[str] | None:
    """The words of a standard UCCA XML file in order, read up to the end of its layer 0 (no element tree, no
    graph); None for a file it does not read so (the site format, a DOCTYPE, layer 0 incomplete or misnumbered):
    the caller reads that one whole, and the whole read refuses what is wrong."""
    try:
        if Path(path).stat().st_size > MAX_XML_BYTES:
            return None
        data = Path(path).read_bytes()
    except OSError:
        return None
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    words: dict[str, str] = {}
    state: dict[str, str | None] = {"layer": None, "node": None}
    finished = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        if tag == "layer":
            state["layer"] = attrib.get("layerID")
        elif tag == "node" and state["layer"] == "0":
            state["node"] = attrib.get("ID") or ""
        elif tag == "attributes" and state["node"] and state["node"] not in words and "text" in attrib:
            words[state["node"]] = attrib["text"]
        elif tag == "units":
            raise _Stop

    def end(tag: str) -> None:
        if tag == "node":
            state["node"] = None
        elif tag == "layer" and state["layer"] == "0":
            finished.append(True)
            raise _Stop

    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = _refuse
    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        parser.Parse(data, True)
    except (_Stop, expat.ExpatError):
        pass
    numbers = [k.partition(".") for k in words]
    if not finished or any(a != "0" or not b.isdigit() for a, _, b in numbers):
        return None
    order = sorted(words, key=lambda k: int(k.partition(".")[2]))
    if [int(k.partition(".")[2]) for k in order] != list(range(1, len(order) + 1)) or not order:
        return None
    return [words[k] for k in order]


def passage_attributes(path: str | PathLike[str]) -> dict[str, str]:
    """The passage's own attributes (its root's ``attributes`` element), read up to its first layer: what tells a
    draft of ``samsa annotate`` (``draft="yes"``) without reading the graph; none for a file it does not read so."""
    found: dict[str, str] = {}
    depth = [0]

    def start(tag: str, attrib: dict[str, str]) -> None:
        depth[0] += 1
        if tag == "layer":
            raise _Stop
        if tag == "attributes" and depth[0] == 2:
            found.update(attrib)

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = _refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda _tag: depth.__setitem__(0, depth[0] - 1)
    try:
        parser.Parse(Path(path).read_bytes(), True)
    except (_Stop, expat.ExpatError, OSError):
        pass
    return found


def _refuse(*_args: object) -> None:
    raise _Stop
