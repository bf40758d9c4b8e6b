"""The compiled preference Tukey kernel (``stats/_tukey.c``) against numpy, bit for bit.

`rankscope.stats.multiple.preference_tukey_pvalues` adds, for every permutation, the
relabelled preferences of each pair of systems over the queries; the compiled kernel and the
numpy code it replaces must add the same numbers in the same order (the same bits), whatever
its cache tiles and threads.  ``RANKSCOPE_PURE_PYTHON=1`` selects the numpy code.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankscope.stats import multiple
from rankscope.stats.multiple import _compiled_tukey, _preference_maxima, preference_tukey_pvalues

kernel = _compiled_tukey()
pytestmark = pytest.mark.skipif(kernel is None, reason="compiled Tukey kernel not built")


def _stack(methods, queries, systems, antisymmetric, seed, coarse):
    rng = np.random.default_rng(seed)
    shape = (methods, queries, systems, systems)
    if coarse:  # exact ties among the sums
        stack = rng.choice([-1.0, -0.5, 0.0, 1 / 3, 0.5, 1.0], size=shape)
    else:  # sums whose rounding depends on the order of the additions
        stack = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 8, size=shape)
    if antisymmetric:
        stack = stack - stack.transpose(0, 1, 3, 2)
    return stack


def _both(stack, permutations, seed, antisymmetric, monkeypatch):
    compiled = _preference_maxima(stack, permutations, seed, 256, antisymmetric)
    monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", "1")
    assert multiple._compiled_tukey() is None
    plain = _preference_maxima(stack, permutations, seed, 256, antisymmetric)
    monkeypatch.delenv("RANKSCOPE_PURE_PYTHON")
    return compiled, plain


@pytest.mark.parametrize(
    ("methods", "queries", "systems", "antisymmetric", "coarse"),
    [
        (1, 1, 2, True, False),
        (3, 7, 4, True, True),
        (3, 40, 9, True, False),
        (2, 13, 5, False, False),
        (1, 5, 1, False, True),
        (4, 9, 6, False, True),
        (3, 250, 12, True, False),
    ],
)
@pytest.mark.parametrize("seed", [0, 5])
def test_compiled_maxima_are_numpys_bit_for_bit(
    methods, queries, systems, antisymmetric, coarse, seed, monkeypatch
):
    stack = _stack(methods, queries, systems, antisymmetric, seed + queries, coarse)
    compiled, plain = _both(stack, 301, seed, antisymmetric, monkeypatch)
    assert compiled.shape == (methods, 301)
    assert compiled.tobytes() == plain.tobytes()


def test_a_nan_preference_makes_every_maximum_nan_as_numpys(monkeypatch):
    stack = _stack(2, 6, 4, False, 3, False)
    stack[1, 2, 0, 3] = np.nan
    compiled, plain = _both(stack, 50, 1, False, monkeypatch)
    assert np.isnan(compiled[1]).all() and not np.isnan(compiled[0]).any()
    assert compiled.tobytes() == plain.tobytes()


def test_pvalues_are_the_same_with_and_without_the_kernel(monkeypatch):
    stack = _stack(3, 30, 7, True, 11, True)
    compiled = preference_tukey_pvalues(stack, permutations=400, seed=2)
    monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", "1")
    assert np.array_equal(compiled, preference_tukey_pvalues(stack, permutations=400, seed=2))


def _maxima_by_hand(cells, sigma, antisymmetric):
    """Each permutation's relabelled sums in plain Python, query after query from 0.0."""
    b, q, n = sigma.shape
    m = cells.shape[2]
    out = np.empty((b, m))
    for i in range(b):
        for k in range(m):
            best = -np.inf
            for a, c in itertools.product(range(n), repeat=2):
                if antisymmetric and c <= a:
                    continue
                total = 0.0
                for t in range(q):
                    total += float(cells[t, sigma[i, t, a] * n + sigma[i, t, c], k])
                best = max(best, abs(total) if antisymmetric else total)
            out[i, k] = best
    return out


@pytest.mark.parametrize(("tile", "block", "workers"), [(0, 0, 1), (1, 1, 2), (2, 3, 2), (5, 1, 3)])
@pytest.mark.parametrize("antisymmetric", [True, False])
def test_kernel_adds_in_query_order_whatever_its_tiles_and_threads(
    tile, block, workers, antisymmetric
):
    stack = _stack(3, 11, 5, antisymmetric, 8, False)
    q, n = 11, 5
    cells = np.ascontiguousarray(np.moveaxis(stack, 0, -1)).reshape(q, n * n, 3)
    rng = np.random.default_rng(4)
    sigma = np.argsort(rng.random((7, q, n)), axis=2)
    out = np.empty((7, 3))
    kernel.maxima(cells, sigma, antisymmetric, out, workers=workers, tile=tile, block=block)
    assert out.tobytes() == _maxima_by_hand(cells, sigma, antisymmetric).tobytes()


def test_kernel_refuses_wrong_shapes_and_labels():
    cells = np.zeros((2, 9, 1))
    out = np.empty((4, 1))
    sigma = np.zeros((4, 2, 3), dtype=np.int64)
    sigma[1, 1, 2] = 3  # a system 3 of 3
    with pytest.raises(ValueError, match="outside"):
        kernel.maxima(cells, sigma, True, out)
    with pytest.raises(ValueError, match="shapes"):
        kernel.maxima(cells, np.zeros((4, 3, 3), dtype=np.int64), True, out)
    with pytest.raises(ValueError, match="int64"):
        kernel.maxima(cells, sigma.astype(np.int32), True, out)
    with pytest.raises(ValueError, match="float64"):
        kernel.maxima(cells, sigma, True, np.zeros((4, 1), dtype=np.float32))


def test_order_is_numpys_argsort_and_leaves_ties_to_numpy():
    rng = np.random.default_rng(12)
    for shape in [(3, 4, 1), (5, 7, 2), (9, 20, 100), (2, 3, 700), (0, 4, 3), (4, 5, 0)]:
        draws = rng.random(shape)
        sigma = np.empty(shape, dtype=np.int64)
        assert kernel.order(draws, sigma, workers=2) is True
        assert np.array_equal(sigma, np.argsort(draws, axis=2))
    draws = rng.random((4, 5, 6))
    sigma = np.empty(draws.shape, dtype=np.int64)
    for value in ("tie", 1.0, -0.25, np.nan):
        bad = draws.copy()
        bad[2, 3, 4] = bad[2, 3, 1] if value == "tie" else value
        assert kernel.order(bad, sigma) is False, value


def test_a_tie_among_the_draws_orders_that_chunk_as_numpy(monkeypatch):
    """Draws that tie (forced here: the generator's doubles rarely do) are ordered by
    numpy's argsort, whose order of equal keys the kernel does not reproduce."""
    stack = _stack(2, 9, 5, True, 4, False)
    real = np.random.default_rng

    class Coarse:  # draws on a grid of 4 values: ties in almost every query
        def __init__(self, seed):
            self.rng = real(seed)

        def random(self, shape=None, out=None):
            coarse = np.floor(self.rng.random(shape, out=out) * 4) / 4
            if out is None:
                return coarse
            out[...] = coarse
            return out

    monkeypatch.setattr(multiple.np.random, "default_rng", Coarse)
    compiled, plain = _both(stack, 120, 6, True, monkeypatch)
    assert compiled.tobytes() == plain.tobytes()
