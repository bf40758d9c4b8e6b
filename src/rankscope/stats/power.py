"""Power and sample size: of the paired t-test (exact, noncentral t), of the two-sample
t-test and of the pooled two-proportion z-test (normal approximation), for planning how many
queries or users an experiment needs; and the per-unit standard deviation of a ratio metric
(`ratio_unit_sd`), with which a ratio is planned as a mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import UsageError, shown
from .paired import check_alternative

__all__ = [
    "mde_two_proportions",
    "mde_unpaired_t",
    "power_paired_t",
    "power_two_proportions",
    "power_unpaired_t",
    "ratio_unit_sd",
    "sample_size_paired_t",
    "sample_size_two_proportions",
    "sample_size_unpaired_t",
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
    check_alternative(alternative)
    _check_probability(alpha, "alpha")
    if not math.isfinite(effect_size):
        raise UsageError(f"effect_size must be finite, got {shown(effect_size)}")
    if isinstance(n, bool) or int(n) != n or n < 2:
        raise UsageError(f"n must be an integer ≥ 2, got {shown(n)}")
    return _t_power(effect_size * math.sqrt(n), int(n) - 1, alpha, alternative)


def _t_power(shift: float, df: float, alpha: float, alternative: str) -> float:
    """Power of a t-test whose statistic is noncentral t with ``df`` degrees of freedom and
    noncentrality ``shift``.  Each tail is an upper tail (P(T' ≤ −c | δ) = P(T' ≥ c | −δ)):
    scipy's ``nct.cdf`` fails far in the lower tail (NaN for d_z = 1, n = 100), its ``sf``
    does not."""
    from scipy import stats

    if alternative == "two-sided":
        critical = stats.t.isf(alpha / 2, df)
        power = stats.nct.sf(critical, df, shift) + stats.nct.sf(critical, df, -shift)
    else:
        sign = 1 if alternative == "greater" else -1
        power = stats.nct.sf(stats.t.isf(alpha, df), df, sign * shift)
    return float(min(1.0, power))


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
    _check_effect(effect_size, alternative)
    tail = alpha / 2 if alternative == "two-sided" else alpha
    guess = ((stats.norm.isf(tail) + stats.norm.ppf(power)) / effect_size) ** 2
    return _smallest_n(
        lambda n: power_paired_t(effect_size, n, alpha, alternative) >= power, guess, 2
    )


def _smallest_n(reaches: Callable[[int], bool], guess: float, minimum: int) -> int:
    """The smallest n ≥ ``minimum`` for which ``reaches(n)`` (power grows with n), searched
    from the normal approximation's ``guess`` downwards and upwards."""
    n = max(minimum, math.floor(guess))
    while n > minimum and reaches(n - 1):
        n -= 1
    while not reaches(n):
        n += 1
    return n


def _check_effect(effect_size: float, alternative: str) -> None:
    if not math.isfinite(effect_size) or effect_size == 0:
        raise UsageError(f"effect_size must be finite and non-zero, got {shown(effect_size)}")
    if (alternative == "greater" and effect_size < 0) or (
        alternative == "less" and effect_size > 0
    ):
        raise UsageError(f"a {alternative!r} test cannot detect an effect of {effect_size}")


def _check_ratio(ratio: float) -> float:
    if not (math.isfinite(ratio) and ratio > 0):
        raise UsageError(f"the allocation ratio n_b / n_a must be positive, got {shown(ratio)}")
    return float(ratio)


def _group_b(n_a: int, ratio: float) -> int:
    """Group B's size for ``n_a`` in group A at allocation ``ratio`` = n_b / n_a."""
    return max(1, math.ceil(ratio * n_a - 1e-9))


def power_unpaired_t(
    effect_size: float,
    n_a: int,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    ratio: float = 1.0,
) -> float:
    """Power of Student's two-sample t-test with ``n_a`` units in group A and
    n_b = ⌈``ratio`` · n_a⌉ in group B, for a true standardised difference d = (μ_b − μ_a)/σ
    = ``effect_size``.

    Exact, from the noncentral t distribution: df = n_a + n_b − 2, noncentrality
    δ = d √(n_a n_b / (n_a + n_b)); the tails as for :func:`power_paired_t`.  Same as
    statsmodels' ``TTestIndPower`` (``ratio`` = nobs2 / nobs1) and R's ``power.t.test``."""
    check_alternative(alternative)
    _check_probability(alpha, "alpha")
    ratio = _check_ratio(ratio)
    if not math.isfinite(effect_size):
        raise UsageError(f"effect_size must be finite, got {shown(effect_size)}")
    if isinstance(n_a, bool) or int(n_a) != n_a or n_a < 1:
        raise UsageError(f"n_a must be a positive integer, got {shown(n_a)}")
    n_b = _group_b(int(n_a), ratio)
    if n_a + n_b < 3:
        raise UsageError("the two groups need at least 3 units together")
    shift = effect_size * math.sqrt(n_a * n_b / (n_a + n_b))
    return _t_power(shift, n_a + n_b - 2, alpha, alternative)


def sample_size_unpaired_t(
    effect_size: float,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    ratio: float = 1.0,
) -> tuple[int, int]:
    """The smallest group sizes (n_a, n_b = ⌈``ratio`` · n_a⌉) whose two-sample t-test reaches
    ``power`` for the standardised difference ``effect_size`` (for d = 0.5, α = 0.05
    two-sided, power 0.8, equal groups: 64 each)."""
    from scipy import stats

    check_alternative(alternative)
    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    ratio = _check_ratio(ratio)
    _check_effect(effect_size, alternative)
    tail = alpha / 2 if alternative == "two-sided" else alpha
    z = stats.norm.isf(tail) + stats.norm.ppf(power)
    guess = (1 + 1 / ratio) * (z / effect_size) ** 2
    n_a = _smallest_n(
        lambda n: _group_b(n, ratio) + n >= 3
        and power_unpaired_t(effect_size, n, alpha, alternative, ratio) >= power,
        guess,
        1,
    )
    return n_a, _group_b(n_a, ratio)


def _two_proportion_terms(p_a: float, p_b: float, ratio: float) -> tuple[float, float]:
    """σ₀ and σ₁ per √n_a: the standard deviation of p̂_b − p̂_a × √n_a under the null (the
    pooled rate p̄ = (p_a + r p_b)/(1 + r)) and under the alternative, for n_b = r n_a."""
    for name, value in (("p_a", p_a), ("p_b", p_b)):
        if not 0 < value < 1:
            raise UsageError(f"{name} must be in (0, 1), got {shown(value)}")
    average = (p_a + ratio * p_b) / (1 + ratio)
    null_sd = math.sqrt(average * (1 - average) * (1 + 1 / ratio))
    alternative_sd = math.sqrt(p_a * (1 - p_a) + p_b * (1 - p_b) / ratio)
    return null_sd, alternative_sd


def power_two_proportions(
    p_a: float,
    p_b: float,
    n_a: int,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    ratio: float = 1.0,
) -> float:
    """Power of the pooled two-proportion z-test with ``n_a`` users in group A and
    n_b = ``ratio`` · n_a in group B (``ratio`` 1: ``n_a`` per group).

    Normal approximation (Fleiss, Levin & Paik 2003, §4.2, without continuity correction;
    unequal groups as in their eq. 4.19): with Δ = p_b − p_a, r = ``ratio``,
    p̄ = (p_a + r p_b)/(1 + r), σ₀ = √(p̄ (1 − p̄)(1 + 1/r)) (the pooled sd under the null)
    and σ₁ = √(p_a (1 − p_a) + p_b (1 − p_b)/r),

        power = Φ((Δ √n_a − z_{1−α/2} σ₀) / σ₁) + Φ((−Δ √n_a − z_{1−α/2} σ₀) / σ₁)

    (two-sided), and Φ((±Δ √n_a − z_{1−α} σ₀) / σ₁) for "greater" (+) and "less" (−).
    """
    from scipy import stats

    check_alternative(alternative)
    _check_probability(alpha, "alpha")
    if isinstance(n_a, bool) or int(n_a) != n_a or n_a < 1:
        raise UsageError(f"n_a must be a positive integer, got {shown(n_a)}")
    null_sd, alternative_sd = _two_proportion_terms(p_a, p_b, _check_ratio(ratio))
    shift = (p_b - p_a) * math.sqrt(n_a)
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
    p_a: float,
    p_b: float,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    ratio: float = 1.0,
) -> int:
    """Users in group A (group B: ⌈``ratio`` · n_a⌉) for the two-proportion z-test to reach
    ``power`` (normal approximation).

    n_a = ⌈((z_{1−α/2} σ₀ + z_{power} σ₁) / (p_b − p_a))²⌉ (z_{1−α} one-sided), with σ₀, σ₁ as
    in :func:`power_two_proportions` (Fleiss et al. 2003, eq. 4.14 without continuity
    correction).  For p_a = 0.10, p_b = 0.15, α = 0.05 two-sided, power 0.8: 686 per group.
    """
    from scipy import stats

    check_alternative(alternative)
    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    null_sd, alternative_sd = _two_proportion_terms(p_a, p_b, _check_ratio(ratio))
    difference = p_b - p_a
    if difference == 0:
        raise UsageError("p_a and p_b must differ")
    if (alternative == "greater" and difference < 0) or (alternative == "less" and difference > 0):
        raise UsageError(f"a {alternative!r} test cannot detect p_b − p_a = {difference}")
    tail = alpha / 2 if alternative == "two-sided" else alpha
    root = (stats.norm.isf(tail) * null_sd + stats.norm.ppf(power) * alternative_sd) / difference
    return max(1, math.ceil(root**2 - 1e-9))


def mde_unpaired_t(
    n_a: int,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    ratio: float = 1.0,
) -> float:
    """The minimum detectable effect of the two-sample t-test: the smallest standardised
    difference d = (μ_b − μ_a)/σ (negative for ``"less"``) whose :func:`power_unpaired_t` with
    ``n_a`` and n_b = ⌈``ratio`` · n_a⌉ units reaches ``power`` (statsmodels' ``TTestIndPower.
    solve_power`` for the effect size).  Two-sided: the positive one (the power is symmetric)."""
    from scipy.optimize import brentq

    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    floor = power_unpaired_t(0.0, n_a, alpha, alternative, ratio)  # (checks the rest)
    if power <= floor:
        raise UsageError(f"power {shown(power)} is reached with no effect at all (alpha "
                         f"{shown(alpha)}): ask for more")  # fmt: skip
    sign = -1.0 if alternative == "less" else 1.0
    top = 1.0
    while power_unpaired_t(sign * top, n_a, alpha, alternative, ratio) < power:
        top *= 2
    found = brentq(
        lambda d: power_unpaired_t(sign * d, n_a, alpha, alternative, ratio) - power,
        0.0, top, xtol=1e-12, rtol=1e-12,
    )  # fmt: skip
    return sign * float(found)


def mde_two_proportions(
    p_a: float,
    n_a: int,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    ratio: float = 1.0,
) -> float:
    """The minimum detectable rate of B against the control rate ``p_a``: the p_b nearest
    ``p_a`` (above it; below for ``"less"``) whose :func:`power_two_proportions` with ``n_a``
    and ``ratio`` · n_a users reaches ``power``.  An error when even p_b at 1 (or 0) does not
    reach it."""
    from scipy.optimize import brentq

    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    _check_probability(p_a, "p_a")
    up = alternative != "less"
    end = 1 - 1e-12 if up else 1e-12
    if power_two_proportions(p_a, end, n_a, alpha, alternative, ratio) < power:
        raise UsageError(
            f"no rate {'above' if up else 'below'} {shown(p_a)} reaches power {shown(power)} "
            f"with {shown(n_a)} users in A: give more users"
        )
    start = p_a + 1e-12 if up else p_a - 1e-12
    found = brentq(
        lambda p: power_two_proportions(p_a, p, n_a, alpha, alternative, ratio) - power,
        start, end, xtol=1e-13, rtol=1e-12,
    )  # fmt: skip
    return float(found)


def ratio_unit_sd(
    numerator_mean: float,
    numerator_sd: float,
    denominator_mean: float,
    denominator_sd: float,
    correlation: float = 0.0,
) -> float:
    """The standard deviation of one unit's contribution to a ratio metric R = Σx / Σy
    (clicks x over impressions y of each user), from the per-unit moments of x and y.

    The delta method linearises R̂ around R = μ_x/μ_y: each unit counts as
    (x − R y)/μ_y, whose standard deviation is

        σ_L = √(σ_x² − 2 R ρ σ_x σ_y + R² σ_y²) / |μ_y|

    (ρ the correlation of x and y), so that Var(R̂) ≈ σ_L²/n is the variance of
    `rankscope.stats.delta.ratio_estimate` (Deng, Lu & Litz 2017).  A ratio is then planned
    as a mean of standard deviation σ_L: a difference ΔR between two arms is the
    standardised effect ΔR/σ_L of :func:`power_unpaired_t`, :func:`sample_size_unpaired_t`
    and :func:`mde_unpaired_t`.  For μ_x = 2, σ_x = 3, μ_y = 20, σ_y = 10, ρ = 0.5:
    R = 0.1 and σ_L = √(9 − 3 + 1)/20 = 0.1323.
    """
    moments = {
        "numerator_mean": numerator_mean, "numerator_sd": numerator_sd,
        "denominator_mean": denominator_mean, "denominator_sd": denominator_sd,
        "correlation": correlation,
    }  # fmt: skip
    def mistake(name: str, what: str) -> UsageError:  # (``ab plan`` names its options)
        return UsageError(f"{name} {what}", cli=f"--{name.replace('_', '-')} {what}")

    for name, value in moments.items():
        if not math.isfinite(value):
            raise mistake(name, f"must be finite, got {shown(value)}")
    for name in ("numerator_sd", "denominator_sd"):
        if moments[name] < 0:
            raise mistake(name, f"must be at least 0, got {shown(moments[name])}")
    if not -1 <= correlation <= 1:
        raise mistake("correlation", f"must be in [-1, 1], got {shown(correlation)}")
    if denominator_mean == 0:
        raise mistake("denominator_mean", "is 0: the ratio is undefined")
    ratio = numerator_mean / denominator_mean
    variance = (
        numerator_sd**2 - 2 * ratio * correlation * numerator_sd * denominator_sd
        + ratio**2 * denominator_sd**2
    )  # fmt: skip
    if not variance > 1e-12 * (numerator_sd**2 + ratio**2 * denominator_sd**2):
        raise UsageError(
            "the ratio does not vary between units (x = R y for every unit): there is "
            "nothing to plan"
        )
    return math.sqrt(variance) / abs(denominator_mean)
