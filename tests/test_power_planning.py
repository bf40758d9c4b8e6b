"""Planning an experiment (`rankscope.stats.power`): the two-sample t-test's power and sample
size with unequal groups, the two-proportion test's with unequal allocation (statsmodels as
the oracle), and the paired t power far in the tails (scipy's ``nct.cdf`` gave NaN)."""

from __future__ import annotations

import math

import pytest
from scipy import stats
from statsmodels.stats.power import TTestIndPower
from statsmodels.stats.proportion import power_proportions_2indep

from rankscope.errors import UsageError
from rankscope.stats import (
    power_paired_t,
    power_two_proportions,
    power_unpaired_t,
    sample_size_two_proportions,
    sample_size_unpaired_t,
)


def test_paired_power_near_one_and_zero_is_a_number():
    assert power_paired_t(1.0, 100) == pytest.approx(1.0, abs=1e-12)
    assert power_paired_t(-1.0, 100) == pytest.approx(1.0, abs=1e-12)
    # "less" against a positive effect: P(T' <= -c | delta = 10) = P(T' >= c | delta = -10),
    # tiny but positive (scipy's nct.cdf(-c, 99, 10) is NaN or 0 there).
    c = stats.t.isf(0.05, 99)
    tail = power_paired_t(1.0, 100, alternative="less")
    assert 0 < tail < 1e-20
    assert tail == pytest.approx(stats.nct.sf(c, 99, -10.0), rel=1e-9)
    assert not math.isnan(power_paired_t(3.0, 400))


@pytest.mark.parametrize("effect", [0.1, 0.3, -0.5, 1.2])
@pytest.mark.parametrize("ratio", [1.0, 2.0, 0.5])
@pytest.mark.parametrize("alternative", ["two-sided", "larger"])
def test_unpaired_power_is_statsmodels(effect, ratio, alternative):
    ours = "greater" if alternative == "larger" else alternative
    n_a = 40
    expected = TTestIndPower().power(effect, n_a, 0.05, ratio=math.ceil(ratio * n_a) / n_a,
                                     alternative=alternative)  # fmt: skip
    assert power_unpaired_t(effect, n_a, 0.05, ours, ratio) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("effect", "ratio"), [(0.5, 1.0), (0.3, 2.0), (0.8, 0.5)])
def test_unpaired_sample_size_is_the_smallest(effect, ratio):
    n_a, n_b = sample_size_unpaired_t(effect, 0.8, 0.05, ratio=ratio)
    assert n_b == math.ceil(ratio * n_a - 1e-9)
    assert power_unpaired_t(effect, n_a, ratio=ratio) >= 0.8
    assert power_unpaired_t(effect, n_a - 1, ratio=ratio) < 0.8
    fractional = TTestIndPower().solve_power(effect, power=0.8, alpha=0.05, ratio=ratio)
    assert n_a - 1 < fractional + 1e-6 and n_a <= math.ceil(fractional) + 1
    assert sample_size_unpaired_t(0.5) == (64, 64)  # the textbook figure (Cohen 1988)


@pytest.mark.parametrize("ratio", [1.0, 2.0, 0.5, 3.0])
@pytest.mark.parametrize(("p_a", "p_b"), [(0.10, 0.15), (0.30, 0.27), (0.02, 0.025)])
def test_proportion_power_with_unequal_allocation_is_statsmodels(ratio, p_a, p_b):
    n_a = 900
    expected = power_proportions_2indep(p_a - p_b, p_b, n_a, ratio=ratio).power
    assert power_two_proportions(p_a, p_b, n_a, ratio=ratio) == pytest.approx(expected, rel=1e-9)


def test_proportion_sample_size_with_unequal_allocation():
    n_a = sample_size_two_proportions(0.10, 0.12, ratio=3.0)
    assert power_two_proportions(0.10, 0.12, n_a, ratio=3.0) >= 0.8
    assert power_two_proportions(0.10, 0.12, n_a - 1, ratio=3.0) < 0.8
    # More users in B than A: A needs fewer than with an even split, the total more.
    even = sample_size_two_proportions(0.10, 0.12)
    assert n_a < even and n_a * 4 > even * 2


def test_mistakes():
    with pytest.raises(UsageError, match="allocation ratio"):
        power_unpaired_t(0.5, 10, ratio=0)
    with pytest.raises(UsageError, match="allocation ratio"):
        sample_size_two_proportions(0.1, 0.2, ratio=-1)
    with pytest.raises(UsageError, match="cannot detect"):
        sample_size_unpaired_t(-0.5, alternative="greater")
    with pytest.raises(UsageError, match="non-zero"):
        sample_size_unpaired_t(0.0)


@pytest.mark.parametrize(
    ("n_a", "ratio", "alternative"),
    [(64, 1.0, "two-sided"), (50, 2.0, "less"), (200, 0.5, "greater"), (12, 1.0, "two-sided")],
)
def test_minimum_detectable_effect_is_statsmodels(n_a, ratio, alternative):
    from rankscope.stats import mde_unpaired_t

    theirs = {"less": "smaller", "greater": "larger"}.get(alternative, alternative)
    expected = TTestIndPower().solve_power(None, nobs1=n_a, alpha=0.05, power=0.8,
                                           ratio=math.ceil(ratio * n_a) / n_a,
                                           alternative=theirs)  # fmt: skip
    found = mde_unpaired_t(n_a, 0.8, 0.05, alternative, ratio)
    assert found == pytest.approx(expected, rel=1e-6)
    assert power_unpaired_t(found, n_a, 0.05, alternative, ratio) == pytest.approx(0.8, abs=1e-9)


def test_minimum_detectable_rate_inverts_the_power_and_the_sample_size():
    from rankscope.stats import mde_two_proportions

    # 686 users a group detect 0.10 -> 0.15 at 80% power (the sample size's textbook case)
    found = mde_two_proportions(0.10, 686)
    assert 0.149 < found < 0.15
    assert power_two_proportions(0.10, found, 686) == pytest.approx(0.8, abs=1e-9)
    assert sample_size_two_proportions(0.10, 0.15) == 686  # (one tail: a little above found)
    below = mde_two_proportions(0.10, 686, alternative="less", ratio=2.0)
    assert below < 0.10
    # statsmodels tests prop1 - prop2 = p_a - p_b: B below A is its "larger"
    expected = power_proportions_2indep(0.10 - below, below, 686, ratio=2.0,
                                        alternative="larger").power  # fmt: skip
    assert expected == pytest.approx(0.8, abs=1e-6)
    with pytest.raises(UsageError, match="give more users"):
        mde_two_proportions(0.5, 3, power=0.99)
