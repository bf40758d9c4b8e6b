"""χ² tests of counts (`rankscope.stats.contingency`) against scipy and statsmodels, and
the 2×2 test against the pooled two-proportion z-test (χ² = z²)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rankscope.errors import UsageError
from rankscope.stats import two_proportion_z
from rankscope.stats.contingency import chi_square, goodness_of_fit

TABLES = [
    [[30, 970], [45, 955]],
    [[3, 17], [9, 11]],
    [[120, 380, 500], [140, 360, 500], [90, 410, 500]],
    [[5, 0, 7], [2, 9, 1]],
]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("correction", [False, True])
def test_chi_square_is_scipys(table, correction):
    if correction and np.shape(table) != (2, 2):
        with pytest.raises(UsageError, match="2×2"):
            chi_square(table, correction=True)
        return
    expected = stats.chi2_contingency(table, correction=correction)
    found = chi_square(table, correction=correction)
    assert found.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert found.p_value == pytest.approx(expected.pvalue, rel=1e-10)
    assert found.df == expected.dof
    assert np.allclose(found.details["expected"], expected.expected_freq)


def test_two_by_two_is_the_pooled_z_test_squared():
    found = chi_square([[30, 970], [45, 955]])
    z = two_proportion_z(30, 1000, 45, 1000)
    assert found.statistic == pytest.approx(z.statistic**2, rel=1e-12)
    assert found.p_value == pytest.approx(z.p_value, rel=1e-10)
    assert found.mean_difference == pytest.approx(0.015)
    assert (found.ci_low, found.ci_high) == pytest.approx((z.ci_low, z.ci_high))
    # statsmodels' proportions_chisquare is the same test
    from statsmodels.stats.proportion import proportions_chisquare

    chi2, p, _ = proportions_chisquare([30, 45], [1000, 1000])
    assert found.statistic == pytest.approx(chi2) and found.p_value == pytest.approx(p)


def test_cramers_v_by_hand():
    table = np.array(TABLES[2], dtype=float)
    chi2 = stats.chi2_contingency(table, correction=False).statistic
    found = chi_square(table)
    assert found.effect_size == pytest.approx(np.sqrt(chi2 / (table.sum() * 2)))
    assert found.mean_difference is None and "difference" not in str(found)


@pytest.mark.parametrize(
    ("observed", "shares"),
    [([5012, 4988], [50, 50]), ([4800, 5200], [1, 1]), ([1000, 1000, 2150], [1, 1, 2])],
)
def test_goodness_of_fit_is_scipys(observed, shares):
    planned = np.asarray(shares, dtype=float) / np.sum(shares) * np.sum(observed)
    expected = stats.chisquare(observed, planned)
    found = goodness_of_fit(observed, shares)
    assert found.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert found.p_value == pytest.approx(expected.pvalue, rel=1e-10)
    assert found.df == len(observed) - 1


def test_mistakes():
    with pytest.raises(UsageError, match="hold no counts"):
        chi_square([[0, 10], [0, 12]])
    with pytest.raises(UsageError, match="whole counts"):
        chi_square([[1.5, 10], [3, 12]])
    with pytest.raises(UsageError, match="whole counts"):
        chi_square([[-1, 10], [3, 12]])
    with pytest.raises(UsageError, match="at least 2 rows"):
        chi_square([[1, 10]])
    with pytest.raises(UsageError, match="one planned share per arm"):
        goodness_of_fit([10, 12], [1, 1, 1])
    with pytest.raises(UsageError, match="positive"):
        goodness_of_fit([10, 12], [1, 0])
    with pytest.raises(UsageError, match="no units"):
        goodness_of_fit([0, 0], [1, 1])
