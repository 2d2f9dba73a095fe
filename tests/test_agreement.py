"""Agreement with human structural simplicity (lab.agreement): the arithmetic on hand-computed cases,
the bootstrap over sources, and the released ACL-2018 benchmark as read from the shared data."""

from __future__ import annotations

import math

import pytest

from lab.agreement import RatedOutput, agreement, pearson, spearman


def test_pearson_and_spearman_by_hand():
    # x = 1..4, y = 1,3,2,4: deviations (-1.5,-0.5,0.5,1.5) and (-1.5,0.5,-0.5,1.5): 4 / 5
    assert pearson([1, 2, 3, 4], [1, 3, 2, 4]) == 0.8
    assert spearman([1, 20, 300, 4000], [1, 3, 2, 4]) == 0.8  # the ranks of x are 1..4
    assert spearman([1, 1, 2], [5, 5, 9]) == 1.0  # the tie shares rank 1.5 on both sides
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3])) and math.isnan(pearson([1], [2]))


def items(*rows: tuple[str, int, int, float, float]) -> list[RatedOutput]:
    return [RatedOutput(*r) for r in rows]


def test_the_three_figures_by_hand():
    rated = items(
        ("a", 0, 2, 1.0, 10.0),
        ("a", 1, 1, 0.0, 90.0),  # one sentence: not among the split outputs
        ("b", 0, 3, 2.0, 30.0),
        ("b", 1, 2, 1.0, 20.0),
        ("c", 0, 1, 0.0, 50.0),
        ("c", 1, 2, 2.0, 40.0),
    )
    result = agreement(rated, resamples=0)
    split = result["split_outputs"]
    # the four split outputs: human 1, 2, 1, 2 against SAMSA 10, 30, 20, 40 -> deviations (-.5,.5,-.5,.5) and
    # (-15,5,-5,15): 20 / sqrt(1 * 500)
    assert (split.n, split.low, split.high) == (4, None, None)
    assert split.r == pytest.approx(20 / math.sqrt(500))
    assert result["all_outputs"].n == 6
    assert result["all_outputs"].r == pytest.approx(pearson([10, 90, 30, 20, 50, 40], [1, 0, 2, 1, 0, 2]))
    # system means: a (50, 0.5), b (25, 1.5), c (45, 1.0): SAMSA ranks 3, 1, 2 against human 1, 3, 2
    assert (result["systems"].n, result["systems"].r) == (3, -1.0)


def test_the_bootstrap_draws_sources_seeded_and_brackets_nothing_it_cannot():
    rated = [RatedOutput(s, k, 2, float(k % 5), float(3 * (k % 5) + (k % 3))) for k in range(40) for s in "xy"]
    a = agreement(rated, resamples=200, seed=1)["split_outputs"]
    b = agreement(rated, resamples=200, seed=1)["split_outputs"]
    assert a == b  # the same seed, the same interval
    assert a.low is not None and a.high is not None and a.low <= a.r <= a.high <= 1.0
    assert agreement(rated, resamples=200, seed=2)["split_outputs"].low != a.low
    # every output of a drawn source comes along: a perfect agreement within sources stays perfect in each draw
    exact = [RatedOutput("x", k, 2, float(k), 2.0 * k) for k in range(10)]
    got = agreement(exact, resamples=100)["split_outputs"]
    assert got.low == pytest.approx(1.0) and got.high == pytest.approx(1.0)


def test_the_released_benchmark(data_dir):
    pytest.importorskip("pandas")
    pytest.importorskip("odf")
    from lab.agreement import acl2018_items

    sources, outputs, ratings = acl2018_items(data_dir)
    assert len(sources) == 70 and len(outputs) == 28 and len(ratings) == 28 * 70
    assert all(len(lines) == 70 for lines in outputs.values())
    assert sources[0].startswith("One side of the armed conflicts is composed mainly of the Sudanese military")
    # the identity system is the source itself (lowercased, PTB-style), rated unchanged by all three annotators
    assert outputs["Identity"][0].startswith("one side of the armed conflicts")
    assert ratings["Identity", 0] == 0.0
    assert all(-2.0 <= v <= 2.0 for v in ratings.values())
