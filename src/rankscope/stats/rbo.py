"""Rank-biased overlap (RBO): how similar two rankings are, weighted towards the top.

Webber, Moffat & Zobel, "A similarity measure for indefinite rankings", ACM TOIS 28(4),
2010; the treatment of ties from Corsi & Urbano, "The treatment of ties in rank-biased
overlap", SIGIR 2024.

Definitions.  For rankings S and T and a depth d, the overlap X_d is the number of items
in both prefixes S_{:d} and T_{:d} and the agreement A_d = X_d / d.  With persistence
0 < p < 1,

    RBO(S, T, p) = (1 − p) Σ_{d≥1} p^{d−1} A_d ,

a weighted mean of the agreements, in [0, 1] (the weight of the first d depths is 1 − p^d).
Only prefixes are ever known, so the paper gives three numbers for a prefix: the shorter
list S of length s and the longer L of length l (s ≤ l; s = l for even lengths), both seen
to their end:

* RBO_min: no item beyond what is seen ever matches (X_d = X_l for d > l);
* RBO_max = RBO_min + RBO_res: every unseen item matches as early as it can (S's unseen
  items, positions s+1..l, are L's items missing from S, in L's order; beyond l,
  X_d = min(d, 2d − l − s + X_l));
* RBO_ext (eq. 32): the agreement A_s of the shorter list's end is extrapolated to its unseen
  items, X_d = X_d^seen + (d − s) A_s for s < d ≤ l, and the agreement at depth l to every
  depth beyond:

      RBO_ext = (1−p)/p · ( Σ_{d=1}^{l} X_d/d p^d + Σ_{d=s+1}^{l} X_s (d − s)/(s d) p^d )
                + ( (X_l − X_s)/l + X_s/s ) p^l .

  For two identical finite lists RBO_ext = 1 (eq. 23 with A_d = 1).

Always 0 ≤ RBO_min ≤ RBO_ext ≤ RBO_max ≤ 1.

Ties (Corsi & Urbano 2024).  A ranking may hold groups of tied items (equal scores).  An item
of a group occupying positions t..b contributes c(d) to the prefix at depth d:

* ``w`` (ties are equal items, a sports ranking): c(d) = 1 from d = t on; the prefix may be
  longer than d, and A_d = 2 X_d / (|S_{:d}| + |L_{:d}|);
* ``a`` (ties are uncertainty; the mean of RBO over the orders of the tied items):
  c(d) = (d − t + 1)/(b − t + 1) for t ≤ d < b, 1 from b on; X_d = Σ c_S(d) c_L(d) over
  the items of both, A_d = X_d / d;
* ``b`` (as ``a``, corrected for the information lost in the ties, as Kendall's τ_b):
  A_d = X_d / sqrt(Σ c_S(d)² · Σ c_L(d)²).

Beyond s the shorter list's unseen items count 1 each in these denominators (|S_{:d}| = d,
Σ c_S² = d), and for RBO_ext its extrapolated matches take the mean contribution of L's
items missing from S that have begun by depth d.  Without ties the three are the original
RBO.  These are the definitions of the authors' reference implementation
(github.com/julian-urbano/sigir2024-rbo, ``rbo.R``); ``a`` is exactly the mean over the
orders of the tied items for RBO_min and, for even lengths, for all three scores.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError, shown

#: Tie treatments of `rbo` (Corsi & Urbano 2024): ``w``, ``a`` and ``b``.
TIE_VARIANTS = ("a", "b", "w")

#: How far rounding may take RBO_ext outside [RBO_min, RBO_max] before it is put back.
ROUNDING = 1e-12

_GROUP_TYPES = (list, tuple, set, frozenset, np.ndarray)


@dataclass(frozen=True)
class RBO:
    """The numbers of rank-biased overlap for two (prefixes of) rankings: ``min`` (no
    further agreement), ``res`` (the residual: the most that the unseen items could add),
    ``ext`` (the agreement seen, extrapolated) and ``max`` = min + res (up to rounding)."""

    min: float
    res: float
    ext: float
    max: float


@dataclass(frozen=True)
class FlatRanking:
    """A ranking as item codes in ranked order, with the first and last position (1-based)
    of each item's tie group (``top == bottom`` for an untied item)."""

    items: np.ndarray  # int64 codes, distinct
    top: np.ndarray  # int64
    bottom: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.items)

    @property
    def tied(self) -> bool:
        """Whether any group holds two items or more."""
        return bool(np.any(self.top != self.bottom))

    @classmethod
    def from_groups(cls, codes: np.ndarray, group_sizes: np.ndarray) -> FlatRanking:
        """Item ``codes`` in ranked order cut into consecutive tie groups of ``group_sizes``."""
        sizes = np.asarray(group_sizes, dtype=np.int64)
        ends = np.cumsum(sizes)
        return cls(
            np.asarray(codes, dtype=np.int64),
            np.repeat(ends - sizes + 1, sizes),
            np.repeat(ends, sizes),
        )


def _flatten(ranking: Any, name: str, codes: dict[Hashable, int]) -> FlatRanking:
    items: list[int] = []
    sizes: list[int] = []
    seen: set[int] = set()
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, Iterable):
        raise UsageError(f"{name} must be a sequence of items (or of groups of tied items)")
    for entry in ranking:
        group = list(entry) if isinstance(entry, _GROUP_TYPES) else [entry]
        if not group:
            raise UsageError(f"{name} holds an empty group of tied items")
        for item in group:
            if isinstance(item, np.generic):
                item = item.item()
            try:
                code = codes.setdefault(item, len(codes))
            except TypeError:
                raise UsageError(f"{name}: item {item!r} is not hashable") from None
            if code in seen:
                raise UsageError(f"{name} lists item {item!r} twice")
            seen.add(code)
            items.append(code)
        sizes.append(len(group))
    if not items:
        raise UsageError(f"{name} is empty: RBO needs two non-empty rankings")
    return FlatRanking.from_groups(np.array(items, dtype=np.int64), np.array(sizes))


def rbo(x: Sequence[Any], y: Sequence[Any], p: float = 0.9, *, ties: str = "a") -> RBO:
    """Rank-biased overlap of rankings ``x`` and ``y`` with persistence ``p`` (0 < p < 1).

    A ranking is a sequence of distinct hashable items, best first; an entry that is a
    list, tuple, set or array is a group of tied items (``["a", {"b", "c"}, "d"]``).  The
    lists may have different lengths (the paper's uneven case).  ``ties`` chooses the
    treatment of tied items, ``a`` (the mean over their orders, default), ``b`` or ``w``
    (see the module's documentation); without ties the three agree.

    Two identical lists of five items, p = 0.9: RBO_ext = 1, RBO_min = (1−p)/p · (Σ_{d≤5}
    p^d + 5 Σ_{d>5} p^d/d) = 0.6720 (nothing more is known to match beyond depth 5):

    >>> r = rbo(list("abcde"), list("abcde"), 0.9)
    >>> round(r.min, 4), round(r.ext, 12), round(r.max, 12)
    (0.672, 1.0, 1.0)
    """
    codes: dict[Hashable, int] = {}
    return rbo_flat(_flatten(x, "x", codes), _flatten(y, "y", codes), p, ties=ties)


def check_persistence(p: float) -> float:
    """``p`` as a float, or `UsageError` unless 0 < p < 1."""
    try:
        value = float(p)
    except (TypeError, ValueError):
        raise UsageError(
            f"RBO's persistence p must be a number in (0, 1) (got {shown(p)})"
        ) from None
    if not 0.0 < value < 1.0:
        raise UsageError(
            f"RBO's persistence p must lie strictly between 0 and 1 (got {shown(p)})",
            cli=f"--p must lie strictly between 0 and 1 (got {shown(p)})",
        )
    return value


def _steps(at: np.ndarray, depth: int) -> np.ndarray:
    """For d = 1..depth, how many of the positions ``at`` are ≤ d."""
    counts = np.bincount(np.minimum(at, depth + 1), minlength=depth + 2)
    return np.cumsum(counts)[1 : depth + 1].astype(np.float64)


def _ramp(d: np.ndarray, top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """The a-variant contribution at depth ``d`` of items whose group spans top..bottom."""
    return np.clip((d - top + 1) / (bottom - top + 1), 0.0, 1.0)


def _partial(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (item index, depth) with start ≤ depth < stop, flattened."""
    lengths = np.maximum(stops - starts, 0)
    index = np.repeat(np.arange(len(starts)), lengths)
    offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return index, starts[index] + offsets


def _sum_at_depths(
    depth: int, full_from: np.ndarray, starts: np.ndarray, values: Any
) -> np.ndarray:
    """Σ over items of a contribution that is 1 from ``full_from`` on and ``values(index,
    d)`` for starts ≤ d < full_from, at each depth d = 1..depth."""
    total = _steps(full_from, depth)
    index, d = _partial(starts, np.minimum(full_from, depth + 1))
    if len(index):
        total += np.bincount(d - 1, weights=values(index, d), minlength=depth)[:depth]
    return total


def rbo_flat(S: FlatRanking, T: FlatRanking, p: float = 0.9, *, ties: str = "a") -> RBO:
    """`rbo` of two rankings already flattened to item codes (`FlatRanking`)."""
    p = check_persistence(p)
    if ties not in TIE_VARIANTS:
        raise UsageError(f"unknown tie treatment {ties!r}: one of {', '.join(TIE_VARIANTS)}")
    if not len(S) or not len(T):
        raise UsageError("RBO needs two non-empty rankings")
    L, S = (S, T) if len(S) >= len(T) else (T, S)
    l, s = len(L), len(S)
    if not (S.tied or L.tied):
        ties = "w"  # the three coincide; w is the simplest
    d = np.arange(1, l + 1, dtype=np.float64)
    _, in_s, in_l = np.intersect1d(S.items, L.items, assume_unique=True, return_indices=True)
    tS, bS, tL, bL = S.top[in_s], S.bottom[in_s], L.top[in_l], L.bottom[in_l]
    if ties == "w":
        overlap = _steps(np.maximum(tS, tL), l)
        size = (np.where(d <= s, _steps(S.top, l), d) + _steps(L.top, l)) / 2
    else:
        overlap = _sum_at_depths(
            l, np.maximum(bS, bL), np.maximum(tS, tL),
            lambda i, dd: _ramp(dd, tS[i], bS[i]) * _ramp(dd, tL[i], bL[i]),
        )  # fmt: skip
        if ties == "a":
            size = d
        else:
            squares_l = _sum_at_depths(
                l, L.bottom, L.top, lambda i, dd: _ramp(dd, L.top[i], L.bottom[i]) ** 2
            )
            squares_s = _sum_at_depths(
                s, S.bottom, S.top, lambda i, dd: _ramp(dd, S.top[i], S.bottom[i]) ** 2
            )
            size = np.sqrt(np.concatenate((squares_s, d[s:])) * squares_l)
    agreement = overlap / size
    a_s = float(agreement[s - 1])
    unseen_max = np.zeros(l)
    unseen_ext = np.zeros(l)
    if l > s:
        # L's items missing from S, in L's order: S's unseen items at best, one per depth
        missing = np.ones(l, dtype=bool)
        missing[in_l] = False
        top_m, bottom_m = L.top[missing], L.bottom[missing]
        dd = np.arange(s + 1, l + 1)
        if ties == "w":
            unseen_max[s:] = dd - s
            mean_contribution = np.ones(l - s)
        else:
            # only the group holding position d can straddle it (top ≤ d < bottom)
            top_g, bottom_g = L.top[dd - 1], L.bottom[dd - 1]
            fraction = _ramp(dd, top_g, bottom_g)
            first = np.searchsorted(top_m, top_g, "left")
            last = np.searchsorted(top_m, top_g, "right")
            straddles = bottom_g > dd
            matched = np.clip(np.minimum(last, dd - s) - first, 0, None)
            unseen_max[s:] = (dd - s) - np.where(straddles, matched * (1 - fraction), 0.0)
            full = np.searchsorted(bottom_m, dd, "right")
            begun = np.where(straddles, last - first, 0)
            mean_contribution = (full + begun * fraction) / (full + begun)
        unseen_ext[s:] = (dd - s) * a_s * mean_contribution
    weights = p**d
    scale = (1 - p) / p
    seen_l = round(float(overlap[-1]))  # every item has fully entered by depth l
    tail = -math.log1p(-p) - float(np.sum(weights / d))  # Σ_{d>l} p^d / d
    rbo_min = scale * (float(np.sum(agreement * weights)) + seen_l * max(tail, 0.0))
    f = l + s - seen_l
    beyond = np.arange(l + 1, f + 1, dtype=np.float64)
    tail_max = float(np.sum((2 * beyond - l - s + seen_l) / beyond * p**beyond))
    tail_max += p ** (f + 1) / (1 - p)
    rbo_max = scale * (float(np.sum((overlap + unseen_max) / size * weights)) + tail_max)
    tail_ext = (seen_l + (l - s) * a_s) / l * p ** (l + 1) / (1 - p)
    rbo_ext = scale * (float(np.sum((overlap + unseen_ext) / size * weights)) + tail_ext)
    low, high, ext = (min(max(v, 0.0), 1.0) for v in (rbo_min, rbo_max, rbo_ext))
    if low - ROUNDING <= ext <= high + ROUNDING:  # only rounding may take it outside
        ext = min(max(ext, low), high)
    return RBO(low, high - low, ext, high)
