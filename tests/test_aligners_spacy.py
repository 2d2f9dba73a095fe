"""spaCy-based aligners end to end: the original README fixture, SD conversion, CLI."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("spacy")
pytest.importorskip("nltk")

from samsa.aligners.annotate import DEFAULT_MODELS, DEFAULT_TOKENIZER_MODELS, Annotator, load_spacy, spacy_model_id
from samsa.aligners.lemma import LemmaAligner
from samsa.aligners.sultan import SultanAligner
from samsa.cli import main

FOUR_MEN = "Four men died in an accident .".split()
FOUR_PEOPLE = "4 people are dead from a collision .".split()


@pytest.fixture(scope="module")
def annotator():
    return Annotator()


@pytest.fixture(scope="module")
def ppdb_path(data_dir):
    return data_dir / "ppdb" / "ppdb-1.0-xxxl-lexical.extended.synonyms.uniquepairs"


def test_pipelines_loaded_without_their_saved_tokenizer_tokenize_as_with_it():
    """load_spacy keeps spaCy's default tokenizer for the pipelines listed as having it saved: for every such
    pipeline installed here, the saved tokenizer must be that default, byte for byte (a new model version is
    not in the list until this holds for it)."""
    import spacy

    installed = [m for m in DEFAULT_MODELS if spacy_model_id(m) in DEFAULT_TOKENIZER_MODELS]
    if not installed:
        pytest.skip("no listed spaCy pipeline installed")
    for name in installed:
        saved = spacy.load(name, exclude=["senter", "ner", "lemmatizer", "attribute_ruler", "tagger", "parser"])
        kept = load_spacy(name, exclude=["ner", "lemmatizer", "attribute_ruler", "tagger", "parser"])
        assert kept.tokenizer.to_bytes() == saved.tokenizer.to_bytes()
        text = "Dr. Smith's U.S.-based co-op didn't pay $3.50 (i.e. 3 euros) on 2018-06-01 :-) https://x.org/a?b=1"
        assert [t.text for t in kept(text)] == [t.text for t in saved(text)]


def test_numpy_gemm_gives_blis_annotations_and_touches_only_its_pipeline():
    """load_spacy's default routes the pipeline's matrix products through numpy (thinc's NumpyOps without
    BLIS) on every network node, leaves thinc's current ops alone, and annotates as BLIS does: the same
    tags and dependencies, tok2vec outputs equal to float32 rounding."""
    import numpy as np
    from spacy.tokens import Doc
    from thinc.api import NumpyOps, get_current_ops

    def network_nodes(nlp):
        return [n for _, c in nlp.components if hasattr(getattr(c, "model", None), "walk") for n in c.model.walk()]

    pipes = ["ner", "lemmatizer", "attribute_ruler"]
    blis, ours = load_spacy(exclude=pipes, gemm="blis"), load_spacy(exclude=pipes)
    assert len(network_nodes(ours)) > 20 and all(not n.ops.use_blis for n in network_nodes(ours))
    assert all(n.ops.use_blis for n in network_nodes(blis))
    assert isinstance(get_current_ops(), NumpyOps) and get_current_ops().use_blis
    sentences = [FOUR_MEN, FOUR_PEOPLE, "The committee , which met on Tuesday , rejected the plan .".split()]
    differ = False
    for a, b in zip(*(list(nlp.pipe(Doc(nlp.vocab, words=s) for s in sentences)) for nlp in (blis, ours)), strict=True):
        assert [(t.tag_, t.dep_, t.head.i) for t in a] == [(t.tag_, t.dep_, t.head.i) for t in b]
        np.testing.assert_allclose(a.tensor, b.tensor, rtol=0, atol=1e-4)
        differ |= not np.array_equal(a.tensor, b.tensor)
    assert differ  # two backends really ran: their float32 sums are taken in other orders
    with pytest.raises(ValueError, match="gemm must be one of numpy, blis"):
        load_spacy(gemm="mkl")


def test_readme_fixture_with_ppdb(annotator, ppdb_path):
    # aligner_notes.md 1.10: the original aligner's documented output, order included (1-based).
    a = SultanAligner(ppdb=ppdb_path, annotator=annotator)
    s, t = annotator.annotate_many([FOUR_MEN, FOUR_PEOPLE])
    assert a.align_annotated(s, t) == [(7, 8), (2, 2), (3, 4), (1, 1), (6, 7), (5, 6)]
    assert a.align(FOUR_MEN, FOUR_PEOPLE) == [(0, 0), (1, 1), (2, 3), (4, 5), (5, 6), (6, 7)]


def test_readme_fixture_without_ppdb_is_what_easse_runs(annotator):
    a = SultanAligner(annotator=annotator)
    s, t = annotator.annotate_many([FOUR_MEN, FOUR_PEOPLE])
    assert a.align_annotated(s, t) == [(7, 8)]
    assert a.signature() == "sultan.v1+ppdb:no+bugs:yes+stop:179"


def test_stanford_dependencies_conversion(annotator):
    s = annotator.annotate(FOUR_PEOPLE)
    assert set(s.deps) == {("num", 2, 1), ("nsubj", 4, 2), ("cop", 4, 3), ("root", 0, 4), ("det", 7, 6),
                           ("prep_from", 4, 7)}  # fmt: skip
    assert s.lemmas[6] == "a" and s.parents(5) == [(4, "prep_from")]  # collapsed "from": fallback parent
    c = annotator.annotate("Bill and John ate .".split())
    assert ("conj_and", 1, 3) in c.deps and ("nsubj", 4, 3) in c.deps  # cc-processed subject
    assert annotator.annotate(["Obama", "spoke"]).ner[1] == "PERSON"


def test_tokens_are_kept(annotator):
    a = SultanAligner(annotator=annotator)
    # "don't" stays one token on both sides; indices refer to the caller's tokens
    assert (1, 1) in set(a.align(["I", "don't", "know", "."], ["I", "don't", "care", "."]))


def test_lemma_aligner(annotator):
    a = LemmaAligner(annotator=annotator)
    assert a.align(["The", "men", "died", "."], ["A", "man", "dies"]) == [(1, 1), (2, 2)]
    assert a.signature() == "lemma.v1"


def test_samsa_align_cli(tmp_path, capsys, ppdb_path):
    f = tmp_path / "pairs.tsv"
    f.write_text(" ".join(FOUR_MEN) + "\t" + " ".join(FOUR_PEOPLE) + "\nJohn left .\tjohn left\n")
    assert main(["align", str(f), "--aligner", "sultan", "--ppdb", str(ppdb_path)]) == 0
    assert capsys.readouterr().out.splitlines() == ["0-0 1-1 2-3 4-5 5-6 6-7", "0-0 1-1"]
    assert main(["align", str(f), "--aligner", "exact"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "0-0 1-1"
    bad = tmp_path / "bad.tsv"
    bad.write_text("no tab here\n")
    assert main(["align", str(bad)]) == 1
    assert "bad.tsv:1: expected 2 tab-separated fields" in capsys.readouterr().err


def test_samsa_score_with_sultan_on_gold_xml(tmp_path, fixture_path, capsys):
    gold = tmp_path / "gold"
    gold.mkdir()
    shutil.copy(fixture_path("ucca/paper/1_john_home_call.xml"), gold / "1.xml")
    out = tmp_path / "o.txt"
    out.write_text("John got home and gave . Mary called .\n")
    assert main(["score", "--ucca", str(gold), "--system", str(out), "--aligner", "sultan", "--tokenizer", "none",
                 "--json", "--quiet"]) == 0  # fmt: skip
    import json

    res = json.loads(capsys.readouterr().out)
    # "call" ~ "called" (same stem): scene 2 keeps its main relation: (1 + 0.5 + 0.5 * 0.5) / 2
    assert res["samsa"] == 87.5
    assert "aligner:sultan.v1+ppdb:no" in res["signature"]
