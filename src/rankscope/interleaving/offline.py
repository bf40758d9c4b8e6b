"""Offline interleaving: an interleaving experiment simulated from relevance judgments.

Diaz & Ferraro (2022, eq. 2) write the interleaving preference for a query as

    I(a, b) = E_k[ sgn(ν_k(a) − ν_k(b)) ]

where the user browses the interleaved list down to depth k and ν_k(π) counts the clicks
credited to π among the top k (dividing by k, "precision at k", does not change the sign).
*Offline interleaving* (their §5.5) simulates that experiment from relevance judgments, for
every method of `rankscope.interleaving.methods.METHODS` with an offline computation (team
draft and balanced; the table gives how each builds its list and credits clicks).

The simulated user
------------------
The user draws a depth k from a browsing model p(k), k = 1..K, reads the interleaved list
down to position min(k, its length) and clicks exactly the relevant documents there
(grade >= ``level``; unjudged documents are not relevant).  Browsing models:

* ``uniform``: p(k) = 1/D for k = 1..D;
* ``dcg``: p(k) = (1/log2(k+1)) / Σ_{j=1..D} 1/log2(j+1) for k = 1..D (the DCG discount);
* an explicit sequence of non-negative weights for k = 1, 2, ... (normalised to sum to 1),
  or a callable ``depth -> weights``.

D, the depth of the named models, is by default |a ∪ b|, the length of the full
interleaved list (``depth=`` overrides it).  The expectation over k is computed exactly:
with s_k the outcome of the clicks in the top k and L the list length,
I = Σ_{k<=L} p(k) s_k + (Σ_{k>L} p(k)) s_L (`rankscope.interleaving.methods.expected_sign`).
With ``truncate=True`` (the published algorithms) the list may be shorter than |a ∪ b|, and
a user who would browse beyond its end sees the whole list.

Exact computation over the coin flips
-------------------------------------
than |a ∪ b|, and a user who would browse beyond its end sees the whole list).  As in the
published loops, the check comes before every pick: once a ranking runs out the list ends,
even in the middle of a team-draft round.

Exact computation over the coin flips
-------------------------------------
Balanced interleaving has two interleavings, each with probability 1/2: computed exactly.
Team draft has up to 2^rounds flip sequences, but the list built so far is determined, as
a set, by how far each ranking has been consumed: after any pick the list holds exactly
a_1..a_i ∪ b_1..b_j for the smallest i, j whose next documents are not in it.  So
flip sequences that consume the same prefixes merge into one state (i, j), and a state only
needs the distribution of the running credit difference ν(a) − ν(b) (the past positions'
contributions to the expectation are already added).  A round's coin changes the state
only when both rankings' next documents are the same document; otherwise it only orders
the two picks.  A state stops once every relevant document of a ∪ b is in the list (only
the rounds before the last relevant document can change the outcome: the rest adds
P(k > n) · E[sgn(difference)]) or once the list is deeper than the browsing model.  This
dynamic programme is exact and polynomial; `rankscope.interleaving.kernels` runs it for many
pairs at once in numpy (and balanced interleaving in closed form), which is what every
function here and the ``OI`` method use.  When it would expand more than ``max_states``
states (``exact=None``), the preference is estimated instead by seeded Monte Carlo over flip
sequences, with antithetic pairs (each sampled sequence and its complement), which keeps
even the estimate exactly antisymmetric for a fixed seed.  Values within 1e-13 of 0 are 0
(`rankscope.interleaving.kernels.TIE`).

Properties.  I lies in [−1, 1]; I(a, b) = −I(b, a) for both methods (team draft: averaged
over the flips); identical rankings give 0.

References
----------
* F. Diaz, A. Ferraro. Offline retrieval evaluation without evaluation metrics. SIGIR 2022,
  eq. 2 and §5.5.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError, UsageError, shown
from .kernels import pair_batch, query_pairs, settle
from .methods import Interleaving, _pair, _ranking, expected_sign, method_named
from .names import MAX_STATES

#: A browsing model: ``"uniform"``, ``"dcg"``, weights for k = 1, 2, ..., or depth -> weights.
Browsing = str | Sequence[float] | np.ndarray | Callable[[int], Sequence[float]]


# --------------------------------------------------------------------------------------
# Browsing models


def uniform(depth: int) -> np.ndarray:
    """Browsing model p(k) = 1/D for k = 1..D (``depth`` = D): every depth equally likely.

    >>> uniform(4)
    array([0.25, 0.25, 0.25, 0.25])
    """
    depth = _depth(depth)
    return np.full(depth, 1.0 / depth)


def dcg(depth: int) -> np.ndarray:
    """Browsing model p(k) ∝ 1/log2(k+1) for k = 1..D (``depth`` = D), normalised.

    The DCG discount read as a stopping distribution: the user stops at rank 1 most often.

    >>> dcg(3).round(4)
    array([0.4693, 0.2961, 0.2346])
    """
    depth = _depth(depth)
    weights = 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))
    return weights / weights.sum()


def _depth(depth: Any) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
        raise UsageError(f"browsing depth must be an integer >= 1, got {depth!r}")
    return int(depth)


def browsing_distribution(browsing: Browsing, depth: int) -> np.ndarray:
    """p(k) for k = 1..K as an array: a named model over ``depth`` positions, a callable
    called with ``depth``, or explicit weights (normalised to sum to 1)."""
    if isinstance(browsing, str):
        if browsing == "uniform":
            return uniform(depth)
        if browsing == "dcg":
            return dcg(depth)
        raise UsageError(f"unknown browsing model {browsing!r}: uniform, dcg, weights or callable")
    raw = browsing(_depth(depth)) if callable(browsing) else browsing
    try:
        weights = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError("browsing weights must be numbers") from None
    if weights.ndim != 1 or weights.size == 0:
        raise UsageError("browsing weights must be a non-empty 1-D sequence (k = 1, 2, ...)")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise UsageError("browsing weights must be finite and non-negative")
    total = weights.sum()
    if total <= 0:
        raise UsageError("browsing weights sum to zero")
    return weights / total


def _level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float | np.integer | np.floating):
        raise UsageError(f"relevance level must be a number, got {shown(level)}")
    if not math.isfinite(level):
        raise UsageError(f"relevance level must be finite, got {shown(level)}")
    return float(level)


def _grade(value: Any, doc: Hashable) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputError(f"relevance of document {doc!r}: grade {shown(value)} is not a number")
    if not math.isfinite(value):
        raise InputError(f"relevance of document {doc!r}: grade {shown(value)} is not finite")
    return float(value)


def relevant_mask(docs: Sequence[Hashable], relevance: Any, level: float = 1) -> np.ndarray:
    """Boolean array: is each document relevant (grade >= ``level``)?

    ``relevance`` is a mapping doc -> grade (a dict, a pandas Series indexed by document),
    a set of relevant documents (grade 1), or an array of grades indexed by integer
    document ids.  Documents it does not grade are unjudged, hence not relevant.
    """
    level = _level(level)
    n = len(docs)
    if isinstance(relevance, set | frozenset):
        return np.fromiter((level <= 1 and d in relevance for d in docs), dtype=bool, count=n)
    if isinstance(relevance, Mapping) or (
        hasattr(relevance, "index") and hasattr(relevance, "get") and hasattr(relevance, "items")
    ):
        out = np.zeros(n, dtype=bool)
        for i, doc in enumerate(docs):
            grade = _grade(relevance.get(doc), doc)
            out[i] = grade is not None and grade >= level
        return out
    try:
        grades = np.asarray(relevance, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(
            "relevance must be a mapping doc -> grade, a set of relevant documents "
            "or an array of grades indexed by integer document ids"
        ) from None
    if grades.ndim != 1:
        raise InputError("an array of grades must be one-dimensional")
    out = np.zeros(n, dtype=bool)
    for i, doc in enumerate(docs):
        if isinstance(doc, bool) or not isinstance(doc, int | np.integer):
            raise InputError(f"relevance given as an array needs integer document ids, got {doc!r}")
        if doc < 0:
            raise InputError(f"document id {doc} is negative; an array cannot grade it")
        if doc < len(grades):
            grade = _grade(grades[doc], doc)
            out[i] = grade is not None and grade >= level
    return out


# --------------------------------------------------------------------------------------
# The simulated user on one list


def expected_outcome(
    interleaving: Interleaving,
    relevance: Any,
    *,
    browsing: Browsing = "uniform",
    depth: int | None = None,
    level: float = 1,
) -> float:
    """E_k[sgn(ν_k(a) − ν_k(b))] on one interleaved list for the simulated user.

    The user browses to depth k ~ p(k) and clicks the relevant documents (grade >=
    ``level``) among the top min(k, len(list)).  ``depth`` (for named browsing models)
    defaults to the length of this list.
    """
    signs_of = method_named(interleaving.method, offline=True).signs
    assert signs_of is not None  # every offline method declares its signs
    p = browsing_distribution(browsing, depth if depth is not None else max(len(interleaving), 1))
    rel = relevant_mask(interleaving.docs, relevance, level)
    return expected_sign(signs_of(rel, interleaving), p)


# --------------------------------------------------------------------------------------
# Offline interleaving: the expectation over the interleavings


def offline_interleaving_preference(
    a: Any,
    b: Any,
    relevance: Any,
    *,
    method: str = "team-draft",
    browsing: Browsing = "uniform",
    depth: int | None = None,
    level: float = 1,
    exact: bool | None = None,
    samples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
    truncate: bool = False,
    max_states: int = MAX_STATES,
) -> float:
    """Offline interleaving preference I(a, b) = E[sgn(ν_k(a) − ν_k(b))] in [−1, 1].

    Positive: the simulated user prefers ``a``.  The expectation runs over the browsing
    depth k ~ p(k) and over the interleaving's coin flips (Diaz & Ferraro 2022, eq. 2 and
    §5.5; the module documentation gives the user model and the credit rules).

    Parameters
    ----------
    a, b: rankings, best first: sequences of hashable document ids (or 1-D arrays);
        a document may not appear twice in one ranking.
    relevance: mapping doc -> grade, a set of relevant documents, or an array of grades
        indexed by integer document ids.  Unjudged documents are not relevant.
    method: ``"team-draft"`` or ``"balanced"``.
    browsing: ``"uniform"``, ``"dcg"``, weights for k = 1, 2, ... or a callable
        depth -> weights.
    depth: D for named browsing models (default |a ∪ b|, the full interleaved length).
    level: minimum grade counted as relevant.
    exact: team draft only.  None: exact unless the computation would expand more than
        ``max_states`` states, then Monte Carlo; True: always exact; False: Monte Carlo.
        Balanced interleaving is always exact (two interleavings).
    samples, seed: Monte Carlo sample size (rounded up to even: antithetic pairs) and seed
        (an integer or a Generator; the same integer seed gives the same estimate; None
        draws fresh entropy and is not reproducible).
    truncate: stop interleaving when either ranking is exhausted (published algorithms)
        instead of continuing with the other ranking alone.

    >>> offline_interleaving_preference(["d1", "d2", "d3"], ["d2", "d1", "d3"], {"d1": 1})
    0.8333333333333334
    """
    rule = method_named(method, offline=True)
    level = _level(level)
    pair = _pair(a, b)
    if not pair.docs:
        return 0.0
    p = browsing_distribution(browsing, depth if depth is not None else len(pair.docs))
    rel = relevant_mask(pair.docs, relevance, level)
    if not rel.any() or np.array_equal(pair.a, pair.b):
        return 0.0
    # One orientation of the pair is computed, the other negated, so that I(b, a) is exactly
    # −I(a, b): the two computations add the same terms in other orders, which may round
    # differently in the last bit.
    forward, backward = _orientation(pair.a, pair.pos_b, rel), _orientation(pair.b, pair.pos_a, rel)
    if forward == backward:
        # (b, a) is (a, b) with its documents renamed, so I(a, b) = I(b, a) = −I(a, b) = 0
        return 0.0
    if forward > backward:
        return -offline_interleaving_preference(
            b, a, relevance, method=rule.name, browsing=browsing, depth=depth, level=level,
            exact=exact, samples=samples, seed=seed, truncate=truncate, max_states=max_states,
        )  # fmt: skip
    value: float | None = None
    batch = pair_batch(pair.a, pair.b, rel, p)
    assert rule.offline is not None  # method_named(offline=True) gives offline methods only
    if rule.estimate is None or exact is None or exact:
        found = rule.offline(
            batch, np.array([int(rel.sum())]), truncate, None if exact else max_states
        )[0]
        value = None if math.isnan(found) else float(found)
    if value is None:
        assert rule.estimate is not None  # only a method with an estimate gives up (NaN)
        value = rule.estimate(pair, rel, p, truncate, samples, seed)
    return float(settle(np.array([value]))[0])


def _orientation(ranking: np.ndarray, pos_other: np.ndarray, rel: np.ndarray) -> tuple:
    """What the interleaving of a ranking with another depends on, free of document ids:
    its length, the relevance of each of its documents and where the other ranking holds
    each (its length: nowhere; compared only between rankings of one length)."""
    return (len(ranking), tuple(rel[ranking].tolist()), tuple(pos_other[ranking].tolist()))


def interleaving_matrix(rankings: Sequence[Any], relevance: Any, **options: Any) -> np.ndarray:
    """M[i, j] = offline_interleaving_preference(rankings[i], rankings[j], relevance,
    **options) for every pair of rankings of one query: an N x N antisymmetric matrix with
    a zero diagonal (the upper triangle is computed, the lower one is its negation).

    With a named browsing model and no ``depth``, every pair is computed at once
    (`rankscope.interleaving.kernels`); values agree with the pair-by-pair function to 1e-13.
    """
    rankings = list(rankings)
    n = len(rankings)
    browsing = options.get("browsing", "uniform")
    known = {"method", "browsing", "level", "truncate", "exact", "max_states", "samples", "seed"}
    if n < 2 or not isinstance(browsing, str) or not set(options) <= known:
        return _matrix_pair_by_pair(rankings, relevance, **options)
    method = method_named(options.get("method", "team-draft"), offline=True).name
    level = _level(options.get("level", 1))
    browsing_distribution(browsing, 1)  # the model's name is checked before any work
    items = [_ranking(r, f"rankings[{k}]") for k, r in enumerate(rankings)]
    code: dict[Hashable, int] = {}
    for items_k in items:
        for doc in items_k:
            code.setdefault(doc, len(code))
    codes = [np.array([code[d] for d in items_k], dtype=np.int64) for items_k in items]
    relevant = np.flatnonzero(relevant_mask(list(code), relevance, level))
    exact = options.get("exact")
    if exact is False:
        return _matrix_pair_by_pair(rankings, relevance, **options)
    values = all_pairs(
        [codes], [relevant], method=method, browsing=browsing,
        truncate=bool(options.get("truncate", False)),
        max_states=None if exact else options.get("max_states", MAX_STATES),
        fallback=lambda q, x, y: offline_interleaving_preference(
            rankings[x], rankings[y], relevance, **{**options, "exact": False}
        ),
    )  # fmt: skip
    return values[0]


def all_pairs(
    rankings: list[list[np.ndarray]],
    relevant: list[np.ndarray],
    *,
    method: str,
    browsing: str,
    truncate: bool = False,
    max_states: int | None = MAX_STATES,
    fallback: Callable[[int, int, int], float],
) -> np.ndarray:
    """P[q, x, y] = I(rankings[q][x], rankings[q][y]) for every query q and pair of runs:
    ``rankings[q][r]`` is run r's ranking as integer document codes, ``relevant[q]`` the
    codes relevant for q.  A team-draft pair beyond ``max_states`` states gets
    ``fallback(q, x, y)`` (a Monte Carlo estimate).  Queries are taken in groups whose
    documents × runs stay below about 40 million (the rank lookup table of a group)."""
    runs = len(rankings[0]) if rankings else 0
    out = np.zeros((len(rankings), runs, runs))
    group: list[int] = []
    cells = 0
    for q in range(len(rankings) + 1):
        size = sum(r.size for r in rankings[q]) * max(runs, 1) if q < len(rankings) else 0
        if group and (q == len(rankings) or cells + size > _GROUP_CELLS):
            out[group] = _pairs_of_group(
                [rankings[k] for k in group], [relevant[k] for k in group], group,
                method=method, browsing=browsing, truncate=truncate, max_states=max_states,
                fallback=fallback,
            )  # fmt: skip
            group, cells = [], 0
        if q < len(rankings):
            group.append(q)
            cells += size
    return out


#: Documents × runs of the queries computed together (`all_pairs`).
_GROUP_CELLS = 40_000_000


def _pairs_of_group(
    rankings: list[list[np.ndarray]],
    relevant: list[np.ndarray],
    queries: list[int],
    *,
    method: str,
    browsing: str,
    truncate: bool,
    max_states: int | None,
    fallback: Callable[[int, int, int], float],
) -> np.ndarray:
    pairs = query_pairs(rankings, relevant, browsing)
    kernel = method_named(method, offline=True).offline
    assert kernel is not None  # method_named(offline=True) gives offline methods only
    values = kernel(pairs.batch, pairs.total_relevant, truncate, max_states)
    for k in np.flatnonzero(np.isnan(values)).tolist():  # beyond max_states: the estimate
        q = queries[int(pairs.query[k])]
        values[k] = fallback(q, int(pairs.x[k]), int(pairs.y[k]))
    values[pairs.mirror] = 0.0
    values = settle(values)
    runs = len(rankings[0]) if rankings else 0
    out = np.zeros((len(rankings), runs, runs))
    out[pairs.query, pairs.x, pairs.y] = values
    out[pairs.query, pairs.y, pairs.x] = -values
    return out


def _matrix_pair_by_pair(rankings: list, relevance: Any, **options: Any) -> np.ndarray:
    n = len(rankings)
    matrix = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            value = offline_interleaving_preference(rankings[i], rankings[j], relevance, **options)
            matrix[i, j] = value
            matrix[j, i] = -value
    return matrix


