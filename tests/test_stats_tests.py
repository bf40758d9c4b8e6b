"""Significance tests and effect sizes (rankscope.stats.tests, .unpaired, .proportions,
.power, .effects).

Expected values come from outside the code under test: the seed example of
../shared/conformance/seed_examples.md rows 18–19 (recomputed by hand there), scipy.stats as
an independent oracle (t-tests, Wilcoxon, binomial, Fisher), enumerations written out here
with itertools, hand computations with the standard library, and tabulated values
(G*Power / R power.t.test; Newcombe 1998, Table II; Fleiss et al. 2003).
"""

from __future__ import annotations

import doctest
import itertools
import json
import math
import statistics
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

from rankscope.stats import effects as effects_module
from rankscope.stats import tests as tests_module
from rankscope.stats.effects import (
    cohens_d,
    cohens_dz,
    cohens_h,
    hedges_correction,
    hedges_g,
    mean_difference_ci,
)
from rankscope.stats.power import (
    power_paired_t,
    power_two_proportions,
    sample_size_paired_t,
    sample_size_two_proportions,
)
from rankscope.stats.proportions import fisher_exact, two_proportion_z
from rankscope.stats.result import TestResult
from rankscope.stats.tests import (
    paired_bootstrap,
    paired_t,
    permutation_test,
    sign_test,
    wilcoxon,
)
from rankscope.stats.unpaired import student_t, welch_t

SYSTEM_A = [25, 43, 39, 75, 43, 15, 20, 52, 49, 50]
SYSTEM_B = [35, 84, 15, 75, 68, 85, 80, 50, 58, 75]
ALTERNATIVES = ["two-sided", "greater", "less"]
SEEDS = [0, 1, 2, 3, 4]


def close(value, expected, tol=1e-10):
    """|value − expected| ≤ tol · max(1, |expected|)."""
    return abs(value - expected) <= tol * max(1.0, abs(expected))


def scores(seed, n=30, rows=None):
    """Per-query scores of two correlated systems in [0, 1], B slightly better."""
    rng = np.random.default_rng(seed)
    shape = (n,) if rows is None else (rows, n)
    a = rng.beta(2, 3, size=shape)
    b = np.clip(a + rng.normal(0.03, 0.1, size=shape), 0, 1)
    return a, b


# ------------------------------------------------------------------ seed example rows 18–19


def test_seed_example_paired_t():
    result = paired_t(SYSTEM_A, SYSTEM_B)
    assert round(result.statistic, 9) == 2.326881291
    assert result.mean_difference == pytest.approx(21.4, abs=1e-12)
    assert round(result.details["sd"], 3) == 29.083
    assert round(result.p_value, 9) == 0.044976221
    assert result.df == 9 and result.n == 10
    greater = paired_t(SYSTEM_A, SYSTEM_B, alternative="greater")
    assert round(greater.p_value, 9) == 0.022488111
    assert paired_t(SYSTEM_A, SYSTEM_B, "less").p_value == pytest.approx(1 - 0.022488111, 1e-8)
    # the same test on the differences (B − A), e.g. per-query preference values
    differences = np.subtract(SYSTEM_B, SYSTEM_A)
    assert paired_t(differences) == result
    # swapping the systems flips the sign and the one-sided alternative
    swapped = paired_t(SYSTEM_B, SYSTEM_A, alternative="less")
    assert swapped.statistic == pytest.approx(-result.statistic)
    assert swapped.p_value == pytest.approx(greater.p_value)


def test_seed_example_effect_sizes_by_hand():
    differences = [b - a for a, b in zip(SYSTEM_A, SYSTEM_B, strict=True)]
    d_z = statistics.mean(differences) / statistics.stdev(differences)
    assert cohens_dz(SYSTEM_A, SYSTEM_B) == pytest.approx(d_z, rel=1e-12)
    assert cohens_dz(differences) == pytest.approx(d_z, rel=1e-12)
    correction = 1 - 3 / (4 * 9 - 1)  # J(df = n − 1 = 9)
    assert hedges_g(SYSTEM_A, SYSTEM_B) == pytest.approx(d_z * correction, rel=1e-12)
    result = paired_t(SYSTEM_A, SYSTEM_B)
    assert result.effect_size == pytest.approx(d_z, rel=1e-12)
    assert result.hedges_g == pytest.approx(d_z * correction, rel=1e-12)
    assert result.statistic == pytest.approx(d_z * math.sqrt(10), rel=1e-12)  # t = d_z √n
    # 95% interval: mean ± t_{0.975, 9} sd / √n, t_{0.975, 9} = 2.262157 (t tables)
    half = 2.2621571627982 * statistics.stdev(differences) / math.sqrt(10)
    assert result.ci_low == pytest.approx(21.4 - half, rel=1e-9)
    assert result.ci_high == pytest.approx(21.4 + half, rel=1e-9)


def test_unpaired_effect_sizes_by_hand():
    x, y = [1.0, 2.0, 4.0, 7.0], [3.0, 5.0, 6.0, 9.0, 12.0]
    pooled = math.sqrt(
        (3 * statistics.variance(x) + 4 * statistics.variance(y)) / (len(x) + len(y) - 2)
    )
    d = (statistics.mean(y) - statistics.mean(x)) / pooled
    assert cohens_d(x, y) == pytest.approx(d, rel=1e-12)
    assert hedges_g(x, y, paired=False) == pytest.approx(d * (1 - 3 / (4 * 7 - 1)), rel=1e-12)
    assert hedges_correction(7) == pytest.approx(1 - 3 / 27)
    assert student_t(x, y).effect_size == pytest.approx(d, rel=1e-12)
    assert cohens_h(0.5, 0.5) == 0.0
    assert cohens_h(0.25, 0.75) == pytest.approx(2 * math.asin(math.sqrt(0.75)) - math.pi / 3)


# --------------------------------------------------------------------- scipy as oracle


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_t_matches_scipy(seed, alternative):
    a, b = scores(seed, n=10 + 7 * seed)
    result = paired_t(a, b, alternative)
    oracle = stats.ttest_rel(b, a, alternative=alternative)  # scipy tests first − second
    assert close(result.statistic, oracle.statistic)
    assert close(result.p_value, oracle.pvalue)
    interval = oracle.confidence_interval(0.9)
    low, high = mean_difference_ci(a, b, confidence=0.9, alternative=alternative)
    assert close(low, interval.low) if math.isfinite(interval.low) else low == -math.inf
    assert close(high, interval.high) if math.isfinite(interval.high) else high == math.inf


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_student_and_welch_match_scipy(seed, alternative):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.3, 0.1, size=8 + seed)
    y = rng.normal(0.35, 0.2, size=15 + 2 * seed)
    for function, equal_var in ((student_t, True), (welch_t, False)):
        result = function(x, y, alternative)
        oracle = stats.ttest_ind(y, x, equal_var=equal_var, alternative=alternative)
        assert close(result.statistic, oracle.statistic)
        assert close(result.p_value, oracle.pvalue)
        assert close(result.df, oracle.df)
        interval = oracle.confidence_interval(0.95)
        for mine, theirs in ((result.ci_low, interval.low), (result.ci_high, interval.high)):
            assert close(mine, theirs) if math.isfinite(theirs) else mine == theirs


def wilcoxon_cases():
    rng = np.random.default_rng(7)
    yield "continuous, exact", rng.normal(0.2, 1, size=12)
    yield "continuous, n = 40", rng.normal(0.3, 1, size=40)
    yield "continuous, n = 60 (normal)", rng.normal(0.2, 1, size=60)
    yield "ties and zeros, n = 11", rng.integers(-3, 5, size=11).astype(float)
    yield "ties and zeros, n = 13", rng.integers(-2, 4, size=13).astype(float)
    yield "ties and zeros, n = 30", rng.integers(-4, 6, size=30).astype(float)
    yield "ties, no zeros, n = 25", rng.choice([-2.5, -1.0, 0.5, 1.0, 3.0], size=25)


@pytest.mark.parametrize(
    "case",
    [
        # n = 13 with ties and zeros: the n = 11 case's slow twin (scipy's exact tie handling)
        pytest.param(case, id=case[0], marks=[pytest.mark.slow] if case[0].endswith("13") else [])
        for case in wilcoxon_cases()
    ],
)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_defaults_match_scipy(case, alternative):
    _, differences = case
    result = wilcoxon(differences, alternative=alternative)
    oracle = stats.wilcoxon(differences, alternative=alternative)
    assert close(result.p_value, oracle.pvalue)
    if alternative == "two-sided":  # scipy: min(W+, W−) two-sided, W+ one-sided
        smaller = min(result.statistic, result.details["w_minus"])
        assert smaller == pytest.approx(oracle.statistic, abs=1e-9)
    else:
        assert result.statistic == pytest.approx(oracle.statistic, abs=1e-9)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_normal_approximation_matches_scipy(zero_method, correction, alternative):
    differences = np.random.default_rng(3).integers(-4, 7, size=35).astype(float)
    assert (differences == 0).sum() >= 2
    result = wilcoxon(
        differences,
        alternative=alternative,
        zero_method=zero_method,
        method="approx",
        correction=correction,
    )
    oracle = stats.wilcoxon(
        differences,
        alternative=alternative,
        zero_method=zero_method,
        method="asymptotic",
        correction=correction,
    )
    assert close(result.p_value, oracle.pvalue)
    assert close(result.details["z"], oracle.zstatistic) or alternative == "two-sided"


def test_wilcoxon_exact_with_ties_and_zeros_by_enumeration():
    differences = np.array([0.0, 1.0, -1.0, 2.0, 2.0, -3.0, 4.0, 4.0, 4.0, 0.0, 5.0])
    nonzero = differences[differences != 0]
    ranks = stats.rankdata(np.abs(nonzero))
    observed = ranks[nonzero > 0].sum()
    sums = [
        sum(rank for rank, sign in zip(ranks, signs, strict=True) if sign > 0)
        for signs in itertools.product([1, -1], repeat=len(ranks))
    ]
    greater = sum(s >= observed for s in sums) / len(sums)
    less = sum(s <= observed for s in sums) / len(sums)
    for alternative, expected in (
        ("greater", greater),
        ("less", less),
        ("two-sided", min(1.0, 2 * min(greater, less))),
    ):
        result = wilcoxon(differences, alternative=alternative, method="exact")
        assert close(result.p_value, expected)
        assert result.details["exact"] and result.details["nonzero"] == 9


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_sign_test_matches_binomtest(seed, alternative):
    rng = np.random.default_rng(seed)
    differences = rng.integers(-2, 4, size=15 + 9 * seed).astype(float)  # with ties (0)
    result = sign_test(differences, alternative=alternative)
    wins, losses = int((differences > 0).sum()), int((differences < 0).sum())
    oracle = stats.binomtest(wins, wins + losses, alternative=alternative)
    assert close(result.p_value, oracle.pvalue)
    assert result.statistic == wins
    assert result.details == {"wins": wins, "losses": losses, "ties": int((differences == 0).sum())}


@pytest.mark.parametrize(
    "counts", [(3, 10, 8, 10), (48, 80, 56, 70), (0, 12, 5, 12), (30, 400, 45, 380)]
)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_fisher_exact_matches_scipy(counts, alternative):
    s_a, n_a, s_b, n_b = counts
    result = fisher_exact(s_a, n_a, s_b, n_b, alternative)
    table = [[s_b, n_b - s_b], [s_a, n_a - s_a]]
    odds, p_value = stats.fisher_exact(table, alternative=alternative)
    assert close(result.p_value, p_value)
    assert result.statistic == odds or (math.isinf(odds) and math.isinf(result.statistic))
    assert result.mean_difference == pytest.approx(s_b / n_b - s_a / n_a)


def test_fisher_newcombe_interval_matches_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, Table II example (a): 56/70 − 48/80,
    # method 10 (hybrid score): 0.0524 to 0.3339.
    result = fisher_exact(48, 80, 56, 70)
    assert round(result.ci_low, 4) == 0.0524
    assert round(result.ci_high, 4) == 0.3339


# ------------------------------------------------------------------ permutation test


def test_exact_permutation_p_values_by_hand():
    # |d| = 1, 2, 3, 4 with signs + + + −: observed sum 2.  The 16 sign flips give the
    # sums 2 S+ − 10 over the subset sums S+ of {1, 2, 3, 4}:
    #   −10, −8, −6, −4, −4, −2, −2, 0, 0, 2, 2, 4, 4, 6, 8, 10.
    # ≥ 2: 7 flips; ≤ 2: 11 flips; |·| ≥ 2: 14 flips.
    for scale in (1.0, 0.1):  # 0.1 also checks floating-point ties (0.1 + 0.2 ≠ 0.3)
        differences = scale * np.array([1.0, 2.0, 3.0, -4.0])
        expected = {"greater": 7 / 16, "less": 11 / 16, "two-sided": 14 / 16}
        for alternative, p_value in expected.items():
            result = permutation_test(differences, alternative=alternative)
            assert result.p_value == p_value, (scale, alternative)
            assert result.details["exact"] and result.details["permutations"] == 16
            assert result.statistic == pytest.approx(scale * 0.5)
            assert result.seed is None


def brute_force_permutation(differences, alternative, statistic=np.mean):
    observed = statistic(differences)
    hits = 0
    flips = list(itertools.product([1.0, -1.0], repeat=len(differences)))
    for signs in flips:
        value = statistic(np.array(signs) * differences)
        if alternative == "greater":
            hits += value >= observed - 1e-12
        elif alternative == "less":
            hits += value <= observed + 1e-12
        else:
            hits += abs(value) >= abs(observed) - 1e-12
    return hits / len(flips)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_permutation_matches_brute_force_and_monte_carlo(alternative):
    differences = np.round(np.random.default_rng(11).normal(0.15, 0.3, size=12), 2)
    exact = brute_force_permutation(differences, alternative)
    assert 0.01 < exact < 0.99
    result = permutation_test(differences, alternative=alternative)
    assert result.details["exact"] and close(result.p_value, exact, 1e-12)
    monte_carlo = permutation_test(
        differences, alternative=alternative, exact=False, permutations=100_000, seed=5
    )
    error = math.sqrt(exact * (1 - exact) / 100_000)
    assert abs(monte_carlo.p_value - exact) < 4 * error
    assert monte_carlo.details["mc_se"] == pytest.approx(error, rel=0.1)
    assert monte_carlo.seed == 5 and not monte_carlo.details["exact"]


@pytest.mark.parametrize("n", [2, 3, 7, 10])
def test_exact_permutation_any_length_matches_brute_force(n):
    # rounded to one decimal: many flips tie with the observed sum
    rows = np.round(np.random.default_rng(n).normal(0.1, 0.4, size=(3, n)), 1)
    for alternative in ALTERNATIVES:
        batch = permutation_test(rows, alternative=alternative)
        for row in range(3):
            expected = brute_force_permutation(rows[row], alternative)
            assert close(batch.p_value[row], expected, 1e-12), (row, alternative)


def test_median_permutation_matches_brute_force():
    differences = np.array([0.3, -0.1, 0.25, 0.4, -0.05, 0.2, 0.15, -0.3, 0.5])
    for alternative in ALTERNATIVES:
        result = permutation_test(differences, statistic="median", alternative=alternative)
        expected = brute_force_permutation(differences, alternative, np.median)
        assert close(result.p_value, expected, 1e-12)


def test_permutation_seed_determinism_and_rows():
    a, b = scores(3, n=30, rows=6)
    first = permutation_test(a, b, permutations=5000, seed=42)
    assert first == permutation_test(a, b, permutations=5000, seed=42)
    other = permutation_test(a, b, permutations=5000, seed=43)
    assert not np.array_equal(first.details["count"], other.details["count"])
    # every row alone gives what it gets in the batch (the flips are shared)
    for row in range(6):
        alone = permutation_test(a[row], b[row], permutations=5000, seed=42)
        assert alone.p_value == first.p_value[row]
        assert alone == first[row]
    assert first.p_value.shape == (6,) and first.batched and not first[0].batched
    # Monte Carlo convention: (count + 1) / (B + 1)
    assert np.array_equal(first.p_value, (first.details["count"] + 1) / 5001)
    small = np.random.default_rng(0).normal(size=(4, 9))
    batch = permutation_test(small)
    for row in range(4):
        assert permutation_test(small[row]).p_value == batch.p_value[row]


def test_permutation_monte_carlo_default_above_twenty_queries():
    differences = np.random.default_rng(2).normal(0.1, 1, size=21)
    result = permutation_test(differences, permutations=2000)
    assert not result.details["exact"] and result.details["permutations"] == 2000
    assert permutation_test(differences[:20]).details["permutations"] == 2**20


# ------------------------------------------------------------------------ bootstrap


def test_bootstrap_matches_direct_resampling():
    # Sakai (2006), written plainly: shift to mean 0, resample, compare t statistics.
    a, b = scores(4, n=25)
    differences = b - a
    samples, n = 2000, len(differences)
    t_observed = differences.mean() / (differences.std(ddof=1) / math.sqrt(n))
    shifted = differences - differences.mean()
    picks = np.random.default_rng(9).integers(0, n, size=(samples, n))
    hits, means = 0, []
    for indices in picks:
        sample = shifted[indices]
        t_star = sample.mean() / (sample.std(ddof=1) / math.sqrt(n))
        hits += abs(t_star) >= abs(t_observed)
        means.append(differences[indices].mean())
    result = paired_bootstrap(a, b, samples=samples, seed=9)
    assert result.p_value == (hits + 1) / (samples + 1)
    assert result.details["count"] == hits
    assert close(result.statistic, t_observed)
    assert close(result.ci_low, np.quantile(means, 0.025))
    assert close(result.ci_high, np.quantile(means, 0.975))


def test_bootstrap_interval_sanity_and_determinism():
    rng = np.random.default_rng(12)
    widths = []
    for n in (20, 320):
        differences = rng.normal(0.05, 0.2, size=n)
        result = paired_bootstrap(differences, samples=3000, seed=1)
        assert result.ci_low < differences.mean() < result.ci_high
        widths.append(result.ci_high - result.ci_low)
        assert result == paired_bootstrap(differences, samples=3000, seed=1)
        assert result != paired_bootstrap(differences, samples=3000, seed=2)
    assert widths[1] < widths[0] / 2  # ≈ 1/4 for 16 times the queries
    one_sided = paired_bootstrap(differences, alternative="greater", samples=3000, seed=1)
    assert one_sided.ci_high == math.inf and one_sided.ci_low < differences.mean()
    a, b = scores(5, n=15, rows=4)
    batch = paired_bootstrap(a, b, samples=500, seed=3)
    for row in range(4):  # the same resamples; the batch's matrix products may round apart
        alone = paired_bootstrap(a[row], b[row], samples=500, seed=3)
        assert alone.p_value == batch.p_value[row]
        assert alone.details["count"] == batch.details["count"][row]
        assert close(alone.ci_low, batch.ci_low[row], 1e-12)
        assert close(alone.ci_high, batch.ci_high[row], 1e-12)


# ---------------------------------------------------------------- vectorised paired t


def test_paired_t_rows_equal_single_calls():
    a, b = scores(6, n=40, rows=25)
    batch = paired_t(a, b, "greater")
    assert batch.p_value.shape == (25,) and batch.df == 39
    for row in (0, 7, 24):
        single = paired_t(a[row], b[row], "greater")
        assert close(batch.p_value[row], single.p_value, 1e-14)
        assert close(batch.ci_low[row], single.ci_low, 1e-14)
    signs = sign_test(b - a)
    assert signs.p_value[3] == sign_test(a[3], b[3]).p_value
    unpaired = welch_t(a, b)
    assert close(unpaired.p_value[5], welch_t(a[5], b[5]).p_value, 1e-14)
    assert wilcoxon(a, b)[2] == wilcoxon(a[2], b[2])


# ------------------------------------------------------------------------- rates


def test_two_proportion_z_by_hand():
    # A: 100 of 1000 clicked, B: 130 of 1000.
    pooled = 230 / 2000
    se = math.sqrt(pooled * (1 - pooled) * (2 / 1000))
    z = 0.03 / se
    result = two_proportion_z(100, 1000, 130, 1000)
    assert result.statistic == pytest.approx(z, rel=1e-12)
    assert result.p_value == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-9)
    greater = two_proportion_z(100, 1000, 130, 1000, "greater")
    assert greater.p_value == pytest.approx(math.erfc(z / math.sqrt(2)) / 2, rel=1e-9)
    wald = math.sqrt(0.1 * 0.9 / 1000 + 0.13 * 0.87 / 1000)
    quantile = NormalDist().inv_cdf(0.975)
    assert result.ci_low == pytest.approx(0.03 - quantile * wald, rel=1e-9)
    assert result.ci_high == pytest.approx(0.03 + quantile * wald, rel=1e-9)
    unpooled = two_proportion_z(100, 1000, 130, 1000, pooled=False)
    assert unpooled.statistic == pytest.approx(0.03 / wald, rel=1e-12)
    assert result.details["relative_difference"] == pytest.approx(0.3)
    assert two_proportion_z(0, 50, 0, 60).p_value == 1.0


# ------------------------------------------------------------------- power, sample size


def test_paired_t_power_and_sample_size_tabulated():
    # G*Power 3 / R power.t.test(type = "paired"): d = 0.5, α = 0.05 two-sided, power 0.8
    # → n = 34 (actual power 0.8078); d = 0.2 → 199; d = 0.8 → 15; one-sided d = 0.5 → 27.
    assert sample_size_paired_t(0.5, 0.8, 0.05) == 34
    assert power_paired_t(0.5, 34) == pytest.approx(0.8078, abs=5e-5)
    assert sample_size_paired_t(0.2) == 199
    assert sample_size_paired_t(0.8) == 15
    assert sample_size_paired_t(0.5, alternative="greater") == 27
    assert sample_size_paired_t(-0.5, alternative="less") == 27
    for effect in (0.3, 0.5, 1.2):
        n = sample_size_paired_t(effect, 0.9)
        assert power_paired_t(effect, n) >= 0.9 > power_paired_t(effect, n - 1)
    # large n: the noncentral t is nearly normal, power ≈ Φ(d √n − z_{1−α/2})
    normal = NormalDist()
    approximate = normal.cdf(0.1 * math.sqrt(2000) - normal.inv_cdf(0.975))
    assert power_paired_t(0.1, 2000) == pytest.approx(approximate, abs=2e-3)
    assert power_paired_t(0.0, 30) == pytest.approx(0.05, abs=1e-12)


def test_two_proportion_power_and_sample_size_by_hand():
    normal = NormalDist()
    p_a, p_b = 0.10, 0.15
    average = (p_a + p_b) / 2
    null_sd = math.sqrt(2 * average * (1 - average))
    alternative_sd = math.sqrt(p_a * (1 - p_a) + p_b * (1 - p_b))
    n = (normal.inv_cdf(0.975) * null_sd + normal.inv_cdf(0.8) * alternative_sd) ** 2 / 0.05**2
    assert sample_size_two_proportions(p_a, p_b) == math.ceil(n) == 686
    shift, critical = 0.05 * math.sqrt(686), normal.inv_cdf(0.975) * null_sd
    expected = normal.cdf((shift - critical) / alternative_sd) + normal.cdf(
        (-shift - critical) / alternative_sd
    )
    assert power_two_proportions(p_a, p_b, 686) == pytest.approx(expected, rel=1e-9)
    assert power_two_proportions(p_a, p_b, 686) >= 0.8 > power_two_proportions(p_a, p_b, 680)
    one_sided = sample_size_two_proportions(p_a, p_b, alternative="greater")
    assert power_two_proportions(p_a, p_b, one_sided, alternative="greater") >= 0.8
    assert one_sided < 686


# ---------------------------------------------------------------------- edge cases


def test_identical_systems():
    # no difference at all: p = 1 for every test (t = 0/0 is taken as 0, not NaN)
    same = np.array([0.2, 0.5, 0.5, 0.9])
    assert paired_t(same, same).p_value == 1.0
    assert sign_test(same, same).p_value == 1.0
    assert wilcoxon(same, same).p_value == 1.0
    assert permutation_test(same, same).p_value == 1.0
    assert permutation_test(same, same, exact=False, permutations=99).p_value == 1.0
    assert paired_bootstrap(same, same, samples=100).p_value == 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: paired_t([1, 2, 3], [1, 2]),
        lambda: paired_t([1, float("nan"), 3], [1, 2, 3]),
        lambda: paired_t([1, 2, 3], [1, 2, float("inf")]),
        lambda: paired_t([1.0]),
        lambda: paired_t(np.zeros((3, 1))),
        lambda: paired_t(np.zeros((2, 2, 3))),
        lambda: paired_t(["a", "b"]),
        lambda: paired_t([1, 2, 3], alternative="bigger"),
        lambda: paired_t([1, 2, 3], confidence=95),
        lambda: wilcoxon([1, 2, 3], zero_method="nope"),
        lambda: wilcoxon([1, 2, 3], method="permutation"),
        lambda: sign_test([1.0]),
        lambda: permutation_test([1, 2, 3], statistic="trimmed"),
        lambda: permutation_test([1, 2, 3], exact=False, permutations=0),
        lambda: permutation_test(np.ones(33), exact=True),
        lambda: permutation_test(np.ones(25), statistic="median", exact=True),
        lambda: paired_bootstrap([1, 2, 3], samples=0),
        lambda: paired_bootstrap([1, 2, float("nan")]),
        lambda: student_t([1.0], [1, 2, 3]),
        lambda: welch_t(np.zeros((2, 3)), np.zeros((3, 3))),
        lambda: two_proportion_z(11, 10, 3, 10),
        lambda: two_proportion_z(1, 0, 3, 10),
        lambda: two_proportion_z(1.5, 10, 3, 10),
        lambda: fisher_exact(-1, 10, 3, 10),
        lambda: power_paired_t(0.5, 1),
        lambda: power_paired_t(0.5, 20, alpha=0),
        lambda: sample_size_paired_t(0.0),
        lambda: sample_size_paired_t(0.5, power=1.0),
        lambda: sample_size_paired_t(-0.5, alternative="greater"),
        lambda: power_two_proportions(0.1, 1.0, 100),
        lambda: sample_size_two_proportions(0.2, 0.2),
        lambda: hedges_g([1, 2, 3], paired=False),
        lambda: hedges_correction(0),
        lambda: cohens_h(0.5, 1.5),
    ],
)
def test_invalid_input_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_error_messages_say_what_is_wrong():
    with pytest.raises(ValueError, match="same queries"):
        paired_t([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"NaN or infinity \(at index 1\)"):
        paired_t([1, float("nan"), 3], [1, 2, 3])
    with pytest.raises(ValueError, match="at least 2 queries"):
        permutation_test([0.5])


# ------------------------------------------------------------------------- the result


def test_result_reports_and_serialises():
    result = paired_t(SYSTEM_A, SYSTEM_B)
    text = str(result)
    for piece in ("paired t-test", "two-sided", "t = 2.327", "df = 9", "p = 0.04498", "21.4"):
        assert piece in text
    assert "d_z = 0.7358" in text and "Hedges' g" in text and "95% CI" in text
    as_dict = result.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["p_value"] == result.p_value and as_dict["df"] == 9
    batch = permutation_test(np.random.default_rng(1).normal(size=(12, 8)))
    assert "12 comparisons" in str(batch) and "2 more rows" in str(batch)
    json.dumps(batch.to_dict())
    with pytest.raises(TypeError):
        result[0]
    with pytest.raises(TypeError):
        hash(result)
    assert str(fisher_exact(3, 10, 8, 10)).count("\n") == 3
    assert TestResult.__test__ is False


def test_docstring_examples():
    for module in (tests_module, effects_module):
        failures, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert failures == 0, module.__name__
