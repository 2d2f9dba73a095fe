"""SAMSA on hand-built UCCA fixtures, values computed by hand (both compat modes).

Notation in the comments: a scene scores 0.5*MR + 0.5*mean(participants);
SAMSA = n_out/n_inp * 1/n_inp * sum(scene scores), SAMSA-abl drops n_out/n_inp.
The exact aligner is used throughout (tokenizer "none": outputs are tokenized).
"""

from __future__ import annotations

import pytest

from samsa import Samsa, ScoringError, corpus_samsa, get_samsa_sentence_scores, load_passage, score, sentence_samsa
from samsa.scoring import samsa_from_scene_scores, scene_score

# (fixture, output, paper (SAMSA, SAMSA-abl), easse (SAMSA, SAMSA-abl) or None = EASSE errors)
CASES = [
    # Paper section 1, good split. Scene "John got home" -> s1 (3 leaves); "John gave Mary a call" (remote
    # John) -> s2 (5 leaves); every center ("got", John, home / "call", John, Mary) aligned: 2/2*1/2*(1+1).
    ("john_home_call", "John got home . John gave Mary a call .", (100.0, 100.0), (100.0, 100.0)),
    # Paper section 1, bad split "... and gave. Mary called." Scene 2 may only use s2 (n_inp = n_out):
    # MR "call" missing (0), John missing (0), Mary aligned (1): 0.5*0 + 0.5*0.5 = 0.25; (1 + 0.25)/2.
    ("john_home_call", "John got home and gave . Mary called .", (62.5, 62.5), (62.5, 62.5)),
    # Paper section 4, good split: "John wrote a book. I read that book." Main scene -> s2 (I read that
    # book: 4 leaves vs 3); elaborator scene (book, that, John, wrote) -> s1; all centers aligned.
    ("read_book", "John wrote a book . I read that book .", (100.0, 100.0), (100.0, 100.0)),
    # Paper section 4, bad split "John wrote. I read the book.": the remote participant "book" of the
    # writing scene is missing from s1: 0.5*1 + 0.5*(1+0)/2 = 0.75; (1 + 0.75)/2 = 0.875.
    ("read_book", "John wrote . I read the book .", (87.5, 87.5), (87.5, 87.5)),
    # n_out > n_inp: 3 sentences for 2 scenes -> 0 (section 4.1, case 2).
    ("john_home_call", "John got home . John gave . Mary a call .", (0.0, 0.0), (0.0, 0.0)),
    # n_inp > n_out: both scenes share the one sentence; each scores 1; SAMSA = 1/2 * 1/2 * 2.
    ("john_home_call", "John got home and gave Mary a call .", (50.0, 100.0), (50.0, 100.0)),
    # n_inp = n_out one-to-one: scene 1 takes s1 (3 leaves); scene 2 is left with "Bye ." (nothing):
    # (1 + 0)/2.
    ("john_home_call", "John got home and gave Mary a call . Bye .", (50.0, 50.0), (50.0, 50.0)),
    # Tie: scene 1 aligns 1 leaf in "Home ." and 1 in "John ."; the earlier sentence wins.
    # Scene 1 on "Home .": MR 0, John 0, home 1 -> 0.25; scene 2 on "John .": MR 0, John 1, Mary 0 -> 0.25.
    # (Had the tie gone to "John .", the result would be 12.5.)
    ("john_home_call", "Home . John .", (25.0, 25.0), (25.0, 25.0)),
    # Remote participant replaced by a pronoun: John (remote in scene 2) is not in s2: 0.5 + 0.5*0.5.
    ("john_home_call", "John got home . He gave Mary a call .", (87.5, 87.5), (87.5, 87.5)),
    # Scene with no aligned sentence: the paper's argmax still takes the first free sentence (ties to the
    # earliest), EASSE consumes nothing, so its scene 2 gets "Gave Mary a call" (MR 1, John 0, Mary 1 =
    # 0.75): 2/2*1/2*0.75 = 37.5; in paper mode scene 2 only has "Bye ." left: 0.
    ("john_home_call", "Gave Mary a call . Bye .", (0.0, 0.0), (37.5, 37.5)),
    # Implicit units: "traveling" scene has an implicit participant (0.5): scene 1 = 1, scene 2 =
    # 0.5 + 0.5*0.5 = 0.75; one sentence: SAMSA = 1/2*1/2*1.75 = 43.75, SAMSA-abl = 1.75/2.
    ("traveling_fun", "Traveling is fun .", (43.75, 87.5), (43.75, 87.5)),
    # Empty output line: no sentence, so n_out = 0 and SAMSA = 0; SAMSA-abl keeps the implicit unit's
    # 0.5: scene 2 = 0.5*0 + 0.5*0.5 = 0.25, scene 1 = 0 -> 0.25/2 = 12.5.
    ("traveling_fun", "", (0.0, 12.5), (0.0, 12.5)),
    # Multi-category edge A+P: "The teacher" is a scene whose main relation (and participant) is
    # "teacher". Paper: both scenes score 1, one sentence: 50 / 100. EASSE looks at the first category
    # only, finds no main relation for that scene and runs past its list: an error.
    ("teacher_left", "The teacher left .", (50.0, 100.0), None),
    # No scene: 0, whatever the output.
    ("lovely_day", "What a lovely day !", (0.0, 0.0), (0.0, 0.0)),
    # Position vs string: the second "John" is not aligned (one-to-one), so the paper scores it 0:
    # 0.5 + 0.5*(1+0)/2 = 0.75. EASSE checks the string "John", which the first John supplies: 100.
    ("john_saw_john", "John saw .", (75.0, 75.0), (100.0, 100.0)),
    # Several minimal centers (footnote 4): paper needs both "man" and "woman": MR 1, A 0 -> 0.5.
    # EASSE follows only the last center's chain, needs "woman" only: 100.
    ("man_woman_left", "The young woman left .", (50.0, 50.0), (100.0, 100.0)),
    ("man_woman_left", "The old man and the young woman left .", (100.0, 100.0), (100.0, 100.0)),
]


@pytest.mark.parametrize(("fixture", "output", "paper", "easse"), CASES)
def test_hand_computed_values(ucca_path, fixture, output, paper, easse):
    g = load_passage(ucca_path(fixture))
    r = Samsa(tokenizer="none", compat="paper").sentence_score(g, output)
    assert (r.samsa, r.samsa_abl) == pytest.approx(paper)
    if easse is None:
        with pytest.raises(ScoringError, match="index error"):
            Samsa(tokenizer="none", compat="easse").sentence_score(g, output)
    else:
        r = Samsa(tokenizer="none", compat="easse").sentence_score(g, output)
        assert (r.samsa, r.samsa_abl) == pytest.approx(easse)


def test_per_scene_detail_explains_the_score(fixture_path):
    g = load_passage(fixture_path("ucca/paper/1_john_home_call.xml"))
    r = Samsa(tokenizer="none").sentence_score(g, "John got home and gave . Mary called .")
    first, second = r.scenes
    assert (first.scene, first.sentence, first.match, first.score) == ("1.2", 0, 3, 1.0)
    assert (second.scene, second.sentence, second.match) == ("1.4", 1, 1)
    assert second.main_relation.words == ("call",) and second.main_relation.score == 0.0
    assert [(p.words, p.score) for p in second.participants] == [(("John",), 0.0), (("Mary",), 1.0)]
    d = r.to_dict()
    assert d["n_scenes"] == 2 and d["n_sentences"] == 2 and len(d["scenes"]) == 2


def test_no_scene_reports_zero_scenes(fixture_path):
    g = load_passage(fixture_path("ucca/lovely_day.xml"))
    r = Samsa(tokenizer="none").sentence_score(g, "What a lovely day !")
    assert r.to_dict(detail=False) == {"samsa": 0.0, "samsa_abl": 0.0, "n_scenes": 0, "n_sentences": 1}


def test_easse_style_function_api(fixture_path):
    g1 = load_passage(fixture_path("ucca/paper/1_john_home_call.xml"))
    g2 = load_passage(fixture_path("ucca/paper/2_read_book.xml"))
    outs = ["John got home and gave. Mary called.", "John wrote. I read the book."]
    assert get_samsa_sentence_scores([g1, g2], outs) == [62.5, 87.5]
    assert corpus_samsa([g1, g2], outs) == pytest.approx(75.0)
    assert sentence_samsa(g1, "John got home. John gave Mary a call.", compat="easse") == 100.0
    detailed = score([g1, g2], outs)
    assert (detailed.samsa, detailed.samsa_abl) == (75.0, 75.0)
    assert [s.sentence for s in detailed.sentences[1].scenes] == [1, 0]  # "I read ..." -> s2, "John wrote" -> s1
    assert detailed.to_dict()["signature"].startswith("SAMSA|compat:paper|parser:given|aligner:exact.v1")


def test_separator_and_signature(fixture_path):
    g = load_passage(fixture_path("ucca/paper/1_john_home_call.xml"))
    m = Samsa(tokenizer="none", separator="<::::>", compat="easse")
    assert m.sentence_score(g, "John got home . <::::> John gave Mary a call .").samsa == 100.0
    assert m.signature() == "SAMSA|compat:easse|parser:given|aligner:exact.v1|tok:none|lc:no|split:sep|version:0.1.0"


def test_formula_table():
    assert scene_score(1.0, []) == 0.75  # no participant: [0.5]
    assert scene_score(0.5, [1.0, 0.0]) == 0.5
    assert samsa_from_scene_scores([], 1) == (0.0, 0.0)
    assert samsa_from_scene_scores([1.0], 2) == (0.0, 0.0)
    assert samsa_from_scene_scores([1.0, 0.5, 0.0], 2) == pytest.approx((100 * 2 / 9 * 1.5, 50.0))


def test_unknown_settings_are_refused():
    with pytest.raises(ValueError, match="unknown compat mode 'x'"):
        Samsa(compat="x")
    with pytest.raises(ValueError, match="unknown tokenizer"):
        Samsa(tokenizer="moses")


def test_per_relation_indexing_quirk():
    """docs/samsa.md difference 4: "He came and went ; she stayed ." with two P in scene 1."""
    from samsa.ucca import graph as G

    g = G.from_tokens("He came and went ; she stayed .".split(), punct=[0, 0, 0, 0, 1, 0, 0, 1])
    for i in range(2, 10):
        G.add_unit(g, f"1.{i}")
    G.add_edge(g, "1.1", "1.2", "H")
    G.add_edge(g, "1.1", "1.3", "H")
    for parent, child, cat in [
        ("1.2", "1.4", "A"),
        ("1.2", "1.5", "P"),
        ("1.2", "1.6", "N"),
        ("1.2", "1.7", "P"),
        ("1.3", "1.8", "A"),
        ("1.3", "1.9", "S"),
    ]:
        G.add_edge(g, parent, child, cat)
    for unit, term in [("1.4", "0.1"), ("1.5", "0.2"), ("1.6", "0.3"), ("1.7", "0.4"), ("1.8", "0.6"), ("1.9", "0.7")]:
        G.add_edge(g, unit, term, "Terminal")
    out = "He came and went . She stayed ."
    # paper: both scenes fully preserved -> 100
    assert Samsa(tokenizer="none").sentence_score(g, out).samsa == 100.0
    # EASSE: relation list [went, went, stayed]; scene 2 reads entry 1 ("went"), absent from
    # "She stayed .": 0.5*0 + 0.5*1 = 0.5; (1 + 0.5) / 2 = 75
    assert Samsa(tokenizer="none", compat="easse").sentence_score(g, out).samsa == 75.0


def test_structure_codec_round_trip_scores_exactly_as_the_graph(data_dir):
    """The parse cache keeps each graph's paper-mode structure: decoded, it scores (detail included) exactly as
    the graph does, and it is refused for other tokens or other scene rules."""
    from samsa.aligners.exact import ExactAligner
    from samsa.engine.entries import decode_structure, encode_structure
    from samsa.scoring.paper import paper_structure, score_paper
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files

    aligner = ExactAligner()
    for f in list_passage_files(data_dir / "ucca" / "20k" / "test")[:60]:
        g = load_passage(f)
        words = tokens(g)
        st = paper_structure(g)
        text = encode_structure(st, g)
        back = decode_structure(text, words)
        assert back == st
        output = [words[: len(words) // 2], words[len(words) // 2 :]]
        assert score_paper(None, output, aligner, back) == score_paper(g, output, aligner)
        if any(sc.words for sc in st):
            assert decode_structure(text, ["x"] * len(words)) is None
        assert decode_structure(text.replace('"v":"paper:', '"v":"paper:old'), words) is None
    assert decode_structure("not json", ["a"]) is None
    assert decode_structure('{"v": 1}', ["a"]) is None
