"""The Scene-bias choice (samsa.studies.scene_bias) on hand-made grids, its record on hand-computed battery
scores, and the shipped pipelines decoding with the bias their weights record."""

from __future__ import annotations

import pytest

from samsa.studies.scene_bias import choose, grid_row
from samsa.studies.validity import output_stats


def row(bias: float, **sets: tuple[float | None, float]) -> dict:
    return {"scene_bias": bias, "sets": {name: {"split_sensitivity": s, "identity_mean_abs_difference": m}
                                         for name, (s, m) in sets.items()}}  # fmt: skip


def test_the_most_sensitive_bias_within_the_slack_of_the_unbiased_identity_difference():
    grid = [
        row(0.0, wiki=(0.25, 7.9), ewt=(0.16, 13.6)),
        row(1.0, wiki=(0.43, 7.4), ewt=(0.42, 13.9)),
        row(1.25, wiki=(0.44, 7.7), ewt=(0.45, 14.5)),  # 14.5 <= 13.6 + 1
        row(2.0, wiki=(0.47, 8.8), ewt=(0.48, 16.5)),  # EWT's identity difference 2.9 worse: not allowed
    ]
    assert choose(grid) == 1.25
    assert choose(grid, slack=0.5) == 1.0  # 13.9 <= 14.1 < 14.5
    assert choose(grid, slack=3.0) == 2.0
    assert choose(grid, slack=0.0) == 0.0  # only the unbiased decoding is within 0 of itself (1.0: 13.9 > 13.6)


def test_new_weights_are_held_to_the_identity_difference_of_the_weights_they_replace():
    grid = [row(0.0, x=(0.44, 7.5)), row(0.5, x=(0.49, 7.9)), row(1.0, x=(0.53, 8.6)), row(1.25, x=(0.55, 8.9))]
    assert choose(grid) == 0.5  # within 1 of its own 7.5
    assert choose(grid, reference=row(0.0, x=(0.25, 7.9))) == 1.25  # within 1 of the replaced weights' 7.9
    assert choose(grid, reference=row(0.0, x=(0.25, 6.0))) == 0.0  # none within 1 of 6.0: the unbiased one stays


def test_ties_go_to_the_smaller_bias_and_an_undefined_sensitivity_does_not_count():
    assert choose([row(0.0, x=(0.2, 8.0)), row(1.0, x=(0.5, 8.0)), row(2.0, x=(0.5, 8.0))]) == 1.0
    # a set whose manual gain is 0 has no split sensitivity: the mean is over the others
    grid = [row(0.0, x=(0.2, 8.0), y=(None, 1.0)), row(1.0, x=(0.3, 8.5), y=(None, 1.5))]
    assert choose(grid) == 1.0


def test_grid_row_records_what_the_choice_reads():
    stats = {
        "identity": output_stats([50.0, 100.0], [50.0, 50.0]),  # mean abs difference 25
        "scene-split": output_stats([100.0, 100.0], [0.0, 100.0]),  # gain 25 of 25 manual; one zero
    }
    assert grid_row(1.5, {"wiki/dev": stats}) == {
        "scene_bias": 1.5,
        "sets": {"wiki/dev": {"split_sensitivity": 0.0, "identity_mean_abs_difference": 25.0,
                              "perfect_split_zero_share": 0.5}},
    }  # fmt: skip


@pytest.mark.parametrize("pipeline", ["fast", "accurate"])
def test_the_pipelines_decode_with_the_bias_their_weights_record(pipeline):
    from samsa.errors import PluginUnavailable
    from samsa.registry import get_parser

    try:
        parser = get_parser(f"builtin:{pipeline}")
    except PluginUnavailable as e:
        pytest.skip(str(e))
    decode = parser.meta["decode"]
    reference = decode["reference"] if isinstance(decode["reference"], dict) else None
    assert parser.scene_bias == decode["scene_bias"] == choose(decode["grid"], reference=reference) > 0
    fit = "+fit_scenes" if decode.get("fit_scenes") else ""
    assert parser.fit_scenes == bool(fit) and parser.signature().endswith(f"+scene_bias.{decode['scene_bias']:g}{fit}")
    assert get_parser(f"builtin:{pipeline}", scene_bias=0).scene_bias == 0.0
