"""Confidence intervals are written once, in `rankscope.stats.intervals`: no other module of
src/ computes a t quantile or a percentile of resamples for an interval, and the callers
(compare, aggregation, counterfactual estimators, Bradley–Terry) get the module's numbers."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

import rankscope
from rankscope.stats.intervals import mean_interval, percentile_interval, t_interval

SRC = Path(rankscope.__file__).parent
# where a quantile is not an interval: the power of a test (critical values), the bootstrap
# test's own bounds per row, the interleaving power's binomial quantile, a group-sequential
# design's α-spending function
ALLOWED = {
    "stats/intervals.py",
    "stats/power.py",
    "stats/sequential.py",
    "stats/paired.py",
    "interleaving/power.py",
}


def test_no_other_interval_code_in_src():
    pattern = re.compile(r"\.ppf\(|np\.percentile\(|np\.quantile\(|\.isf\(|stdtrit\(|ndtri\(")
    found = [
        f"{path.relative_to(SRC)}:{number}: {line.strip()}"
        for path in sorted(SRC.rglob("*.py"))
        if str(path.relative_to(SRC)) not in ALLOWED
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, "interval code outside rankscope.stats.intervals:\n" + "\n".join(found)


def test_t_interval_by_hand():
    values = np.array([0.2, 0.5, 0.4, 0.9, 0.1])
    half = scipy_stats.t.ppf(0.975, 4) * values.std(ddof=1) / math.sqrt(5)
    mean = values.mean()
    assert mean_interval(values, 0.95) == pytest.approx((mean - half, mean + half))
    rows = mean_interval(np.vstack([values, values + 1]), 0.95)
    assert rows[0] == pytest.approx([mean - half, mean + 1 - half])
    assert all(math.isnan(x) for x in mean_interval([0.3], 0.95))
    low, high = t_interval(1.0, 0.5, 10, 0.9, "greater")
    assert (low, high) == (pytest.approx(1.0 - scipy_stats.t.ppf(0.9, 10) * 0.5), math.inf)


def test_t_interval_is_scipy_stats_t_bit_for_bit():
    """The quantile comes from scipy.special (importing scipy.stats cost `compare` seconds):
    the same doubles as scipy.stats.t.ppf, NaN where it gives NaN (df <= 0)."""
    df = np.concatenate((np.random.default_rng(5).uniform(0.05, 400, 2000), [1, 2, 3, 0, -1]))
    df = np.concatenate((df, [math.inf, math.nan]))
    mean, se = np.linspace(-1, 1, df.size), np.linspace(0.01, 2, df.size)
    for confidence in (0.9, 0.95, 0.99):
        half = scipy_stats.t.ppf(0.5 + confidence / 2, df) * se
        low, high = t_interval(mean, se, df, confidence)
        np.testing.assert_array_equal(low, mean - half)
        np.testing.assert_array_equal(high, mean + half)
        low, _ = t_interval(mean, se, df, confidence, "greater")
        np.testing.assert_array_equal(low, mean - scipy_stats.t.ppf(confidence, df) * se)


def test_percentile_interval_is_numpy_s_quantiles():
    resampled = np.random.default_rng(3).normal(size=(200, 3))
    low, high = percentile_interval(resampled, 0.9, axis=0)
    tail = (1 - 0.9) / 2
    assert np.array_equal(low, np.quantile(resampled, tail, axis=0))
    assert np.array_equal(high, np.quantile(resampled, 1 - tail, axis=0))
    assert percentile_interval(resampled[:, 0], 0.9) == (low[0], high[0])
