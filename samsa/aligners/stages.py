"""Surface stages of the Sultan aligner and its greedy selection helper.

Kept apart from :mod:`samsa.aligners.sultan` (the dependency and context stages) so
each stays small and testable on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from samsa.aligners.annotate import Sentence
from samsa.aligners.resources import PUNCTUATIONS

__all__ = [
    "Pairs",
    "align_hyphens",
    "align_named_entities",
    "align_ngrams",
    "align_punctuation",
    "common_sublists",
    "greedy_select",
    "is_acronym",
]

ENTITY_TYPES = ("PERSON", "ORGANIZATION", "LOCATION")


class Pairs:
    """Alignments in order of discovery, with the aligned source/target index sets."""

    def __init__(self) -> None:
        self.order: list[tuple[int, int]] = []
        self.set: set[tuple[int, int]] = set()
        self.src: set[int] = set()
        self.tgt: set[int] = set()

    def add(self, i: int, j: int) -> None:
        if (i, j) in self.set:
            return
        self.order.append((i, j))
        self.set.add((i, j))
        self.src.add(i)
        self.tgt.add(j)


def common_sublists(a: Sequence[str], b: Sequence[str]) -> list[tuple[list[int], list[int]]]:
    """Common contiguous sublists, longest first, skipping those inside an earlier one (0-based).

    Order as the original ``findAllCommonContiguousSublists``: by size
    descending, then start in the shorter sequence, then start in the longer.
    Only maximal runs can be recorded (a shorter run on the same diagonal lies
    inside its extension), so the runs are found with one dynamic-programming pass.
    """
    swapped = len(a) > len(b)
    x, y = (b, a) if swapped else (a, b)
    n, m = len(x), len(y)
    runs = []
    for i in range(n):
        for j in range(m):
            if x[i] != y[j] or (i > 0 and j > 0 and x[i - 1] == y[j - 1]):
                continue  # not the start of a maximal diagonal run
            k = 0
            while i + k < n and j + k < m and x[i + k] == y[j + k]:
                k += 1
            runs.append((k, i, j))
    runs.sort(key=lambda r: (-r[0], r[1], r[2]))
    recorded: list[tuple[set[int], set[int], list[int], list[int]]] = []
    for size, i, j in runs:
        xi, yj = list(range(i, i + size)), list(range(j, j + size))
        sx, sy = set(xi), set(yj)
        if any(sx <= rx and sy <= ry for rx, ry, _, _ in recorded):
            continue
        recorded.append((sx, sy, xi, yj))
    return [(yj, xi) if swapped else (xi, yj) for _, _, xi, yj in recorded]


def align_punctuation(s: Sentence, t: Sentence, pairs: Pairs) -> None:
    """Stage 1: sentence-final punctuation."""
    sw, tw = s.words[1:], t.words[1:]
    n, m = len(sw), len(tw)
    final = {".", "!"}
    if (sw[-1] in final and tw[-1] in final) or sw[-1] == tw[-1]:
        pairs.add(n, m)
    elif n > 1 and sw[-2] in final and tw[-1] in final:
        pairs.add(n - 1, m)
    elif m > 1 and sw[-1] in final and tw[-2] in final:
        pairs.add(n, m - 1)
    elif n > 1 and m > 1 and sw[-2] in final and tw[-2] in final:
        pairs.add(n - 1, m - 1)


def align_ngrams(s: Sentence, t: Sentence, pairs: Pairs, *, content_filter: bool, stop: frozenset[str]) -> None:
    """Stage 2: every common contiguous n-gram (n >= 2) of lower-cased words, position by position.

    The original's "at least one content word" test never filters (it iterates
    over index lists); ``content_filter=True`` applies it as intended.
    """
    sw = [w.lower() for w in s.words[1:]]
    tw = [w.lower() for w in t.words[1:]]
    for xi, yj in common_sublists(sw, tw):
        if len(xi) < 2:
            continue
        if content_filter and all(sw[k] in stop or sw[k] in PUNCTUATIONS for k in xi):
            continue
        for a, b in zip(xi, yj, strict=True):
            if a + 1 not in pairs.src and b + 1 not in pairs.tgt:
                pairs.add(a + 1, b + 1)


def align_hyphens(s: Sentence, t: Sentence, pairs: Pairs, *, min_len: int, stop: frozenset[str] | None = None) -> None:
    """Stages 3 (``min_len=2``: two or more parts match consecutive words) and 10 (``min_len=1``)."""
    for first, second, flip in ((s, t, False), (t, s, True)):
        aligned_first = pairs.tgt if flip else pairs.src
        aligned_second = pairs.src if flip else pairs.tgt
        other = [w.lower() for w in second.words[1:]]
        for i in range(1, len(first) + 1):
            word = first.words[i]
            if i in aligned_first or "-" not in word or word == "-":
                continue
            parts = [p.lower() for p in word.split("-")]
            for _, yj in common_sublists(parts, other):
                if (min_len == 2 and len(yj) < 2) or (min_len == 1 and len(yj) != 1):
                    continue
                for j0 in yj:
                    j = j0 + 1
                    if min_len == 1 and (second.lemmas[j] in (stop or frozenset()) or j in aligned_second):
                        continue
                    pairs.add(*((j, i) if flip else (i, j)))


def _entities(sent: Sentence) -> list[tuple[list[int], list[str], str]]:
    ents: list[tuple[list[int], list[str], str]] = []
    for i in range(1, len(sent) + 1):
        tag = sent.ner[i]
        if tag == "O":
            continue
        if ents and ents[-1][2] == tag and ents[-1][0][-1] == i - 1:
            ents[-1][0].append(i)
            ents[-1][1].append(sent.words[i])
        else:
            ents.append(([i], [sent.words[i]], tag))
    return ents


def is_acronym(word: str, words: Sequence[str]) -> bool:
    """ "UN" is an acronym of ["United", "Nations"] (case-sensitive initials, dots ignored)."""
    w = word.replace(".", "")
    if not w.isupper() or len(w) != len(words) or w.lower() in ("a", "i"):
        return False
    return all(words[k] and w[k] == words[k][0] for k in range(len(w)))


def _learn(sent: Sentence, own: list, other: list) -> None:
    in_entity = {i for idx, _, _ in own for i in idx}
    for i in range(1, len(sent) + 1):
        word = sent.words[i]
        if i in in_entity or not word[:1].isupper():
            continue
        for _, words, typ in list(other):
            if word in words:
                extended = False
                for e in own:
                    if e[0][-1] == i - 1:
                        e[0].append(i)
                        e[1].append(word)
                        extended = True
                if not extended:
                    own.append(([i], [word], typ))
                in_entity.add(i)
            elif is_acronym(word, words) and ([i], [word], typ) not in own:
                own.append(([i], [word], typ))


def align_named_entities(s: Sentence, t: Sentence, pairs: Pairs) -> None:
    """Stage 4: full matches, acronyms and subset matches of PERSON/ORGANIZATION/LOCATION entities."""
    se, te = _entities(s), _entities(t)
    _learn(s, se, te)
    _learn(t, te, se)
    if not se or not te:
        return
    before_tgt = set(pairs.tgt)
    source_words = {w for _, ws, typ in se if typ in ENTITY_TYPES for w in ws}
    src_ok = [e for e in se if e[2] in ENTITY_TYPES and [x[1] for x in se].count(e[1]) == 1]
    tgt_ok = [e for e in te if e[2] in ENTITY_TYPES and [x[1] for x in te].count(e[1]) == 1]
    done_s: set[int] = set()
    done_t: set[int] = set()
    for a, (si, sw, _) in enumerate(src_ok):
        for b, (ti, tw, _) in enumerate(tgt_ok):
            if [w.replace("-", "") for w in sw] == [w.replace("-", "") for w in tw]:
                for x, y in zip(si, ti, strict=True):
                    pairs.add(x, y)
                done_s.add(a)
                done_t.add(b)
    for si, sw, _ in src_ok:
        for ti, tw, _ in tgt_ok:
            if len(sw) == 1 and is_acronym(sw[0], tw):
                for y in ti:
                    pairs.add(si[0], y)
            elif len(tw) == 1 and is_acronym(tw[0], sw):
                for x in si:
                    pairs.add(x, ti[0])
    target_words = {w for _, ws, typ in te if typ in ENTITY_TYPES for w in ws}
    before_src = set(pairs.src)
    for a, (si, sw, st) in enumerate(src_ok):
        for b, (ti, tw, tt) in enumerate(tgt_ok):
            if a in done_s or b in done_t or st != tt:
                continue
            if set(sw) <= set(tw):  # the source name is the shorter one
                _subset_match(si, sw, ti, tw, t.words, before_tgt, source_words, pairs.add)
            elif set(tw) <= set(sw):  # mirrored (the original indexes this case wrongly; fixed here)
                _subset_match(ti, tw, si, sw, s.words, before_src, target_words, lambda x, y: pairs.add(y, x))


def _subset_match(short_idx, short_words, long_idx, long_words, long_sent_words, aligned_before, other_words, add):
    """Identical words first; then every word of the shorter name to each remaining word of the longer one."""
    rest = list(long_idx)
    for x, w in zip(short_idx, short_words, strict=True):
        for y, v in zip(long_idx, long_words, strict=True):
            if w == v:
                add(x, y)
                if y in rest:
                    rest.remove(y)
    for x, w in zip(short_idx, short_words, strict=True):
        for y in rest:
            v = long_sent_words[y]
            if y in aligned_before or v in other_words or w in PUNCTUATIONS or v in PUNCTUATIONS:
                continue
            add(x, y)


def greedy_select(
    s_list: list[int],
    t_list: list[int],
    scores: dict[tuple[int, int], tuple[float, float]],
    pairs: Pairs,
    *,
    skip_aligned: bool,
    accept: Callable[[int, int, float, float], bool],
    theta: float,
) -> None:
    """The original's selection loop over candidate lists with duplicates.

    Each round picks the pair with the highest ``theta*sim + (1-theta)*evidence``
    (> 0; ties to the first in iteration order over the lists, i.e. the order of
    first occurrences), aligns it if ``accept`` says so and removes one
    occurrence of each of its words from the lists, exactly as ``list.remove``
    does; rejected winners use up an occurrence too.
    """
    positive = {p: theta * ws + (1 - theta) * ev for p, (ws, ev) in scores.items() if theta * ws + (1 - theta) * ev > 0}
    for _ in range(len(s_list)):
        if not positive:
            return
        s_order = {i: k for k, i in enumerate(dict.fromkeys(s_list))}
        t_order = {j: k for k, j in enumerate(dict.fromkeys(t_list))}
        best, best_key, best_score = None, None, 0.0
        for (i, j), score in positive.items():
            if i not in s_order or j not in t_order:
                continue
            if skip_aligned and (i in pairs.src or j in pairs.tgt):
                continue
            key = (s_order[i], t_order[j])
            if score > best_score or (score == best_score and best_key is not None and key < best_key):
                best, best_key, best_score = (i, j), key, score
        if best is None:
            return
        i, j = best
        ws, ev = scores[best]
        if best not in pairs.set and accept(i, j, ws, ev):
            pairs.add(i, j)
        s_list.remove(i)
        t_list.remove(j)
