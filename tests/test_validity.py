"""The validity battery (samsa.studies.validity, benchmarks/validity.py): outputs and arithmetic, hand-computed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from samsa.scoring.metric import Samsa
from samsa.studies.validity import (
    OUTPUTS,
    SEPARATOR,
    kendall_tau,
    output_stats,
    pearson,
    reversals,
    split_sensitivity,
    synthetic_outputs,
)
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
    assert reversals(s) == [("scene-split", "identity")]  # 50 points apart on manual, 15 the other way parsed


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
