"""Confidence intervals, each written once.

* `t_interval` — mean ± t quantile × standard error, two-sided or one-sided: the interval
  of a paired or unpaired difference (`rankscope.stats.tests`, `rankscope.stats.effects`).
* `mean_interval` — the t interval of the mean of each row of values: a run's mean in
  ``rankscope compare`` (`rankscope.table.compare`), a segment's mean in
  `rankscope.table.aggregate`.
* `wald_interval`, `newcombe_interval` (from `wilson_interval`) — the difference of two
  rates (`rankscope.stats.proportions`).
* `percentile_interval` — the percentile bootstrap interval from resampled statistics: the
  weighted aggregates of `rankscope.table.aggregate`, the counterfactual estimators of
  `rankscope.clicks.estimators`, the Bradley–Terry strengths of
  `rankscope.preference.aggregate`.  Each caller draws its own resamples from its seed (what
  is resampled differs: queries, sessions); the interval from them is computed here.

Quantiles are numpy's linear interpolation (type 7), as ``numpy.quantile`` by default.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "fieller_interval",
    "mean_interval",
    "mixture_interval",
    "newcombe_interval",
    "percentile_interval",
    "scalar_or_array",
    "t_interval",
    "wald_interval",
    "wilson_interval",
]


def scalar_or_array(values: Any) -> Any:
    """A Python float for a 0-d result, the float64 array otherwise."""
    values = np.asarray(values, dtype=np.float64)
    return float(values) if values.ndim == 0 else values


def t_interval(
    mean: ArrayLike, se: ArrayLike, df: Any, confidence: float, alternative: str = "two-sided"
) -> tuple[Any, Any]:
    """mean ± t quantile × se with ``df`` degrees of freedom; floats for scalar input.

    Two-sided: mean ± t_{(1+c)/2, df} se.  One-sided alternatives give a one-sided interval:
    "greater" → [mean − t_{c, df} se, +∞), "less" → (−∞, mean + t_{c, df} se], so the
    interval excludes 0 exactly when the t-test rejects at level 1 − confidence (as
    scipy.stats does).
    """
    # Student's t quantile as scipy.stats.t.ppf computes it (its ppf is this function, NaN
    # for df <= 0 alike), without importing scipy.stats: seconds of `compare`'s start.
    from scipy.special import stdtrit

    mean, se = np.asarray(mean, dtype=np.float64), np.asarray(se, dtype=np.float64)
    if alternative == "two-sided":
        half = stdtrit(df, 0.5 + confidence / 2) * se
        return scalar_or_array(mean - half), scalar_or_array(mean + half)
    half = stdtrit(df, confidence) * se
    if alternative == "greater":
        return scalar_or_array(mean - half), scalar_or_array(np.full(mean.shape, math.inf))
    return scalar_or_array(np.full(mean.shape, -math.inf)), scalar_or_array(mean + half)


def mean_interval(values: ArrayLike, confidence: float) -> tuple[Any, Any]:
    """The two-sided t interval of the mean along the last axis: mean ± t_{(1+c)/2, n−1} ·
    sd / √n (sample sd, n − 1); NaN with fewer than 2 values.  A float pair for 1-D values,
    arrays of one bound per row for 2-D ones."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[-1]
    mean = values.mean(axis=-1) if n else np.full(values.shape[:-1], math.nan)
    if n < 2:
        nan = scalar_or_array(np.full(np.shape(mean), math.nan))
        return nan, nan
    se = values.std(axis=-1, ddof=1) / math.sqrt(n)
    return t_interval(mean, se, n - 1, confidence)


def percentile_interval(
    resampled: ArrayLike, confidence: float, axis: int = 0, alternative: str = "two-sided"
) -> tuple[Any, Any]:
    """The percentile bootstrap interval: the (1 − c)/2 and (1 + c)/2 quantiles of the
    resampled statistics along ``axis`` (floats for one statistic, arrays for several); for a
    one-sided ``alternative``, the 1 − c quantile and +∞ ("greater") or −∞ and the c quantile
    ("less")."""
    values = np.asarray(resampled, dtype=np.float64)
    if alternative == "greater":
        low = np.quantile(values, 1 - confidence, axis=axis)
        return scalar_or_array(low), scalar_or_array(np.full_like(low, math.inf))
    if alternative == "less":
        high = np.quantile(values, confidence, axis=axis)
        return scalar_or_array(np.full_like(high, -math.inf)), scalar_or_array(high)
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail], axis=axis)
    return scalar_or_array(low), scalar_or_array(high)


def mixture_interval(estimate: Any, variance: Any, tau2: Any, alpha: float) -> tuple[Any, Any]:
    """The always-valid confidence sequence of a normal-mixture SPRT at each look
    (`rankscope.stats.sequential`): estimate ± sqrt(V (V + τ²)/τ² · (2 log(1/α) +
    log((V + τ²)/V))), V the estimate's variance and τ² the mixing variance."""
    v, t2 = np.asarray(variance, dtype=np.float64), np.asarray(tau2, dtype=np.float64)
    half = np.sqrt(v * (v + t2) / t2 * (2 * math.log(1 / alpha) + np.log((v + t2) / v)))
    return estimate - half, estimate + half


def fieller_interval(
    mean_a: float, variance_a: float, mean_b: float, variance_b: float, confidence: float
) -> tuple[float, float]:
    """Fieller's (1954) two-sided interval of the ratio μ_b / μ_a of two independent means
    with the given variances of their estimates: the ρ with (x̄_b − ρ x̄_a)² ≤ z² (v_b + ρ² v_a),
    the roots of (x̄_a² − z² v_a) ρ² − 2 x̄_a x̄_b ρ + (x̄_b² − z² v_b).  Unlike the delta
    method's it is not symmetric, and exact for normal means where it is bounded.  When x̄_a is
    not significantly different from 0 (x̄_a² ≤ z² v_a) the set is unbounded (the whole line,
    or the line without an interval), and the interval returned is (−∞, ∞): conservative."""
    from scipy import stats

    z = float(stats.norm.ppf(0.5 + confidence / 2))
    a = mean_a**2 - z * z * variance_a
    if a <= 0:
        return -math.inf, math.inf
    b = mean_a * mean_b
    c = mean_b**2 - z * z * variance_b
    root = math.sqrt(max(b * b - a * c, 0.0))
    return (b - root) / a, (b + root) / a


def wald_interval(
    rate_a: float, n_a: int, rate_b: float, n_b: int, confidence: float, alternative: str
) -> tuple[float, float]:
    """Wald interval of rate_b − rate_a: the difference ± z · its unpooled standard error
    (one-sided alternatives: one bound infinite).  Simple, and too narrow with few
    successes or failures (`newcombe_interval` is sound there)."""
    from scipy import stats

    difference = rate_b - rate_a
    se = math.sqrt(rate_a * (1 - rate_a) / n_a + rate_b * (1 - rate_b) / n_b)
    if alternative == "two-sided":
        half = stats.norm.ppf(0.5 + confidence / 2) * se
        return difference - half, difference + half
    half = stats.norm.ppf(confidence) * se
    return (
        (difference - half, math.inf)
        if alternative == "greater"
        else (-math.inf, difference + half)
    )


def wilson_interval(successes: int, total: int, z: float) -> tuple[float, float]:
    """Wilson's score interval of one rate at the normal quantile ``z``."""
    rate = successes / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z / (1 + z * z / total) * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    s_a: int, n_a: int, s_b: int, n_b: int, confidence: float, alternative: str
) -> tuple[float, float]:
    """Newcombe's hybrid score interval of rate_b − rate_a (Newcombe 1998, method 10)."""
    from scipy import stats

    level = 0.5 + confidence / 2 if alternative == "two-sided" else confidence
    z = float(stats.norm.ppf(level))
    rate_a, rate_b = s_a / n_a, s_b / n_b
    low_a, high_a = wilson_interval(s_a, n_a, z)
    low_b, high_b = wilson_interval(s_b, n_b, z)
    difference = rate_b - rate_a
    low = difference - math.sqrt((rate_b - low_b) ** 2 + (high_a - rate_a) ** 2)
    high = difference + math.sqrt((high_b - rate_b) ** 2 + (rate_a - low_a) ** 2)
    if alternative == "greater":
        return low, math.inf
    if alternative == "less":
        return -math.inf, high
    return low, high
