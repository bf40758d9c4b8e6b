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

    # the decided impressions within 9 standard deviations of their mean: the mass
    # outside (below 1e-18) cannot move the power, and the sum stays O(√n)
    mean = impressions * (1.0 - tie_rate)
    spread = 9.0 * math.sqrt(impressions * tie_rate * (1.0 - tie_rate)) + 1.0
    decided = np.arange(max(0, int(mean - spread)), min(impressions, int(mean + spread) + 1) + 1)
    mass = binom.pmf(decided, impressions, 1.0 - tie_rate)
    return float(mass @ _decided_power(decided, win_rate, alpha))


def _tie_rate(tie_rate: Any) -> float:
    if tie_rate == 0:
        return 0.0
    return _probability(tie_rate, "tie_rate", low=0.0, high=1.0)


#: Without ties, the exact search for the first n reaching the power looks at most this
#: many n below the crossing bisection finds (every n when fewer are needed).
WINDOW = 4096


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

    Bounded whatever the effect: the normal approximation

        n ≈ ((z_{1−α/2} · 1/2 + z_power · √(w(1−w))) / |w − 1/2|)² / (1 − tie_rate)

    first says whether more than ``limit`` impressions would be needed (`UsageError`
    naming the estimate and the cap, without any exact computation); otherwise bisection on
    the exact power between 0 and a power-reaching bound finds a crossing h.  Without ties
    the power of a discrete test saw-tooths in n, so the exact search then scans the
    `WINDOW` (4,096) n up to h for the first that reaches ``power`` (every n from 1 when h
    is below the window: the first n of all).  With ties (mixing over the number of decided
    impressions smooths the saw-tooth) n is stepped back while n − 1 still reaches it.

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
    from scipy.special import ndtri

    guess = ((ndtri(1 - alpha / 2) * 0.5 + ndtri(power) * math.sqrt(win_rate * (1 - win_rate)))
             / effect) ** 2 / (1.0 - tie_rate)  # fmt: skip
    if guess > limit:
        raise UsageError(
            f"about {guess:,.0f} impressions would be needed to detect a win rate of "
            f"{win_rate:g} (normal approximation), more than the cap of {limit:,}"
        )

    def reaches(n: int) -> bool:
        return sign_test_power(n, win_rate, tie_rate=tie_rate, alpha=alpha) >= power

    high = min(limit, max(1, int(guess)) * 2 + 64)
    while not reaches(high):
        if high >= limit:
            raise UsageError(
                f"more than {limit:,} impressions would be needed to detect a win rate of "
                f"{win_rate:g}, the cap"
            )
        high = min(limit, high * 2)
    low = 0  # power(low) < target <= power(high)
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    if tie_rate == 0.0:
        decided = np.arange(max(1, high - WINDOW), high + 1)
        reached = np.flatnonzero(_decided_power(decided, win_rate, alpha) >= power)
        return int(decided[reached[0]])
    while high > 1 and reaches(high - 1):
        high -= 1
    return high


__all__ = ["impressions_needed", "sign_test", "sign_test_power"]
