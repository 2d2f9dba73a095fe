"""The work of one chunk of a corpus: a :class:`Worker`, built once per process from a picklable :class:`Job`,
loads gold XML or parses raw sources (one parser call per chunk, so the parser batches them), then scores each
system's output lines against the graphs. Where chunks run is :mod:`samsa.engine.executors`'; what goes into
them, in which order, and what happens to the results is :mod:`samsa.engine.pipeline`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx

from samsa.config import Compat, SamsaConfig
from samsa.engine.entries import DrawnStructures
from samsa.engine.seams import ItemKind, Want
from samsa.errors import InputError, ScoringError
from samsa.scoring.uncertainty import Calibration, TreeMenu
from samsa.ucca.compact import CompactPassage, as_graph

__all__ = ["Item", "ItemResult", "Job", "Worker", "origin_place"]


@dataclass(frozen=True)
class Job:
    """What every worker builds once: the SAMSA settings (``config``; its parser parses raw sources) and whether
    it scores.

    ``config.aligner`` is a registry name and its options, so that heavy aligners (spaCy, PPDB) are built inside
    each worker rather than pickled.
    """

    config: SamsaConfig = field(default_factory=SamsaConfig)
    score: bool = True
    lenient: bool = False  # drop a passage that does not load or validate (and say so) instead of stopping
    # parse uncertainty: parsed sources also get trees drawn from the parser's distribution, and every system is
    # scored on each distinct tree (samsa.scoring.uncertainty)
    uncertainty: Calibration | None = None

    @property
    def parser(self) -> Any:
        """What parses raw sources (the built-in parser object, when the caller has one)."""
        return self.config.parser

    @classmethod
    def parse_only(cls, parser: Any) -> Job:
        """A job that parses with ``parser`` and scores nothing."""
        return cls(SamsaConfig(parser=parser), score=False)


@dataclass(frozen=True)
class Item:
    """One source line: ``kind`` is ``parse`` (``source`` is text or tokens), ``cached`` (the same, with the parse
    cache's graph ``payload`` or, for paper-mode scoring, its ``encoded_structure``, and with parse uncertainty its
    drawn trees' ``encoded_draws``), ``graph`` or ``xml`` (a file path)."""

    kind: ItemKind
    source: Any
    outputs: tuple[str, ...] = ()
    origin: str = ""
    payload: bytes | None = None
    encoded_structure: bytes | None = None
    encoded_draws: bytes | None = None


@dataclass
class ItemResult:
    """What a worker sends back of one item: the graph (when asked for); for the parent to cache, the payload of a
    graph parsed here, the encoded structure of a parse or of a cached graph that had none, and the encoded
    drawn trees of a parse; one score per system or an error text; and with parse uncertainty the source's menu
    of trees, every system's score on each, and (with the graph) each tree's Scenes."""

    graph: nx.DiGraph | None
    results: list[Any] = field(default_factory=list)
    payload: bytes | None = None
    encoded_structure: bytes | None = None
    encoded_draws: bytes | None = None
    repaired: bool = False  # a cached entry that did not decode: parsed again (the new payload replaces it)
    dropped: str | None = None  # lenient mode: why this passage left the corpus
    menu: TreeMenu | None = None  # parse uncertainty: the source's trees (manual UCCA: one)
    tree_scores: list[list[float]] = field(default_factory=list)  # per system, SAMSA on each of the menu's trees
    tree_scenes: tuple[tuple[str, ...], ...] = ()  # with the graph: each menu tree's Scenes, a text each
    tree_scores_abl: list[list[float]] = field(default_factory=list)  # per system, SAMSA-abl on each tree


class Worker:
    """Builds the models of a :class:`Job` once and runs chunks of :class:`Item`."""

    def __init__(self, job: Job) -> None:
        from samsa.scoring.metric import Samsa

        self.job = job
        self.metric = Samsa(job.config) if job.score else None

    @property
    def paper(self) -> bool:
        """Whether this worker scores in paper mode (the mode whose structure the parse cache keeps)."""
        return self.metric is not None and self.metric.compat == "paper"

    def load(self, items: Sequence[Item]) -> _Loaded:
        """The graph or (cache hits in paper mode) the structure of each item, and with parse uncertainty its
        drawn trees. Items are parsed here when they are raw, or when their cached entry does not decode
        (``repaired``); every graph that did not come from the cache is validated; lenient mode drops an item that
        does not load or validate (``dropped``)."""
        from samsa.ucca.validate import check_passage
        from samsa.ucca.xml import load_passage

        n = len(items)
        got = _Loaded([None] * n, [None] * n, [False] * n, [False] * n, [None] * n, [None] * n)
        todo = []
        for k, it in enumerate(items):
            if it.kind == "cached":
                self._load_cached(k, it, got)
            elif it.kind == "xml":
                got.graphs[k] = self._guard(k, got.dropped, load_passage, it.source)
            elif it.kind == "graph":
                got.graphs[k] = self._guard(k, got.dropped, check_passage, it.source, it.origin or None)
            if it.kind == "parse" or got.repaired[k]:
                todo.append(k)
        todo, parsed = self._parse_within_limits(items, todo, got.dropped)
        if self.job.uncertainty is not None:
            from samsa.engine.uncertainty import drawn_structures

            for k, drawn in zip(todo, parsed, strict=True):
                got.drawn[k] = drawn_structures(drawn)
            parsed = [drawn.best for drawn in parsed]
        for k, g in zip(todo, parsed, strict=True):
            if isinstance(g, CompactPassage):  # the built-in parser's trees: well formed as they are built
                got.graphs[k] = g
            else:
                got.graphs[k] = self._guard(k, got.dropped, check_passage, g, items[k].origin or None)
            got.parsed[k] = got.dropped[k] is None
        return got

    def _load_cached(self, k: int, item: Item, got: _Loaded) -> None:
        """A cache hit's structure (paper mode) or graph, and with parse uncertainty its drawn trees; an entry
        that does not decode, or a hit without drawn trees where the run draws them, is marked ``repaired``."""
        from samsa.engine.entries import decode_draws, decode_graph, decode_structure

        if item.encoded_structure is not None:
            got.structures[k] = decode_structure(item.encoded_structure, item.source) if self.paper else None
        else:
            got.graphs[k] = decode_graph(item.payload or b"", item.source)
        found = got.structures[k] is not None or got.graphs[k] is not None
        if found and self.job.uncertainty is not None:
            blob = item.encoded_draws
            got.drawn[k] = None if blob is None else decode_draws(blob, item.source)
            found = got.drawn[k] is not None
        if not found:
            got.graphs[k] = got.structures[k] = None
        got.repaired[k] = not found

    def _parse_within_limits(
        self, items: Sequence[Item], todo: list[int], dropped: list[str | None]
    ) -> tuple[list[int], list[Any]]:
        """Parse items ``todo``; a sentence longer than the parser reads is refused naming its file and line (its
        item's ``origin``, ``path:line``), or in lenient mode dropped (``dropped``) and the rest parsed."""
        from samsa.errors import SentenceTooLong

        while todo:
            try:
                return todo, self._parse([items[k].source for k in todo])
            except SentenceTooLong as e:
                k = todo[e.index]
                refused = e.at(*origin_place(items[k].origin))
                if not self.job.lenient:
                    raise refused from None
                dropped[k] = str(refused)
                todo = todo[: e.index] + todo[e.index + 1 :]
        return todo, []

    def _parse(self, sources: Sequence[Any]) -> list[Any]:
        """Parse ``sources``: as :class:`~samsa.ucca.compact.CompactPassage` when the parser gives them and this
        worker only scores in paper mode (whose structure reads them as it reads graphs), else as graphs."""
        if self.job.uncertainty is not None:
            from samsa.engine.uncertainty import perturbation

            # the run's parse doubt was decided by engine.uncertainty.run_doubt: its parser draws trees
            return list(self.job.parser.parse_with_draws(sources, perturbation(self.job.uncertainty)))
        passages = getattr(self.job.parser, "parse_passages", None)
        if passages is not None and self.paper:
            return list(passages(sources))
        return list(self.job.parser.parse(sources))

    def _guard(self, k: int, dropped: list[str | None], fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``; in lenient mode an InputError drops item ``k`` (its message kept) instead."""
        try:
            return fn(*args)
        except InputError as e:
            if not self.job.lenient:
                raise
            dropped[k] = str(e)
            return None

    def run(self, items: Sequence[Item], want: Want = "none") -> list[ItemResult]:
        """Score a chunk; ``want`` says which graphs travel back: ``all`` (as graphs, parsed ones also encoded for
        the cache), ``graphs`` (as graphs only: nobody caches them), ``parsed`` (encoded for the cache) or
        ``none``. Whatever is encoded for the cache goes with the paper-mode structures and drawn trees it needs."""
        got = self.load(items)
        keep = [k for k, d in enumerate(got.dropped) if d is None]
        n_systems = len(items[0].outputs) if items else 0
        if self.metric is not None and (n_systems or self.job.uncertainty is not None):  # doubt needs the structure
            for k in keep:
                if got.structures[k] is None:
                    got.structures[k] = _structure(got.graphs[k], self.metric.compat)
        out = [self._result(it, k, got, want) for k, it in enumerate(items)]
        if self.metric is None:
            return out
        for s in range(n_systems):
            outputs = [items[k].outputs[s] for k in keep]
            self.metric.prepare([got.graphs[k] for k in keep], outputs, structures=[got.structures[k] for k in keep])
            for k, line in zip(keep, outputs, strict=True):
                try:
                    out[k].results.append(self.metric.score_graph(got.graphs[k], line, structure=got.structures[k]))
                except ScoringError as e:
                    out[k].results.append(f"{e}")
        if self.job.uncertainty is not None:
            for k in keep:
                self._tree_scores(items[k], out[k], got.structures[k], got.drawn[k], want in ("all", "graphs"))
        return out

    def _result(self, item: Item, k: int, got: _Loaded, want: Want) -> ItemResult:
        """Item ``k``'s result before scoring: its graph as asked, and what the parent caches of it."""
        from samsa.engine.entries import encode_draws, encode_graph, encode_structure

        g, st, drawn = got.graphs[k], got.structures[k], got.drawn[k]
        caching = want in ("all", "parsed")
        # the parent caches the structures of new parses (repaired entries included) and of cached graphs that had
        # none, and the drawn trees of new parses
        encoded = None
        if caching and self.paper and st is not None and g is not None and (got.parsed[k] or item.kind == "cached"):
            encoded = encode_structure(st, g).encode("utf-8")
        fresh_draws = caching and got.parsed[k] and drawn is not None and drawn.passages is not None
        return ItemResult(
            as_graph(g) if want in ("all", "graphs") else None,
            payload=encode_graph(g) if got.parsed[k] and caching else None,
            encoded_structure=encoded,
            encoded_draws=encode_draws(drawn).encode("utf-8") if fresh_draws and drawn is not None else None,
            repaired=got.repaired[k],
            dropped=got.dropped[k],
        )

    def _tree_scores(
        self, item: Item, res: ItemResult, structure: Any, drawn: DrawnStructures | None, scenes: bool
    ) -> None:
        """The source's calibrated menu of trees and every system's SAMSA on each (tree 0: the one-best, whose
        scores are the results'; ``drawn``: the drawn trees' structures; ``scenes``: each tree's Scenes as well); a
        source without draws (manual UCCA) has one tree."""
        from samsa.engine.uncertainty import trees_from_structures

        assert self.job.uncertainty is not None and self.metric is not None
        if structure is None or any(isinstance(r, str) for r in res.results):
            return
        trees = trees_from_structures(structure, drawn, self.job.uncertainty.keep)
        for r, line in zip(res.results, item.outputs, strict=True):
            abl = [r.samsa_abl]
            res.tree_scores.append([r.samsa, *trees.scores(self.metric, line, skip=1, abl=abl)])
            res.tree_scores_abl.append(abl)
        if scenes:
            res.tree_scenes = trees.scene_words()
        # the parent needs each tree's count, weight and scores, not its structure key (the run keeps a menu a line)
        res.menu = replace(trees.menu, keys=tuple(range(len(trees.menu.keys))))


def origin_place(origin: str) -> tuple[str | None, int | None]:
    """(file, line) of an item's ``origin`` (``path:line``, or a path alone; ``""``: unknown).

    >>> origin_place("data/src.txt:17")
    ('data/src.txt', 17)
    >>> origin_place("gold/3.xml")
    ('gold/3.xml', None)
    """
    path, _, line = origin.rpartition(":")
    if path and line.isdigit():
        return path, int(line)
    return origin or None, None


@dataclass
class _Loaded:
    """What :meth:`Worker.load` found for each item of a chunk."""

    graphs: list[nx.DiGraph | None]
    structures: list[Any]  # paper-mode structure, where known
    parsed: list[bool]  # parsed here (new, or a cached entry that did not decode)
    repaired: list[bool]  # a cached entry that did not decode
    dropped: list[str | None]  # lenient mode: why the item left the corpus
    drawn: list[DrawnStructures | None]  # parse uncertainty: the drawn trees' structures


def _structure(g: nx.DiGraph | None, compat: Compat) -> Any:
    """The graph's output-independent scoring structure; None lets each scoring call raise its own error."""
    from samsa.scoring import graph_structure

    try:
        return graph_structure(g, compat)
    except ScoringError:
        return None
