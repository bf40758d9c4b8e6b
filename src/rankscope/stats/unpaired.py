"""Unpaired significance tests: two independent samples (``x`` of A, ``y`` of B), the difference
of their means B − A.  Student's t-test (equal variances), Welch's t-test, the Mann–Whitney U
test and the two-sample bootstrap; for several groups, Welch's one-way ANOVA (are all means
equal?) and Dunnett's many-to-one comparisons with a control.  Effect size Cohen's d with the
pooled sd and Hedges' g (`rankscope.stats.effects`), the rank-biserial correlation for
Mann–Whitney.  The conventions of the paired tests (`rankscope.stats.tests`) hold: 2-D inputs
are one comparison per row, invalid input is a `rankscope.errors.UsageError`, a one-sided
alternative gives a one-sided interval.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError
from .effects import (
    _pooled_sd,
    _two_samples,
    _welch_se_df,
    check_options,
    hedges_correction,
)
from .intervals import percentile_interval, scalar_or_array
from .paired import _seed, check_count, t_p_value
from .result import TestResult, t_difference_result

__all__ = [
    "dunnett", "mann_whitney", "student_t", "two_sample_bootstrap", "welch_anova", "welch_t",
]  # fmt: skip


def _independent_t(x, y, alternative, confidence, equal_var: bool) -> TestResult:
    x, y = _two_samples(x, y)
    check_options(alternative, confidence)
    n_x, n_y = x.shape[-1], y.shape[-1]
    difference = y.mean(axis=-1) - x.mean(axis=-1)
    pooled = _pooled_sd(x, y)
    if equal_var:
        se = pooled * math.sqrt(1 / n_x + 1 / n_y)
        df = n_x + n_y - 2
    else:
        se, df = _welch_se_df(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = difference / se
        d = difference / pooled
    return t_difference_result(
        "Student's t-test" if equal_var else "Welch's t-test",
        alternative,
        confidence,
        difference,
        se,
        df,
        d,
        d * hedges_correction(n_x + n_y - 2),
        n_x + n_y,
        statistic=scalar_or_array(t),
        p_value=scalar_or_array(t_p_value(t, df, alternative)),
        df=df if equal_var else scalar_or_array(df),
        statistic_name="t",
        effect_size_name="d",
        method="pooled variance" if equal_var else "separate variances, Welch–Satterthwaite df",
        details={
            "mean_x": scalar_or_array(x.mean(axis=-1)),
            "mean_y": scalar_or_array(y.mean(axis=-1)),
            "sd_x": scalar_or_array(x.std(axis=-1, ddof=1)),
            "sd_y": scalar_or_array(y.std(axis=-1, ddof=1)),
            "se": scalar_or_array(se),
        },
    )


def student_t(
    x: ArrayLike,
    y: ArrayLike,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Student's two-sample t-test (equal variances) of mean(y) − mean(x).

    Pooled variance, n_x + n_y − 2 degrees of freedom; equals
    ``scipy.stats.ttest_ind(y, x)``.  Effect size: Cohen's d with the pooled sd, and Hedges'
    g = d · J(n_x + n_y − 2).  2-D inputs: one row per comparison (same row count).
    """
    return _independent_t(x, y, alternative, confidence, equal_var=True)


def welch_t(
    x: ArrayLike,
    y: ArrayLike,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Welch's t-test (unequal variances) of mean(y) − mean(x).

    se² = s_x²/n_x + s_y²/n_y, Welch–Satterthwaite degrees of freedom; equals
    ``scipy.stats.ttest_ind(y, x, equal_var=False)``.  The effect size is the same Cohen's
    d (pooled sd) and Hedges' g as :func:`student_t`.
    """
    return _independent_t(x, y, alternative, confidence, equal_var=False)


def mann_whitney(
    x: ArrayLike, y: ArrayLike, alternative: str = "two-sided", confidence: float = 0.95
) -> TestResult:
    """The Mann–Whitney U test (Wilcoxon rank-sum) of B against A: is a unit of B as likely
    to score above a unit of A as below?  ``"greater"``: B tends higher.

    U is B's (the number of pairs in which y beats x, ties counting one half); the p-value is
    ``scipy.stats.mannwhitneyu(y, x)``'s (exact for small samples without ties, else the
    normal approximation with tie and continuity corrections).  The effect size is the
    rank-biserial correlation 2U/(n_x n_y) − 1 (in [−1, 1], 0 when neither tends higher).
    The difference B − A and its interval are those of the means (Welch's), so that every
    test of an experiment reports the same estimate; the test itself is of ranks.  2-D
    inputs: one row per comparison."""
    from scipy import stats

    x, y = _two_samples(x, y)
    check_options(alternative, confidence)
    found = stats.mannwhitneyu(y, x, alternative=alternative, axis=-1)
    welch = _independent_t(x, y, alternative, confidence, equal_var=False)
    n_x, n_y = x.shape[-1], y.shape[-1]
    u = np.asarray(found.statistic, dtype=float)
    return replace(
        welch,
        name="Mann–Whitney U test",
        statistic=scalar_or_array(u),
        p_value=scalar_or_array(found.pvalue),
        df=None,
        statistic_name="U",
        effect_size=scalar_or_array(2 * u / (n_x * n_y) - 1),
        effect_size_name="rank-biserial r",
        hedges_g=None,
        method="ranks (scipy's exact or normal approximation); Welch interval of the means",
    )


def two_sample_bootstrap(
    x: ArrayLike,
    y: ArrayLike,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    *,
    samples: int = 10_000,
    seed: int = 0,
) -> TestResult:
    """The two-sample bootstrap of mean(y) − mean(x): each group resampled with replacement
    on its own, ``samples`` times (``numpy.random.default_rng(seed)``).

    The interval is the percentile interval of the resampled differences.  The p-value
    resamples under the null (each group shifted to the pooled mean, Efron & Tibshirani 1993,
    §16.4) and counts the resampled Welch t statistics at least as extreme as the observed
    one: p = (count + 1)/(samples + 1).  1-D samples only."""

    x, y = _two_samples(x, y)
    check_options(alternative, confidence)
    if x.ndim != 1:
        raise UsageError("the two-sample bootstrap takes one comparison (1-D samples)")
    samples = check_count(samples, "samples")
    welch = _independent_t(x, y, alternative, confidence, equal_var=False)
    pooled = np.concatenate([x, y]).mean()
    null_x, null_y = x - x.mean() + pooled, y - y.mean() + pooled
    rng = np.random.default_rng(_seed(seed))
    differences = np.empty(samples)
    extreme = 0
    observed = float(welch.statistic)
    block = max(1, 2_000_000 // (len(x) + len(y)))
    for begin in range(0, samples, block):
        size = min(block, samples - begin)
        pick_x = rng.integers(0, len(x), (size, len(x)))
        pick_y = rng.integers(0, len(y), (size, len(y)))
        differences[begin:begin + size] = y[pick_y].mean(axis=1) - x[pick_x].mean(axis=1)
        star_x, star_y = null_x[pick_x], null_y[pick_y]
        se = np.sqrt(star_x.var(axis=1, ddof=1) / len(x) + star_y.var(axis=1, ddof=1) / len(y))
        with np.errstate(divide="ignore", invalid="ignore"):
            t_star = np.where(se > 0, (star_y.mean(axis=1) - star_x.mean(axis=1)) / se, 0.0)
        if alternative == "two-sided":
            extreme += int(np.sum(np.abs(t_star) >= abs(observed) - 1e-12))
        elif alternative == "greater":
            extreme += int(np.sum(t_star >= observed - 1e-12))
        else:
            extreme += int(np.sum(t_star <= observed + 1e-12))
    low, high = percentile_interval(differences, confidence, alternative=alternative)
    return replace(
        welch,
        name="two-sample bootstrap",
        p_value=(extreme + 1) / (samples + 1),
        ci_low=low,
        ci_high=high,
        df=None,
        method=f"{samples} resamples of each group (seed {seed}); percentile interval; "
        "p from the null-shifted resampled Welch t",
        seed=seed,
    )


def _groups(groups: tuple[ArrayLike, ...], least: int) -> list[np.ndarray]:
    """Independent 1-D groups of values, each of at least 2, at least ``least`` of them."""
    if len(groups) < least:
        raise UsageError(f"give at least {least} groups, got {len(groups)}")
    checked = []
    for number, group in enumerate(groups, 1):
        values = np.asarray(group, dtype=float)
        if values.ndim != 1 or len(values) < 2:
            raise UsageError(f"group {number} must be 1-D with at least 2 values")
        if not np.all(np.isfinite(values)):
            raise UsageError(f"group {number} holds a value that is not a finite number")
        checked.append(values)
    return checked


def welch_anova(*groups: ArrayLike) -> TestResult:
    """Welch's one-way ANOVA (Welch 1951): are the means of k ≥ 2 independent groups all
    equal, their variances free to differ?

    With w_i = n_i / s_i², the weighted mean m = Σ w_i x̄_i / Σ w_i and
    Λ = Σ (1 − w_i/Σw)² / (n_i − 1), the statistic is
    F = [Σ w_i (x̄_i − m)² / (k − 1)] / [1 + 2 (k − 2) Λ / (k² − 1)], against F with k − 1
    and (k² − 1) / (3 Λ) degrees of freedom (statsmodels' ``anova_oneway(...,
    use_var="unequal")``).  ``df`` is the numerator's; ``details["df_denominator"]`` the
    other.  Every group needs a positive variance."""
    from scipy import stats

    values = _groups(groups, 2)
    k = len(values)
    n = np.array([len(v) for v in values], dtype=float)
    means = np.array([v.mean() for v in values])
    variances = np.array([v.var(ddof=1) for v in values])
    if np.any(variances == 0):
        flat = ", ".join(str(i + 1) for i in np.flatnonzero(variances == 0))
        raise UsageError(f"Welch's ANOVA needs a positive variance in every group: group {flat}")
    w = n / variances
    centre = np.sum(w * means) / w.sum()
    spread = np.sum(w * (means - centre) ** 2) / (k - 1)
    lam = np.sum((1 - w / w.sum()) ** 2 / (n - 1))
    statistic = float(spread / (1 + 2 * (k - 2) * lam / (k**2 - 1)))
    df_denominator = float((k**2 - 1) / (3 * lam))
    return TestResult(
        name="Welch's one-way ANOVA", statistic=statistic,
        p_value=float(stats.f.sf(statistic, k - 1, df_denominator)), alternative="two-sided",
        mean_difference=None, ci_low=None, ci_high=None, confidence=0.95, effect_size=None,
        hedges_g=None, n=int(n.sum()), df=k - 1, statistic_name="F", effect_size_name="none",
        method="separate variances, Welch's F with (k − 1, (k² − 1)/(3Λ)) df",
        details={"df_denominator": df_denominator, "means": means.tolist()},
    )  # fmt: skip


def dunnett(
    control: ArrayLike,
    *treatments: ArrayLike,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    seed: int = 0,
) -> list[TestResult]:
    """Dunnett's many-to-one comparisons (Dunnett 1955): each treatment's mean against the
    control's, the family-wise error controlled over the comparisons by the joint
    multivariate t distribution (pooled variance of all groups); ``scipy.stats.dunnett``,
    whose integration is quasi-Monte Carlo, seeded by ``seed``.  One `TestResult` of
    mean(treatment) − mean(control) per treatment: the adjusted p-value and the
    simultaneous interval."""
    from scipy import stats

    first, *rest = _groups((control, *treatments), 2)
    check_options(alternative, confidence)
    found = stats.dunnett(*rest, control=first, alternative=alternative,
                          rng=np.random.default_rng(_seed(seed)))  # fmt: skip
    interval = found.confidence_interval(confidence_level=confidence)
    results = []
    for i, treatment in enumerate(rest):
        results.append(TestResult(
            name="Dunnett's test", statistic=float(found.statistic[i]),
            p_value=float(found.pvalue[i]), alternative=alternative,
            mean_difference=float(treatment.mean() - first.mean()),
            ci_low=float(interval.low[i]), ci_high=float(interval.high[i]),
            confidence=confidence, effect_size=None, hedges_g=None,
            n=len(first) + len(treatment), df=int(sum(len(v) for v in (first, *rest))
                                                   - len(rest) - 1),
            statistic_name="t", effect_size_name="none",
            method="pooled variance; multivariate t (scipy, quasi-Monte Carlo); "
            "simultaneous intervals", seed=seed,
        ))  # fmt: skip
    return results
