"""From per-query preferences to an ordering of systems (Diaz & Ferraro 2022, §5.4).

* Win rate (eq. 7): RPP_S(π) = Σ_{π' in S} RPP(π, π'), per query; the per-query ordering
  sorts runs by win rate, ties by run name descending (as the authors' code).
* Markov-chain aggregation MC4 (Dwork, Kumar, Naor & Sivakumar, "Rank aggregation methods
  for the Web", WWW 2001): a walk on runs that moves from a run to one that a majority of
  queries ranks above it.  ``reference=True`` reproduces the authors' aggregator exactly (no
  damping, 10 power iterations from a uniform start, ties by name descending); otherwise the
  chain is damped (teleportation, like PageRank) and iterated to convergence.
* Borda count over the per-query orderings; mean preference over queries; Bradley–Terry
  strengths fitted to the pairwise outcomes, with bootstrap intervals over queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import UsageError
from ..stats.intervals import percentile_interval


def win_rates(prefs: np.ndarray) -> np.ndarray:
    """W[q, a] = Σ_b P[q, a, b], added in run order (as the authors' code accumulates)."""
    q, n = prefs.shape[:2]
    out = np.zeros((q, n))
    if not prefs.shape[2]:
        return out
    # a block of queries at a time, b outermost: the sum over b adds its slices in order,
    # from −0.0 (which adds nothing, whatever the sign of a zero)
    step = max(1, (1 << 17) // max(prefs.shape[1] * prefs.shape[2], 1))
    for start in range(0, q, step):
        block = np.ascontiguousarray(np.moveaxis(prefs[start : start + step], 2, 0))
        out[start : start + step] = block.sum(axis=0, initial=-0.0)
    return out


def order_by(scores: Sequence[float], names: Sequence[str]) -> list[str]:
    """Names by score descending, equal scores by name descending."""
    return [name for _, name in sorted(zip(scores, names, strict=True), reverse=True)]


def query_positions(prefs: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """`query_orderings` as indices into ``names`` (queries × runs, best first)."""
    wins = win_rates(prefs)
    if not wins.size:
        return np.zeros(wins.shape, dtype=np.int64)
    by_name = np.empty(len(names), dtype=np.int64)
    by_name[sorted(range(len(names)), key=lambda i: names[i])] = np.arange(len(names))
    # ascending by (win rate, name), reversed: descending, equal win rates by name descending
    ascending = np.lexsort((np.broadcast_to(by_name, wins.shape), wins), axis=-1)
    return ascending[:, ::-1]


def query_orderings(prefs: np.ndarray, names: Sequence[str]) -> list[list[str]]:
    """Per query, the runs ordered by win rate (`order_by` each query's, all at once)."""
    return [[names[i] for i in row] for row in query_positions(prefs, names).tolist()]


def mc4(orderings: Sequence[Sequence[str]], **options: Any) -> tuple[list[str], np.ndarray]:
    """MC4 rank aggregation of orderings of run names (best first): `mc4_positions` of
    their indices, the runs numbered in the first ordering's order."""
    names = list(orderings[0])
    index = {name: i for i, name in enumerate(names)}
    positions = np.array([[index[name] for name in ordering] for ordering in orderings])
    return mc4_positions(positions, names, **options)


def mc4_positions(
    positions: np.ndarray,
    names: Sequence[str],
    *,
    reference: bool = True,
    damping: float = 0.15,
    iterations: int = 10,
    tolerance: float = 1e-12,
    max_iterations: int = 10_000,
) -> tuple[list[str], np.ndarray]:
    """MC4 rank aggregation of orderings given as rows of indices into ``names`` (best
    first, every run once in each; `query_positions`); returns (ordering, each run's chain
    mass, in that order).

    The chain: from run i, move to each run j that a majority of the orderings places above
    i with probability 1/n, stay otherwise.  ``reference``: no damping and ``iterations``
    power iterations from the all-ones vector (the authors' aggregator); otherwise with
    probability ``damping`` jump to a uniformly random run, iterated until the L1 change is
    below ``tolerance``.  The chain's states are the runs in the first ordering's order (the
    sums over states add in that order), whatever the order of ``names``.
    """
    first = positions[0]
    n = len(first)
    relabel = np.empty(n, dtype=np.int64)
    relabel[first] = np.arange(n)
    names = [names[i] for i in first.tolist()]
    ranks = np.empty(positions.shape, dtype=np.int16 if n < 1 << 15 else np.int64)
    np.put_along_axis(ranks, relabel[positions], np.arange(n, dtype=ranks.dtype), axis=1)
    # margin[i, j]: +1 for each ordering placing run i above run j, −1 for each placing it
    # below; every ordering places each run once, so it is 2 · #(i above j) − #orderings
    # off the diagonal (whole numbers: exact, as adding the orderings' ±1 one by one)
    above = np.zeros((n, n), dtype=np.int64)
    step = max(1, (1 << 22) // max(n * n, 1))  # orderings at a time: bounded memory
    for start in range(0, len(ranks), step):
        block = ranks[start : start + step]
        above += (block[:, None, :] > block[:, :, None]).sum(axis=0, dtype=np.int64)
    margin = (2 * above - len(ranks)).astype(np.float64)
    np.fill_diagonal(margin, 0.0)
    transition = np.where(margin < 0, 1.0 / n, 0.0)
    np.fill_diagonal(transition, 0.0)
    for i, moves in enumerate((margin < 0).sum(axis=1).tolist()):
        stay = 1.0
        for _ in range(moves):  # subtracted one move at a time, as the authors' code
            stay -= 1.0 / n
        transition[i, i] = stay
    if reference:
        state = np.ones(n)
        for _ in range(iterations):
            # state_j = Σ_i state_i M_ij, added over i in order
            state = np.cumsum(state[:, None] * transition, axis=0)[-1]
    else:
        if not 0 < damping < 1:
            raise UsageError("damping must be in (0, 1)")
        chain = (1 - damping) * transition + damping / n
        state = np.full(n, 1.0 / n)
        for _ in range(max_iterations):
            new = state @ chain
            if np.abs(new - state).sum() < tolerance:
                state = new
                break
            state = new
    order = order_by(state.tolist(), names)
    index = {name: i for i, name in enumerate(names)}
    return order, state[[index[name] for name in order]]


def borda(orderings: Sequence[Sequence[str]]) -> tuple[list[str], dict[str, int]]:
    """Borda count: a run in position j of an ordering of n gets n − j points."""
    points: dict[str, int] = {}
    for ordering in orderings:
        n = len(ordering)
        for j, name in enumerate(ordering):
            points[name] = points.get(name, 0) + n - j
    names = list(points)
    return order_by([points[n] for n in names], names), points


def mean_preference(prefs: np.ndarray) -> np.ndarray:
    """The N x N matrix of preferences averaged over queries."""
    return prefs.mean(axis=0) if len(prefs) else np.zeros(prefs.shape[1:])


def bradley_terry(
    prefs: np.ndarray,
    names: Sequence[str],
    *,
    samples: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    iterations: int = 1000,
    tolerance: float = 1e-10,
) -> dict[str, np.ndarray]:
    """Bradley–Terry strengths from per-query outcomes: run a beats b on a query when
    P[q, a, b] > 0 (ties count half to each).  Fitted by the MM algorithm (Hunter 2004);
    strengths are log-scale, centred at 0.  With ``samples`` > 0, percentile intervals from a
    seeded bootstrap over queries."""
    n = len(names)

    def fit(p: np.ndarray) -> np.ndarray:
        wins = (p > 0).sum(axis=0) + 0.5 * (p == 0).sum(axis=0)
        np.fill_diagonal(wins, 0.0)
        games = wins + wins.T
        total = wins.sum(axis=1)
        strength = np.ones(n)
        for _ in range(iterations):
            denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
            new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), strength)
            new = np.maximum(new, 1e-300)
            new /= np.exp(np.log(new).mean())
            if np.abs(new - strength).max() < tolerance:
                strength = new
                break
            strength = new
        log_strength = np.log(strength)
        return log_strength - log_strength.mean()

    out = {"strength": fit(prefs)}
    if samples:
        rng = np.random.default_rng(seed)
        q = len(prefs)
        boot = np.array([fit(prefs[rng.integers(0, q, size=q)]) for _ in range(samples)])
        out["low"], out["high"] = percentile_interval(boot, confidence, axis=0)
    return out
