"""Tests of two rates (A/B tests of click-through or conversion): the two-proportion z-test
and Fisher's exact test of rate_b − rate_a, with a Wald or Newcombe interval of the
difference (`rankscope.stats.intervals`) and Cohen's h.  Every result is a
`rankscope.stats.result.TestResult`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ..errors import UsageError, shown
from .effects import check_options, cohens_h
from .intervals import newcombe_interval, wald_interval
from .paired import normal_p_value
from .result import TestResult

__all__ = ["fisher_exact", "two_proportion_z"]


class _Rates(NamedTuple):
    """The checked input of a test of two rates: the counts of each group and the options."""

    s_a: int
    total_a: int
    s_b: int
    total_b: int
    alternative: str
    confidence: float

    @property
    def rate_a(self) -> float:
        return self.s_a / self.total_a

    @property
    def rate_b(self) -> float:
        return self.s_b / self.total_b


def _rates_input(
    successes_a: Any, n_a: Any, successes_b: Any, n_b: Any, alternative: str, confidence: float
) -> _Rates:
    """The input of a test of two rates, checked: non-negative integer counts, at least one
    observation a group, no more successes than observations, then the options."""
    values = []
    for name, value in (
        ("successes_a", successes_a),
        ("n_a", n_a),
        ("successes_b", successes_b),
        ("n_b", n_b),
    ):
        if isinstance(value, bool) or not float(value).is_integer() or value < 0:
            raise UsageError(f"{name} must be a non-negative integer, got {shown(value)}")
        values.append(int(value))
    s_a, total_a, s_b, total_b = values
    if total_a < 1 or total_b < 1:
        raise UsageError("each group needs at least one observation (n_a, n_b ≥ 1)")
    if s_a > total_a or s_b > total_b:
        raise UsageError("successes cannot exceed the number of observations")
    check_options(alternative, confidence)
    return _Rates(s_a, total_a, s_b, total_b, alternative, confidence)


def _rates_result(
    name: str, rates: _Rates, interval: tuple[float, float], *, details: dict, **fields: Any
) -> TestResult:
    """A test of two rates: the difference rate_b − rate_a, its interval, Cohen's h, and
    both rates first in ``details``; ``fields`` give the test's statistic, p-value, etc."""
    return TestResult(
        name=name,
        alternative=rates.alternative,
        mean_difference=rates.rate_b - rates.rate_a,
        ci_low=interval[0],
        ci_high=interval[1],
        confidence=rates.confidence,
        effect_size=cohens_h(rates.rate_a, rates.rate_b),
        hedges_g=None,
        n=rates.total_a + rates.total_b,
        effect_size_name="h",
        details={"rate_a": rates.rate_a, "rate_b": rates.rate_b, **details},
        **fields,
    )


def two_proportion_z(
    successes_a: int,
    n_a: int,
    successes_b: int,
    n_b: int,
    alternative: str = "two-sided",
    pooled: bool = True,
    confidence: float = 0.95,
) -> TestResult:
    """Two-proportion z-test of rate_b − rate_a (A/B tests of click-through, conversion).

    z = (p_b − p_a) / se with, when ``pooled`` (the usual test), se² = p̄ (1 − p̄)
    (1/n_a + 1/n_b) and p̄ = (s_a + s_b)/(n_a + n_b); otherwise the unpooled
    se² = p_a (1 − p_a)/n_a + p_b (1 − p_b)/n_b.  p-values from the standard normal.

    The confidence interval is the Wald interval p_b − p_a ± z · (unpooled se) — simple, but
    too narrow with few successes or failures; prefer :func:`fisher_exact` (Newcombe
    interval) there.  Effect size: Cohen's h.  ``details`` has both rates and the relative
    difference (lift) p_b / p_a − 1.  When se = 0 and p_b = p_a, z is NaN and p is 1.
    """
    rates = _rates_input(successes_a, n_a, successes_b, n_b, alternative, confidence)
    s_a, total_a, s_b, total_b, _, _ = rates
    rate_a, rate_b = rates.rate_a, rates.rate_b
    difference = rate_b - rate_a
    if pooled:
        overall = (s_a + s_b) / (total_a + total_b)
        se = math.sqrt(overall * (1 - overall) * (1 / total_a + 1 / total_b))
    else:
        se = math.sqrt(rate_a * (1 - rate_a) / total_a + rate_b * (1 - rate_b) / total_b)
    if se > 0:
        z = difference / se
        p_value = float(normal_p_value(z, alternative))
    elif difference == 0:
        z, p_value = math.nan, 1.0
    else:
        z = math.copysign(math.inf, difference)
        p_value = float(normal_p_value(z, alternative))
    return _rates_result(
        "two-proportion z-test",
        rates,
        wald_interval(rate_a, total_a, rate_b, total_b, confidence, alternative),
        statistic=z,
        p_value=p_value,
        statistic_name="z",
        method=("pooled" if pooled else "unpooled") + " standard error; Wald interval",
        details={
            "relative_difference": difference / rate_a if rate_a > 0 else math.nan,
            "se": se,
            "pooled": bool(pooled),
        },
    )


def fisher_exact(
    successes_a: int,
    n_a: int,
    successes_b: int,
    n_b: int,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Fisher's exact test for two rates (small A/B tests).

    The 2×2 table is [[s_b, n_b − s_b], [s_a, n_a − s_a]], so the statistic — the sample
    odds ratio, as ``scipy.stats.fisher_exact`` reports it — is the odds of success of B over
    those of A, and "greater" means B's rate is higher.  The p-value is scipy's (two-sided:
    the sum of the probabilities of the tables no more likely than the observed one).

    The confidence interval of rate_b − rate_a is Newcombe's hybrid score interval
    (Newcombe 1998, method 10, built from Wilson intervals; sound for small counts).
    ``details`` has the conditional maximum-likelihood odds ratio and its exact interval
    (``scipy.stats.contingency.odds_ratio``).  Effect size: Cohen's h.
    """
    from scipy import stats
    from scipy.stats.contingency import odds_ratio

    rates = _rates_input(successes_a, n_a, successes_b, n_b, alternative, confidence)
    s_a, total_a, s_b, total_b, _, _ = rates
    table = [[s_b, total_b - s_b], [s_a, total_a - s_a]]
    sample_odds_ratio, p_value = stats.fisher_exact(table, alternative=alternative)
    conditional = odds_ratio(table, kind="conditional")
    interval = conditional.confidence_interval(confidence, alternative=alternative)
    return _rates_result(
        "Fisher's exact test",
        rates,
        newcombe_interval(s_a, total_a, s_b, total_b, confidence, alternative),
        statistic=float(sample_odds_ratio),
        p_value=float(p_value),
        statistic_name="odds ratio",
        method="hypergeometric (scipy); Newcombe interval of the difference",
        details={
            "conditional_odds_ratio": float(conditional.statistic),
            "odds_ratio_ci": (float(interval.low), float(interval.high)),
        },
    )
