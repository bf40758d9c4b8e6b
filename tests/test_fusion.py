"""Rank fusion (`rankscope.fuse`, ``rankscope fuse``): hand-computed cases for every method
and normalisation; ranx's fusion as the oracle on random seeded runs and on two real CLEF
eHealth 2016 runs; weights tuned on training queries; the run file written; the command
line."""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import itertools
import math
import os

import numpy as np
import pytest

import rankscope
from rankscope.errors import RankscopeWarning, UsageError
from tests.conftest import DATA, need, run_cli

# Two runs of one query: A ranks d1 > d2 > d3, B ranks d2 > d3 (not d1).
A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q1": {"d2": 0.9, "d3": 0.8}}

# Each normalisation of A's and B's scores, by hand from its definition.
SD_A = math.sqrt(2 / 3)  # population standard deviation of 3, 2, 1
NORMALISED = {
    "none": ({"d1": 3.0, "d2": 2.0, "d3": 1.0}, {"d2": 0.9, "d3": 0.8}),
    "min-max": ({"d1": 1.0, "d2": 0.5, "d3": 0.0}, {"d2": 1.0, "d3": 0.0}),
    "max": ({"d1": 1.0, "d2": 2 / 3, "d3": 1 / 3}, {"d2": 1.0, "d3": 0.8 / 0.9}),
    "sum": ({"d1": 2 / 3, "d2": 1 / 3, "d3": 0.0}, {"d2": 1.0, "d3": 0.0}),
    "zscore": ({"d1": 1 / SD_A, "d2": 0.0, "d3": -1 / SD_A}, {"d2": 1.0, "d3": -1.0}),
    "rank": ({"d1": 1.0, "d2": 2 / 3, "d3": 1 / 3}, {"d2": 1.0, "d3": 0.5}),
}

# Every method on A and B (min-max normalised where the method reads scores), by hand.
BY_HAND = {
    "sum": {"d1": 1.0, "d2": 0.5 + 1.0, "d3": 0.0},
    "mnz": {"d1": 1.0 * 1, "d2": (0.5 + 1.0) * 2, "d3": 0.0},
    "max": {"d1": 1.0, "d2": 1.0, "d3": 0.0},
    "min": {"d1": 1.0, "d2": 0.5, "d3": 0.0},
    "med": {"d1": 1.0, "d2": 0.75, "d3": 0.0},
    "anz": {"d1": 1.0, "d2": 0.75, "d3": 0.0},
    "rrf": {"d1": 1 / 61, "d2": 1 / 62 + 1 / 61, "d3": 1 / 63 + 1 / 62},
    # n = 3 candidates: ranks 1, 2, 3 get 3, 2, 1 points; B leaves d1 unranked, which gets
    # the points left, (3 - 2 + 1) / 2 = 1
    "borda": {"d1": 3 + 1, "d2": 2 + 3, "d3": 1 + 2},
    # d2 vs d1: one run each, a tie, settled by the Borda order (d2 5 > d1 4); d2 beats d3
    # in both runs; d1 vs d3 one run each, Borda d1 4 > d3 3: d2, d1, d3
    "condorcet": {"d2": 3.0, "d1": 2.0, "d3": 1.0},
}


def scores(fusion) -> dict[str, dict[str, float]]:
    return fusion.run.to_dict()


def ranking(fusion, query: str = "q1") -> list[str]:
    """The documents of ``query`` in the fused run's order."""
    run = fusion.run
    rows = np.flatnonzero(run.query == run.queries.code(query))
    return run.docs.strings_of(run.doc[rows])


def assert_scores(got: dict, expected: dict) -> None:
    assert set(got) == set(expected)
    for query, docs in expected.items():
        assert set(got[query]) == set(docs), query
        for doc, value in docs.items():
            assert got[query][doc] == pytest.approx(value, rel=1e-12, abs=1e-12), (query, doc)


# -- hand-computed cases -----------------------------------------------------------------------


@pytest.mark.parametrize("method", sorted(BY_HAND))
def test_every_method_by_hand(method):
    fused = rankscope.fuse({"A": A, "B": B}, method)
    assert_scores(scores(fused), {"q1": BY_HAND[method]})
    # the ranking: fused score descending, equal scores by document id descending
    expected = sorted(BY_HAND[method], key=lambda d: (-BY_HAND[method][d], [-ord(c) for c in d]))
    assert ranking(fused) == expected


def test_weighted_methods_by_hand():
    w = {"A": 1.0, "B": 2.0}
    assert_scores(
        scores(rankscope.fuse({"A": A, "B": B}, "wsum", run_weights=w)),
        {"q1": {"d1": 1.0, "d2": 0.5 + 2 * 1.0, "d3": 0.0}},
    )
    assert_scores(
        scores(rankscope.fuse({"A": A, "B": B}, "rrf", run_weights=[1, 2], rrf_k=1)),
        {"q1": {"d1": 1 / 2, "d2": 1 / 3 + 2 / 2, "d3": 1 / 4 + 2 / 3}},
    )
    assert_scores(
        scores(rankscope.fuse({"A": A, "B": B}, "borda", run_weights=[1, 2])),
        {"q1": {"d1": 3 + 2 * 1, "d2": 2 + 2 * 3, "d3": 1 + 2 * 2}},
    )


@pytest.mark.parametrize("norm", sorted(NORMALISED))
def test_every_normalisation_by_hand(norm):
    a, b = NORMALISED[norm]
    fused_sum = rankscope.fuse({"A": A, "B": B}, "sum", norm=norm)
    assert_scores(scores(fused_sum), {"q1": {d: a.get(d, 0) + b.get(d, 0) for d in a}})
    fused_min = rankscope.fuse({"A": A, "B": B}, "min", norm=norm)
    assert_scores(scores(fused_min), {"q1": {d: min(a[d], b.get(d, math.inf)) for d in a}})


def test_equal_scores_normalise_to_zero():
    """A query whose scores are all equal: min-max, sum and z-score would divide by 0;
    the floor of the denominator (1e-9, ranx's) makes them 0."""
    flat = {"q1": {"d1": 5.0, "d2": 5.0}}
    other = {"q1": {"d1": 1.0, "d2": 0.0}}
    for norm in ("min-max", "sum", "zscore"):
        fused = rankscope.fuse({"flat": flat, "other": other}, "sum", norm=norm)
        expected = {"min-max": (1.0, 0.0), "sum": (1.0, 0.0), "zscore": (1.0, -1.0)}[norm]
        assert_scores(scores(fused), {"q1": {"d1": expected[0], "d2": expected[1]}})


def test_condorcet_follows_the_majority_not_borda():
    """Two runs rank a > b > c > d, a third b > c > d > a: a beats every document 2 to 1,
    so Condorcet ranks a first, where Borda (a 4+4+1 = 9, b 3+3+4 = 10) ranks b first."""
    one = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    three = {"q": {"b": 4.0, "c": 3.0, "d": 2.0, "a": 1.0}}
    runs = {"r1": one, "r2": dict(one), "r3": three}
    assert ranking(rankscope.fuse(runs, "condorcet"), "q") == ["a", "b", "c", "d"]
    assert ranking(rankscope.fuse(runs, "borda"), "q") == ["b", "a", "c", "d"]
    assert_scores(
        scores(rankscope.fuse(runs, "borda")), {"q": {"a": 9, "b": 10, "c": 7, "d": 4}}
    )


def test_condorcet_cycle_is_deterministic_and_symmetric():
    """A majority cycle (a > b, b > c, c > a): no Condorcet order exists; the result is one
    ranking of the three, the same whatever the order of the runs."""
    runs = [
        {"q": {"a": 3.0, "b": 2.0, "c": 1.0}},
        {"q": {"b": 3.0, "c": 2.0, "a": 1.0}},
        {"q": {"c": 3.0, "a": 2.0, "b": 1.0}},
    ]
    first = rankscope.fuse({"x": runs[0], "y": runs[1], "z": runs[2]}, "condorcet").to_trec()
    again = rankscope.fuse({"z": runs[2], "x": runs[0], "y": runs[1]}, "condorcet").to_trec()
    assert first == again
    assert sorted(line.split()[2] for line in first.splitlines()) == ["a", "b", "c"]


@pytest.mark.parametrize("method", ["rrf", "sum", "mnz", "borda", "med"])
def test_the_order_of_the_runs_does_not_matter(method):
    """Unweighted fusion is symmetric in the runs, to the bit: the terms of a sum are added
    in ascending order whatever the order of the runs."""
    runs = random_runs(7, n_runs=4)
    forward = rankscope.fuse({f"r{i}": r for i, r in enumerate(runs)}, method, tag="f")
    backward = rankscope.fuse(
        {f"r{i}": r for i, r in reversed(list(enumerate(runs)))}, method, tag="f"
    )
    assert forward.to_trec() == backward.to_trec()


def test_a_query_missing_from_a_run():
    """The fused run holds every query some run ranks; a run without the query adds
    nothing (rrf: q2 from A alone)."""
    a = {**A, "q2": {"d9": 1.0, "d8": 0.5}}
    fused = rankscope.fuse({"A": a, "B": B}, "rrf")
    assert_scores(scores(fused), {"q1": BY_HAND["rrf"], "q2": {"d9": 1 / 61, "d8": 1 / 62}})


def test_depth_tag_and_the_written_run():
    runs = random_runs(3, n_docs=40)
    fused = rankscope.fuse({f"r{i}": r for i, r in enumerate(runs)}, "mnz", depth=5, tag="mix")
    lines = [line.split() for line in fused.to_trec().splitlines()]
    by_query: dict[str, list[list[str]]] = {}
    for line in lines:
        assert len(line) == 6 and line[1] == "Q0" and line[5] == "mix"
        by_query.setdefault(line[0], []).append(line)
    assert list(by_query) == sorted(by_query)  # queries in id order
    for rows in by_query.values():
        assert [int(r[3]) for r in rows] == list(range(1, len(rows) + 1))
        assert len(rows) == min(5, len({d for run in runs for d in run[rows[0][0]]}))
        values = [float(r[4]) for r in rows]
        assert values == sorted(values, reverse=True)


def test_trec_eval_reads_the_rank_column_as_written(tmp_path):
    """trec_eval ranks by score, equal scores by document id descending: the fused file's
    rank column is that order (so reading it by rank or by score is the same), and
    pytrec_eval (trec_eval's C code) finds the values rankscope finds."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    runs = random_runs(11, n_docs=12)
    # rank-based fusion has many equal scores: the tie order matters
    fused = rankscope.fuse({f"r{i}": r for i, r in enumerate(runs)}, "borda")
    path = tmp_path / "fused.run"
    fused.write(path)
    qrels = {q: {f"d{i}": i % 3 for i in range(12)} for q in runs[0]}
    by_score = rankscope.evaluate(qrels, str(path), ["AP", "nDCG@5"], output="dict")
    by_rank = rankscope.evaluate(qrels, str(path), ["AP", "nDCG@5"], output="dict", order="rank")
    assert by_score == by_rank
    with open(path) as handle:
        parsed = pytrec_eval.parse_run(handle)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut"}).evaluate(parsed)
    for _run, query, measure, value in zip(*by_score.values(), strict=True):
        key = "map" if measure == "AP" else "ndcg_cut_5"
        assert value == pytest.approx(theirs[query][key], abs=1e-12), (query, measure)


def test_doctests():
    module = importlib.import_module("rankscope.api.fusion")
    assert doctest.testmod(module).failed == 0


# -- ranx as the oracle ------------------------------------------------------------------------


def random_runs(seed: int, n_runs: int = 3, n_queries: int = 6, n_docs: int = 30) -> list[dict]:
    """Runs of random length over random documents, scores on scales of their own (no two
    equal, so that ranx's unstable tie order cannot matter)."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(n_queries):
            docs = rng.choice(n_docs, size=int(rng.integers(1, n_docs)), replace=False)
            run[f"q{q}"] = {f"d{d}": float(rng.normal() * (r + 1) + 3 * r) for d in docs}
        runs.append(run)
    return runs


def _shifted_to_zero(run: dict) -> dict:
    """``run`` with every score less its lowest: the same order, every score >= 0."""
    low = min(score for docs in run.values() for score in docs.values())
    return {q: {d: score - low for d, score in docs.items()} for q, docs in run.items()}


RANX_NORMS = {"min-max": "min-max", "max": "max", "sum": "sum", "zscore": "zmuv",
              "rank": "rank", "none": None}  # fmt: skip
SCORE_METHODS = ["sum", "mnz", "max", "min", "med", "anz", "wsum"]
RANK_METHODS = ["rrf", "borda"]


@contextlib.contextmanager
def ranx_as_written():
    """ranx, its numba functions run as the Python they are written in: compiling them
    costs ~15 s per process, for the same definitions.  Only while ranx is imported and
    called (numba's switch is read at both times); RANKSCOPE_RANX_JIT=1 runs them compiled."""
    if importlib.util.find_spec("ranx") is None:  # (not imported: the switch comes first)
        pytest.skip("ranx is not installed (the test extra has it)")
    import numba

    before = numba.config.DISABLE_JIT
    numba.config.DISABLE_JIT = before or os.environ.get("RANKSCOPE_RANX_JIT") != "1"
    try:
        import ranx

        yield ranx
    finally:
        numba.config.DISABLE_JIT = before


def ranx_fuse(runs: list[dict], method: str, norm: str | None, weights=None) -> dict:
    """ranx's fusion of ``runs`` by the method rankscope calls ``method``."""
    from rankscope.fusion import METHODS

    name = METHODS[method].ranx if method != "w_bordafuse" else method
    params = {} if weights is None else {"weights": list(weights)}
    with ranx_as_written() as ranx:
        fused = ranx.fuse(
            [ranx.Run(r) for r in runs], norm=RANX_NORMS[norm] if norm else None,
            method=name, params=params,
        )  # fmt: skip
        return {q: {d: float(v) for d, v in docs.items()} for q, docs in fused.run.items()}


def assert_like_ranx(ours, theirs: dict) -> None:
    """Scores equal to 1e-9 (relative to their size), and our ranking their scores' order
    (wherever their scores differ by more than that)."""
    got = scores(ours)
    assert set(got) == set(theirs)
    for query, docs in theirs.items():
        assert set(got[query]) == set(docs), query
        for doc, value in docs.items():
            assert abs(got[query][doc] - value) <= 1e-9 * max(1.0, abs(value)), (query, doc)
        theirs_in_our_order = [docs[d] for d in ranking(ours, query)]
        assert all(
            later <= earlier + 1e-9 * max(1.0, abs(earlier))
            for earlier, later in itertools.pairwise(theirs_in_our_order)
        ), query


@pytest.mark.parametrize("seed", [1, 2])
def test_like_ranx_on_random_runs(seed):
    runs = random_runs(seed)
    named = {f"r{i}": r for i, r in enumerate(runs)}
    weights = [0.2, 0.5, 0.3]
    # max normalisation takes scores >= 0 (negative ones are refused): it is compared on
    # the same runs shifted to start at 0
    shifted = [_shifted_to_zero(run) for run in runs]
    for method in SCORE_METHODS:
        for norm in RANX_NORMS:
            w = weights if method == "wsum" else None
            given = shifted if norm == "max" else runs
            named = {f"r{i}": r for i, r in enumerate(given)}
            ours = rankscope.fuse(named, method, norm=norm, run_weights=w, depth=None)
            assert_like_ranx(ours, ranx_fuse(given, method, norm, w))
    named = {f"r{i}": r for i, r in enumerate(runs)}
    with pytest.raises(UsageError, match="run 'r0' has negative scores"):
        rankscope.fuse(named, "sum", norm="max", depth=None)
    for method in RANK_METHODS:
        ours = rankscope.fuse(named, method, depth=None)
        assert_like_ranx(ours, ranx_fuse(runs, method, None))
    # ranx's weighted Borda is the weighted sum of Borda points
    ours = rankscope.fuse(named, "borda", run_weights=weights, depth=None)
    assert_like_ranx(ours, ranx_fuse(runs, "w_bordafuse", None, weights))


def test_like_ranx_condorcet_where_a_condorcet_order_exists():
    """ranx's Condorcet sort is fed candidates in set order, so on ties and cycles its
    output depends on Python's string hashing; where the majority is a strict order
    (three runs, each ranking every candidate, no cycle) any correct sort finds it."""
    rng = np.random.default_rng(5)
    runs: list[dict] = [{}, {}, {}]
    for q in range(12):
        base = rng.normal(size=8)
        for run in runs:
            noisy = base + rng.normal(scale=0.4, size=8)
            run[f"q{q}"] = {f"d{i}": float(v) for i, v in enumerate(noisy)}
    ours = rankscope.fuse({f"r{i}": r for i, r in enumerate(runs)}, "condorcet", depth=None)
    theirs = ranx_fuse(runs, "condorcet", None)
    strict = 0
    for query in theirs:
        order = ranking(ours, query)
        if all(
            sum(r[query][x] > r[query][y] for r in runs) >= 2
            for i, x in enumerate(order) for y in order[i + 1 :]
        ):  # fmt: skip
            strict += 1
            assert_like_ranx_query(ours, theirs, query)
    assert strict >= 3


def assert_like_ranx_query(ours, theirs: dict, query: str) -> None:
    assert_like_ranx_dict(scores(ours)[query], theirs[query])


def assert_like_ranx_dict(got: dict, expected: dict) -> None:
    assert got == pytest.approx(expected, abs=1e-9)


def _ranked_scores(run: dict) -> dict:
    """A run's scores replaced by 1/rank in trec_eval's order (score descending, equal
    scores by document id descending): no ties, the same order."""
    out = {}
    for query, docs in run.items():
        order = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
        out[query] = {d: 1.0 / (i + 1) for i, d in enumerate(order)}
    return out


def test_like_ranx_on_real_runs():
    """Two CLEF eHealth 2016 runs of different systems and score scales (GUIR_EN_Run1:
    whole numbers in the thousands, with ~14,000 ties; ecnu_EN_Run3), on ten queries
    (ranx's Borda is quadratic: three).  The rank-based methods and rank normalisation are
    checked on the runs' scores made tie-free in trec_eval's order (ranx's own tie order is
    unstable)."""
    folder = need(DATA / "clef_ehealth2016" / "runs")
    runs = [
        rankscope.read_run(folder / name).to_dict()
        for name in ("GUIR_EN_Run1.txt.gz", "ecnu_EN_Run3.txt.gz")
    ]
    keep = sorted(runs[0])[:10]
    runs = [{q: run[q] for q in keep} for run in runs]
    named = {"guir": runs[0], "ecnu": runs[1]}
    for method in SCORE_METHODS:
        w = [0.7, 0.3] if method == "wsum" else None
        ours = rankscope.fuse(named, method, norm="min-max", run_weights=w, depth=None)
        assert_like_ranx(ours, ranx_fuse(runs, method, "min-max", w))
    for norm in ("max", "sum", "zscore", "none"):
        ours = rankscope.fuse(named, "sum", norm=norm, depth=None)
        assert_like_ranx(ours, ranx_fuse(runs, "sum", norm))
    tie_free = [_ranked_scores(run) for run in runs]
    named = {"guir": tie_free[0], "ecnu": tie_free[1]}
    assert_like_ranx(rankscope.fuse(named, "rrf", depth=None), ranx_fuse(tie_free, "rrf", None))
    few = [{q: run[q] for q in keep[:3]} for run in tie_free]
    assert_like_ranx(
        rankscope.fuse({"guir": few[0], "ecnu": few[1]}, "borda", depth=None),
        ranx_fuse(few, "borda", None),
    )
    ours = rankscope.fuse(named, "mnz", norm="rank", depth=None)
    assert_like_ranx(ours, ranx_fuse(tie_free, "mnz", "rank"))


def test_ties_decide_the_ranks_of_rank_based_fusion():
    """The ranks rrf reads come from the runs' order with ``ties`` (trec_eval's, document
    id descending, by default): A ties d1 and d2."""
    tied = {"q1": {"d1": 1.0, "d2": 1.0}}
    other = {"q1": {"d3": 1.0}}
    desc = scores(rankscope.fuse({"t": tied, "o": other}, "rrf", rrf_k=0))
    asc = scores(rankscope.fuse({"t": tied, "o": other}, "rrf", rrf_k=0, ties="docno-asc"))
    assert desc == {"q1": {"d2": 1.0, "d1": 0.5, "d3": 1.0}}
    assert asc == {"q1": {"d1": 1.0, "d2": 0.5, "d3": 1.0}}


# -- weights tuned on training queries ---------------------------------------------------------


def tuning_case() -> tuple[dict, dict]:
    """Eight queries, each with two relevant documents: ``good`` ranks them first and
    second, ``bad`` last; fusing mostly ``good`` is best."""
    qrels, good, bad = {}, {}, {}
    for q in range(8):
        query = f"q{q}"
        qrels[query] = {"r1": 1, "r2": 1, "x1": 0}
        docs = ["r1", "r2", "x1", "x2", "x3", "x4"]
        good[query] = {d: float(6 - i) for i, d in enumerate(docs)}
        bad[query] = {d: float(6 - i) for i, d in enumerate(reversed(docs))}
    return qrels, {"good": good, "bad": bad}


def test_tuning_finds_the_best_weights_and_fuses_the_held_out_queries():
    qrels, runs = tuning_case()
    train = ["q0", "q1", "q2", "q3"]
    fused = rankscope.fuse(runs, "wsum", optimize="AP", qrels=qrels, train=train)
    tuning = fused.tuning
    assert tuning.train_queries == tuple(train)
    assert tuning.test_queries == ("q4", "q5", "q6", "q7")
    assert fused.run.query_ids == ["q4", "q5", "q6", "q7"]
    # AP 1 (both relevant documents first) is the best there is; equal weights give every
    # document about 0.5 (min-max: (1 - i/5 + i/5) / 2), no longer ranking r1, r2 first
    assert tuning.score == 1.0
    assert tuning.equal_weights_score < 1.0
    assert fused.weights["good"] > fused.weights["bad"]
    assert sum(fused.weights.values()) == pytest.approx(1.0)
    # a grid of step 0.1 over two runs: 11 weight vectors (0, 1), (0.1, 0.9), ... (1, 0)
    assert tuning.evaluated == 11
    # the tuned weights, applied without tuning, reach the same training mean
    again = rankscope.fuse(runs, "wsum", run_weights=fused.weights)
    table = rankscope.evaluate(qrels, again.run, ["AP"], output="dict")
    on_train = [v for q, v in zip(table["query"], table["value"], strict=True) if q in train]
    assert np.mean(on_train) == tuning.score
    with pytest.warns(RankscopeWarning, match="4 judged queries not in the run"):
        held_out = rankscope.evaluate(qrels, fused.run, ["AP"], per_query=False, output="dict")
    assert held_out["value"] == [1.0]


def test_grid_search_counts_the_simplex():
    """Three runs, step 0.1: C(12, 2) = 66 weight vectors sum to 1."""
    qrels, runs = tuning_case()
    runs = {**runs, "copy": runs["good"]}
    fused = rankscope.fuse(runs, "rrf", optimize="nDCG@10", qrels=qrels, seed=3)
    assert fused.tuning.evaluated == math.comb(12, 2)
    assert fused.tuning.score >= fused.tuning.equal_weights_score


@pytest.mark.parametrize("search", ["grid", "coordinate"])
def test_tuning_is_deterministic_with_a_seed(search):
    runs = random_runs(4, n_queries=10)
    named = {f"r{i}": r for i, r in enumerate(runs)}
    qrels = {q: {f"d{i}": int(i % 4 == 0) for i in range(30)} for q in runs[0]}
    first = rankscope.fuse(named, "wsum", optimize="nDCG@10", qrels=qrels, seed=5, search=search)
    again = rankscope.fuse(named, "wsum", optimize="nDCG@10", qrels=qrels, seed=5, search=search)
    assert first.weights == again.weights and first.tuning == again.tuning
    assert first.to_trec() == again.to_trec()
    assert first.tuning.score >= first.tuning.equal_weights_score
    other = rankscope.fuse(named, "wsum", optimize="nDCG@10", qrels=qrels, seed=6, search=search)
    assert other.tuning.train_queries != first.tuning.train_queries
    assert len(first.tuning.train_queries) == 5  # half of the ten queries


def test_tuning_improves_the_training_mean_on_ehealth():
    folder = need(DATA / "clef_ehealth2016")
    runs = [folder / "runs" / f"ecnu_EN_Run{i}.txt.gz" for i in (3, 1, 2)]
    fused = rankscope.fuse(
        runs, "wsum", optimize="nDCG@10", qrels=folder / "task2.qrels", names="file"
    )
    assert fused.tuning.score > fused.tuning.equal_weights_score
    assert len(fused.run.query_ids) == 25


def test_tuning_mistakes():
    qrels, runs = tuning_case()
    cases = [
        (dict(method="max", optimize="AP", qrels=qrels), "takes no weights"),
        (dict(method="wsum", optimize="AP"), "needs qrels"),
        (dict(method="wsum", optimize="AP", qrels=qrels, run_weights=[1, 1]), "not both"),
        (dict(method="wsum", optimize="RPP", qrels=qrels), "one ranking"),
        (dict(method="wsum", optimize="AP", qrels=qrels, train=["q9"]), "q9"),
        (dict(method="wsum", optimize="AP", qrels=qrels, train=[f"q{i}" for i in range(8)]),
         "none is left"),  # fmt: skip
        (dict(method="wsum", optimize="AP", qrels=qrels, step=0.3), "divide 1"),
        (dict(method="wsum", optimize="AP", qrels=qrels, train_fraction=1.0), "between 0"),
        (dict(method="wsum", optimize="AP", qrels={"z": {"r1": 1}}), "no training query"),
    ]
    for options, message in cases:
        method = options.pop("method")
        with pytest.raises(UsageError, match=message):
            rankscope.fuse(runs, method, **options)


def test_usage_mistakes():
    runs = {"A": A, "B": B}
    cases = [
        (dict(method="nope"), "unknown fusion method"),
        (dict(method="rrf", norm="zscore"), "fuses ranks"),
        (dict(method="sum", norm="l2"), "unknown score normalisation"),
        (dict(method="wsum"), "needs weights"),
        (dict(method="max", run_weights=[1, 1]), "takes no weights"),
        (dict(method="sum", run_weights=[1]), "1 weights for 2 runs"),
        (dict(method="sum", run_weights={"A": 1, "C": 1}), "no run is named C"),
        (dict(method="sum", run_weights=[0, 0]), "not all 0"),
        (dict(method="sum", run_weights=[1, float("nan")]), "finite"),
        (dict(method="rrf", rrf_k=-1), "k must be"),
        (dict(method="rrf", depth=0), "depth must be"),
    ]
    for options, message in cases:
        method = options.pop("method")
        with pytest.raises(UsageError, match=message):
            rankscope.fuse(runs, method, **options)
    with pytest.raises(UsageError, match="at least two runs"):
        rankscope.fuse({"A": A}, "rrf")
    assert rankscope.fuse(runs, "CombMNZ").method == "mnz"


def test_overflow_is_an_error():
    huge = {"q": {"a": 1e308, "b": 1.0}}
    with pytest.raises(UsageError, match="overflows"):
        rankscope.fuse({"x": huge, "y": huge}, "sum", norm="none")


def test_max_normalisation_refuses_negative_scores(tmp_path, capsys):
    # a query-likelihood run: log scores, all negative.  s / max(max s, 1e-9) would scale it
    # by 1e9 (its best document -3.5e9, far below the other run's 0..1)
    ql = {"q1": {"d1": -3.5, "d2": -4.0, "d3": -9.0}}
    bm = {"q1": {"d1": 3.5, "d3": 2.0}}
    with pytest.raises(UsageError) as told:
        rankscope.fuse({"ql": ql, "bm": bm}, "sum", norm="max")
    assert str(told.value).startswith(
        "run 'ql' has negative scores (3, e.g. -3.5 in query 'q1'): the max normalisation "
        "divides by the query's highest score and needs scores >= 0"
    )
    assert "norm='min-max'" in str(told.value)
    # sum shifts by the query's lowest score first: (s + 9) / Σ(s + 9) = 5.5/10.5, 5/10.5, 0
    # for ql; (s − 2) / Σ(s − 2) = 1, 0 for bm
    fused = rankscope.fuse({"ql": ql, "bm": bm}, "sum", norm="sum").run.to_dict()["q1"]
    assert fused == pytest.approx({"d1": 5.5 / 10.5 + 1, "d2": 5 / 10.5, "d3": 0.0})
    # non-negative scores: s / max s, by hand 1, 4/7 for bm and 1 for a one-document run
    fused = rankscope.fuse({"bm": bm, "x": {"q1": {"d2": 2.0}}}, "sum", norm="max")
    assert fused.run.to_dict()["q1"] == pytest.approx({"d1": 1.0, "d3": 2 / 3.5, "d2": 1.0})
    (tmp_path / "ql.run").write_text("q1 Q0 d1 1 -3.5 ql\nq1 Q0 d2 2 -4.0 ql\n")
    (tmp_path / "bm.run").write_text("q1 Q0 d1 1 3.5 bm\n")
    code, out, err = run_cli(
        ["fuse", "--method", "sum", "--norm", "max", str(tmp_path / "ql.run"),
         str(tmp_path / "bm.run")], capsys,
    )  # fmt: skip
    assert code == 2 and out == ""
    assert err.startswith("rankscope: error: run 'ql' has negative scores")
    assert err.rstrip().endswith("use --norm min-max")


# -- the command line --------------------------------------------------------------------------


def write_run(path, run: dict, tag: str) -> str:
    path.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s!r} {tag}\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))
        )
    )
    return str(path)


def test_cli_writes_the_fused_run(tmp_path, capsys):
    a, b = write_run(tmp_path / "a.run", A, "A"), write_run(tmp_path / "b.run", B, "B")
    out = tmp_path / "fused.run"
    code, stdout, stderr = run_cli(["fuse", a, b, "-o", str(out)], capsys)
    assert (code, stdout, stderr) == (0, "", "")
    assert out.read_text() == rankscope.fuse({"a": A, "b": B}, "rrf").to_trec()
    code, stdout, _ = run_cli(["fuse", "--method", "wsum", "--run-weights", "1,2", a, b], capsys)
    assert code == 0
    assert [line.split()[2] for line in stdout.splitlines()] == ["d2", "d1", "d3"]
    assert stdout.split()[5] == "wsum"
    code, stdout, _ = run_cli(["fuse", "--tag", "mine", "--depth", "1", "--method", "max",
                               "--norm", "rank", a, b], capsys)  # fmt: skip
    assert stdout == "q1 Q0 d2 1 1.0 mine\n"


def test_cli_tunes_and_tells_the_weights(tmp_path, capsys):
    qrels, runs = tuning_case()
    paths = [write_run(tmp_path / f"{n}.run", r, n) for n, r in runs.items()]
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    train = tmp_path / "train.txt"
    train.write_text("q0\nq1\n\nq2\nq3\n")
    code, stdout, stderr = run_cli(
        ["fuse", "--method", "wsum", "--optimize", "AP", "--qrels", str(qrels_path),
         "--train", str(train), *paths], capsys,
    )  # fmt: skip
    assert code == 0
    assert "AP on 4 training queries: 1.0000" in stderr
    assert "11 settings tried" in stderr and "4 held-out queries" in stderr
    assert sorted({line.split()[0] for line in stdout.splitlines()}) == ["q4", "q5", "q6", "q7"]


def test_cli_mistakes(tmp_path, capsys):
    a, b = write_run(tmp_path / "a.run", A, "A"), write_run(tmp_path / "b.run", B, "B")
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 x\nq1 Q0 d2 2 zero x\n")
    cases = [
        (["fuse", a, str(bad)], "bad.run:2:", "zero"),
        (["fuse", a, b, "--method", "rrf", "--norm", "sum"], "--norm sum does not apply", ""),
        (["fuse", a, b, "--method", "wsum"], "--run-weights or --optimize", ""),
        (["fuse", a, b, "--run-weights", "1,x"], "'x' is not a number", ""),
        (["fuse", a, b, "-o", a], "would overwrite an input file", ""),
        (["fuse", a, b, "--qrels", a], "needs --optimize", ""),
        (["fuse", a, b, "--optimize", "AP", "--method", "sum"], "--optimize needs --qrels", ""),
        (["fuse", a], "at least two runs", ""),
        (["fuse", a, str(tmp_path / "missing.run")], "missing.run", ""),
    ]
    for args, message, more in cases:
        code, stdout, stderr = run_cli(args, capsys)
        assert code == 2, args
        assert stderr.startswith("rankscope: error:") and message in stderr, (args, stderr)
        assert more in stderr and stderr.count("\n") == 1
    for args in (["fuse", a, b, "--method", "nope"], ["fuse", a, b, "--rrf-k", "-1"]):
        with pytest.raises(SystemExit) as stopped:
            run_cli(args, capsys)
        assert stopped.value.code == 2


def test_cli_lists_agree_with_the_tables():
    from rankscope.cli import fuse as command
    from rankscope.fusion import METHODS, NORMALISATIONS, SEARCHES

    assert set(command.METHODS) == set(METHODS)
    assert set(command.NORMS) == set(NORMALISATIONS)
    assert command.SEARCHES == SEARCHES
