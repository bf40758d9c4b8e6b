"""Many-systems comparisons: corrections, Tukey HSD (classical, randomized), pairwise tests,
compact letters and the LaTeX table.

Expected values come from hand arithmetic (written out below), from scipy.stats as an
independent oracle (tukey_hsd, studentized_range, ttest_rel, wilcoxon, binomtest), and from
exact permutation distributions enumerated here.
"""

from __future__ import annotations

import doctest
import itertools
import math
import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from rankscope.report import latex
from rankscope.report.latex import latex_table
from rankscope.report.tables import latex_escape
from rankscope.stats import corrections, letters, multiple
from rankscope.stats.corrections import adjust, benjamini_hochberg, bonferroni, holm
from rankscope.stats.letters import compact_letters, letter_labels
from rankscope.stats.multiple import (
    PairwiseResult,
    as_score_matrix,
    randomized_tukey_hsd,
    studentized_range_sf,
    tukey_hsd,
)
from rankscope.stats.procedures import compare, names, pairwise_tests

# --------------------------------------------------------------------------------------
# Corrections


def test_corrections_on_a_hand_example():
    p = [0.01, 0.04, 0.03, 0.005]  # m = 4
    # Bonferroni: 4p = 0.04, 0.16, 0.12, 0.02
    assert bonferroni(p) == pytest.approx([0.04, 0.16, 0.12, 0.02], abs=1e-15)
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04;
    # running max 0.02, 0.03, 0.06, 0.06; back in input order:
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    # BH: sorted times m/i = 4/1, 4/2, 4/3, 4/4: 0.02, 0.02, 0.04, 0.04; running min from
    # the largest: 0.02, 0.02, 0.04, 0.04; back in input order:
    assert benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02], abs=1e-15)


def test_corrections_match_r_p_adjust_on_equally_spaced_p():
    # R: p.adjust(c(.01, .02, .03, .04, .05), "holm") -> .05 .08 .09 .09 .09
    # (5 x .01, 4 x .02, 3 x .03, 2 x .04, 1 x .05 = .05 .08 .09 .08 .05, running max)
    p = [0.01, 0.02, 0.03, 0.04, 0.05]
    assert holm(p) == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09], abs=1e-15)
    # BH: p_i x 5 / i = .05 for every i
    assert benjamini_hochberg(p) == pytest.approx([0.05] * 5, abs=1e-15)
    assert bonferroni(p) == pytest.approx([0.05, 0.10, 0.15, 0.20, 0.25], abs=1e-15)


def test_benjamini_hochberg_paper_example():
    # Benjamini & Hochberg (1995), section 4: 15 p-values; at q = 0.05 their procedure
    # rejects the four smallest, Bonferroni (and Holm) only three.
    p = np.array(
        [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
         0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000]
    )  # fmt: skip
    assert (benjamini_hochberg(p) <= 0.05).sum() == 4
    assert (holm(p) <= 0.05).sum() == 3
    assert (bonferroni(p) <= 0.05).sum() == 3
    # by hand: 4th = 0.0095 x 15 / 4 = 0.035625; 5th = min over j >= 5 of 15 p_j / j:
    # 0.0603, 0.0695, 0.06385714, 0.0645, 0.0765, 0.486, ... -> 0.0603
    assert benjamini_hochberg(p)[3] == pytest.approx(0.035625, abs=1e-15)
    assert benjamini_hochberg(p)[4] == pytest.approx(0.0603, abs=1e-15)
    assert benjamini_hochberg(p)[5] == pytest.approx(0.0298 * 15 / 7, abs=1e-15)
    # Holm: 15 x 0.0001, 14 x 0.0004, 13 x 0.0019, 12 x 0.0095
    assert holm(p)[:4] == pytest.approx([0.0015, 0.0056, 0.0247, 0.114], abs=1e-15)


def test_corrections_keep_shape_nan_and_ties():
    p = np.array([[0.01, np.nan], [0.02, 0.02]])
    out = holm(p)
    assert out.shape == (2, 2) and np.isnan(out[0, 1])
    # the family is the three non-NaN values: 3 x .01, then max(.03, 2 x .02) for both ties
    assert out[0, 0] == pytest.approx(0.03) and out[1, 0] == out[1, 1] == pytest.approx(0.04)
    assert bonferroni(p)[1, 1] == pytest.approx(0.06)
    assert benjamini_hochberg([0.5, 0.5, 0.5]).tolist() == [0.5, 0.5, 0.5]
    assert holm([]).shape == (0,)
    assert bonferroni([0.9, 0.8]).tolist() == [1.0, 1.0]


def test_adjust_dispatches_and_validates():
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust(p, "holm").tolist() == holm(p).tolist()
    assert adjust(p, "BH").tolist() == benjamini_hochberg(p).tolist()
    assert adjust(p, "fdr_bh").tolist() == benjamini_hochberg(p).tolist()
    assert adjust(p, None).tolist() == p
    assert adjust(p, "none").tolist() == p
    with pytest.raises(ValueError, match="unknown correction"):
        adjust(p, "sidak")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.5, 1.5])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_correction_properties(values):
    p = np.array(values)
    b, h, f = bonferroni(p), holm(p), benjamini_hochberg(p)
    for adjusted in (b, h, f):
        assert np.all(adjusted >= p - 1e-15) and np.all(adjusted <= 1.0)
        # monotone: a smaller raw p never gets a larger adjusted p
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adjusted[order]) >= -1e-15)
    # BH <= Holm <= Bonferroni: (i-1)(m-i) >= 0 gives m/i <= m-i+1
    assert np.all(f <= h + 1e-15) and np.all(h <= b + 1e-15)
    # permuting the input permutes the output
    shuffle = np.random.default_rng(len(values)).permutation(p.size)
    assert np.allclose(holm(p[shuffle]), h[shuffle], rtol=0, atol=1e-15)


# --------------------------------------------------------------------------------------
# The studentized range and classical Tukey HSD


def test_studentized_range_sf_matches_scipy():
    q = np.array([0.3, 1.5, 3.0, 4.5, 7.0])
    worst = 0.0
    for k in (2, 3, 7, 25):
        for df in (1, 4, 30, 500):
            mine = studentized_range_sf(q, k, df)
            reference = stats.studentized_range.sf(q, k, df)
            worst = max(worst, float(np.abs(mine - reference).max()))
    assert worst < 1e-10


def test_studentized_range_sf_edges():
    out = studentized_range_sf([0.0, np.inf, np.nan, 1e-15], 4, 10)
    assert out[0] == 1.0 and out[1] == 0.0 and np.isnan(out[2]) and out[3] == 1.0
    # k = 2: Q = sqrt(2) |T| with T ~ t(df), so P(Q > q) = 2 P(T > q / sqrt 2)
    q = np.array([0.5, 2.0, 6.0])
    expected = 2 * stats.t.sf(q / math.sqrt(2), 7)
    assert studentized_range_sf(q, 2, 7) == pytest.approx(expected, abs=1e-12)
    assert studentized_range_sf(np.ones((2, 3)), 3, 5).shape == (2, 3)
    with pytest.raises(ValueError):
        studentized_range_sf(1.0, 1, 5)
    with pytest.raises(ValueError):
        studentized_range_sf(1.0, 3, 0)


def test_one_way_tukey_matches_scipy():
    rng = np.random.default_rng(7)
    for systems, queries in ((5, 12), (12, 6)):
        scores = rng.normal(0.0, 1.0, (systems, queries)) + rng.normal(0, 0.7, (systems, 1))
        ours = tukey_hsd(scores, model="one-way")
        theirs = stats.tukey_hsd(*scores)
        a, b = ours.first, ours.second
        assert np.abs(ours.p_value - theirs.pvalue[a, b]).max() < 1e-10
        assert np.abs(ours.difference - theirs.statistic[a, b]).max() < 1e-12
        # scipy's statistic is the mean difference; q = |difference| / standard error
        q = np.abs(theirs.statistic[a, b]) / theirs._stand_err
        assert ours.statistic == pytest.approx(q, rel=1e-12)


# Two-way by hand on 3 systems x 4 queries:
#   s0: 1 2 4  5   mean 3        query means 2 3 4 7, grand mean 4
#   s1: 2 4 4  6   mean 4        residual x - system - query + grand:
#   s2: 3 3 4 10   mean 5          s0: 0  0  1 -1   s1: 0  1  0 -1   s2: 0 -1 -1  2
# SS = 2 + 2 + 6 = 10, df = (3-1)(4-1) = 6, MSE = 10/6, SE = sqrt(MSE / 4) = sqrt(5/12);
# q = |difference| / SE: s0-s1 1/sqrt(5/12), s0-s2 2/sqrt(5/12), s1-s2 1/sqrt(5/12).
# One-way: within SS = (4+1+1+4) + (4+0+0+4) + (4+4+1+25) = 52, df = 3 x 3 = 9.
TWO_WAY = np.array([[1, 2, 4, 5], [2, 4, 4, 6], [3, 3, 4, 10]], dtype=float)


def test_two_way_tukey_by_hand():
    result = tukey_hsd(TWO_WAY, names=["s0", "s1", "s2"])
    assert result.info["df"] == 6
    assert result.info["mse"] == pytest.approx(10 / 6, rel=1e-15)
    se = math.sqrt(5 / 12)
    q = np.array([1 / se, 2 / se, 1 / se])
    assert result.statistic == pytest.approx(q, rel=1e-14)
    assert result.difference.tolist() == [-1.0, -2.0, -1.0]
    # the studentized range distribution itself from scipy
    assert np.abs(result.p_value - stats.studentized_range.sf(q, 3, 6)).max() < 1e-10

    one_way = tukey_hsd(TWO_WAY, model="one-way")
    assert one_way.info["df"] == 9 and one_way.info["mse"] == pytest.approx(52 / 9)
    q1 = np.array([1, 2, 1]) / math.sqrt(52 / 9 / 4)
    assert np.abs(one_way.p_value - stats.studentized_range.sf(q1, 3, 9)).max() < 1e-10
    # removing the query effect makes the test sharper here
    assert np.all(result.p_value < one_way.p_value)


def test_tukey_with_zero_error_and_bad_input():
    additive = np.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])  # no residual
    result = tukey_hsd(additive)
    assert result.info["mse"] < 1e-30
    assert result.p_value[0] == 0.0 and result.p_value[2] == 0.0  # s0-s1, s1-s2 differ
    assert result.p_value[1] == 1.0  # s0 and s2 are identical
    with pytest.raises(ValueError, match="2 queries"):
        tukey_hsd(np.ones((3, 1)))
    with pytest.raises(ValueError, match="model"):
        tukey_hsd(TWO_WAY, model="three-way")


def test_classical_tukey_is_fast_for_100_systems():
    scores = np.random.default_rng(3).random((100, 250))
    result = tukey_hsd(scores)
    # spot-check the fast studentized range against scipy's at a few pairs
    some = np.array([0, 1000, 2500, 4949])
    reference = stats.studentized_range.sf(result.statistic[some], 100, result.info["df"])
    assert np.abs(result.p_value[some] - reference).max() < 1e-10


# --------------------------------------------------------------------------------------
# Randomized Tukey HSD


def exact_randomized_tukey(scores: np.ndarray) -> np.ndarray:
    """Exact permutation p-values: all (k!)^n within-query arrangements, integer sums."""
    systems, queries = scores.shape
    sums = scores.sum(axis=1)
    per_query = [list(itertools.permutations(scores[:, j])) for j in range(queries)]
    ranges = []
    for arrangement in itertools.product(*per_query):
        totals = np.sum(arrangement, axis=0)
        ranges.append(totals.max() - totals.min())
    ranges = np.array(ranges)
    first, second = np.triu_indices(systems, k=1)
    return np.array(
        [np.mean(ranges >= abs(sums[a] - sums[b])) for a, b in zip(first, second, strict=True)]
    )


# integer scores: sums and their ranges compare exactly; 3 systems x 3 queries give
# (3!)^3 = 216 arrangements.  The third query ties two systems.
SMALL = np.array([[1, 2, 0], [2, 5, 1], [4, 6, 1]], dtype=float)


@pytest.mark.parametrize("block", [None, 4])
def test_randomized_tukey_matches_exact_enumeration(monkeypatch, block):
    if block is not None:  # force the query-blocked path (one query per block)
        monkeypatch.setattr(multiple, "_PERMUTATION_BLOCK", block)
    exact = exact_randomized_tukey(SMALL)
    assert 0.0 < exact.min() and exact.max() < 1.0
    # 10^5 trials; the blocked path draws one permutation per chunk, slower: 2 x 10^4
    b = 100_000 if block is None else 20_000
    result = randomized_tukey_hsd(SMALL, permutations=b, seed=11)
    error = 4.0 * np.sqrt(exact * (1.0 - exact) / b)
    assert np.all(np.abs(result.p_value - exact) <= error), (result.p_value, exact)
    assert np.isnan(result.statistic).all() and np.isnan(result.p_unadjusted).all()


def test_randomized_tukey_counts_ties_of_means():
    # means 1/3, 2/3, 1 (not exact in binary): the permuted range equals the observed
    # difference in exact arithmetic on many arrangements, which must count
    scores = np.array([[0, 1, 0], [1, 0, 1], [1, 1, 1]], dtype=float)
    exact = exact_randomized_tukey(scores)
    result = randomized_tukey_hsd(scores, permutations=50_000, seed=5)
    assert np.all(np.abs(result.p_value - exact) <= 4 * np.sqrt(exact * (1 - exact) / 50_000))


def test_randomized_tukey_is_deterministic():
    scores = np.random.default_rng(0).random((6, 40))
    one = randomized_tukey_hsd(scores, permutations=3000, seed=42, workers=1)
    two = randomized_tukey_hsd(scores, permutations=3000, seed=42, workers=2)
    again = randomized_tukey_hsd(scores, permutations=3000, seed=42)
    assert one.p_value.tolist() == two.p_value.tolist() == again.p_value.tolist()
    other = randomized_tukey_hsd(scores, permutations=3000, seed=43)
    assert other.p_value.tolist() != one.p_value.tolist()
    plus_one = randomized_tukey_hsd(scores, permutations=3000, seed=42, include_observed=True)
    assert plus_one.p_value == pytest.approx((one.p_value * 3000 + 1) / 3001, rel=1e-12)
    sequence = randomized_tukey_hsd(scores, permutations=3000, seed=np.random.SeedSequence(42))
    assert sequence.p_value.tolist() == one.p_value.tolist()


def test_randomized_tukey_separates_clear_differences():
    rng = np.random.default_rng(1)
    difficulty = rng.random(50)
    scores = np.clip(
        difficulty + np.array([[0.0], [0.0], [0.3]]) + rng.normal(0, 0.05, (3, 50)), 0, 2
    )
    result = randomized_tukey_hsd(scores, names=["x", "y", "z"])
    assert result.significant.tolist() == [False, True, True]
    assert result.letters == {"x": "b", "y": "b", "z": "a"}
    assert result.better_than("z") == [0, 1] and result.better_than(0) == []
    identical = randomized_tukey_hsd(np.ones((3, 5)), permutations=100)
    assert identical.p_value.tolist() == [1.0, 1.0, 1.0]


# --------------------------------------------------------------------------------------
# Pairwise tests


@pytest.fixture(scope="module")
def four_systems() -> np.ndarray:
    rng = np.random.default_rng(2024)
    base = rng.random(30)
    shift = np.array([[0.0], [0.02], [0.1], [0.1]])
    return np.round(base + shift + rng.normal(0, 0.08, (4, 30)), 3)


def test_paired_t_matches_scipy(four_systems):
    result = pairwise_tests(four_systems, test="t", correction=None)
    for index, (a, b) in enumerate(zip(result.first, result.second, strict=True)):
        reference = stats.ttest_rel(four_systems[a], four_systems[b])
        assert result.statistic[index] == pytest.approx(reference.statistic, rel=1e-12)
        assert result.p_value[index] == pytest.approx(reference.pvalue, rel=1e-10, abs=1e-15)
    assert result.p_value.tolist() == result.p_unadjusted.tolist()


def test_wilcoxon_and_sign_match_scipy(four_systems):
    scores = four_systems.copy()
    scores[1, :4] = scores[0, :4]  # zero differences
    wilcoxon = pairwise_tests(scores, test="wilcoxon", correction=None)
    sign = pairwise_tests(scores, test="sign", correction=None)
    for index, (a, b) in enumerate(zip(wilcoxon.first, wilcoxon.second, strict=True)):
        reference = stats.wilcoxon(scores[a], scores[b])
        assert wilcoxon.p_value[index] == pytest.approx(reference.pvalue, rel=1e-12)
        assert wilcoxon.statistic[index] == reference.statistic
        wins = int(np.sum(scores[a] > scores[b]))
        losses = int(np.sum(scores[a] < scores[b]))
        expected = stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert sign.p_value[index] == pytest.approx(expected, rel=1e-12)
        assert sign.statistic[index] == wins


def test_wilcoxon_over_50_queries_matches_scipy():
    rng = np.random.default_rng(8)
    scores = np.round(rng.random((4, 60)) + np.array([[0], [0.05], [0.1], [0.1]]), 2)
    scores[2, :5] = scores[3, :5]  # zeros and ties: still the normal approximation
    result = pairwise_tests(scores, test="wilcoxon", correction=None)
    for index, (a, b) in enumerate(zip(result.first, result.second, strict=True)):
        reference = stats.wilcoxon(scores[a], scores[b])
        assert result.p_value[index] == pytest.approx(reference.pvalue, rel=1e-12)


def test_corrections_are_applied_over_the_pairs(four_systems):
    raw = pairwise_tests(four_systems, test="t", correction=None)
    for name, function in (("holm", holm), ("bonferroni", bonferroni), ("bh", benjamini_hochberg)):
        result = pairwise_tests(four_systems, test="t", correction=name)
        assert result.p_value.tolist() == function(raw.p_value).tolist()
        assert result.p_unadjusted.tolist() == raw.p_value.tolist()


def test_randomization_test_matches_exact_enumeration():
    d = np.array([2, 4, -1, 6, 3, -2, 5, 1], dtype=float)  # 2^8 = 256 sign vectors
    base = np.arange(8, dtype=float)
    scores = np.vstack([base + d, base, base])
    signs = np.array(list(itertools.product([-1, 1], repeat=8)))
    exact = np.mean(np.abs(signs @ d) >= abs(d.sum()))  # = 10/256
    b = 40_000
    result = pairwise_tests(scores, test="randomization", correction=None, permutations=b, seed=3)
    assert abs(result.p_value[0] - exact) <= 4 * math.sqrt(exact * (1 - exact) / b)
    assert result.p_value[1] == pytest.approx(result.p_value[0])  # same signs, same |d|
    assert result.p_value[2] == 1.0  # identical systems
    again = pairwise_tests(scores, test="randomization", correction=None, permutations=b, seed=3)
    assert again.p_value.tolist() == result.p_value.tolist()


def test_identical_systems_are_not_different():
    scores = np.array([[0.1, 0.5, 0.3], [0.1, 0.5, 0.3], [0.2, 0.4, 0.9]])
    for test in names("paired"):
        result = pairwise_tests(scores, test=test, permutations=500)
        assert result.p_unadjusted[0] == 1.0, test
    with pytest.raises(ValueError, match="unknown test"):
        pairwise_tests(scores, test="anova")


# --------------------------------------------------------------------------------------
# Compact letters


def test_compact_letters_by_hand():
    # means 4 > 3 > 2 > 1; significant: A-C, A-D, B-D.  Non-significant groups (maximal):
    # {A, B}, {B, C}, {C, D} -> A a, B ab, C bc, D c
    sig = np.zeros((4, 4), dtype=bool)
    for a, b in ((0, 2), (0, 3), (1, 3)):
        sig[a, b] = True
    assert compact_letters("ABCD", [4, 3, 2, 1], sig) == {"A": "a", "B": "ab", "C": "bc", "D": "c"}
    # nothing significant: one letter; everything significant: one letter each, by mean
    assert compact_letters("XYZ", [1, 2, 3], np.zeros((3, 3))) == {"X": "a", "Y": "a", "Z": "a"}
    full = ~np.eye(3, dtype=bool)
    assert compact_letters("XYZ", [1, 3, 2], full) == {"X": "c", "Y": "a", "Z": "b"}
    # not an interval pattern: only X-Y significant -> groups {X, Z} and {Y, Z}
    only = np.zeros((3, 3), dtype=bool)
    only[1, 0] = True  # one triangle is enough
    assert compact_letters("XYZ", [3, 2, 1], only) == {"X": "a", "Y": "b", "Z": "ab"}
    # input order is kept, letters follow the means
    assert compact_letters(["low", "high"], [0.1, 0.9], full[:2, :2]) == {"low": "b", "high": "a"}


def maximal_groups(significant: np.ndarray) -> set[frozenset[int]]:
    k = len(significant)
    free = [
        frozenset(c)
        for r in range(1, k + 1)
        for c in itertools.combinations(range(k), r)
        if not any(significant[a, b] for a, b in itertools.combinations(c, 2))
    ]
    return {g for g in free if not any(g < other for other in free)}


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 7).flatmap(lambda k: st.tuples(
    st.just(k),
    st.lists(st.booleans(), min_size=k * k, max_size=k * k),
    st.permutations(list(range(k))),
)))  # fmt: skip
def test_compact_letters_are_the_maximal_groups(case):
    k, bits, ranking = case
    significant = np.array(bits).reshape(k, k)
    significant = np.triu(significant, 1)
    significant = significant | significant.T
    names = [f"n{i}" for i in range(k)]
    letters = compact_letters(names, np.array(ranking, dtype=float), significant)
    groups = {
        frozenset(i for i in range(k) if ch in letters[names[i]]) for ch in string.ascii_letters
    }
    groups.discard(frozenset())
    assert groups == maximal_groups(significant)
    best = int(np.argmax(ranking))
    assert "a" in letters[names[best]]


def test_letter_labels_go_past_the_alphabet():
    labels = letter_labels(60)
    assert labels[:3] == ["a", "b", "c"] and labels[26] == "A" and labels[51] == "Z"
    assert labels[52:55] == ["aa", "ab", "ac"] and len(set(labels)) == 60
    # 60 systems, all different: 60 groups, comma-separated beyond 52
    k = 60
    letters = compact_letters(
        [str(i) for i in range(k)], np.arange(k, 0, -1), ~np.eye(k, dtype=bool)
    )
    assert letters["0"] == "a" and letters["52"] == "aa"


# --------------------------------------------------------------------------------------
# The result object and input


def test_result_table_and_matrices():
    result = pairwise_tests({"x": [0.1, 0.2, 0.3], "y": [0.4, 0.6, 0.5], "z": [0.1, 0.3, 0.2]})
    assert isinstance(result, PairwiseResult)
    table = result.to_frame(output="dict")
    assert list(table) == [
        "system_a", "system_b", "mean_a", "mean_b", "difference", "statistic", "p_value",
        "p_unadjusted", "significant",
    ]  # fmt: skip
    assert table["system_a"] == ["x", "x", "y"] and table["system_b"] == ["y", "z", "z"]
    assert table["difference"] == pytest.approx([-0.3, 0.0, 0.3])
    p = result.p_matrix()
    assert np.allclose(p, p.T) and np.all(np.diag(p) == 1.0)
    assert (result.significant_matrix() == result.significant_matrix().T).all()
    assert "3 systems" in repr(result)
    frame = result.to_frame()  # pandas
    assert list(frame["system_a"]) == ["x", "x", "y"]
    assert result.to_frame(output="polars").height == 3


def test_input_validation():
    matrix, names = as_score_matrix([[1, 2], [3, 4]])
    assert names == ["s0", "s1"] and matrix.dtype == np.float64
    with pytest.raises(ValueError, match="2 systems"):
        as_score_matrix([[1, 2, 3]])
    with pytest.raises(ValueError, match="finite"):
        as_score_matrix([[1, np.nan], [1, 2]])
    with pytest.raises(ValueError, match="names"):
        as_score_matrix([[1, 2], [3, 4]], names=["a"])
    with pytest.raises(ValueError, match="distinct"):
        as_score_matrix([[1, 2], [3, 4]], names=["a", "a"])
    with pytest.raises(ValueError, match="same queries"):
        as_score_matrix({"a": [1, 2], "b": [1]})
    with pytest.raises(ValueError, match="systems x queries"):
        as_score_matrix(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="alpha"):
        pairwise_tests([[1, 2], [3, 4]], alpha=1.5)
    with pytest.raises(ValueError, match="permutations"):
        randomized_tukey_hsd([[1, 2], [3, 4]], permutations=0)
    with pytest.raises(ValueError, match="unknown method"):
        compare([[1, 2], [3, 4]], "anova")


def test_compare_dispatches():
    scores = TWO_WAY
    assert compare(scores, "tukey").method == "Tukey HSD (two-way)"
    assert compare(scores, "tukey-one-way").method == "Tukey HSD (one-way)"
    assert compare(scores, "randomized-tukey", permutations=200).info["permutations"] == 200
    assert compare(scores, "sign", correction="bonferroni").info["correction"] == "bonferroni"


# --------------------------------------------------------------------------------------
# LaTeX

# AP: d(rm3 - bm25) = .02 .02 .03 .01 .02 (t = 6.3), d(dense - bm25) = .21 .18 .22 .21 .18
# (t = 23.9), d(dense - rm3) = .19 .16 .19 .20 .16 (t = 21.5): all three significant after
# Holm.  nDCG@10 (binary fractions, so the tied means are exactly equal): bm25 - dense
# = 1/8 1/8 1/8 1/4 1/8 (t = 6.0, p = .0039, Holm x3 = .012: significant), rm3 - dense
# (t = 3.21, p = .033, Holm x2 = .065: not), bm25 - rm3 (mean 0: not).
LATEX_NAMES = ["bm25", "bm25_rm3", "dense"]
LATEX_MEASURES = {
    "AP": np.array(
        [
            [0.10, 0.20, 0.30, 0.40, 0.50],
            [0.12, 0.22, 0.33, 0.41, 0.52],
            [0.31, 0.38, 0.52, 0.61, 0.68],
        ]
    ),
    "nDCG@10": np.array(
        [
            [0.5, 0.625, 0.75, 0.875, 1.0],
            [0.625, 0.5, 0.875, 0.75, 1.0],
            [0.375, 0.5, 0.625, 0.625, 0.875],
        ]
    ),
}

LATEX_EXPECTED = r"""\begin{table}[t]
\centering
\caption{Mean over 5 queries. A superscript lists the systems (\#) that this system is
significantly better than (paired t-test, Holm correction; $p \le 0.05$). Bold: the best
system per measure.}
\begin{tabular}{clll}
\toprule
\# & System & AP & nDCG@10 \\
\midrule
a & bm25 & 0.3000 & \textbf{0.7500}$^{c}$ \\
b & bm25\_rm3 & 0.3200$^{a}$ & \textbf{0.7500} \\
c & dense & \textbf{0.5000}$^{ab}$ & 0.6000 \\
\bottomrule
\end{tabular}
\end{table}
"""


def test_latex_table_exact():
    # the significance pattern, from scipy and Holm by hand
    for measure, expected in (("AP", [True, True, True]), ("nDCG@10", [False, True, False])):
        m = LATEX_MEASURES[measure]
        raw = [stats.ttest_rel(m[a], m[b]).pvalue for a, b in ((0, 1), (0, 2), (1, 2))]
        order = np.argsort(raw)
        holm_p = np.maximum.accumulate(np.array(raw)[order] * [3, 2, 1])
        decided = np.empty(3, dtype=bool)
        decided[order] = holm_p <= 0.05
        assert decided.tolist() == expected, measure
    assert latex_table(LATEX_NAMES, LATEX_MEASURES) == LATEX_EXPECTED


def balanced(text: str) -> bool:
    depth = 0
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def test_latex_table_options():
    text = latex_table(
        LATEX_NAMES,
        LATEX_MEASURES,
        test="randomized-tukey",
        permutations=2000,
        best_bold=False,
        caption="Runs on {Robust04}.",
        label="tab:x",
    )
    assert balanced(text) and text.count("$") % 2 == 0
    assert r"\caption{Runs on {Robust04}. Mean over 5 queries." in text
    assert "randomized Tukey HSD, 2000 permutations" in text and "Holm" not in text
    assert r"\textbf" not in text and r"\label{tab:x}" in text
    tukey = latex_table(LATEX_NAMES, LATEX_MEASURES, test="tukey", digits=2)
    assert "Tukey HSD, two-way ANOVA" in tukey and "& 0.30" in tukey
    bh = latex_table(LATEX_NAMES, LATEX_MEASURES, correction="bh", alpha=0.01)
    assert r"Benjamini--Hochberg correction; $p \le 0.01$" in bh
    assert latex_escape("a_b & 50% #1 {x} ~^\\") == (
        r"a\_b \& 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{}"
    )
    with pytest.raises(ValueError, match="matrix"):
        latex_table(["a", "b"], {"AP": np.ones((3, 4))})
    with pytest.raises(ValueError, match="unknown test"):
        latex_table(["a", "b"], {"AP": np.ones((2, 4))}, test="z")
    with pytest.raises(ValueError, match="no measures"):
        latex_table(["a", "b"], {})


def test_docstring_examples():
    for module in (corrections, multiple, letters, latex):
        assert doctest.testmod(module).failed == 0, module.__name__
