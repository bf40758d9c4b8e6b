"""Safe peeking at an online experiment: always-valid inference and group-sequential designs.

An A/B test looked at repeatedly and stopped at the first p < α has a false-positive rate far
above α.  Two remedies, each valid under any stopping rule of its own kind:

* **Always-valid inference** (mixture sequential probability ratio test, Johari, Koomen,
  Pekelis & Walsh 2017; the normal-mixture boundary of Howard, Ramdas, McAuliffe & Sekhon
  2021): at every look ``k`` an estimate ``θ̂_k`` of the difference with variance ``V_k``
  gives the mixture likelihood ratio

      Λ_k = sqrt(V_k / (V_k + τ²_k)) · exp(θ̂_k² τ²_k / (2 V_k (V_k + τ²_k)))

  against θ = 0, with the mixing variance ``τ²_k = ρ² · n_k V_k`` (``n_k V_k`` estimates
  the per-unit variance s², so ``ρ`` is scale-free).  The always-valid p-value is the running
  minimum of ``min(1, 1/Λ_k)``; the confidence sequence is

      θ̂_k ± sqrt(V_k (V_k + τ²_k) / τ²_k · (2 log(1/α) + log((V_k + τ²_k) / V_k))),

  which is GrowthBook's ``s · sqrt(2 (nρ² + 1) / (n² ρ²) · log(sqrt(nρ² + 1) / α))`` with
  s² = n V.  ``ρ`` is tuned so the boundary is tightest at ``tuning`` units (GrowthBook's
  default 5,000): ``ρ² = (−2 log α + log(−2 log α + 1)) / tuning``.  Both hold at every look
  simultaneously, with probability ≥ 1 − α (asymptotically, by the normal approximation).
* **Group-sequential boundaries** (Lan & DeMets 1983 α-spending): for a planned number of
  looks at information fractions ``t_1 < … < t_K = 1``, critical values ``c_k`` for |Z_k| such
  that the probability under the null of first crossing at look k is ``α(t_k) − α(t_{k−1})``,
  with the spending function of O'Brien–Fleming type (each side spends α/2 by the one-sided
  ``α_1(t) = 2 − 2Φ(z_{1−α/4} / √t)``, so ``α(t) = 2 α_1(t)``: the convention of rpact and
  gsDesign, whose boundaries these are) or of Pocock type ``α(t) = α log(1 + (e − 1) t)``.
  The crossing probabilities are computed exactly (to the grid's precision) by recursive
  numerical integration of the score process (Armitage, McPherson & Rowe 1969; Jennison &
  Turnbull 2000, ch. 19).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError
from ..model.frames import plain
from .intervals import mixture_interval

__all__ = [
    "SPENDING",
    "AlwaysValid",
    "GroupSequential",
    "always_valid",
    "group_sequential",
    "mixture_rho",
]

#: GrowthBook's default number of units at which the confidence sequence is tightest.
TUNING = 5_000


def _check_alpha(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    return float(alpha)


def mixture_rho(alpha: float, tuning: float = TUNING) -> float:
    """The normal mixture's scale ρ that makes the confidence sequence tightest at ``tuning``
    units (Howard et al. 2021, eq. 14; GrowthBook's ``sequential_tuning_parameter``)."""
    _check_alpha(alpha)
    if not tuning > 0:
        raise UsageError(f"the tuning sample size must be positive, got {tuning}")
    log_term = -2 * math.log(alpha)
    return math.sqrt((log_term + math.log(log_term + 1)) / tuning)


@dataclass(frozen=True)
class AlwaysValid:
    """Always-valid inference at each look: the estimate, its confidence sequence and the
    always-valid p-value (non-increasing over looks)."""

    n: np.ndarray
    estimate: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    alpha: float
    rho: float

    def records(self) -> list[dict[str, Any]]:
        """One row per look."""
        return [
            {"look": k + 1, "n": plain(self.n[k]), "estimate": plain(self.estimate[k]),
             "ci_low": plain(self.ci_low[k]), "ci_high": plain(self.ci_high[k]),
             "p_value": plain(self.p_value[k])}
            for k in range(len(self.n))
        ]  # fmt: skip


def always_valid(
    estimate: Any, variance: Any, n: Any, alpha: float = 0.05, tuning: float = TUNING
) -> AlwaysValid:
    """Always-valid p-values and the confidence sequence of a difference observed at several
    looks: ``estimate[k]`` (θ̂_k), the variance of that estimate ``variance[k]`` (V_k, e.g.
    s²_a/n_a + s²_b/n_b) and the number of units so far ``n[k]``.  See the module's text for
    the formulas."""
    alpha = _check_alpha(alpha)
    theta = np.atleast_1d(np.asarray(estimate, dtype=float))
    v = np.atleast_1d(np.asarray(variance, dtype=float))
    units = np.atleast_1d(np.asarray(n, dtype=float))
    if not theta.shape == v.shape == units.shape:
        raise UsageError("estimate, variance and n need one value per look each")
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(v)) and np.all(v > 0)):
        raise UsageError("every look needs a finite estimate and a positive finite variance")
    if np.any(units < 1) or np.any(np.diff(units) < 0):
        raise UsageError("n must be at least 1 and never decrease from one look to the next")
    rho = mixture_rho(alpha, tuning)
    tau2 = rho**2 * units * v
    log_lr = 0.5 * np.log(v / (v + tau2)) + theta**2 * tau2 / (2 * v * (v + tau2))
    p = np.minimum.accumulate(np.minimum(1.0, np.exp(-log_lr)))
    low, high = mixture_interval(theta, v, tau2, alpha)
    return AlwaysValid(units, theta, low, high, p, alpha, rho)


def _obrien_fleming(t: np.ndarray, alpha: float) -> np.ndarray:
    from scipy.stats import norm

    side = alpha / 2  # each side spends half, by the one-sided function (rpact, gsDesign)
    return 2 * (2 - 2 * norm.cdf(norm.ppf(1 - side / 2) / np.sqrt(t)))


def _pocock(t: np.ndarray, alpha: float) -> np.ndarray:
    return alpha * np.log1p((math.e - 1) * t)


#: The α-spending functions (two-sided; ``α(1) = α``), by name.
SPENDING = {"obrien-fleming": _obrien_fleming, "pocock": _pocock}


@dataclass(frozen=True)
class GroupSequential:
    """A two-sided group-sequential design: at each planned look, the information fraction,
    the critical value of |Z|, the nominal p-value that crosses it, and the cumulative α
    spent."""

    fraction: np.ndarray
    critical: np.ndarray
    nominal_p: np.ndarray
    spent: np.ndarray
    alpha: float
    spending: str

    def crossed(self, z: Sequence[float]) -> int | None:
        """The first look (from 1) whose |z| reaches its critical value, None if none does
        (``z`` holds the z statistics of the looks taken so far)."""
        for k, value in enumerate(z):
            if k < len(self.critical) and abs(value) >= self.critical[k]:
                return k + 1
        return None

    def records(self) -> list[dict[str, Any]]:
        """One row per planned look."""
        return [
            {"look": k + 1, "fraction": plain(self.fraction[k]),
             "critical": plain(self.critical[k]), "nominal_p": plain(self.nominal_p[k]),
             "alpha_spent": plain(self.spent[k])}
            for k in range(len(self.fraction))
        ]  # fmt: skip


def _simpson_weights(points: int, step: float) -> np.ndarray:
    weights = np.ones(points)
    weights[1:-1:2], weights[2:-1:2] = 4.0, 2.0
    return weights * step / 3


@dataclass(frozen=True)
class _Density:
    """The density of the score on a grid over the continuation region, with the weights
    of Simpson's rule."""

    points: np.ndarray
    weights: np.ndarray
    density: np.ndarray


def _exit_probability(c: float, t: float, sd: float, carried: _Density | None) -> float:
    """The probability under the null of crossing ±c at the look at information ``t`` (the
    increment since the last look has standard deviation ``sd``) without an earlier crossing."""
    from scipy.stats import norm

    bound = c * math.sqrt(t)
    if carried is None:
        return float(2 * norm.sf(bound / sd))
    inside = norm.cdf((bound - carried.points) / sd) - norm.cdf((-bound - carried.points) / sd)
    return float(np.sum(carried.weights * carried.density * (1 - inside)))


def group_sequential(
    looks: int | Sequence[float],
    alpha: float = 0.05,
    spending: str = "obrien-fleming",
    grid: int = 801,
) -> GroupSequential:
    """Two-sided α-spending boundaries for ``looks`` equally spaced looks (an integer) or at
    the given information fractions (increasing, the last 1).  ``spending``:
    ``obrien-fleming`` (default: strict early, close to the fixed test at the end) or
    ``pocock`` (about equal boundaries).  ``grid`` points per look integrate the density of
    the score statistic on the continuation region (Simpson's rule)."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    alpha = _check_alpha(alpha)
    if spending not in SPENDING:
        raise UsageError(f"unknown spending function {spending!r}: choose {', '.join(SPENDING)}")
    if isinstance(looks, int):
        if looks < 1:
            raise UsageError(f"the number of looks must be at least 1, got {looks}")
        fraction = np.arange(1, looks + 1) / looks
    else:
        fraction = np.asarray(looks, dtype=float)
        if (
            fraction.ndim != 1 or len(fraction) == 0 or np.any(fraction <= 0)
            or np.any(np.diff(fraction) <= 0) or not math.isclose(fraction[-1], 1.0)
        ):  # fmt: skip
            raise UsageError("information fractions must increase strictly, in (0, 1], to 1")
    if grid < 3 or grid % 2 == 0:
        raise UsageError(f"grid must be an odd number of points ≥ 3, got {grid}")
    spent = SPENDING[spending](fraction, alpha)
    increments = np.diff(np.concatenate([[0.0], spent]))
    critical = np.empty(len(fraction))
    # The score S_k = Z_k √t_k has independent N(0, t_k − t_{k−1}) increments; its density on
    # the continuation region of the looks so far, on a grid, is carried from look to look.
    carried: _Density | None = None
    previous_t = 0.0
    for k, t in enumerate(fraction):
        sd = math.sqrt(t - previous_t)
        target = increments[k]
        if target <= 0:
            critical[k] = math.inf
        elif _exit_probability(1e-9, t, sd, carried) <= target:  # more than is left: reject
            critical[k] = 0.0
        else:
            critical[k] = brentq(
                lambda c, t=t, sd=sd, carried=carried, target=target: (
                    _exit_probability(c, t, sd, carried) - target
                ),
                1e-9, 40.0, xtol=1e-12, rtol=1e-12,
            )  # fmt: skip
        # The density of S_k on (−c√t, c√t), for the next look.
        bound = min(critical[k], 40.0) * math.sqrt(t)
        points = np.linspace(-bound, bound, grid)
        if carried is None:
            density = norm.pdf(points / sd) / sd
        else:
            kernel = norm.pdf((points[:, None] - carried.points[None, :]) / sd) / sd
            density = kernel @ (carried.weights * carried.density)
        carried = _Density(points, _simpson_weights(grid, points[1] - points[0]), density)
        previous_t = t
    nominal = 2 * norm.sf(critical)
    return GroupSequential(fraction, critical, nominal, spent, alpha, spending)
