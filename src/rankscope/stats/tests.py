"""Paired significance tests for claims such as "B is better than A" (two systems on the
same queries): ``paired_t``, ``wilcoxon``, ``sign_test``, ``permutation_test``,
``paired_bootstrap``.  The unpaired tests are in `rankscope.stats.unpaired`, the tests of
two rates in `rankscope.stats.proportions`, power and sample sizes in
`rankscope.stats.power`; every test returns a `rankscope.stats.result.TestResult`.

Every test takes per-query values, never files:

* **Paired** (two systems on the same queries): ``x`` = per-query scores of system A, ``y`` =
  those of system B, and the tests are on the differences ``d = y - x`` (B − A), so positive
  means B is better and ``alternative="greater"`` is the claim "B > A".  With ``y=None``,
  ``x`` holds the differences themselves — e.g. per-query preference values of B over A
  (RPP), tested against 0.  Note that ``scipy.stats.ttest_rel(a, b)`` tests ``a - b``:
  ``paired_t(a, b)`` equals ``ttest_rel(b, a)``.
* A 2-D input is many comparisons at once: one row per pair of systems, one column per
  query (e.g. all 8,256 pairs of 129 systems for discriminative power).  The result then
  holds one value per row; every paired test is vectorised over the rows.
* Each paired test is computed once, in :mod:`rankscope.stats.paired`, which
  ``pairwise_tests``, ``paired_t_pvalues`` (discriminative power) and the interleaving sign
  test call too: the same data give the same p-value on every path.
* **Unpaired** (independent samples, `rankscope.stats.unpaired`) and **rates** (A/B tests,
  `rankscope.stats.proportions`) follow the same orientation: the difference is B − A
  (``y`` − ``x``, rate_b − rate_a).
* Every result is a :class:`TestResult`: statistic, p-value, the difference, its confidence
  interval, an effect size (Cohen's d_z for paired data, d for unpaired, h for rates) and
  Hedges' g; see :mod:`rankscope.stats.effects` for the definitions.
* Confidence intervals are of the difference (``mean_difference``), from
  `rankscope.stats.intervals`; they are t-based (mean ± t · se) unless a test says
  otherwise (bootstrap: percentile; rates: Wald or Newcombe).  A one-sided alternative
  gives a one-sided interval, so the interval excludes 0 exactly when a t-test rejects at
  level 1 − confidence (scipy.stats does the same).
* Randomised procedures (Monte Carlo permutation test, bootstrap) take a ``seed`` and give
  identical output for the same seed — also row by row: all rows of a 2-D input share the
  random draws, so a row gets the p-value it gets alone (bootstrap intervals: up to
  floating-point rounding of the batched matrix products).
* Invalid input — NaN or infinite values, x and y of different shapes, fewer than 2
  queries, an unknown alternative — raises :class:`rankscope.errors.UsageError` (a
  ``ValueError``).
* Differences that are all zero (two identical systems) give a p-value of 1 for every
  paired test and alternative: the t statistic (t-test, bootstrap) is 0 — 0/0 is taken as
  "no difference", where scipy.stats.ttest_rel gives NaN —, W+ = 0, 0 wins, every sign
  flip ties; Cohen's d_z stays NaN (0/0).  Constant non-zero differences give t = ±inf.
"""


from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from . import paired
from .effects import _paired_differences, check_options, hedges_correction
from .intervals import scalar_or_array
from .paired import EXACT_MAX_QUERIES
from .result import TestResult, t_difference_result

__all__ = [
    "EXACT_MAX_QUERIES",
    "paired_bootstrap",
    "paired_t",
    "permutation_test",
    "sign_test",
    "wilcoxon",
]


def _paired_effects(differences: np.ndarray):
    """Mean, sd, d_z and Hedges' g_z of differences along the last axis."""
    mean = differences.mean(axis=-1)
    sd = differences.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_z = mean / sd
    g = d_z * hedges_correction(differences.shape[-1] - 1)
    return mean, sd, d_z, g


# ----------------------------------------------------------------------- paired tests


class _Paired(NamedTuple):
    """The checked input of a paired test: the differences y − x (or x), one row per
    comparison of a 2-D input, and the options."""

    differences: np.ndarray
    alternative: str
    confidence: float

    def shaped(self, values: Any) -> Any:
        """Per-row values of the core (`rankscope.stats.paired`) in the input's shape: a
        float for a 1-D input, an array of one value per row for a 2-D one."""
        return scalar_or_array(np.asarray(values).reshape(self.differences.shape[:-1]))

    def counts(self, values: Any) -> Any:
        """Integer per-row counts: an int for a 1-D input, an integer array for a 2-D one."""
        values = np.asarray(values).reshape(self.differences.shape[:-1])
        return int(values) if values.ndim == 0 else values


def _paired_input(x: Any, y: Any, alternative: str, confidence: float) -> _Paired:
    """The validated differences y − x (or x) of a paired test, its options checked."""
    differences = _paired_differences(x, y)
    check_options(alternative, confidence)
    return _Paired(differences, alternative, confidence)


def _paired_result(name: str, given: _Paired, **fields: Any) -> TestResult:
    """A paired test's result: the mean difference, its t interval and the effect sizes are
    those of the differences; ``fields`` give the test's own statistic, p-value, etc."""
    mean, sd, d_z, g = _paired_effects(given.differences)
    n = given.differences.shape[-1]
    return t_difference_result(
        name, given.alternative, given.confidence, mean, sd / math.sqrt(n), n - 1, d_z, g, n,
        **fields,
    )  # fmt: skip


def paired_t(
    x: ArrayLike,
    y: ArrayLike | None = None,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Paired (Student's) t-test on the per-query differences d = y − x (or d = x).

    t = mean(d) / (sd(d) / √n) with n − 1 degrees of freedom; the confidence interval is
    mean(d) ± t_{n−1} · sd(d)/√n.  ``details["sd"]`` is sd(d).  Accepts a 2-D input (one
    row per comparison) and returns arrays.  Equals ``scipy.stats.ttest_rel(y, x)``, except
    for differences that are all zero: t = 0 and p = 1 (scipy: NaN).

    >>> result = paired_t([25, 43, 39, 75, 43, 15, 20, 52, 49, 50],
    ...                   [35, 84, 15, 75, 68, 85, 80, 50, 58, 75])
    >>> round(result.statistic, 6), round(result.p_value, 6), result.df
    (2.326881, 0.044976, 9)
    """
    given = _paired_input(x, y, alternative, confidence)
    test = paired.t_test(given.differences, alternative)
    return _paired_result(
        "paired t-test",
        given,
        statistic=given.shaped(test.statistic),
        p_value=given.shaped(test.p_value),
        df=test.df,
        statistic_name="t",
        method="Student's t distribution",
        details={"sd": given.shaped(test.sd), "se": given.shaped(test.se)},
    )


def wilcoxon(
    x: ArrayLike,
    y: ArrayLike | None = None,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    *,
    zero_method: str = "wilcox",
    method: str = "auto",
    correction: bool = False,
) -> TestResult:
    """Wilcoxon signed-rank test on d = y − x (or d = x): is d symmetric about 0?

    The statistic is W+ = the sum of the ranks of |d| over the queries where B is better
    (``details["w_minus"]`` the other sum; scipy reports min(W+, W−) for two-sided tests,
    and so does `rankscope.stats.procedures.pairwise_tests`, with the same p-value).

    Defaults are scipy.stats.wilcoxon's, and so are the p-values (checked against scipy
    1.17; each row of a 2-D input is treated as scipy treats a 1-D input):

    * ``zero_method="wilcox"``: zero differences are dropped before ranking.  ``"pratt"``
      ranks them with the others and then drops them; ``"zsplit"`` splits their ranks
      between W+ and W−.
    * ``method="auto"``: the exact null distribution when there are at most 50 queries and
      no ties and no zeros; with ties or zeros, exact when n ≤ 13 (scipy: an exhaustive
      permutation test — the same numbers) and the normal approximation otherwise; the
      normal approximation above 50 queries.  ``"exact"`` always uses the exact
      distribution of W+ given the observed ranks (ties and zeros included, by counting
      sign assignments; scipy's ``"exact"`` instead rounds a tied statistic and uses the
      untied distribution).  ``"approx"``: normal approximation with the tie correction
      (and, with ``correction=True``, a continuity correction; default off, as scipy).
    * Exact two-sided p-value: 2 · min(P(W+ ≤ w), P(W+ ≥ w)), capped at 1.

    The confidence interval is the t interval of the mean difference; ``details`` also has
    the matched-pairs rank-biserial correlation (W+ − W−) / (W+ + W−).  Vectorised over
    the rows of a 2-D input.  No non-zero difference → p-value 1.
    """
    given = _paired_input(x, y, alternative, confidence)
    test = paired.signed_rank_test(
        given.differences, alternative, zero_method, method, bool(correction)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        rank_biserial = (test.w_plus - test.w_minus) / (test.w_plus + test.w_minus)
    methods = sorted(set(test.exact.tolist()))  # False (approximation) first
    exact = test.exact.reshape(given.differences.shape[:-1])
    return _paired_result(
        "Wilcoxon signed-rank test",
        given,
        statistic=given.shaped(test.w_plus),
        p_value=given.shaped(test.p_value),
        statistic_name="W+",
        method=" / ".join(
            "exact null distribution" if m else "normal approximation" for m in methods
        )
        + f" (zeros: {zero_method})",
        details={
            "w_minus": given.shaped(test.w_minus),
            "nonzero": given.counts(test.nonzero),
            "z": given.shaped(test.z),
            "rank_biserial": given.shaped(rank_biserial),
            "zero_method": zero_method,
            "exact": bool(exact) if exact.ndim == 0 else exact,
            "correction": bool(correction),
        },
    )


def sign_test(
    x: ArrayLike,
    y: ArrayLike | None = None,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Sign test: among the queries where the systems differ, does B win more than half?

    The statistic is the number of wins of B (d > 0) among the m queries with d ≠ 0; ties
    (d = 0) are dropped.  p-values are binomial(m, 1/2) tails: P(X ≥ wins) for "greater",
    P(X ≤ wins) for "less", and 2 · min of the two (capped at 1) for two-sided — equal to
    ``scipy.stats.binomtest(wins, m)``.  No non-zero difference → p-value 1.  The confidence
    interval is the t interval of the mean difference.  Vectorised over rows.
    """
    given = _paired_input(x, y, alternative, confidence)
    wins, losses = paired.sign_counts(given.differences)
    p_value = paired.sign_p_value(wins, losses, alternative)
    return _paired_result(
        "sign test",
        given,
        statistic=given.counts(wins),
        p_value=given.shaped(p_value),
        statistic_name="wins",
        method="binomial(m, 1/2), ties dropped",
        details={
            "wins": given.counts(wins),
            "losses": given.counts(losses),
            "ties": given.counts(given.differences.shape[-1] - wins - losses),
        },
    )


def permutation_test(
    x: ArrayLike,
    y: ArrayLike | None = None,
    *,
    statistic: str = "mean",
    alternative: str = "two-sided",
    exact: bool | None = None,
    permutations: int = 100_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> TestResult:
    """Fisher's randomisation test for paired data: random sign flips of d = y − x (or x).

    Under the null hypothesis that A and B are exchangeable on every query, each difference
    is as likely to be d_i as −d_i.  The statistic is the mean (or, ``statistic="median"``,
    the median) of the differences; the null distribution is that of the statistic over
    sign-flipped differences.  `rankscope.stats.procedures.pairwise_tests` runs the same test
    (two-sided, ``exact=None``) on every pair of systems, with the same p-values.

    * ``exact=None`` (default): enumerate all 2^n sign flips when n ≤ ``EXACT_MAX_QUERIES``
      (20), else Monte Carlo.  ``exact=True`` forces enumeration (up to 32 queries for the
      mean, 24 for the median); ``exact=False`` forces Monte Carlo.
    * Exact p-value: (number of the 2^n flips — the identity included — whose statistic is
      at least as extreme) / 2^n.  "At least as extreme": ≥ observed ("greater"),
      ≤ observed ("less"), |·| ≥ |observed| (two-sided), with a tolerance for
      floating-point ties of 1e-9 · mean|d| (``rankscope.stats.paired.TIE_TOLERANCE``).
      For the mean, the 2^n sums are counted from the 2^(n/2) sums of each half of the
      queries (sort one half, binary-search it: milliseconds per row at n = 20); for the
      median, 2^(n−1) flips are evaluated (flipping every sign negates the statistic).
    * Monte Carlo p-value: (count + 1) / (permutations + 1) over ``permutations`` random
      flips (Phipson & Smyth 2010: never 0, and a valid test); ``details["mc_se"]`` is its
      standard error √(p (1 − p) / permutations).  The flips come from
      ``numpy.random.default_rng(seed)`` in fixed blocks, shared by all rows.
    * 2-D input: every row is tested against the same flips; the mean statistic is a
      matrix product of the differences with a ±1 flip matrix, in blocks.

    The reported statistic is the observed mean (or median) difference; the confidence
    interval is the t interval of the mean difference.  All-zero differences: p = 1.
    """
    given = _paired_input(x, y, alternative, confidence)
    test = paired.randomization_test(
        given.differences,
        alternative,
        statistic=statistic,
        exact=exact,
        permutations=permutations,
        seed=seed,
    )
    n = given.differences.shape[-1]
    details = {
        "exact": test.exact,
        "permutations": test.permutations,
        "count": given.counts(test.extreme),
    }
    if test.exact:
        method = f"exact: all 2^{n} sign flips"
    else:
        details["mc_se"] = given.shaped(test.mc_se)
        method = f"Monte Carlo: {test.permutations} random sign flips, (count + 1)/(B + 1)"
    return _paired_result(
        "permutation test (paired sign flips)",
        given,
        statistic=given.shaped(test.statistic),
        p_value=given.shaped(test.p_value),
        statistic_name=statistic,
        method=method,
        details=details,
        seed=None if test.exact else seed,
    )


def paired_bootstrap(
    x: ArrayLike,
    y: ArrayLike | None = None,
    *,
    alternative: str = "two-sided",
    samples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> TestResult:
    """Sakai's paired bootstrap test (Sakai, "Evaluating evaluation metrics based on the
    bootstrap", SIGIR 2006) and a percentile interval of the mean difference.

    Test: with d = y − x (or x), t = mean(d) / (sd(d)/√n).  The differences are shifted to
    mean 0 (w = d − mean(d): the null hypothesis holds for w), resampled with replacement
    ``samples`` times, and t* computed on each resample; the p-value counts the resamples
    with t* at least as extreme as t (|t*| ≥ |t| two-sided — Sakai's achieved significance
    level —, t* ≥ t "greater", t* ≤ t "less") and is (count + 1) / (samples + 1); Sakai
    reports count / samples (``details["count"]`` gives it).  t is that of `paired_t`:
    0/0 (a sample of zeros) is 0, c/0 is ±inf.

    Interval: percentile bootstrap of the mean difference from the same resamples
    (quantiles (1 − confidence)/2 and (1 + confidence)/2, numpy's linear interpolation;
    one-sided alternatives: the 1 − confidence or the confidence quantile and ±∞).

    Resamples come from ``numpy.random.default_rng(seed)`` and are shared by all rows of a
    2-D input.  The statistic reported is t.  Differences all zero → t = 0 and p-value 1
    (every t* is 0 too); constant and non-zero → t = ±inf and p-value 1 / (samples + 1).
    """
    given = _paired_input(x, y, alternative, confidence)
    differences = given.differences
    quantiles: tuple[float, ...]
    if alternative == "two-sided":
        quantiles = ((1 - confidence) / 2, (1 + confidence) / 2)
    else:
        quantiles = (1 - confidence,) if alternative == "greater" else (confidence,)
    test = paired.bootstrap_test(
        differences, alternative, samples=samples, seed=seed, quantiles=quantiles
    )
    rows = np.atleast_2d(differences)
    mean, sd, d_z, g = _paired_effects(rows)
    if alternative == "two-sided":
        low, high = test.quantiles[:, 0], test.quantiles[:, 1]
    elif alternative == "greater":
        low, high = test.quantiles[:, 0], np.full(len(rows), math.inf)
    else:
        low, high = np.full(len(rows), -math.inf), test.quantiles[:, 0]
    samples = int(samples)
    return TestResult(
        name="paired bootstrap test (Sakai 2006)",
        statistic=given.shaped(test.statistic),
        p_value=given.shaped(test.p_value),
        alternative=alternative,
        mean_difference=given.shaped(mean),
        ci_low=given.shaped(low),
        ci_high=given.shaped(high),
        confidence=confidence,
        effect_size=given.shaped(d_z),
        hedges_g=given.shaped(g),
        n=differences.shape[-1],
        statistic_name="t",
        method=f"{samples} bootstrap resamples of the shifted differences; percentile CI",
        details={
            "samples": samples,
            "count": given.counts(test.extreme),
            "sd": given.shaped(sd),
        },
        seed=seed,
    )
