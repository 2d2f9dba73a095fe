"""The validity battery (lab.validity, benchmarks/validity.py): outputs and arithmetic, hand-computed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lab.validity import (
    OUTPUTS,
    SEPARATOR,
    WRONG_SPLITS,
    battery_mad,
    battery_scores,
    kendall_tau,
    output_stats,
    over_split_excess,
    pearson,
    reversals,
    split_sensitivity,
    synthetic_outputs,
)
from samsa.scoring.metric import Samsa
from samsa.ucca.xml import load_passage

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "fixtures" / "ucca" / "paper"


@pytest.fixture(scope="module")
def paper():
    return [load_passage(PAPER / "1_john_home_call.xml"), load_passage(PAPER / "2_read_book.xml")]


def test_the_battery_on_the_papers_sentences(paper):
    out = synthetic_outputs(paper)
    assert list(out) == list(OUTPUTS)
    assert out["identity"][0] == "John got home and gave Mary a call ."
    # one sentence per gold Scene, each with all its words (the remote participant 'John' included)
    assert out["scene-split"][0] == f"John got home {SEPARATOR} John gave Mary a call"
    assert out["conjunction-split"][0] == f"John got home {SEPARATOR} gave Mary a call ."
    assert out["comma-split"] == out["identity"] == out["comma-deletion"]  # no comma in either sentence
    assert out["first-half"] == ["John got home and gave", "I read the book"]  # 9 tokens -> 5, 8 -> 4
    # the wrong splits: the two shortest adjacent Scene sentences joined (here the only two) ...
    assert out["merged"][0] == "John got home John gave Mary a call"
    # ... the longest Scene sentence ("John gave Mary a call", 5 tokens) cut before its token 5 // 2 ...
    assert out["over-split"][0] == f"John got home {SEPARATOR} John gave {SEPARATOR} Mary a call"
    # ... and a sentence every 4 tokens
    assert out["chunks"][0] == f"John got home and {SEPARATOR} gave Mary a call {SEPARATOR} ."
    assert out["chunks"][1] == f"I read the book {SEPARATOR} that John wrote ."


def test_manual_scores_by_hand(paper):
    metric = Samsa(tokenizer="none", separator=SEPARATOR)
    out = synthetic_outputs(paper)
    got = {name: [metric.sentence_score(g, o).samsa for g, o in zip(paper, lines, strict=True)]
           for name, lines in out.items()}  # fmt: skip
    # identity: both Scenes kept whole in 1 sentence: penalty 1/2 x 100
    assert got["identity"] == [50.0, 50.0]
    assert got["scene-split"] == [100.0, 100.0]
    # "gave Mary a call ." loses the remote participant John: 0.5 x 1 + 0.5 x mean(0, 1) = 0.75; (1 + 0.75) / 2
    assert got["conjunction-split"][0] == 87.5
    # "John got home and gave": Scene 2 loses its center 'call' and 'Mary': 0.5 x 0 + 0.5 x mean(1, 0) = 0.25;
    # SAMSA-abl (1 + 0.25) / 2 = 62.5, penalty 1/2
    assert got["first-half"][0] == 31.25
    # merged: both Scenes whole in one sentence, as the identity: 1/2 x 100
    assert got["merged"] == [50.0, 50.0]
    # one sentence more than Scenes: 0 (section 4.1, case 2)
    assert got["over-split"] == [0.0, 0.0] and got["chunks"][0] == 0.0
    # "I read the book | that John wrote .": 2 sentences, 2 Scenes; "read" keeps "I" and "book" (1), "wrote" keeps
    # "John" but not its remote participant "book" (0.5 + 0.5 x 1/2 = 0.75): 2/4 x (1 + 0.75) x 100
    assert got["chunks"][1] == 87.5


def test_wrong_splits_that_are_not_defined_are_left_out():
    from samsa.ucca.graph import from_tokens

    g = from_tokens("a b c d e".split())  # no Scene at all
    assert OUTPUTS["merged"](g, 0) is None  # fewer than 2 Scenes: nothing to merge
    assert OUTPUTS["over-split"](g, 0) == f"a b {SEPARATOR} c d e"  # the unchanged sentence cut in two
    assert OUTPUTS["over-split"](from_tokens(["a"]), 0) is None  # one token cannot be cut
    scores = battery_scores([g], [g])
    assert scores["merged"]["manual"] == [] and scores["over-split"]["manual"] == [0.0]
    assert set(WRONG_SPLITS) <= set(scores)


def test_comma_outputs_by_hand():
    from samsa.ucca.graph import from_tokens

    g = from_tokens("a b , c d , e f , g".split())
    assert OUTPUTS["comma-deletion"](g, 0) == "a b , e f"  # segments 1 and 3 of 4 kept
    cuts = {f"a b {SEPARATOR} c d , e f , g", f"a b , c d {SEPARATOR} e f , g", f"a b , c d , e f {SEPARATOR} g"}
    assert OUTPUTS["comma-split"](g, 0) in cuts  # one comma, dropped, the others kept
    assert {OUTPUTS["comma-split"](g, k) for k in range(20)} == cuts  # the comma drawn per sentence index
    assert OUTPUTS["comma-split"](g, 3) == OUTPUTS["comma-split"](g, 3)  # and seeded by it


def test_statistics_by_hand():
    s = {
        "identity": output_stats([40.0, 60.0], [40.0, 60.0]),
        "scene-split": output_stats([100.0, 100.0], [70.0, 0.0]),
    }
    assert s["scene-split"].zero_parsed == 0.5 and s["scene-split"].mean_abs_difference == 65.0
    assert s["scene-split"].pearson is None  # the manual side is constant
    assert split_sensitivity(s) == (35.0 - 50.0) / (100.0 - 50.0)  # -0.3: the parse loses more than it gains
    assert pearson([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]) == pytest.approx(-1.0)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0 and kendall_tau([1, 2, 3], [1, 1, 1]) is None
    assert kendall_tau([1, 2, 2], [1, 2, 3]) == pytest.approx(2 / (3 * 2) ** 0.5)  # tau-b with one tie
    scores = {"identity": {"manual": [40.0, 60.0], "parsed": [40.0, 60.0]},
              "scene-split": {"manual": [100.0, 100.0], "parsed": [70.0, 0.0]}}  # fmt: skip
    assert reversals(scores) == [("scene-split", "identity")]  # 50 points apart on manual, 15 the other way parsed


def test_over_split_excess_and_battery_mad_by_hand():
    scores = {
        "identity": {"manual": [40.0, 60.0], "parsed": [30.0, 60.0]},  # mean abs difference 5
        "over-split": {"manual": [0.0, 0.0], "parsed": [100.0, 0.0]},  # parsed mean 50: excess +50, MAD 50
        "chunks": {"manual": [0.0, 10.0], "parsed": [0.0, 4.0]},  # parsed 2 against manual 5: excess -3, MAD 3
    }
    s = {n: output_stats(x["manual"], x["parsed"]) for n, x in scores.items()}
    assert over_split_excess(s) == {"over-split": 50.0, "chunks": -3.0}
    assert battery_mad(s) == (5.0 + 50.0 + 3.0) / 3
    # the over-split output (parsed 50) above the identity (parsed 45), which manual UCCA ranks 50 points above
    # it: a reversal
    assert reversals(scores) == [("identity", "over-split")]
    # compared where both are defined: on sentence 1 alone the over-split output (0) stays below the identity (60)
    scores["over-split"] = {"sentences": [1], "manual": [0.0], "parsed": [0.0]}
    assert reversals(scores) == []


def test_the_benchmark_runs_on_a_gold_directory():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from validity import one_set, table

    r = one_set(str(PAPER), "builtin")
    assert r["sentences"] == 2
    assert r["outputs"]["identity"]["mean_manual"] == 50.0 and r["outputs"]["scene-split"]["mean_manual"] == 100.0
    o = r["outputs"]
    expected = (o["scene-split"]["mean_parsed"] - o["identity"]["mean_parsed"]) / 50.0
    assert r["split_sensitivity"] == pytest.approx(expected, abs=1e-4)
    assert "split sensitivity" in table(r)


def test_no_wrong_split_outscores_on_the_parse_what_manual_ucca_ranks_clearly_above_it(data_dir):
    """The guard: on Wiki dev, parsed with the default pipeline, no output that splits wrongly (one sentence fewer
    than Scenes, one more, a sentence every 4 tokens) scores above an output that manual UCCA puts more than 5
    points above it. A change that buys split reward by crediting wrong splits, or that loses so many Scenes that
    a merged split beats the correct one, fails here. (Out of domain, on 20K test, the default pipeline does not
    hold this yet: docs/validity.md.)"""
    from samsa.registry import get_parser
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files

    files = list_passage_files(data_dir / "ucca" / "wiki" / "dev")
    gold = [load_passage(f) for f in files]
    parsed = get_parser("builtin").parse([tokens(g) for g in gold])
    scores = battery_scores(gold, parsed)
    stats = {n: output_stats(s["manual"], s["parsed"]) for n, s in scores.items()}
    wrong = [(a, b) for a, b in reversals(scores) if b in WRONG_SPLITS]
    assert not wrong, {n: (round(s.mean_manual, 1), round(s.mean_parsed, 1)) for n, s in stats.items()}
