"""Effect sizes and confidence intervals for the difference between two systems.

A p-value says whether a difference is distinguishable from noise; an effect size says how
large it is, in units of its own variability, and a confidence interval says how precisely
the difference is known: report them along with p-values.

Conventions shared with :mod:`rankscope.stats.tests`:

* ``x`` holds the per-query scores of system A, ``y`` those of system B on the same queries,
  and the paired difference is ``d = y - x`` (B − A): positive values mean B is better.
  With ``y=None``, ``x`` is already the differences (for instance per-query preference
  values of B over A, such as RPP), tested against 0.
* Inputs are 1-D (one comparison: one value per query) or 2-D (many comparisons: one row per
  pair of systems, one column per query); results are floats or arrays of one value per row.
* Standard deviations are sample standard deviations (``ddof=1``).

Definitions (Lakens 2013, "Calculating and reporting effect sizes to facilitate cumulative
science: a practical primer for t-tests and ANOVAs", Frontiers in Psychology 4:863):

* Cohen's d_z (paired) = mean(d) / sd(d); the paired t statistic is d_z · √n.
* Cohen's d (unpaired) = (mean(y) − mean(x)) / s_pooled, with
  s_pooled² = ((n_x − 1) s_x² + (n_y − 1) s_y²) / (n_x + n_y − 2).
* Hedges' g = d · J(df), the small-sample bias correction of Hedges (1981) in its usual
  approximate form J(df) = 1 − 3 / (4 df − 1), with df = n − 1 for paired data (g_z) and
  df = n_x + n_y − 2 for unpaired data (Lakens 2013, eq. 4: 1 − 3 / (4 (n_x + n_y) − 9)).
  The exact factor Γ(df/2) / (√(df/2) Γ((df − 1)/2)) differs from it by less than 0.1 % for
  df ≥ 10.
* Cohen's h (two rates) = 2 asin √p_b − 2 asin √p_a.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError, shown
from .intervals import scalar_or_array, t_interval
from .paired import ALTERNATIVES, check_queries
from .paired import check_alternative as _check_alternative

__all__ = [
    "ALTERNATIVES",
    "check_options",
    "cohens_d",
    "cohens_dz",
    "cohens_h",
    "hedges_correction",
    "hedges_g",
    "mean_difference_ci",
]

# ---------------------------------------------------------------------------- validation


def check_options(alternative: str, confidence: float) -> None:
    """Check the two options of every test and interval here: a known ``alternative`` and a
    ``confidence`` in (0, 1), in that order; a `UsageError` names the wrong one."""
    _check_alternative(alternative)
    if not 0 < confidence < 1:
        raise UsageError(f"confidence must be in (0, 1), got {shown(confidence)}")


def _as_scores(values, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise UsageError(f"{name} must be numeric: {error}") from None
    if array.ndim not in (1, 2):
        raise UsageError(
            f"{name} must be 1-D (one value per query) or 2-D (one row per comparison), "
            f"got shape {array.shape}"
        )
    bad = ~np.isfinite(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        position = where[0] if len(where) == 1 else where
        raise UsageError(f"{name} contains NaN or infinity (at index {position})")
    return array


def _paired_differences(x, y=None) -> np.ndarray:
    """The per-query differences y − x (or x itself when y is None), validated."""
    x = _as_scores(x, "x" if y is not None else "differences")
    if y is None:
        differences = x
    else:
        y = _as_scores(y, "y")
        if x.shape != y.shape:
            raise UsageError(
                f"x and y must hold the same queries (the same shape), got {x.shape} and {y.shape}"
            )
        differences = y - x
    check_queries(differences.shape[-1], "a paired comparison")
    return differences


def _two_samples(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Two independent samples along the last axis (rows must match when 2-D)."""
    x, y = _as_scores(x, "x"), _as_scores(y, "y")
    if x.ndim != y.ndim or x.shape[:-1] != y.shape[:-1]:
        raise UsageError(
            f"x and y must have the same number of rows, got shapes {x.shape} and {y.shape}"
        )
    check_queries(x.shape[-1], "x")
    check_queries(y.shape[-1], "y")
    return x, y


# --------------------------------------------------------------------------- effect sizes


def hedges_correction(df):
    """Hedges' small-sample correction J(df) = 1 − 3 / (4 df − 1) (Hedges 1981)."""
    df = np.asarray(df, dtype=np.float64)
    if np.any(df < 1):
        raise UsageError("the correction needs at least 1 degree of freedom")
    return scalar_or_array(1.0 - 3.0 / (4.0 * df - 1.0))


def cohens_dz(x: ArrayLike, y: ArrayLike | None = None) -> Any:
    """Cohen's d_z for paired data: mean(d) / sd(d), with d = y − x (or d = x).

    An infinite value means the differences are constant and non-zero; NaN, that they are
    all zero.

    >>> round(cohens_dz([25, 43, 39, 75, 43, 15, 20, 52, 49, 50],
    ...                 [35, 84, 15, 75, 68, 85, 80, 50, 58, 75]), 4)
    0.7358
    """
    differences = _paired_differences(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return scalar_or_array(differences.mean(axis=-1) / differences.std(axis=-1, ddof=1))


def cohens_d(x: ArrayLike, y: ArrayLike) -> Any:
    """Cohen's d for two independent samples: (mean(y) − mean(x)) / s_pooled."""
    x, y = _two_samples(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return scalar_or_array((y.mean(axis=-1) - x.mean(axis=-1)) / _pooled_sd(x, y))


def hedges_g(x: ArrayLike, y: ArrayLike | None = None, *, paired: bool = True) -> Any:
    """Hedges' g: Cohen's d times J(df) = 1 − 3 / (4 df − 1).

    ``paired=True`` (the default; x and y on the same queries, or ``y=None`` for
    differences): g_z = d_z · J(n − 1).  ``paired=False``: g = d · J(n_x + n_y − 2), with
    the pooled standard deviation.  Lakens (2013) recommends reporting g alongside d for
    small samples; the approximate J is the one most software reports.
    """
    if paired:
        n = _paired_differences(x, y).shape[-1]
        return scalar_or_array(np.asarray(cohens_dz(x, y)) * hedges_correction(n - 1))
    if y is None:
        raise UsageError("unpaired Hedges' g needs two samples x and y")
    x_scores, y_scores = _two_samples(x, y)
    df = x_scores.shape[-1] + y_scores.shape[-1] - 2
    return scalar_or_array(np.asarray(cohens_d(x, y)) * hedges_correction(df))


def cohens_h(p_a, p_b):
    """Cohen's h for two proportions: 2 asin √p_b − 2 asin √p_a (B relative to A)."""
    p_a, p_b = np.asarray(p_a, dtype=np.float64), np.asarray(p_b, dtype=np.float64)
    if np.any((p_a < 0) | (p_a > 1) | (p_b < 0) | (p_b > 1)):
        raise UsageError("proportions must be in [0, 1]")
    return scalar_or_array(2 * np.arcsin(np.sqrt(p_b)) - 2 * np.arcsin(np.sqrt(p_a)))


# ---------------------------------------------------------------------- intervals


def _pooled_sd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n_x, n_y = x.shape[-1], y.shape[-1]
    pooled_variance = ((n_x - 1) * x.var(axis=-1, ddof=1) + (n_y - 1) * y.var(axis=-1, ddof=1)) / (
        n_x + n_y - 2
    )
    return np.sqrt(pooled_variance)


def _welch_se_df(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standard error of mean(y) − mean(x) and the Welch–Satterthwaite degrees of freedom."""
    v_x = x.var(axis=-1, ddof=1) / x.shape[-1]
    v_y = y.var(axis=-1, ddof=1) / y.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (v_x + v_y) ** 2 / (v_x**2 / (x.shape[-1] - 1) + v_y**2 / (y.shape[-1] - 1))
    return np.sqrt(v_x + v_y), df


def mean_difference_ci(
    x,
    y=None,
    *,
    paired: bool = True,
    equal_var: bool = True,
    confidence: float = 0.95,
    alternative: str = "two-sided",
):
    """t-based confidence interval of the mean difference (y − x); returns (low, high).

    Paired (default): mean(d) ± t_{n−1} · sd(d)/√n.  Unpaired: mean(y) − mean(x) ± t · se with
    the pooled variance and n_x + n_y − 2 degrees of freedom (``equal_var=True``, Student) or
    the separate variances and Welch–Satterthwaite degrees of freedom (``equal_var=False``).
    A one-sided ``alternative`` gives a one-sided interval (`rankscope.stats.intervals.t_interval`).
    """
    check_options(alternative, confidence)
    if paired:
        differences = _paired_differences(x, y)
        n = differences.shape[-1]
        se = differences.std(axis=-1, ddof=1) / math.sqrt(n)
        return t_interval(differences.mean(axis=-1), se, n - 1, confidence, alternative)
    if y is None:
        raise UsageError("an unpaired interval needs two samples x and y")
    x, y = _two_samples(x, y)
    mean = y.mean(axis=-1) - x.mean(axis=-1)
    if equal_var:
        se = _pooled_sd(x, y) * math.sqrt(1 / x.shape[-1] + 1 / y.shape[-1])
        df = x.shape[-1] + y.shape[-1] - 2
    else:
        se, df = _welch_se_df(x, y)
    return t_interval(mean, se, df, confidence, alternative)
