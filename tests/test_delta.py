"""The delta method and variance reduction (`rankscope.stats.delta`): each formula against an
independent form of it (the linearised ratio, the regression slope, the sample correlation, a
hand computation), and the ratio metric's interval against a simulation of per-user
randomisation where the per-impression test is anti-conservative."""

from __future__ import annotations

import numpy as np
import pytest

from rankscope.errors import UsageError
from rankscope.stats.delta import (
    Estimate,
    cuped,
    lift_interval,
    mean_estimate,
    post_stratified,
    ratio_estimate,
    relative_lift,
)


def test_ratio_variance_is_the_linearised_ratio_s():
    rng = np.random.default_rng(3)
    y = rng.poisson(5, 500) + 1.0
    x = rng.binomial(y.astype(int), 0.2).astype(float)
    found = ratio_estimate(x, y)
    ratio = x.sum() / y.sum()
    # Linearisation: R̂ − R ≈ mean(x − R y) / mean(y), so Var ≈ Var(x − R y) / (n mean(y)²).
    linear = (x - ratio * y).var(ddof=1) / (len(x) * y.mean() ** 2)
    assert found.value == pytest.approx(ratio)
    assert found.variance == pytest.approx(linear, rel=1e-12)


def test_ratio_interval_covers_where_the_per_impression_test_does_not():
    """1,000 seeded A/A-like experiments of 400 users per arm with user-level click
    propensities (Beta) and Poisson impressions: the delta method's 95% interval of the CTR
    difference covers the truth (0) at its nominal rate; the naive per-impression interval,
    treating impressions as independent, far less often."""
    rng = np.random.default_rng(5)
    delta_cover = naive_cover = 0
    runs, users = 1_000, 400
    for _ in range(runs):
        arms = []
        for _arm in range(2):
            shown = rng.poisson(20, users) + 1
            clicks = rng.binomial(shown, rng.beta(0.5, 4.5, users))
            arms.append((clicks.astype(float), shown.astype(float)))
        (xa, ya), (xb, yb) = arms
        a, b = ratio_estimate(xa, ya), ratio_estimate(xb, yb)
        half = 1.959964 * np.sqrt(a.variance + b.variance)
        delta_cover += abs(b.value - a.value) <= half
        naive = a.value * (1 - a.value) / ya.sum() + b.value * (1 - b.value) / yb.sum()
        naive_cover += abs(b.value - a.value) <= 1.959964 * np.sqrt(naive)
    assert abs(delta_cover / runs - 0.95) < 3 * np.sqrt(0.95 * 0.05 / runs) + 0.005
    assert naive_cover / runs < 0.85


def test_relative_lift_by_hand():
    lift, variance = relative_lift(Estimate(10.0, 0.04, 100), Estimate(12.0, 0.09, 100))
    assert lift == pytest.approx(0.2)
    assert variance == pytest.approx(0.09 / 100 + 144 * 0.04 / 10_000)
    with pytest.raises(UsageError, match="relative lift"):
        relative_lift(Estimate(0.0, 0.1, 10), Estimate(1.0, 0.1, 10))


def test_cuped_is_the_pooled_regression_and_removes_r_squared():
    rng = np.random.default_rng(9)
    x = rng.normal(10, 3, 2_000)
    y = 0.8 * x + rng.normal(0, 2, 2_000)
    found = cuped(y, x)
    slope = np.polyfit(x, y, 1)[0]
    r = np.corrcoef(x, y)[0, 1]
    assert found.theta == pytest.approx(slope, rel=1e-10)
    assert found.variance_reduction == pytest.approx(r**2, rel=1e-10)
    assert found.values.mean() == pytest.approx(y.mean())
    constant = cuped(y, np.ones_like(y))
    assert constant.theta == 0 and constant.variance_reduction == 0


def test_post_stratification_by_hand():
    y = [1.0, 3.0, 10.0, 14.0, 12.0]
    strata = ["s", "s", "t", "t", "t"]
    found = post_stratified(y, strata, {"s": 0.25, "t": 0.75})
    assert found.value == pytest.approx(0.25 * 2 + 0.75 * 12)
    assert found.variance == pytest.approx(0.25**2 * 2 / 2 + 0.75**2 * 4 / 3)
    with pytest.raises(UsageError, match="stratum u has 0 unit"):
        post_stratified(y, strata, {"s": 0.5, "u": 0.5})


def test_mean_estimate_and_mistakes():
    found = mean_estimate([1.0, 2.0, 3.0, 6.0])
    assert (found.value, found.variance, found.n) == (3.0, pytest.approx(14 / 3 / 4), 4)
    with pytest.raises(UsageError, match="at least 2 units"):
        mean_estimate([1.0])
    with pytest.raises(UsageError, match="finite"):
        mean_estimate([1.0, float("nan")])
    with pytest.raises(UsageError, match="sums to 0"):
        ratio_estimate([0.0, 0.0], [0.0, 0.0])
    with pytest.raises(UsageError, match="one value per unit each"):
        cuped([1.0, 2.0, 3.0], [1.0, 2.0])


def test_fieller_interval_solves_its_inequality_and_agrees_with_the_wald_test():
    from rankscope.stats.intervals import fieller_interval

    mean_a, var_a, mean_b, var_b, z = 10.0, 1.5, 13.0, 2.0, 1.959963984540054
    low, high = fieller_interval(mean_a, var_a, mean_b, var_b, 0.95)
    for end in (low, high):  # the ends are where the inequality is an equality
        assert (mean_b - end * mean_a) ** 2 == pytest.approx(z * z * (var_b + end**2 * var_a))
    middle = mean_b / mean_a
    assert low < middle < high
    assert (mean_b - middle * mean_a) ** 2 <= z * z * (var_b + middle**2 * var_a)
    # the ratio 1 is outside exactly when the unpooled Wald test of the difference rejects
    for b in (11.0, 13.0, 15.0):
        outside = not fieller_interval(mean_a, var_a, b, var_b, 0.95)[0] <= 1.0
        assert outside == (abs(b - mean_a) / np.sqrt(var_a + var_b) > z)
    # a control mean indistinguishable from 0: every ratio is plausible
    assert fieller_interval(0.5, 1.0, 3.0, 1.0, 0.95) == (-np.inf, np.inf)


def test_fieller_covers_the_ratio_where_the_delta_method_does_not():
    """Normal means with known variances, the control's about 3.3 standard errors from 0 (few
    clicks): where Fieller's interval is bounded it holds the true ratio exactly when the
    pivot |x̄_b − ρ x̄_a| / sqrt(v_b + ρ² v_a) is within z (so it is exact), and unbounded it
    holds everything (conservative); the delta method's symmetric interval covers less than
    its nominal 95%."""
    rng = np.random.default_rng(12)
    runs, sd, z, ratio = 4_000, 0.3, 1.959963984540054, 1.5
    fieller = delta = 0
    for _ in range(runs):
        a = Estimate(rng.normal(1.0, sd), sd * sd, 100)
        b = Estimate(rng.normal(ratio, sd), sd * sd, 100)
        _, low, high = lift_interval(a, b, method="fieller")
        inside = low <= ratio - 1 <= high
        if np.isfinite(low):
            pivot = abs(b.value - ratio * a.value) / np.sqrt(b.variance + ratio**2 * a.variance)
            assert inside == (pivot <= z)
        fieller += inside
        _, low, high = lift_interval(a, b, method="delta")
        delta += low <= ratio - 1 <= high
    assert fieller / runs >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / runs)
    assert delta / runs < 0.94
