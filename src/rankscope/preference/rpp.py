"""Recall-paired preference (RPP) and lexicographic preferences between rankings.

Diaz & Ferraro, "Offline Retrieval Evaluation Without Evaluation Metrics", SIGIR 2022.

Let f_i be the rank of the i-th relevant document of ranking π (relevant documents a
ranking did not retrieve sit at the bottom of the corpus, in worst-case order; two rankings
that both miss their i-th relevant document tie at level i).  A user who wants exactly i
relevant documents prefers the ranking that gets her there with less effort, so

    RPP(π, π') = Σ_{i=1..m} p(i) · sgn(f'_i − f_i)                          (eq. 3–4)

with p(i) a distribution over recall levels: uniform (RPP), ∝ 1/log2(i+1) (dcgRPP),
∝ 1/i (invRPP), normalised over i = 1..m, or given.  RPP lies in [−1, 1], is antisymmetric,
and is 0 for identical rankings.  Graded RPP (eq. 5) sums over the grade thresholds λ
present in the query, p(i, λ) = p(i) p(λ) with p(λ) ∝ m_λ, the number of documents of grade
>= λ.  Every function here returns a tensor P with P[q, a, b] = preference of run a over
run b on query q, computed for all pairs at once.

Lexicographic preferences (Diaz 2023, "Recall, Robustness, and Lexicographic Evaluation"):
lexiprecision is the sign at the first recall level where the rankings differ; its
rrlexiprecision variant gives 1/f_i − 1/f'_i there; lexirecall compares the number of
relevant documents retrieved, then the deepest retrieved relevant document upward.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ..errors import UsageError
from ..judge import NOT_RETRIEVED, RelevanceTable

Weights = str | Sequence[float] | Callable[[int], Sequence[float]]


def recall_weights(m: int, weights: Weights = "uniform") -> np.ndarray:
    """p(i) for i = 1..m, normalised: ``uniform``, ``dcg`` (∝ 1/log2(i+1)), ``inverse``
    (∝ 1/i), an explicit sequence of m non-negative numbers, or a callable m -> sequence."""
    if isinstance(weights, str):
        return _named_weights(m, weights)
    return _weights(m, weights)


@functools.lru_cache(maxsize=4096)
def _named_weights(m: int, weights: str) -> np.ndarray:
    out = _weights(m, weights)
    out.setflags(write=False)
    return out


def _weights(m: int, weights: Weights) -> np.ndarray:
    if isinstance(weights, str):
        if weights == "uniform":
            raw = [1.0] * m
        elif weights == "dcg":
            raw = [1.0 / math.log2(i + 2) for i in range(m)]
        elif weights in ("inverse", "inv"):
            raw = [1.0 / float(i + 1) for i in range(m)]
        else:
            raise UsageError(f"unknown recall weighting {weights!r}: uniform, dcg or inverse")
    else:
        raw = list(weights(m)) if callable(weights) else list(weights)
        if len(raw) < m:
            raise UsageError(f"recall weights: need {m} values, got {len(raw)}")
        raw = [float(x) for x in raw[:m]]
        if any(x < 0 or not math.isfinite(x) for x in raw):
            raise UsageError("recall weights must be finite and non-negative")
    mass = 0.0
    for x in raw:  # summed in order, as the authors' code does
        mass += x
    if mass <= 0:
        raise UsageError("recall weights sum to zero")
    return np.array([x / mass for x in raw])


def _distinct_rows(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of f and, for each row, the index of its distinct row."""
    order = np.lexsort(f.T[::-1])
    ordered = f[order]
    new = np.ones(len(f), dtype=bool)
    new[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    inverse = np.empty(len(f), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def _rpp_level(f: np.ndarray, weights: Weights) -> np.ndarray:
    """RPP between every pair of runs from their sorted positions f (runs x m)."""
    (prefs,) = _rpp_levels(f, [weights])
    return prefs


def _rpp_levels(f: np.ndarray, weightings: Sequence[Weights]) -> list[np.ndarray]:
    """RPP between every pair of runs from their sorted positions f (runs x m), for each of
    ``weightings``: the pairs' comparisons are made once and weighed by each.

    The sums over recall levels are matrix products: they may differ in the last bit from
    adding level by level (the authors' code; below 1e-15 on their data).  Runs with
    identical positions are computed once, so they stay exactly tied, and P[b, a] is exactly
    −P[a, b].
    """
    m = f.shape[1]
    if m == 0:
        return [np.zeros((f.shape[0], f.shape[0])) for _ in weightings]
    unique, inverse = _distinct_rows(f)
    n = len(unique)
    a, b = unique[:, None, :], unique[None, :, :]
    later = (b > a).astype(np.float64)  # a reaches level i first
    # b reaches it first: the pair (b, a)'s row of `later`, the same 0s and 1s
    sooner = np.ascontiguousarray(later.transpose(1, 0, 2)).reshape(n * n, m)
    later = later.reshape(n * n, m)
    upper_half = _upper_half(n)
    out = []
    for weights in weightings:
        w = recall_weights(m, weights)
        upper = np.where(upper_half, (later @ w - sooner @ w).reshape(n, n), 0.0)
        prefs = upper - upper.T
        out.append(_clip(prefs[inverse][:, inverse]))
    return out


@functools.lru_cache(maxsize=64)
def _upper_half(n: int) -> np.ndarray:
    """Which cells of an n x n matrix lie above the diagonal (`np.triu`'s mask, ``k=1``)."""
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    mask.setflags(write=False)
    return mask


def _clip(prefs: np.ndarray) -> np.ndarray:
    """Keep RPP in [−1, 1]: the normalised weights can add up to 1 + 2**-52 in floating
    point (the authors' code then reports −1.0000000000000002)."""
    return np.clip(prefs, -1.0, 1.0)


def rpp(
    table: RelevanceTable, weights: Weights = "uniform", level: int | None = None
) -> np.ndarray:
    """Binary RPP at relevance level ``level`` (default: the table's), P[q, a, b]."""
    return rpp_together(table, [weights], level)[0]


def rpp_together(
    table: RelevanceTable,
    weightings: Sequence[Weights],
    level: int | None = None,
    *,
    methods_last: bool = False,
) -> np.ndarray:
    """Binary RPP at relevance level ``level`` for each of ``weightings`` (RPP, dcgRPP and
    invRPP together, say), stacked: P[k, q, a, b], the values `rpp` gives for each, for the
    cost of little more than one (each query's pairs are compared once).

    ``methods_last``: the stack is a view of a (queries, runs, runs, methods) array, the
    layout `rankscope.stats.multiple.preference_tukey_pvalues` reads: tested without a
    copy of the whole tensor (`rankscope.table.study`'s discriminative powers)."""
    level = table.relevance_level if level is None else level
    shape = (len(weightings), table.num_queries, table.num_runs, table.num_runs)
    out = np.moveaxis(np.zeros((*shape[1:], shape[0])), -1, 0) if methods_last else np.zeros(shape)
    for q in range(table.num_queries):
        out[:, q] = _rpp_levels(table.positions(q, level), weightings)
    return out


def graded_sums(
    table: RelevanceTable, level: Callable[[int, int], tuple[float, Weights]]
) -> Iterator[tuple[int, np.ndarray, float]]:
    """Per query q: (q, Σ_λ w_λ · RPP_λ, Σ_λ w_λ) over the grade thresholds λ present, where
    ``level(m_λ, λ)`` gives the mass w_λ of threshold λ and its recall weights.  Graded RPP
    and the learned graded weights are the ratio of the two."""
    for q in range(table.num_queries):
        total = np.zeros((table.num_runs, table.num_runs))
        mass = 0.0
        for lam in table.levels(q).tolist():
            f = table.positions(q, lam)
            level_mass, weights = level(f.shape[1], lam)
            total = total + level_mass * _rpp_level(f, weights)
            mass += level_mass
        yield q, total, mass


def graded_rpp(table: RelevanceTable, weights: Weights = "uniform") -> np.ndarray:
    """Graded RPP (eq. 5): Σ_λ m_λ · RPP_λ / Σ_λ m_λ over the grades λ present."""
    out = np.zeros((table.num_queries, table.num_runs, table.num_runs))
    for q, total, mass in graded_sums(table, lambda m, _lam: (m, weights)):
        out[q] = _clip(total / mass)
    return out


def subtopic_rpp(table: RelevanceTable, weights: Weights = "uniform") -> np.ndarray:
    """Subtopic RPP (eq. 6): Σ_t p(t) RPP_t over the query's subtopics t and a background
    population t* satisfied by any relevant document, p(t) ∝ the number of relevant
    documents of subtopic t, p(t*) ∝ the number of relevant documents; RPP_t is binary RPP
    over subtopic t's relevant documents."""
    if table.subtopics is None:
        raise UsageError("subtopic RPP needs diversity judgments (qid subtopic docno grade)")
    out = np.zeros((table.num_queries, table.num_runs, table.num_runs))
    for q in range(table.num_queries):
        ranks, member = table.ranks[q], table.subtopics[q]
        populations = [np.ones(ranks.shape[1], dtype=bool)] + list(member.T)
        sizes = np.array([p.sum() for p in populations], dtype=np.float64)
        total = np.zeros((table.num_runs, table.num_runs))
        for population, size in zip(populations, sizes, strict=True):
            if size:
                f = np.sort(ranks[:, population], axis=1)
                total = total + (size / sizes.sum()) * _rpp_level(f, weights)
        out[q] = _clip(total)
    return out


def _at_first_difference(table: RelevanceTable, level: int | None, from_end: bool = False):
    """Per query q with relevant documents: (q, F, differs) where F[a, b] is run a's rank of
    its relevant document at the first recall level where runs a and b differ (counting
    from the last level when ``from_end``), and differs[a, b] says whether there is one."""
    level = table.relevance_level if level is None else level
    n = table.num_runs
    for q in range(table.num_queries):
        f = table.positions(q, level)
        if f.shape[1] == 0:
            continue
        if from_end:
            f = f[:, ::-1]
        differs = f[None, :, :] != f[:, None, :]
        first = np.argmax(differs, axis=2)
        rows = np.broadcast_to(f[:, None, :], (n, n, f.shape[1]))
        yield q, np.take_along_axis(rows, first[:, :, None], axis=2)[:, :, 0], differs.any(axis=2)


def lexiprecision(
    table: RelevanceTable, level: int | None = None, reciprocal: bool = False
) -> np.ndarray:
    """Lexiprecision: sgn(f'_i − f_i) at the first level i where the rankings differ.
    With ``reciprocal`` (rrlexiprecision): 1/f_i − 1/f'_i there (0 for an unretrieved one)."""
    out = np.zeros((table.num_queries, table.num_runs, table.num_runs))
    for q, fa, differs in _at_first_difference(table, level):
        fb = fa.T
        if reciprocal:
            ra = np.where(fa >= NOT_RETRIEVED, 0.0, 1.0 / np.maximum(fa, 1))
            rb = np.where(fb >= NOT_RETRIEVED, 0.0, 1.0 / np.maximum(fb, 1))
            value = ra - rb
        else:
            value = np.sign(fb - fa).astype(np.float64)
        out[q] = np.where(differs, value, 0.0)
    return out


def lexirecall(table: RelevanceTable, level: int | None = None) -> np.ndarray:
    """Lexirecall: more relevant documents retrieved wins; with as many, the ranking whose
    deepest retrieved relevant document is higher wins, and so on upward."""
    out = np.zeros((table.num_queries, table.num_runs, table.num_runs))
    for q, fa, differs in _at_first_difference(table, level, from_end=True):
        out[q] = np.where(differs, np.sign(fa.T - fa), 0.0)
    return out
