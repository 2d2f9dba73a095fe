"""Parse uncertainty: the arithmetic of menus, counts and intervals (hand-computed), the tree sampler, and the
``--parse-uncertainty`` / ``--suggest-annotation`` options end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from samsa.cli import main
from samsa.scoring.uncertainty import (
    Calibration,
    TreeMenu,
    corpus_draws,
    draw_trees,
    fit_margin,
    fit_top_map,
    menu_from_draws,
    point_menu,
    raw_counts,
    scene_counts,
    sentence_interval,
    suggestion_order,
)

CAL = Calibration(n_draws=4, tau=0.5, sigma=3.0, keep=0.2)


def test_menu_keeps_the_one_best_share_and_counts_draws_by_frequency():
    m = menu_from_draws(("a", 2), [("b", 3), ("a", 2), ("b", 3), ("c", 1)], keep=0.2)
    assert m.keys == ("a", "b", "c") and m.counts == (2, 3, 1)
    # a: 0.2 + 0.8/4; b: 2 x 0.2; c: 0.2
    assert np.allclose(m.weights, (0.4, 0.4, 0.2))
    assert point_menu("x", 2).weights == (1.0,)
    assert menu_from_draws(("a", 2), [], keep=0.2).weights == (1.0,)


def test_floor_spreads_by_distance_from_the_one_best_count():
    m = TreeMenu(("a",), (1,), (1.0,))
    # counts 0..4, weights 2^-|c-1| = 0.5, 1, 0.5, 0.25, 0.125 (sum 2.375); floor 0.2
    dist = raw_counts(m, floor=0.2)
    assert dist[1] == pytest.approx(0.8 + 0.2 / 2.375)
    assert dist[4] == pytest.approx(0.2 * 0.125 / 2.375)
    assert sum(dist.values()) == pytest.approx(1.0)


def test_top_map_sets_the_most_probable_count_and_rescales_the_rest():
    m = TreeMenu(("a", "b"), (2, 3), (0.75, 0.25))
    cal = Calibration(4, 0.5, 3.0, 0.2, floor=0.0, top_map=((0.5, 0.3), (1.0, 0.6)))
    assert scene_counts(m, cal) == {2: 0.6, 3: 0.4}
    assert scene_counts(m, Calibration(4, 0.5, 3.0, 0.2)) == {2: 0.75, 3: 0.25}


def test_fit_top_map_pools_adjacent_violators():
    # bin 5 (0.5-0.6): 1 of 2 right, (1+1)/(2+2) = 0.5; bin 7: 0 of 1, 1/3 -> pooled: 1 of 3, 2/5;
    # bin 9: 2 of 2, 3/4
    raw = [0.55, 0.56, 0.75, 0.95, 0.96]
    hit = [True, False, False, True, True]
    table = dict(fit_top_map(raw, hit))
    assert table[0.6] == table[0.8] == pytest.approx(0.4)
    assert table[1.0] == 0.75
    assert table[0.1] == table[0.6]  # empty bins below take the first value
    assert list(table.values()) == sorted(table.values())


def test_interval_quantiles_margin_and_zero_probability():
    m = TreeMenu(("a", "b", "c"), (2, 3, 1), (0.5, 0.3, 0.2))
    iv = sentence_interval([80.0, 50.0, 0.0], m)
    assert iv.mean == pytest.approx(0.5 * 80 + 0.3 * 50)
    assert (iv.low, iv.high, iv.p_zero) == (0.0, 80.0, pytest.approx(0.2))
    iv = sentence_interval([80.0, 50.0, 0.0], TreeMenu(("a", "b", "c"), (2, 3, 1), (0.9, 0.06, 0.04)), margin=30.0)
    # 5% quantile: 0 has 4% -> 50; widened by 30 -> 20; 95% quantile 80 -> 110, clipped to 100
    assert (iv.low, iv.high) == (20.0, 100.0)


def test_fit_margin_is_the_conformal_quantile():
    # conformity scores: 0 (inside), 5, 10, -3 (inside), 20 -> sorted -3, 0, 5, 10, 20; ceil(6 x 0.8) = 5th -> 20
    lows, highs = [10, 10, 10, 10, 10], [20, 20, 20, 20, 20]
    manual = [15, 25, 0, 13, 40]
    assert fit_margin(lows, highs, manual, level=0.8) == 20.0
    assert fit_margin(lows, highs, manual, level=0.5) == 5.0


def test_draws_are_shared_and_seeded():
    menus = [TreeMenu(("a", "b"), (1, 2), (0.5, 0.5)), point_menu("x", 1)]
    a, b = draw_trees(menus, 50, seed=3), draw_trees(menus, 50, seed=3)
    assert (a == b).all() and set(a[:, 0]) == {0, 1} and set(a[:, 1]) == {0}
    scores = [[10.0, 30.0], [50.0]]
    means = corpus_draws(scores, a)
    assert np.allclose(means, [(10.0 if t == 0 else 30.0) / 2 + 25.0 for t in a[:, 0]])
    rows = np.zeros_like(a)  # every resample takes source 0 twice
    assert np.allclose(corpus_draws(scores, a, rows), [10.0 if t == 0 else 30.0 for t in a[:, 0]])


def test_suggestions_put_the_largest_expected_scene_count_error_first():
    menus = [
        point_menu("x", 1),
        TreeMenu(("a", "b"), (2, 2), (0.5, 0.5)),  # same count, scores move
        TreeMenu(("a", "b"), (2, 3), (0.6, 0.4)),  # count off by 1 with 0.4
        TreeMenu(("a", "b"), (2, 4), (0.7, 0.3)),  # off by 2 with 0.3: 0.6
    ]
    scores = {"s": [[50.0], [50.0, 0.0], [50.0, 50.0], [50.0, 50.0]]}
    assert suggestion_order(menus, scores, CAL) == [3, 2, 1, 0]


@pytest.fixture(scope="module")
def fast_parser():
    from samsa.parsers.builtin import BuiltinParser

    return BuiltinParser()


def test_draw_zero_is_the_one_best_parse_and_draws_are_reproducible(fast_parser):
    from samsa.parsers.builtin.sampling import Perturbation
    from samsa.scoring.paper import paper_structure
    from samsa.scoring.uncertainty import structure_key
    from samsa.ucca.graph import to_json

    sents = ["John got home and gave Mary a call .", "I read the book that John wrote ."]
    how = Perturbation(6, 0.5, 3.0)
    drawn = fast_parser.parse_with_draws(sents, how)
    best = fast_parser.parse_passages(sents)
    assert [to_json(d.best) for d in drawn] == [to_json(b) for b in best]
    assert all(len(d.order) == 6 and len(d.draws()) == 6 for d in drawn)
    alone = fast_parser.parse_with_draws(sents[:1], how)  # another batch: the same draws
    keys = [[structure_key(paper_structure(p)) for p in [d.best, *d.draws()]] for d in (alone[0], drawn[0])]
    assert keys[0] == keys[1] and len(set(keys[0])) > 1


def test_each_distinct_tree_is_kept_once_with_the_draws_order(fast_parser):
    """A tree decoded by several draws is one passage; the draws point at it by index; trees that score alike
    (the same Scenes, main relations and participants) share one place in the menu."""
    from samsa.engine.uncertainty import trees_of
    from samsa.parsers.builtin.sampling import Perturbation
    from samsa.scoring.paper import paper_structure
    from samsa.scoring.uncertainty import structure_key

    (drawn,) = fast_parser.parse_with_draws(["John got home and gave Mary a call ."], Perturbation(12, 0.5, 3.0))
    assert len({id(t) for t in drawn.trees}) == len(drawn.trees)  # each kept once
    assert sorted(set(drawn.order)) == list(range(len(drawn.trees))) and len(drawn.trees) < len(drawn.order)
    assert [drawn.trees[k] for k in drawn.order] == drawn.draws()
    keys = {structure_key(paper_structure(t)) for t in [drawn.best, *drawn.trees]}
    menu = trees_of(paper_structure(drawn.best), drawn, 0.6).menu
    assert len(menu.keys) == len(keys) and sum(menu.weights) == pytest.approx(1.0)


def test_drawn_trees_round_trip_through_their_cache_encoding(fast_parser):
    from samsa.engine.entries import decode_draws, encode_draws
    from samsa.engine.uncertainty import drawn_structures
    from samsa.parsers.builtin.sampling import Perturbation

    sents = [["John", "got", "home", "and", "gave", "Mary", "a", "call", "."], ["I", "slept", "."]]
    for words, drawn in zip(sents, fast_parser.parse_with_draws(sents, Perturbation(6, 0.5, 3.0)), strict=True):
        structures = drawn_structures(drawn)
        back = decode_draws(encode_draws(structures), words)
        assert back is not None
        assert (back.structures, back.order) == (structures.structures, structures.order)
        assert decode_draws(encode_draws(structures), ["other", *words[1:]]) is None  # not this sentence's tokens
    assert decode_draws(b"{", ["a"]) is None and decode_draws('{"v": "paper:0", "trees": [], "order": []}', "a") is None
    assert decode_draws('{"v": "paper:2", "trees": [], "order": [0]}', "a") is None  # a draw without its tree


def test_a_run_reads_what_the_cache_holds_and_parses_the_rest(tmp_path, fast_parser):
    """The one path: graphs, structures and drawn trees of one run through run_items, cold, mixed and warm."""
    from samsa.config import SamsaConfig
    from samsa.engine.cache import ParseCache
    from samsa.engine.corpus import parse_with_doubt
    from samsa.engine.seams import Execution
    from samsa.engine.uncertainty import parser_calibration
    from samsa.ucca.graph import to_json

    cal = parser_calibration(fast_parser)
    config = SamsaConfig(parser=fast_parser)
    sents = ["John got home and gave Mary a call .", "I read the book that John wrote .", "Rain fell ."]
    outs = [["John got home . He called Mary .", "I read it .", "Rain fell ."]]
    fresh = parse_with_doubt(config, sents, outs, cal)
    with ParseCache(tmp_path / "c.sqlite") as cache:
        parse_with_doubt(config, sents[1:2], [outs[0][1:2]], cal, Execution(cache=cache))  # one sentence cached
        mixed = parse_with_doubt(config, sents, outs, cal, Execution(cache=cache))  # read one, parse two
        warm = parse_with_doubt(config, sents, outs, cal, Execution(cache=cache))  # read all three
        info = cache.info()
    for graphs, doubt, results in (mixed, warm):
        assert [to_json(g) for g in graphs] == [to_json(g) for g in fresh[0]]
        assert doubt == fresh[1] and [[r.samsa for r in line] for line in results] == [
            [r.samsa for r in line] for line in fresh[2]]  # fmt: skip
    assert list(info["parsers"].values()) == [3] and list(info["drawn_trees"].values()) == [3]
    assert all("|trees:" not in k for k in info["parsers"])  # the cache lists parsers, not tree rows


def test_a_warm_cache_holds_the_drawn_trees(tmp_path, fixture_path, capsys, monkeypatch):
    from samsa.engine.cache import ParseCache
    from samsa.parsers.builtin import BuiltinParser

    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    rows, cache = tmp_path / "rows.jsonl", tmp_path / "cache.sqlite"
    argv = ["score", "--source", str(src), str(out), "--cache", str(cache), "-q", "--json", "--parse-uncertainty"]
    assert main([*argv, "--per-sentence", str(rows)]) == 0
    cold, cold_rows = capsys.readouterr().out, rows.read_text()
    with ParseCache(cache) as c:
        info = c.info()
    assert list(info["parsers"].values()) == [2] and list(info["drawn_trees"].values()) == [2]

    def no_parse(*args, **kwargs):
        raise AssertionError("a warm cache parsed again")

    monkeypatch.setattr(BuiltinParser, "parse_with_draws", no_parse)
    assert main([*argv, "--per-sentence", str(rows)]) == 0
    assert capsys.readouterr().out == cold and rows.read_text() == cold_rows


def test_score_parse_uncertainty_end_to_end(tmp_path, fixture_path, capsys):
    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    base = ["score", "--source", str(src), str(out), "--no-cache", "--quiet", "--json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    rows = tmp_path / "rows.jsonl"
    suggested = tmp_path / "suggest.txt"
    assert main([*base, "--per-sentence", str(rows), "--suggest-annotation", "1", str(suggested)]) == 0
    doubtful = json.loads(capsys.readouterr().out)
    # the headline and its signature are the one-best parse's
    assert (doubtful["samsa"], doubtful["signature"]) == (plain["samsa"], plain["signature"])
    iv = doubtful["parse_interval"]
    assert 0 <= iv["low"] <= iv["high"] <= 100 and iv["draws"] == 1000 and iv["signature"].startswith("parse-unc")
    for line in rows.read_text().splitlines():
        parse = json.loads(line)["parse"]
        assert set(parse) == {"mean", "low", "high", "p_zero", "scene_counts"}
        assert parse["low"] <= parse["high"] and sum(parse["scene_counts"].values()) == pytest.approx(1, abs=1e-5)
    lines = suggested.read_text().split()
    assert len(lines) <= 1 and all(x in ("1", "2") for x in lines)
    # two workers: the same figures
    assert main([*base, "--parse-uncertainty", "--jobs", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["parse_interval"] == iv


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--suggest-annotation", "zero"], "--suggest-annotation takes a number"),
        (["--suggest-annotation", "1", "a", "b"], "--suggest-annotation takes a number"),
        (["--parse-uncertainty", "--compat", "easse"], "needs paper-mode"),
        (["--parse-uncertainty", "--documents"], "not --documents"),
    ],
)
def test_bad_uncertainty_options_get_one_line(fixture_path, capsys, extra, message):
    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    assert main(["score", "--source", str(src), str(out), "--no-cache", "--quiet", *extra]) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_manual_ucca_only_has_no_parse_uncertainty(fixture_path, capsys):
    out = fixture_path("paper_outputs.txt")
    assert main(["score", "--ucca", str(fixture_path("ucca/paper")), str(out), "--parse-uncertainty", "-q"]) != 0
    assert "needs parsed sources" in capsys.readouterr().err


def test_evaluate_combines_parse_and_sampling_uncertainty(fixture_path, capsys):
    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    argv = ["evaluate", "--source", str(src), "-m", "samsa", "--no-cache", "-q", "--json", str(out), str(src)]
    assert main([*argv, "--parse-uncertainty", "-ci", "--paired-bs", "--bootstrap", "200"]) == 0
    result = json.loads(capsys.readouterr().out)
    first, second = result["systems"].values()
    for s in (first, second):
        assert s["samsa_parse_lo"] <= s["samsa_parse_hi"] and s["samsa_lo"] <= s["samsa"] <= s["samsa_hi"]
    # two sentences scored 58.33 and 87.50 on their one-best parses: resampling them alone spans 58.33-87.50
    assert first["samsa_lo"] <= 58.34 and first["samsa_hi"] >= 87.49
    assert 0 < second["samsa_p"] <= 1 and result["signatures"]["samsa_parse"].startswith("parse-uncertainty")


def _explorer(page):
    import re

    html = page.read_text()
    return json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)[1])


def test_report_shows_parse_doubt(tmp_path, fixture_path, monkeypatch):
    from samsa.engine.cache import ParseCache
    from samsa.parsers.builtin import BuiltinParser

    src, out = fixture_path("paper_sources.txt"), fixture_path("paper_outputs.txt")
    page, cache = tmp_path / "r.html", tmp_path / "cache.sqlite"
    argv = ["report", "--source", str(src), str(out), "-o", str(page), "--cache", str(cache), "-q"]
    assert main(argv) == 0
    html = page.read_text()
    assert '"doubt":' in html and '"readings":' in html and "combine sampling and parse uncertainty" in html
    doubtful = _explorer(page)
    with ParseCache(cache) as c:  # the one-best parses and their drawn trees go to the cache, under one parser
        info = c.info()
        assert list(info["parsers"].values()) == [2] and list(info["drawn_trees"].values()) == [2]
    with monkeypatch.context() as m:  # and a second page reads them: the network does not run
        m.setattr(BuiltinParser, "parse_with_draws", lambda *a, **k: pytest.fail("a warm cache parsed again"))
        assert main(argv) == 0
        assert page.read_text() == html
    assert main(["report", "--source", str(src), str(out), "-o", str(page), "--no-cache", "-q",
                 "--no-parse-uncertainty"]) == 0  # fmt: skip
    assert '"doubt":' not in page.read_text()
    # the one-best parse is the same with the trees drawn (the network run once): its Scenes and scores
    plain = _explorer(page)
    for a, b in zip(doubtful["sentences"], plain["sentences"], strict=True):
        assert a["scenes"] == b["scenes"]
        assert [(s["samsa"], s["scenes"]) for s in a["systems"]] == [(s["samsa"], s["scenes"]) for s in b["systems"]]


def test_a_pipeline_without_a_calibration_is_refused_in_one_line(tmp_path):
    from samsa.engine.uncertainty import parser_calibration
    from samsa.errors import ConfigError

    class Weights:  # a built-in parser's face: weights and draws
        weights = tmp_path / "ucca-span-v3-mpnet-l4-scenes.npz"

        def parse_with_draws(self, sentences, how):  # pragma: no cover - never reached
            raise AssertionError

    with pytest.raises(ConfigError, match="no parse-uncertainty calibration ships for ucca-span-v3-mpnet"):
        parser_calibration(Weights())
    with pytest.raises(ConfigError, match="needs the built-in parser"):
        parser_calibration(object())


def test_samsa_abl_spreads_over_its_own_tree_scores(fixture_path):
    """The estimate's floor for SAMSA-abl reads SAMSA-abl's spread over the trees, not SAMSA's: an output whose
    SAMSA moves from tree to tree (the Scene count, through the non-splitting penalty) while its SAMSA-abl does
    not has no SAMSA-abl spread; and a run records both per tree."""
    from samsa.config import SamsaConfig
    from samsa.engine.corpus import parse_with_doubt
    from samsa.engine.planned import _spreads
    from samsa.engine.uncertainty import UncertaintyTotals
    from samsa.registry import get_parser

    menu = TreeMenu(("a", "b"), (2, 3), (0.5, 0.5))
    totals = UncertaintyTotals(CAL)
    totals.add(1, menu, [[50.0, 100 / 3]], [[100.0, 100.0]])
    assert _spreads(totals, [0]) == [pytest.approx(0.5 * (50 - 100 / 3) ** 2)]
    assert _spreads(totals, [0], "samsa_abl") == [0.0]
    config = SamsaConfig(parser=get_parser("builtin"))
    sources = fixture_path("paper_sources.txt").read_text(encoding="utf-8").splitlines()
    _, lines, results = parse_with_doubt(config, sources, [sources], CAL, graphs=False)
    for line, scored in zip(lines, results, strict=True):
        assert len(line.tree_scores_abl[0]) == len(line.tree_scores[0]) == len(line.menu.weights)
        assert line.tree_scores_abl[0][0] == scored[0].samsa_abl  # tree 0: the one-best's
