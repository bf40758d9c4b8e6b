"""The interleaving methods — the one table of them, `METHODS` — and the interleaved list.

An interleaving experiment merges two rankings ``a`` and ``b`` into one list, shows it to a
user and credits each click to one ranking (or both); with h_a, h_b the clicks credited to a
and b, the impression's outcome is sgn(h_a − h_b): +1 a wins, −1 b wins, 0 a tie.  A method
is three things, declared once in an `InterleavingMethod`: how the list is built, how clicks
on it are credited, and the expected sign of an outcome (what the simulated user of offline
interleaving expects at each depth, and for a probabilistic list the outcome itself).  The
offline path (`rankscope.interleaving.offline`, from judgments), the online one
(`rankscope.interleaving.online`, from click logs), the ``OI`` preference measure and
``rankscope clicks interleave`` all read this table.

Methods
-------
*Team draft* (Radlinski, Kurup & Joachims 2008).  Documents are picked one at a time; the
team (ranking) with fewer picks so far picks next, and when both have as many a coin
decides, so each *round* of two picks starts with one coin flip.  A team picks the first
document of its ranking not yet in the list.  A click counts for the team that picked the
document (a log's ``team`` column).

*Balanced* (Joachims 2003; Chapelle, Joachims, Radlinski & Yue 2012, §3.1).  One coin
decides which ranking starts; with k_a, k_b the number of documents of a and b consumed so
far, a contributes next if k_a < k_b, or k_a = k_b and a started; a document already in the
list is skipped (its ranking's counter still advances).  Credit, exactly as Chapelle et al.
(2012) state it: with clicks at positions c_1 < ... < c_n of the interleaved list I and
c_max = c_n the lowest click, let

    j = min{ r : a_r = I[c_max] or b_r = I[c_max] }

(the best rank of the lowest-clicked document in either ranking); then
h_a = |{c_i : I[c_i] ∈ {a_1..a_j}}| and h_b = |{c_i : I[c_i] ∈ {b_1..b_j}}|.  A document
both rankings hold in their top j counts for both.  (Lerot and some later papers take
j = min(deepest rank in a of a clicked document, deepest rank in b of one); the two rules
can differ.)  Crediting a logged list needs the two rankings of its query.

*Probabilistic* (Hofmann, Whiteson & de Rijke 2011): each ranking is a softmax over its
documents, P_s(d) ∝ 1/r_s(d)^τ (τ = 3); at each position a fair coin picks a ranking and
the document is drawn from its softmax over the documents not shown yet (a ranking with
none left yields to the other).  The outcome *with marginalisation* (their §4) does not use
the coins that were drawn: it is the expectation of sgn(h_a − h_b) over the assignments
a_1..a_L given the shown list,

    E[o | L, clicks] = Σ_assignments P(assignments | L) · sgn(h_a − h_b),

where, because the list's probability factorises over positions, the posterior is
independent per position: P(a_i = a | L) = P_a(L_i | L_<i) / (P_a(L_i | L_<i) +
P_b(L_i | L_<i)).  The expectation is computed exactly (the distribution of h_a − h_b over
the clicked positions).  Without marginalisation the drawn assignment (the ``team``
column) is credited, as team draft does.  A document a ranking does not hold has
probability 0 under it.  Outcomes then lie in [−1, 1].  It has no offline computation.

Rankings of different lengths.  The published team-draft and balanced algorithms stop as
soon as either ranking is exhausted.  rankscope by default continues with the other ranking
alone (its documents, credited to it, in its order), so a ranking that retrieves more
relevant documents deeper down can win; ``truncate=True`` gives the published behaviour.
As in the published loops, the check comes before every pick: once a ranking runs out the
list ends, even in the middle of a team-draft round.

References
----------
* T. Joachims. Evaluating retrieval performance using clickthrough data. In *Text Mining*,
  Physica/Springer, 2003.
* F. Radlinski, M. Kurup, T. Joachims. How does clickthrough data reflect retrieval
  quality? CIKM 2008.
* K. Hofmann, S. Whiteson, M. de Rijke. A probabilistic method for inferring preferences
  from click data. CIKM 2011.
* O. Chapelle, T. Joachims, F. Radlinski, Y. Yue. Large-scale validation and analysis of
  interleaved search evaluation. ACM TOIS 30(1), 2012.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ..read.fields import excerpt
from .kernels import Batch, balanced_values, team_draft_values
from .names import NAMES, canonical, spellings

#: Hofmann et al.'s softmax exponent (probabilistic interleaving).
TAU = 3.0


def check_tau(tau: Any) -> float:
    """The softmax exponent τ of probabilistic interleaving, checked: a finite number > 0."""
    if isinstance(tau, bool) or not isinstance(tau, int | float) or not math.isfinite(tau):
        raise UsageError(f"tau must be a finite number > 0, got {tau!r}")
    if tau <= 0:
        raise UsageError(f"tau must be a finite number > 0, got {tau!r}")
    return float(tau)


# Rankings as integer codes


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


# --------------------------------------------------------------------------------------
# One interleaved list


@dataclass(frozen=True, eq=False)
class Interleaving:
    """An interleaved list and what is needed to credit clicks on it.

    ``docs``: the interleaved list (original document ids).  ``team``: per position, +1
    when ranking a placed the document, −1 when b did, 0 when unknown (team draft: the team
    that picked it, which is also the credit; balanced: the ranking whose turn placed it,
    informative only; probabilistic: the ranking the coin drew).  ``rank_a``/``rank_b``: per
    position, the document's 1-based rank in a and b (inf when absent).  ``posterior``:
    probabilistic only, per position P(a placed it | the list) (`assignment_posteriors`).
    ``method``: the canonical name of its `InterleavingMethod`, whose credit rule it follows.
    """

    docs: tuple[Hashable, ...]
    team: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    method: str
    posterior: np.ndarray | None = None

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

    def credit(self, clicked: Iterable[int] | np.ndarray) -> tuple[float, float]:
        """(h_a, h_b): the clicks credited to a and to b, by the rule of this list's method
        (the module documentation; probabilistic: expected under the posterior).

        ``clicked``: a boolean mask over positions, or 0-based positions.
        """
        positions = self._clicked_positions(clicked)
        if positions.size == 0:
            return 0, 0
        return method_named(self.method).credit(self, positions)

    def outcome(self, clicked: Iterable[int] | np.ndarray) -> float:
        """The outcome of these clicks: sgn(h_a − h_b), +1 a wins, −1 b wins, 0 tie
        (probabilistic: its expectation over the assignments, in [−1, 1])."""
        positions = self._clicked_positions(clicked)
        return method_named(self.method).outcome(self, positions)

    def head(self, length: int | None) -> Interleaving:
        """The first ``length`` positions (all with None): what a user is shown of a longer
        list."""
        end = len(self.docs) if length is None else length
        posterior = None if self.posterior is None else self.posterior[:end].copy()
        return Interleaving(
            self.docs[:end], self.team[:end].copy(), self.rank_a[:end].copy(),
            self.rank_b[:end].copy(), self.method, posterior,
        )  # fmt: skip


# --------------------------------------------------------------------------------------
# Building lists: team draft and balanced over codes


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
# Probabilistic interleaving


def _generator(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise UsageError(f"seed must be an integer, a numpy Generator or None, got {seed!r}")


def _log_weights(ranking: Sequence[Hashable], tau: float) -> dict[Hashable, float]:
    """log(1/r^τ) = −τ·log r per document of ``ranking``: the softmax's weights in log
    space, so a large τ (1000) neither overflows ``r**τ`` nor underflows every weight
    but the first to 0."""
    return {doc: -tau * math.log(rank) for rank, doc in enumerate(ranking, start=1)}


class _LogPool:
    """The documents of one ranking not shown yet, with log P_s(d | pool) for the softmax
    ∝ 1/r^τ over them: the pool's sum is the tail sum from its best remaining rank m
    (accumulated in log space, from the bottom, once) less the few documents below m
    already taken, so neither a large τ (overflow, underflow) nor taking the heaviest
    documents (cancellation to 0) breaks it, at O(shown) a step."""

    def __init__(self, ranking: Sequence[Hashable], tau: float) -> None:
        self.rank = {doc: i for i, doc in enumerate(ranking)}
        self.log_weight = -tau * np.log(np.arange(1, len(ranking) + 1, dtype=np.float64))
        self.log_tail = np.logaddexp.accumulate(self.log_weight[::-1])[::-1]
        self.taken: set[int] = set()
        self.best = 0  # the best (smallest) rank index not taken

    def take(self, doc: Hashable) -> float:
        """log P(doc | the documents not taken yet), and take it; −inf when ``doc`` is
        not in this pool (not ranked, or taken before)."""
        i = self.rank.get(doc)
        if i is None or i in self.taken:
            return -math.inf
        tail = float(self.log_tail[self.best])
        below = math.fsum(math.exp(self.log_weight[j] - tail) for j in self.taken if j > self.best)
        log_p = float(self.log_weight[i]) - tail - math.log1p(-below)
        self.taken.add(i)
        while self.best in self.taken:
            self.best += 1
        return log_p


def _ranks(shown: Sequence[Hashable], ranking: Sequence[Hashable]) -> np.ndarray:
    where = {doc: rank for rank, doc in enumerate(ranking, start=1)}
    return np.array([where.get(d, math.inf) for d in shown], dtype=np.float64)


def probabilistic_interleave(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    rng: np.random.Generator,
    *,
    tau: float = TAU,
    length: int | None = None,
) -> Interleaving:
    """Probabilistic interleaving of rankings ``a`` and ``b`` (Hofmann et al. 2011).

    At each position a fair coin picks a ranking s (a ranking with no document left yields
    to the other) and the document is drawn with probability ∝ 1/r_s(d)^τ among s's
    documents not shown yet.  ``length``: the list's length (default |a ∪ b|).
    """
    tau = check_tau(tau)
    weights_a, weights_b = _log_weights(a, tau), _log_weights(b, tau)
    left_a, left_b = list(a), list(b)
    shown: list[Hashable] = []
    teams: list[int] = []
    placed: set[Hashable] = set()
    limit = len(set(left_a) | set(left_b)) if length is None else length
    while len(shown) < limit:
        left_a = [d for d in left_a if d not in placed]
        left_b = [d for d in left_b if d not in placed]
        if not (left_a or left_b):
            break
        from_a = bool(rng.integers(0, 2)) if (left_a and left_b) else bool(left_a)
        left, weights = (left_a, weights_a) if from_a else (left_b, weights_b)
        log_p = np.array([weights[d] for d in left])
        p = np.exp(log_p - log_p.max())
        doc = left[int(rng.choice(len(left), p=p / p.sum()))]
        shown.append(doc)
        teams.append(1 if from_a else -1)
        placed.add(doc)
    return _observed_probabilistic(shown, a, b, np.array(teams, dtype=np.int8), tau)


# --------------------------------------------------------------------------------------
# Credit


def team_draft_credit(
    team: Sequence[int] | np.ndarray, clicked: Sequence[bool] | np.ndarray
) -> tuple[int, int]:
    """(h_a, h_b) of a team-draft impression: the clicks on documents a's team picked
    (``team`` +1) and b's (−1); ``clicked``: one boolean per position.

    >>> team_draft_credit([1, -1, -1, 1], [True, False, True, True])
    (2, 1)
    """
    team, clicked = _per_position(team, clicked)
    return int(np.sum(clicked & (team > 0))), int(np.sum(clicked & (team < 0)))


def _per_position(team: Any, clicked: Any) -> tuple[np.ndarray, np.ndarray]:
    team_array = np.asarray(team, dtype=np.int64)
    clicked_array = np.asarray(clicked, dtype=bool)
    if team_array.shape != clicked_array.shape or team_array.ndim != 1:
        raise UsageError("team and clicked need one entry per position each")
    return team_array, clicked_array


def _credit_by_team(shown: Interleaving, positions: np.ndarray) -> tuple[int, int]:
    teams = shown.team[positions]
    return int(np.sum(teams > 0)), int(np.sum(teams < 0))


def _credit_by_ranks(shown: Interleaving, positions: np.ndarray) -> tuple[int, int]:
    """Chapelle et al.'s balanced credit: the clicks among a's and b's top j, j the best rank
    of the lowest-clicked document."""
    lowest = positions[-1]
    cut = min(shown.rank_a[lowest], shown.rank_b[lowest])
    return (
        int(np.sum(shown.rank_a[positions] <= cut)),
        int(np.sum(shown.rank_b[positions] <= cut)),
    )


def _credit_by_posterior(shown: Interleaving, positions: np.ndarray) -> tuple[float, float]:
    posterior = _posterior(shown)[positions]
    return float(posterior.sum()), float((1 - posterior).sum())


def _posterior(shown: Interleaving) -> np.ndarray:
    if shown.posterior is None:
        raise UsageError("a probabilistic list needs its assignment posteriors")
    return shown.posterior


def _sign_by_team(shown: Interleaving, positions: np.ndarray) -> float:
    h_a, h_b = _credit_by_team(shown, positions)
    return (h_a > h_b) - (h_a < h_b)


def _sign_by_ranks(shown: Interleaving, positions: np.ndarray) -> float:
    if positions.size == 0:
        return 0
    h_a, h_b = _credit_by_ranks(shown, positions)
    return (h_a > h_b) - (h_a < h_b)


def _sign_by_posterior(shown: Interleaving, positions: np.ndarray) -> float:
    return _sign_expectation(_posterior(shown)[positions])


def _observed_team(shown: Sequence[Hashable], team: np.ndarray) -> Interleaving:
    """A logged team-draft list: its teams are its credit."""
    infinite = np.full(len(shown), np.inf)
    return Interleaving(tuple(shown), team, infinite, infinite.copy(), "team-draft")


def _observed_balanced(
    shown: Sequence[Hashable], a: Sequence[Hashable], b: Sequence[Hashable], team: np.ndarray
) -> Interleaving:
    """A logged balanced list with the ranks its credit reads; `InputError` when a shown
    document is in neither ranking."""
    missing = set(shown) - set(a) - set(b)
    if missing:
        doc = next(d for d in shown if d in missing)
        raise InputError(f"document {excerpt(str(doc))} is in neither ranking")
    return Interleaving(tuple(shown), team, _ranks(shown, a), _ranks(shown, b), "balanced")


def _observed_probabilistic(
    shown: Sequence[Hashable],
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    team: np.ndarray,
    tau: float,
) -> Interleaving:
    return Interleaving(
        tuple(shown), team, _ranks(shown, a), _ranks(shown, b), "probabilistic",
        assignment_posteriors(shown, a, b, tau=tau),
    )  # fmt: skip


def balanced_credit(
    shown: Sequence[Hashable],
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    clicked: Sequence[bool] | np.ndarray,
) -> tuple[int, int]:
    """(h_a, h_b) of a balanced-interleaving impression (Chapelle et al. 2012, §3.1): with
    c_max the lowest click and j = min(rank_a, rank_b) of the document there, the clicked
    documents among a's top j and among b's top j.

    >>> balanced_credit(["d1", "d2", "d3"], ["d1", "d3"], ["d2", "d3"], [False, True, True])
    (1, 2)
    """
    clicked_array = np.asarray(clicked, dtype=bool)
    if clicked_array.shape != (len(shown),):
        raise UsageError("clicked needs one entry per shown position")
    rank_a, rank_b = _ranks(shown, a), _ranks(shown, b)
    made = Interleaving(tuple(shown), np.zeros(len(shown), np.int8), rank_a, rank_b, "balanced")
    h_a, h_b = made.credit(clicked_array)
    return int(h_a), int(h_b)


def assignment_posteriors(
    shown: Sequence[Hashable], a: Sequence[Hashable], b: Sequence[Hashable], *, tau: float = TAU
) -> np.ndarray:
    """P(a_i = a | L) per position of a probabilistic-interleaving list L (Hofmann et al.
    2011): P_a(L_i | L_<i) / (P_a(L_i | L_<i) + P_b(L_i | L_<i)), with P_s the softmax
    ∝ 1/r_s^τ over s's documents not shown before position i.  `InputError` when a shown
    document is in neither ranking.
    """
    tau = check_tau(tau)
    pool_a, pool_b = _LogPool(a, tau), _LogPool(b, tau)
    out = np.empty(len(shown))
    for i, doc in enumerate(shown):
        log_a, log_b = pool_a.take(doc), pool_b.take(doc)
        if log_a == log_b == -math.inf:
            raise InputError(
                f"document {excerpt(str(doc))} at position {i + 1} is in neither ranking"
            )
        out[i] = _logistic(log_a - log_b)
    return out


def _logistic(x: float) -> float:
    """1 / (1 + e^−x) = p_a / (p_a + p_b) for x = log p_a − log p_b, without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def probabilistic_outcome(
    shown: Sequence[Hashable],
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    clicked: Sequence[bool] | np.ndarray,
    *,
    tau: float = TAU,
) -> float:
    """E[sgn(h_a − h_b) | L, clicks] of a probabilistic-interleaving impression, the
    assignments marginalised out (Hofmann et al. 2011, §4): exact, over the independent
    per-position posteriors of `assignment_posteriors`.

    >>> round(probabilistic_outcome(["d1", "d2"], ["d1", "d2"], ["d2", "d1"], [True, False]), 4)
    0.7778
    """
    clicked_array = np.asarray(clicked, dtype=bool)
    if clicked_array.shape != (len(shown),):
        raise UsageError("clicked needs one entry per shown position")
    posterior = assignment_posteriors(shown, a, b, tau=tau)[clicked_array]
    return _sign_expectation(posterior)


def _sign_expectation(posterior: np.ndarray) -> float:
    """E[sgn(Σ X_i)] for independent X_i = +1 with probability posterior[i], else −1."""
    n = posterior.size
    if n == 0:
        return 0.0
    distribution = np.zeros(2 * n + 1)  # index d + n for a difference d
    distribution[n] = 1.0
    for q in posterior.tolist():
        moved = np.zeros_like(distribution)
        moved[1:] += q * distribution[:-1]
        moved[:-1] += (1.0 - q) * distribution[1:]
        distribution = moved
    value = float(distribution[n + 1 :].sum() - distribution[:n].sum())
    return min(1.0, max(-1.0, value))


# --------------------------------------------------------------------------------------
# The simulated user on one list: the expected sign over her depth


def _team_signs(rel: np.ndarray, shown: Interleaving) -> np.ndarray:
    """s_k for k = 1..L on one team-draft list: the sign of the running team credit of
    the relevant documents."""
    return np.sign(np.cumsum(rel.astype(np.int64) * shown.team))


def _ranked_signs(rel: np.ndarray, shown: Interleaving) -> np.ndarray:
    return _balanced_signs(rel, shown.rank_a, shown.rank_b)


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


def expected_sign(signs: np.ndarray, p: np.ndarray) -> float:
    """Σ_{k<=L} p(k) s_k + P(k > L) s_L for per-position outcomes s (length L)."""
    length = signs.size
    if length == 0:
        return 0.0
    n = min(length, p.size)
    value = float(np.dot(p[:n], signs[:n]))
    if p.size > length:
        value += float(p[length:].sum()) * float(signs[-1])
    return min(1.0, max(-1.0, value))


def _team_draft_monte_carlo(
    pair: _Pair, rel: np.ndarray, p: np.ndarray, truncate: bool, samples: int, rng: Any
) -> float:
    """Seeded Monte Carlo estimate of team draft's offline preference over flip sequences,
    in antithetic pairs (f, not f)."""
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
            total += expected_sign(signs, p)
    return total / (2 * pairs)


def _team_draft_kernel(
    batch: Batch, total_relevant: np.ndarray, truncate: bool, max_states: int | None
) -> np.ndarray:
    return team_draft_values(batch, total_relevant, truncate=truncate, max_states=max_states)


def _balanced_kernel(
    batch: Batch, total_relevant: np.ndarray, truncate: bool, max_states: int | None
) -> np.ndarray:
    return balanced_values(batch, truncate=truncate)


# --------------------------------------------------------------------------------------
# Building one list, seeded


def _build_team_draft(
    a: Sequence[Hashable], b: Sequence[Hashable], rng: np.random.Generator, tau: float,
    length: int | None,
) -> Interleaving:  # fmt: skip
    return team_draft(a, b, rng).head(length)


def _build_balanced(
    a: Sequence[Hashable], b: Sequence[Hashable], rng: np.random.Generator, tau: float,
    length: int | None,
) -> Interleaving:  # fmt: skip
    return balanced(a, b, "a" if rng.integers(0, 2) else "b").head(length)


def _build_probabilistic(
    a: Sequence[Hashable], b: Sequence[Hashable], rng: np.random.Generator, tau: float,
    length: int | None,
) -> Interleaving:  # fmt: skip
    return probabilistic_interleave(a, b, rng, tau=tau, length=length)


def _observe_team_draft(
    shown: Sequence[Hashable], a: Sequence[Hashable], b: Sequence[Hashable], team: np.ndarray,
    tau: float,
) -> Interleaving:  # fmt: skip
    return _observed_team(shown, team)


def _observe_balanced(
    shown: Sequence[Hashable], a: Sequence[Hashable], b: Sequence[Hashable], team: np.ndarray,
    tau: float,
) -> Interleaving:  # fmt: skip
    return _observed_balanced(shown, a, b, team)


# --------------------------------------------------------------------------------------
# The table


@dataclass(frozen=True, eq=False)
class InterleavingMethod:
    """One interleaving method: its names and its three rules.

    ``build(a, b, rng, tau, length)``: one interleaved list of rankings a and b, seeded by
    ``rng`` (its first ``length`` positions; None: all).  ``observe(shown, a, b, team,
    tau)``: a logged list (shown documents and their teams) as an `Interleaving` that can be
    credited, given the two rankings when ``needs_rankings``.  ``credit(list, positions)``:
    (h_a, h_b) for clicks at these 0-based positions (sorted, at least one).
    ``outcome(list, positions)``: the expected sign of the outcome, sgn(h_a − h_b) for a
    discrete method.  ``signs(relevant, list)``: the simulated user's outcome s_k at each
    depth k when she clicks the relevant positions (None: no offline interleaving).
    ``offline(batch, total_relevant, truncate, max_states)``: the exact offline preference
    of every pair of a `rankscope.interleaving.kernels.Batch` (NaN: beyond ``max_states``);
    ``estimate``: its Monte Carlo fallback, None when the kernel is always exact.
    ``marginalises``: the credit marginalises the assignments (without marginalisation the
    logged team is credited, as team draft does).
    """

    name: str  # canonical: its spellings are declared in `rankscope.interleaving.names`
    build: Callable[..., Interleaving]
    observe: Callable[..., Interleaving]
    credit: Callable[[Interleaving, np.ndarray], tuple[float, float]]
    outcome: Callable[[Interleaving, np.ndarray], float]
    needs_rankings: bool
    signs: Callable[[np.ndarray, Interleaving], np.ndarray] | None = None
    offline: Callable[..., np.ndarray] | None = None
    estimate: Callable[..., float] | None = None
    marginalises: bool = False

    @property
    def aliases(self) -> tuple[str, ...]:
        """The method's other spellings (`rankscope.interleaving.names.NAMES`)."""
        return NAMES[self.name][0]

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling of the method, canonical name first."""
        return spellings(self.name)


TEAM_DRAFT = InterleavingMethod(
    "team-draft", _build_team_draft, _observe_team_draft, _credit_by_team, _sign_by_team,
    needs_rankings=False, signs=_team_signs, offline=_team_draft_kernel,
    estimate=_team_draft_monte_carlo,
)  # fmt: skip
BALANCED = InterleavingMethod(
    "balanced", _build_balanced, _observe_balanced, _credit_by_ranks, _sign_by_ranks,
    needs_rankings=True, signs=_ranked_signs, offline=_balanced_kernel,
)  # fmt: skip
PROBABILISTIC = InterleavingMethod(
    "probabilistic", _build_probabilistic, _observed_probabilistic, _credit_by_posterior,
    _sign_by_posterior, needs_rankings=True, marginalises=True,
)  # fmt: skip

#: The interleaving methods' rules, by canonical name, in the order of their names
#: (`rankscope.interleaving.names.NAMES`, which says which are computed offline).
METHODS: dict[str, InterleavingMethod] = {m.name: m for m in (TEAM_DRAFT, BALANCED, PROBABILISTIC)}


def method_named(name: Any, *, offline: bool = False) -> InterleavingMethod:
    """The method a name (any spelling, any case) denotes; with ``offline``, only methods
    with an offline computation.  `UsageError` listing the methods otherwise."""
    return METHODS[canonical(name, offline=offline)]


def interleaved_list(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    *,
    method: str = "team-draft",
    seed: int | np.random.Generator | None = 0,
    length: int | None = None,
    tau: float = TAU,
) -> Interleaving:
    """One interleaved list of rankings ``a`` and ``b`` (best first), seeded.

    ``method``: ``team-draft`` (Radlinski et al. 2008), ``balanced`` (Joachims 2003; a coin
    decides which ranking starts) or ``probabilistic`` (Hofmann et al. 2011, softmax
    exponent ``tau``).  ``length``: keep the first ``length`` documents (default all of
    a ∪ b).  The same integer seed gives the same list.

    >>> interleaved_list(["d1", "d2", "d3"], ["d2", "d1", "d4"], method="balanced", seed=1).docs
    ('d2', 'd1', 'd4', 'd3')
    """
    rule = method_named(method)
    if length is not None and (
        isinstance(length, bool) or not isinstance(length, int) or length < 1
    ):
        raise UsageError(f"length must be an integer >= 1, got {length!r}")
    return rule.build(a, b, _generator(seed), tau, length)


__all__ = [
    "BALANCED",
    "METHODS",
    "PROBABILISTIC",
    "TAU",
    "TEAM_DRAFT",
    "Interleaving",
    "InterleavingMethod",
    "assignment_posteriors",
    "balanced",
    "balanced_credit",
    "check_tau",
    "expected_sign",
    "interleaved_list",
    "method_named",
    "probabilistic_interleave",
    "probabilistic_outcome",
    "team_draft",
    "team_draft_credit",
]
