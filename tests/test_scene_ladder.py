"""The Scene ladder (``fit_scenes``): a parse carries its parses with more Scenes, and SAMSA reads the first with
at least as many Scenes as the output has sentences when the parse has fewer (docs/validity.md).

Hand-made span scores for the decoding; a gold graph with one Scene turned into a non-Scene for the scoring,
whose values are computed by hand below."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from samsa.parsers.builtin.decode import LADDER_BIASES, ladder_trees, scene_ladder
from samsa.parsers.builtin.runtime import SpanRows
from samsa.parsers.builtin.tree import Span, spans_to_graph
from samsa.scoring.metric import Samsa
from samsa.scoring.paper import decode_structure, encode_structure, fit_structure, paper_structure
from samsa.ucca.graph import from_json, to_json, tokens
from samsa.ucca.queries import scenes
from samsa.ucca.xml import load_passage

LABELS = ("<none>", "A", "P", "H/P")
MASK = np.array([False, False, True, True])
WORDS = ["rains", "snows"]


def _rows(second: float) -> np.ndarray:
    """Span scores of "rains snows" in span-row order (0,1), (0,2), (1,2): "rains" a Scene (H/P), the whole no
    unit, "snows" no unit (log-probability -0.5) unless its H/P log-probability ``second`` gets a bias."""
    low = -30.0
    return np.array([[-5.0, low, low, -0.01], [-0.01, low, low, low], [-0.5, low, low, second]])


def _builder(biases: list[float]):
    def graph(spans: list[Span], bias: float):
        biases.append(bias)
        return spans_to_graph(WORDS, spans)

    return graph


def _trees(second: float, scene_bias: float = 0.0):
    rows = SpanRows(np.zeros(3, dtype=np.int64), *np.triu_indices(3, 1), _rows(second))
    (trees,) = ladder_trees(rows, [2], MASK, LABELS, scene_bias)
    return trees


def test_a_rung_is_the_tree_at_the_smallest_bias_with_more_scenes():
    trees = _trees(-2.2)
    assert [b for b, _ in trees] == list(LADDER_BIASES) and max(LADDER_BIASES) == 5.0
    biases: list[float] = []
    rungs = scene_ladder(trees, _builder(biases), 1)
    # -2.2 + bias beats "no unit" (-0.5) from bias 1.7 on: the first ladder bias above it is 2.0
    assert [len(scenes(g)) for g in rungs] == [2]
    assert biases == [2.0]  # the tree at 1.0 has one main relation: not built (no more Scenes possible)
    assert trees[0][1] == [Span(0, 1, "H/P")] and set(trees[1][1]) == {Span(0, 1, "H/P"), Span(1, 2, "H/P")}


def test_the_ladder_starts_from_the_parse_bias_and_is_empty_when_no_bias_adds_a_scene():
    assert [b for b, _ in _trees(-2.2, scene_bias=0.5)][:2] == [1.5, 2.5]
    biases: list[float] = []
    assert len(scene_ladder(_trees(-2.2, scene_bias=0.5), _builder(biases), 1)) == 1
    assert biases == [2.5]  # 0.5 + 2.0: the first tree with two main relations
    assert scene_ladder(_trees(-30.0), _builder([]), 1) == []
    # a tree with more main relations whose graph has no more Scenes is built but not kept
    assert scene_ladder(_trees(-2.2), _builder(biases := []), 2) == [] and biases == []


@pytest.fixture
def one_scene_with_ladder(fixture_path):
    """The paper's "John got home and gave Mary a call ." with "gave ... a call" made a center (not a P): one
    Scene, "John got home"; its ladder holds the gold graph, two Scenes."""
    gold = load_passage(fixture_path("ucca/paper/1_john_home_call.xml"))
    base = copy.deepcopy(gold)
    base.edges["1.4", "1.9"]["categories"] = ("C",)
    assert len(scenes(base)) == 1 and len(scenes(gold)) == 2
    base.graph["scene_ladder"] = [to_json(gold)]
    return base, gold


SPLIT = "John got home . John gave Mary a call ."
THREE = "John got home . John gave Mary . a call ."


@pytest.mark.parametrize("compat", ["paper", "easse"])
def test_an_output_with_more_sentences_than_the_parse_has_scenes_is_scored_on_the_first_rung(
    one_scene_with_ladder, compat
):
    base, gold = one_scene_with_ladder
    metric = Samsa(tokenizer="none", compat=compat)
    no_ladder = copy.deepcopy(base)
    del no_ladder.graph["scene_ladder"]
    # two sentences, one Scene: 0 on the parse alone (n_out > n_inp); on the rung, as on the gold graph: each Scene
    # in its own sentence with its main relation and participants, n_out = n_inp = 2: 100
    assert metric.sentence_score(no_ladder, SPLIT).samsa == 0.0
    assert metric.sentence_score(base, SPLIT).samsa == 100.0 == metric.sentence_score(gold, SPLIT).samsa
    # three sentences: no rung has three Scenes: 0, as without the ladder
    assert metric.sentence_score(base, THREE).samsa == 0.0
    # one sentence: the parse itself (its one Scene, all centers kept: 100; the gold graph's two Scenes give 50)
    whole = " ".join(tokens(gold))
    assert metric.sentence_score(base, whole).samsa == 100.0
    assert metric.sentence_score(gold, whole).samsa == 50.0


def test_the_ladder_survives_the_structure_encoding_pickling_and_json(one_scene_with_ladder):
    base, _ = one_scene_with_ladder
    structure = paper_structure(base)
    assert len(structure) == 1 and [len(r) for r in structure.ladder] == [2]
    decoded = decode_structure(encode_structure(structure, base), tokens(base))
    assert decoded == structure and decoded.ladder == structure.ladder
    assert pickle.loads(pickle.dumps(structure)).ladder == structure.ladder
    assert len(fit_structure(decoded, 2)) == 2 and fit_structure(decoded, 1) is decoded
    assert paper_structure(from_json(to_json(base))).ladder == structure.ladder
    # a rung's words that are not the input's tokens make the whole structure undecodable (recomputed)
    wrong = encode_structure(structure, base).replace('"gave"', '"took"')
    assert decode_structure(wrong, tokens(base)) is None


@pytest.fixture(scope="module")
def fitting_parser():
    pytest.importorskip("spacy")
    from samsa.errors import PluginUnavailable
    from samsa.parsers.builtin import BuiltinParser

    try:
        return BuiltinParser(fit_scenes=True)
    except PluginUnavailable as e:
        pytest.skip(str(e))


def test_the_parser_writes_rungs_with_more_and_more_scenes(fitting_parser):
    sentences = ["John got home and gave Mary a call, which surprised her.", "Rain fell on the old town.",
                 "The committee, which met on Monday, approved the plan that the mayor had proposed."]  # fmt: skip
    plain = fitting_parser.parse(sentences)
    assert "+fit_scenes" in fitting_parser.signature()
    for g in plain:
        counts = [len(scenes(g))] + [len(scenes(from_json(r))) for r in g.graph["scene_ladder"]]
        assert counts == sorted(set(counts)), counts  # strictly more Scenes on every rung
        for r in g.graph["scene_ladder"]:
            assert tokens(from_json(r)) == tokens(g)
    assert any(g.graph["scene_ladder"] for g in plain)


def test_score_fits_the_scene_count_unless_told_not_to(tmp_path, fitting_parser, capsys):
    """``samsa score --source``: the default pipeline reads the ladder for an output with more sentences than the
    parse has Scenes; ``--no-fit-scenes`` scores it 0, as the paper does, and the signatures say which."""
    import json

    from samsa.cli import main

    sentence = "After the war ended, he moved to Paris to study painting."
    (graph,) = fitting_parser.parse([sentence])
    rungs = [len(scenes(from_json(r))) for r in graph.graph["scene_ladder"]]
    n_out = len(scenes(graph)) + 1
    assert rungs and rungs[0] >= n_out  # the parse has a rung with one Scene more
    output = " ".join(["The war ended.", "He moved to Paris.", "He wanted to study.", "He studied painting."][:n_out])
    (tmp_path / "src.txt").write_text(sentence + "\n")
    (tmp_path / "out.txt").write_text(output + "\n")
    rows = {}
    for extra in ([], ["--no-fit-scenes"]):
        assert main(["score", "--source", str(tmp_path / "src.txt"), str(tmp_path / "out.txt"), "--json",
                     "--no-cache", "--quiet", *extra]) == 0  # fmt: skip
        rows[bool(extra)] = json.loads(capsys.readouterr().out)  # one system: one object
    assert rows[True]["samsa"] == 0.0 and "+fit_scenes" not in rows[True]["signature"]
    assert rows[False]["samsa"] > 0.0 and "+fit_scenes" in rows[False]["signature"]


def test_the_report_shows_the_rung_an_output_was_scored_on(one_scene_with_ladder):
    from samsa.report.explain import explain_output, explain_source

    base, _ = one_scene_with_ladder
    structure = paper_structure(base)
    metric = Samsa(tokenizer="none")
    detail, result = explain_output(base, structure, SPLIT, metric)
    assert result.samsa == 100.0 and len(detail["scenes"]) == 2
    assert [sc["pos"] for sc in detail["rung"]] == [[0, 1, 2], [0, 4, 5, 6, 7]]  # John got home / John gave Mary a call
    whole, _ = explain_output(base, structure, " ".join(tokens(base)), metric)
    assert "rung" not in whole and len(whole["scenes"]) == len(explain_source(base, structure)["scenes"]) == 1


def test_the_parser_computes_a_ladder_only_where_an_output_needs_it(fitting_parser):
    """``need``: the most sentences of an output; a parse with at least as many Scenes needs no ladder (and gets
    none: no attribute, which an empty ladder is not); without ``need`` every parse gets one. The graphs are the
    same either way."""
    sentence = "After the war ended, he moved to Paris to study painting."
    (eager,) = fitting_parser.parse([sentence])
    n = len(scenes(eager))
    (enough,) = fitting_parser.parse([sentence], need=[n])
    (more,) = fitting_parser.parse([sentence], need=[n + 1])
    assert "scene_ladder" not in enough.graph and more.graph["scene_ladder"] == eager.graph["scene_ladder"]
    assert to_json(enough) == to_json(_without_ladder(eager))


def _without_ladder(g):
    out = g.copy()
    del out.graph["scene_ladder"]
    return out


def test_the_api_scores_text_as_it_scores_the_eager_parse(fitting_parser):
    """``Samsa.corpus_score`` on text asks for ladders only where an output needs one: the same scores as the
    graphs parsed with every ladder."""
    sentences = ["After the war ended, he moved to Paris to study painting.", "Rain fell on the old town."]
    outputs = ["The war ended. He moved to Paris. He wanted to study. He studied painting.", "Rain fell."]
    metric = Samsa(parser=fitting_parser)
    eager = fitting_parser.parse(sentences)
    assert [r.samsa for r in metric.corpus_score(sentences, outputs).sentences] == [
        metric.sentence_score(g, o).samsa for g, o in zip(eager, outputs, strict=True)
    ]
