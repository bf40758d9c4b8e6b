"""Each paired test, written once, on many comparisons at once.

Every function here takes per-query differences — a 1-D array (one comparison) or a 2-D
array with one row per comparison (e.g. every pair of 100 systems) and one column per
query — and computes one test on every row together.  The public faces call these:
`rankscope.stats.tests` (``paired_t``, ``wilcoxon``, ``sign_test``, ``permutation_test``,
``paired_bootstrap``: one comparison, a full `TestResult`), `rankscope.stats.procedures`
(the table of tests: ``p_values``, ``pairwise_tests``, ``compare``, ``latex_table``),
`rankscope.stats.meta` (``paired_t_pvalues``, discriminative power) and
`rankscope.interleaving.power.sign_test`; so a test gives the same p-value on the
same data whichever way it is reached.  Results are per row (arrays of length ``rows``).

Conventions (the package docstring, `rankscope.stats`, states them for users):

* Fewer than 2 queries: `rankscope.errors.UsageError` ("needs at least 2 queries").
* Differences that are all zero (identical systems): p = 1 for every test and every
  alternative; the t statistic is 0 (0/0 is taken as "no difference"), W+ = 0, 0 wins.
* Floating-point ties: a statistic recomputed from the data (a sign-flipped sum, a
  permuted range of means) is "at least as extreme" as the observed one when it is within
  ``TIE_TOLERANCE`` (1e-9) times the mean absolute value of the numbers the statistic
  averages: for the randomization test ``1e-9 · mean|d|`` on the scale of the mean or
  median (``1e-9 · Σ|d|`` for the sum); for randomized Tukey HSD ``1e-9 · mean|score|``.
  Rank and sign tests compare differences with 0 and with each other exactly, as
  scipy.stats does (y − x is 0 exactly when y = x).
* Randomization: all 2^n sign flips are enumerated up to ``EXACT_MAX_QUERIES`` (20)
  queries, p = count / 2^n; beyond, ``permutations`` random flips from
  ``numpy.random.default_rng(seed)`` drawn in fixed blocks shared by all rows (a row gets
  the p-value it gets alone), p = (count + 1) / (permutations + 1).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..errors import UsageError, shown

__all__ = [
    "ALTERNATIVES",
    "EXACT_MAX_QUERIES",
    "TIE_TOLERANCE",
    "Bootstrap",
    "Randomization",
    "SignedRank",
    "TTest",
    "as_rows",
    "bootstrap_test",
    "normal_p_value",
    "randomization_test",
    "sign_p_value",
    "signed_rank_test",
    "t_p_value",
    "t_test",
]

ALTERNATIVES = ("two-sided", "greater", "less")

#: Two values of a statistic closer than this, relative to the mean absolute value of the
#: numbers it averages, are equal (see the module docstring).
TIE_TOLERANCE = 1e-9

#: The randomization test enumerates all 2^n sign flips up to this many queries.
EXACT_MAX_QUERIES = 20

# The most queries exact enumeration accepts: the mean counts 2^n flips from two halves of
# 2^(n/2) sums (meet in the middle); the median evaluates every flip.
EXACT_LIMIT = {"mean": 32, "median": 24}
# Size (in float64 elements) of one block of (comparisons × resamples) values: 32 MB.
_BLOCK_ELEMENTS = 1 << 22
# Random draws are made in blocks of this many resamples, whatever the number of
# comparisons, so that a seed gives the same draws for one pair or for thousands.
_DRAW_BLOCK = 4096


# ---------------------------------------------------------------------------- input


def check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        raise UsageError(
            f"alternative must be one of {', '.join(map(repr, ALTERNATIVES))}, got {alternative!r}"
        )
    return alternative


def check_queries(count: int, what: str = "a paired test") -> None:
    if count < 2:
        raise UsageError(f"{what} needs at least 2 queries, got {count}")


def as_rows(differences: Any) -> np.ndarray:
    """The differences as a (rows × queries) float64 matrix: finite, at least 2 queries."""
    rows = np.asarray(differences, dtype=np.float64)
    if rows.ndim == 1:
        rows = rows[None, :]
    if rows.ndim != 2:
        raise UsageError(
            "differences must be 1-D (one value per query) or 2-D (one row per comparison), "
            f"got shape {rows.shape}"
        )
    check_queries(rows.shape[1])
    if not np.isfinite(rows).all():
        raise UsageError("differences contain NaN or infinity")
    return rows


def _seed(seed: Any) -> Any:
    if isinstance(seed, np.random.Generator):
        raise TypeError("seed must be an int, a numpy SeedSequence or None, not a Generator")
    return seed


# ---------------------------------------------------------------------- reference laws


def t_p_value(t, df, alternative: str):
    """p-value of a t statistic with ``df`` degrees of freedom (t = ±inf allowed)."""
    from scipy import special

    t = np.asarray(t, dtype=np.float64)
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.stdtr(df, -np.abs(t)))
    if alternative == "greater":
        return special.stdtr(df, -t)
    return special.stdtr(df, t)


def normal_p_value(z, alternative: str):
    """p-value of a standard normal statistic."""
    from scipy import special

    z = np.asarray(z, dtype=np.float64)
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.ndtr(-np.abs(z)))
    if alternative == "greater":
        return special.ndtr(-z)
    return special.ndtr(z)


# ------------------------------------------------------------------------- the t-test


class TTest(NamedTuple):
    statistic: np.ndarray  # t per row; 0 for all-zero differences, ±inf for constant ones
    p_value: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    se: np.ndarray
    df: int


def _t_statistic(mean: np.ndarray, se: np.ndarray) -> np.ndarray:
    """mean / se, with 0/0 = 0 (no difference at all) and c/0 = ±inf."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    return np.where(se > 0, t, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


def t_test(differences: Any, alternative: str = "two-sided") -> TTest:
    """Student's paired t-test of each row: t = mean(d) / (sd(d) / √n), n − 1 df.

    Equal to ``scipy.stats.ttest_rel`` on every row, except all-zero differences: t = 0 and
    p = 1 for every alternative (scipy: NaN).  Constant non-zero differences give t = ±inf
    (p = 0 two-sided).
    """
    check_alternative(alternative)
    rows = as_rows(differences)
    n = rows.shape[1]
    mean = rows.mean(axis=1)
    sd = rows.std(axis=1, ddof=1)
    se = sd / math.sqrt(n)
    t = _t_statistic(mean, se)
    # no difference at all: no evidence for any alternative (one-sided P(T ≥ 0) would be 1/2)
    p_value = np.where((mean == 0) & (se == 0), 1.0, t_p_value(t, n - 1, alternative))
    return TTest(t, p_value, mean, sd, se, n - 1)


# ------------------------------------------------------------ Wilcoxon signed-rank test


class SignedRank(NamedTuple):
    w_plus: np.ndarray  # sum of the ranks of |d| where d > 0 (zsplit: plus half the zeros')
    w_minus: np.ndarray
    nonzero: np.ndarray  # queries with d ≠ 0
    z: np.ndarray  # normal approximation's z (NaN where the exact law was used)
    p_value: np.ndarray
    exact: np.ndarray  # bool: the exact null distribution was used


def _signed_rank_pmf(weights: tuple[int, ...]) -> np.ndarray:
    """Null distribution of Σ_{i: sign_i = +} weights_i under independent fair signs.

    ``weights`` are non-negative integers (twice the ranks, so tied half-ranks stay
    integral); returns P(sum = k) for k = 0 .. Σ weights.  The values are multiples of
    2^-m, so up to m ≈ 50 every partial sum below is exact.
    """
    pmf = np.ones(1)
    for weight in weights:
        grown = np.zeros(len(pmf) + weight)
        grown[: len(pmf)] += 0.5 * pmf
        grown[weight:] += 0.5 * pmf
        pmf = grown
    return pmf


def _tie_groups(absolute: np.ndarray) -> np.ndarray:
    """(rows × queries) sizes of the groups of equal values of each row (sorted; a row's
    unused trailing entries are 0)."""
    rows, n = absolute.shape
    ordered = np.sort(absolute, axis=1)
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group = np.cumsum(starts, axis=1) - 1
    flat = (np.arange(rows)[:, None] * n + group).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n)


def signed_rank_test(
    differences: Any,
    alternative: str = "two-sided",
    zero_method: str = "wilcox",
    method: str = "auto",
    correction: bool = False,
) -> SignedRank:
    """Wilcoxon's signed-rank test of each row, as ``scipy.stats.wilcoxon`` on that row.

    Zeros: ``"wilcox"`` drops them before ranking, ``"pratt"`` ranks them and drops them,
    ``"zsplit"`` splits their ranks between W+ and W−.  ``method="auto"`` (scipy 1.17's
    rule, per row): the normal approximation above 50 queries; else the exact null law
    when there are no ties and no zeros; with ties or zeros, exact when n ≤ 13 (scipy: an
    exhaustive permutation test, the same numbers), else the normal approximation.
    ``"exact"`` uses the exact law of W+ given the observed ranks (ties and zeros
    included, by counting sign assignments); ``"approx"`` the normal approximation with the
    tie correction (``correction``: continuity correction).  Exact two-sided p-value:
    2 · min(P(W+ ≤ w), P(W+ ≥ w)), capped at 1.  No non-zero difference: p = 1.
    """
    from scipy import stats

    check_alternative(alternative)
    if zero_method not in ("wilcox", "pratt", "zsplit"):
        raise UsageError(f"zero_method must be 'wilcox', 'pratt' or 'zsplit', got {zero_method!r}")
    if method not in ("auto", "exact", "approx"):
        raise UsageError(f"method must be 'auto', 'exact' or 'approx', got {method!r}")
    rows = as_rows(differences)
    count, n = rows.shape
    absolute = np.abs(rows)
    zero = rows == 0
    n_zero = zero.sum(axis=1)
    nonzero = n - n_zero
    all_ranks = stats.rankdata(absolute, axis=1)  # the zeros take ranks 1..n_zero
    # dropping the zeros lowers every other rank by their number (exact: half-integers)
    ranks = all_ranks - n_zero[:, None] if zero_method == "wilcox" else all_ranks
    positive, negative = rows > 0, rows < 0
    w_plus = np.where(positive, ranks, 0.0).sum(axis=1)
    w_minus = np.where(negative, ranks, 0.0).sum(axis=1)
    if zero_method == "zsplit":
        shift = np.where(zero, all_ranks, 0.0).sum(axis=1) / 2
        w_plus, w_minus = w_plus + shift, w_minus + shift
    groups = _tie_groups(absolute)
    groups[n_zero > 0, 0] = 0  # the group of the zeros comes first
    has_ties = (groups > 1).any(axis=1)
    tie_term = (groups**3 - groups).sum(axis=1).astype(np.float64)

    if method == "auto":  # scipy.stats.wilcoxon's rule (scipy 1.17)
        exact = np.full(count, n <= 13) if n <= 50 else np.zeros(count, dtype=bool)
        if n <= 50:
            exact |= ~has_ties & (n_zero == 0)
    else:
        exact = np.full(count, method == "exact")

    p_value = np.ones(count)
    z = np.full(count, np.nan)
    pmfs: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
    for row in np.flatnonzero(exact & (nonzero > 0)).tolist():
        signs = rows[row][~zero[row]]
        weights = np.rint(2 * ranks[row][~zero[row]]).astype(np.int64)
        key = tuple(sorted(weights.tolist()))
        if key not in pmfs:
            pmf = _signed_rank_pmf(key)
            pmfs[key] = (np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1])
        at_most, at_least = pmfs[key]
        observed = int(weights[signs > 0].sum())
        p_less, p_greater = at_most[observed], at_least[observed]
        if alternative == "two-sided":
            p_value[row] = min(1.0, 2 * min(p_less, p_greater))
        else:
            p_value[row] = p_greater if alternative == "greater" else p_less
    approx = np.flatnonzero(~exact & (nonzero > 0))
    if len(approx):
        terms = (nonzero if zero_method == "wilcox" else np.full(count, n))[approx]
        terms = terms.astype(np.float64)
        mean = terms * (terms + 1) / 4
        variance = terms * (terms + 1) * (2 * terms + 1)
        ties = tie_term[approx]
        zeros = n_zero[approx].astype(np.float64)
        if zero_method == "pratt":
            mean = mean - zeros * (zeros + 1) / 4
            variance = variance - zeros * (zeros + 1) * (2 * zeros + 1)
        elif zero_method == "zsplit":
            ties = ties + zeros**3 - zeros
        se = np.sqrt((variance - ties / 2) / 24)
        statistic = (w_plus[approx] - mean) / se
        if correction:
            direction = {"greater": 1.0, "less": -1.0}.get(alternative)
            statistic = statistic - (np.sign(statistic) if direction is None else direction) * (
                0.5 / se
            )
        z[approx] = statistic
        p_value[approx] = normal_p_value(statistic, alternative)
    return SignedRank(w_plus, w_minus, nonzero, z, p_value, exact)


# --------------------------------------------------------------------------- sign test


def sign_p_value(wins, losses, alternative: str = "two-sided"):
    """Sign test p-value from the counts: wins ~ Binomial(wins + losses, 1/2) under H0.

    "greater": P(X ≥ wins); "less": P(X ≤ wins); two-sided: min(1, 2 · P(X ≤ min(wins,
    losses))) — equal to ``scipy.stats.binomtest(wins, wins + losses)``.  Both tails are
    lower tails (P(X ≥ wins) = P(X ≤ losses) by symmetry), so swapping wins and losses
    swaps "greater" and "less" exactly.  No decided comparison (wins = losses = 0): p = 1.
    Vectorised over arrays of counts.
    """
    from scipy import special

    check_alternative(alternative)
    wins = np.asarray(wins, dtype=np.int64)
    losses = np.asarray(losses, dtype=np.int64)
    if np.any(wins < 0) or np.any(losses < 0):
        raise UsageError("wins and losses must be non-negative counts")
    trials = wins + losses
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * special.bdtr(np.minimum(wins, losses), trials, 0.5))
    else:
        p = special.bdtr(losses if alternative == "greater" else wins, trials, 0.5)
    return np.where(trials > 0, p, 1.0)


def sign_counts(differences: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the queries with d > 0 (wins) and with d < 0 (losses); zeros are ties."""
    rows = as_rows(differences)
    return (rows > 0).sum(axis=1), (rows < 0).sum(axis=1)


# ------------------------------------------------------------------ randomization test


class Randomization(NamedTuple):
    statistic: np.ndarray  # the observed mean (or median) difference per row
    # flips at least as extreme as the observed one (identity included): the "count" of
    # p = count / 2^n (not named count, which would hide tuple.count)
    extreme: np.ndarray
    permutations: int  # 2^n (exact) or the number of random flips
    p_value: np.ndarray
    exact: bool
    mc_se: np.ndarray | None  # Monte Carlo standard error √(p (1 − p) / B), or None


def _exact_flips(n: int, start: int, stop: int) -> np.ndarray:
    """Sign vectors number start..stop−1 of the 2^(n−1) with a + first sign (float ±1)."""
    codes = np.arange(start, stop, dtype=np.int64)
    bits = (codes[:, None] >> np.arange(n - 1, dtype=np.int64)) & 1
    flips = np.ones((stop - start, n))
    flips[:, 1:] = 1.0 - 2.0 * bits
    return flips


def _all_flips(k: int) -> np.ndarray:
    """All 2^k sign vectors of length k (float ±1), one per row."""
    codes = np.arange(1 << k, dtype=np.int64)
    return 1.0 - 2.0 * ((codes[:, None] >> np.arange(k, dtype=np.int64)) & 1)


def _exact_sum_counts(rows, observed, tolerance, alternative) -> np.ndarray:
    """Per row, how many of the 2^n sign flips give a sum at least as extreme as observed.

    Meet in the middle: the sums over the first and the last half of the queries take
    2^(n/2) values each; a flip's sum is one of each, so sorting one half and searching it
    for every value of the other counts all 2^n flips in O(2^(n/2) log) per row.
    """
    n = rows.shape[1]
    half = n // 2
    left, right = _all_flips(half), _all_flips(n - half)
    counts = np.zeros(len(rows), dtype=np.int64)
    step = max(1, _BLOCK_ELEMENTS // len(right))
    for begin in range(0, len(rows), step):
        block = slice(begin, begin + step)
        left_sums = rows[block, :half] @ left.T
        right_sums = np.sort(rows[block, half:] @ right.T, axis=1)
        for offset, (sums, sorted_sums) in enumerate(zip(left_sums, right_sums, strict=True)):
            row = begin + offset

            def at_least(value, sums=sums, sorted_sums=sorted_sums):
                below = np.searchsorted(sorted_sums, value - sums, side="left")
                return len(sums) * len(sorted_sums) - int(below.sum())

            def at_most(value, sums=sums, sorted_sums=sorted_sums):
                return int(np.searchsorted(sorted_sums, value - sums, side="right").sum())

            if alternative == "greater":
                counts[row] = at_least(observed[row] - tolerance[row])
            elif alternative == "less":
                counts[row] = at_most(observed[row] + tolerance[row])
            else:
                bound = abs(observed[row]) - tolerance[row]
                counts[row] = at_least(bound) + at_most(-bound) if bound > 0 else 1 << n
    return counts


def _flip_statistics(rows: np.ndarray, flips: np.ndarray, statistic: str) -> np.ndarray:
    """(comparisons × flips) values of the statistic (sum or median) of the flipped rows."""
    if statistic == "mean":
        return rows @ flips.T
    return np.median(rows[:, None, :] * flips[None, :, :], axis=2)


def count_extreme(null: np.ndarray, observed: np.ndarray, tolerance: np.ndarray, alternative):
    """Per row, how many null values are at least as extreme as the observed one (within
    ``tolerance``: "greater" null ≥ observed, "less" ≤, two-sided |null| ≥ |observed|)."""
    if alternative == "greater":
        return (null >= (observed - tolerance)[:, None]).sum(axis=1)
    if alternative == "less":
        return (null <= (observed + tolerance)[:, None]).sum(axis=1)
    return (np.abs(null) >= (np.abs(observed) - tolerance)[:, None]).sum(axis=1)


def check_count(value: Any, name: str) -> int:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise UsageError(f"{name} must be a positive integer, got {shown(value)}")
    return int(value)


def randomization_test(
    differences: Any,
    alternative: str = "two-sided",
    *,
    statistic: str = "mean",
    exact: bool | None = None,
    permutations: int = 100_000,
    seed: Any = 0,
) -> Randomization:
    """Fisher's paired randomization test of each row: random sign flips of d.

    ``exact=None``: enumerate the 2^n flips when n ≤ ``EXACT_MAX_QUERIES``, else Monte
    Carlo; ``True`` forces enumeration (up to 32 queries for the mean, 24 for the median),
    ``False`` Monte Carlo.  Exact p = count / 2^n; Monte Carlo p = (count + 1) /
    (permutations + 1), flips from ``numpy.random.default_rng(seed)`` in fixed blocks
    shared by all rows.  Ties within ``TIE_TOLERANCE · mean|d|`` (on the statistic's
    scale) count as at least as extreme.
    """
    check_alternative(alternative)
    if statistic not in ("mean", "median"):
        raise UsageError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    rows = as_rows(differences)
    n = rows.shape[1]
    if exact is None:
        exact = n <= EXACT_MAX_QUERIES
    limit = EXACT_LIMIT[statistic]
    if exact and n > limit:
        raise UsageError(
            f"exact enumeration of the sign flips of the {statistic} is limited to "
            f"{limit} queries, got {n}; use exact=False (Monte Carlo)"
        )
    if not exact:
        permutations = check_count(permutations, "permutations")
        seed = _seed(seed)
    scale = np.abs(rows).mean(axis=1)
    if statistic == "mean":
        observed = rows.sum(axis=1)  # the sum: same ordering as the mean, no division
        tolerance = TIE_TOLERANCE * n * scale
    else:
        observed = np.median(rows, axis=1)
        tolerance = TIE_TOLERANCE * scale
    per_flip = n if statistic == "median" else 1
    counts = np.zeros(len(rows), dtype=np.int64)

    def accumulate(flips: np.ndarray, both_signs: bool) -> None:
        step = max(1, _BLOCK_ELEMENTS // (len(flips) * per_flip))
        for begin in range(0, len(rows), step):
            block = slice(begin, begin + step)
            null = _flip_statistics(rows[block], flips, statistic)
            counts[block] += count_extreme(null, observed[block], tolerance[block], alternative)
            if both_signs:  # the negated flips
                counts[block] += count_extreme(
                    -null, observed[block], tolerance[block], alternative
                )

    if exact and statistic == "mean":
        counts = _exact_sum_counts(rows, observed, tolerance, alternative)
    elif exact:
        half = 1 << (n - 1)
        draw = max(1, min(half, _BLOCK_ELEMENTS // (16 * n)))
        for start in range(0, half, draw):
            accumulate(_exact_flips(n, start, min(half, start + draw)), both_signs=True)
    reported = observed / n if statistic == "mean" else observed
    if exact:
        total = 1 << n
        return Randomization(reported, counts, total, counts / total, True, None)
    rng = np.random.default_rng(seed)
    for start in range(0, permutations, _DRAW_BLOCK):
        size = min(_DRAW_BLOCK, permutations - start)
        bits = rng.integers(0, 2, size=(size, n), dtype=np.int8)
        accumulate(1.0 - 2.0 * bits, both_signs=False)
    p_value = (counts + 1) / (permutations + 1)
    mc_se = np.sqrt(p_value * (1 - p_value) / permutations)
    return Randomization(reported, counts, permutations, p_value, False, mc_se)


# ------------------------------------------------------------------- paired bootstrap


class Bootstrap(NamedTuple):
    statistic: np.ndarray  # observed t per row
    extreme: np.ndarray  # resamples with t* at least as extreme as t (the "count" of p)
    p_value: np.ndarray  # (count + 1) / (samples + 1)
    quantiles: np.ndarray  # (rows × len(quantiles)) of the resampled mean difference


def _bootstrap_counts(rng: np.random.Generator, samples: int, n: int) -> np.ndarray:
    """(samples × n) multiplicities of each query in each resample of n with replacement."""
    counts = np.empty((samples, n))
    for start in range(0, samples, _DRAW_BLOCK):
        size = min(_DRAW_BLOCK, samples - start)
        picks = rng.integers(0, n, size=(size, n))
        flat = (np.arange(size)[:, None] * n + picks).ravel()
        counts[start : start + size] = np.bincount(flat, minlength=size * n).reshape(size, n)
    return counts


def bootstrap_test(
    differences: Any,
    alternative: str = "two-sided",
    *,
    samples: int = 10_000,
    seed: Any = 0,
    quantiles: tuple[float, ...] = (0.025, 0.975),
) -> Bootstrap:
    """Sakai's (2006) paired bootstrap test of each row, and percentile bounds.

    t = mean(d) / (sd(d)/√n) as in `t_test` (0/0 = 0); the differences are shifted to mean
    0, resampled ``samples`` times (``numpy.random.default_rng(seed)``, resamples shared by
    all rows) and t* computed on each resample with the same rule; p = (count + 1) /
    (samples + 1) with count the resamples where t* is at least as extreme as t (|t*| ≥ |t|
    two-sided, t* ≥ t "greater", t* ≤ t "less").  All-zero differences: every t* = 0 = t,
    so p = 1.  ``quantiles`` of the resampled mean difference (linear interpolation).
    """
    check_alternative(alternative)
    rows = as_rows(differences)
    samples = check_count(samples, "samples")
    n = rows.shape[1]
    observed = t_test(rows).statistic
    mean = rows.mean(axis=1)
    centered = rows - mean[:, None]
    counts_matrix = _bootstrap_counts(np.random.default_rng(_seed(seed)), samples, n).T
    extreme = np.zeros(len(rows), dtype=np.int64)
    bounds = np.empty((len(rows), len(quantiles)))
    step = max(1, _BLOCK_ELEMENTS // samples)
    for begin in range(0, len(rows), step):
        block = slice(begin, begin + step)
        resampled_mean = centered[block] @ counts_matrix / n
        resampled_squares = centered[block] ** 2 @ counts_matrix
        variance = np.maximum(resampled_squares - n * resampled_mean**2, 0.0) / (n - 1)
        t_star = _t_statistic(resampled_mean, np.sqrt(variance / n))
        t_observed = observed[block][:, None]
        if alternative == "two-sided":
            hits = np.abs(t_star) >= np.abs(t_observed)
        elif alternative == "greater":
            hits = t_star >= t_observed
        else:
            hits = t_star <= t_observed
        extreme[block] = hits.sum(axis=1)
        bounds[block] = np.quantile(resampled_mean, list(quantiles), axis=1).T + mean[block, None]
    return Bootstrap(observed, extreme, (extreme + 1) / (samples + 1), bounds)
