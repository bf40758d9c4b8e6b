"""Validation by simulation of the tests an online experiment uses: over many seeded A/A
experiments each test rejects at its nominal rate α (within the binomial interval), CUPED
included; over A/B experiments with a known effect the rejection rate is the power the
planning functions promise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankscope.stats import (
    chi_square,
    power_two_proportions,
    power_unpaired_t,
    two_proportion_z,
    welch_t,
)
from rankscope.stats.delta import cuped

EXPERIMENTS = 4_000
ALPHA = 0.05


def _within(rate: float, expected: float, runs: int = EXPERIMENTS) -> bool:
    """``rate`` within 3.5 binomial standard errors of ``expected`` (a false alarm about once
    in 2,000 checks; the seeds are fixed, so a test either passes or fails for ever)."""
    return abs(rate - expected) <= 3.5 * math.sqrt(expected * (1 - expected) / runs)


def test_welch_rejects_at_alpha_on_skewed_a_a_data():
    rng = np.random.default_rng(21)
    a = rng.lognormal(0, 0.8, (EXPERIMENTS, 300))
    b = rng.lognormal(0, 0.8, (EXPERIMENTS, 300))
    rate = np.mean(welch_t(a, b).p_value < ALPHA)
    assert _within(rate, ALPHA)


@pytest.mark.slow  # fast twins: the Welch and t-test simulations of this file
def test_cuped_keeps_alpha_and_gains_power():
    rng = np.random.default_rng(22)
    users = 200
    pre = rng.normal(10, 3, (EXPERIMENTS, 2 * users))
    post = 0.9 * pre + rng.normal(0, 1.5, (EXPERIMENTS, 2 * users))
    rejections = []
    for effect in (0.0, 0.25):
        adjusted = np.empty_like(post)
        shifted = post.copy()
        shifted[:, users:] += effect
        for e in range(EXPERIMENTS):
            adjusted[e] = cuped(shifted[e], pre[e]).values
        raw = np.mean(welch_t(shifted[:, :users], shifted[:, users:]).p_value < ALPHA)
        fitted = np.mean(welch_t(adjusted[:, :users], adjusted[:, users:]).p_value < ALPHA)
        rejections.append((raw, fitted))
    (raw_null, cuped_null), (raw_power, cuped_power) = rejections
    assert _within(raw_null, ALPHA) and _within(cuped_null, ALPHA)
    assert cuped_power > 2.5 * raw_power
    # CUPED leaves the noise (sd 1.5) around the pre-period's prediction: the planned power
    # of that standardised effect.
    assert abs(cuped_power - power_unpaired_t(0.25 / 1.5, users)) < 0.04


@pytest.mark.slow
def test_rate_tests_reject_at_alpha_and_at_the_planned_power():
    rng = np.random.default_rng(23)
    n, runs = 1_500, 1_500
    for p_b, expected in ((0.10, ALPHA), (0.125, power_two_proportions(0.10, 0.125, n))):
        clicks_a = rng.binomial(n, 0.10, runs)
        clicks_b = rng.binomial(n, p_b, runs)
        pairs = list(zip(clicks_a.tolist(), clicks_b.tolist(), strict=True))
        z = [two_proportion_z(a, n, b, n).p_value for a, b in pairs]
        chi2 = [chi_square([[a, n - a], [b, n - b]]).p_value for a, b in pairs]
        assert _within(float(np.mean(np.asarray(z) < ALPHA)), expected, runs), p_b
        assert np.allclose(z, chi2)  # the same test


@pytest.mark.parametrize("ratio", [1.0, 2.0])
def test_t_test_power_is_the_planned_power(ratio):
    rng = np.random.default_rng(24)
    n_a, effect = 60, 0.45
    n_b = int(ratio * n_a)
    a = rng.normal(0, 1, (EXPERIMENTS, n_a))
    b = rng.normal(effect, 1, (EXPERIMENTS, n_b))
    rate = np.mean(welch_t(a, b).p_value < ALPHA)
    assert _within(rate, power_unpaired_t(effect, n_a, ALPHA, ratio=ratio))
