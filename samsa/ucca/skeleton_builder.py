"""The passage a skeleton is written into (:mod:`samsa.ucca.skeleton_write` builds it, and
:mod:`samsa.ucca.skeleton_repair` moves its edges): its units, its edges, and who holds what primarily."""

from __future__ import annotations

from samsa.ucca import graph as G
from samsa.ucca.queries import unit_terminals
from samsa.ucca.skeleton import Center, Skeleton

__all__ = ["WRITTEN_BY", "PassageBuilder"]

#: the passage attribute every skeleton file carries: ``samsa annotate`` overwrites a file that has it, and no other
#: file unless the user asks
WRITTEN_BY = {"written_by": "samsa-skeleton"}


class PassageBuilder:
    """The passage under construction: units, and who holds what primarily."""

    def __init__(self, sk: Skeleton) -> None:
        self.sk = sk
        self.g = G.new_passage(sk.passage_id, attributes=WRITTEN_BY)
        for k, (text, is_punct) in enumerate(zip(sk.tokens, sk.punct, strict=True), 1):
            self.g.add_node(
                f"0.{k}",
                layer="0",
                type="Punctuation" if is_punct else "Word",
                text=text,
                position=k,
                paragraph=1,
                paragraph_position=k,
                attributes={},
                extra={},
            )
        self.next_id = 2
        self.parent: dict[str, str] = {}  # unit -> its primary parent
        self.owner: dict[int, str] = {}  # position -> the unit whose terminal it is
        self.scene_ids = [self.unit() for _ in sk.scenes]
        self.centers: dict[Center, str] = {}  # center -> its unit
        self.groups: dict[tuple[Center, ...], str] = {}  # several centers -> the unit whose C children they are

    def unit(self, implicit: bool = False, type_: str = "FN") -> str:
        uid = f"1.{self.next_id}"
        self.next_id += 1
        G.add_unit(self.g, uid, type=type_, implicit=implicit, extra={})
        return uid

    def edge(self, parent: str, child: str, cat: str, remote: bool = False) -> None:
        G.add_edge(self.g, parent, child, (cat,), remote=remote)
        if not remote and self.g.nodes[child]["layer"] == "1":
            self.parent[child] = parent

    def terminal(self, parent: str, pos: int) -> None:
        self.edge(parent, f"0.{pos}", "Terminal")
        self.owner[pos] = parent

    def above(self, unit: str, other: str) -> bool:
        """Whether ``unit`` is ``other`` or one of its primary ancestors."""
        node: str | None = other
        while node is not None:
            if node == unit:
                return True
            node = self.parent.get(node)
        return False

    def link(self, parent: str, child: str, cat: str, remote: bool = False) -> None:
        """``parent`` -cat-> ``child``: primary when ``child`` has no primary parent yet (and that makes no
        cycle), else remote. When the pair has an edge already, that edge takes the category too (UCCA's
        multi-category edge: a unit both a Scene's main relation and its participant), or, when it has it, a
        new unit whose ``C`` child ``child`` is stands in between."""
        if self.g.has_edge(parent, child):
            data = self.g.edges[parent, child]
            if cat not in data["categories"]:
                data["categories"] = (*data["categories"], cat)
                data["category_attributes"].append({"tag": cat})
                return
            via = self.unit()
            self.edge(parent, via, cat)
            parent, cat = via, "C"
        primary = not remote and child not in self.parent and not self.above(child, parent)
        self.edge(parent, child, cat, remote=not primary)

    def reach(self, unit: str) -> set[int]:
        return {self.g.nodes[t]["position"] for t in unit_terminals(self.g, unit, punct=False, remotes=True)}
