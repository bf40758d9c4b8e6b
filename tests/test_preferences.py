"""Preference-based evaluation (rankscope.preference) against values worked out by hand.

The expected values here come from the definitions, not from the code under test:
Diaz & Ferraro, "Offline Retrieval Evaluation Without Evaluation Metrics" (SIGIR 2022),
§3 (the X / Y example, worst-case placement of unretrieved items), §4 (eq. 3–5, RPP and
graded RPP), §5.3 (p(i) and p(λ) ∝ m_λ), §5.4 (win rate, MC4 aggregation); Diaz 2023 for
lexiprecision / lexirecall; Dwork et al. 2001 for MC4; Bradley & Terry 1952.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.errors import InputError
from rankscope.judge import NOT_RETRIEVED, relevance_table
from rankscope.measures import compute_request, compute_requests
from rankscope.preference import (
    borda,
    bradley_terry,
    graded_rpp,
    lexiprecision,
    lexirecall,
    mc4,
    mc4_positions,
    query_orderings,
    query_positions,
    recall_weights,
    rpp,
    rpp_together,
    win_rates,
)

ALL_METHODS = [
    "RPP",
    "dcgRPP",
    "invRPP",
    "gRPP",
    "gRPP(p=dcg)",
    "gRPP(p=inverse)",
    "lexiprecision",
    "rrlexiprecision",
    "lexirecall",
]


def ranking(*docs: str) -> dict[str, float]:
    """A ranking as {docno: score}: the first document scores highest, no ties."""
    return {doc: float(len(docs) - i) for i, doc in enumerate(docs)}


def pref(qrels, runs, method, **kwargs):
    return rankscope.preferences(qrels, runs, method, **kwargs)


def value(result, a: str, b: str, query: str | None = None) -> float:
    q = 0 if query is None else result.query_ids.index(query)
    return float(result.prefs[q, result.run_names.index(a), result.run_names.index(b)])


def dcg_weights(m: int) -> list[float]:
    raw = [1 / math.log2(i + 1) for i in range(1, m + 1)]
    total = math.fsum(raw)
    return [x / total for x in raw]


def inverse_weights(m: int) -> list[float]:
    raw = [1 / i for i in range(1, m + 1)]
    total = math.fsum(raw)
    return [x / total for x in raw]


def uniform_weights(m: int) -> list[float]:
    return [1 / m] * m


# ---------------------------------------------------------------------------------------
# The paper's example (§3, §4)
#
# X = 0 4 3 0 0 0 1 0 3 0 0 ... | ... 1 1 2 4 5   (omits grades {1,1,2,4,5})
# Y = 3 0 4 5 3 0 0 1 1 0 0 ... | ... 1 2 4       (omits grades {1,2,4})
#
# Both are rankings of the same nine relevant items: grades 1,1,1,2,3,3,4,4,5.
# ---------------------------------------------------------------------------------------

PAPER_QRELS = {
    "q": {
        "a1": 1, "a2": 1, "a3": 1, "b": 2, "c1": 3, "c2": 3, "d1": 4, "d2": 4, "e": 5,
        "z": 0,
    }
}  # fmt: skip
PAPER_RUNS = {
    "X": {"q": ranking("n1", "d1", "c1", "n2", "n3", "n4", "a1", "n5", "c2", "n6", "n7")},
    "Y": {"q": ranking("c2", "n1", "d2", "e", "c1", "n2", "n3", "a2", "a3", "n4", "n5")},
}
# sgn(f'_{i,λ} − f_{i,λ}) for X over Y, level by level, with the unretrieved items at the
# bottom of the corpus (n) in increasing order of grade:
#   λ=1: X 2 3 7 9 n-4 n-3 n-2 n-1 n   Y 1 3 4 5 8 9 n-2 n-1 n
#   λ=2: X 2 3 9 n-2 n-1 n             Y 1 3 4 5 n-1 n
#   λ=3: X 2 3 9 n-1 n                 Y 1 3 4 5 n
#   λ=4: X 2 n-1 n                     Y 3 4 n
#   λ=5: X n                           Y 4
PAPER_SIGNS = {
    1: [-1, 0, -1, -1, -1, -1, 0, 0, 0],
    2: [-1, 0, -1, -1, 0, 0],
    3: [-1, 0, -1, -1, 0],
    4: [+1, -1, 0],
    5: [-1],
}


def _paper_expected(weights, level=None) -> float:
    """RPP(X, Y) at one level, or graded (eq. 5, p(λ) ∝ m_λ) over all levels."""
    levels = [level] if level is not None else list(PAPER_SIGNS)
    total = sum(
        len(PAPER_SIGNS[lam])
        * sum(w * s for w, s in zip(weights(len(PAPER_SIGNS[lam])), PAPER_SIGNS[lam], strict=True))
        for lam in levels
    )
    return total / sum(len(PAPER_SIGNS[lam]) for lam in levels)


def test_paper_positions_of_relevant_items():
    """§3: f_1(X) = 2, f_2(X) = 3, f_3(X) = 7; §4: f_1 = 2 vs 1 at λ = 1, 2 vs 3 at λ = 4."""
    qrels = rankscope.read_qrels(PAPER_QRELS)
    runs = [rankscope.read_run(r, name=n) for n, r in PAPER_RUNS.items()]
    table = relevance_table(qrels, runs)
    x, y = table.run_names.index("X"), table.run_names.index("Y")
    level1 = table.positions(0, 1)
    assert level1[x, :4].tolist() == [2, 3, 7, 9]
    assert level1[y, :6].tolist() == [1, 3, 4, 5, 8, 9]
    assert (level1[x, 4:] == NOT_RETRIEVED).all() and (level1[y, 6:] == NOT_RETRIEVED).all()
    level4 = table.positions(0, 4)
    assert level4[x, 0] == 2 and level4[y, 0] == 3
    assert table.levels(0).tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "level,expected", [(1, -5 / 9), (2, -1 / 2), (3, -3 / 5), (4, 0.0), (5, -1.0)]
)
def test_paper_rpp_per_level(level, expected):
    assert _paper_expected(uniform_weights, level) == pytest.approx(expected, abs=1e-15)
    result = pref(PAPER_QRELS, PAPER_RUNS, f"RPP(rel={level})")
    assert value(result, "X", "Y") == pytest.approx(expected, abs=1e-12)
    assert value(result, "Y", "X") == pytest.approx(-expected, abs=1e-12)
    # the same through the relevance_level argument
    result = pref(PAPER_QRELS, PAPER_RUNS, "RPP", relevance_level=level)
    assert value(result, "X", "Y") == pytest.approx(expected, abs=1e-12)


def test_paper_first_item_users():
    """A user wanting one item: Y at λ = 1 (f_1 = 2 vs 1), X at λ = 4 (f_1 = 2 vs 3)."""
    assert value(pref(PAPER_QRELS, PAPER_RUNS, "lexiprecision"), "X", "Y") == -1
    assert value(pref(PAPER_QRELS, PAPER_RUNS, "lexiprecision(rel=4)"), "X", "Y") == 1
    # rrlexiprecision: 1/f_1(X) − 1/f_1(Y)
    assert value(pref(PAPER_QRELS, PAPER_RUNS, "rrlexiprecision"), "X", "Y") == pytest.approx(
        1 / 2 - 1
    )
    assert value(
        pref(PAPER_QRELS, PAPER_RUNS, "rrlexiprecision(rel=4)"), "X", "Y"
    ) == pytest.approx(1 / 2 - 1 / 3)
    # lexirecall: Y retrieves six relevant items, X four
    assert value(pref(PAPER_QRELS, PAPER_RUNS, "lexirecall"), "X", "Y") == -1
    # at λ = 4: X retrieves one of the three items of grade >= 4, Y two
    assert value(pref(PAPER_QRELS, PAPER_RUNS, "lexirecall(rel=4)"), "X", "Y") == -1


def test_paper_graded_rpp():
    """Eq. 5 with p(i|λ) = 1/m_λ and p(λ) ∝ m_λ: (−5 − 3 − 3 + 0 − 1) / (9+6+5+3+1) = −1/2."""
    assert _paper_expected(uniform_weights) == pytest.approx(-0.5, abs=1e-15)
    result = pref(PAPER_QRELS, PAPER_RUNS, "gRPP")
    assert value(result, "X", "Y") == pytest.approx(-0.5, abs=1e-12)
    assert value(result, "Y", "X") == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize(
    "method,weights",
    [("gRPP(p=dcg)", dcg_weights), ("gRPP(p=inverse)", inverse_weights)],
)
def test_paper_graded_rpp_weighted(method, weights):
    expected = _paper_expected(weights)
    assert value(pref(PAPER_QRELS, PAPER_RUNS, method), "X", "Y") == pytest.approx(
        expected, abs=1e-12
    )


@pytest.mark.parametrize("method,weights", [("dcgRPP", dcg_weights), ("invRPP", inverse_weights)])
def test_paper_binary_rpp_weighted(method, weights):
    # λ = 1 signs: −(w1 + w3 + w4 + w5 + w6)
    w = weights(9)
    expected = -(w[0] + w[2] + w[3] + w[4] + w[5])
    assert _paper_expected(weights, 1) == pytest.approx(expected, abs=1e-15)
    assert value(pref(PAPER_QRELS, PAPER_RUNS, method), "X", "Y") == pytest.approx(
        expected, abs=1e-12
    )


# ---------------------------------------------------------------------------------------
# Small binary rankings, four relevant documents r1..r4
#
#   A: r1 n1 r2 r3           f = 1 3 4 ∞
#   B: n1 r2 r1 r3           f = 2 3 4 ∞     (A and B both miss r4: tie at level 4)
#   C: r4 r3 r2 r1           f = 1 2 3 4
#   D: r4 r3                 f = 1 2 ∞ ∞
#   E: r1 r2                 f = 1 2 ∞ ∞     (D and E miss different documents: tie)
#   F: n1..n10 r1 r2 r3      f = 11 12 13 ∞
#   G: r1 r2 n1              f = 1 2 ∞ ∞
#   H: n1 r1 r2 n2 r3        f = 2 3 5 ∞
#   I: r1 r2 n1 r3           f = 1 2 4 ∞
# ---------------------------------------------------------------------------------------

SMALL_QRELS = {
    "q1": {"r1": 1, "r2": 1, "r3": 1, "r4": 1, "n1": 0, "n2": 0},
    "q2": {"n1": 0, "n2": 0},  # no relevant document: dropped
}
NONREL = [f"n{i}" for i in range(1, 11)]
SMALL_RUNS = {
    "A": {"q1": ranking("r1", "n1", "r2", "r3"), "q2": ranking("n1")},
    "B": {"q1": ranking("n1", "r2", "r1", "r3"), "q2": ranking("n2")},
    "C": {"q1": ranking("r4", "r3", "r2", "r1"), "q2": ranking("n1", "n2")},
    "D": {"q1": ranking("r4", "r3"), "q2": ranking("n1")},
    "E": {"q1": ranking("r1", "r2"), "q2": ranking("n1")},
    "F": {"q1": ranking(*NONREL, "r1", "r2", "r3"), "q2": ranking("n1")},
    "G": {"q1": ranking("r1", "r2", "n1"), "q2": ranking("n1")},
    "H": {"q1": ranking("n1", "r1", "r2", "n2", "r3"), "q2": ranking("n1")},
    "I": {"q1": ranking("r1", "r2", "n1", "r3"), "q2": ranking("n1")},
    "q3only": {"q1": ranking("r1", "r2", "n1", "r3"), "q3": ranking("x")},
}
SMALL_SIGNS = {  # sgn(f'_i − f_i) for the first run over the second, i = 1..4
    ("A", "B"): [+1, 0, 0, 0],
    ("A", "C"): [0, -1, -1, -1],
    ("B", "C"): [-1, -1, -1, -1],
    ("D", "E"): [0, 0, 0, 0],
    ("C", "D"): [0, 0, +1, +1],
    ("F", "G"): [-1, -1, +1, 0],
    ("A", "H"): [+1, 0, +1, 0],
    ("A", "I"): [0, -1, 0, 0],
    ("I", "q3only"): [0, 0, 0, 0],
}


@pytest.fixture(scope="module")
def small():
    table = relevance_table(
        rankscope.read_qrels(SMALL_QRELS),
        [rankscope.read_run(r, name=n) for n, r in SMALL_RUNS.items()],
    )
    return {m: pref(None, None, m, table=table) for m in ALL_METHODS} | {"table": table}


def test_small_table(small):
    table = small["table"]
    assert table.query_ids == ["q1"]  # q2 has no relevant document, q3 is not judged
    assert table.run_names == list(SMALL_RUNS)
    f = table.positions(0)
    big = int(NOT_RETRIEVED)
    assert f[table.run_names.index("A")].tolist() == [1, 3, 4, big]
    assert f[table.run_names.index("C")].tolist() == [1, 2, 3, 4]
    assert f[table.run_names.index("F")].tolist() == [11, 12, 13, big]
    assert f[table.run_names.index("D")].tolist() == [1, 2, big, big]


@pytest.mark.parametrize(
    "method,weights",
    [("RPP", uniform_weights), ("dcgRPP", dcg_weights), ("invRPP", inverse_weights)],
)
@pytest.mark.parametrize("pair", list(SMALL_SIGNS))
def test_small_rpp(small, method, weights, pair):
    expected = sum(w * s for w, s in zip(weights(4), SMALL_SIGNS[pair], strict=True))
    a, b = pair
    assert value(small[method], a, b) == pytest.approx(expected, abs=1e-12)
    assert value(small[method], b, a) == pytest.approx(-expected, abs=1e-12)


def test_small_rpp_closed_forms(small):
    assert value(small["RPP"], "A", "B") == pytest.approx(1 / 4)
    assert value(small["RPP"], "A", "C") == pytest.approx(-3 / 4)
    assert value(small["invRPP"], "A", "B") == pytest.approx(12 / 25)
    assert value(small["invRPP"], "A", "C") == pytest.approx(-13 / 25)
    assert value(small["dcgRPP"], "A", "B") == pytest.approx(
        1 / (1 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5))
    )
    for method in ("RPP", "dcgRPP", "invRPP"):
        assert value(small[method], "B", "C") == pytest.approx(-1.0, abs=1e-15)
        assert value(small[method], "D", "E") == 0.0
    # binary qrels: graded RPP is binary RPP
    np.testing.assert_allclose(small["gRPP"].prefs, small["RPP"].prefs, atol=1e-12)


@pytest.mark.parametrize("method", ["RPP", "dcgRPP", "invRPP"])
def test_rpp_losing_every_level_is_exactly_minus_one(small, method):
    """B is behind C at every recall level: Σ p(i) · (−1) = −1, within the bounds exactly."""
    assert value(small[method], "B", "C") == -1.0
    assert value(small[method], "C", "B") == 1.0
    assert (np.abs(small[method].prefs) <= 1.0).all()


@pytest.mark.parametrize("method", ALL_METHODS)
def test_small_general_properties(small, method):
    prefs = small[method].prefs
    assert prefs.shape == (1, len(SMALL_RUNS), len(SMALL_RUNS))
    np.testing.assert_array_equal(np.diagonal(prefs, axis1=1, axis2=2), 0.0)
    np.testing.assert_array_equal(prefs, -prefs.transpose(0, 2, 1))
    assert (np.abs(prefs) <= 1 + 1e-15).all()
    # I and q3only rank q1 identically
    assert value(small[method], "I", "q3only") == 0.0


LEXI = {  # (lexiprecision, rrlexiprecision, lexirecall) of the first run over the second
    ("A", "B"): (1, 1 / 1 - 1 / 2, 1),  # first difference f_1: 1 vs 2; deepest tie
    ("A", "C"): (-1, 1 / 3 - 1 / 2, -1),  # f_2: 3 vs 2; C retrieves all four
    ("B", "C"): (-1, 1 / 2 - 1 / 1, -1),
    ("C", "D"): (1, 1 / 3 - 0, 1),  # f_3: 3 vs unretrieved (reciprocal 0)
    ("D", "E"): (0, 0, 0),
    ("F", "G"): (-1, 1 / 11 - 1 / 1, 1),  # lexirecall counts first: three beat two
    ("A", "H"): (1, 1 / 1 - 1 / 2, 1),  # same count; deepest retrieved 4 vs 5
    ("A", "I"): (-1, 1 / 3 - 1 / 2, -1),  # deepest 4 vs 4, then 3 vs 2
}


@pytest.mark.parametrize("pair", list(LEXI))
def test_small_lexicographic(small, pair):
    a, b = pair
    lp, rr, lr = LEXI[pair]
    assert value(small["lexiprecision"], a, b) == lp
    assert value(small["rrlexiprecision"], a, b) == pytest.approx(rr, abs=1e-15)
    assert value(small["lexirecall"], a, b) == lr
    assert value(small["lexiprecision"], b, a) == -lp
    assert value(small["rrlexiprecision"], b, a) == pytest.approx(-rr, abs=1e-15)
    assert value(small["lexirecall"], b, a) == -lr


def test_lexirecall_counts_retrieved_before_positions():
    """Three relevant documents at ranks 101–103 beat two at ranks 1–2 (lexirecall), while
    lexiprecision and RPP prefer the top-heavy ranking."""
    qrels = {"q": {"r1": 1, "r2": 1, "r3": 1}}
    deep = ranking(*[f"x{i}" for i in range(100)], "r1", "r2", "r3")
    runs = {"deep": {"q": deep}, "top": {"q": ranking("r1", "r2")}}
    assert value(pref(qrels, runs, "lexirecall"), "deep", "top") == 1
    assert value(pref(qrels, runs, "lexiprecision"), "deep", "top") == -1
    assert value(pref(qrels, runs, "RPP"), "deep", "top") == pytest.approx(-1 / 3)


def test_relevant_document_no_run_retrieved():
    qrels = {"q": {"r1": 1, "r2": 1, "never": 1}}
    runs = {"a": {"q": ranking("r1", "r2")}, "b": {"q": ranking("r2", "x", "r1")}}
    # f(a) = 1 2 ∞, f(b) = 1 3 ∞
    for method, weights in (("RPP", uniform_weights), ("invRPP", inverse_weights)):
        assert value(pref(qrels, runs, method), "a", "b") == pytest.approx(weights(3)[1])
    assert value(pref(qrels, runs, "lexirecall"), "a", "b") == 1
    assert value(pref(qrels, runs, "rrlexiprecision"), "a", "b") == pytest.approx(1 / 2 - 1 / 3)


def test_identical_rankings_give_zero():
    qrels = {"q": {"r1": 2, "r2": 1, "r3": 1}, "p": {"s": 1}}
    same = {"q": ranking("x", "r2", "r1", "y"), "p": ranking("s")}
    runs = {"one": same, "two": dict(same)}
    for method in ALL_METHODS:
        np.testing.assert_array_equal(pref(qrels, runs, method).prefs, 0.0)


def test_queries_without_relevant_documents_are_dropped():
    qrels = {
        "q1": {"r": 1},
        "q2": {"n": 0},  # judged, nothing relevant
        "q3": {"r": 1, "s": 2},
        "q4": {"t": 1},  # nothing relevant at level 2
    }
    runs = {
        "a": {"q1": ranking("r"), "q2": ranking("n"), "q3": ranking("s"), "q4": ranking("t")},
        "b": {"q1": ranking("x", "r"), "q2": ranking("n"), "q3": ranking("r", "s")},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = pref(qrels, runs, "RPP")
        assert result.query_ids == ["q1", "q3", "q4"]
        assert result.prefs.shape == (3, 2, 2)
        level2 = pref(qrels, runs, "RPP", relevance_level=2)
    assert level2.query_ids == ["q3"]
    assert value(level2, "a", "b") == 1.0  # s at 1 vs 2
    # b ranks nothing for q4: a retrieves its relevant document, b does not
    assert value(result, "a", "b", "q4") == 1.0


def test_graded_rpp_small_by_hand():
    """Levels {1, 2}, m_1 = 3, m_2 = 1: the level-1 lists tie, a finds the grade-2 item
    first; gRPP = (3·0 + 1·1) / 4."""
    qrels = {"q": {"g2": 2, "g1a": 1, "g1b": 1, "n": 0}}
    runs = {"a": {"q": ranking("g2", "g1a", "g1b")}, "b": {"q": ranking("g1a", "g1b", "g2")}}
    assert value(pref(qrels, runs, "RPP"), "a", "b") == 0.0
    for method in ("gRPP", "gRPP(p=dcg)", "gRPP(p=inverse)"):
        assert value(pref(qrels, runs, method), "a", "b") == pytest.approx(1 / 4)
    assert value(pref(qrels, runs, "RPP(rel=2)"), "a", "b") == 1.0


def test_graded_rpp_with_grade_gaps():
    """Grades {1, 3} only: Λ is the set of grades present, p(λ) ∝ m_λ (m_1 = 3, m_3 = 1)."""
    qrels = {"q": {"g3": 3, "g1a": 1, "g1b": 1}}
    runs = {"a": {"q": ranking("g1a", "g3", "g1b")}, "b": {"q": ranking("g3", "x", "g1a")}}
    # λ=1: a 1 2 3, b 1 3 ∞ -> 0 +1 +1;  λ=3: a 2, b 1 -> −1
    expected = (3 * (2 / 3) + 1 * (-1)) / 4
    assert value(pref(qrels, runs, "gRPP"), "a", "b") == pytest.approx(expected)


@pytest.mark.parametrize("weighting", ["uniform", "dcg", "inverse"])
def test_many_relevant_documents(weighting):
    """A query with 20,000 relevant documents and five runs (one a copy), enough for the
    large-problem path: RPP from the definition, summed exactly here; copies tie exactly;
    antisymmetric exactly."""
    rng = np.random.default_rng(11)
    m = 20_000
    relevant = [f"r{i}" for i in range(m)]
    qrels = {"q": dict.fromkeys(relevant, 1)}
    runs = {}
    for name in ("a", "b", "c", "d"):
        docs = [f"x{i}" for i in range(3000)] + list(rng.choice(relevant, 15_000, replace=False))
        docs = [docs[i] for i in rng.permutation(len(docs))]
        runs[name] = {"q": ranking(*docs)}
    runs["copy"] = runs["a"]
    method = {"uniform": "RPP", "dcg": "dcgRPP", "inverse": "invRPP"}[weighting]
    result = pref(qrels, runs, method)
    weights = {"uniform": uniform_weights, "dcg": dcg_weights, "inverse": inverse_weights}
    w = np.array(weights[weighting](m))
    f = {}
    for name, run in runs.items():
        rank = {d: i + 1 for i, d in enumerate(sorted(run["q"], key=run["q"].get, reverse=True))}
        f[name] = np.sort([rank.get(d, 10**9) for d in relevant])  # 10**9: not retrieved
    prefs = result.prefs[0]
    for x in runs:
        for y in runs:
            expected = math.fsum(w * np.sign(f[y] - f[x]))
            got = prefs[result.run_names.index(x), result.run_names.index(y)]
            assert got == pytest.approx(expected, abs=1e-12), (x, y)
    np.testing.assert_array_equal(prefs, -prefs.T)
    a, copy = result.run_names.index("a"), result.run_names.index("copy")
    np.testing.assert_array_equal(prefs[a], prefs[copy])
    assert prefs[a, copy] == 0.0


def test_lower_level_functions_agree_with_the_api(small):
    table = small["table"]
    np.testing.assert_array_equal(rpp(table), small["RPP"].prefs)
    np.testing.assert_array_equal(rpp(table, "dcg"), small["dcgRPP"].prefs)
    np.testing.assert_array_equal(rpp(table, "inverse"), small["invRPP"].prefs)
    np.testing.assert_array_equal(graded_rpp(table), small["gRPP"].prefs)
    np.testing.assert_array_equal(lexiprecision(table), small["lexiprecision"].prefs)
    np.testing.assert_array_equal(
        lexiprecision(table, reciprocal=True), small["rrlexiprecision"].prefs
    )
    np.testing.assert_array_equal(lexirecall(table), small["lexirecall"].prefs)
    # explicit weights equal to the uniform ones
    np.testing.assert_allclose(rpp(table, [1.0, 1.0, 1.0, 1.0]), small["RPP"].prefs, atol=1e-15)


def test_rpp_methods_computed_together_are_the_hand_values_and_each_alone(small):
    """`compute_requests` (what `rankscope meta` uses) weighs each query's comparisons for
    RPP, dcgRPP and invRPP at once: the hand values, and bit for bit `compute_request` of
    each; other methods, and RPP at another level, come in their order."""
    table = small["table"]
    requests = ["dcgRPP", "lexirecall", "RPP", "RPP(rel=2)", "invRPP", "gRPP", "RPP(p=dcg)"]
    together = compute_requests(table, requests)
    assert [r.method for r in together] == requests
    for request, found in zip(requests, together, strict=True):
        alone = compute_request(table, request)
        assert found.query_ids == alone.query_ids and found.run_names == alone.run_names
        np.testing.assert_array_equal(found.prefs, alone.prefs, err_msg=request)
    by_name = dict(zip(requests, together, strict=True))
    for method, weights in [("RPP", uniform_weights), ("dcgRPP", dcg_weights),
                            ("invRPP", inverse_weights), ("RPP(p=dcg)", dcg_weights)]:  # fmt: skip
        for (a, b), signs in SMALL_SIGNS.items():
            expected = sum(w * s for w, s in zip(weights(4), signs, strict=True))
            assert value(by_name[method], a, b) == pytest.approx(expected, abs=1e-12)
    stacked = rpp_together(table, ["uniform", "dcg", "inverse", [1.0, 2.0, 3.0, 4.0]])
    assert stacked.shape == (4, *rpp(table).shape)
    for k, weights in enumerate(["uniform", "dcg", "inverse", [1.0, 2.0, 3.0, 4.0]]):
        np.testing.assert_array_equal(stacked[k], rpp(table, weights))
    # the methods last in memory (the randomized Tukey HSD's layout): the same values
    last = rpp_together(table, ["uniform", "dcg", "inverse", [1.0, 2.0, 3.0, 4.0]],
                        methods_last=True)  # fmt: skip
    assert last.shape == stacked.shape and np.moveaxis(last, 0, -1).flags.c_contiguous
    np.testing.assert_array_equal(last, stacked)
    for found, alone in zip(compute_requests(table, requests, methods_last=True), together,
                            strict=True):  # fmt: skip
        np.testing.assert_array_equal(found.prefs, alone.prefs, err_msg=found.method)
    # p(i) = i / 10 by hand: A over B is ahead at level 1 only
    assert value(small["RPP"], "A", "B") == 1 / 4
    at = {name: k for k, name in enumerate(table.run_names)}
    assert stacked[3, 0, at["A"], at["B"]] == pytest.approx(1 / 10, abs=1e-15)
    assert stacked[3, 0, at["A"], at["C"]] == pytest.approx(-(2 + 3 + 4) / 10, abs=1e-15)


# ---------------------------------------------------------------------------------------
# Recall weights p(i)
# ---------------------------------------------------------------------------------------


def test_recall_weights():
    np.testing.assert_allclose(recall_weights(4), [0.25] * 4)
    np.testing.assert_allclose(recall_weights(5, "dcg"), dcg_weights(5), rtol=1e-15)
    np.testing.assert_allclose(recall_weights(5, "inverse"), inverse_weights(5), rtol=1e-15)
    np.testing.assert_allclose(recall_weights(3, [1, 1, 2]), [0.25, 0.25, 0.5])
    np.testing.assert_allclose(recall_weights(2, [3, 1, 100]), [0.75, 0.25])  # first m used
    np.testing.assert_allclose(recall_weights(3, lambda m: range(1, m + 1)), [1 / 6, 2 / 6, 3 / 6])
    assert recall_weights(1, "dcg").tolist() == [1.0]


@pytest.mark.parametrize(
    "weights",
    ["bogus", [1.0], [1.0, -1.0, 1.0], [0.0, 0.0, 0.0], [1.0, float("nan"), 1.0]],
)
def test_recall_weights_rejects(weights):
    with pytest.raises(ValueError):
        recall_weights(3, weights)


# ---------------------------------------------------------------------------------------
# Win rates and per-query orderings
# ---------------------------------------------------------------------------------------


def test_win_rates_and_orderings(small):
    result = pref(SMALL_QRELS, {k: SMALL_RUNS[k] for k in "ABC"}, "RPP")
    # W(A) = 1/4 − 3/4, W(B) = −1/4 − 1, W(C) = 3/4 + 1
    np.testing.assert_allclose(result.win_rate, [[-1 / 2, -5 / 4, 7 / 4]], atol=1e-15)
    np.testing.assert_allclose(win_rates(result.prefs), result.win_rate)
    assert result.query_orderings() == [["C", "A", "B"]]
    assert query_orderings(result.prefs, result.run_names) == [["C", "A", "B"]]
    order, scores = result.ordering("mean")
    assert order == ["C", "A", "B"]
    np.testing.assert_allclose(scores, [7 / 4, -1 / 2, -5 / 4], atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_win_rates_and_orderings_of_many_queries_are_the_sums_and_sorts_by_hand(seed):
    """Win rates added run by run, from the first (signs of zero included), and each
    query's runs sorted as `order_by` sorts them one query at a time (equal win rates,
    equal names), on tensors large enough to be taken in blocks of queries."""
    rng = np.random.default_rng(seed)
    queries, runs = [(3000, 7), (40, 61), (5, 1), (0, 4)][seed]
    prefs = rng.choice([-0.0, 0.0, 0.5, -0.5, 1 / 3, -1 / 7, 1e-17], size=(queries, runs, runs))
    expected = np.zeros((queries, runs))
    for q in range(queries):
        for a in range(runs):
            total = prefs[q, a, 0]
            for b in range(1, runs):
                total += prefs[q, a, b]
            expected[q, a] = total
    got = win_rates(prefs)
    assert np.array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    names = [f"r{rng.integers(0, 3)}" for _ in range(runs)]  # names repeat
    by_hand = [
        [name for _, name in sorted(zip(w.tolist(), names, strict=True), reverse=True)]
        for w in expected
    ]
    assert query_orderings(prefs, names) == by_hand


def test_orderings_break_ties_by_run_name_descending():
    qrels = {"q": {"r1": 1, "r2": 1}, "p": {"r1": 1}}
    good = {"q": ranking("r1", "r2"), "p": ranking("r1")}
    bad = {"q": ranking("x", "r1", "r2"), "p": ranking("x", "r1")}
    runs = {"alpha": good, "gamma": bad, "beta": dict(good), "delta": dict(bad)}
    result = pref(qrels, runs, "RPP")
    assert result.query_orderings() == [["beta", "alpha", "gamma", "delta"]] * 2
    # hand-made tensor: all zero -> names descending
    zeros = np.zeros((1, 3, 3))
    assert query_orderings(zeros, ["b", "c", "a"]) == [["c", "b", "a"]]
    assert result.ordering("borda")[0] == ["beta", "alpha", "gamma", "delta"]
    assert result.ordering("mc4")[0] == ["beta", "alpha", "gamma", "delta"]


# ---------------------------------------------------------------------------------------
# MC4
# ---------------------------------------------------------------------------------------

# a above b in 2 of 3, a above c in 3, b above c in 2: from a stay; from b go to a (1/3),
# stay 2/3; from c go to a or b (1/3 each), stay 1/3.
MC4_ORDERINGS = [["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"]]
MC4_TRANSITION = np.array([[1, 0, 0], [1 / 3, 2 / 3, 0], [1 / 3, 1 / 3, 1 / 3]])


def _mc4_mass(orderings, names, **options) -> np.ndarray:
    """mc4's chain mass per run, in the order of ``names`` (mc4 returns it in its output
    order)."""
    order, state = mc4(orderings, **options)
    assert sorted(order) == sorted(names) and len(state) == len(names)
    mass = dict(zip(order, np.asarray(state).tolist(), strict=True))
    return np.array([mass[n] for n in names])


def test_mc4_reference_ten_power_iterations():
    """From e = (1, 1, 1): e_c(t) = 3^−t, e_b(t) = 2 (2/3)^t − 3^−t, e_a = 3 − e_b − e_c."""
    order, state = mc4(MC4_ORDERINGS)
    assert order == ["a", "b", "c"]
    c = 3.0**-10
    b = 2 * (2 / 3) ** 10 - c
    np.testing.assert_allclose(state, [3 - b - c, b, c], rtol=1e-12)
    # one iteration: (1 + 1/3 + 1/3, 2/3 + 1/3, 1/3)
    state1 = _mc4_mass(MC4_ORDERINGS, "abc", iterations=1)
    np.testing.assert_allclose(state1, [5 / 3, 1, 1 / 3], rtol=1e-12)


def test_mc4_mass_follows_the_output_order():
    """The first ordering lists c first, but the majority puts a, then b, on top."""
    orderings = [["c", "b", "a"], ["a", "b", "c"], ["a", "b", "c"]]
    order, state = mc4(orderings)
    assert order == ["a", "b", "c"]
    assert list(state) == sorted(state, reverse=True)


def test_mc4_condorcet_cycle_is_a_tie_broken_by_name():
    cycle = [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    order, state = mc4(cycle)
    np.testing.assert_allclose(state, [1.0, 1.0, 1.0], rtol=1e-12)
    assert order == ["c", "b", "a"]


def test_mc4_unanimous():
    orderings = [["d", "c", "b", "a"]] * 3
    assert mc4(orderings)[0] == ["d", "c", "b", "a"]
    assert mc4(orderings, reference=False)[0] == ["d", "c", "b", "a"]
    assert borda(orderings)[0] == ["d", "c", "b", "a"]


def _stationary(chain: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eig(chain.T)
    v = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return v / v.sum()


def test_mc4_converged_is_the_stationary_distribution():
    damping = 0.15
    chain = (1 - damping) * MC4_TRANSITION + damping / 3
    order, state = mc4(MC4_ORDERINGS, reference=False, damping=damping)
    assert order == ["a", "b", "c"]
    np.testing.assert_allclose(state, _stationary(chain), atol=1e-10)
    # another damping
    chain = 0.5 * MC4_TRANSITION + 0.5 / 3
    np.testing.assert_allclose(
        _mc4_mass(MC4_ORDERINGS, "abc", reference=False, damping=0.5),
        _stationary(chain),
        atol=1e-10,
    )


def _majority_transition(orderings, names):
    """MC4's chain written from its definition: from i, move to each j that a strict
    majority of the orderings places above i with probability 1/n."""
    n = len(names)
    t = np.zeros((n, n))
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            if i != j:
                above = sum(o.index(y) < o.index(x) for o in orderings)
                if above > len(orderings) - above:
                    t[i, j] = 1 / n
        t[i, i] = 1 - t[i].sum()
    return t


@settings(max_examples=30, deadline=None)
@given(
    st.integers(3, 6).flatmap(
        lambda n: st.lists(st.permutations(list("abcdef")[:n]), min_size=1, max_size=7)
    ),
    st.sampled_from([0.1, 0.15, 0.3]),
)
def test_mc4_converged_random(orderings, damping):
    names = list(orderings[0])
    chain = (1 - damping) * _majority_transition(orderings, names) + damping / len(names)
    state = _mc4_mass(orderings, names, reference=False, damping=damping)
    np.testing.assert_allclose(state, _stationary(chain), atol=1e-9)
    # reference: 10 power iterations of the undamped chain from the all-ones vector
    expected = np.ones(len(names)) @ np.linalg.matrix_power(
        _majority_transition(orderings, names), 10
    )
    np.testing.assert_allclose(_mc4_mass(orderings, names), expected, atol=1e-12)
    # the ordering: mass descending, equal mass by name descending
    order, state = mc4(orderings)
    for k in range(len(order) - 1):
        assert state[k] >= state[k + 1]
        if state[k] == state[k + 1]:
            assert order[k] > order[k + 1]


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 7), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_mc4_of_positions_is_mc4_of_the_orderings(runs, queries, seed):
    """Orderings given as indices (`query_positions`, `mc4_positions`, what meta's study
    uses) aggregate to the ordering and masses, bit for bit, of the same orderings by name
    (`query_orderings`, `mc4`): preferences with ties, the first query's order numbering
    the chain's states."""
    rng = np.random.default_rng(seed)
    prefs = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=(queries, runs, runs))
    prefs = (prefs - prefs.transpose(0, 2, 1)) / 2
    names = [f"{i:06d}" for i in rng.permutation(runs)]
    positions = query_positions(prefs, names)
    assert [[names[i] for i in row] for row in positions.tolist()] == query_orderings(
        prefs, names
    )
    for reference in (True, False):
        order, mass = mc4(query_orderings(prefs, names), reference=reference)
        got_order, got_mass = mc4_positions(positions, names, reference=reference)
        assert got_order == order
        assert got_mass.tobytes() == mass.tobytes()


def test_mc4_converged_through_the_result():
    result = pref(SMALL_QRELS, {k: SMALL_RUNS[k] for k in "ABC"}, "RPP")
    order, scores = result.ordering("mc4-converged")
    assert order == ["C", "A", "B"]
    assert scores.sum() == pytest.approx(1.0)
    assert list(scores) == sorted(scores, reverse=True)


@pytest.mark.parametrize("damping", [0.0, 1.0, -0.1, 1.5])
def test_mc4_rejects_damping(damping):
    with pytest.raises(ValueError):
        mc4(MC4_ORDERINGS, reference=False, damping=damping)


# ---------------------------------------------------------------------------------------
# Borda
# ---------------------------------------------------------------------------------------


def test_borda_by_hand():
    # a: 3 + 3 + 2, b: 2 + 1 + 3, c: 1 + 2 + 1
    order, points = borda(MC4_ORDERINGS)
    assert order == ["a", "b", "c"]
    assert points == {"a": 8, "b": 6, "c": 4}
    order, points = borda([["a", "b"], ["b", "a"]])
    assert points == {"a": 3, "b": 3}
    assert order == ["b", "a"]  # tie: name descending


def test_borda_through_the_result():
    result = pref(SMALL_QRELS, {k: SMALL_RUNS[k] for k in "ABC"}, "RPP")
    order, scores = result.ordering("borda")
    assert order == ["C", "A", "B"]
    assert scores.tolist() == [3.0, 2.0, 1.0]


# ---------------------------------------------------------------------------------------
# Bradley–Terry
# ---------------------------------------------------------------------------------------


def _outcomes(n_runs: int, games: dict[tuple[int, int], list[int]]) -> np.ndarray:
    """A preference tensor from per-query outcomes of each pair: +1 first wins, 0 tie."""
    queries = max(len(v) for v in games.values())
    prefs = np.zeros((queries, n_runs, n_runs))
    for (a, b), outcomes in games.items():
        for q, o in enumerate(outcomes):
            prefs[q, a, b], prefs[q, b, a] = o, -o
    return prefs


def test_bradley_terry_symmetric_outcomes_give_equal_strengths():
    two = _outcomes(2, {(0, 1): [1, -1]})
    np.testing.assert_allclose(bradley_terry(two, ["a", "b"])["strength"], [0, 0], atol=1e-9)
    cycle = _outcomes(3, {(0, 1): [1], (1, 2): [1], (2, 0): [1]})
    np.testing.assert_allclose(
        bradley_terry(cycle, ["a", "b", "c"])["strength"], [0, 0, 0], atol=1e-9
    )
    ties = np.zeros((4, 3, 3))
    np.testing.assert_allclose(
        bradley_terry(ties, ["a", "b", "c"])["strength"], [0, 0, 0], atol=1e-9
    )


def test_bradley_terry_two_runs_known_answer():
    """a wins 2 of 3: the maximum-likelihood odds are 2, log-strengths ±log(2)/2."""
    prefs = _outcomes(2, {(0, 1): [1, 1, -1]})
    np.testing.assert_allclose(
        bradley_terry(prefs, ["a", "b"])["strength"], [math.log(2) / 2, -math.log(2) / 2],
        atol=1e-7,
    )  # fmt: skip
    # a tie counts half to each: a 1.5, b 0.5 -> odds 3
    prefs = _outcomes(2, {(0, 1): [0.3, 0.0]})
    np.testing.assert_allclose(
        bradley_terry(prefs, ["a", "b"])["strength"], [math.log(3) / 2, -math.log(3) / 2],
        atol=1e-7,
    )  # fmt: skip


def test_bradley_terry_three_runs_known_answer():
    """Outcomes equal to their expectations under strengths (1, 2, 4), 15 games a pair: the
    likelihood equations hold exactly there, so the estimate is log(1, 2, 4) centred."""
    prefs = _outcomes(
        3,
        {
            (0, 1): [1] * 5 + [-1] * 10,  # b beats a with probability 2/3
            (0, 2): [1] * 3 + [-1] * 12,  # c beats a with probability 4/5
            (1, 2): [1] * 5 + [-1] * 10,  # c beats b with probability 2/3
        },
    )
    got = bradley_terry(prefs, ["a", "b", "c"])["strength"]
    np.testing.assert_allclose(got, [-math.log(2), 0.0, math.log(2)], atol=1e-6)


def test_bradley_terry_dominant_run_ranks_first():
    result = pref(SMALL_QRELS, {k: SMALL_RUNS[k] for k in "ABC"}, "RPP")
    order, scores = result.ordering("bradley-terry")
    assert order[0] == "C"  # C beats A and B
    assert order == ["C", "A", "B"]
    assert np.all(np.diff(scores) <= 0)
    prefs = _outcomes(3, {(0, 1): [1, 1], (0, 2): [1, 1], (1, 2): [1, -1]})
    strength = bradley_terry(prefs, ["w", "x", "y"])["strength"]
    assert np.isfinite(strength).all()
    assert strength[0] > strength[1] and strength[0] > strength[2]
    assert strength[1] == pytest.approx(strength[2], abs=1e-6)


def test_bradley_terry_bootstrap_is_deterministic_for_a_seed():
    rng = np.random.default_rng(3)
    signs = rng.choice([-1.0, 0.0, 1.0], size=(20, 4, 4))
    prefs = np.triu(signs, 1) - np.transpose(np.triu(signs, 1), (0, 2, 1))
    names = ["a", "b", "c", "d"]
    one = bradley_terry(prefs, names, samples=50, seed=7)
    two = bradley_terry(prefs, names, samples=50, seed=7)
    other = bradley_terry(prefs, names, samples=50, seed=8)
    for key in ("strength", "low", "high"):
        np.testing.assert_array_equal(one[key], two[key])
        assert one[key].shape == (4,)
    assert (one["low"] <= one["high"]).all()
    assert not (
        np.array_equal(one["low"], other["low"]) and np.array_equal(one["high"], other["high"])
    )
    assert "low" not in bradley_terry(prefs, names)


# ---------------------------------------------------------------------------------------
# The result object, method names, errors
# ---------------------------------------------------------------------------------------


def test_result_fields_and_frame(small):
    result = small["RPP"]
    assert result.method == "RPP"
    np.testing.assert_array_equal(result.mean, result.prefs.mean(axis=0))
    frame = result.to_frame(output="dict")
    n = len(result.run_names)
    assert len(frame["query"]) == n * (n - 1) // 2
    assert frame["run_i"][0] == "A" and frame["run_j"][0] == "B"
    assert frame["RPP"][0] == pytest.approx(1 / 4)
    assert pref(SMALL_QRELS, SMALL_RUNS, "gRPP(p=dcg)").method == "gRPP(p=dcg)"


def test_inputs_as_files(tmp_path):
    (tmp_path / "qrels").write_text("q 0 r1 1\nq 0 r2 1\nq 0 n 0\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text("q Q0 r1 1 3 a\nq Q0 n 2 2 a\nq Q0 r2 3 1 a\n")
    (runs / "b.run").write_text("q Q0 n 1 3 b\nq Q0 r1 2 2 b\nq Q0 r2 3 1 b\n")
    # f(a) = 1 3, f(b) = 2 3
    by_dir = pref(tmp_path / "qrels", runs, "RPP")
    assert sorted(by_dir.run_names) == ["a", "b"]
    assert value(by_dir, "a", "b") == pytest.approx(1 / 2)
    by_files = pref(str(tmp_path / "qrels"), [str(runs / "a.run"), str(runs / "b.run")], "RPP")
    assert value(by_files, "a", "b") == pytest.approx(1 / 2)


def test_ties_policy_changes_the_order_of_equal_scores():
    qrels = {"q": {"r": 1}}
    tied = {"q": {"r": 1.0, "s": 1.0}}  # docno descending: s before r
    runs = {"tied": tied, "second": {"q": ranking("x", "r")}}
    assert value(pref(qrels, runs, "RPP"), "tied", "second") == 0.0
    assert value(pref(qrels, runs, "RPP", ties="docno-asc"), "tied", "second") == 1.0


@pytest.mark.parametrize("runs", [{"only": SMALL_RUNS["A"]}, {}])
def test_needs_two_runs(runs):
    with pytest.raises(ValueError):
        pref(SMALL_QRELS, runs, "RPP")


@pytest.mark.parametrize(
    "method",
    [
        "FOO",
        "rpp",  # names are case-sensitive
        "RPP(p=bogus)",
        "RPP(x=1)",
        "RPP(rel)",
        "RPP(rel=two)",
        "gRPP(rel=2)",
        "lexiprecision(p=dcg)",
        "lexirecall(p=inverse)",
        "RPP(p=dcg",
    ],
)
def test_bad_methods(method):
    with pytest.raises(ValueError):
        pref(SMALL_QRELS, SMALL_RUNS, method)


def test_bad_aggregate(small):
    with pytest.raises(ValueError):
        small["RPP"].ordering("kemeny")


def test_duplicate_run_names():
    qrels = rankscope.read_qrels(SMALL_QRELS)
    runs = [
        rankscope.read_run(SMALL_RUNS["A"], name="x"),
        rankscope.read_run(SMALL_RUNS["B"], name="x"),
    ]
    with pytest.raises(ValueError):
        relevance_table(qrels, runs)


# ---------------------------------------------------------------------------------------
# Properties (hypothesis)
# ---------------------------------------------------------------------------------------

DOCS = [f"d{i}" for i in range(8)]


@st.composite
def small_collections(draw, max_grade: int = 3, ties: bool = False):
    """One to three queries over eight documents; two to four runs, each ranking a subset
    of the documents (possibly none of the relevant ones) with distinct scores."""
    qids = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, max_size=3, unique=True))
    qrels = {}
    for q in qids:
        grades = draw(st.lists(st.integers(0, max_grade), min_size=8, max_size=8))
        if max(grades) == 0:
            grades[draw(st.integers(0, 7))] = draw(st.integers(1, max(1, max_grade)))
        qrels[q] = dict(zip(DOCS, grades, strict=True))
    n_runs = draw(st.integers(2, 4))
    runs = {}
    for r in range(n_runs):
        run = {}
        for q in qids:
            docs = draw(st.lists(st.sampled_from(DOCS + ["u1", "u2"]), min_size=1, unique=True))
            if ties:
                scores = draw(st.lists(st.integers(0, 2), min_size=len(docs), max_size=len(docs)))
                run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
            else:
                run[q] = ranking(*docs)
        runs[f"run{r}"] = run
    return qrels, runs


def _reference(qrels, runs, level, weights, kind):
    """The definitions, written directly: per query, each run's sorted ranks of the
    documents of grade >= level (inf when not retrieved), compared pair by pair."""
    names = list(runs)
    out = []
    for q in sorted(qrels):
        relevant = [d for d, g in qrels[q].items() if g >= level]
        if not relevant:
            continue
        f = {}
        for name in names:
            # ties: docno descending (trec_eval): equal scores -> larger docno first
            ordered = sorted(runs[name].get(q, {}).items(), key=lambda x: (x[1], x[0]))[::-1]
            rank = {d: i + 1 for i, (d, _) in enumerate(ordered)}
            f[name] = sorted(rank.get(d, math.inf) for d in relevant)
        m = len(relevant)
        matrix = np.zeros((len(names), len(names)))
        for a, x in enumerate(names):
            for b, y in enumerate(names):
                fx, fy = f[x], f[y]
                diffs = [i for i in range(m) if fx[i] != fy[i]]
                if kind == "rpp":
                    w = weights(m)
                    matrix[a, b] = sum(w[i] * np.sign(fy[i] - fx[i]) for i in diffs)
                elif kind == "lexiprecision":
                    matrix[a, b] = np.sign(fy[diffs[0]] - fx[diffs[0]]) if diffs else 0
                elif kind == "rrlexiprecision":
                    if diffs:
                        i = diffs[0]
                        matrix[a, b] = (1 / fx[i] if fx[i] < math.inf else 0) - (
                            1 / fy[i] if fy[i] < math.inf else 0
                        )
                elif kind == "lexirecall":
                    matrix[a, b] = np.sign(fy[diffs[-1]] - fx[diffs[-1]]) if diffs else 0
        out.append(matrix)
    return np.array(out).reshape(len(out), len(names), len(names))


PROPERTY_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _quiet(qrels, runs, method, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pref(qrels, runs, method, **kwargs)


@PROPERTY_SETTINGS
@given(small_collections(ties=True), st.sampled_from(ALL_METHODS))
def test_property_antisymmetric_bounded_zero_diagonal(collection, method):
    qrels, runs = collection
    prefs = _quiet(qrels, runs, method).prefs
    np.testing.assert_array_equal(prefs, -prefs.transpose(0, 2, 1))
    np.testing.assert_array_equal(np.diagonal(prefs, axis1=1, axis2=2), 0.0)
    assert (prefs >= -1 - 1e-12).all() and (prefs <= 1 + 1e-12).all()


@PROPERTY_SETTINGS
@given(small_collections(ties=True), st.integers(1, 2))
def test_property_matches_the_definitions(collection, level):
    qrels, runs = collection
    cases = [
        ("RPP", "rpp", uniform_weights),
        ("dcgRPP", "rpp", dcg_weights),
        ("invRPP", "rpp", inverse_weights),
        ("lexiprecision", "lexiprecision", None),
        ("rrlexiprecision", "rrlexiprecision", None),
        ("lexirecall", "lexirecall", None),
    ]
    if all(max(grades.values()) < level for grades in qrels.values()):
        # nothing relevant at this level: an error, not an ordering on no evidence
        with pytest.raises(InputError, match="no judged document is relevant"):
            _quiet(qrels, runs, "RPP", relevance_level=level)
        return
    for method, kind, weights in cases:
        result = _quiet(qrels, runs, method, relevance_level=level)
        expected = _reference(qrels, runs, level, weights, kind)
        assert result.prefs.shape == expected.shape, method
        np.testing.assert_allclose(result.prefs, expected, atol=1e-12, err_msg=method)


@PROPERTY_SETTINGS
@given(small_collections(), st.permutations(DOCS), st.sampled_from(ALL_METHODS))
def test_property_invariant_to_relabelling_documents(collection, permuted, method):
    qrels, runs = collection
    rename = dict(zip(DOCS, permuted, strict=True)) | {"u1": "u1", "u2": "u2"}
    qrels2 = {q: {rename[d]: g for d, g in docs.items()} for q, docs in qrels.items()}
    runs2 = {
        n: {q: {rename[d]: s for d, s in docs.items()} for q, docs in run.items()}
        for n, run in runs.items()
    }
    np.testing.assert_array_equal(
        _quiet(qrels, runs, method).prefs, _quiet(qrels2, runs2, method).prefs
    )


@PROPERTY_SETTINGS
@given(
    small_collections(max_grade=1, ties=True),
    st.integers(1, 4),
    st.sampled_from(["", "dcg", "inverse"]),
)
def test_property_graded_equals_binary_when_grades_are_equal(collection, grade, weighting):
    qrels, runs = collection
    qrels = {q: {d: grade if g > 0 else 0 for d, g in docs.items()} for q, docs in qrels.items()}
    suffix = f"(p={weighting})" if weighting else ""
    binary = {"": "RPP", "dcg": "dcgRPP", "inverse": "invRPP"}[weighting]
    graded = _quiet(qrels, runs, f"gRPP{suffix}").prefs
    np.testing.assert_allclose(graded, _quiet(qrels, runs, binary).prefs, atol=1e-12)


@PROPERTY_SETTINGS
@given(small_collections())
def test_property_identical_runs_and_win_rates(collection):
    qrels, runs = collection
    first = next(iter(runs))
    runs = runs | {"copy": runs[first]}
    result = _quiet(qrels, runs, "RPP")
    a, b = result.run_names.index(first), result.run_names.index("copy")
    np.testing.assert_array_equal(result.prefs[:, a, b], 0.0)
    np.testing.assert_array_equal(result.prefs[:, a, :], result.prefs[:, b, :])
    np.testing.assert_allclose(result.win_rate, result.prefs.sum(axis=2), atol=1e-12)
    for ordering, w in zip(result.query_orderings(), result.win_rate, strict=True):
        scores = [w[result.run_names.index(n)] for n in ordering]
        assert scores == sorted(scores, reverse=True)


def _write(path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_one_runs_positions_by_hand(tmp_path):
    # a run ranks c, b, x, a on q1 and nothing on q2: a (grade 1) at 4, b (grade 2) at 2,
    # q2's d not retrieved; c (grade 0) is not relevant
    from rankscope.judge import judged_positions, relevant_docs
    from rankscope.read.sources import read_qrels, resolve_runs

    qrels = read_qrels(_write(tmp_path / "qrels", ["q1 0 a 1", "q1 0 b 2", "q1 0 c 0",
                                                   "q2 0 d 1"]))  # fmt: skip
    run = _write(tmp_path / "run", [f"q1 Q0 {d} {i} {9 - i} t" for i, d in enumerate("cbxa", 1)])
    docs = relevant_docs(qrels)
    assert docs.query_ids == ["q1", "q2"] and docs.count == 3
    found, judged = judged_positions(docs, resolve_runs(run, qrels)[0])
    assert found.tolist() == [4, 2, int(NOT_RETRIEVED)]
    assert judged.missing.tolist() == [False, True]
    assert relevant_docs(qrels, 2).count == 1
    table = docs.table(["r", "s"], [found, np.array([1, 3, 2])])
    assert [t.tolist() for t in table.ranks] == [[[4, 2], [1, 3]], [[NOT_RETRIEVED], [2]]]
    assert [g.tolist() for g in table.grades] == [[1, 2], [1]]


@pytest.mark.parametrize("jobs", [None, 2])
@pytest.mark.parametrize("how", [{}, {"relevance_level": 2, "ties": "docno-asc"},
                                 {"max_docs": 3}])  # fmt: skip
def test_runs_read_one_at_a_time_give_the_whole_runs_table(tmp_path, jobs, how):
    # the streamed table (each run read, judged and reduced to where it ranks the relevant
    # documents, in worker processes) is the table of the runs read whole: ranks, grades,
    # queries, names, every method's preferences, and the warnings in the same order
    from rankscope.api.preference import runs_relevance_table
    from rankscope.read.sources import read_qrels, resolve_runs

    rng = np.random.default_rng(3)
    qrels = read_qrels(_write(tmp_path / "qrels", [
        f"q{q} 0 d{d} {int(rng.integers(0, 3))}" for q in range(6) for d in range(8)
    ]))  # fmt: skip
    paths = []
    for r in range(4):
        lines = []
        for q in range(6):
            if r == 2 and q in (1, 4):  # run 2 ranks nothing for q1 and q4
                continue
            scores = np.round(rng.random(10), 1)  # ties among them
            lines += [f"q{q} Q0 d{d} {d + 1} {s} t" for d, s in enumerate(scores.tolist())]
        lines += ["q9 Q0 d1 1 1.0 t"] if r == 3 else []  # a query without judgments
        paths.append(_write(tmp_path / f"run{r}.txt", lines))
    with warnings.catch_warnings(record=True) as whole_told:
        warnings.simplefilter("always")
        whole = relevance_table(qrels, resolve_runs(paths, qrels, distinct_for="preferences"),
                                **how)  # fmt: skip
    with warnings.catch_warnings(record=True) as streamed_told:
        warnings.simplefilter("always")
        streamed = runs_relevance_table(qrels, paths, jobs=jobs, **how)
    assert [str(w.message) for w in streamed_told] == [str(w.message) for w in whole_told]
    assert any("run 'run2' ranks nothing for" in str(w.message) for w in whole_told)
    assert streamed.run_names == whole.run_names == ["run0", "run1", "run2", "run3"]
    assert streamed.query_ids == whole.query_ids
    assert all(np.array_equal(a, b) for a, b in zip(streamed.ranks, whole.ranks, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(streamed.grades, whole.grades, strict=True))
    for method in ALL_METHODS:
        a, b = pref(qrels, None, method, table=streamed), pref(qrels, None, method, table=whole)
        assert np.array_equal(a.prefs, b.prefs)


def test_prefer_reads_runs_one_at_a_time(tmp_path, capsys):
    # `prefer --jobs 2` prints what `prefer` prints, and RPP by hand: x finds both relevant
    # documents first on q1 (+1 over y); on q2 both find the one relevant document at 1 (0)
    from .conftest import run_cli

    qrels = _write(tmp_path / "qrels", ["q1 0 a 1", "q1 0 b 1", "q2 0 a 1"])
    x = _write(tmp_path / "x.txt", ["q1 Q0 a 1 3 x", "q1 Q0 b 2 2 x", "q1 Q0 c 3 1 x",
                                    "q2 Q0 a 1 1 x"])  # fmt: skip
    y = _write(tmp_path / "y.txt", ["q1 Q0 c 1 3 y", "q1 Q0 a 2 2 y", "q1 Q0 b 3 1 y",
                                    "q2 Q0 a 1 1 y"])  # fmt: skip
    outputs = []
    for jobs in ([], ["--jobs", "2"]):
        code, out, err = run_cli(["prefer", "--format", "json", *jobs, qrels, x, y], capsys)
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]
    found = rankscope.preferences(qrels, [x, y], "RPP", jobs=2)
    assert value(found, "x", "y", "q1") == 1 and value(found, "x", "y", "q2") == 0
