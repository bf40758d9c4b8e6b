"""`rankscope.stats.exact.ExactSum` against exact rational arithmetic (`fractions.Fraction`):
the sum of any doubles rounded once, whatever the order and the pieces."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from rankscope.stats.exact import ExactSum


def exact(values) -> Fraction:
    return sum((Fraction(float(v)) for v in values), Fraction(0))


@pytest.mark.parametrize("seed", range(40))
def test_the_correctly_rounded_sum_and_mean_in_any_pieces(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    kind = seed % 4
    if kind == 0:
        x = rng.normal(size=n)
    elif kind == 1:  # magnitudes from 1e-300 to 1e300: huge cancellations
        x = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n)
    elif kind == 2:  # subnormal numbers, both signs
        x = np.concatenate([rng.normal(size=n), -rng.normal(size=n)]) * 1e-310
    else:  # thirds: every float sum of them rounds
        x = rng.integers(-5, 5, size=n) / 3
    total = ExactSum.of(x)
    assert total.value == float(exact(x)) == math.fsum(x)
    assert total.divided(len(x)) == float(exact(x) / len(x))
    assert total.divided(np.int64(len(x))) == float(exact(x) / len(x))  # numpy's integers
    cut = int(rng.integers(0, len(x) + 1))
    pieces = ExactSum.of(x[:cut]) + ExactSum.of(x[cut:])
    assert pieces.value == total.value == ExactSum.of(rng.permutation(x)).value
    assert ExactSum.from_json(total.to_json()) == total


def test_a_float_sum_depends_on_the_order_and_this_one_does_not():
    x = np.array([1e16, 1.0, -1e16, 1.0])
    assert np.cumsum(x)[-1] != np.cumsum(x[[0, 2, 1, 3]])[-1]  # 0.0 or 2.0
    assert ExactSum.of(x).value == ExactSum.of(x[[0, 2, 1, 3]]).value == 2.0


def test_long_arrays_are_summed_in_pieces_exactly():
    x = np.full(200_000, 0.1)  # more than one piece of 2**16
    assert ExactSum.of(x).value == float(Fraction(0.1) * 200_000)


def test_infinities_nan_empty_and_overflow():
    assert ExactSum.of([]).value == 0.0
    assert ExactSum.of([0.0, -0.0]).value == 0.0
    assert ExactSum.of([np.inf, 1.0]).value == np.inf
    assert ExactSum.of([-np.inf, 1.0]).value == -np.inf
    assert math.isnan(ExactSum.of([np.inf, -np.inf]).value)
    assert math.isnan((ExactSum.of([np.inf]) + ExactSum.of([-np.inf])).value)
    assert math.isnan(ExactSum.of([np.nan, 1.0]).divided(2))
    assert ExactSum.of([1e308, 1e308]).value == np.inf  # beyond the largest double
    assert ExactSum.of([-1e308, -1e308]).value == -np.inf
    assert ExactSum.of([1e308, 1e308, -1e308]).value == 1e308  # exact: no overflow midway
