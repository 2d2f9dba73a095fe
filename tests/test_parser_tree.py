"""Span-tree projection of UCCA graphs and the CKY decoder (no trained model needed)."""

from __future__ import annotations

import numpy as np
import pytest

from lab.oracle import graph_to_spans
from samsa.parsers.builtin.decode import cky, cky_batch, span_charts
from samsa.parsers.builtin.runtime import span_rows
from samsa.parsers.builtin.tree import Span, spans_to_graph
from samsa.ucca.evaluation import evaluate_corpus
from samsa.ucca.queries import scenes
from samsa.ucca.xml import list_passage_files, load_passage


def test_projection_of_the_paper_example(ucca_path):
    g = load_passage(ucca_path("john_home_call"))
    toks, spans = graph_to_spans(g)
    assert toks == "John got home and gave Mary a call .".split()
    got = {(s.start, s.end, s.label) for s in spans}
    # "gave ... a call" is discontiguous: it adopts "Mary" with the "^" (belongs to my parent) mark
    assert {(0, 3, "H"), (3, 4, "L"), (4, 8, "H/P"), (5, 6, "A^"), (7, 8, "C"), (8, 9, "U")} <= got
    back = spans_to_graph(toks, spans)
    assert back.edges[next(iter(back.predecessors(_unit_with_text(back, "Mary")))), _unit_with_text(back, "Mary")][
        "categories"
    ] == ("A",)
    assert len(scenes(back)) == 2


def _unit_with_text(g, text):
    t = next(n for n, d in g.nodes(data=True) if d.get("text") == text)
    return next(iter(g.predecessors(t)))


@pytest.mark.parametrize("corpus", ["wiki/dev", "20k/test"])
def test_round_trip_oracle(data_dir, corpus):
    pairs = []
    for f in list_passage_files(data_dir / "ucca" / corpus)[:80]:
        g = load_passage(f)
        pairs.append((spans_to_graph(*graph_to_spans(g)), g))
    primary = evaluate_corpus(pairs).counts["labeled", "primary"]
    assert primary.f1 > 0.97  # what the projection loses (docs/parser.md gives the full-corpus figures)


def test_cky_picks_the_best_nested_spans():
    n = 3
    s = np.full((n + 1, n + 1), -1.0)
    s[0, 2], s[1, 3], s[0, 1], s[2, 3] = 2.0, 3.0, 0.5, 0.4  # (0,2) and (1,3) cross; (1,3) is better
    assert sorted(cky(s)) == [(0, 1), (1, 3), (2, 3)]  # (2,3) nests inside (1,3)
    s[0, 3] = 1.0
    assert sorted(cky(s)) == [(0, 1), (0, 3), (1, 3), (2, 3)]


def test_batched_cky_decodes_each_sentence_as_alone():
    """Sentences of different lengths in one padded chart: each gets its own best tree, whatever the padding
    holds (random gains there must never be read)."""
    rng = np.random.default_rng(0)
    lengths = [1, 5, 3, 8]
    size = max(lengths) + 1
    padded = rng.standard_normal((len(lengths), size, size))
    alone = []
    for b, n in enumerate(lengths):
        s = np.triu(rng.standard_normal((n + 1, n + 1)), 1) - np.tril(np.ones((n + 1, n + 1)))
        padded[b, : n + 1, : n + 1] = s
        alone.append(cky(s))
    assert cky_batch(padded, lengths) == alone
    assert any(len(a) > 2 for a in alone)  # non-trivial trees


def test_span_charts_pick_labels_after_the_bias_and_pad_the_rest():
    """Labels (none, A, P): the bias favours P; a tie between A and P goes to the first; cells outside a
    sentence's spans hold label 0 and gain -1."""
    rows = span_rows([1, 2])  # spans (0,1) | (0,1) (0,2) (1,2)
    rows.log_probs = np.array([[-0.1, -3, -2.5], [-2, -0.5, -1], [-1, -2, -3], [-3, -0.2, -4]], dtype=np.float32)
    best, gain = span_charts(rows, [1, 2], np.array([0.0, 0.0, 1.0]))
    assert best.shape == gain.shape == (2, 3, 3)
    assert best[0, 0, 1] == 2 and gain[0, 0, 1] == pytest.approx(-1.4)
    assert best[1, 0, 1] == 2 and gain[1, 0, 1] == pytest.approx(2.0)
    assert best[1, 0, 2] == 1 and gain[1, 0, 2] == pytest.approx(-1.0)  # A and P tie at -2: A, the first
    assert best[1, 1, 2] == 1 and gain[1, 1, 2] == pytest.approx(2.8)
    assert best[0, 0, 2] == 0 and gain[0, 0, 2] == -1.0 and gain[1, 1, 0] == -1.0


def test_crossing_spans_are_dropped_and_tokens_kept():
    g = spans_to_graph(["a", "b", "c", "."], [Span(0, 2, "A"), Span(1, 3, "P"), Span(3, 4, "U")])
    assert [g.nodes[t]["text"] for t in sorted(n for n in g if g.nodes[n]["layer"] == "0")] == ["a", "b", "c", "."]
    assert all(g.in_degree(n) == 1 for n in g if g.nodes[n]["layer"] == "0")


def test_spans_inside_a_punctuation_unit_are_dropped():
    """A U span over punctuation only is a PNCT unit, which holds terminals only (the ucca package's PunctNode
    has no room for units): U spans predicted inside it are not built. (The accurate model predicted
    ``" "`` as a U span with a U span per quote on a 20K test sentence.)"""
    from samsa.ucca.interop import to_ucca
    from samsa.ucca.validate import check_passage

    words = ['"', '"', "Ships", "sailed", "."]
    g = spans_to_graph(words, [Span(0, 2, "U"), Span(0, 1, "U"), Span(1, 2, "U"), Span(2, 3, "A"), Span(3, 4, "P")])
    check_passage(g)
    pnct = [n for n in g if g.nodes[n]["layer"] == "1" and g.nodes[n]["type"] == "PNCT"]
    assert sorted(sorted(g.successors(n)) for n in pnct) == [["0.1", "0.2"], ["0.5"]]
    pytest.importorskip("ucca")
    from ucca.evaluation import evaluate

    evaluate(to_ucca(g), to_ucca(g), normalize=False, constructions=("primary", "remote"))  # raised before


def test_a_unit_marked_up_moves_to_the_end_of_its_grandparent_and_emptied_units_go():
    g = spans_to_graph(["a", "b", "c"], [Span(0, 3, "H"), Span(0, 1, "A"), Span(1, 2, "P"), Span(2, 3, "A^")])
    assert list(g.successors("1.1")) == ["1.2", "1.5"] and list(g.successors("1.2")) == ["1.3", "1.4"]
    assert g.edges["1.1", "1.5"]["categories"] == ("A",) and list(g.successors("1.5")) == ["0.3"]
    # the H unit's only child moves up: the H unit is left empty and removed
    g = spans_to_graph(["a", "b"], [Span(0, 2, "H"), Span(0, 2, "A^")])
    assert list(g) == ["1.1", "0.1", "0.2", "1.3"] and list(g.edges) == [("1.1", "1.3"), ("1.3", "0.1"), ("1.3", "0.2")]
    assert g.edges["1.1", "1.3"] == {"categories": ("A",), "remote": False, "attributes": {},
                                     "category_attributes": [{"tag": "A"}]}  # fmt: skip


def test_a_compact_passage_reads_and_writes_as_its_graph_remote_edges_included(ucca_path):
    """What scoring reads of the parser's CompactPassage (queries, structure, the cache's JSON) is what it reads
    of the graph built from it, and that graph is valid."""
    from samsa.engine.entries import encode_structure
    from samsa.parsers.builtin.remotes import add_remotes, candidate_pairs
    from samsa.parsers.builtin.tree import spans_to_passage
    from samsa.scoring.paper import paper_structure
    from samsa.ucca.compact import CompactPassage, as_graph
    from samsa.ucca.graph import to_json
    from samsa.ucca.validate import check_passage

    toks, spans = graph_to_spans(load_passage(ucca_path("john_home_call")))
    p = spans_to_passage(toks, spans, passage_id="7")
    assert isinstance(p, CompactPassage) and len(p) == len(spans_to_graph(toks, spans))
    # "John" shared by both Scenes: the remote A from the second Scene, added as the parser adds it
    pair = next(x for x in candidate_pairs(p) if x.unit_span == (0, 1) and x.scene_span[0] == 4)
    add_remotes(p, [(pair, "A")])
    g = as_graph(p)
    assert to_json(p) == to_json(g) and check_passage(g) is g and g.graph["passage_id"] == "7"
    assert g.edges[pair.scene, pair.unit]["remote"] and p.has_edge(pair.scene, pair.unit)
    assert paper_structure(p) == paper_structure(g)
    assert encode_structure(paper_structure(p), p) == encode_structure(paper_structure(g), g)
    assert [sc.words for sc in paper_structure(p)] == [("John", "got", "home"), ("John", "gave", "Mary", "a", "call")]
    assert as_graph(g) is g


def test_implicit_main_relations_make_scenes_of_h_units_without_one():
    from samsa.parsers.builtin.tree import implicit_main_relations, spans_to_passage
    from samsa.scoring.paper import paper_structure
    from samsa.ucca.evaluation import evaluate_corpus as evaluate

    words = "» Ja , er kam . Mein Werk ? «".split()
    # "Ja" and "Mein Werk" are parallel Scenes with no word for their process; "er kam" has one
    spans = [Span(1, 2, "H"), Span(3, 5, "H"), Span(3, 4, "A"), Span(4, 5, "P"), Span(6, 8, "H/A")]
    plain = spans_to_passage(words, spans)
    assert len(scenes(plain)) == 1
    assert implicit_main_relations(plain, frozenset()) == 0 and len(scenes(plain)) == 1
    g = spans_to_passage(words, spans)
    assert implicit_main_relations(g, frozenset({"H"})) == 2
    found = paper_structure(g.to_graph())
    assert [s.words for s in found] == [("Ja",), ("er", "kam"), ("Mein", "Werk")]
    # an implicit main relation has no words: it scores 0.5 wherever its Scene goes; the participant is read
    assert [s.main_relation.terminals for s in found] == [frozenset(), frozenset({"0.5"}), frozenset()]
    assert [p.words for p in found[2].participants] == [("Mein", "Werk")]
    # labeled F1 reads implicit units apart: the primary and remote figures do not move
    got = evaluate([(g.to_graph(), plain.to_graph())])
    assert got.counts["labeled", "primary"].f1 == got.pooled().f1 == 1.0
