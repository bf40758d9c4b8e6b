"""The sign test over impressions and its power: the one place for the power of an
interleaving experiment.

An impression is decided when one ranking wins it; under H0 each decided impression is a
win for a with probability 1/2.  `sign_test` is the two-sided exact binomial test of that
(ties left out); `sign_test_power` its exact power for a win rate P(a wins | decided) and a
tie rate, and `impressions_needed` the impressions that reach a given power.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import UsageError, shown
from ..stats.paired import sign_p_value


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial sign test of H0: P(a wins | not a tie) = 1/2.

    p = min(1, 2 · P(X <= min(wins, losses))), X ~ Binomial(wins + losses, 1/2); ties are
    left out (the classical sign test); no decided impression gives p = 1.  Equal to
    ``scipy.stats.binomtest(wins, wins + losses, 0.5).pvalue``; the sign test of
    `rankscope.stats` (`rankscope.stats.paired.sign_p_value`), so the same counts give the
    same p-value as ``rankscope.stats.sign_test`` on per-query differences.
    """
    return float(sign_p_value(wins, losses))


def _probability(value: Any, name: str, *, low: float = 0.0, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise UsageError(f"{name} must be a number in ({low}, {high}), got {shown(value)}")
    if not low < value < high:
        raise UsageError(f"{name} must be a number in ({low}, {high}), got {shown(value)}")
    return float(value)


def _critical(decided: np.ndarray, alpha: float) -> np.ndarray:
    """Per number m of decided impressions, the largest c with 2·P(Bin(m, 1/2) <= c) <=
    alpha (the sign test rejects when min(wins, losses) <= c); −1 when none."""
    from scipy.stats import binom

    c = binom.ppf(alpha / 2, decided, 0.5).astype(np.int64)
    # ppf: the smallest c with F(c) >= alpha/2; step back when F(c) overshoots
    over = 2.0 * binom.cdf(c, decided, 0.5) > alpha
    return np.where(over, c - 1, c)


def _decided_power(decided: np.ndarray, win_rate: float, alpha: float) -> np.ndarray:
    from scipy.stats import binom

    c = _critical(decided, alpha)
    power = binom.cdf(c, decided, win_rate) + binom.sf(decided - c - 1, decided, win_rate)
    return np.where(c >= 0, power, 0.0)


def sign_test_power(
    impressions: int, win_rate: float, *, tie_rate: float = 0.0, alpha: float = 0.05
) -> float:
    """Power of the two-sided exact sign test (`sign_test`) on ``impressions`` impressions.

    ``win_rate``: P(a wins | the impression is decided); ``tie_rate``: P(tie).  Exact: the
    number M of decided impressions is Binomial(impressions, 1 − tie_rate), and given M = m
    the test rejects when min(wins, losses) <= c_m, c_m the largest c with
    2·P(Bin(m, 1/2) <= c) <= alpha, so

        power = Σ_m P(M = m) [P(Bin(m, w) <= c_m) + P(Bin(m, w) >= m − c_m)].

    >>> round(sign_test_power(100, 0.65), 4)
    0.8276
    """
    if isinstance(impressions, bool) or not isinstance(impressions, int) or impressions < 0:
        raise UsageError(f"impressions must be an integer >= 0, got {impressions!r}")
    win_rate = _probability(win_rate, "win_rate")
    alpha = _probability(alpha, "alpha")
    tie_rate = _tie_rate(tie_rate)
    if tie_rate == 0.0:
        return float(_decided_power(np.array([impressions]), win_rate, alpha)[0])
    from scipy.stats import binom

    decided = np.arange(impressions + 1)
    mass = binom.pmf(decided, impressions, 1.0 - tie_rate)
    return float(mass @ _decided_power(decided, win_rate, alpha))


def _tie_rate(tie_rate: Any) -> float:
    if tie_rate == 0:
        return 0.0
    return _probability(tie_rate, "tie_rate", low=0.0, high=1.0)


def impressions_needed(
    win_rate: float,
    *,
    tie_rate: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
    limit: int = 10_000_000,
) -> int:
    """Impressions needed for the sign test to detect ``win_rate`` with ``power`` at
    ``alpha`` (two-sided): the smallest n with `sign_test_power`\\ (n) >= ``power``.

    Without ties the search is exact over every n (the power of a discrete test saw-tooths
    in n; this is the first n that reaches the target).  With ties, n is found by bisection
    on the exact power (mixing over the number of decided impressions smooths the
    saw-tooth), then stepped back while n − 1 still reaches the target.  `UsageError` when
    more than ``limit`` impressions would be needed.

    >>> impressions_needed(0.6)
    199
    """
    win_rate = _probability(win_rate, "win_rate")
    if win_rate == 0.5:
        raise UsageError("a win rate of 0.5 is no effect: no number of impressions detects it")
    alpha = _probability(alpha, "alpha")
    power = _probability(power, "power")
    tie_rate = _tie_rate(tie_rate)
    effect = abs(win_rate - 0.5)
    # the normal approximation, to size the search
    from scipy.special import ndtri

    guess = ((ndtri(1 - alpha / 2) * 0.5 + ndtri(power) * math.sqrt(win_rate * (1 - win_rate)))
             / effect) ** 2  # fmt: skip
    guess = max(1, int(guess / (1.0 - tie_rate)))
    upper = min(limit, 4 * guess + 64)
    if tie_rate == 0.0:
        while True:
            decided = np.arange(1, upper + 1)
            reached = np.flatnonzero(_decided_power(decided, win_rate, alpha) >= power)
            if reached.size:
                return int(reached[0]) + 1
            if upper >= limit:
                break
            upper = min(limit, upper * 4)
    else:
        while sign_test_power(upper, win_rate, tie_rate=tie_rate, alpha=alpha) < power:
            if upper >= limit:
                break
            upper = min(limit, upper * 4)
        else:
            low, high = 0, upper  # power(low) < target <= power(high)
            while high - low > 1:
                middle = (low + high) // 2
                if sign_test_power(middle, win_rate, tie_rate=tie_rate, alpha=alpha) >= power:
                    high = middle
                else:
                    low = middle
            while (
                high > 1
                and sign_test_power(high - 1, win_rate, tie_rate=tie_rate, alpha=alpha) >= power
            ):
                high -= 1
            return high
    raise UsageError(f"more than {limit:,} impressions would be needed (limit=)")


__all__ = ["impressions_needed", "sign_test", "sign_test_power"]
