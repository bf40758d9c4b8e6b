"""`rankscope.experiment.analyse`, every number against an independent oracle on seeded data:
scipy's and statsmodels' tests, corrections and ANOVA, and hand computations of CUPED's θ,
post-stratification, the delta method, Fieller's interval and the mixture SPRT."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.oneway import anova_oneway
from statsmodels.stats.proportion import proportions_ztest

from rankscope.errors import UsageError
from rankscope.experiment import analyse
from rankscope.experiment.results import BETTER, NO_DIFFERENCE, WITHHELD, WORSE
from rankscope.model import Experiment
from rankscope.model.vocabulary import Vocabulary
from rankscope.stats.procedures import names

Z95 = stats.norm.ppf(0.975)


def experiment(labels, metrics, **more) -> Experiment:
    """An experiment of one unit per label (the variants in order of first appearance)."""
    variants = Vocabulary()
    codes = np.asarray(variants.intern_many(list(labels)), dtype=np.int32)
    return Experiment(variants=variants, variant=codes,
                      metrics={k: np.asarray(v, dtype=float) for k, v in metrics.items()},
                      **more)  # fmt: skip


def two_arms(seed=1, n=(400, 420), shift=0.3):
    rng = np.random.default_rng(seed)
    a, b = rng.lognormal(1, 0.6, n[0]), rng.lognormal(1, 0.6, n[1]) + shift
    labels = ["treatment"] * n[1] + ["control"] * n[0]  # the control is not first in code order
    return a, b, experiment(labels, {"revenue": np.concatenate([b, a])})


def fieller(mean_a, var_a, mean_b, var_b, z=Z95):
    """Fieller's interval of μ_b/μ_a by the quadratic's roots, written out."""
    qa = mean_a**2 - z**2 * var_a
    qb = -2 * mean_a * mean_b
    qc = mean_b**2 - z**2 * var_b
    root = math.sqrt(qb**2 - 4 * qa * qc)
    return (-qb - root) / (2 * qa), (-qb + root) / (2 * qa)


def test_welch_difference_interval_lift_and_decision_match_scipy():
    a, b, exp = two_arms()
    result = analyse(exp)
    assert result.control == "control" and result.variants == ("control", "treatment")
    (effect,) = result.effects
    oracle = stats.ttest_ind(b, a, equal_var=False)
    interval = oracle.confidence_interval(0.95)
    assert effect.test == "welch" and effect.kind == "mean"
    assert effect.statistic == pytest.approx(oracle.statistic, rel=1e-12)
    assert effect.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert effect.adjusted_p == effect.p_value
    assert (effect.low, effect.high) == pytest.approx((interval.low, interval.high), rel=1e-10)
    assert effect.difference == pytest.approx(b.mean() - a.mean(), rel=1e-12)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    low, high = fieller(a.mean(), va, b.mean(), vb)
    assert effect.lift == pytest.approx(b.mean() / a.mean() - 1, rel=1e-12)
    assert (effect.lift_low, effect.lift_high) == pytest.approx((low - 1, high - 1), rel=1e-9)
    assert effect.decision == (BETTER if oracle.pvalue < 0.05 else NO_DIFFERENCE)
    assert effect.decision == BETTER  # a shift of 0.3 on 400 units is found
    assert (effect.control_units, effect.variant_units) == (400, 420)
    arms = {arm.variant: arm for arm in result.arms}
    assert arms["control"].value == pytest.approx(a.mean()) and arms["control"].units == 400
    assert arms["treatment"].sd == pytest.approx(b.std(ddof=1), rel=1e-12)
    assert arms["treatment"].total == pytest.approx(b.sum(), rel=1e-12)


def test_delta_lift_interval_and_student_and_mann_whitney():
    a, b, exp = two_arms(seed=2)
    (delta,) = analyse(exp, lift_interval="delta").effects
    lift = b.mean() / a.mean() - 1
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(vb / a.mean() ** 2 + b.mean() ** 2 * va / a.mean() ** 4)
    assert (delta.lift_low, delta.lift_high) == pytest.approx((lift - Z95 * se, lift + Z95 * se))
    (student,) = analyse(exp, tests=["student-t"]).effects
    assert student.test == "student"
    assert student.p_value == pytest.approx(stats.ttest_ind(b, a).pvalue, rel=1e-9)
    (ranks,) = analyse(exp, tests="mwu").effects
    assert ranks.p_value == pytest.approx(stats.mannwhitneyu(b, a).pvalue, rel=1e-9)
    assert ranks.statistic == pytest.approx(stats.mannwhitneyu(b, a).statistic)


def proportions(seed=3, n=(3000, 3000, 3000), rates=(0.10, 0.115, 0.09)):
    rng = np.random.default_rng(seed)
    arms = [(rng.random(k) < p).astype(float) for k, p in zip(n, rates, strict=True)]
    labels = sum(([name] * k for name, k in zip(("Control", "b", "c"), n, strict=True)), [])
    return arms, experiment(labels, {"converted": np.concatenate(arms)})


def test_proportions_use_the_z_test_holm_over_the_variants_and_the_r_by_c_chi_square():
    arms, exp = proportions()
    result = analyse(exp)
    assert result.control == "Control"  # any case
    p = []
    for effect, arm in zip(result.effects, arms[1:], strict=True):
        z, p_value = proportions_ztest([arm.sum(), arms[0].sum()], [len(arm), len(arms[0])])
        assert effect.kind == "proportion" and effect.test == "z"
        assert effect.statistic == pytest.approx(z, rel=1e-10)
        assert effect.p_value == pytest.approx(p_value, rel=1e-9)
        ra, rb = arms[0].mean(), arm.mean()
        se = math.sqrt(ra * (1 - ra) / len(arms[0]) + rb * (1 - rb) / len(arm))
        assert (effect.low, effect.high) == pytest.approx((rb - ra - Z95 * se, rb - ra + Z95 * se))
        p.append(p_value)
    holm = multipletests(p, method="holm")[1]
    assert [e.adjusted_p for e in result.effects] == pytest.approx(holm, rel=1e-12)
    assert [e.correction for e in result.effects] == ["holm", "holm"]
    for effect, q in zip(result.effects, holm, strict=True):
        expected = NO_DIFFERENCE if q >= 0.05 else BETTER if effect.difference > 0 else WORSE
        assert effect.decision == expected
    bh = analyse(exp, correction="fdr_bh")
    assert [e.adjusted_p for e in bh.effects] == pytest.approx(
        multipletests(p, method="fdr_bh")[1], rel=1e-12)
    (omnibus,) = result.omnibus
    table = [[arm.sum(), len(arm) - arm.sum()] for arm in arms]
    chi2, p_value, df, _ = stats.chi2_contingency(table)
    assert (omnibus.statistic, omnibus.df, omnibus.p_value) == pytest.approx((chi2, df, p_value))
    assert omnibus.df_denominator is None


def test_the_other_tests_of_rates():
    arms, exp = proportions(n=(200, 210, 190))
    fisher = analyse(exp, tests=["fisher"])
    for effect, arm in zip(fisher.effects, arms[1:], strict=True):
        table = [[arm.sum(), len(arm) - arm.sum()], [arms[0].sum(), len(arms[0]) - arms[0].sum()]]
        assert effect.p_value == pytest.approx(stats.fisher_exact(table).pvalue, rel=1e-9)
    yates = analyse(exp, tests=["yates"])
    for effect, arm in zip(yates.effects, arms[1:], strict=True):
        table = [[arms[0].sum(), len(arms[0]) - arms[0].sum()], [arm.sum(), len(arm) - arm.sum()]]
        assert effect.p_value == pytest.approx(stats.chi2_contingency(table).pvalue, rel=1e-9)


def test_several_arms_of_means_dunnett_and_welch_anova():
    rng = np.random.default_rng(4)
    groups = [rng.normal(5, 2, 150), rng.normal(5.6, 2.5, 160), rng.normal(4.9, 1.5, 140)]
    exp = experiment(["a"] * 150 + ["b"] * 160 + ["c"] * 140, {"time": np.concatenate(groups)})
    result = analyse(exp, baseline="a", correction="dunnett", seed=7)
    oracle = stats.dunnett(groups[1], groups[2], control=groups[0],
                           rng=np.random.default_rng(7))  # fmt: skip
    assert [e.adjusted_p for e in result.effects] == pytest.approx(oracle.pvalue, rel=1e-9)
    welch = [stats.ttest_ind(g, groups[0], equal_var=False).pvalue for g in groups[1:]]
    assert [e.p_value for e in result.effects] == pytest.approx(welch, rel=1e-9)
    assert {e.correction for e in result.effects} == {"dunnett"}
    (omnibus,) = result.omnibus
    anova = anova_oneway(groups, use_var="unequal")
    assert omnibus.statistic == pytest.approx(anova.statistic, rel=1e-10)
    assert omnibus.p_value == pytest.approx(anova.pvalue, rel=1e-9)
    assert (omnibus.df, omnibus.df_denominator) == pytest.approx(anova.df, rel=1e-10)


def test_cuped_theta_pooled_over_the_arms_and_the_variance_removed():
    rng = np.random.default_rng(5)
    n = 600
    pre = rng.normal(20, 5, n)
    arm = rng.random(n) < 0.5
    y = 0.8 * pre + rng.normal(0, 2, n) + 0.4 * arm
    exp = experiment(np.where(arm, "new", "control"), {"spend": y}, covariates={"spend": pre})
    (effect,) = analyse(exp).effects
    theta = np.sum((y - y.mean()) * (pre - pre.mean())) / np.sum((pre - pre.mean()) ** 2)
    adjusted = y - theta * (pre - pre.mean())
    oracle = stats.ttest_ind(adjusted[arm], adjusted[~arm], equal_var=False)
    assert effect.adjustment == "cuped" and effect.test == "welch"
    assert effect.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert effect.difference == pytest.approx(adjusted[arm].mean() - adjusted[~arm].mean())
    raw = y[arm].var(ddof=1) / arm.sum() + y[~arm].var(ddof=1) / (~arm).sum()
    kept = adjusted[arm].var(ddof=1) / arm.sum() + adjusted[~arm].var(ddof=1) / (~arm).sum()
    assert effect.variance_reduction == pytest.approx(1 - kept / raw, rel=1e-10)
    assert effect.variance_reduction > 0.7
    assert any(f"θ = {theta:.6g}" in note for note in analyse(exp).notes)
    (plain,) = analyse(exp, cuped=False).effects
    assert plain.adjustment is None and plain.variance_reduction is None
    assert plain.p_value == pytest.approx(stats.ttest_ind(y[arm], y[~arm], equal_var=False).pvalue)


def stratified(seed=6, n=900):
    rng = np.random.default_rng(seed)
    stratum = rng.integers(0, 3, n)
    arm = rng.random(n) < 0.5
    pre = rng.normal(10, 3, n) + 4 * stratum
    y = pre + 3 * stratum + rng.normal(0, 2, n) + 0.3 * arm
    strata = Vocabulary()
    codes = np.asarray(strata.intern_many([f"s{s}" for s in stratum]), dtype=np.int32)
    return stratum, arm, pre, y, strata, codes


def poststratified(values, stratum, arm):
    """Σ_s w_s ȳ_s and Σ_s w_s² s²_s/n_s, written out, w_s the pooled shares."""
    value = variance = 0.0
    for s in np.unique(stratum):
        weight = np.mean(stratum == s)
        inside = values[arm & (stratum == s)]
        value += weight * inside.mean()
        variance += weight**2 * inside.var(ddof=1) / len(inside)
    return value, variance


def test_post_stratification_alone_and_after_cuped():
    stratum, arm, pre, y, strata, codes = stratified()
    labels = np.where(arm, "b", "control")
    exp = experiment(labels, {"y": y}, strata=strata, stratum=codes)
    (effect,) = analyse(exp).effects
    va, vb = poststratified(y, stratum, ~arm), poststratified(y, stratum, arm)
    difference = vb[0] - va[0]
    se = math.sqrt(va[1] + vb[1])
    assert effect.adjustment == "stratified" and effect.test == "stratified-z"
    assert effect.difference == pytest.approx(difference, rel=1e-12)
    assert effect.statistic == pytest.approx(difference / se, rel=1e-12)
    assert effect.p_value == pytest.approx(2 * stats.norm.sf(abs(difference / se)), rel=1e-9)
    assert (effect.low, effect.high) == pytest.approx((difference - Z95 * se,
                                                       difference + Z95 * se))  # fmt: skip
    raw = y[arm].var(ddof=1) / arm.sum() + y[~arm].var(ddof=1) / (~arm).sum()
    assert effect.variance_reduction == pytest.approx(1 - se**2 / raw, rel=1e-10)
    both = experiment(labels, {"y": y}, strata=strata, stratum=codes, covariates={"y": pre})
    (effect,) = analyse(both).effects
    theta = np.cov(y, pre)[0, 1] / pre.var(ddof=1)
    adjusted = y - theta * (pre - pre.mean())
    va, vb = poststratified(adjusted, stratum, ~arm), poststratified(adjusted, stratum, arm)
    assert effect.adjustment == "cuped+stratified"
    assert effect.difference == pytest.approx(vb[0] - va[0], rel=1e-12)
    assert effect.variance_reduction == pytest.approx(1 - (va[1] + vb[1]) / raw, rel=1e-10)
    (unstratified,) = analyse(both, stratify=False).effects
    assert unstratified.adjustment == "cuped"


def test_ratio_metric_by_the_delta_method():
    rng = np.random.default_rng(8)
    n = 800
    arm = rng.random(n) < 0.5
    impressions = rng.poisson(8, n) + 1.0
    clicks = rng.binomial(impressions.astype(int), rng.beta(2, 18, n) * (1 + 0.2 * arm)) * 1.0
    exp = experiment(np.where(arm, "b", "control"), {"clicks": clicks,
                                                     "impressions": impressions})  # fmt: skip
    result = analyse(exp, ratios={"ctr": ("clicks", "impressions")})
    (effect,) = result.effects  # clicks and impressions are not analysed on their own

    def delta(x, y):
        mx, my = x.mean(), y.mean()
        sxx, syy = x.var(ddof=1), y.var(ddof=1)
        sxy = np.sum((x - mx) * (y - my)) / (len(x) - 1)
        return mx / my, (sxx / my**2 - 2 * mx * sxy / my**3 + mx**2 * syy / my**4) / len(x)

    ra, va = delta(clicks[~arm], impressions[~arm])
    rb, vb = delta(clicks[arm], impressions[arm])
    z = (rb - ra) / math.sqrt(va + vb)
    assert effect.kind == "ratio" and effect.test == "delta-z" and effect.metric == "ctr"
    assert (effect.control_value, effect.variant_value) == pytest.approx((ra, rb), rel=1e-12)
    assert effect.statistic == pytest.approx(z, rel=1e-10)
    assert effect.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    low, high = fieller(ra, va, rb, vb)
    assert (effect.lift_low, effect.lift_high) == pytest.approx((low - 1, high - 1), rel=1e-9)
    arms = {a.variant: a for a in result.arms}
    assert arms["b"].sd == pytest.approx(math.sqrt(vb * arm.sum()), rel=1e-10)
    assert arms["b"].total == clicks[arm].sum()
    everything = analyse(exp, metrics=["clicks"], ratios={"ctr": ("clicks", "impressions")})
    assert [e.metric for e in everything.effects] == ["clicks", "ctr"]


def test_sample_ratio_mismatch_withholds_every_decision_unless_forced():
    a, b, exp = two_arms(n=(400, 520))
    result = analyse(exp)
    chi2, p = stats.chisquare([400, 520])
    assert (result.srm.statistic, result.srm.p_value) == pytest.approx((chi2, p))
    assert result.srm.observed == (400, 520) and result.srm.df == 1
    assert result.srm.mismatch and result.withheld and not result.mismatch_allowed
    assert [e.decision for e in result.effects] == [WITHHELD]
    assert math.isfinite(result.effects[0].p_value)  # the numbers are still computed
    (note,) = result.notes
    assert "43.5%/56.5%" in note and "50.0%/50.0%" in note and "withheld" in note
    forced = analyse(exp, allow_mismatch=True)
    assert forced.mismatch_allowed and not forced.withheld
    assert forced.effects[0].decision in (BETTER, WORSE, NO_DIFFERENCE)
    assert "mismatch was allowed" in forced.notes[0]
    planned = analyse(exp, split=[40, 52])  # the planned split: no mismatch
    assert not planned.srm.mismatch and planned.srm.expected == pytest.approx((40 / 92, 52 / 92))
    assert planned.srm.p_value == pytest.approx(1.0)
    loose = analyse(exp, srm_threshold=1e-12)
    assert not loose.srm.mismatch


def test_control_order_and_split_errors():
    arms, exp = proportions()
    result = analyse(exp, baseline="c")
    assert result.variants == ("c", "Control", "b")
    with pytest.raises(UsageError, match="unknown baseline 'd': the variants are 'Control', 'b'"):
        analyse(exp, baseline="d")
    with pytest.raises(UsageError, match="one share per variant \\(3, the control first\\)"):
        analyse(exp, split=[50, 50])
    unnamed = experiment(["x"] * 5 + ["y"] * 5, {"m": np.arange(10.0)})
    assert analyse(unnamed).control == "x"  # no variant called control: the first


def test_sequential_looks_by_timestamp_with_always_valid_p_and_boundaries():
    rng = np.random.default_rng(9)
    n = 1000
    arm = rng.random(n) < 0.5
    y = rng.normal(0, 1, n) + 0.2 * arm
    time = rng.permutation(n) * 10.0
    exp = experiment(np.where(arm, "b", "control"), {"y": y}, timestamp=time)
    result = analyse(exp, looks=5, alpha=0.05)
    looks = result.sequential
    assert [look.look for look in looks] == [1, 2, 3, 4, 5]
    assert [look.boundary for look in looks] == pytest.approx(
        [4.877, 3.357, 2.680, 2.290, 2.031], abs=1e-3)  # rpact's O'Brien–Fleming, 5 looks
    order = np.argsort(time)
    rho2 = (-2 * math.log(0.05) + math.log(-2 * math.log(0.05) + 1)) / 5000
    running = 1.0
    for look, m in zip(looks, (200, 400, 600, 800, 1000), strict=True):
        first = np.zeros(n, bool)
        first[order[:m]] = True
        ya, yb = y[first & ~arm], y[first & arm]
        difference = yb.mean() - ya.mean()
        v = ya.var(ddof=1) / len(ya) + yb.var(ddof=1) / len(yb)
        tau2 = rho2 * m * v
        lr = math.sqrt(v / (v + tau2)) * math.exp(difference**2 * tau2 / (2 * v * (v + tau2)))
        running = min(running, 1 / lr, 1.0)
        log_terms = 2 * math.log(1 / 0.05) + math.log((v + tau2) / v)
        half = math.sqrt(v * (v + tau2) / tau2 * log_terms)
        assert look.units == m and look.time == time[order[m - 1]]
        assert look.difference == pytest.approx(difference, rel=1e-12)
        assert look.z == pytest.approx(difference / math.sqrt(v), rel=1e-12)
        assert look.p_value == pytest.approx(running, rel=1e-9)
        assert (look.low, look.high) == pytest.approx((difference - half, difference + half))
        assert look.stop == (running < 0.05 or abs(look.z) >= look.boundary)
    pocock = [look.boundary for look in analyse(exp, looks=5, spending="pocock").sequential]
    assert (pocock[0], pocock[-1]) == pytest.approx((2.438, 2.386), abs=1e-3)  # rpact
    default = analyse(exp).sequential
    assert len(default) == 20 and all(look.boundary is None for look in default)
    assert default[-1].units == n
    no_time = experiment(np.where(arm, "b", "control"), {"y": y})
    plain = analyse(no_time, looks=5)
    assert plain.sequential == () and "no timestamp: no sequential looks" in plain.notes
    assert analyse(no_time).notes == ()


def test_to_dict_and_settings():
    _, exp = proportions()
    result = analyse(exp, tests=["chi2"], seed=3)
    data = result.to_dict()
    assert data["settings"]["tests"] == {"rates": "chi-square", "unpaired": "welch"}
    assert data["settings"]["seed"] == 3 and data["correction"] == "holm"
    assert len(data["effects"]) == 2 and len(data["arms"]) == 3


@pytest.mark.parametrize(
    ("labels", "metrics", "options", "message"),
    [
        (["control"] * 5 + ["b"], {"m": range(6)}, {},
         "variant 'b' has 1 unit\\(s\\): every variant needs at least 2"),
        (["control", "b"] * 5, {"m": [3.0] * 10}, {},
         "metric 'm' is constant \\(3.0 for every unit\\): there is nothing to test"),
        (["control", "b"] * 5, {"m": [0.0] * 10}, {},
         "metric 'm' is constant \\(0.0 for every unit\\)"),
        (["control", "b"] * 5, {"m": [0.0, 1.0] * 5}, {},
         "metric 'm' has zero variance in every variant"),
        (["control", "b"] * 5, {"x": range(10), "y": [0, 1] * 5}, {"ratios": {"r": ("x", "y")}},
         "ratio 'r': the denominator sums to 0 in variant 'control'"),
        (["control", "b"] * 5, {"x": range(10)}, {"ratios": {"r": ("x", "z")}},
         "ratio 'r': unknown metric 'z'; the metrics are 'x'"),
        (["control", "b"] * 5, {"x": range(10)}, {"metrics": ["q"]},
         "unknown metric 'q': the metrics are 'x'"),
        (["control", "b"] * 5, {"x": range(10)}, {"tests": ["wilcoxon"]},
         "test 'wilcoxon' applies to systems compared on the same queries"),
        (["control", "b"] * 5, {"x": range(10)}, {"tests": ["nope"]}, "test 'nope' is unknown"),
        (["control", "b"] * 5, {"x": range(10)}, {"tests": ["welch", "student"]},
         "give one test of means, got welch and student"),
        (["control", "b"] * 5, {"x": range(10)}, {"tests": ["fisher"]},
         "test fisher applies to proportion metrics \\(values 0 or 1\\); the metrics analysed "
         "are mean"),
        (["control", "b"] * 5, {"x": [0, 1, 1, 0, 1] * 2}, {"tests": ["welch"]},
         "test welch applies to mean metrics"),
        (["control", "b"] * 5, {"x": [0, 1, 1, 0, 1] * 2}, {"correction": "dunnett"},
         "dunnett corrects tests of means only, and metric 'x' is not a mean"),
        (["control", "b"] * 5, {"x": range(10)}, {"correction": "sidak"}, "unknown correction"),
        (["control", "b"] * 5, {"x": range(10)}, {"lift_interval": "wald"},
         "unknown lift interval 'wald'"),
        (["control", "b"] * 5, {"x": range(10)}, {"looks": 0}, "looks must be a whole number"),
        (["control", "b"] * 5, {"x": range(10)}, {"alpha": 1.5}, "alpha must lie strictly"),
    ],
)  # fmt: skip
def test_errors_name_the_metric_the_variant_or_the_choice(labels, metrics, options, message):
    with pytest.raises(UsageError, match=message):
        analyse(experiment(labels, metrics), **options)


def test_every_test_of_an_experiment_is_listed_once():
    assert set(names("experiment")) == set(names("unpaired")) | set(names("rates"))
    assert len(names("experiment")) == len(names("unpaired")) + len(names("rates"))
    for test in names("experiment"):
        kind = {"m": [0, 1, 1, 0, 1] * 4} if test in names("rates") else {"m": range(20)}
        (effect,) = analyse(experiment(["control", "b"] * 10, kind), tests=[test],
                            permutations=200).effects  # fmt: skip
        assert effect.test == test


def test_welch_anova_is_statsmodels_and_with_two_groups_welch_t_squared():
    from rankscope.stats import welch_anova

    rng = np.random.default_rng(11)
    groups = [rng.normal(0, 1, 30), rng.normal(0.3, 2, 45), rng.normal(0.1, 0.5, 25),
              rng.exponential(1, 60)]  # fmt: skip
    found = welch_anova(*groups)
    oracle = anova_oneway(groups, use_var="unequal")
    assert found.statistic == pytest.approx(oracle.statistic, rel=1e-10)
    assert found.p_value == pytest.approx(oracle.pvalue, rel=1e-9)
    assert (found.df, found.details["df_denominator"]) == pytest.approx(oracle.df, rel=1e-10)
    two = welch_anova(groups[0], groups[1])
    welch = stats.ttest_ind(groups[1], groups[0], equal_var=False)
    assert two.statistic == pytest.approx(welch.statistic**2, rel=1e-10)
    assert two.p_value == pytest.approx(welch.pvalue, rel=1e-9)
    with pytest.raises(UsageError, match="positive variance in every group: group 2"):
        welch_anova(groups[0], [1.0, 1.0, 1.0])


def test_dunnett_is_scipy_with_its_simultaneous_intervals():
    from rankscope.stats import dunnett

    rng = np.random.default_rng(12)
    control, *treatments = (rng.normal(m, 1, 40) for m in (0, 0.5, 0.1))
    found = dunnett(control, *treatments, confidence=0.9, seed=3)
    oracle = stats.dunnett(*treatments, control=control, rng=np.random.default_rng(3))
    interval = oracle.confidence_interval(0.9)
    for i, result in enumerate(found):
        assert result.p_value == pytest.approx(oracle.pvalue[i], rel=1e-9)
        assert result.statistic == pytest.approx(oracle.statistic[i], rel=1e-12)
        assert (result.ci_low, result.ci_high) == pytest.approx(
            (interval.low[i], interval.high[i]), rel=1e-6)
        assert result.mean_difference == pytest.approx(treatments[i].mean() - control.mean())


def test_estimate_z_by_hand():
    from rankscope.stats.delta import Estimate, estimate_z

    found = estimate_z(Estimate(1.0, 0.04, 50), Estimate(1.5, 0.05, 60), confidence=0.9)
    z = 0.5 / math.sqrt(0.09)
    assert found.statistic == pytest.approx(z) and found.n == 110
    assert found.p_value == pytest.approx(2 * stats.norm.sf(z))
    half = stats.norm.ppf(0.95) * 0.3
    assert (found.ci_low, found.ci_high) == pytest.approx((0.5 - half, 0.5 + half))
    with pytest.raises(UsageError, match="no variance"):
        estimate_z(Estimate(1.0, 0.0, 5), Estimate(2.0, 0.0, 5))


def test_a_zero_control_a_0_1_metric_under_cuped_and_a_ratio_with_a_covariate():
    rng = np.random.default_rng(13)
    labels = ["control"] * 50 + ["b"] * 50
    zero = experiment(labels, {"bought": [0.0] * 50 + [0.0, 1.0] * 25})
    (effect,) = analyse(zero).effects
    assert math.isnan(effect.lift) and effect.difference == pytest.approx(0.5)
    assert "the control's value is 0 on 'bought': the relative lift is undefined" in analyse(
        zero).notes
    pre = rng.normal(0, 1, 100)
    bought = (pre + rng.normal(0, 1, 100) > 0.5).astype(float)
    exp = experiment(labels, {"bought": bought, "views": 1 + rng.poisson(3, 100)},
                     covariates={"bought": pre, "views": pre})  # fmt: skip
    result = analyse(exp, ratios={"rate": ("bought", "views")}, metrics=["bought"])
    theta = np.cov(bought, pre)[0, 1] / pre.var(ddof=1)
    adjusted = bought - theta * (pre - pre.mean())
    first, ratio = result.effects
    assert first.kind == "proportion" and first.test == "welch" and first.adjustment == "cuped"
    assert first.p_value == pytest.approx(
        stats.ttest_ind(adjusted[50:], adjusted[:50], equal_var=False).pvalue, rel=1e-9)
    assert ratio.adjustment is None
    assert "ratio 'rate': CUPED is not applied to ratio metrics" in result.notes


def test_a_constant_arm_among_three_leaves_out_the_omnibus_with_a_note():
    values = [1.0, 2.0, 3.0, 4.0] + [5.0] * 4 + [2.0, 3.0, 5.0, 8.0]
    result = analyse(experiment(["control"] * 4 + ["b"] * 4 + ["c"] * 4, {"m": values}))
    assert result.omnibus == ()
    assert "metric 'm': no omnibus test, a variant's values are constant" in result.notes[0]
    t = 2.5 / math.sqrt(np.var([1, 2, 3, 4], ddof=1) / 4)  # Welch: df = n_a − 1 = 3 here
    assert result.effects[0].p_value == pytest.approx(2 * stats.t.sf(t, 3), rel=1e-9)


def test_a_stratum_too_small_in_an_arm_is_an_error_naming_it():
    strata = Vocabulary()
    codes = np.asarray(strata.intern_many(["young"] * 5 + ["old"] + ["young"] * 4 + ["old"] * 2),
                       dtype=np.int32)  # fmt: skip
    exp = experiment(["control"] * 6 + ["b"] * 6, {"m": np.arange(12.0) % 5}, strata=strata,
                     stratum=codes)  # fmt: skip
    with pytest.raises(UsageError, match="metric 'm', variants 'control' and 'b': stratum old "
                       "has 1 unit"):  # fmt: skip
        analyse(exp)
    assert analyse(exp, stratify=False).effects[0].adjustment is None


def test_fewer_units_than_looks_keep_each_look_its_planned_boundary():
    from rankscope.stats import group_sequential

    values = [1.0, 3.0, 2.0, 5.0, 4.0, 4.0, 6.0, 2.0, 7.0, 1.0, 3.0, 8.0]
    exp = experiment(["control", "b"] * 6, {"m": values}, timestamp=np.arange(12.0))
    looks = analyse(exp, looks=20).sequential
    critical = group_sequential(20).critical
    # 12 units at 20 looks: look k sees ⌈12 k / 20⌉ units, and looks of the same units count once
    seen = {k: math.ceil(12 * k / 20) for k in range(1, 21)}
    expected = [k for k in range(1, 21) if seen[k] >= 4 and (k == 1 or seen[k] != seen[k - 1])]
    assert [look.look for look in looks] == expected
    assert [look.units for look in looks] == [seen[k] for k in expected]
    assert [look.boundary for look in looks] == [critical[k - 1] for k in expected]


def test_each_arm_s_histogram_is_on_shared_edges():
    a, b, exp = two_arms()
    bins = analyse(exp).distributions["revenue"]
    assert list(bins) == ["control", "treatment"]
    (edges_a, counts_a), (edges_b, counts_b) = bins["control"], bins["treatment"]
    assert edges_a == edges_b and len(counts_a) == len(edges_a) - 1 <= 40
    assert sum(counts_a) == len(a) and sum(counts_b) == len(b)
    assert counts_a == tuple(np.histogram(a, bins=np.asarray(edges_a))[0].tolist())
    converted = experiment(["x", "y"] * 5, {"bought": [1, 0, 0, 0, 1, 1, 0, 1, 0, 0]})
    bins = analyse(converted, baseline="x").distributions["bought"]
    assert bins["x"] == ((0.0, 0.5, 1.0), (3, 2)) and bins["y"] == ((0.0, 0.5, 1.0), (3, 2))
