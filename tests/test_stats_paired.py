"""Each paired test exists once (rankscope.stats.paired): every public path that runs it gives
the same p-value on the same data, degenerate input included.

The paths: ``rankscope.stats.paired_t`` / ``wilcoxon`` / ``sign_test`` /
``permutation_test`` / ``paired_bootstrap`` (two systems, or their differences),
``pairwise_tests`` and ``compare`` (every pair of systems), ``paired_t_pvalues`` and
``discriminative_power`` (meta-evaluation), and the interleaving ``sign_test`` (counts).
Values are checked against independent oracles: scipy.stats (ttest_rel, wilcoxon,
binomtest), sign flips enumerated with itertools, and the exact law of a sum of integer
differences with random signs, computed here by convolution.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from rankscope import interleaving, stats
from rankscope.errors import UsageError
from rankscope.report.latex import latex_table
from rankscope.stats import meta, multiple, paired, procedures

ALTERNATIVES = ["two-sided", "greater", "less"]


def pair_result(a, b, test, **options):
    """``pairwise_tests`` on the two systems [a, b]: (p_unadjusted, statistic) of the pair."""
    result = procedures.pairwise_tests(np.vstack([a, b]), test=test, correction=None, **options)
    return result.p_unadjusted[0], result.statistic[0]


def every_path(a, b, test, *, permutations=2000, seed=7):
    """The p-value of the two-sided ``test`` on systems a and b, by every public path."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    options = {"permutations": permutations, "seed": seed}
    single = {
        "t": lambda x, y=None: stats.paired_t(x, y),
        "wilcoxon": lambda x, y=None: stats.wilcoxon(x, y),
        "sign": lambda x, y=None: stats.sign_test(x, y),
        "randomization": lambda x, y=None: stats.permutation_test(x, y, **options),
        "bootstrap": lambda x, y=None: stats.paired_bootstrap(
            x, y, samples=permutations, seed=seed
        ),
    }[test]
    scores = np.vstack([a, b])
    paths = {
        "tests(a, b)": single(a, b).p_value,
        "tests(b, a)": single(b, a).p_value,
        "tests(b - a)": single(b - a).p_value,
        "tests 2-D row": single(np.vstack([b - a, a - b])).p_value[0],
        "pairwise_tests": pair_result(a, b, test, **options)[0],
        "pairwise_tests(b, a)": pair_result(b, a, test, **options)[0],
        "compare": procedures.compare(scores, test, correction=None, **options).p_unadjusted[0],
    }
    if test == "t":
        paths["paired_t_pvalues"] = meta.paired_t_pvalues((a - b)[None, :])[0]
        paths["paired.t_test"] = paired.t_test(b - a).p_value[0]
    if test == "sign":
        wins, losses = int((b > a).sum()), int((b < a).sum())
        paths["interleaving.sign_test"] = interleaving.sign_test(wins, losses)
        paths["interleaving.sign_test swapped"] = interleaving.sign_test(losses, wins)
    return paths


def assert_one_value(paths):
    values = set(paths.values())
    assert len(values) == 1, paths
    return values.pop()


def signed_sum_law(weights):
    """Exact law of Σ s_i w_i over independent fair signs s_i, for integer weights w_i:
    {sum: probability}, by convolution."""
    law = {0: 1.0}
    for weight in weights:
        grown: dict[int, float] = {}
        for total, probability in law.items():
            for signed in (weight, -weight):
                grown[total + signed] = grown.get(total + signed, 0.0) + probability / 2
        law = grown
    return law


def exact_randomization(integers, alternative="two-sided"):
    """Exact sign-flip p-value of the mean of integer differences (the identity included)."""
    law = signed_sum_law(np.abs(integers).astype(int).tolist())
    observed = int(np.sum(integers))
    if alternative == "greater":
        return sum(p for s, p in law.items() if s >= observed)
    if alternative == "less":
        return sum(p for s, p in law.items() if s <= observed)
    return sum(p for s, p in law.items() if abs(s) >= abs(observed))


def binomial_p(b, a):
    wins, losses = int((b > a).sum()), int((b < a).sum())
    if wins + losses == 0:
        return 1.0
    return scipy_stats.binomtest(wins, wins + losses).pvalue


# ------------------------------------------------------------------------- identical systems


@pytest.mark.parametrize("n", [2, 6, 30])
@pytest.mark.parametrize("test", procedures.names("paired"))
def test_identical_systems_give_p_one_on_every_path(n, test):
    same = np.linspace(0.1, 0.9, n)
    assert assert_one_value(every_path(same, same, test)) == 1.0


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_identical_systems_conventions(alternative):
    same = np.array([0.2, 0.5, 0.5, 0.9, 0.0])
    t = stats.paired_t(same, same, alternative)
    assert (t.statistic, t.p_value, t.mean_difference) == (0.0, 1.0, 0.0)
    assert math.isnan(t.effect_size)  # d_z = 0/0
    boot = stats.paired_bootstrap(same, same, alternative=alternative, samples=300)
    assert (boot.statistic, boot.p_value, boot.details["count"]) == (0.0, 1.0, 300)
    wilcoxon = stats.wilcoxon(same, same, alternative)
    assert (wilcoxon.statistic, wilcoxon.p_value) == (0.0, 1.0)
    assert stats.sign_test(same, same, alternative).p_value == 1.0
    for exact in (True, False):
        result = stats.permutation_test(
            same, same, alternative=alternative, exact=exact, permutations=99
        )
        assert result.p_value == 1.0
    assert procedures.pairwise_tests(np.vstack([same, same]), test="t").statistic[0] == 0.0
    assert meta.paired_t_pvalues(np.zeros((3, 4))).tolist() == [1.0, 1.0, 1.0]
    assert interleaving.sign_test(0, 0) == 1.0


# ---------------------------------------------------------------------- one differing query


@pytest.mark.parametrize("n", [2, 8, 13, 14, 30, 60])
def test_one_differing_query(n):
    a = np.linspace(0.1, 0.9, n)
    b = a.copy()
    b[n // 2] += 0.25
    d = b - a
    t = assert_one_value(every_path(a, b, "t"))
    oracle = scipy_stats.ttest_rel(b, a)
    assert t == pytest.approx(oracle.pvalue, rel=1e-12)
    assert stats.paired_t(a, b).statistic == pytest.approx(1.0, rel=1e-12)  # t = ±1 exactly
    wilcoxon = assert_one_value(every_path(a, b, "wilcoxon"))
    assert wilcoxon == pytest.approx(scipy_stats.wilcoxon(b, a).pvalue, rel=1e-12)
    assert assert_one_value(every_path(a, b, "sign")) == 1.0 == binomial_p(b, a)
    # every sign flip has |sum| = |d_i|: all as extreme, exact and Monte Carlo alike
    assert assert_one_value(every_path(a, b, "randomization")) == 1.0
    # one-sided: the flipped sums are ±0.25, half of them ≥ 0.25 and all ≤ 0.25
    assert stats.permutation_test(d, alternative="less").p_value == 1.0
    greater = stats.permutation_test(d, alternative="greater")
    if n <= paired.EXACT_MAX_QUERIES:
        assert greater.details["exact"] and greater.p_value == 0.5
    else:
        assert abs(greater.p_value - 0.5) < 4 * greater.details["mc_se"]


# ---------------------------------------------------------------- constant non-zero difference


@pytest.mark.parametrize("n", [4, 12, 25])
def test_constant_non_zero_difference(n):
    a = np.zeros(n)
    b = np.full(n, 0.25)
    t = stats.paired_t(a, b)
    assert t.statistic == math.inf and t.p_value == 0.0
    assert math.isinf(t.effect_size)
    assert assert_one_value(every_path(a, b, "t")) == 0.0
    assert stats.paired_t(a, b, "less").p_value == 1.0
    assert stats.paired_t(b, a).statistic == -math.inf
    sign = assert_one_value(every_path(a, b, "sign"))
    assert sign == pytest.approx(binomial_p(b, a), rel=1e-12)
    assert sign == pytest.approx(2.0 ** (1 - n), rel=1e-12)
    wilcoxon = assert_one_value(every_path(a, b, "wilcoxon"))
    assert wilcoxon == pytest.approx(scipy_stats.wilcoxon(b, a).pvalue, rel=1e-12)
    randomization = assert_one_value(every_path(a, b, "randomization", permutations=500))
    if n <= paired.EXACT_MAX_QUERIES:  # only the identity and the flip of every sign
        assert randomization == 2.0 / 2**n
    else:  # (count + 1)/(B + 1): none of 500 random flips (of 2^25) reaches |Σ d|
        assert randomization == 1 / 501
    boot = stats.paired_bootstrap(a, b, samples=200)
    assert boot.statistic == math.inf and boot.p_value == 1 / 201


# ---------------------------------------------------------------------------- random data


def random_pair(seed, n, discrete=False):
    rng = np.random.default_rng(seed)
    a = rng.beta(2, 3, size=n)
    b = np.clip(a + rng.normal(0.04, 0.12, size=n), 0, 1)
    if discrete:  # P@10-like: many ties and zero differences
        a, b = np.round(a, 1), np.round(b, 1)
    return a, b


@pytest.mark.parametrize("n", [6, 10, 16, 20, 21, 40, 75])
@pytest.mark.parametrize("discrete", [False, True])
def test_random_data_same_p_on_every_path_and_scipy(n, discrete):
    a, b = random_pair(n, n, discrete)
    t = assert_one_value(every_path(a, b, "t"))
    assert t == pytest.approx(scipy_stats.ttest_rel(b, a).pvalue, rel=1e-10)
    wilcoxon = assert_one_value(every_path(a, b, "wilcoxon"))
    assert wilcoxon == pytest.approx(scipy_stats.wilcoxon(b, a).pvalue, rel=1e-12)
    sign = assert_one_value(every_path(a, b, "sign"))
    assert sign == pytest.approx(binomial_p(b, a), rel=1e-12)
    assert_one_value(every_path(a, b, "randomization"))


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_swapping_the_systems_swaps_the_one_sided_alternatives(alternative):
    mirrored = {"two-sided": "two-sided", "greater": "less", "less": "greater"}[alternative]
    for n, discrete in ((9, True), (18, False), (40, True)):
        a, b = random_pair(n + 100, n, discrete)
        for function in (stats.paired_t, stats.wilcoxon, stats.sign_test):
            assert function(a, b, alternative).p_value == function(b, a, mirrored).p_value
        for function, options in (
            (stats.permutation_test, {"permutations": 1000, "seed": 2}),
            (stats.paired_bootstrap, {"samples": 500, "seed": 2}),
        ):
            forward = function(a, b, alternative=alternative, **options)
            backward = function(b, a, alternative=mirrored, **options)
            assert forward.p_value == backward.p_value


def test_randomization_against_the_exact_law_of_integer_sums():
    rng = np.random.default_rng(5)
    for n in (5, 12, 20):
        integers = rng.integers(-4, 7, size=n)
        for alternative in ALTERNATIVES:
            expected = exact_randomization(integers, alternative)
            # tenths: sums of 0.1, 0.2, ... are not exact in binary; the tolerance keeps ties
            result = stats.permutation_test(integers / 10, alternative=alternative)
            assert result.details["exact"]
            assert result.p_value == pytest.approx(expected, rel=1e-12), (n, alternative)
        a = rng.random(n)
        two_sided = exact_randomization(integers)
        p, _ = pair_result(a + integers / 10, a, "randomization")
        assert p == pytest.approx(two_sided, rel=1e-12)


@pytest.mark.parametrize("n", [25, 60])
def test_monte_carlo_randomization_same_seed_same_p(n):
    rng = np.random.default_rng(n)
    integers = rng.integers(-3, 5, size=n)
    a = rng.random(n)
    b = a + integers / 10
    expected = exact_randomization(integers)
    b_flips = 20_000
    single = stats.permutation_test(a, b, permutations=b_flips, seed=11)
    assert not single.details["exact"]
    assert single.p_value == (single.details["count"] + 1) / (b_flips + 1)
    assert abs(single.p_value - expected) <= 4 * math.sqrt(expected * (1 - expected) / b_flips)
    # pairwise_tests: the same flips from the same seed (an int or its SeedSequence), whatever
    # the other pairs
    scores = np.vstack([a, b, rng.random(n), rng.random(n)])
    for seed in (11, np.random.SeedSequence(11)):
        result = procedures.pairwise_tests(
            scores, test="randomization", correction=None, permutations=b_flips, seed=seed
        )
        assert result.p_unadjusted[0] == single.p_value
        assert result.info["exact"] is False and result.info["permutations"] == b_flips
    other = stats.permutation_test(a, b, permutations=b_flips, seed=12)
    assert other.details["count"] != single.details["count"]


def test_exact_randomization_by_brute_force_on_floats():
    a, b = random_pair(3, 11)
    d = b - a
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    expected = np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)
    assert assert_one_value(every_path(a, b, "randomization")) == pytest.approx(expected, rel=1e-12)


def test_pairwise_rows_equal_single_calls():
    rng = np.random.default_rng(9)
    for n in (12, 20, 35):
        scores = np.round(rng.random((6, n)), 1)
        scores[4] = scores[3]
        scores[5, 1:] = scores[0, 1:]
        for test, function in (
            ("t", stats.paired_t),
            ("wilcoxon", stats.wilcoxon),
            ("sign", stats.sign_test),
            ("randomization", lambda x, y: stats.permutation_test(x, y, permutations=999)),
        ):
            result = procedures.pairwise_tests(scores, test=test, correction=None, permutations=999)
            singles = [
                function(scores[i], scores[j]).p_value
                for i, j in zip(result.first, result.second, strict=True)
            ]
            assert result.p_unadjusted.tolist() == singles, (n, test)
            if test == "wilcoxon":
                batch = stats.wilcoxon(scores[result.second] - scores[result.first])
                assert batch.p_value.tolist() == singles
                low = np.minimum(batch.statistic, batch.details["w_minus"])
                assert result.statistic.tolist() == low.tolist()


def test_discriminative_power_runs_the_same_t_test():
    rng = np.random.default_rng(4)
    scores = rng.random((5, 15)) + np.linspace(0, 0.3, 5)[:, None]
    scores[1] = scores[0]
    i, j = np.triu_indices(5, 1)
    p = np.array([stats.paired_t(scores[b], scores[a]).p_value for a, b in zip(i, j, strict=True)])
    assert p[0] == 1.0  # identical systems
    expected = float((np.minimum(p * len(p), 1.0) < 0.05).mean())
    assert meta.discriminative_power(scores, test="t-bonferroni") == expected


def test_interleaving_sign_test_is_the_stats_sign_test():
    for wins, losses, ties in ((15, 3, 4), (0, 0, 5), (1, 0, 0), (40, 41, 2), (520, 480, 0)):
        differences = np.array([1.0] * wins + [-1.0] * losses + [0.0] * ties + [0.0, 0.0])
        expected = stats.sign_test(differences).p_value
        assert interleaving.sign_test(wins, losses) == expected
        assert paired.sign_p_value(wins, losses) == expected
    with pytest.raises(UsageError):
        paired.sign_p_value(-1, 3)


# ------------------------------------------------------------------------- fewer than 2


ONE_QUERY_CALLS = {
    "paired_t": lambda: stats.paired_t([0.5], [0.7]),
    "wilcoxon": lambda: stats.wilcoxon([0.5], [0.7]),
    "sign_test": lambda: stats.sign_test([0.2]),
    "permutation_test": lambda: stats.permutation_test([0.5], [0.7]),
    "permutation_test MC": lambda: stats.permutation_test([0.2], exact=False),
    "paired_bootstrap": lambda: stats.paired_bootstrap([0.5], [0.7]),
    "paired_t 2-D": lambda: stats.paired_t(np.zeros((3, 1))),
    "paired_t_pvalues": lambda: meta.paired_t_pvalues(np.ones((4, 1))),
    "discriminative_power": lambda: meta.discriminative_power(np.ones((3, 1))),
    "latex_table": lambda: latex_table(["a", "b"], {"AP": [[0.1], [0.2]]}),
    "t_test": lambda: paired.t_test([1.0]),
    "signed_rank_test": lambda: paired.signed_rank_test([1.0]),
    "sign_counts": lambda: paired.sign_counts([1.0]),
    "randomization_test": lambda: paired.randomization_test([1.0]),
    "bootstrap_test": lambda: paired.bootstrap_test([1.0]),
    **{
        f"pairwise_tests {test}": (
            lambda test=test: procedures.pairwise_tests([[1], [2]], test=test)
        )
        for test in procedures.names("paired")
    },
    **{
        f"compare {test}": (lambda test=test: procedures.compare([[1], [2], [3]], test))
        for test in procedures.names("paired")
    },
}


@pytest.mark.parametrize("call", ONE_QUERY_CALLS.values(), ids=list(ONE_QUERY_CALLS))
def test_fewer_than_two_queries_is_a_usage_error(call):
    with pytest.raises(UsageError, match="at least 2 queries"):
        call()


def test_validation_errors_are_usage_errors():
    for call in (
        lambda: stats.paired_t([1, 2, 3], alternative="bigger"),
        lambda: stats.paired_t([1, np.nan, 3]),
        lambda: stats.wilcoxon([1, 2, 3], zero_method="nope"),
        lambda: stats.permutation_test([1, 2, 3], exact=False, permutations=0),
        lambda: stats.paired_bootstrap([1, 2, 3], samples=0),
        lambda: stats.two_proportion_z(11, 10, 3, 10),
        lambda: procedures.pairwise_tests([[1, 2], [3, 4]], test="anova"),
        lambda: multiple.tukey_hsd([[1, 2], [3, 4]], model="three-way"),
        lambda: stats.holm([0.5, 1.5]),
        lambda: meta.paired_t_pvalues([[1.0, np.inf]]),
    ):
        with pytest.raises(UsageError):
            call()


def test_include_observed_is_deprecated_and_changes_nothing():
    scores = np.random.default_rng(1).random((3, 25))
    plain = procedures.pairwise_tests(scores, test="randomization", permutations=300)
    with pytest.warns(DeprecationWarning, match="include_observed"):
        old = procedures.pairwise_tests(
            scores, test="randomization", permutations=300, include_observed=True
        )
    assert old.p_value.tolist() == plain.p_value.tolist()


def test_tie_tolerance_is_one_constant_relative_to_the_mean_absolute_difference():
    assert paired.TIE_TOLERANCE == 1e-9
    # a flipped sum that differs from the observed one by less than 1e-9 · Σ|d| is a tie
    d = np.array([0.1, 0.2, -0.3, 0.4, 0.3, -0.2, 0.1, 0.5])
    assert (d[:3].sum()) != 0.0  # rounding: 0.1 + 0.2 − 0.3 is not 0 in binary
    integers = np.rint(d * 10).astype(int)
    for alternative in ALTERNATIVES:
        expected = exact_randomization(integers, alternative)
        assert stats.permutation_test(d, alternative=alternative).p_value == pytest.approx(
            expected, rel=1e-12
        )


def test_latex_caption_says_how_the_randomization_test_was_run():
    rng = np.random.default_rng(3)
    few, many = rng.random((3, 8)), rng.random((3, 30))
    names = ["a", "b", "c"]

    def caption(measures):
        text = latex_table(names, measures, test="randomization", permutations=500)
        return " ".join(text.split("\\caption{")[1].split("}\n")[0].split())

    assert "randomization test, all sign flips, Holm" in caption({"AP": few})
    assert "randomization test, 500 permutations, Holm" in caption({"AP": many})
    assert "all sign flips up to 20 queries, else 500 permutations" in caption(
        {"AP": few, "nDCG": many}
    )
