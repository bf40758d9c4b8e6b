"""Significance tests for claims such as "B is better than A".

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
* **Unpaired** (independent samples, ``student_t`` / ``welch_t``) and **rates** (A/B tests:
  ``two_proportion_z``, ``fisher_exact``) follow the same orientation: the difference is
  B − A (``y`` − ``x``, rate_b − rate_a).
* Every result is a :class:`TestResult`: statistic, p-value, the difference, its confidence
  interval, an effect size (Cohen's d_z for paired data, d for unpaired, h for rates) and
  Hedges' g; see :mod:`rankscope.stats.effects` for the definitions.
* Confidence intervals are of the difference (``mean_difference``); they are t-based
  (mean ± t · se) unless a test says otherwise (bootstrap: percentile; rates: Wald or
  Newcombe).  A one-sided alternative gives a one-sided interval, so the interval excludes
  0 exactly when a t-test rejects at level 1 − confidence (scipy.stats does the same).
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

scipy is imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError
from . import paired
from .effects import (
    _check_alternative,
    _check_confidence,
    _paired_differences,
    _pooled_sd,
    _scalar_or_array,
    _t_interval,
    _two_samples,
    _welch_se_df,
    cohens_h,
    hedges_correction,
)
from .paired import EXACT_MAX_QUERIES
from .paired import normal_p_value as _normal_p_value
from .paired import t_p_value as _t_p_value

__all__ = [
    "EXACT_MAX_QUERIES",
    "TestResult",
    "fisher_exact",
    "paired_bootstrap",
    "paired_t",
    "permutation_test",
    "power_paired_t",
    "power_two_proportions",
    "sample_size_paired_t",
    "sample_size_two_proportions",
    "sign_test",
    "student_t",
    "two_proportion_z",
    "welch_t",
    "wilcoxon",
]

# ---------------------------------------------------------------------------- the result


def _same(a, b) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_same(a[key], b[key]) for key in a)
        )
    if isinstance(a, str | bool | type(None)) or isinstance(b, str | bool | type(None)):
        return type(a) is type(b) and a == b
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:
        return bool(np.array_equal(a, b))


def _plain(value):
    """JSON-friendly: arrays to lists, numpy scalars to Python numbers."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _number(value) -> str:
    if value is None:
        return "—"
    value = float(value)
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}"


@dataclass(frozen=True, eq=False)
class TestResult:
    """The outcome of one test, or of one test per row of a 2-D input (then array fields).

    Attributes
    ----------
    name : the procedure, e.g. ``"paired t-test"``.
    statistic : the test statistic (``statistic_name`` says which: t, z, W+, ...).
    p_value : the p-value for ``alternative``.
    alternative : ``"two-sided"``, ``"greater"`` (B > A) or ``"less"`` (B < A).
    mean_difference : the estimated difference B − A (mean of y − x; difference of means
        or of rates for unpaired tests).
    ci_low, ci_high : confidence interval of ``mean_difference`` at level ``confidence``
        (one-sided alternatives: one bound is infinite).
    effect_size : standardised effect (``effect_size_name``: d_z, d or h).
    hedges_g : the effect size with Hedges' small-sample correction (None for rates).
    n : number of queries (paired), or of observations in both groups (unpaired, rates).
    df : degrees of freedom of the reference t distribution, or None.
    method : how the p-value was obtained, in words.
    details : further values (standard deviation, counts, Monte Carlo error, ...).
    seed : the seed of a randomised procedure, None otherwise.
    """

    __test__: ClassVar[bool] = False  # a result, not a pytest test class

    name: str
    statistic: Any
    p_value: Any
    alternative: str
    mean_difference: Any
    ci_low: Any
    ci_high: Any
    confidence: float
    effect_size: Any
    hedges_g: Any
    n: int
    df: Any = None
    statistic_name: str = "statistic"
    effect_size_name: str = "d_z"
    method: str = ""
    details: dict = field(default_factory=dict)
    seed: int | None = None

    # Array fields: equality is by value and results are not hashable.  Defining __eq__ in
    # the class body leaves __hash__ None (and eq=False keeps dataclass from touching it).

    def __eq__(self, other):
        if not isinstance(other, TestResult):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    @property
    def batched(self) -> bool:
        """True when the fields hold one value per compared pair (a 2-D input)."""
        return np.ndim(self.p_value) > 0

    def __getitem__(self, row: int) -> TestResult:
        """The result of one row of a batched result."""
        if not self.batched:
            raise TypeError("only a batched result (from a 2-D input) can be indexed")
        count = len(self.p_value)

        def pick(value):
            if isinstance(value, dict):
                return {key: pick(item) for key, item in value.items()}
            if isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == count:
                item = value[row]
                return item.item() if isinstance(item, np.generic) else item
            return value

        changes = {f.name: pick(getattr(self, f.name)) for f in fields(self)}
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """All fields as plain Python values (lists for batched results)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def _interval(self, row=None) -> str:
        low, high = (
            (self.ci_low, self.ci_high)
            if row is None
            else (
                self.ci_low[row],
                self.ci_high[row],
            )
        )
        return f"[{_number(low)}, {_number(high)}]"

    def __str__(self) -> str:
        level = f"{100 * self.confidence:g}%"
        if not self.batched:
            df = "" if self.df is None else f" (df = {_number(self.df)})"
            effect = f"{self.effect_size_name} = {_number(self.effect_size)}"
            if self.hedges_g is not None:
                effect += f", Hedges' g = {_number(self.hedges_g)}"
            lines = [
                f"{self.name}, {self.alternative}: {self.statistic_name} = "
                f"{_number(self.statistic)}{df}, p = {_number(self.p_value)}",
                f"  difference (B − A) = {_number(self.mean_difference)}, "
                f"{level} CI {self._interval()}",
                f"  effect size {effect}; n = {self.n}",
            ]
            if self.method:
                lines.append(f"  method: {self.method}")
            return "\n".join(lines)
        count = len(self.p_value)
        header = f"{self.name}, {self.alternative}: {count} comparisons, n = {self.n}" + (
            f"; {self.method}" if self.method else ""
        )
        rows = [
            f"{'row':>6} {self.statistic_name:>10} {'p':>10} {'B − A':>10} "
            f"{level + ' CI':>22} {self.effect_size_name:>8}"
        ]
        shown = min(count, 10)
        for row in range(shown):
            rows.append(
                f"{row:>6} {_number(np.asarray(self.statistic)[row]):>10} "
                f"{_number(self.p_value[row]):>10} "
                f"{_number(np.asarray(self.mean_difference)[row]):>10} "
                f"{self._interval(row):>22} {_number(np.asarray(self.effect_size)[row]):>8}"
            )
        if count > shown:
            rows.append(f"  ... {count - shown} more rows")
        return "\n".join([header, *rows])


def _paired_effects(differences: np.ndarray):
    """Mean, sd, d_z and Hedges' g_z of differences along the last axis."""
    mean = differences.mean(axis=-1)
    sd = differences.std(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_z = mean / sd
    g = d_z * hedges_correction(differences.shape[-1] - 1)
    return mean, sd, d_z, g


def _paired_t_interval(differences: np.ndarray, sd, confidence: float, alternative: str):
    n = differences.shape[-1]
    return _t_interval(differences.mean(axis=-1), sd / math.sqrt(n), n - 1, confidence, alternative)


def _shaped(values, differences: np.ndarray):
    """Per-row values of the core (`rankscope.stats.paired`) in the input's shape: a float
    for a 1-D input, an array of one value per row for a 2-D one."""
    return _scalar_or_array(np.asarray(values).reshape(differences.shape[:-1]))


def _counts(values, differences: np.ndarray):
    """Integer per-row counts: an int for a 1-D input, an integer array for a 2-D one."""
    values = np.asarray(values).reshape(differences.shape[:-1])
    return int(values) if values.ndim == 0 else values


# ----------------------------------------------------------------------- paired tests


def _paired_input(x, y, alternative: str, confidence: float) -> np.ndarray:
    """The validated differences y − x (or x) of a paired test, its options checked."""
    differences = _paired_differences(x, y)
    _check_alternative(alternative)
    _check_confidence(confidence)
    return differences


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
    differences = _paired_input(x, y, alternative, confidence)
    test = paired.t_test(differences, alternative)
    return _paired_result(
        "paired t-test",
        differences,
        alternative,
        confidence,
        statistic=_shaped(test.statistic, differences),
        p_value=_shaped(test.p_value, differences),
        df=test.df,
        statistic_name="t",
        method="Student's t distribution",
        details={"sd": _shaped(test.sd, differences), "se": _shaped(test.se, differences)},
    )


def _paired_result(
    name: str,
    differences: np.ndarray,
    alternative: str,
    confidence: float,
    **fields: Any,
) -> TestResult:
    """A paired test's result: the mean difference, its t interval and the effect sizes are
    those of ``differences``; ``fields`` give the test's own statistic, p-value, etc."""
    mean, sd, d_z, g = _paired_effects(differences)
    low, high = _paired_t_interval(differences, sd, confidence, alternative)
    return TestResult(
        name=name,
        alternative=alternative,
        mean_difference=_scalar_or_array(mean),
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        effect_size=_scalar_or_array(d_z),
        hedges_g=_scalar_or_array(g),
        n=differences.shape[-1],
        **fields,
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
    and so does `rankscope.stats.multiple.pairwise_tests`, with the same p-value).

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
    differences = _paired_input(x, y, alternative, confidence)
    test = paired.signed_rank_test(differences, alternative, zero_method, method, bool(correction))
    with np.errstate(divide="ignore", invalid="ignore"):
        rank_biserial = (test.w_plus - test.w_minus) / (test.w_plus + test.w_minus)
    methods = sorted(set(test.exact.tolist()))  # False (approximation) first
    exact = test.exact.reshape(differences.shape[:-1])
    return _paired_result(
        "Wilcoxon signed-rank test",
        differences,
        alternative,
        confidence,
        statistic=_shaped(test.w_plus, differences),
        p_value=_shaped(test.p_value, differences),
        statistic_name="W+",
        method=" / ".join(
            "exact null distribution" if m else "normal approximation" for m in methods
        )
        + f" (zeros: {zero_method})",
        details={
            "w_minus": _shaped(test.w_minus, differences),
            "nonzero": _counts(test.nonzero, differences),
            "z": _shaped(test.z, differences),
            "rank_biserial": _shaped(rank_biserial, differences),
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
    differences = _paired_input(x, y, alternative, confidence)
    wins, losses = paired.sign_counts(differences)
    p_value = paired.sign_p_value(wins, losses, alternative)
    return _paired_result(
        "sign test",
        differences,
        alternative,
        confidence,
        statistic=_counts(wins, differences),
        p_value=_shaped(p_value, differences),
        statistic_name="wins",
        method="binomial(m, 1/2), ties dropped",
        details={
            "wins": _counts(wins, differences),
            "losses": _counts(losses, differences),
            "ties": _counts(differences.shape[-1] - wins - losses, differences),
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
    sign-flipped differences.  `rankscope.stats.multiple.pairwise_tests` runs the same test
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
    differences = _paired_input(x, y, alternative, confidence)
    test = paired.randomization_test(
        differences,
        alternative,
        statistic=statistic,
        exact=exact,
        permutations=permutations,
        seed=seed,
    )
    n = differences.shape[-1]
    details = {
        "exact": test.exact,
        "permutations": test.permutations,
        "count": _counts(test.extreme, differences),
    }
    if test.exact:
        method = f"exact: all 2^{n} sign flips"
    else:
        details["mc_se"] = _shaped(test.mc_se, differences)
        method = f"Monte Carlo: {test.permutations} random sign flips, (count + 1)/(B + 1)"
    return _paired_result(
        "permutation test (paired sign flips)",
        differences,
        alternative,
        confidence,
        statistic=_shaped(test.statistic, differences),
        p_value=_shaped(test.p_value, differences),
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
    differences = _paired_input(x, y, alternative, confidence)
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
        statistic=_shaped(test.statistic, differences),
        p_value=_shaped(test.p_value, differences),
        alternative=alternative,
        mean_difference=_shaped(mean, differences),
        ci_low=_shaped(low, differences),
        ci_high=_shaped(high, differences),
        confidence=confidence,
        effect_size=_shaped(d_z, differences),
        hedges_g=_shaped(g, differences),
        n=differences.shape[-1],
        statistic_name="t",
        method=f"{samples} bootstrap resamples of the shifted differences; percentile CI",
        details={
            "samples": samples,
            "count": _counts(test.extreme, differences),
            "sd": _shaped(sd, differences),
        },
        seed=seed,
    )


# --------------------------------------------------------------------- unpaired tests


def _independent_t(x, y, alternative, confidence, equal_var: bool) -> TestResult:
    x, y = _two_samples(x, y)
    _check_alternative(alternative)
    _check_confidence(confidence)
    n_x, n_y = x.shape[-1], y.shape[-1]
    difference = y.mean(axis=-1) - x.mean(axis=-1)
    pooled = _pooled_sd(x, y)
    if equal_var:
        se = pooled * math.sqrt(1 / n_x + 1 / n_y)
        df = n_x + n_y - 2
    else:
        se, df = _welch_se_df(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = difference / se
        d = difference / pooled
    low, high = _t_interval(difference, se, df, confidence, alternative)
    return TestResult(
        name="Student's t-test" if equal_var else "Welch's t-test",
        statistic=_scalar_or_array(t),
        p_value=_scalar_or_array(_t_p_value(t, df, alternative)),
        alternative=alternative,
        mean_difference=_scalar_or_array(difference),
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        effect_size=_scalar_or_array(d),
        hedges_g=_scalar_or_array(d * hedges_correction(n_x + n_y - 2)),
        n=n_x + n_y,
        df=df if equal_var else _scalar_or_array(df),
        statistic_name="t",
        effect_size_name="d",
        method="pooled variance" if equal_var else "separate variances, Welch–Satterthwaite df",
        details={
            "mean_x": _scalar_or_array(x.mean(axis=-1)),
            "mean_y": _scalar_or_array(y.mean(axis=-1)),
            "sd_x": _scalar_or_array(x.std(axis=-1, ddof=1)),
            "sd_y": _scalar_or_array(y.std(axis=-1, ddof=1)),
            "se": _scalar_or_array(se),
        },
    )


def student_t(
    x: ArrayLike,
    y: ArrayLike,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Student's two-sample t-test (equal variances) of mean(y) − mean(x).

    Pooled variance, n_x + n_y − 2 degrees of freedom; equals
    ``scipy.stats.ttest_ind(y, x)``.  Effect size: Cohen's d with the pooled sd, and Hedges'
    g = d · J(n_x + n_y − 2).  2-D inputs: one row per comparison (same row count).
    """
    return _independent_t(x, y, alternative, confidence, equal_var=True)


def welch_t(
    x: ArrayLike,
    y: ArrayLike,
    alternative: str = "two-sided",
    confidence: float = 0.95,
) -> TestResult:
    """Welch's t-test (unequal variances) of mean(y) − mean(x).

    se² = s_x²/n_x + s_y²/n_y, Welch–Satterthwaite degrees of freedom; equals
    ``scipy.stats.ttest_ind(y, x, equal_var=False)``.  The effect size is the same Cohen's
    d (pooled sd) and Hedges' g as :func:`student_t`.
    """
    return _independent_t(x, y, alternative, confidence, equal_var=False)


# -------------------------------------------------------------------------- rates


def _check_counts(successes_a, n_a, successes_b, n_b) -> tuple[int, int, int, int]:
    values = []
    for name, value in (
        ("successes_a", successes_a),
        ("n_a", n_a),
        ("successes_b", successes_b),
        ("n_b", n_b),
    ):
        if isinstance(value, bool) or not float(value).is_integer() or value < 0:
            raise UsageError(f"{name} must be a non-negative integer, got {value!r}")
        values.append(int(value))
    s_a, total_a, s_b, total_b = values
    if total_a < 1 or total_b < 1:
        raise UsageError("each group needs at least one observation (n_a, n_b ≥ 1)")
    if s_a > total_a or s_b > total_b:
        raise UsageError("successes cannot exceed the number of observations")
    return s_a, total_a, s_b, total_b


def _wald_interval(rate_a, n_a, rate_b, n_b, confidence, alternative):
    from scipy import stats

    difference = rate_b - rate_a
    se = math.sqrt(rate_a * (1 - rate_a) / n_a + rate_b * (1 - rate_b) / n_b)
    if alternative == "two-sided":
        half = stats.norm.ppf(0.5 + confidence / 2) * se
        return difference - half, difference + half
    half = stats.norm.ppf(confidence) * se
    return (
        (difference - half, math.inf)
        if alternative == "greater"
        else (-math.inf, difference + half)
    )


def _wilson(successes: int, total: int, z: float) -> tuple[float, float]:
    rate = successes / total
    centre = (rate + z * z / (2 * total)) / (1 + z * z / total)
    half = z / (1 + z * z / total) * math.sqrt(rate * (1 - rate) / total + z * z / (4 * total**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def _newcombe_interval(s_a, n_a, s_b, n_b, confidence, alternative):
    """Newcombe's hybrid score interval of rate_b − rate_a (Newcombe 1998, method 10)."""
    from scipy import stats

    level = 0.5 + confidence / 2 if alternative == "two-sided" else confidence
    z = float(stats.norm.ppf(level))
    rate_a, rate_b = s_a / n_a, s_b / n_b
    low_a, high_a = _wilson(s_a, n_a, z)
    low_b, high_b = _wilson(s_b, n_b, z)
    difference = rate_b - rate_a
    low = difference - math.sqrt((rate_b - low_b) ** 2 + (high_a - rate_a) ** 2)
    high = difference + math.sqrt((high_b - rate_b) ** 2 + (rate_a - low_a) ** 2)
    if alternative == "greater":
        return low, math.inf
    if alternative == "less":
        return -math.inf, high
    return low, high


def _rates_result(
    name: str,
    counts: tuple[int, int, int, int],
    interval: tuple[float, float],
    alternative: str,
    confidence: float,
    *,
    details: dict,
    **fields: Any,
) -> TestResult:
    """A test of two rates: the difference rate_b − rate_a, its interval, Cohen's h, and
    both rates first in ``details``; ``fields`` give the test's statistic, p-value, etc."""
    s_a, total_a, s_b, total_b = counts
    rate_a, rate_b = s_a / total_a, s_b / total_b
    return TestResult(
        name=name,
        alternative=alternative,
        mean_difference=rate_b - rate_a,
        ci_low=interval[0],
        ci_high=interval[1],
        confidence=confidence,
        effect_size=cohens_h(rate_a, rate_b),
        hedges_g=None,
        n=total_a + total_b,
        effect_size_name="h",
        details={"rate_a": rate_a, "rate_b": rate_b, **details},
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
    s_a, total_a, s_b, total_b = _check_counts(successes_a, n_a, successes_b, n_b)
    _check_alternative(alternative)
    _check_confidence(confidence)
    rate_a, rate_b = s_a / total_a, s_b / total_b
    difference = rate_b - rate_a
    if pooled:
        overall = (s_a + s_b) / (total_a + total_b)
        se = math.sqrt(overall * (1 - overall) * (1 / total_a + 1 / total_b))
    else:
        se = math.sqrt(rate_a * (1 - rate_a) / total_a + rate_b * (1 - rate_b) / total_b)
    if se > 0:
        z = difference / se
        p_value = float(_normal_p_value(z, alternative))
    elif difference == 0:
        z, p_value = math.nan, 1.0
    else:
        z = math.copysign(math.inf, difference)
        p_value = float(_normal_p_value(z, alternative))
    return _rates_result(
        "two-proportion z-test",
        (s_a, total_a, s_b, total_b),
        _wald_interval(rate_a, total_a, rate_b, total_b, confidence, alternative),
        alternative,
        confidence,
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

    s_a, total_a, s_b, total_b = _check_counts(successes_a, n_a, successes_b, n_b)
    _check_alternative(alternative)
    _check_confidence(confidence)
    table = [[s_b, total_b - s_b], [s_a, total_a - s_a]]
    sample_odds_ratio, p_value = stats.fisher_exact(table, alternative=alternative)
    conditional = odds_ratio(table, kind="conditional")
    interval = conditional.confidence_interval(confidence, alternative=alternative)
    return _rates_result(
        "Fisher's exact test",
        (s_a, total_a, s_b, total_b),
        _newcombe_interval(s_a, total_a, s_b, total_b, confidence, alternative),
        alternative,
        confidence,
        statistic=float(sample_odds_ratio),
        p_value=float(p_value),
        statistic_name="odds ratio",
        method="hypergeometric (scipy); Newcombe interval of the difference",
        details={
            "conditional_odds_ratio": float(conditional.statistic),
            "odds_ratio_ci": (float(interval.low), float(interval.high)),
        },
    )


# ------------------------------------------------------------------- power, sample size


def _check_probability(value: float, name: str) -> float:
    if not 0 < value < 1:
        raise UsageError(f"{name} must be in (0, 1), got {value!r}")
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

    _check_alternative(alternative)
    _check_probability(alpha, "alpha")
    if not math.isfinite(effect_size):
        raise UsageError(f"effect_size must be finite, got {effect_size!r}")
    if isinstance(n, bool) or int(n) != n or n < 2:
        raise UsageError(f"n must be an integer ≥ 2, got {n!r}")
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

    _check_alternative(alternative)
    _check_probability(power, "power")
    _check_probability(alpha, "alpha")
    if not math.isfinite(effect_size) or effect_size == 0:
        raise UsageError(f"effect_size must be finite and non-zero, got {effect_size!r}")
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
            raise UsageError(f"{name} must be in (0, 1), got {value!r}")
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

    _check_alternative(alternative)
    _check_probability(alpha, "alpha")
    if isinstance(n_per_group, bool) or int(n_per_group) != n_per_group or n_per_group < 1:
        raise UsageError(f"n_per_group must be a positive integer, got {n_per_group!r}")
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

    _check_alternative(alternative)
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
