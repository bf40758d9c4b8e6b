"""The tests of two independent groups and of two rates in the one table of tests
(`rankscope.stats.procedures.TESTS`, uses ``unpaired`` and ``rates``): Mann–Whitney against
scipy and a hand count, the two-sample bootstrap against Welch's interval and an A/A
simulation, and every entry against the function it names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rankscope.errors import UsageError
from rankscope.stats import (
    chi_square,
    fisher_exact,
    student_t,
    two_proportion_z,
    welch_t,
)
from rankscope.stats.procedures import named, names
from rankscope.stats.unpaired import mann_whitney, two_sample_bootstrap


def test_the_uses_and_their_defaults():
    assert names("unpaired") == ("welch", "student", "mann-whitney", "bootstrap")
    assert names("rates") == ("z", "chi-square", "chi-square-yates", "fisher")
    # the tests of systems are unchanged
    assert names("pairs") == ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey",
                              "tukey-one-way", "randomized-tukey")  # fmt: skip
    assert named("mwu", "unpaired").name == "mann-whitney"
    assert named("chi2", "rates").name == "chi-square"
    with pytest.raises(UsageError, match="choose welch, student, mann-whitney, bootstrap"):
        named("t", "unpaired")


def test_mann_whitney_by_hand_and_like_scipy():
    x, y = [1.0, 2.0, 3.0], [2.0, 4.0, 5.0]
    found = mann_whitney(x, y)
    # y beats x in 1 (2 > 1) + 0.5 (2 = 2) + 3 + 3 pairs of 9
    assert found.statistic == pytest.approx(7.5)
    assert found.effect_size == pytest.approx(2 * 7.5 / 9 - 1)
    rng = np.random.default_rng(4)
    a, b = rng.exponential(1.0, 80), rng.exponential(1.3, 60)
    for alternative in ("two-sided", "greater", "less"):
        expected = stats.mannwhitneyu(b, a, alternative=alternative)
        got = mann_whitney(a, b, alternative)
        assert got.statistic == pytest.approx(expected.statistic)
        assert got.p_value == pytest.approx(expected.pvalue, rel=1e-12)
        assert got.mean_difference == pytest.approx(b.mean() - a.mean())


def test_bootstrap_interval_is_close_to_welch_s_and_seeded():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, 400), rng.normal(0.2, 1.5, 300)
    boot = two_sample_bootstrap(a, b, samples=4_000, seed=3)
    welch = welch_t(a, b)
    assert boot.mean_difference == pytest.approx(welch.mean_difference)
    assert boot.ci_low == pytest.approx(welch.ci_low, abs=0.02)
    assert boot.ci_high == pytest.approx(welch.ci_high, abs=0.02)
    assert abs(boot.p_value - welch.p_value) < 0.01
    assert two_sample_bootstrap(a, b, samples=500, seed=3) == two_sample_bootstrap(
        a, b, samples=500, seed=3
    )
    assert two_sample_bootstrap(a, b, samples=500, seed=4).ci_low != two_sample_bootstrap(
        a, b, samples=500, seed=3
    ).ci_low


def test_bootstrap_rejects_at_alpha_on_a_a_data():
    rng = np.random.default_rng(6)
    runs = 600
    rejected = sum(
        two_sample_bootstrap(rng.lognormal(0, 1, 150), rng.lognormal(0, 1, 150),
                             samples=499, seed=k).p_value < 0.05
        for k in range(runs)
    )  # fmt: skip
    assert abs(rejected / runs - 0.05) <= 3.5 * math.sqrt(0.05 * 0.95 / runs)


def test_every_entry_is_the_function_it_names():
    rng = np.random.default_rng(7)
    a, b = rng.normal(0, 1, 50), rng.normal(0.4, 1, 40)
    assert named("welch", "unpaired").unpaired(a, b, "greater", 0.9, 0, 0) == welch_t(
        a, b, "greater", 0.9
    )
    assert named("student", "unpaired").unpaired(a, b, "less", 0.95, 0, 0) == student_t(
        a, b, "less", 0.95
    )
    assert named("bootstrap", "unpaired").unpaired(a, b, "two-sided", 0.95, 300, 2) == (
        two_sample_bootstrap(a, b, samples=300, seed=2)
    )
    counts = (30, 1000, 45, 1000)
    assert named("z", "rates").rates(*counts, "greater", 0.95) == two_proportion_z(
        *counts, "greater", confidence=0.95
    )
    assert named("fisher", "rates").rates(*counts, "two-sided", 0.95) == fisher_exact(*counts)
    assert named("chi-square-yates", "rates").rates(*counts, "two-sided", 0.95) == chi_square(
        [[30, 970], [45, 955]], correction=True
    )
    with pytest.raises(UsageError, match="two-sided"):
        named("chi-square", "rates").rates(*counts, "greater", 0.95)


def test_every_rates_entry_passes_the_confidence_on():
    counts = (30, 1000, 45, 1000)
    assert named("z", "rates").rates(*counts, "two-sided", 0.9) == two_proportion_z(
        *counts, confidence=0.9
    )
    assert named("fisher", "rates").rates(*counts, "two-sided", 0.9) == fisher_exact(
        *counts, confidence=0.9
    )
    assert named("mann-whitney", "unpaired").unpaired(
        [1.0, 2.0, 3.0], [2.0, 4.0, 5.0], "two-sided", 0.9, 0, 0
    ) == mann_whitney([1.0, 2.0, 3.0], [2.0, 4.0, 5.0], confidence=0.9)
