"""The Scene-bias choice (lab.scene_bias) on hand-made grids, its record on hand-computed battery
scores, and the shipped pipelines decoding with the bias their weights record."""

from __future__ import annotations

import pytest

from lab.scene_bias import DEV_LIMITS, best_row, choose, floor_met, grid_row


def row(bias: float, human: float | None = 0.3, **sets: tuple[float | None, float, float, int]) -> dict:
    """Per set: (split sensitivity, over-split excess, chunks excess, reversals)."""
    return {
        "scene_bias": bias,
        "human": human,
        "sets": {
            name: {"split_sensitivity": s, "over_split_excess": {"over-split": x, "chunks": c}, "reversals": r}
            for name, (s, x, c, r) in sets.items()
        },
    }


def test_limits_first_then_human_agreement_then_split_sensitivity():
    grid = [
        row(-1.0, 0.31, wiki=(0.20, 5.0, 0.0, 0), ewt=(0.10, 6.0, 0.0, 0)),
        row(0.0, 0.27, wiki=(0.40, 12.0, 0.5, 0), ewt=(0.35, 15.0, 3.0, 0)),
        row(0.5, 0.24, wiki=(0.47, 14.9, 0.6, 0), ewt=(0.44, 18.0, 6.0, 0)),
        row(1.0, 0.20, wiki=(0.55, 19.0, 0.8, 0), ewt=(0.48, 22.0, 8.0, 0)),  # over Wiki's limit of 15
    ]
    limits = {"wiki": {"over-split": 15.0, "chunks": 5.0}, "ewt": {"over-split": 20.0, "chunks": 10.0}}
    assert choose(grid, limits) == 0.5  # no floor: the most sensitive within the limits
    assert choose(grid, limits, human_floor=0.25) == 0.0  # 0.5's 0.24 is below the floor
    # none reaches it: decoding cannot meet the floor, and the sensitivity chooses (the record says so)
    assert choose(grid, limits, human_floor=0.35) == 0.5
    assert not floor_met(grid[2], 0.35) and floor_met(grid[1], 0.25)
    assert choose(grid, {"wiki": {"over-split": 40.0, "chunks": 5.0}}) == 1.0
    assert choose(grid, {"wiki": {"over-split": 4.0, "chunks": 5.0}}) is None  # none within: not offered


def test_implicit_scenes_are_one_more_row_per_bias_and_lose_a_tie():
    plain = [row(0.0, None, de=(0.30, 12.0, 0.5, 0)), row(1.0, None, de=(0.40, 16.0, 1.0, 0))]
    rows = (row(0.0, None, de=(0.42, 13.5, 0.7, 0)), row(1.0, None, de=(0.51, 19.3, 3.0, 0)))
    implicit = [{**r, "implicit_scenes": ["H"]} for r in rows]
    limits = {"de": {"over-split": 15.0, "chunks": 5.0}}
    assert best_row([*plain, *implicit], limits) == implicit[0]
    tie = {**plain[0], "implicit_scenes": ["H"]}
    assert best_row([tie, plain[0]], limits) is plain[0]


def test_a_reversal_rules_a_bias_out_and_ties_go_to_the_bias_nearest_zero():
    grid = [row(-0.5, wiki=(0.5, 1.0, 0.0, 0)), row(0.5, wiki=(0.5, 1.0, 0.0, 0)), row(1.0, wiki=(0.9, 1.0, 0.0, 1))]
    limits = {"wiki": {"over-split": 15.0, "chunks": 5.0}}
    assert choose(grid, limits) == -0.5
    # a set whose manual gain is 0 has no split sensitivity: the mean is over the others
    grid = [
        row(0.0, wiki=(0.2, 1.0, 0.0, 0), x=(None, 0.0, 0.0, 0)),
        row(1.0, wiki=(0.3, 2.0, 0.0, 0), x=(None, 0.0, 0.0, 0)),
    ]
    assert choose(grid, limits) == 1.0


def test_grid_row_records_what_the_choice_reads():
    scores = {
        "identity": {"manual": [50.0, 100.0], "parsed": [50.0, 50.0]},  # mean abs difference 25
        "scene-split": {"manual": [100.0, 100.0], "parsed": [0.0, 100.0]},  # gain 25 of 25 manual; one zero
        "over-split": {"manual": [0.0, 0.0], "parsed": [0.0, 30.0]},  # excess +15, MAD 15
        "chunks": {"manual": [0.0, 0.0], "parsed": [0.0, 0.0]},
    }
    assert grid_row(1.5, {"wiki/dev": scores}, human=0.123456) == {
        "scene_bias": 1.5,
        "human": 0.1235,
        "sets": {
            "wiki/dev": {
                "split_sensitivity": 0.0,
                "over_split_excess": {"over-split": 15.0, "chunks": 0.0},
                "reversals": 0,
                "identity_mean_abs_difference": 25.0,
                "battery_mad": (25.0 + 50.0 + 15.0 + 0.0) / 4,
                "perfect_split_zero_share": 0.5,
            }
        },
    }


def test_the_dev_limits_are_the_test_limits_of_each_kind():
    assert DEV_LIMITS == {
        "wiki/dev": {"over-split": 15.0, "chunks": 5.0},
        "ewt/dev": {"over-split": 20.0, "chunks": 10.0},
    }


@pytest.mark.parametrize("pipeline", ["fast", "accurate", "mpnet"])
def test_the_pipelines_decode_with_the_bias_their_weights_record(pipeline):
    from samsa.errors import PluginUnavailable
    from samsa.registry import get_parser

    try:
        parser = get_parser(f"builtin:{pipeline}")
    except PluginUnavailable as e:
        pytest.skip(str(e))
    decode = parser.meta["decode"]
    chosen = choose(decode["grid"], decode["limits"], human_floor=decode["reference"]["human"])
    assert parser.scene_bias == decode["scene_bias"] == chosen
    bias = f"+scene_bias.{chosen:g}" if chosen else ""
    assert parser.signature() == f"builtin.v5+{pipeline}+{parser.weights.stem}{bias}"
    assert get_parser(f"builtin:{pipeline}", scene_bias=0).scene_bias == 0.0


def test_the_german_pipeline_decodes_as_its_weights_record():
    from samsa.registry import get_parser

    parser = get_parser("builtin:de")
    decode = parser.meta["decode"]
    row = best_row(decode["grid"], decode["limits"])
    assert row is not None and parser.scene_bias == decode["scene_bias"] == row["scene_bias"]
    assert sorted(parser.implicit_scenes) == decode["implicit_scenes"] == row["implicit_scenes"] == ["H"]
    assert parser.signature() == "builtin.v5+de+ucca-span-de-words+implicit.H"
    assert get_parser("builtin:de", scene_bias=0).implicit_scenes == {"H"}
