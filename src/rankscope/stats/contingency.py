"""χ² tests of counts: Pearson's test of independence of an r×c table (several arms × outcome
categories; the 2×2 case is the test of two rates, with or without Yates' continuity
correction) and the goodness-of-fit test of observed counts against planned shares, which is
the sample-ratio-mismatch check of an online experiment.  Every result is a
`rankscope.stats.result.TestResult`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import UsageError
from .effects import check_options
from .intervals import wald_interval
from .proportions import _rates_input, _rates_result
from .result import TestResult

__all__ = ["chi_square", "goodness_of_fit"]


def _counts(values: Any, name: str, dimensions: int) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != dimensions:
        raise UsageError(f"{name} must be a {dimensions}-dimensional array of counts")
    if not np.all(np.isfinite(array)) or np.any(array < 0) or np.any(array != np.round(array)):
        raise UsageError(f"{name} must hold non-negative whole counts")
    return array


def chi_square(
    table: Any, correction: bool = False, confidence: float = 0.95
) -> TestResult:
    """Pearson's χ² test of independence of an r×c table of counts (rows: the arms, columns:
    the outcome categories), against the χ² distribution with (r − 1)(c − 1) degrees of
    freedom.  ``correction``: Yates' continuity correction (2×2 tables only: each
    |observed − expected| is reduced by 0.5, never below 0), as ``scipy.stats.
    chi2_contingency`` applies it.

    A 2×2 table ``[[successes_a, failures_a], [successes_b, failures_b]]`` is the test of
    two rates: its result carries rate_b − rate_a, the Wald interval and Cohen's h as
    `rankscope.stats.two_proportion_z` does (without the correction, χ² = z² of the pooled
    z-test).  A larger table's effect size is Cramér's V; it has no difference.
    ``details``: the expected counts."""
    counts = _counts(table, "table", 2)
    rows, columns = counts.shape
    if rows < 2 or columns < 2:
        raise UsageError(f"a χ² test needs at least 2 rows and 2 columns, got {rows}×{columns}")
    check_options("two-sided", confidence)
    if correction and (rows, columns) != (2, 2):
        raise UsageError("Yates' correction applies to 2×2 tables only")
    row_sums, column_sums, total = counts.sum(axis=1), counts.sum(axis=0), counts.sum()
    empty = [f"row {i + 1}" for i in np.flatnonzero(row_sums == 0)] + [
        f"column {j + 1}" for j in np.flatnonzero(column_sums == 0)
    ]
    if empty:
        raise UsageError(f"the table's {', '.join(empty)} hold no counts: χ² is undefined")
    expected = np.outer(row_sums, column_sums) / total
    gap = np.abs(counts - expected)
    if correction:
        gap = np.maximum(gap - 0.5, 0.0)
    statistic = float(np.sum(gap**2 / expected))
    df = (rows - 1) * (columns - 1)
    from scipy import stats

    p_value = float(stats.chi2.sf(statistic, df))
    name = "χ² test" + (" with Yates' correction" if correction else "")
    details = {"expected": expected.tolist()}
    if (rows, columns) == (2, 2):
        rates = _rates_input(counts[0, 0], row_sums[0], counts[1, 0], row_sums[1],
                             "two-sided", confidence)  # fmt: skip
        return _rates_result(
            name,
            rates,
            wald_interval(rates.rate_a, rates.total_a, rates.rate_b, rates.total_b, confidence,
                          "two-sided"),
            statistic=statistic,
            p_value=p_value,
            df=df,
            statistic_name="χ²",
            method="Pearson's χ² (scipy's convention); Wald interval of the difference",
            details=details,
        )  # fmt: skip
    cramers_v = math.sqrt(statistic / (total * (min(rows, columns) - 1)))
    return TestResult(
        name=name, statistic=statistic, p_value=p_value, alternative="two-sided",
        mean_difference=None, ci_low=None, ci_high=None, confidence=confidence,
        effect_size=cramers_v, hedges_g=None, n=int(total), df=df, statistic_name="χ²",
        effect_size_name="Cramér's V", method="Pearson's χ² test of independence",
        details=details,
    )  # fmt: skip


def goodness_of_fit(observed: Sequence[float], shares: Sequence[float]) -> TestResult:
    """Pearson's χ² goodness-of-fit test of ``observed`` counts against the planned
    ``shares`` (any positive weights: 50/50, 1:1:2, ...; normalised to sum 1), with k − 1
    degrees of freedom: the sample-ratio-mismatch check of an experiment (are the units split
    between the arms as planned?).  ``details``: the expected counts and the observed shares.
    """
    counts = _counts(observed, "observed", 1)
    weights = np.asarray(shares, dtype=float)
    if weights.shape != counts.shape or len(counts) < 2:
        raise UsageError(
            f"give one planned share per arm (at least 2): {len(counts)} counts, "
            f"{weights.size} shares"
        )
    if not np.all(np.isfinite(weights)) or np.any(weights <= 0):
        raise UsageError("planned shares must be positive finite numbers")
    total = counts.sum()
    if total == 0:
        raise UsageError("no units observed: the split cannot be checked")
    expected = total * weights / weights.sum()
    statistic = float(np.sum((counts - expected) ** 2 / expected))
    from scipy import stats

    df = len(counts) - 1
    return TestResult(
        name="χ² goodness-of-fit test", statistic=statistic,
        p_value=float(stats.chi2.sf(statistic, df)), alternative="two-sided",
        mean_difference=None, ci_low=None, ci_high=None, confidence=0.95, effect_size=None,
        hedges_g=None, n=int(total), df=df, statistic_name="χ²", effect_size_name="none",
        method="Pearson's χ² against the planned shares",
        details={"expected": expected.tolist(), "observed_shares": (counts / total).tolist(),
                 "planned_shares": (weights / weights.sum()).tolist()},
    )  # fmt: skip
