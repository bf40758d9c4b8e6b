"""Power and sample size: of the paired t-test (exact, noncentral t) and of the pooled
two-proportion z-test (normal approximation), for planning how many queries or users an
experiment needs.
"""

from __future__ import annotations

import math

from ..errors import UsageError, shown
from .paired import check_alternative

__all__ = [
    "power_paired_t",
    "power_two_proportions",
    "sample_size_paired_t",
    "sample_size_two_proportions",
]


def _check_probability(value: float, name: str) -> float:
    if not 0 < value < 1:
        raise UsageError(f"{name} must be in (0, 1), got {shown(value)}")
    return float(value)


def power_paired_t(
    effect_size: float, n: int, alpha: float = 0.05, alternative: str = "two-sided"
) -> float:
    """Power of the paired t-test with n queries for a true effect d_z = ``effect_size``.

    Exact, from the noncentral t distribution: df = n − 1, noncentrality δ = d_z √n;
    two-sided power = P(T' ≥ t_{1−α/2}) + P(T' ≤ −t_{1−α/2}), "greater" P(T' ≥ t_{1−α}),
    "less" P(T' ≤ −t_{1−α}) (T' ~ nct(df, δ)).  Same as G*Power's and R's
    ``power.t.test(type="paired")``.
    """
    from scipy import stats

    check_alternative(alternative)
    _check_probability(alpha, "alpha")
    if not math.isfinite(effect_size):
        raise UsageError(f"effect_size must be finite, got {shown(effect_size)}")
    if isinstance(n, bool) or int(n) != n or n < 2:
        raise UsageError(f"n must be an integer ≥ 2, got {shown(n)}")
    df = int(n) - 1
    shift = effect_size * math.sqrt(n)
    if alternative == "two-sided":
        critical = stats.t.ppf(1 - alpha / 2, df)
        power = stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift)
    elif alternative == "greater":
        power = stats.nct.sf(stats.t.ppf(1 - alpha, df), df, shift)
    else:
        power = stats.nct.cdf(-stats.t.ppf(1 - alpha, df), df, shift)
    return float(power)


def sample_size_paired_t(
    effect_size: float, power: float = 0.8, alpha: float = 0.05, alternative: str = "two-sided"
) -> int:
    """Smallest number of queries n ≥ 2 whose paired t-test reaches ``power``.

    Searched upwards from the normal approximation ((z_{1−α/2} + z_{power}) / d_z)² with
    :func:`power_paired_t` (for d_z = 0.5, α = 0.05 two-sided, power 0.8: 34 queries).
    """
    from scipy import stats

    check_alternative(alternative)
    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    if not math.isfinite(effect_size) or effect_size == 0:
        raise UsageError(f"effect_size must be finite and non-zero, got {shown(effect_size)}")
    if (alternative == "greater" and effect_size < 0) or (
        alternative == "less" and effect_size > 0
    ):
        raise UsageError(f"a {alternative!r} test cannot detect an effect of {effect_size}")
    tail = alpha / 2 if alternative == "two-sided" else alpha
    guess = ((stats.norm.isf(tail) + stats.norm.ppf(power)) / effect_size) ** 2
    n = max(2, math.floor(guess))
    while n > 2 and power_paired_t(effect_size, n - 1, alpha, alternative) >= power:
        n -= 1
    while power_paired_t(effect_size, n, alpha, alternative) < power:
        n += 1
    return n


def _two_proportion_terms(p_a: float, p_b: float) -> tuple[float, float]:
    for name, value in (("p_a", p_a), ("p_b", p_b)):
        if not 0 < value < 1:
            raise UsageError(f"{name} must be in (0, 1), got {shown(value)}")
    average = (p_a + p_b) / 2
    null_sd = math.sqrt(2 * average * (1 - average))
    alternative_sd = math.sqrt(p_a * (1 - p_a) + p_b * (1 - p_b))
    return null_sd, alternative_sd


def power_two_proportions(
    p_a: float, p_b: float, n_per_group: int, alpha: float = 0.05, alternative: str = "two-sided"
) -> float:
    """Power of the pooled two-proportion z-test with ``n_per_group`` users in each group.

    Normal approximation (Fleiss, Levin & Paik 2003, §4.2, without continuity correction):
    with Δ = p_b − p_a, p̄ = (p_a + p_b)/2, σ₀ = √(2 p̄ (1 − p̄)) (the pooled sd under the
    null) and σ₁ = √(p_a (1 − p_a) + p_b (1 − p_b)),

        power = Φ((Δ √n − z_{1−α/2} σ₀) / σ₁) + Φ((−Δ √n − z_{1−α/2} σ₀) / σ₁)   (two-sided)

    and Φ((±Δ √n − z_{1−α} σ₀) / σ₁) for "greater" (+) and "less" (−).
    """
    from scipy import stats

    check_alternative(alternative)
    _check_probability(alpha, "alpha")
    if isinstance(n_per_group, bool) or int(n_per_group) != n_per_group or n_per_group < 1:
        raise UsageError(f"n_per_group must be a positive integer, got {shown(n_per_group)}")
    null_sd, alternative_sd = _two_proportion_terms(p_a, p_b)
    shift = (p_b - p_a) * math.sqrt(n_per_group)
    if alternative == "two-sided":
        critical = stats.norm.isf(alpha / 2) * null_sd
        power = stats.norm.cdf((shift - critical) / alternative_sd) + stats.norm.cdf(
            (-shift - critical) / alternative_sd
        )
    else:
        critical = stats.norm.isf(alpha) * null_sd
        sign = 1 if alternative == "greater" else -1
        power = stats.norm.cdf((sign * shift - critical) / alternative_sd)
    return float(power)


def sample_size_two_proportions(
    p_a: float, p_b: float, power: float = 0.8, alpha: float = 0.05, alternative: str = "two-sided"
) -> int:
    """Users per group for the two-proportion z-test to reach ``power`` (normal approximation).

    n = ⌈((z_{1−α/2} σ₀ + z_{power} σ₁) / (p_b − p_a))²⌉ (z_{1−α} one-sided), with σ₀, σ₁ as in
    :func:`power_two_proportions` (Fleiss et al. 2003, eq. 4.14 without continuity
    correction).  For p_a = 0.10, p_b = 0.15, α = 0.05 two-sided, power 0.8: 686 per group.
    """
    from scipy import stats

    check_alternative(alternative)
    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    null_sd, alternative_sd = _two_proportion_terms(p_a, p_b)
    difference = p_b - p_a
    if difference == 0:
        raise UsageError("p_a and p_b must differ")
    if (alternative == "greater" and difference < 0) or (alternative == "less" and difference > 0):
        raise UsageError(f"a {alternative!r} test cannot detect p_b − p_a = {difference}")
    tail = alpha / 2 if alternative == "two-sided" else alpha
    root = (stats.norm.isf(tail) * null_sd + stats.norm.ppf(power) * alternative_sd) / difference
    return max(1, math.ceil(root**2 - 1e-9))
