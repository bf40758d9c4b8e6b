"""The original offline-interleaving computation, kept as the slow reference of the tests.

This is `rankscope.interleaving.offline.offline_interleaving_preference` as it was before
issue 16: team draft by a dynamic programme in pure Python over one pair at a time (states
(i, j) with the distribution of the credit difference), balanced by building both
interleaved lists and scoring each position.  `rankscope.interleaving.kernels` computes the
same values for every pair at once; the tests compare the two.  Used only by the tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankscope.interleaving.methods import (
    _balanced_codes,
    _balanced_signs,
    _normalise,
    _Pair,
    _pair,
    _team_draft_monte_carlo,
    method_named,
)
from rankscope.interleaving.methods import expected_sign as _expected_sign
from rankscope.interleaving.offline import (
    _level,
    _orientation,
    browsing_distribution,
    relevant_mask,
)


def _method(method: str) -> str:
    """The canonical name of an offline interleaving method."""
    return method_named(method, offline=True).name


def _tail_masses(p: np.ndarray) -> np.ndarray:
    """tail[n] = P(k > n) = Σ_{k>n} p(k), for n = 0..K (tail[K] = 0)."""
    tail = np.zeros(len(p) + 1)
    tail[:-1] = np.cumsum(p[::-1])[::-1]
    return tail


def _shift(prob: np.ndarray, delta: int) -> np.ndarray:
    """The distribution of d + delta (mass never leaves the support, |d| <= #relevant)."""
    if delta == 0:
        return prob
    out = np.zeros_like(prob)
    if delta > 0:
        out[delta:] = prob[:-delta]
    else:
        out[:delta] = prob[-delta:]
    return out


def _team_draft_exact(
    pair: _Pair, rel: np.ndarray, p: np.ndarray, truncate: bool, max_states: int | None
) -> float | None:
    """I(a, b) for team draft, exact over every flip sequence (see the module docs), or
    None when more than ``max_states`` states would be expanded."""
    a, b = pair.a.tolist(), pair.b.tolist()
    pos_a, pos_b = pair.pos_a.tolist(), pair.pos_b.tolist()
    na, nb = len(a), len(b)
    gain = rel.astype(np.int64).tolist()  # per code: 1 when relevant
    total_relevant = int(rel.sum())
    depth = p.size
    tail = _tail_masses(p)
    support = np.arange(-total_relevant, total_relevant + 1)
    # sign_rows[s] = sgn(d + s) over the support, for the shifts of one round (|s| <= 2)
    sign_rows = {s: np.sign(support + s).astype(np.float64) for s in range(-2, 3)}

    def weight(position: int) -> float:  # p(k) at 1-based position k
        return float(p[position - 1]) if position <= depth else 0.0

    def finish(prob: np.ndarray, n: int, increments: list[int]) -> float:
        """Value of the positions n+1.. n+len(increments), after which the list (or
        everything that can change the outcome) ends."""
        shifts = np.cumsum([0, *increments])
        weights = np.zeros(shifts.size)
        stop = min(len(increments), max(depth - n, 0))
        weights[1 : stop + 1] = p[n : n + stop]
        weights[-1] += tail[min(n + len(increments), depth)]
        values, index = np.unique(shifts, return_inverse=True)
        mass = np.bincount(index, weights=weights, minlength=values.size)
        return float(mass @ (np.sign(support[None, :] + values[:, None]) @ prob))

    def alone(pa: int, pb: int, side_a: bool) -> list[int]:
        """Increments of one ranking picking its remaining documents (the other is
        exhausted, so all of it is in the list)."""
        if side_a:
            return [gain[d] for d in a[pa:] if pos_b[d] >= nb]
        return [-gain[d] for d in b[pb:] if pos_a[d] >= na]

    start = np.zeros(support.size)
    start[total_relevant] = 1.0
    frontier: dict[tuple[int, int], list] = {(0, 0): [start, 0, 0]}
    value = 0.0
    expanded = 0
    while frontier:
        successors: dict[tuple[int, int], list] = {}
        for (pa, pb), (prob, n, placed) in frontier.items():
            expanded += 1
            if max_states is not None and expanded > max_states:
                return None
            has_a, has_b = pa < na, pb < nb
            if placed == total_relevant or n >= depth or not (has_a or has_b):
                value += finish(prob, n, [])
                continue
            if not (has_a and has_b):
                value += finish(prob, n, [] if truncate else alone(pa, pb, has_a))
                continue
            half = 0.5 * prob
            for a_first in (True, False):
                if a_first:
                    first = gain[a[pa]]
                    qa, qb = _normalise(pa + 1, pb, a, b, pos_a, pos_b)
                else:
                    first = -gain[b[pb]]
                    qa, qb = _normalise(pa, pb + 1, a, b, pos_a, pos_b)
                if not (qa < na and qb < nb):  # the second picker may be out of documents
                    rest = [] if truncate or not (qa < na or qb < nb) else alone(qa, qb, qa < na)
                    value += finish(half, n, [first, *rest])
                    continue
                if a_first:
                    second = -gain[b[qb]]
                    qa, qb = _normalise(qa, qb + 1, a, b, pos_a, pos_b)
                else:
                    second = gain[a[qa]]
                    qa, qb = _normalise(qa + 1, qb, a, b, pos_a, pos_b)
                value += weight(n + 1) * float(sign_rows[first] @ half) + weight(n + 2) * float(
                    sign_rows[first + second] @ half
                )
                moved = _shift(half, first + second)
                entry = successors.get((qa, qb))
                if entry is None:
                    successors[(qa, qb)] = [moved, n + 2, placed + abs(first) + abs(second)]
                else:
                    entry[0] = entry[0] + moved
        frontier = successors
    return value


def reference_preference(
    a: Any,
    b: Any,
    relevance: Any,
    *,
    method: str = "team-draft",
    browsing: Any = "uniform",
    depth: int | None = None,
    level: float = 1,
    truncate: bool = False,
    max_states: int | None = None,
    samples: int = 10_000,
    seed: int = 0,
) -> float:
    """I(a, b) as the original implementation computed it (exact; Monte Carlo only beyond
    ``max_states``)."""
    method = _method(method)
    level = _level(level)
    pair = _pair(a, b)
    if not pair.docs:
        return 0.0
    p = browsing_distribution(browsing, depth if depth is not None else len(pair.docs))
    rel = relevant_mask(pair.docs, relevance, level)
    if not rel.any() or np.array_equal(pair.a, pair.b):
        return 0.0
    forward, backward = _orientation(pair.a, pair.pos_b, rel), _orientation(pair.b, pair.pos_a, rel)
    if forward == backward:
        return 0.0
    if forward > backward:
        return -reference_preference(
            b, a, relevance, method=method, browsing=browsing, depth=depth, level=level,
            truncate=truncate, max_states=max_states, samples=samples, seed=seed,
        )  # fmt: skip
    value: float | None
    if method == "balanced":
        rank_a, rank_b = pair.rank_a, pair.rank_b
        value = 0.0
        for a_first in (True, False):
            codes, _ = _balanced_codes(pair, a_first, truncate)
            signs = _balanced_signs(rel[codes], rank_a[codes], rank_b[codes])
            value += 0.5 * _expected_sign(signs, p)
    else:
        value = _team_draft_exact(pair, rel, p, truncate, max_states)
        if value is None:
            value = _team_draft_monte_carlo(pair, rel, p, truncate, samples, seed)
    return min(1.0, max(-1.0, value))


def reference_matrix(rankings: list, relevance: Any, **options: Any) -> np.ndarray:
    """The N x N matrix of `reference_preference` over every pair of rankings."""
    n = len(rankings)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = reference_preference(rankings[i], rankings[j], relevance, **options)
            out[j, i] = -out[i, j]
    return out
