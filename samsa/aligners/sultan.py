"""The ``sultan`` aligner: Sultan, Bethard & Sumner (2014) re-implemented on spaCy annotations. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path

from samsa.aligners.annotate import Annotator, Sentence
from samsa.aligners.base import Alignment
from samsa.aligners.dep_tables import COMBO_ORDER, equivalences
from samsa.aligners.resources import EXTRA_STOP_LEMMAS, PUNCTUATIONS, load_ppdb, stopwords
from samsa.aligners.stages import (
    Pairs,
    align_hyphens,
    align_named_entities,
    align_ngrams,
    align_punctuation,
    greedy_select,
)
from samsa.aligners.word_sim import WordSim

__all__ = ["SultanAligner", "make"]

THETA = 0.9  # weight of similarity against context evidence
CLASSES = (("verb", "V"), ("noun", "N"), ("adjective", "J"), ("adverb", "R"))


class SultanAligner:
    """Monolingual word aligner after Sultan et al. (2014), on spaCy.

    ``align(source_tokens, target_tokens)`` returns sorted 0-based pairs;
    ``align_annotated`` the 1-based pairs in the original's order of discovery
    (tests/test_aligners_spacy.py checks the original README example).
    """

    name = "sultan.v1"

    def __init__(
        self,
        *,
        ppdb: str | PathLike[str] | None = None,
        faithful_bugs: bool = True,
        stopwords_size: int = 179,
        model: str | None = None,
        annotator: Annotator | None = None,
    ) -> None:
        self.ppdb_path = None if ppdb is None or ppdb is False else Path(ppdb)
        self.faithful = faithful_bugs
        self.stop = stopwords(stopwords_size)
        self.stopwords_size = stopwords_size
        self.sim_words = WordSim(self.stop, load_ppdb(self.ppdb_path) if self.ppdb_path else frozenset())
        self.annotator = annotator or Annotator(model)
        self.tables = {c: equivalences(c, faithful=faithful_bugs) for c, _ in CLASSES}

    def signature(self) -> str:
        ppdb = "yes" if self.ppdb_path else "no"
        return f"{self.name}+ppdb:{ppdb}+bugs:{'yes' if self.faithful else 'no'}+stop:{self.stopwords_size}"

    # ------------------------------------------------------------------ API
    def align(self, source: Sequence[str], target: Sequence[str]) -> Alignment:
        """0-based (source, target) pairs, sorted; annotations are cached per sentence."""
        s, t = self.annotator.annotate_many([source, target])
        return sorted({(i - 1, j - 1) for i, j in self.align_annotated(s, t)})

    def prepare(self, sentences: Sequence[Sequence[str]]) -> None:
        """Annotate many token lists in one spaCy batch (later alignments hit the cache)."""
        self.annotator.annotate_many(sentences)

    def align_batch(self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[Alignment]:
        """Align many pairs, annotating every distinct sentence once (``nlp.pipe``)."""
        self.annotator.annotate_many([x for p in pairs for x in p])
        return [self.align(s, t) for s, t in pairs]

    # ------------------------------------------------------------------ core
    def sim(self, s: Sentence, i: int, t: Sentence, j: int) -> float:
        """max(relatedness of the words, relatedness of the lemmas); ROOT (index 0) only matches ROOT."""
        if i == 0 or j == 0:
            return 1.0 if i == j == 0 else 0.0
        return max(
            self.sim_words(s.words[i], s.tags[i], t.words[j], t.tags[j]),
            self.sim_words(s.lemmas[i], s.tags[i], t.lemmas[j], t.tags[j]),
        )

    def align_annotated(self, s: Sentence, t: Sentence) -> list[tuple[int, int]]:
        """1-based pairs in order of discovery (stage order, then order within a stage)."""
        if len(s) == 0 or len(t) == 0:
            return []
        pairs = Pairs()
        align_punctuation(s, t, pairs)
        align_ngrams(s, t, pairs, content_filter=not self.faithful, stop=self.stop)
        align_hyphens(s, t, pairs, min_len=2)
        align_named_entities(s, t, pairs)
        for word_class, letter in CLASSES:
            self._align_class(s, t, pairs, word_class, letter)
        self._content_textual(s, t, pairs)
        align_hyphens(s, t, pairs, min_len=1, stop=self.stop)
        self._stopwords_dependency(s, t, pairs)
        self._stopwords_textual(s, t, pairs)
        return [(i, j) for i, j in pairs.order if i != 0 and j != 0]

    def _matrix_ok(self, word_class: str, sent: Sentence, i: int, letter: str) -> bool:
        tag = sent.tags[i]
        if word_class == "verb":
            return tag.startswith("V") and sent.lemmas[i] not in self.stop
        if word_class == "noun":
            return tag.startswith("N") or tag == "PRP"
        return tag.startswith(letter)

    def _relatives(self, combo: str, sent: Sentence, i: int, side: str) -> list[tuple[int, str]]:
        parents = combo in ("pp",) or (combo == "pc" and side == "s") or (combo == "cp" and side == "t")
        rels = sent.parents(i) if parents else sent.children(i)
        if parents and not rels:
            return []
        return rels

    def _align_class(self, s: Sentence, t: Sentence, pairs: Pairs, word_class: str, letter: str) -> None:
        table = self.tables[word_class]
        src = [i for i in range(1, len(s) + 1) if i not in pairs.src and self._matrix_ok(word_class, s, i, letter)]
        tgt = [j for j in range(1, len(t) + 1) if j not in pairs.tgt and self._matrix_ok(word_class, t, j, letter)]
        word_sim: dict[tuple[int, int], float] = {}
        evidence: dict[tuple[int, int], float] = {}
        relatives: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for i in src:
            for j in tgt:
                ws = self.sim(s, i, t, j)
                if ws < THETA:
                    continue
                ev, rel = 0.0, []
                for combo in COMBO_ORDER[word_class]:
                    for k, rk in self._relatives(combo, s, i, "s"):
                        for m, rm in self._relatives(combo, t, j, "t"):
                            c = self.sim(s, k, t, m)
                            if c >= THETA and table.equivalent(combo, rk, rm):
                                ev += c
                                rel.append((k, m))
                word_sim[i, j], evidence[i, j], relatives[i, j] = ws, ev, rel
        for _ in range(len(src)):
            best, best_score = None, 0.0
            for (i, j), ev in evidence.items():  # insertion order = i ascending, then j ascending
                if ev <= 0 or i in pairs.src or j in pairs.tgt:
                    continue
                if not (s.tags[i].startswith(letter) and t.tags[j].startswith(letter)):
                    continue
                if s.lemmas[i] in self.stop or t.lemmas[j] in self.stop:
                    continue
                score = THETA * word_sim[i, j] + (1 - THETA) * ev
                if score > best_score:
                    best, best_score = (i, j), score
            if best is None:
                break
            pairs.add(*best)
            for k, m in relatives[best]:
                if k != 0 and m != 0 and k not in pairs.src and m not in pairs.tgt:
                    pairs.add(k, m)

    def _content_textual(self, s: Sentence, t: Sentence, pairs: Pairs) -> None:
        skip = self.stop | PUNCTUATIONS | EXTRA_STOP_LEMMAS
        src = [i for i in range(1, len(s) + 1) if i not in pairs.src and s.lemmas[i] not in skip]
        tgt = [j for j in range(1, len(t) + 1) if j not in pairs.tgt and t.lemmas[j] not in skip]
        neigh_s = {i: _window(s, i, self.stop) for i in src}
        neigh_t = {j: _window(t, j, self.stop) for j in tgt}
        scores: dict[tuple[int, int], tuple[float, float]] = {}
        for i in src:
            for j in tgt:
                ws = self.sim(s, i, t, j)
                ev = 0.0
                for lk in neigh_s[i]:
                    for ll in neigh_t[j]:
                        c = self.sim_words(lk, "none", ll, "none")
                        if c >= THETA:
                            ev += c
                scores[i, j] = (ws, ev)
        greedy_select(
            [i for i in src for _ in tgt],
            [j for _ in src for j in tgt],
            scores,
            pairs,
            skip_aligned=True,
            accept=lambda i, j, ws, ev: ws >= THETA and s.lemmas[i] not in self.stop,
            theta=THETA,
        )

    def _stopwords_dependency(self, s: Sentence, t: Sentence, pairs: Pairs) -> None:
        src = [i for i in range(1, len(s) + 1) if s.lemmas[i] in self.stop and i not in pairs.src]
        tgt = [j for j in range(1, len(t) + 1) if t.lemmas[j] in self.stop and j not in pairs.tgt]
        s_list, t_list, scores = [], [], {}
        for i in src:
            for j in tgt:
                lemma_ok = (
                    s.lemmas[i] == t.lemmas[j]
                    or self.sim_words(s.lemmas[i], s.tags[i], t.lemmas[j], t.tags[j]) >= THETA
                )
                if not lemma_ok:
                    continue
                s_list.append(i)
                t_list.append(j)
                ev = sum(1 for p, _ in s.parents(i) for q, _ in t.parents(j) if (p, q) in pairs.set)
                ev += sum(1 for c, _ in s.children(i) for d, _ in t.children(j) if (c, d) in pairs.set)
                scores[i, j] = (self.sim(s, i, t, j), float(ev))
        greedy_select(
            s_list,
            t_list,
            scores,
            pairs,
            skip_aligned=not self.faithful,
            accept=lambda i, j, ws, ev: ws >= THETA and ev > 0,
            theta=THETA,
        )

    def _stopwords_textual(self, s: Sentence, t: Sentence, pairs: Pairs) -> None:
        keep = self.stop | PUNCTUATIONS | EXTRA_STOP_LEMMAS
        src = [i for i in range(1, len(s) + 1) if s.lemmas[i] in keep and i not in pairs.src]
        tgt = [j for j in range(1, len(t) + 1) if t.lemmas[j] in keep and j not in pairs.tgt]
        s_list, t_list, scores = [], [], {}
        for i in src:
            for j in tgt:
                if self.sim_words(s.lemmas[i], s.tags[i], t.lemmas[j], t.tags[j]) < THETA:
                    continue
                s_list.append(i)
                t_list.append(j)
                ev = float(((i - 1, j - 1) in pairs.set) + ((i + 1, j + 1) in pairs.set))
                scores[i, j] = (self.sim(s, i, t, j), ev)
        greedy_select(
            s_list,
            t_list,
            scores,
            pairs,
            skip_aligned=True,
            accept=lambda i, j, ws, ev: ws >= THETA and ev > 0,
            theta=THETA,
        )


def _window(sent: Sentence, i: int, stop: frozenset[str]) -> list[str]:
    """Lemmas of up to 3 tokens on each side that are neither stopwords nor punctuation."""
    n = len(sent)
    idx = [*range(max(1, i - 3), i), *range(i + 1, min(n, i + 3) + 1)]
    return [sent.lemmas[k] for k in idx if sent.lemmas[k] not in stop and sent.lemmas[k] not in PUNCTUATIONS]


def make(
    *, ppdb: str | None = None, faithful_bugs: bool = True, stopwords_size: int = 179, model: str | None = None
) -> SultanAligner:
    """Registry factory."""
    return SultanAligner(ppdb=ppdb, faithful_bugs=faithful_bugs, stopwords_size=stopwords_size, model=model)
