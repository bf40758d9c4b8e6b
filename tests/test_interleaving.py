"""Interleaving preferences (rankscope.interleaving.offline and .methods).

Expected values are worked out by hand in the comments.  Notation: Z = Σ_{k=1..3}
1/log2(k+1) = 1 + 1/log2(3) + 1/2 is the normaliser of the DCG browsing model over three
positions, so p_dcg = (1/Z, (1/log2 3)/Z, (1/2)/Z); the uniform model over three positions
is (1/3, 1/3, 1/3).  s_k is the outcome sgn(ν_k(a) − ν_k(b)) of a user who browses to depth
k and clicks the relevant documents there.
"""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankscope.interleaving import (
    balanced,
    browsing_distribution,
    dcg,
    expected_outcome,
    interleaving_matrix,
    methods,
    offline,
    offline_interleaving_preference,
    preference_from_clicks,
    sign_test,
    team_draft,
    uniform,
)

Z = 1 + 1 / math.log2(3) + 1 / 2  # DCG normaliser over 3 positions
W2, W3 = 1 / math.log2(3), 1 / 2  # unnormalised DCG weights of positions 2 and 3

A = ["d1", "d2", "d3"]
B_SWAP = ["d2", "d1", "d3"]  # the first two swapped
B_ROT = ["d2", "d3", "d1"]  # a rotated left


def oip(a, b, relevance, **options):
    return offline_interleaving_preference(a, b, relevance, **options)


# --------------------------------------------------------------------------------------
# Browsing models


def test_browsing_models_by_hand():
    assert uniform(4).tolist() == [0.25] * 4
    # dcg(3) = (1, 1/log2 3, 1/2) / Z
    np.testing.assert_allclose(dcg(3), [1 / Z, W2 / Z, W3 / Z], rtol=1e-15)
    assert dcg(1).tolist() == [1.0]
    # explicit weights are normalised; a callable receives the depth
    assert browsing_distribution([2, 2, 0], 99).tolist() == [0.5, 0.5, 0.0]
    assert browsing_distribution(lambda d: [1] * d, 5).tolist() == [0.2] * 5


@pytest.mark.parametrize(
    ("browsing", "message"),
    [
        ("geometric", "unknown browsing model"),
        ([0.5, -0.1], "non-negative"),
        ([0, 0], "sum to zero"),
        ([], "non-empty"),
        ([[0.5, 0.5]], "1-D"),
        ([1.0, float("nan")], "finite"),
        (["x"], "numbers"),
    ],
)
def test_browsing_errors(browsing, message):
    with pytest.raises(ValueError, match=message):
        browsing_distribution(browsing, 3)


@pytest.mark.parametrize("depth", [0, -1, 2.5, True])
def test_browsing_depth_errors(depth):
    with pytest.raises(ValueError, match="depth"):
        uniform(depth)
    with pytest.raises(ValueError, match="depth"):
        oip(A, B_SWAP, {"d1": 1}, depth=depth)


# --------------------------------------------------------------------------------------
# The interleavings themselves


def test_team_draft_lists_by_hand():
    # Round 1, a first: a picks d1, b picks its first document not shown, d2.
    # Round 2: both want d3; the second coin decides who gets it; then both are empty.
    t = team_draft(A, B_SWAP, [True, True])
    assert t.docs == ("d1", "d2", "d3") and t.team.tolist() == [1, -1, 1]
    t = team_draft(A, B_SWAP, [True, False])
    assert t.docs == ("d1", "d2", "d3") and t.team.tolist() == [1, -1, -1]
    # Round 1, b first: b picks d2, a picks d1.
    t = team_draft(A, B_SWAP, [False, True])
    assert t.docs == ("d2", "d1", "d3") and t.team.tolist() == [-1, 1, 1]
    assert t.rank_a.tolist() == [2, 1, 3] and t.rank_b.tolist() == [1, 2, 3]
    # Different lengths: a = [x], b = [y, z].  Round 1 uses the only coin; then a is
    # exhausted and b continues alone with z.  truncate=True is the published loop, which
    # needs both rankings to have a document left before every pick: after a takes x it
    # stops, and b never picks; if b wins the coin, b takes y, a takes x, and it stops.
    t = team_draft(["x"], ["y", "z"], [True])
    assert t.docs == ("x", "y", "z") and t.team.tolist() == [1, -1, -1]
    t = team_draft(["x"], ["y", "z"], [True], truncate=True)
    assert t.docs == ("x",) and t.team.tolist() == [1]
    t = team_draft(["x"], ["y", "z"], [False], truncate=True)
    assert t.docs == ("y", "x") and t.team.tolist() == [-1, 1]
    t = team_draft([], ["y"], [])
    assert t.docs == ("y",) and t.team.tolist() == [-1]
    assert team_draft([], ["y"], [], truncate=True).docs == ()


def test_team_draft_with_seed_is_deterministic():
    a, b = list(range(20)), list(range(19, -1, -1))
    first = team_draft(a, b, 5)
    assert first.docs == team_draft(a, b, 5).docs
    assert first.docs == team_draft(a, b, np.random.default_rng(5)).docs
    assert sorted(first.docs) == a  # every document exactly once
    assert abs(int(first.team.sum())) <= 1  # teams differ in size by at most one


def test_balanced_lists_by_hand():
    # a first: a1=d1 | b1=d2 | a2=d2 skip | b2=d1 skip | a3=d3 | b3=d3 skip
    assert balanced(A, B_SWAP, "a").docs == ("d1", "d2", "d3")
    # b first: b1=d2 | a1=d1 | b2=d1 skip | a2=d2 skip | b3=d3 | a3 skip
    assert balanced(A, B_SWAP, "b").docs == ("d2", "d1", "d3")
    # a = [d1,d2,d3], b = [d2,d3,d1], a first: d1 | d2 | (a2=d2 skip) | d3 | rest skipped
    t = balanced(A, B_ROT, "a")
    assert t.docs == ("d1", "d2", "d3") and t.team.tolist() == [1, -1, -1]
    # a = [x], b = [y, z]: a first: x | y | a exhausted -> b continues with z.
    # Truncated (the published loop, while k_a <= |a| and k_b <= |b|): x, then a is
    # exhausted and the loop ends; b first: y | x | end.
    assert balanced(["x"], ["y", "z"], "a").docs == ("x", "y", "z")
    assert balanced(["x"], ["y", "z"], "a", truncate=True).docs == ("x",)
    assert balanced(["x"], ["y", "z"], "b", truncate=True).docs == ("y", "x")
    with pytest.raises(ValueError, match="first"):
        balanced(A, B_SWAP, "c")


def test_credit_rules_by_hand():
    # Balanced, a = [d1,d2,d3], b = [d2,d3,d1], list (d1, d2, d3).
    t = balanced(A, B_ROT, "a")
    # click on d2 only: j = min(rank_a 2, rank_b 1) = 1; a_1 = d1 (no click), b_1 = d2 -> (0, 1)
    assert t.credit([1]) == (0, 1) and t.outcome([1]) == -1
    # clicks on d1 and d3: lowest d3, j = min(3, 2) = 2; a_1..2 = {d1, d2} holds d1,
    # b_1..2 = {d2, d3} holds d3 -> (1, 1), a tie
    assert t.credit([0, 2]) == (1, 1) and t.outcome([0, 2]) == 0
    assert t.credit(np.array([True, False, True])) == (1, 1)
    # clicks on all three: lowest d3, j = 2: a gets d1, d2; b gets d2, d3 -> (2, 2)
    assert t.credit([0, 1, 2]) == (2, 2)
    assert t.credit([]) == (0, 0)
    # Team draft: a click counts for the team that picked the document.
    t = team_draft(A, B_SWAP, [True, False])  # d1 (a), d2 (b), d3 (b)
    assert t.credit([0, 1, 2]) == (1, 2) and t.outcome([0, 2]) == 0
    with pytest.raises(ValueError, match="positions"):
        t.credit([3])
    with pytest.raises(ValueError, match="mask"):
        t.credit(np.array([True, False]))


def test_expected_outcome_on_one_list_by_hand():
    # (d2 by b, d1 by a, d3 by a), d1 relevant: s = (0, +1, +1).
    t = team_draft(A, B_SWAP, [False, True])
    assert expected_outcome(t, {"d1": 1}) == pytest.approx(2 / 3)  # (0 + 1 + 1) / 3
    assert expected_outcome(t, {"d1": 1}, browsing="dcg") == pytest.approx((W2 + W3) / Z)
    # A user who always reads only position 1 sees no relevant document.
    assert expected_outcome(t, {"d1": 1}, browsing=[1]) == 0.0
    # A user who would read to depth 10 sees the whole list: s_3 = +1.
    assert expected_outcome(t, {"d1": 1}, browsing=[0] * 9 + [1]) == 1.0


# --------------------------------------------------------------------------------------
# Offline interleaving preference: hand examples


@pytest.mark.parametrize("method", ["team-draft", "balanced"])
def test_swapped_top_two_relevant_first(method):
    # a = [d1,d2,d3], b = [d2,d1,d3], d1 relevant.  Both methods give two lists with
    # probability 1/2 each (team draft: the first coin decides, the second only who gets
    # the non-relevant d3):
    #   a first: (d1, d2, d3), s = (+1, +1, +1)   [balanced: j = min(1, 2) = 1, h = (1, 0)]
    #   b first: (d2, d1, d3), s = ( 0, +1, +1)
    # uniform: 1/2 (1 + 2/3) = 5/6
    # dcg:     1/2 (1 + (W2 + W3)/Z) = 1 − 1/(2Z)
    assert oip(A, B_SWAP, {"d1": 1}, method=method) == pytest.approx(5 / 6, abs=1e-15)
    expected = 1 - 1 / (2 * Z)
    assert oip(A, B_SWAP, {"d1": 1}, method=method, browsing="dcg") == pytest.approx(
        expected, abs=1e-15
    )
    # antisymmetry and the mirror case (d2 relevant)
    assert oip(B_SWAP, A, {"d1": 1}, method=method) == pytest.approx(-5 / 6, abs=1e-15)
    assert oip(A, B_SWAP, {"d2": 1}, method=method) == pytest.approx(-5 / 6, abs=1e-15)


def test_rotation_team_draft_and_balanced_differ():
    # a = [d1,d2,d3], b = [d2,d3,d1], d3 relevant.
    # Team draft: round 1 shows d1 and d2 (either order); round 2, both rankings want d3
    # and the coin gives it to a or to b: s_3 = +1 or −1 with probability 1/2 -> I = 0.
    for browsing in ("uniform", "dcg"):
        assert oip(A, B_ROT, {"d3": 1}, browsing=browsing) == pytest.approx(0, abs=1e-15)
    # Balanced: both lists put d3 third: (d1, d2, d3) and (d2, d1, d3).  At k = 3 the only
    # click is d3, j = min(rank_a 3, rank_b 2) = 2, a_1..2 = {d1, d2} has no click,
    # b_1..2 = {d2, d3} has it: s = (0, 0, −1) in both lists.
    # uniform: −1/3; dcg: −(1/2)/Z
    assert oip(A, B_ROT, {"d3": 1}, method="balanced") == pytest.approx(-1 / 3, abs=1e-15)
    assert oip(A, B_ROT, {"d3": 1}, method="balanced", browsing="dcg") == pytest.approx(
        -W3 / Z, abs=1e-15
    )


def test_graded_relevance_and_level():
    grades = {"d1": 1, "d2": 2}
    # level 2: only d2 relevant -> the mirror of the first example, −5/6
    for method in ("team-draft", "balanced"):
        assert oip(A, B_SWAP, grades, level=2, method=method) == pytest.approx(-5 / 6)
    # level 1: d1 and d2 relevant.
    #   team draft, a first: d1 (a), d2 (b), d3: s = (+1, 0, 0) -> 1/3
    #               b first: d2 (b), d1 (a), d3: s = (−1, 0, 0) -> −1/3;  I = 0
    #   balanced, a first (d1, d2, d3): k=1 click d1, j=1, h=(1,0) -> +1; k>=2 lowest
    #   click d2, j = min(2, 1) = 1, h_a = |{d1}| = 1, h_b = |{d2}| = 1 -> 0;
    #   b first (d2, d1, d3): −1, 0, 0.  I = 0.
    for method in ("team-draft", "balanced"):
        assert oip(A, B_SWAP, grades, method=method) == pytest.approx(0, abs=1e-15)
    # level 3: nothing relevant -> 0
    assert oip(A, B_SWAP, grades, level=3) == 0.0


@pytest.mark.parametrize("method", ["team-draft", "balanced"])
def test_rankings_of_different_lengths(method):
    # a = [x], b = [y, z], z relevant; D = |a ∪ b| = 3.
    # Continuing: every list ends with z credited to b (team draft: b picks alone;
    # balanced: j = min(inf, 2) = 2, h = (0, 1)): s = (0, 0, −1).
    # uniform −1/3, dcg −(1/2)/Z.  Truncated: z is never shown -> 0.
    assert oip(["x"], ["y", "z"], {"z": 1}, method=method) == pytest.approx(-1 / 3)
    assert oip(["x"], ["y", "z"], {"z": 1}, method=method, browsing="dcg") == pytest.approx(-W3 / Z)
    assert oip(["x"], ["y", "z"], {"z": 1}, method=method, truncate=True) == 0.0


@pytest.mark.parametrize("method", ["team-draft", "balanced"])
def test_empty_rankings(method):
    # a = [], b = [y] with y relevant: b alone shows y at position 1: s = (−1) -> −1.
    assert oip([], ["y"], {"y": 1}, method=method) == -1.0
    assert oip(["y"], [], {"y": 1}, method=method) == 1.0
    assert oip([], ["y"], {"y": 1}, method=method, truncate=True) == 0.0
    assert oip([], [], {"y": 1}, method=method) == 0.0


def test_explicit_browsing_weights():
    # a = [d1,d2,d3], b = [d2,d1,d3], d1 relevant; lists s = (+1,+1,+1) and (0,+1,+1).
    # always depth 1: 1/2 (1 + 0) = 1/2
    assert oip(A, B_SWAP, {"d1": 1}, browsing=[1]) == 0.5
    # always depth 2: 1/2 (1 + 1) = 1
    assert oip(A, B_SWAP, {"d1": 1}, browsing=[0, 1]) == 1.0
    # weights (2, 2, 0) -> (1/2, 1/2, 0): 1/2 (1 + 1/2) = 3/4
    assert oip(A, B_SWAP, {"d1": 1}, browsing=[2, 2, 0]) == 0.75
    # depth 5 only, beyond the list: the user sees all three -> 1/2 (1 + 1) = 1
    assert oip(A, B_SWAP, {"d1": 1}, browsing=[0, 0, 0, 0, 1]) == 1.0
    # depth=2 for the uniform model: p = (1/2, 1/2) -> 3/4
    assert oip(A, B_SWAP, {"d1": 1}, depth=2) == 0.75


def test_relevance_forms_agree():
    # the first example with integer ids: a = [0,1,2], b = [1,0,2], document 0 relevant
    a, b = np.array([0, 1, 2]), np.array([1, 0, 2])
    forms = [
        {0: 1},
        {0},
        np.array([1, 0, 0]),
        [1],  # documents 1 and 2 lie beyond the array: unjudged
        {np.int64(0): 2, 1: -1},
    ]
    pd = pytest.importorskip("pandas")
    forms.append(pd.Series({0: 1, 1: 0, 2: 0}))
    for relevance in forms:
        assert oip(a, b, relevance) == pytest.approx(5 / 6), relevance


# --------------------------------------------------------------------------------------
# Exact computation: against brute-force enumeration, Monte Carlo, determinism


def brute_force_team_draft(a, b, relevance, **options):
    """Average of expected_outcome over every coin-flip sequence (2^min(|a|,|b|))."""
    rounds = min(len(a), len(b))
    total = 0.0
    for flips in itertools.product([True, False], repeat=rounds):
        t = team_draft(a, b, list(flips), truncate=options.get("truncate", False))
        total += expected_outcome(
            t,
            relevance,
            browsing=options.get("browsing", "uniform"),
            depth=len(set(a) | set(b)),
        )
    return total / 2**rounds


def test_exact_matches_enumeration_on_many_rounds():
    rng = np.random.default_rng(11)
    docs = list(range(14))
    a = rng.permutation(docs)[:11].tolist()
    b = rng.permutation(docs)[:10].tolist()
    relevance = {d: 1 for d in rng.choice(docs, 5, replace=False).tolist()}
    for browsing in ("uniform", "dcg"):
        for truncate in (False, True):
            expected = brute_force_team_draft(a, b, relevance, browsing=browsing, truncate=truncate)
            got = oip(a, b, relevance, browsing=browsing, truncate=truncate, exact=True)
            assert got == pytest.approx(expected, abs=1e-12)


def test_monte_carlo_agrees_with_exact():
    # 40 documents, 20 coin rounds (2^20 flip sequences), 8 relevant documents.
    rng = np.random.default_rng(2022)
    a, b = rng.permutation(40), rng.permutation(40)
    relevance = set(rng.choice(40, 8, replace=False).tolist())
    samples = 2000
    for browsing in ("uniform", "dcg"):
        exact = oip(a, b, relevance, browsing=browsing, exact=True)
        estimate = oip(a, b, relevance, browsing=browsing, exact=False, samples=samples, seed=3)
        # outcomes lie in [−1, 1]: the standard error is at most 1/sqrt(samples)
        assert abs(estimate - exact) < 4 / math.sqrt(samples)


def test_monte_carlo_is_deterministic_for_a_seed():
    rng = np.random.default_rng(5)
    a, b = rng.permutation(30), rng.permutation(30)
    relevance = set(range(0, 30, 4))
    run = [oip(a, b, relevance, exact=False, samples=200, seed=9) for _ in range(2)]
    assert run[0] == run[1]
    assert run[0] == oip(a, b, relevance, exact=False, samples=200, seed=np.random.default_rng(9))
    others = {oip(a, b, relevance, exact=False, samples=200, seed=s) for s in range(10, 15)}
    assert len(others | {run[0]}) > 1  # the seed matters
    # antithetic pairs: the estimate is antisymmetric for a fixed seed too
    assert oip(b, a, relevance, exact=False, samples=200, seed=9) == pytest.approx(-run[0])
    # identical rankings: every sample is paired with its mirror image -> 0
    assert oip(a, a, relevance, exact=False, samples=200, seed=9) == 0.0


def test_falls_back_to_monte_carlo_beyond_max_states():
    rng = np.random.default_rng(8)
    a, b = rng.permutation(30), rng.permutation(30)
    relevance = set(range(0, 30, 3))
    fallback = oip(a, b, relevance, max_states=1, samples=300, seed=4)
    assert fallback == oip(a, b, relevance, exact=False, samples=300, seed=4)
    # exact=True ignores the bound
    assert oip(a, b, relevance, exact=True, max_states=1) == oip(a, b, relevance)


def test_long_rankings_are_exact_and_fast():
    rng = np.random.default_rng(0)
    a, b = rng.permutation(1000), rng.permutation(1000)
    relevance = set(rng.choice(1000, 100, replace=False).tolist())
    value = oip(a, b, relevance)  # exact within the default bound
    assert value == oip(a, b, relevance, exact=True)
    assert -1 <= value <= 1


# --------------------------------------------------------------------------------------
# Properties

DOC = st.integers(0, 7)
RANKING = st.lists(DOC, unique=True, max_size=6)
RELEVANT = st.sets(DOC, max_size=8)
OPTIONS = st.fixed_dictionaries(
    {"browsing": st.sampled_from(["uniform", "dcg"]), "truncate": st.booleans()}
)


@settings(max_examples=80, deadline=None)
@given(RANKING, RANKING, RELEVANT, OPTIONS, st.sampled_from(["team-draft", "balanced"]))
def test_antisymmetry_and_range(a, b, relevant, options, method):
    forward = oip(a, b, relevant, method=method, **options)
    backward = oip(b, a, relevant, method=method, **options)
    assert -1 <= forward <= 1
    assert forward == pytest.approx(-backward, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(RANKING, RELEVANT, OPTIONS, st.sampled_from(["team-draft", "balanced"]))
def test_identical_rankings_give_zero(a, relevant, options, method):
    assert oip(a, list(a), relevant, method=method, **options) == 0.0


@settings(max_examples=60, deadline=None)
@given(RANKING, RANKING, RELEVANT, OPTIONS)
def test_exact_team_draft_equals_enumeration(a, b, relevant, options):
    if not set(a) | set(b):
        return
    expected = brute_force_team_draft(a, b, relevant, **options)
    assert oip(a, b, relevant, exact=True, **options) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(RANKING, RANKING, RELEVANT, OPTIONS)
def test_balanced_equals_average_of_its_two_lists(a, b, relevant, options):
    if not set(a) | set(b):
        return
    depth = len(set(a) | set(b))
    lists = [balanced(a, b, first, truncate=options["truncate"]) for first in "ab"]
    expected = sum(
        0.5 * expected_outcome(t, relevant, browsing=options["browsing"], depth=depth)
        for t in lists
    )
    got = oip(a, b, relevant, method="balanced", **options)
    assert got == pytest.approx(expected, abs=1e-12)


def test_interleaving_matrix():
    rankings = [A, B_SWAP, B_ROT, A]
    matrix = interleaving_matrix(rankings, {"d1": 1, "d3": 1}, method="balanced")
    assert matrix.shape == (4, 4)
    np.testing.assert_array_equal(matrix, -matrix.T)
    assert matrix[0, 3] == 0.0  # identical rankings
    for i, j in itertools.combinations(range(4), 2):
        assert matrix[i, j] == oip(rankings[i], rankings[j], {"d1": 1, "d3": 1}, method="balanced")
    assert interleaving_matrix([], {"d1": 1}).shape == (0, 0)


# --------------------------------------------------------------------------------------
# Real click logs


def test_click_log_by_hand():
    log = [["a", "b", "a"], ["b"], [], ["a"], ["a", "b"], ["a", "a"]]
    # outcomes: +1, −1, 0, +1, 0, +1 -> 3 wins, 2 ties, 1 loss; preference (3 − 1)/6
    # sign test on 4 decisive impressions: p = 2 P(X <= 1) = 2 (C(4,0) + C(4,1)) / 16 = 10/16
    result = preference_from_clicks(log)
    assert (result.wins, result.ties, result.losses, len(result)) == (3, 2, 1, 6)
    assert result.preference == pytest.approx(1 / 3)
    assert result.p_value == pytest.approx(10 / 16, rel=1e-12)
    assert result.outcome.tolist() == [1, -1, 0, 1, 0, 1]
    # 'both' counts for both sides; None for neither
    both = preference_from_clicks([["both", "a"], ["both"], [None, "b"]])
    assert both.outcome.tolist() == [1, 0, -1]


def test_click_log_dataframes():
    """A log of shown results (the one reader's columns): each click credited to its team."""
    rows = {
        "impression": [1, 1, 1, 2, 3, 4, 5, 5, 6, 6],
        "position": [1, 2, 3, 1, 1, 1, 1, 2, 1, 2],
        "doc": ["x", "y", "z", "x", "x", "x", "x", "y", "x", "y"],
        "clicked": [1, 1, 1, 1, 0, 1, 1, 1, 1, 1],
        "side": ["a", "b", "a", "b", None, "a", "a", "b", "a", "a"],
    }
    # the same six impressions as in test_click_log_by_hand (impression 3: no credited click)
    pd = pytest.importorskip("pandas")
    result = preference_from_clicks(pd.DataFrame(rows))
    assert (result.wins, result.ties, result.losses) == (3, 2, 1)
    assert result.p_value == pytest.approx(10 / 16, rel=1e-12)
    # pandas missing values (None, NaN, pd.NA) are "no credited click"
    frame = pd.DataFrame(rows).astype({"side": "string"})
    assert frame["side"].isna().sum() == 1
    assert preference_from_clicks(frame).outcome.tolist() == [1, -1, 0, 1, 0, 1]
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(rows).rename({"impression": "imp", "side": "credit"})
    result = preference_from_clicks(frame, columns={"session": "imp", "team": "credit"})
    assert (result.wins, result.ties, result.losses) == (3, 2, 1)
    with pytest.raises(ValueError, match="no team column"):
        preference_from_clicks(pd.DataFrame(rows).drop(columns="side"))


def test_sign_test_against_hand_formula_and_scipy():
    # 15 wins, 3 losses: p = 2 (C(18,0) + C(18,1) + C(18,2) + C(18,3)) / 2^18
    #                      = 2 (1 + 18 + 153 + 816) / 262144 = 1976 / 262144
    assert sign_test(15, 3) == pytest.approx(1976 / 262144, rel=1e-12)
    assert sign_test(3, 15) == sign_test(15, 3)
    assert sign_test(5, 5) == 1.0  # 2 P(X <= 5) > 1, capped
    assert sign_test(0, 0) == 1.0
    assert sign_test(0, 1) == 1.0  # 2 · 1/2
    assert sign_test(0, 10) == pytest.approx(2 / 1024, rel=1e-12)
    stats = pytest.importorskip("scipy.stats")
    for wins, losses in [(15, 3), (7, 2), (520, 480), (5200, 4800), (1, 0), (40, 41)]:
        expected = stats.binomtest(wins, wins + losses, 0.5).pvalue
        assert sign_test(wins, losses) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(
    ("log", "error", "message"),
    [
        ([["a", "c"]], ValueError, "click credit"),
        ([], ValueError, "no impressions"),
        (["ab"], TypeError, "impression 0"),
        ("ab", TypeError, "iterable of impressions"),
        ([[1]], ValueError, "click credit"),
    ],
)
def test_click_log_errors(log, error, message):
    with pytest.raises(error, match=message):
        preference_from_clicks(log)


# --------------------------------------------------------------------------------------
# Errors on input


@pytest.mark.parametrize(
    ("a", "b", "relevance", "options", "error", "message"),
    [
        (["d1", "d1"], ["d2"], {}, {}, ValueError, "appears twice"),
        (["d1"], ["d2", "d3", "d2"], {}, {}, ValueError, r"b: document 'd2' appears twice"),
        ("d1d2", ["d2"], {}, {}, TypeError, "not a string"),
        ([["x"]], ["d2"], {}, {}, TypeError, "not hashable"),
        (np.zeros((2, 2)), ["d2"], {}, {}, ValueError, "one-dimensional"),
        (A, B_SWAP, {"d1": 1}, {"method": "probabilistic"}, ValueError, "unknown interleaving"),
        (A, B_SWAP, {"d1": 1}, {"level": "1"}, ValueError, "level"),
        (A, B_SWAP, {"d1": "high"}, {}, ValueError, "not a number"),
        (A, B_SWAP, {"d1": float("nan")}, {}, ValueError, "not finite"),
        (A, B_SWAP, np.array([1, 0, 0]), {}, ValueError, "integer document ids"),
        ([-1, 0], [0], np.array([1, 0]), {}, ValueError, "negative"),
        (A, B_SWAP, {"d1": 1}, {"exact": False, "samples": 0}, ValueError, "samples"),
        (A, B_SWAP, "d1", {}, ValueError, "relevance must be"),
    ],
)
def test_input_errors(a, b, relevance, options, error, message):
    with pytest.raises(error, match=message):
        oip(a, b, relevance, **options)


def test_flip_errors():
    with pytest.raises(ValueError, match="more than 1 coin flips"):
        team_draft(["d1", "d2"], ["d3", "d4"], [True])  # two rounds need two flips
    with pytest.raises(ValueError, match="coin flips must be booleans"):
        team_draft(A, B_SWAP, [2, 0])
    for bad in (None, 2.5, "ab"):
        with pytest.raises(TypeError, match="rng_or_flips"):
            team_draft(A, B_SWAP, bad)


def test_docstring_examples():
    for il in (offline, methods):
        failures, tried = doctest.testmod(il, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert tried > 0 and failures == 0
