"""Rank-biased overlap (`rankscope.stats.rbo`) against the definitions of Webber, Moffat &
Zobel (TOIS 2010) computed independently here (explicit prefixes summed to a depth where
p^d is negligible), hand computations, the tie treatments of Corsi & Urbano (SIGIR 2024),
and the properties every RBO must have."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.errors import UsageError
from rankscope.stats.rbo import rbo

DEPTH = 3000  # p^3000 < 1e-130 for p ≤ 0.9


def _sum_agreements(s_ext, l_ext, p, depth=DEPTH, fresh=False):
    """(1−p) Σ_{d≥1} p^{d−1} |S'_{:d} ∩ L'_{:d}| / d over explicit sequences; with ``fresh``
    both sequences go on with the same new items after their end (they agree from there)."""
    seen_s, seen_l, overlap, total = set(), set(), 0, 0.0
    for d in range(1, depth + 1):
        a = s_ext[d - 1] if d <= len(s_ext) else (("fresh", d) if fresh else None)
        b = l_ext[d - 1] if d <= len(l_ext) else (("fresh", d) if fresh else None)
        for item, mine, other in ((a, seen_s, seen_l), (b, seen_l, seen_s)):
            if item is not None:
                mine.add(item)
                overlap += item in other
        total += p ** (d - 1) * overlap / d
    return (1 - p) * total


def brute_min(x, y, p):
    """No item beyond the lists matches: the lists simply end."""
    return _sum_agreements(x, y, p)


def brute_max(x, y, p):
    """The best continuation: the shorter list goes on with the longer one's items it lacks
    (in the longer one's order), the longer with the shorter one's items it lacks, then both
    with the same new items."""
    s, l_ = (x, y) if len(x) <= len(y) else (y, x)
    s_ext = list(s) + [i for i in l_ if i not in set(s)]
    l_ext = list(l_) + [i for i in s if i not in set(l_)]
    return _sum_agreements(s_ext, l_ext, p, fresh=True)


def eq32_ext(x, y, p):
    """Webber et al.'s eq. 32, term by term."""
    s_list, l_list = (x, y) if len(x) <= len(y) else (y, x)
    s, l_ = len(s_list), len(l_list)

    def overlap(d):
        return len(set(s_list[:d]) & set(l_list[:d]))

    x_s, x_l = overlap(s), overlap(l_)
    first = sum(overlap(d) / d * p**d for d in range(1, l_ + 1))
    second = sum(x_s * (d - s) / (s * d) * p**d for d in range(s + 1, l_ + 1))
    return (1 - p) / p * (first + second) + ((x_l - x_s) / l_ + x_s / s) * p**l_


def rankings(min_size=1, max_size=9, alphabet=14):
    return st.lists(st.integers(0, alphabet - 1), min_size=min_size, max_size=max_size, unique=True)


# -- hand computations and the paper's special cases -----------------------------------------


def test_identical_lists_hand_computation():
    p = 0.9
    r = rbo(list("abcde"), list("abcde"), p)
    tail = -math.log(1 - p) - sum(p**d / d for d in range(1, 6))
    expected_min = (1 - p) / p * (sum(p**d for d in range(1, 6)) + 5 * tail)
    assert r.min == pytest.approx(expected_min, abs=1e-14)
    assert r.ext == pytest.approx(1.0, abs=1e-14)  # eq. 23 with A_d = 1 everywhere
    assert r.max == pytest.approx(1.0, abs=1e-14)


def test_disjoint_lists():
    """Nothing seen in common: RBO_min = RBO_ext = 0, and the unseen items could at best
    match from depth 3 on: X_3 = 2 (each list's 2 items in the other), X_4 = 4."""
    p = 0.5
    r = rbo(["a", "b"], ["c", "d"], p)
    assert r.min == 0.0 and r.ext == 0.0
    by_hand = (1 - p) * (0 + 0 + p**2 * 2 / 3 + sum(p ** (d - 1) for d in range(4, 200)))
    assert r.max == pytest.approx(by_hand, abs=1e-14)


def test_one_item_against_three():
    """dlukes/rbo issue 4 reports RBO_ext = 1.045 (> 1) for ([1, 2, 3], [1], p = 0.4): the
    only item of the short list is on top of the long one, so the extrapolated agreement is
    1 at every depth (X_d = 1 + (d − 1)·1) and RBO_ext = 1."""
    r = rbo([1, 2, 3], [1], 0.4)
    assert r.ext == pytest.approx(1.0, abs=1e-14)
    assert r.min == pytest.approx(brute_min([1, 2, 3], [1], 0.4), abs=1e-12)


def test_uneven_lengths_example_of_corsi_urbano():
    """The uneven example of Corsi & Urbano's report on dlukes/rbo (issue 5): NHMACFL vs
    CGNA, against eq. 32 and the explicit bounds."""
    x, y = list("NHMACFL"), list("CGNA")
    for p in (0.5, 0.8, 0.9, 0.95):
        r = rbo(x, y, p)
        assert r.min == pytest.approx(brute_min(x, y, p), abs=1e-12)
        assert r.max == pytest.approx(brute_max(x, y, p), abs=1e-12)
        assert r.ext == pytest.approx(eq32_ext(x, y, p), abs=1e-12)


def test_symmetric():
    x, y = list("NHMACFL"), list("CGNA")
    assert rbo(x, y, 0.8) == rbo(y, x, 0.8)


def test_single_swap_near_the_bottom_is_nearly_one():
    """changyaochen/rbo issue 15 reports 0.65 for two lists that differ by one swap at the
    bottom; every depth but the 9th agrees fully: A_9 = 8/9."""
    s, t = [1, 2, 3, 4, 5, 6, 7, 8, 0, 9], [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
    p = 0.9
    expected = 1 - (1 - p) * p**8 * (1 / 9)  # RBO_ext: A_d = 1 except A_9 = 8/9
    assert rbo(s, t, p).ext == pytest.approx(expected, abs=1e-14)


# -- properties ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(rankings(), rankings(), st.sampled_from([0.3, 0.5, 0.8, 0.9]))
def test_against_the_definitions(x, y, p):
    r = rbo(x, y, p)
    assert r.min == pytest.approx(brute_min(x, y, p), abs=1e-12)
    assert r.max == pytest.approx(brute_max(x, y, p), abs=1e-12)
    assert r.ext == pytest.approx(eq32_ext(x, y, p), abs=1e-12)
    assert 0.0 <= r.min <= r.ext <= r.max <= 1.0


# -- ties ----------------------------------------------------------------------------------


def _orders(ranking):
    """Every untied ranking that breaks the ties of ``ranking``."""
    groups = [sorted(g) if isinstance(g, (set, list, tuple)) else [g] for g in ranking]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [item for group in choice for item in group]


def _mean_over_orders(x, y, p, score):
    values = [getattr(rbo(a, b, p), score) for a in _orders(x) for b in _orders(y)]
    return float(np.mean(values))


def tied_rankings(max_groups=5):
    def build(draw_groups):
        return [g[0] if len(g) == 1 else set(g) for g in draw_groups]

    return (
        st.lists(st.lists(st.integers(0, 11), min_size=1, max_size=3), min_size=1,
                 max_size=max_groups)
        .map(lambda gs: [list(dict.fromkeys(g)) for g in gs])
        .filter(lambda gs: len({i for g in gs for i in g}) == sum(len(g) for g in gs))
        .map(build)
    )  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(tied_rankings(), tied_rankings(), st.sampled_from([0.5, 0.9]))
def test_variant_a_is_the_mean_over_the_orders_of_the_ties(x, y, p):
    """RBO^a_min is the mean of RBO_min over every order of the tied items; so are RBO^a_ext
    and RBO^a_max when the lists have the same length."""
    r = rbo(x, y, p, ties="a")
    assert r.min == pytest.approx(_mean_over_orders(x, y, p, "min"), abs=1e-12)
    if sum(len(g) if isinstance(g, set) else 1 for g in x) == sum(
        len(g) if isinstance(g, set) else 1 for g in y
    ):
        assert r.ext == pytest.approx(_mean_over_orders(x, y, p, "ext"), abs=1e-12)
        assert r.max == pytest.approx(_mean_over_orders(x, y, p, "max"), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(tied_rankings(6), tied_rankings(4), st.sampled_from([0.5, 0.8, 0.95]),
       st.sampled_from(["a", "b", "w"]))  # fmt: skip
def test_tie_variants_are_bounded(x, y, p, ties):
    r = rbo(x, y, p, ties=ties)
    assert 0.0 <= r.min <= r.ext <= r.max <= 1.0


def test_variants_agree_without_ties():
    x, y = list("NHMACFL"), list("CGNA")
    results = {t: rbo(x, y, 0.9, ties=t) for t in ("a", "b", "w")}
    assert results["a"] == results["b"] == results["w"]


def test_identical_tied_rankings():
    """Identical rankings with ties: w and b see complete agreement at every depth
    (RBO_ext = 1); a averages over the orders of the ties, which disagree inside a group."""
    x = ["a", {"b", "c"}, "d"]
    assert rbo(x, x, 0.9, ties="w").ext == pytest.approx(1.0, abs=1e-14)
    assert rbo(x, x, 0.9, ties="b").ext == pytest.approx(1.0, abs=1e-14)
    # a, by hand: at depth 2 each of b, c is in each prefix with probability 1/2, so
    # X_2 = 1 + 2·(1/2·1/2) = 1.5; every other depth agrees fully.
    p = 0.9
    expected = 1 - (1 - p) * p * (1 - 1.5 / 2)
    assert rbo(x, x, p, ties="a").ext == pytest.approx(expected, abs=1e-14)


def test_w_variant_by_hand():
    """w: tied items enter the prefix together.  [{a, b}, c] vs [a, b, c], p = 0.5:
    depth 1 sees {a, b} and {a}: A_1 = 2·1/(2 + 1) = 2/3; every later depth agrees."""
    p = 0.5
    r = rbo([{"a", "b"}, "c"], ["a", "b", "c"], p, ties="w")
    assert r.ext == pytest.approx(1 - (1 - p) * (1 - 2 / 3), abs=1e-14)


# -- bad requests -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "kwargs", "message"),
    [
        ([], ["a"], {}, "empty"),
        (["a", "a"], ["a"], {}, "twice"),
        (["a", {"b", "a"}], ["a"], {}, "twice"),
        (["a", set()], ["a"], {}, "empty group"),
        (["a"], ["a"], {"p": 1.0}, "between 0 and 1"),
        (["a"], ["a"], {"p": 0.0}, "between 0 and 1"),
        (["a"], ["a"], {"p": float("nan")}, "between 0 and 1"),
        (["a"], ["a"], {"ties": "c"}, "tie treatment"),
        ("abc", ["a"], {}, "sequence"),
    ],
)
def test_bad_requests(x, y, kwargs, message):
    with pytest.raises(UsageError, match=message):
        rbo(x, y, **kwargs)
