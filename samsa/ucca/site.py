"""Read the tree-shaped XML of the original UCCA annotation tool (the "site" format) into a passage graph.

Unit IDs are assigned in document order, as the ``ucca`` package's ``from_site``
does, so scenes and spans agree with it. Reading uses an explicit stack (no
recursion limit), and the result is validated like every other passage.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

import networkx as nx

from samsa.errors import InputError
from samsa.ucca import graph as G
from samsa.ucca.validate import check_passage
from samsa.ucca.xmlsafe import Element

__all__ = ["SITE_TAGS", "read_site"]

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
