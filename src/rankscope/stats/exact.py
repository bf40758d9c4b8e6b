"""Exact sums of floating-point numbers, in any order and in any number of pieces.

A sum of doubles added one after the other depends on the order of the additions; a sum
computed in pieces (partitions on a cluster) and then added depends on the pieces.  `ExactSum`
keeps the exact value of a sum of doubles — an integer times a power of two — so that sums of
pieces add without rounding, and rounds once, at the end: the same float whatever the order
and the pieces (``ExactSum.of(a) + ExactSum.of(b) == ExactSum.of(concatenate((a, b)))``).  The
pooled measures that are computed on one machine or on a cluster give the same bits this way.

`ExactSum.of` is vectorised: every double is ``±m · 2**(e − 1075)`` with an integer mantissa
``m < 2**53`` read from its bits; the mantissas are split into high and low halves (each
below ``2**27``) and summed per sign and exponent with `numpy.bincount`, in pieces small
enough that every partial sum is an integer a double holds exactly; one Python integer per
sign and exponent present is made.  About 40 ns a value (`math.fsum`: 250).
Infinities and NaN are kept as flags (``inf + -inf`` is NaN, as in IEEE arithmetic).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Values summed by one `numpy.bincount` call (at most 2**26, so that sums of halves below
#: 2**27 stay below 2**53, exact in a double), small enough to stay in the cache.
_CHUNK = 1 << 16
_HALF = 26
_U = np.uint64


def _add_piece(x: np.ndarray, totals: dict[int, int], flags: dict[str, bool]) -> None:
    """Add the exact sums of ``x`` per sign and exponent to ``totals`` (key: the biased
    exponent, plus 2048 for negative numbers; value: the sum of the integer mantissas)."""
    bits = x.view(np.uint64)
    field = (bits >> _U(52)) & _U(0x7FF)  # 0: zero or subnormal; 0x7FF: inf or NaN
    special = field == _U(0x7FF)
    if special.any():
        bad = x[special]
        flags["pos_inf"] |= bool((bad == np.inf).any())
        flags["neg_inf"] |= bool((bad == -np.inf).any())
        flags["nan"] |= bool(np.isnan(bad).any())
        keep = ~special
        bits, field = bits[keep], field[keep]
    # x = ±mantissa · 2**(e − 1075), e = max(field, 1), with the implicit bit of a normal number
    mantissa = (bits & _U((1 << 52) - 1)) | ((field != _U(0)).astype(np.uint64) << _U(52))
    slot = (np.maximum(field, _U(1)) | ((bits >> _U(63)) << _U(11))).astype(np.intp)
    high = np.bincount(slot, weights=(mantissa >> _U(_HALF)).astype(np.float64), minlength=4096)
    low = np.bincount(slot, weights=(mantissa & _U((1 << _HALF) - 1)).astype(np.float64),
                      minlength=4096)  # fmt: skip
    for s in np.flatnonzero((high != 0) | (low != 0)).tolist():
        totals[s] = totals.get(s, 0) + (int(high[s]) << _HALF) + int(low[s])


@dataclass(frozen=True)
class ExactSum:
    """The exact sum ``numerator · 2**exponent`` of some doubles (and how many were
    infinite or NaN)."""

    numerator: int = 0
    exponent: int = 0
    pos_inf: bool = False
    neg_inf: bool = False
    nan: bool = False

    @classmethod
    def of(cls, values: np.ndarray) -> ExactSum:
        """The exact sum of ``values`` (any shape, read as float64)."""
        x = np.ascontiguousarray(values, dtype=np.float64).ravel()
        flags = {"pos_inf": False, "neg_inf": False, "nan": False}
        totals: dict[int, int] = {}
        for start in range(0, len(x), _CHUNK):  # pieces that stay in the cache
            _add_piece(x[start : start + _CHUNK], totals, flags)
        if not totals:
            return cls(**flags)
        low_exp = min(s & 0x7FF for s in totals)
        numerator = 0
        for s, total in totals.items():
            term = total << ((s & 0x7FF) - low_exp)
            numerator += -term if s >> 11 else term
        return cls(numerator, low_exp - 1075, **flags)

    def __add__(self, other: ExactSum) -> ExactSum:
        if not isinstance(other, ExactSum):
            return NotImplemented
        low = min(self.exponent, other.exponent)
        numerator = (self.numerator << (self.exponent - low)) + (
            other.numerator << (other.exponent - low)
        )
        return ExactSum(
            numerator, low, self.pos_inf or other.pos_inf, self.neg_inf or other.neg_inf,
            self.nan or other.nan,
        )  # fmt: skip

    def _special(self) -> float | None:
        if self.nan or (self.pos_inf and self.neg_inf):
            return float("nan")
        if self.pos_inf:
            return float("inf")
        if self.neg_inf:
            return float("-inf")
        return None

    @property
    def value(self) -> float:
        """The sum, rounded once to the nearest double (ties to even)."""
        return self.divided(1)

    def divided(self, n: int) -> float:
        """The sum divided by the positive integer ``n`` (a mean), rounded once."""
        special = self._special()
        if special is not None:
            return special
        n = int(n)  # (a numpy integer would overflow in the shift)
        try:
            if self.exponent >= 0:
                return (self.numerator << self.exponent) / n  # int / int: correctly rounded
            return self.numerator / (n << -self.exponent)
        except OverflowError:  # beyond the largest double, as a float sum would be
            return float("inf") if self.numerator > 0 else float("-inf")

    def to_json(self) -> list:
        """A JSON-ready form (the numerator as a string: it may exceed any JSON number)."""
        return [str(self.numerator), self.exponent, self.pos_inf, self.neg_inf, self.nan]

    @classmethod
    def from_json(cls, data: list) -> ExactSum:
        numerator, exponent, pos_inf, neg_inf, nan = data
        return cls(int(numerator), int(exponent), bool(pos_inf), bool(neg_inf), bool(nan))
