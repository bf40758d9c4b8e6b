"""The delta method and variance reduction for online experiments.

* **Ratio metrics** (Deng, Lu & Litz 2017; Kohavi, Tang & Xu 2020, ch. 18): when the unit
  of analysis (an impression, a session) differs from the unit of randomisation (a user),
  a per-impression test treats correlated impressions as independent and is
  anti-conservative.  The metric is instead the ratio R = Σx / Σy of per-user sums (clicks
  x over impressions y: click-through), whose variance over n users is, by the delta method,

      Var(R̂) ≈ (1/n) (σ_x² / μ_y² − 2 μ_x σ_xy / μ_y³ + μ_x² σ_y² / μ_y⁴).

* **Relative lift** μ_b / μ_a − 1 of two independent arms: its variance by the delta method
  is Var(μ̂_b)/μ_a² + μ_b² Var(μ̂_a)/μ_a⁴ (GrowthBook's frequentist engine, the same).
* **CUPED** (Deng, Xu, Kohavi & Walker 2013): with a pre-experiment covariate x of each unit,
  y − θ (x − x̄) with θ = cov(y, x) / var(x) estimated on the pooled units of every arm keeps
  each arm's mean difference unbiased (randomisation makes x independent of the arm) and
  divides the variance by 1 − ρ², ρ the correlation of x and y.
* **Post-stratification** (Miratrix, Sekhon & Yu 2013): each arm's mean as the stratum
  means weighted by the strata's pooled shares, with variance Σ_s w_s² σ²_{s,arm}/n_{s,arm}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from .effects import check_options
from .intervals import fieller_interval, t_interval
from .paired import normal_p_value
from .result import TestResult

__all__ = [
    "Estimate",
    "cuped",
    "estimate_z",
    "lift_interval",
    "mean_estimate",
    "post_stratified",
    "ratio_estimate",
    "relative_lift",
]


@dataclass(frozen=True)
class Estimate:
    """An arm's estimate of a metric: the value, the variance of the estimate (not of a
    unit's value), and the number of units it rests on."""

    value: float
    variance: float
    n: int


def _column(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise UsageError(f"{name} must be one value per unit")
    if not np.all(np.isfinite(array)):
        raise UsageError(f"{name} holds a value that is not a finite number")
    return array


def mean_estimate(y: Any) -> Estimate:
    """The mean of the units' values, with variance s²/n (s² with n − 1)."""
    values = _column(y, "the metric")
    if len(values) < 2:
        raise UsageError("an arm needs at least 2 units to estimate its variance")
    return Estimate(float(values.mean()), float(values.var(ddof=1) / len(values)), len(values))


def ratio_estimate(x: Any, y: Any) -> Estimate:
    """The ratio Σx / Σy of per-unit numerators ``x`` and denominators ``y`` (clicks and
    impressions per user), with its delta-method variance (the module's formula; moments with
    n − 1)."""
    numerator, denominator = _column(x, "the numerator"), _column(y, "the denominator")
    if numerator.shape != denominator.shape:
        raise UsageError("the numerator and the denominator need one value per unit each")
    n = len(numerator)
    if n < 2:
        raise UsageError("an arm needs at least 2 units to estimate its variance")
    mean_x, mean_y = numerator.mean(), denominator.mean()
    if mean_y == 0:
        raise UsageError("the denominator sums to 0 in an arm: the ratio is undefined")
    covariance = np.cov(numerator, denominator, ddof=1)
    var_x, var_y, cov_xy = covariance[0, 0], covariance[1, 1], covariance[0, 1]
    variance = (
        var_x / mean_y**2 - 2 * mean_x * cov_xy / mean_y**3 + mean_x**2 * var_y / mean_y**4
    ) / n
    return Estimate(float(mean_x / mean_y), float(max(variance, 0.0)), n)


def estimate_z(
    a: Estimate,
    b: Estimate,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    name: str = "z-test of two estimates",
) -> TestResult:
    """The z-test of b − a for two independent arms' estimates (a ratio's delta-method
    estimate, a post-stratified mean): z = (b − a) / sqrt(Var a + Var b), the p-value and
    the interval from the standard normal (``name`` says which estimates)."""
    check_options(alternative, confidence)
    difference = b.value - a.value
    variance = a.variance + b.variance
    if not variance > 0:
        raise UsageError("the difference has no variance in either arm: nothing to test")
    se = math.sqrt(variance)
    z = difference / se
    low, high = t_interval(difference, se, math.inf, confidence, alternative)
    return TestResult(
        name=name, statistic=z, p_value=float(normal_p_value(z, alternative)),
        alternative=alternative, mean_difference=difference, ci_low=float(low),
        ci_high=float(high), confidence=confidence, effect_size=None, hedges_g=None,
        n=a.n + b.n, statistic_name="z", effect_size_name="none",
        method="normal approximation of the two estimates", details={"se": se},
    )  # fmt: skip


def lift_interval(
    a: Estimate, b: Estimate, confidence: float = 0.95, method: str = "fieller"
) -> tuple[float, float, float]:
    """The relative lift b / a − 1 and its two-sided interval: ``fieller`` (default; exact
    for normal means, asymmetric, unbounded when the control's mean is not clearly away from
    0) or ``delta`` (the lift ± z · its delta-method standard error, `relative_lift`)."""
    lift, variance = relative_lift(a, b)
    if method == "delta":
        low, high = t_interval(lift, math.sqrt(variance), math.inf, confidence, "two-sided")
        return lift, float(low), float(high)
    if method != "fieller":
        raise UsageError(f"unknown lift interval {method!r}: choose fieller or delta")
    low, high = fieller_interval(a.value, a.variance, b.value, b.variance, confidence)
    return lift, low - 1, high - 1


def relative_lift(a: Estimate, b: Estimate) -> tuple[float, float]:
    """The relative lift b / a − 1 and its delta-method variance (independent arms)."""
    if a.value == 0:
        raise UsageError("the control's mean is 0: a relative lift is undefined")
    lift = b.value / a.value - 1
    variance = b.variance / a.value**2 + b.value**2 * a.variance / a.value**4
    return float(lift), float(variance)


@dataclass(frozen=True)
class Adjusted:
    """CUPED-adjusted unit values, the coefficient θ and the share of the variance removed
    (1 − var(adjusted)/var(raw), pooled over the arms)."""

    values: np.ndarray
    theta: float
    variance_reduction: float


def cuped(y: Any, x: Any) -> Adjusted:
    """CUPED: ``y`` − θ (``x`` − mean(x)), θ = cov(y, x)/var(x) over all units of every arm
    pooled (the module's text).  A constant covariate carries no information: θ = 0."""
    values, covariate = _column(y, "the metric"), _column(x, "the covariate")
    if values.shape != covariate.shape:
        raise UsageError("the metric and its covariate need one value per unit each")
    if len(values) < 3:
        raise UsageError("CUPED needs at least 3 units")
    var_x = covariate.var(ddof=1)
    theta = 0.0 if var_x == 0 else float(np.cov(values, covariate, ddof=1)[0, 1] / var_x)
    adjusted = values - theta * (covariate - covariate.mean())
    raw = values.var(ddof=1)
    reduction = 0.0 if raw == 0 else float(1 - adjusted.var(ddof=1) / raw)
    return Adjusted(adjusted, theta, reduction)


def post_stratified(y: Any, strata: Any, weights: dict[Any, float]) -> Estimate:
    """An arm's mean post-stratified: Σ_s w_s ȳ_s with variance Σ_s w_s² s²_s / n_s, the
    weights ``w_s`` the strata's shares over every arm pooled (they sum to 1).  A stratum with
    weight but fewer than 2 units in this arm cannot be estimated: an error naming it."""
    values = _column(y, "the metric")
    labels = np.asarray(strata)
    if labels.shape != values.shape:
        raise UsageError("the metric and the strata need one value per unit each")
    value = variance = 0.0
    for stratum, weight in weights.items():
        inside = values[labels == stratum]
        if len(inside) < 2:
            raise UsageError(
                f"stratum {stratum!s} has {len(inside)} unit(s) in an arm: post-stratification "
                "needs at least 2 in every arm (merge small strata)"
            )
        value += weight * inside.mean()
        variance += weight**2 * inside.var(ddof=1) / len(inside)
    return Estimate(float(value), float(variance), len(values))
