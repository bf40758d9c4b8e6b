"""Interleaving preferences: team-draft and balanced interleaving, offline and from click logs.

An interleaving experiment merges two rankings ``a`` and ``b`` into one list, shows it to a
user and credits each click to one ranking (or both); the ranking with more credited clicks
wins the impression.  Diaz & Ferraro (2022, eq. 2) write the preference for a query as

    I(a, b) = E_k[ sgn(ν_k(a) − ν_k(b)) ]

where the user browses the interleaved list down to depth k and ν_k(π) counts the clicks
credited to π among the top k (dividing by k, "precision at k", does not change the sign).
*Offline interleaving* (their §5.5) simulates that experiment from relevance judgments.

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
I = Σ_{k<=L} p(k) s_k + (Σ_{k>L} p(k)) s_L.

Interleaving methods
--------------------
*Team draft* (Radlinski, Kurup & Joachims 2008).  Documents are picked one at a time; the
team (ranking) with fewer picks so far picks next, and when both have as many a coin
decides, so each *round* of two picks starts with one coin flip.  A team picks the first
document of its ranking not yet in the list.  A click counts for the team that picked the
document.

*Balanced* (Joachims 2003; Chapelle, Joachims, Radlinski & Yue 2012, §3.1).  One coin
decides which ranking starts; with k_a, k_b the number of documents of a and b consumed so
far, a contributes next if k_a < k_b, or k_a = k_b and a started; a document already in the
list is skipped (its ranking's counter still advances).  Credit, exactly as Chapelle et al.
(2012) state it: with clicks at positions c_1 < ... < c_n of the interleaved list I and
c_max = c_n the lowest click, let

    j = min{ r : a_r = I[c_max] or b_r = I[c_max] }

(the best rank of the lowest-clicked document in either ranking); then
h_a = |{c_i : I[c_i] ∈ {a_1..a_j}}| and h_b = |{c_i : I[c_i] ∈ {b_1..b_j}}|, and the
impression's outcome is sgn(h_a − h_b).  A document both rankings hold in their top j counts
for both.  (Lerot and some later papers take j = min(deepest rank in a of a clicked
document, deepest rank in b of one); the two rules can differ.)

Rankings of different lengths.  The published algorithms stop as soon as either ranking is
exhausted.  rankscope by default continues with the other ranking alone (its documents,
credited to it, in its order), so a ranking that retrieves more relevant documents deeper
down can win; ``truncate=True`` gives the published behaviour (the list then may be shorter
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
dynamic programme is exact and polynomial; `rankscope.preference.offline` runs it for many
pairs at once in numpy (and balanced interleaving in closed form), which is what every
function here and the ``OI`` method use.  When it would expand more than ``max_states``
states (``exact=None``), the preference is estimated instead by seeded Monte Carlo over flip
sequences, with antithetic pairs (each sampled sequence and its complement), which keeps
even the estimate exactly antisymmetric for a fixed seed.  Values within 1e-13 of 0 are 0
(`rankscope.preference.offline.TIE`).

Properties.  I lies in [−1, 1]; I(a, b) = −I(b, a) for both methods (team draft: averaged
over the flips); identical rankings give 0.

Real click logs.  `preference_from_clicks` scores an online interleaving experiment from
the credited side of each click: per impression sgn(clicks_a − clicks_b), their mean, the
wins/ties/losses and a two-sided sign test.

References
----------
* T. Joachims. Evaluating retrieval performance using clickthrough data. In *Text Mining*,
  Physica/Springer, 2003.
* F. Radlinski, M. Kurup, T. Joachims. How does clickthrough data reflect retrieval
  quality? CIKM 2008.
* O. Chapelle, T. Joachims, F. Radlinski, Y. Yue. Large-scale validation and analysis of
  interleaved search evaluation. ACM TOIS 30(1), 2012.
* F. Diaz, A. Ferraro. Offline retrieval evaluation without evaluation metrics. SIGIR 2022,
  eq. 2 and §5.5.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..stats.paired import sign_p_value
from .offline import balanced_values, pair_batch, query_pairs, settle, team_draft_values

#: A browsing model: ``"uniform"``, ``"dcg"``, weights for k = 1, 2, ..., or depth -> weights.
Browsing = str | Sequence[float] | np.ndarray | Callable[[int], Sequence[float]]

#: Default bound on the states the exact team-draft computation expands (``exact=None``).
MAX_STATES = 50_000

METHODS = ("team-draft", "balanced")

_METHOD_ALIASES = {
    "team-draft": "team-draft",
    "team_draft": "team-draft",
    "teamdraft": "team-draft",
    "balanced": "balanced",
}


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


# --------------------------------------------------------------------------------------
# Inputs: rankings and judgments


def _ranking(ranking: Any, name: str) -> list[Hashable]:
    if isinstance(ranking, str | bytes):
        raise TypeError(f"{name}: a ranking is a sequence of document ids, not a string")
    if isinstance(ranking, np.ndarray):
        if ranking.ndim != 1:
            raise InputError(f"{name}: a ranking must be one-dimensional")
        items = ranking.tolist()
    else:
        try:
            items = list(ranking)
        except TypeError:
            raise TypeError(f"{name}: a ranking is a sequence of document ids") from None
    first: dict[Hashable, int] = {}
    for i, doc in enumerate(items):
        try:
            j = first.setdefault(doc, i)
        except TypeError:
            raise TypeError(f"{name}: document id {doc!r} is not hashable") from None
        if j != i:
            raise InputError(f"{name}: document {doc!r} appears twice (ranks {j + 1} and {i + 1})")
    return items


@dataclass(frozen=True, eq=False)
class _Pair:
    """Two rankings over the integer codes of their union (a's documents first)."""

    docs: list[Hashable]
    a: np.ndarray  # codes, int64
    b: np.ndarray
    pos_a: np.ndarray  # per code: 0-based index in a, or len(a) when a lacks it
    pos_b: np.ndarray

    @property
    def rank_a(self) -> np.ndarray:
        """Per code: 1-based rank in a, inf when absent."""
        return np.where(self.pos_a < len(self.a), self.pos_a + 1.0, np.inf)

    @property
    def rank_b(self) -> np.ndarray:
        return np.where(self.pos_b < len(self.b), self.pos_b + 1.0, np.inf)


def _pair(a: Any, b: Any) -> _Pair:
    items_a, items_b = _ranking(a, "a"), _ranking(b, "b")
    code: dict[Hashable, int] = {}
    for doc in items_a:
        code[doc] = len(code)
    for doc in items_b:
        code.setdefault(doc, len(code))
    codes_a = np.array([code[d] for d in items_a], dtype=np.int64)
    codes_b = np.array([code[d] for d in items_b], dtype=np.int64)
    n = len(code)
    pos_a = np.full(n, len(items_a), dtype=np.int64)
    pos_a[codes_a] = np.arange(len(items_a))
    pos_b = np.full(n, len(items_b), dtype=np.int64)
    pos_b[codes_b] = np.arange(len(items_b))
    return _Pair(list(code), codes_a, codes_b, pos_a, pos_b)


def _level(level: Any) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float | np.integer | np.floating):
        raise UsageError(f"relevance level must be a number, got {level!r}")
    if not math.isfinite(level):
        raise UsageError(f"relevance level must be finite, got {level!r}")
    return float(level)


def _grade(value: Any, doc: Hashable) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputError(f"relevance of document {doc!r}: grade {value!r} is not a number")
    if not math.isfinite(value):
        raise InputError(f"relevance of document {doc!r}: grade {value!r} is not finite")
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
# Interleaving one pair of rankings


@dataclass(frozen=True, eq=False)
class Interleaving:
    """An interleaved list and what is needed to credit clicks on it.

    ``docs``: the interleaved list (original document ids).  ``team``: per position, +1
    when ranking a contributed the document, −1 when b did (team draft: the team that
    picked it, which is also the credit; balanced: the ranking whose turn placed it,
    informative only).  ``rank_a``/``rank_b``: per position, the document's 1-based rank
    in a and b (inf when absent).  ``method``: ``"team-draft"`` or ``"balanced"``.
    """

    docs: tuple[Hashable, ...]
    team: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    method: str

    def __len__(self) -> int:
        return len(self.docs)

    def _clicked_positions(self, clicked: Iterable[int] | np.ndarray) -> np.ndarray:
        arr = np.asarray(list(clicked) if not isinstance(clicked, np.ndarray) else clicked)
        if arr.dtype == bool:
            if arr.shape != (len(self.docs),):
                raise UsageError("a click mask needs one entry per position")
            return np.flatnonzero(arr)
        if arr.size == 0:
            return np.zeros(0, dtype=np.int64)
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise UsageError("clicked: a boolean mask or 0-based integer positions")
        if arr.min() < 0 or arr.max() >= len(self.docs):
            raise UsageError(f"clicked positions must lie in 0..{len(self.docs) - 1}")
        return np.unique(arr)

    def credit(self, clicked: Iterable[int] | np.ndarray) -> tuple[int, int]:
        """(h_a, h_b): the clicks credited to a and to b.

        ``clicked``: a boolean mask over positions, or 0-based positions.  Team draft:
        each click counts for the team that picked the document.  Balanced: the rule of
        Chapelle et al. (2012) given in the module documentation.
        """
        positions = self._clicked_positions(clicked)
        if positions.size == 0:
            return 0, 0
        if self.method == "team-draft":
            teams = self.team[positions]
            return int(np.sum(teams > 0)), int(np.sum(teams < 0))
        lowest = positions[-1]
        cut = min(self.rank_a[lowest], self.rank_b[lowest])
        return (
            int(np.sum(self.rank_a[positions] <= cut)),
            int(np.sum(self.rank_b[positions] <= cut)),
        )

    def outcome(self, clicked: Iterable[int] | np.ndarray) -> int:
        """sgn(h_a − h_b) for these clicks: +1 a wins, −1 b wins, 0 tie."""
        h_a, h_b = self.credit(clicked)
        return (h_a > h_b) - (h_a < h_b)


def _normalise(pa: int, pb: int, a: list, b: list, pos_a: list, pos_b: list) -> tuple[int, int]:
    """Advance both pointers past documents already in the list a[:pa] ∪ b[:pb]."""
    na, nb = len(a), len(b)
    while True:
        moved = False
        while pa < na and pos_b[a[pa]] < pb:
            pa += 1
            moved = True
        while pb < nb and pos_a[b[pb]] < pa:
            pb += 1
            moved = True
        if not moved:
            return pa, pb


def _draft(
    pair: _Pair,
    flips: np.ndarray,
    truncate: bool,
    *,
    relevant: np.ndarray | None = None,
    max_length: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Team draft on codes with the given coin flips (True: a picks first in that round).

    With ``relevant``/``max_length``, stop once every relevant document is in the list or
    the list reaches ``max_length`` (nothing after that can change the outcome).
    """
    a, b = pair.a.tolist(), pair.b.tolist()
    pos_a, pos_b = pair.pos_a.tolist(), pair.pos_b.tolist()
    na, nb = len(a), len(b)
    rel = relevant.tolist() if relevant is not None else None
    remaining = int(relevant.sum()) if relevant is not None else -1
    limit = max_length if max_length is not None else na + nb
    picks: list[int] = []
    teams: list[int] = []
    size_a = size_b = rounds = 0
    pa = pb = 0
    while remaining != 0 and len(picks) < limit:
        pa, pb = _normalise(pa, pb, a, b, pos_a, pos_b)
        has_a, has_b = pa < na, pb < nb
        if not (has_a and has_b):
            if truncate or not (has_a or has_b):
                break
            pick_a = has_a
        elif size_a != size_b:
            pick_a = size_a < size_b
        else:
            if rounds >= len(flips):
                raise UsageError(f"team draft needs more than {len(flips)} coin flips here")
            pick_a = bool(flips[rounds])
            rounds += 1
        if pick_a:
            doc = a[pa]
            pa += 1
            size_a += 1
        else:
            doc = b[pb]
            pb += 1
            size_b += 1
        picks.append(doc)
        teams.append(1 if pick_a else -1)
        if rel is not None and rel[doc]:
            remaining -= 1
    return np.array(picks, dtype=np.int64), np.array(teams, dtype=np.int8)


def _balanced_codes(pair: _Pair, a_first: bool, truncate: bool) -> tuple[np.ndarray, np.ndarray]:
    """Balanced interleaving on codes (Joachims 2003)."""
    a, b = pair.a.tolist(), pair.b.tolist()
    na, nb = len(a), len(b)
    seen = bytearray(len(pair.docs))
    picks: list[int] = []
    teams: list[int] = []
    ka = kb = 0
    while True:
        has_a, has_b = ka < na, kb < nb
        if not (has_a or has_b) or (truncate and not (has_a and has_b)):
            break
        take_a = has_a and (not has_b or ka < kb or (ka == kb and a_first))
        if take_a:
            doc = a[ka]
            ka += 1
        else:
            doc = b[kb]
            kb += 1
        if not seen[doc]:
            seen[doc] = 1
            picks.append(doc)
            teams.append(1 if take_a else -1)
    return np.array(picks, dtype=np.int64), np.array(teams, dtype=np.int8)


def _interleaving(pair: _Pair, codes: np.ndarray, teams: np.ndarray, method: str) -> Interleaving:
    return Interleaving(
        docs=tuple(pair.docs[c] for c in codes.tolist()),
        team=teams,
        rank_a=pair.rank_a[codes],
        rank_b=pair.rank_b[codes],
        method=method,
    )


def _flips(rng_or_flips: Any, rounds: int) -> np.ndarray:
    if isinstance(rng_or_flips, np.random.Generator):
        return rng_or_flips.integers(0, 2, size=rounds).astype(bool)
    if isinstance(rng_or_flips, int | np.integer) and not isinstance(rng_or_flips, bool):
        return np.random.default_rng(int(rng_or_flips)).integers(0, 2, size=rounds).astype(bool)
    if isinstance(rng_or_flips, str | bytes | bool) or rng_or_flips is None:
        raise TypeError(
            "rng_or_flips: a numpy Generator, an integer seed or a sequence of coin flips"
        )
    try:
        flips = np.asarray(list(rng_or_flips))
    except TypeError:
        raise TypeError(
            "rng_or_flips: a numpy Generator, an integer seed or a sequence of coin flips"
        ) from None
    if flips.ndim != 1 or (flips.size and not np.isin(flips, (0, 1)).all()):
        raise UsageError("coin flips must be booleans (True: a picks first in that round)")
    return flips.astype(bool)


def team_draft(a: Any, b: Any, rng_or_flips: Any, *, truncate: bool = False) -> Interleaving:
    """Team-draft interleaving of rankings ``a`` and ``b`` (Radlinski et al. 2008).

    ``rng_or_flips``: a ``numpy.random.Generator``, an integer seed, or the coin flips
    themselves, one per round (True: a picks first in that round; flips are used only in
    rounds where both rankings still have documents, at most min(|a|, |b|) of them).
    ``truncate``: stop when either ranking is exhausted (the published algorithm) instead
    of continuing with the other alone.

    >>> t = team_draft(["d1", "d2", "d3"], ["d2", "d1", "d3"], [True, False])
    >>> t.docs, t.team.tolist()
    (('d1', 'd2', 'd3'), [1, -1, -1])
    """
    pair = _pair(a, b)
    flips = _flips(rng_or_flips, min(len(pair.a), len(pair.b)))
    codes, teams = _draft(pair, flips, truncate)
    return _interleaving(pair, codes, teams, "team-draft")


def balanced(a: Any, b: Any, first: str = "a", *, truncate: bool = False) -> Interleaving:
    """Balanced interleaving of ``a`` and ``b`` (Joachims 2003); ``first``: ``"a"`` or ``"b"``,
    the ranking that contributes first (in an experiment, a fair coin decides).

    >>> balanced(["d1", "d2", "d3"], ["d2", "d3", "d1"], "b").docs
    ('d2', 'd1', 'd3')
    """
    if first not in ("a", "b"):
        raise UsageError(f"first must be 'a' or 'b', got {first!r}")
    pair = _pair(a, b)
    codes, teams = _balanced_codes(pair, first == "a", truncate)
    return _interleaving(pair, codes, teams, "balanced")


# --------------------------------------------------------------------------------------
# The simulated user on one list


def _balanced_signs(rel: np.ndarray, rank_a: np.ndarray, rank_b: np.ndarray) -> np.ndarray:
    """s_k for k = 1..L on one balanced list: the outcome of clicking the relevant
    documents among the top k (per-position arrays in)."""
    positions = np.flatnonzero(rel)
    m = positions.size
    signs = np.zeros(rel.size, dtype=np.int64)
    if m == 0:
        return signs
    ra, rb = rank_a[positions], rank_b[positions]
    cut = np.minimum(ra, rb)  # j for "the i-th relevant document is the lowest click"
    per_clicks = np.empty(m, dtype=np.int64)
    block = 512  # rows of the (i, l) comparison at a time: memory stays O(block · m)
    for start in range(0, m, block):
        stop = min(m, start + block)
        rows = np.arange(start, stop)[:, None]
        upto = np.arange(stop)[None, :] <= rows  # clicks l <= i
        c = cut[start:stop, None]
        h_a = ((ra[None, :stop] <= c) & upto).sum(axis=1)
        h_b = ((rb[None, :stop] <= c) & upto).sum(axis=1)
        per_clicks[start:stop] = np.sign(h_a - h_b)
    clicks_so_far = np.cumsum(rel)
    signs[clicks_so_far > 0] = per_clicks[clicks_so_far[clicks_so_far > 0] - 1]
    return signs


def _expected_sign(signs: np.ndarray, p: np.ndarray) -> float:
    """Σ_{k<=L} p(k) s_k + P(k > L) s_L for per-position outcomes s (length L)."""
    length = signs.size
    if length == 0:
        return 0.0
    n = min(length, p.size)
    value = float(np.dot(p[:n], signs[:n]))
    if p.size > length:
        value += float(p[length:].sum()) * float(signs[-1])
    return min(1.0, max(-1.0, value))


def _position_signs(
    method: str, rel: np.ndarray, team: np.ndarray, rank_a: np.ndarray, rank_b: np.ndarray
) -> np.ndarray:
    if method == "team-draft":
        return np.sign(np.cumsum(rel.astype(np.int64) * team))
    return _balanced_signs(rel, rank_a, rank_b)


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
    p = browsing_distribution(browsing, depth if depth is not None else max(len(interleaving), 1))
    rel = relevant_mask(interleaving.docs, relevance, level)
    signs = _position_signs(
        interleaving.method, rel, interleaving.team, interleaving.rank_a, interleaving.rank_b
    )
    return _expected_sign(signs, p)


# --------------------------------------------------------------------------------------
# Offline interleaving: the expectation over the interleavings


def _team_draft_monte_carlo(
    pair: _Pair, rel: np.ndarray, p: np.ndarray, truncate: bool, samples: int, rng: Any
) -> float:
    """Seeded Monte Carlo estimate over flip sequences, in antithetic pairs (f, not f)."""
    if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or samples < 1:
        raise UsageError(f"samples must be a positive integer, got {samples!r}")
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    rounds = max(min(len(pair.a), len(pair.b)), 1)
    pairs = (int(samples) + 1) // 2
    coins = generator.integers(0, 2, size=(pairs, rounds)).astype(bool)
    total = 0.0
    for row in coins:
        for flips in (row, ~row):
            codes, teams = _draft(pair, flips, truncate, relevant=rel, max_length=p.size)
            signs = np.sign(np.cumsum(rel[codes].astype(np.int64) * teams))
            total += _expected_sign(signs, p)
    return total / (2 * pairs)


def _method(method: str) -> str:
    try:
        return _METHOD_ALIASES[method]
    except (KeyError, TypeError):
        raise UsageError(
            f"unknown interleaving method {method!r}: team-draft or balanced"
        ) from None


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
    method = _method(method)
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
            b, a, relevance, method=method, browsing=browsing, depth=depth, level=level,
            exact=exact, samples=samples, seed=seed, truncate=truncate, max_states=max_states,
        )  # fmt: skip
    value: float | None = None
    batch = pair_batch(pair.a, pair.b, rel, p)
    if method == "balanced":
        value = float(balanced_values(batch, truncate=truncate)[0])
    elif exact is None or exact:
        found = team_draft_values(
            batch, np.array([int(rel.sum())]), truncate=truncate,
            max_states=None if exact else max_states,
        )[0]  # fmt: skip
        value = None if math.isnan(found) else float(found)
    if value is None:
        value = _team_draft_monte_carlo(pair, rel, p, truncate, samples, seed)
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
    (`rankscope.preference.offline`); values agree with the pair-by-pair function to 1e-13.
    """
    rankings = list(rankings)
    n = len(rankings)
    browsing = options.get("browsing", "uniform")
    known = {"method", "browsing", "level", "truncate", "exact", "max_states", "samples", "seed"}
    if n < 2 or not isinstance(browsing, str) or not set(options) <= known:
        return _matrix_pair_by_pair(rankings, relevance, **options)
    method = _method(options.get("method", "team-draft"))
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
    values = _all_pairs(
        [codes], [relevant], method=method, browsing=browsing,
        truncate=bool(options.get("truncate", False)),
        max_states=None if exact else options.get("max_states", MAX_STATES),
        fallback=lambda q, x, y: offline_interleaving_preference(
            rankings[x], rankings[y], relevance, **{**options, "exact": False}
        ),
    )  # fmt: skip
    return values[0]


def _all_pairs(
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


#: Documents × runs of the queries computed together (`_all_pairs`).
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
    if method == "balanced":
        values = balanced_values(pairs.batch, truncate=truncate)
    else:
        values = team_draft_values(
            pairs.batch, pairs.total_relevant, truncate=truncate, max_states=max_states
        )
        for k in np.flatnonzero(np.isnan(values)).tolist():
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


# --------------------------------------------------------------------------------------
# Real interleaving experiments


@dataclass(frozen=True)
class ClickPreference:
    """The outcome of an interleaving experiment.

    ``preference`` = (wins − losses) / impressions, the mean per-impression outcome in
    [−1, 1] (Chapelle et al.'s Δ_AB = (wins + ties/2)/impressions − 1/2 is half of it).
    ``p_value``: two-sided exact sign test, see `sign_test`.  ``outcomes``: per
    impression +1 (a won), 0, −1, in order of first appearance.
    """

    preference: float
    wins: int
    ties: int
    losses: int
    p_value: float
    outcomes: np.ndarray = field(repr=False, compare=False)

    @property
    def impressions(self) -> int:
        return self.wins + self.ties + self.losses


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial sign test of H0: P(a wins | not a tie) = 1/2.

    p = min(1, 2 · P(X <= min(wins, losses))), X ~ Binomial(wins + losses, 1/2); ties are
    left out (the classical sign test); no decided impression gives p = 1.  Equal to
    ``scipy.stats.binomtest(wins, wins + losses, 0.5).pvalue``; the sign test of
    `rankscope.stats` (`rankscope.stats.paired.sign_p_value`), so the same counts give the
    same p-value as ``rankscope.stats.sign_test`` on per-query differences.
    """
    return float(sign_p_value(wins, losses))


_SIDES = {"a": (1, 0), "b": (0, 1), "both": (1, 1), None: (0, 0)}


def _side(label: Any) -> tuple[int, int]:
    if isinstance(label, float) and math.isnan(label):
        label = None
    try:
        return _SIDES[label]
    except (KeyError, TypeError):
        raise InputError(f"click credit {label!r}: expected 'a', 'b', 'both' or None") from None


def _column(frame: Any, name: str) -> list:
    try:
        column = frame[name]
    except Exception as error:  # pandas KeyError, polars ColumnNotFoundError
        raise InputError(f"click log: no column {name!r}") from error
    if hasattr(column, "notna"):  # pandas: NaN, None and pd.NA all mean "no credit"
        column = column.astype(object).where(column.notna(), None)
    return column.to_list() if hasattr(column, "to_list") else list(column)


def preference_from_clicks(
    log: Any, *, impression: str = "impression", side: str = "side"
) -> ClickPreference:
    """Score an online interleaving experiment from the credited side of each click.

    ``log`` is either an iterable of impressions, each an iterable of click credits, or a
    DataFrame (pandas or polars) with one row per click and columns ``impression`` (any
    id) and ``side``.  A credit is ``'a'``, ``'b'``, ``'both'`` (a balanced-interleaving
    click counting for both) or None (a click credited to neither; in a DataFrame also a
    row standing for an impression without credited clicks, which is a tie).

    Per impression the outcome is sgn(clicks_a − clicks_b); the preference is their mean
    over all impressions (ties count as 0), and the p-value the sign test on wins vs
    losses (`sign_test`).

    >>> r = preference_from_clicks([["a", "b", "a"], ["b"], [], ["a"], ["a", "b"], ["a"]])
    >>> r.wins, r.ties, r.losses, round(r.preference, 4), round(r.p_value, 4)
    (3, 2, 1, 0.3333, 0.625)
    """
    if hasattr(log, "columns"):
        ids, labels = _column(log, impression), _column(log, side)
        counts: dict[Hashable, list[int]] = {}
        for key, label in zip(ids, labels, strict=True):
            credit_a, credit_b = _side(label)
            entry = counts.setdefault(key, [0, 0])
            entry[0] += credit_a
            entry[1] += credit_b
        totals = list(counts.values())
    else:
        if isinstance(log, str | bytes):
            raise TypeError("click log: an iterable of impressions or a DataFrame")
        totals = []
        for number, clicks in enumerate(log):
            if isinstance(clicks, str | bytes) or not isinstance(clicks, Iterable):
                raise TypeError(
                    f"click log: impression {number} must be a list of credits, got {clicks!r}"
                )
            credit = [0, 0]
            for label in clicks:
                credit_a, credit_b = _side(label)
                credit[0] += credit_a
                credit[1] += credit_b
            totals.append(credit)
    if not totals:
        raise InputError("click log: no impressions")
    pairs = np.array(totals, dtype=np.int64).reshape(-1, 2)
    outcomes = np.sign(pairs[:, 0] - pairs[:, 1]).astype(np.int8)
    wins, losses = int(np.sum(outcomes > 0)), int(np.sum(outcomes < 0))
    ties = outcomes.size - wins - losses
    return ClickPreference(
        preference=(wins - losses) / outcomes.size,
        wins=wins,
        ties=ties,
        losses=losses,
        p_value=sign_test(wins, losses),
        outcomes=outcomes,
    )


__all__ = [
    "METHODS",
    "MAX_STATES",
    "Browsing",
    "ClickPreference",
    "Interleaving",
    "balanced",
    "browsing_distribution",
    "dcg",
    "expected_outcome",
    "interleaving_matrix",
    "offline_interleaving_preference",
    "preference_from_clicks",
    "relevant_mask",
    "sign_test",
    "team_draft",
    "uniform",
]
