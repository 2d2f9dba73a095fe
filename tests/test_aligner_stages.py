"""Sultan aligner: word similarity and each stage on hand-built annotations (no spaCy needed)."""

from __future__ import annotations

import pytest

from samsa.aligners.annotate import Sentence
from samsa.aligners.dep_tables import equivalences
from samsa.aligners.resources import STOPWORDS_127, STOPWORDS_179, stopwords
from samsa.aligners.stages import (
    Pairs,
    align_hyphens,
    align_named_entities,
    align_ngrams,
    align_punctuation,
    common_sublists,
    greedy_select,
    is_acronym,
)
from samsa.aligners.word_sim import WordSim, canonical

STOP = stopwords(179)


def sent(words, tags=None, lemmas=None, ner=None, deps=()):
    n = len(words)
    return Sentence(
        ("", *words),
        ("", *(lemmas or [w.lower() for w in words])),
        ("", *(tags or ["NN"] * n)),
        ("O", *(ner or ["O"] * n)),
        tuple(deps),
    )


class TestWordSim:
    sim = WordSim(STOP, frozenset({("men", "people"), ("four", "4")}))
    bare = WordSim(STOP)

    def test_canonical_and_stem_matches(self):
        assert canonical("U.S.") == "US" and self.bare("U.S.", "NNP", "US", "NNP") == 1.0
        assert self.bare("3,000", "CD", "3000", "CD") == 1.0
        assert self.bare("e-mail", "NN", "email", "NN") == 1.0
        assert self.bare("running", "VBG", "runs", "VBZ") == 1.0  # Snowball stem "run"
        assert self.bare("1990s", "CD", "1990", "CD") == 0.0  # Snowball keeps "1990s" (no vowel before -s)

    def test_vetoes(self):
        assert self.bare("3", "CD", "4", "CD") == 0.0  # different numbers
        assert self.bare("four", "CD", "five", "CD") == 0.0  # different number words
        assert self.sim("the", "DT", "men", "NNS") == 0.0  # stopword vs content word
        assert self.bare(";", ":", ":", ":") == 0.0  # punctuation

    def test_ppdb_on_and_off(self):
        assert self.sim("men", "NNS", "people", "NNS") == 0.9
        assert self.sim("People", "NNS", "men", "NNS") == 0.9  # either order, lower-cased
        assert self.sim("Four", "CD", "4", "CD") == 0.9  # the number rules need both digits or both words
        assert self.bare("men", "NNS", "people", "NNS") == 0.0


def test_stopword_lists():
    assert len(STOPWORDS_127) == 127 and len(STOPWORDS_179) == 179
    assert "don't" in stopwords(179) and "don't" not in stopwords(127)
    with pytest.raises(ValueError, match="127 or 179"):
        stopwords(100)


def test_stage1_sentence_final_punctuation():
    p = Pairs()
    align_punctuation(sent(["a", "b", "."]), sent(["c", "!"]), p)
    assert p.order == [(3, 2)]
    p = Pairs()
    align_punctuation(sent(["a", ".", '"']), sent(["c", "."]), p)  # quote after the period
    assert p.order == [(2, 2)]


def test_common_sublists_order_and_containment():
    # longest first; a sublist inside an earlier one (in both sequences) is skipped
    got = common_sublists("a b c x a b".split(), "a b c".split())
    assert got == [([0, 1, 2], [0, 1, 2]), ([4, 5], [0, 1])]


def test_stage2_ngrams_faithful_aligns_stopword_ngrams():
    s, t = sent("the cat sat on the mat".split()), sent("a dog sat on the rug".split())
    faithful = Pairs()
    align_ngrams(s, t, faithful, content_filter=False, stop=STOP)
    assert faithful.order == [(3, 3), (4, 4), (5, 5)]  # "sat on the"
    fixed = Pairs()
    align_ngrams(sent("of the big".split()), sent("of the small".split()), fixed, content_filter=True, stop=STOP)
    assert fixed.order == []  # "of the" has no content word


def test_stage3_hyphenated_words():
    p = Pairs()
    align_hyphens(sent(["a", "well-known", "man"]), sent(["he", "is", "well", "known"]), p, min_len=2)
    assert p.order == [(2, 3), (2, 4)]  # one source word, two targets


def test_stage4_named_entities_full_match_and_acronym():
    s = sent(["Barack", "Obama", "visited", "UN"], tags=["NNP", "NNP", "VBD", "NNP"],
             ner=["PERSON", "PERSON", "O", "ORGANIZATION"])  # fmt: skip
    t = sent(["Obama", "at", "United", "Nations"], tags=["NNP", "IN", "NNP", "NNP"],
             ner=["PERSON", "O", "ORGANIZATION", "ORGANIZATION"])  # fmt: skip
    p = Pairs()
    align_named_entities(s, t, p)
    assert (4, 3) in p.set and (4, 4) in p.set  # acronym UN -> United Nations
    assert (2, 1) in p.set and (1, 1) in p.set  # subset match: Obama -> Obama, and Barack -> Obama
    assert is_acronym("U.N.", ["United", "Nations"]) and not is_acronym("A", ["Apple"])


def test_greedy_select_with_duplicate_lists():
    # two candidates for source 1; the higher score wins, then its words leave the race
    p = Pairs()
    scores = {(1, 1): (0.9, 0.0), (1, 2): (1.0, 0.0), (2, 2): (1.0, 1.0)}
    greedy_select([1, 1, 2, 2], [1, 2, 1, 2], scores, p, skip_aligned=True,
                  accept=lambda i, j, ws, ev: ws >= 0.9, theta=0.9)  # fmt: skip
    assert p.order == [(2, 2), (1, 1)]


def test_equivalence_tables_faithful_vs_fixed():
    faithful, fixed = equivalences("noun"), equivalences("noun", faithful=False)
    assert not faithful.equivalent("pp", "tmod", "prep_in")  # merged into "tmodprep_in" by a missing comma
    assert fixed.equivalent("pp", "tmod", "prep_in")
    assert faithful.equivalent("pp", "nsubj", "agent")
    assert faithful.equivalent("pc", "nsubj", "amod") and faithful.equivalent("cp", "amod", "nsubj")
    assert equivalences("verb").equivalent("cc", "iobj", "prep_to")
    assert not equivalences("adverb").equivalent("pp", "advmod", "npadvmod")


class _NoSpacy:
    """The Sultan stages only need annotations; tests hand them over directly."""


def sultan(**kw):
    from samsa.aligners.sultan import SultanAligner

    return SultanAligner(annotator=_NoSpacy(), **kw)  # type: ignore[arg-type]


def test_stages_5_to_8_dependency_context():
    # "ran" ~ "run" (stem) with the same nsubj child "John": the verb stage aligns ran-run, then its relative
    s = sent(
        ["John", "quickly", "ran", "home"],
        tags=["NNP", "RB", "VBD", "NN"],
        lemmas=["John", "quickly", "run", "home"],
        deps=[("nsubj", 3, 1), ("advmod", 3, 2), ("root", 0, 3)],
    )
    t = sent(["John", "will", "run"], tags=["NNP", "MD", "VB"], lemmas=["John", "will", "run"],
             deps=[("nsubj", 3, 1), ("aux", 3, 2), ("root", 0, 3)])  # fmt: skip
    a = sultan()
    from samsa.aligners.stages import Pairs as P

    pairs = P()
    a._align_class(s, t, pairs, "verb", "V")
    # evidence: nsubj child John~John (1.0) and the two roots (1.0); the relatives follow the pair
    assert pairs.order[0] == (3, 3) and (1, 1) in pairs.set


def test_stage9_textual_context_needs_similarity():
    # "cars" ~ "car" (stem), no dependency context: aligned by the textual stage; "red" ~ "blue" never
    s = sent(["red", "cars", "stopped"], tags=["JJ", "NNS", "VBD"], lemmas=["red", "car", "stop"])
    t = sent(["blue", "car", "stopped"], tags=["JJ", "NN", "VBD"], lemmas=["blue", "car", "stop"])
    a = sultan()
    pairs = Pairs()
    a._content_textual(s, t, pairs)
    assert (2, 2) in pairs.set and (3, 3) in pairs.set and (1, 1) not in pairs.set


def test_stage10_hyphen_single_part():
    p = Pairs()
    align_hyphens(sent(["state-owned", "firm"]), sent(["the", "state", "firm"]), p, min_len=1, stop=STOP)
    assert p.order == [(1, 2)]


def test_stage11_stopwords_need_aligned_relatives():
    # "the" aligns only because its heads (dog, dog) are already aligned
    s = sent(["the", "dog"], tags=["DT", "NN"], deps=[("det", 2, 1), ("root", 0, 2)])
    t = sent(["the", "dog"], tags=["DT", "NN"], deps=[("det", 2, 1), ("root", 0, 2)])
    a = sultan()
    pairs = Pairs()
    a._stopwords_dependency(s, t, pairs)
    assert pairs.order == []
    pairs.add(2, 2)
    a._stopwords_dependency(s, t, pairs)
    assert (1, 1) in pairs.set


def test_stage12_stopwords_and_punctuation_textual():
    # "," between two aligned neighbours gets aligned; a lone "of" without aligned neighbours does not
    s = sent(["Paris", ",", "France", "of"], tags=["NNP", ",", "NNP", "IN"], lemmas=["Paris", ",", "France", "of"])
    t = sent(["Paris", ",", "France", "of"], tags=["NNP", ",", "NNP", "IN"], lemmas=["Paris", ",", "France", "of"])
    a = sultan()
    pairs = Pairs()
    pairs.add(1, 1)
    pairs.add(3, 3)
    a._stopwords_textual(s, t, pairs)
    assert (2, 2) in pairs.set and (4, 4) in pairs.set  # "of" follows aligned "France"/"France"
    lone = Pairs()
    a._stopwords_textual(s, t, lone)
    assert lone.order == []
