"""One main relation per Scene: the cheapest repair of a decoded tree that the network's own scores allow. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from samsa.parsers.builtin.tree import UP, Span

__all__ = ["MAIN", "center_targets", "one_center", "one_main_relation", "repair_targets"]

MAIN = frozenset({"P", "S"})

#: a span's label log-probabilities (over the vocabulary's labels, index 0 = no unit) by (start, end)
LogProbs = Callable[[int, int], np.ndarray]


def _head(label: str) -> str:
    """The outermost category of a chain label, without the discontiguity mark (``A^/P`` -> ``A``)."""
    return label.split("/")[0].rstrip(UP)


@lru_cache(maxsize=8)
def repair_targets(labels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Label indices a main relation may be relabeled to (outermost category not P/S), and labels a new
    grouping unit may take (no P/S anywhere in the chain); neither kind is discontiguous (``^``)."""
    relabel = [k for k, lab in enumerate(labels) if k and UP not in lab and _head(lab) not in MAIN]
    group = [k for k, lab in enumerate(labels) if k and UP not in lab and MAIN.isdisjoint(lab.split("/"))]
    return np.array(relabel, dtype=np.int64), np.array(group, dtype=np.int64)


def _children(spans: Sequence[Span], n: int) -> dict[tuple[int, int, str | None], list[Span]]:
    """Each unit's child spans in text order; the key ``(0, n, None)`` is the passage's root."""
    root = (0, n, None)
    kids: dict[tuple[int, int, str | None], list[Span]] = {root: []}
    stack: list[tuple[int, int, str | None]] = [root]
    for s in sorted(spans, key=lambda s: (s.start, -s.end)):
        while len(stack) > 1 and not (stack[-1][0] <= s.start and s.end <= stack[-1][1]):
            stack.pop()
        kids[stack[-1]].append(s)
        key = (s.start, s.end, s.label)
        kids[key] = []
        stack.append(key)
    return kids


def _needs_repair(kids: Sequence[Span]) -> bool:
    """Two or more P/S children, none discontiguous (units with a discontiguous child are left alone)."""
    return sum(_head(c.label) in MAIN for c in kids) > 1 and not any(UP in c.label for c in kids)


def _cheapest_repair(
    unit: tuple[int, int], kids: list[Span], spans: Sequence[Span], log_probs: LogProbs, labels: tuple[str, ...]
) -> tuple[Span | None, Span]:
    """(span replaced or None, new span) of the cheapest repair of one unit with several main relations."""
    relabel, group = repair_targets(labels)
    best: tuple[float, Span | None, Span] | None = None
    for c in kids:
        if _head(c.label) not in MAIN:
            continue
        lp = log_probs(c.start, c.end)
        k = int(relabel[np.argmax(lp[relabel])])
        cost = float(lp[k] - lp[labels.index(c.label)])
        if best is None or cost > best[0]:
            best = (cost, c, Span(c.start, c.end, labels[k]))
    assert best is not None
    # the unit's elements in text order: its child spans and the tokens attached to it directly
    covered = {k for c in kids for k in range(c.start, c.end)}
    elems = sorted(
        [(c.start, c.end, _head(c.label) in MAIN) for c in kids]
        + [(k, k + 1, False) for k in range(*unit) if k not in covered]
    )
    existing = {(s.start, s.end) for s in spans}
    for a in range(len(elems)):
        mains = 0
        for b in range(a, len(elems)):
            mains += elems[b][2]
            if mains > 1:
                break
            if b == a or mains != 1 or (a == 0 and b == len(elems) - 1):
                continue  # one element: relabeling it is the repair above
            i, j = elems[a][0], elems[b][1]
            if (i, j) in existing:
                continue
            lp = log_probs(i, j)
            k = int(group[np.argmax(lp[group])])
            cost = float(lp[k] - lp[0])
            if cost > best[0]:
                best = (cost, None, Span(i, j, labels[k]))
    return best[1], best[2]


def one_main_relation(
    spans: Sequence[Span], n: int, log_probs: LogProbs, labels: Sequence[str], max_repairs: int = 50
) -> list[Span]:
    """``spans`` (a decoded tree over ``n`` tokens) with every unit holding at most one P/S child.

    Repairs one unit at a time, each by the cheapest change under ``log_probs``
    (module docstring), until none is left; a tree that is already well formed
    comes back unchanged (the same list contents).
    """
    out = list(spans)
    if sum(_head(s.label) in MAIN for s in out) < 2:
        return out
    labels = tuple(labels)
    for _ in range(max_repairs):
        todo = next(((key, kids) for key, kids in _children(out, n).items() if _needs_repair(kids)), None)
        if todo is None:
            break
        (start, end, _), kids = todo
        old, new = _cheapest_repair((start, end), kids, out, log_probs, labels)
        out = [new if s == old else s for s in out] if old is not None else [*out, new]
    return out


def _innermost(label: str) -> str:
    """The innermost category of a chain label, without the discontiguity mark (``H/P`` -> ``P``)."""
    return label.split("/")[-1].rstrip(UP)


@lru_cache(maxsize=8)
def center_targets(labels: tuple[str, ...]) -> np.ndarray:
    """Label indices a surplus center of a main relation may be relabeled to: no P or S anywhere in the chain
    (no new Scene), outermost category neither C nor N (a center or a connector), not discontiguous (``^``)."""
    keep = [
        k
        for k, lab in enumerate(labels)
        if k and UP not in lab and MAIN.isdisjoint(lab.split("/")) and _head(lab) not in {"C", "N"}
    ]
    return np.array(keep, dtype=np.int64)


def one_center(spans: Sequence[Span], n: int, log_probs: LogProbs, labels: Sequence[str]) -> list[Span]:
    """``spans`` with every main relation (a P/S unit) holding at most one center, unless it coordinates
    (has an N child): of two or more ``C`` children, the one the network is surest of stays, the others take
    their best label that is not a center (``center_targets``), e.g. ``D`` for "managed" in "[C managed]
    [C to break]".

    Why: a main relation's minimal centers are what SAMSA looks for in an output sentence, and extra centers
    add words the annotation does not count (in the Wiki training annotation 4 of 14,625 main relations have
    two centers without a connector, 110 with one)."""
    labels = tuple(labels)
    if "C" not in labels:  # a label set without centers (a network trained on a few sentences) has none to repair
        return list(spans)
    targets, center = center_targets(labels), labels.index("C")
    replace: dict[Span, Span] = {}
    for (_, _, label), kids in _children(spans, n).items():
        if label is None or _innermost(label) not in MAIN or any(_head(c.label) == "N" for c in kids):
            continue
        centers = [c for c in kids if c.label == "C"]
        if len(centers) < 2:
            continue
        options = []
        for c in centers:
            lp = log_probs(c.start, c.end)
            k = int(targets[np.argmax(lp[targets])])
            options.append((float(lp[center] - lp[k]), c, Span(c.start, c.end, labels[k])))
        kept = max(options, key=lambda o: o[0])[1]
        replace.update({c: new for _, c, new in options if c != kept})
    return [replace.get(s, s) for s in spans]
