"""Meta-evaluation: how measures order systems, how sharply they separate them, and how
robust their orderings are to missing data (Diaz & Ferraro 2022, §5.2 and §6).

* Kendall's τ_b (ties allowed) and τ_AP (Yilmaz, Aslam & Robertson, "A new rank correlation
  coefficient for information retrieval", SIGIR 2008) between two orderings of systems.
* Discriminative power (Sakai, "Statistical reform in information retrieval?", SIGIR Forum
  2014): the fraction of system pairs whose difference is significant at α, under the paired
  t-test with Bonferroni correction or the randomized Tukey HSD test; for a preference method
  the per-query preferences of a pair are tested against 0.
* Robustness: τ between the ordering from a sample of queries (or of judgments) and the
  ordering from all of them, averaged over seeded samples.

Every function takes arrays — systems × queries scores, or a queries × systems × systems
preference tensor — and every random one a seed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError
from . import paired
from .corrections import adjust
from .procedures import StatisticalTest, named


def kendall_tau(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's τ_b between two score vectors over the same systems (ties allowed).

    τ_b = (C − D) / sqrt((n0 − n1)(n0 − n2)) with C, D the concordant and discordant pairs,
    n0 = n(n−1)/2 and n1, n2 the pairs tied in x and in y.
    """
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise UsageError("kendall_tau needs two score vectors of the same length")
    if len(a) < 2:
        raise UsageError("kendall_tau needs at least two systems")
    i, j = pair_indices(len(a))
    dx, dy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    concordance = float((dx * dy).sum())
    n0 = len(i)
    tied_x, tied_y = int((dx == 0).sum()), int((dy == 0).sum())
    denom = np.sqrt(float(n0 - tied_x) * float(n0 - tied_y))
    return concordance / denom if denom > 0 else float("nan")


#: How many pairs × columns `kendall_taus` compares at a time (float64 each).
TAU_BLOCK_CELLS = 1 << 18


def kendall_taus(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`kendall_tau` between each column of ``x`` and the same column of ``y`` (systems ×
    columns, per-query scores say), the same values (the concordances are sums of −1, 0
    and 1: exact in any order); NaN where either column ties every pair.  A block of
    columns at a time (`TAU_BLOCK_CELLS`): the pairs × columns signs are not held whole
    (systems² × queries)."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise UsageError("kendall_taus needs two score matrices of the same shape")
    if a.shape[0] < 2:
        raise UsageError("kendall_tau needs at least two systems")
    i, j = pair_indices(a.shape[0])
    n0 = len(i)
    out = np.full(a.shape[1], np.nan)
    step = max(1, TAU_BLOCK_CELLS // n0)
    for start in range(0, a.shape[1], step):
        columns = slice(start, start + step)
        dx = np.sign(a[i, columns] - a[j, columns])
        dy = np.sign(b[i, columns] - b[j, columns])
        concordance = (dx * dy).sum(axis=0)
        tied_x, tied_y = (dx == 0).sum(axis=0), (dy == 0).sum(axis=0)
        denom = np.sqrt((n0 - tied_x).astype(np.float64) * (n0 - tied_y).astype(np.float64))
        part = np.full(len(denom), np.nan)
        defined = denom > 0
        part[defined] = concordance[defined] / denom[defined]
        out[columns] = part
    return out


def tau_ap(scores: ArrayLike, reference: ArrayLike) -> float:
    """τ_AP of the ordering by ``scores`` against the ordering by ``reference``.

    Systems are taken in the order ``scores`` gives them (best first); for the system at
    position i (i = 2..N), C(i) counts the systems above it that ``reference`` also places
    above it:  τ_AP = 2/(N − 1) · Σ_{i=2..N} C(i)/(i − 1) − 1.  Errors near the top cost more
    than errors near the bottom.  Ties in ``scores`` are broken by position; a tie in
    ``reference`` counts as not above.
    """
    s, r = np.asarray(scores, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    n = len(s)
    if n < 2 or r.shape != s.shape:
        raise UsageError("tau_ap needs two score vectors of the same length >= 2")
    order = np.argsort(-s, kind="stable")
    ranked = r[order]
    total = 0.0
    for i in range(1, n):
        total += float((ranked[:i] > ranked[i]).sum()) / i
    return 2.0 / (n - 1) * total - 1.0


@functools.lru_cache(maxsize=16)
def pair_indices(systems: int) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (i < j) of ``systems`` systems (read-only: kept for the next call, meta's
    robustness curves ask thousands of times)."""
    i, j = np.triu_indices(systems, 1)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def paired_t_pvalues(differences: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p-values, one per row of a (pairs × queries) matrix of
    per-query differences (or preferences against 0): `rankscope.stats.paired.t_test`, the
    test of `rankscope.stats.tests.paired_t` (all-zero rows: p = 1; constant non-zero rows:
    p = 0; fewer than 2 queries: `UsageError`)."""
    return paired.t_test(np.asarray(differences, dtype=np.float64)).p_value


#: The tests of `discriminative_power`, by name: a test of `rankscope.stats.procedures` and
#: the correction applied over the pairs (None: the test controls the family-wise error).
_T, _RANDOMIZED_TUKEY = named("t"), named("randomized-tukey")
POWER_TESTS: dict[str, tuple[StatisticalTest, str | None]] = {
    f"{_T.name}-bonferroni": (_T, "bonferroni"),
    _RANDOMIZED_TUKEY.name: (_RANDOMIZED_TUKEY, None),
}


def discriminative_power(
    data: np.ndarray,
    *,
    test: str = "t-bonferroni",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 0,
) -> float:
    """Fraction of system pairs found significantly different at ``alpha``.

    ``data``: a systems × queries score matrix (a metric) or a queries × systems × systems
    preference tensor (RPP and relatives).  ``test`` (`POWER_TESTS`): ``t-bonferroni``
    (paired t-test, p multiplied by the number of pairs) or ``randomized-tukey``
    (Carterette 2012; for preferences, `rankscope.stats.multiple.preference_tukey_pvalues`).
    """
    (power,) = discriminative_powers(
        [data], test=test, alpha=alpha, permutations=permutations, seed=seed
    )
    return power


def discriminative_powers(
    datas: Sequence[np.ndarray],
    *,
    test: str = "t-bonferroni",
    alpha: float = 0.05,
    permutations: int = 10_000,
    seed: int = 0,
) -> list[float]:
    """`discriminative_power` of each of ``datas`` (several measures over the same systems),
    with the same values; the preference tensors of one shape go through the test together
    (`rankscope.stats.multiple.preference_tukey_pvalues` draws the permutations of the
    randomized Tukey HSD test once for all of them)."""
    arrays = [np.asarray(data, dtype=np.float64) for data in datas]
    for data in arrays:
        if len(pair_indices(data.shape[1] if data.ndim == 3 else data.shape[0])[0]) == 0:
            raise UsageError("discriminative power needs at least two systems")
    if test not in POWER_TESTS:
        raise UsageError(f"unknown test {test!r}: {' or '.join(POWER_TESTS)}")
    procedure, correction = POWER_TESTS[test]
    # the arrays of one shape tested under one draw of the permutations (the preference
    # tensors; the metrics' matrices when the test has a way to): the same p-values
    p_values: dict[int, np.ndarray] = {}
    if procedure.paired is None:
        together: dict[tuple[int, ...], list[int]] = {}
        for k, data in enumerate(arrays):
            if data.ndim == 3 or procedure.all_pairs_together is not None:
                together.setdefault(data.shape, []).append(k)
        for shape, members in together.items():
            stack = _stacked([arrays[k] for k in members])
            if len(shape) == 3:
                assert procedure.preferences is not None
                found = procedure.preferences(stack, permutations, seed)
            else:
                assert procedure.all_pairs_together is not None
                found = procedure.all_pairs_together(stack, permutations, seed)
            p_values.update(zip(members, found, strict=True))
    powers = []
    for k, data in enumerate(arrays):
        preference = data.ndim == 3
        i, j = pair_indices(data.shape[1] if preference else data.shape[0])
        if procedure.paired is not None:
            p = adjust(_paired_pvalues(procedure, data, i, j, permutations, seed), correction)
        elif preference:
            p = p_values[k][i, j]
        elif k in p_values:  # every pair a < b, in the order of (i, j)
            p = p_values[k]
        else:
            assert procedure.all_pairs is not None
            p = procedure.all_pairs(data, None, 0.05, permutations, seed).p_matrix()[i, j]
        powers.append(float((p < alpha).mean()))
    return powers


#: How many pairs of systems `_paired_pvalues` tests at a time (their differences: pairs ×
#: queries, 10 MB at 100 systems × 250 queries if made at once, per measure).
PAIRS_BLOCK = 512


def _paired_pvalues(
    procedure: StatisticalTest, data: np.ndarray, i: np.ndarray, j: np.ndarray,
    permutations: int, seed: int,
) -> np.ndarray:  # fmt: skip
    """The p-values of ``procedure``'s paired test of the pairs (i, j) of ``data`` (systems ×
    queries, or a preference tensor: queries × systems × systems), before correction.

    A test that draws nothing (not `StatisticalTest.random`: t, Wilcoxon, sign) gives
    each pair's p-value from that pair's differences alone, and is run on blocks of
    `PAIRS_BLOCK` pairs: what grows with the square of the systems is then one block.  Each
    block's differences have the layout the whole array had (the pairs' rows of a
    preference tensor's gather, seen transposed; a metric's rows of differences), so numpy
    adds each pair's numbers in the same order: the same bits (`tests/test_stats_meta.py`).
    Blocks hold at least two pairs (a single row's layout would be contiguous both ways).
    A test that draws permutations or samples takes every pair at once (its draws depend on
    the shape)."""
    assert procedure.paired is not None
    blocks = 1 if procedure.random else max(1, len(i) // PAIRS_BLOCK)
    found = []
    for rows in np.array_split(np.arange(len(i)), blocks):
        a, b = i[rows], j[rows]
        diffs = data[:, a, b].T if data.ndim == 3 else data[a] - data[b]
        found.append(procedure.paired(paired.as_rows(diffs), permutations, seed).p_value)
    return found[0] if len(found) == 1 else np.concatenate(found)


def _stacked(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """``np.stack(arrays)``; without a copy when ``arrays`` are the consecutive slices of
    one contiguous array along its first or its last axis (the preference methods computed
    together, `rankscope.measures.compute_requests`: their tensors, the largest data of a
    study, are not held twice), that array seen with the slices first."""
    base, first = arrays[0].base, arrays[0]
    if (
        isinstance(base, np.ndarray)
        and base.flags.c_contiguous
        and base.dtype == first.dtype
        and all(a.base is base and a.shape == first.shape for a in arrays)
    ):
        for axis in (0, -1):
            shape, strides = list(base.shape), list(base.strides)
            step = strides.pop(axis)
            if shape.pop(axis) == len(arrays) and shape == list(first.shape) and all(
                list(a.strides) == strides and a.ctypes.data == base.ctypes.data + k * step
                for k, a in enumerate(arrays)
            ):
                return np.moveaxis(base, axis, 0)
    return np.stack(arrays)


def robustness_curve(
    ordering_of: Callable[[np.ndarray], np.ndarray],
    full: np.ndarray,
    sizes: Sequence[int],
    *,
    samples: int = 10,
    seed: int = 0,
    total: int | None = None,
) -> list[tuple[int, float, float]]:
    """τ between orderings from random subsets and the ordering from everything.

    ``ordering_of(indices)`` gives the systems' scores from the subset ``indices`` of
    ``total`` items (queries, say); ``full`` is the scores from all of them.  For each size,
    ``samples`` seeded subsets; returns (size, mean τ, standard deviation of τ).
    """
    rng = np.random.default_rng(seed)
    total = total if total is not None else int(max(sizes))
    out = []
    for size in sizes:
        taus = [
            kendall_tau(ordering_of(np.sort(rng.choice(total, size=size, replace=False))), full)
            for _ in range(samples)
        ]
        out.append((int(size), float(np.mean(taus)), float(np.std(taus))))
    return out
