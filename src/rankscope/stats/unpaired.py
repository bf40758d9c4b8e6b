"""Unpaired significance tests: two independent samples (``x`` of A, ``y`` of B), the
difference of their means B − A.  Student's t-test (equal variances) and Welch's t-test;
effect size Cohen's d with the pooled sd and Hedges' g (`rankscope.stats.effects`).  The
conventions of the paired tests (`rankscope.stats.tests`) hold: 2-D inputs are one
comparison per row, invalid input is a `rankscope.errors.UsageError`, a one-sided
alternative gives a one-sided interval.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .effects import (
    _pooled_sd,
    _two_samples,
    _welch_se_df,
    check_options,
    hedges_correction,
)
from .intervals import scalar_or_array
from .paired import t_p_value
from .result import TestResult, t_difference_result

__all__ = ["student_t", "welch_t"]


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
