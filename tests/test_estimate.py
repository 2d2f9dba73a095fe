"""The estimator of the all-manual corpus score (samsa.scoring.estimate): unbiased over every possible draw of a
tiny corpus, its variance estimate unbiased for the design's variance, the inclusion probabilities what the plan
asks, and the same point estimate as ppi-python's under uniform sampling (where ppi-python is installed)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from samsa.scoring.estimate import (
    Z95,
    design_variance,
    draw_lines,
    estimate,
    inclusion_probabilities,
    smallest_budget,
)

#: a corpus of six lines: parsed and manual SAMSA, the parser wrong on three (by -50, +25 and -100 points)
PARSED = np.array([50.0, 100.0, 75.0, 0.0, 100.0, 66.7])
MANUAL = np.array([100.0, 100.0, 50.0, 0.0, 0.0, 66.7])
PI = np.array([0.5, 0.2, 0.4, 0.3, 0.9, 0.25])


def every_draw(pi: np.ndarray):
    """Each of the 2^N draws and its probability under independent (Poisson) sampling."""
    for pattern in itertools.product((False, True), repeat=len(pi)):
        xi = np.array(pattern)
        yield xi, float(np.prod(np.where(xi, pi, 1 - pi)))


def test_the_estimate_is_unbiased_and_its_variance_estimate_too():
    truth = MANUAL.mean()
    values, variances, weights = [], [], []
    for xi, p in every_draw(PI):
        e = estimate(PARSED, MANUAL, xi, PI, bounds=(-np.inf, np.inf))
        values.append(e.value)
        variances.append(e.se**2)
        weights.append(p)
    w = np.array(weights)
    assert w.sum() == pytest.approx(1.0)
    mean = float(np.dot(w, values))
    assert mean == pytest.approx(truth, abs=1e-9)  # unbiased, whatever the parser's errors
    true_var = float(np.dot(w, (np.array(values) - truth) ** 2))
    assert float(np.dot(w, variances)) == pytest.approx(true_var, rel=1e-9)  # the variance estimate, too
    # the design's variance is what design_variance gives with the true squared errors
    assert design_variance((MANUAL - PARSED) ** 2, PI) == pytest.approx(true_var, rel=1e-9)


def test_paired_differences_are_unbiased_over_the_same_draws():
    other_parsed = np.array([60.0, 90.0, 75.0, 10.0, 50.0, 66.7])
    other_manual = np.array([100.0, 90.0, 25.0, 10.0, 0.0, 33.3])
    truth = (MANUAL - other_manual).mean()
    total = sum(
        p * estimate(PARSED - other_parsed, MANUAL - other_manual, xi, PI, bounds=(-100, 100)).value
        for xi, p in every_draw(PI)
    )
    assert total == pytest.approx(truth, abs=1e-9)


def test_a_hand_computed_estimate():
    """Lines 1 and 3 drawn (pi 0.5 and 0.4): their residuals +50 and -25, weighted 2 and 2.5, over six lines."""
    xi = np.array([True, False, True, False, False, False])
    e = estimate(PARSED, MANUAL, xi, PI, quantile="normal")
    assert e.value == pytest.approx(PARSED.mean() + (50 / 0.5 - 25 / 0.4) / 6)
    var = ((1 - 0.5) * 50**2 / 0.5**2 + (1 - 0.4) * 25**2 / 0.4**2) / 36
    assert e.se == pytest.approx(var**0.5)
    assert (e.low, e.high) == pytest.approx((e.value - Z95 * var**0.5, e.value + Z95 * var**0.5))
    assert e.n_used == 2 and e.ess == pytest.approx((2 + 2.5) ** 2 / (4 + 6.25))


def test_the_floor_keeps_an_error_free_sample_from_collapsing():
    xi = np.array([False, True, False, True, False, False])  # the lines the parser got right
    bare = estimate(PARSED, MANUAL, xi, PI)
    assert bare.se == 0 and bare.low == bare.high == bare.value  # a point, and a biased one
    predicted = np.full(6, 20.0**2)
    floored = estimate(PARSED, MANUAL, xi, PI, predicted_sq=predicted, floor=0.5)
    assert floored.value == bare.value
    assert floored.se == pytest.approx((0.5 * design_variance(predicted, PI)) ** 0.5)


def test_on_few_expected_lines_the_floor_grows_in_proportion():
    """The small-sample rule (``ErrorModel.small``): with fewer expected drawn lines than ``small`` (here 2.55 of
    80), the floor is multiplied by ``small`` over that expectation; with as many or more, it is the floor."""
    xi = np.array([False, True, False, True, False, False])
    predicted = np.full(6, 20.0**2)
    base = 0.5 * design_variance(predicted, PI)
    grown = estimate(PARSED, MANUAL, xi, PI, predicted_sq=predicted, floor=0.5, small=80.0)
    assert grown.se == pytest.approx((base * 80 / PI.sum()) ** 0.5)
    same = estimate(PARSED, MANUAL, xi, PI, predicted_sq=predicted, floor=0.5, small=2.0)
    assert same.se == pytest.approx(base**0.5)


def test_inclusion_probabilities_spend_the_budget_and_stay_bounded():
    rng = np.random.default_rng(0)
    errors = rng.exponential(size=200) * (rng.random(200) < 0.2)
    for budget, share in ((20, 0.5), (40, 0.3), (60, 1.0), (200, 0.5)):
        pi = inclusion_probabilities(errors, budget, share)
        assert pi.sum() == pytest.approx(budget) and pi.max() <= 1.0
        assert pi.min() >= share * budget / 200 - 1e-12
    assert np.allclose(inclusion_probabilities(errors, 50, 1.0), 0.25)  # uniform
    with pytest.raises(ValueError):
        inclusion_probabilities(errors, 201, 0.5)


def test_draws_are_reproducible_and_have_the_probabilities():
    pi = np.full(1000, 0.1)
    assert (draw_lines(pi, 7) == draw_lines(pi, 7)).all() and (draw_lines(pi, 7) != draw_lines(pi, 8)).any()
    counts = sum(draw_lines(pi, seed) for seed in range(200))
    assert counts.mean() == pytest.approx(20, rel=0.05)


def test_the_smallest_budget_meets_the_width_it_was_asked():
    e2 = np.full(100, 10.0**2)
    n = smallest_budget(e2, 2.0, "uniform", 0.5)
    assert n is not None
    width = lambda k: Z95 * design_variance(e2, inclusion_probabilities(np.sqrt(e2), k, 1.0)) ** 0.5  # noqa: E731
    assert width(n) <= 2.0 < width(n - 1)
    assert smallest_budget(e2, 0.0, "uniform", 0.5) == 100  # only every line gives no doubt at all


def test_the_smallest_budget_meets_the_width_for_every_system_under_the_doubt_design():
    """The plan's probabilities come from the RMS of the systems' errors: each system's width is checked under
    them, not under probabilities of its own (which let one system miss its width)."""
    rng = np.random.default_rng(3)
    e2 = np.vstack([rng.gamma(0.5, 200.0, 300), rng.gamma(2.0, 20.0, 300)])
    rms = np.sqrt(e2.mean(axis=0))
    n = smallest_budget(e2, 3.0, "doubt", 0.5)
    assert n is not None

    def worst(k: int) -> float:
        pi = inclusion_probabilities(rms, k, 0.5)
        return max(Z95 * design_variance(row, pi) ** 0.5 for row in e2)

    assert worst(n) <= 3.0 < worst(n - 1)


def test_the_uniform_design_agrees_with_ppi_python():
    """ppi-python's prediction-powered mean (no power tuning) on the drawn lines, every line's prediction as its
    unlabeled data: the same point estimate when the number drawn is the expected one; its variance is the
    i.i.d. one, ours the finite corpus's (their ratio is the finite-population correction and the predictions'
    own variance over N)."""
    ppi = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(1)
    n_lines, k = 400, 60
    f = rng.uniform(0, 100, n_lines)
    y = np.clip(f + rng.normal(0, 15, n_lines) * (rng.random(n_lines) < 0.3), 0, 100)
    xi = np.zeros(n_lines, dtype=bool)
    xi[rng.choice(n_lines, k, replace=False)] = True
    ours = estimate(f, y, xi, np.full(n_lines, k / n_lines), bounds=(-np.inf, np.inf))
    theirs = ppi.ppi_mean_pointestimate(y[xi], f[xi], f, lam=1)
    assert ours.value == pytest.approx(float(np.asarray(theirs).ravel()[0]), abs=1e-9)
    lo, hi = ppi.ppi_mean_ci(y[xi], f[xi], f, alpha=0.05, lam=1)
    theirs_se = (float(np.asarray(hi).ravel()[0]) - float(np.asarray(lo).ravel()[0])) / (2 * Z95)
    r = y[xi] - f[xi]
    iid = (np.var(f, ddof=1) / n_lines + np.var(r, ddof=1) / k) ** 0.5
    assert theirs_se == pytest.approx(iid, rel=0.05)
    fpc = (1 - k / n_lines) * np.mean(r**2) / k
    assert ours.se**2 == pytest.approx(fpc, rel=1e-9)


def _tuned_by_hand(xi: np.ndarray) -> float:
    """The shipped ``tuned`` estimate written out again: the weighted least-squares slope of the manual scores on
    the parsed ones over the drawn lines (weights 1/pi), clipped to 0-1 (1 with fewer than three lines), then
    ``lam * mean(parsed) + weighted mean of (manual - lam * parsed)``."""
    w, f, y = 1 / PI[xi], PARSED[xi], MANUAL[xi]
    if not xi.any():
        return float(PARSED.mean())
    lam = 1.0
    if xi.sum() >= 3:
        fw, yw = (w * f).sum() / w.sum(), (w * y).sum() / w.sum()
        den = (w * (f - fw) ** 2).sum()
        lam = min(1.0, max(0.0, (w * (f - fw) * (y - yw)).sum() / den)) if den > 0 else 1.0
    return float(lam * PARSED.mean() + (w * (y - lam * f)).sum() / w.sum())


def test_the_shipped_tuned_estimator_over_every_draw():
    """``tuned`` (what plans use) on every one of the 64 draws of the tiny corpus: each value is the formula written
    out by hand, a draw of under three lines is the plain estimate of the drawn residuals, and the estimator's
    bias over the design is what a ratio estimator has on six lines: -9.5 points, 0.28 of its spread (it is
    unbiased only as lines grow; ``ht`` is unbiased on any corpus, above: why small samples under-cover)."""
    truth, values, weights = MANUAL.mean(), [], []
    for xi, p in every_draw(PI):
        e = estimate(PARSED, MANUAL, xi, PI, method="tuned", bounds=(-np.inf, np.inf))
        assert e.value == pytest.approx(_tuned_by_hand(xi), abs=1e-9)
        if 0 < xi.sum() < 3:
            w = 1 / PI[xi]
            assert e.value == pytest.approx(PARSED.mean() + (w * (MANUAL - PARSED)[xi]).sum() / w.sum())
        values.append(e.value)
        weights.append(p)
    w, v = np.array(weights), np.array(values)
    bias, spread = float(w @ v - truth), float(np.sqrt(w @ (v - truth) ** 2))
    assert (round(bias, 1), round(spread, 1)) == (-9.5, 34.1)
