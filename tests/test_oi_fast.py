"""Offline interleaving for every pair at once (rankscope.interleaving.kernels) against the
original pair-by-pair computation (tests/oi_reference.py), by hand, on real runs, and by
name in every command."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.interleaving import (
    interleaving_matrix,
    kernels,
    offline_interleaving_preference,
)
from rankscope.interleaving.kernels import query_pairs
from tests.conftest import DATA, need, run_cli
from tests.oi_reference import reference_matrix, reference_preference

# --------------------------------------------------------------------------------------
# By hand


def test_shared_non_relevant_documents_move_the_relevant_ones():
    # a = [x, r], b = [x, n], r relevant, p(k) = 1/3 for k = 1..3 (|a ∪ b| = 3).
    # Team draft, a first: a takes x, b takes n, a takes r -> [x, n, r]: s = (0, 0, 1).
    # b first: b takes x, a takes r, b takes n -> [x, r, n]: s = (0, 1, 1).
    # I = (1/3 + 2/3) / 2 = 1/2.
    assert offline_interleaving_preference(["x", "r"], ["x", "n"], {"r"}) == pytest.approx(0.5)
    # With b's x renamed y, nothing is shared: each round is a coin; r is a's second pick,
    # at position 3 or 4; with the same weights on k = 1..3: s_3 = 1 half the time: 1/6.
    got = offline_interleaving_preference(["x", "r"], ["y", "n"], {"r"}, browsing=[1, 1, 1])
    assert got == pytest.approx(1 / 6)
    # so the relevant documents' ranks alone (the same in both cases) do not decide I


def test_balanced_closed_form_by_hand():
    # a = [x, r], b = [r, y], r relevant, p(k) = 1/3.
    # a first: x, r (from b), r again (dropped), y -> [x, r, y]; clicking r, the lowest
    # click's best rank is j = 1 (b's), h_a = 0 (r is a's 2nd), h_b = 1: s = (0, -1, -1).
    # b first: r, x, y -> [r, x, y]: s = (-1, -1, -1).  I = (-2/3 - 1) / 2 = -5/6.
    got = offline_interleaving_preference(["x", "r"], ["r", "y"], {"r"}, method="balanced")
    assert got == pytest.approx(-5 / 6)
    # truncated: the list ends before the first pick after a ranking is used up.
    # a = [r], b = [n]: a first -> [r] (a used up): s_1 = 1 and k = 2 sees the whole list: 1;
    # b first -> [n]: 0.  I = 1/2 (untruncated, b first gives [n, r]: (0 + 1) / 2: 3/4).
    assert offline_interleaving_preference(
        ["r"], ["n"], {"r"}, method="balanced", truncate=True
    ) == pytest.approx(0.5)
    assert offline_interleaving_preference(["r"], ["n"], {"r"}, method="balanced") == 0.75


def test_a_tie_is_exactly_zero():
    # rankings that mirror each other (a's k-th document sits where b's k-th sits in a)
    a, b = ["r", "n", "m"], ["n", "r", "m"]
    assert offline_interleaving_preference(a, b, {"r", "n"}) == 0.0
    matrix = interleaving_matrix([a, b, a], {"r", "n"})
    assert matrix[0, 2] == 0.0 and matrix[0, 1] == 0.0


# --------------------------------------------------------------------------------------
# Against the original implementation, on random rankings

DOCS = st.integers(0, 9)
RANKING = st.lists(DOCS, max_size=9, unique=True)
OPTIONS = st.fixed_dictionaries(
    {
        "method": st.sampled_from(["team-draft", "balanced"]),
        "browsing": st.sampled_from(["uniform", "dcg"]),
        "truncate": st.booleans(),
    }
)


@settings(max_examples=150, deadline=None)
@given(RANKING, RANKING, st.sets(DOCS), OPTIONS)
def test_pair_equals_the_reference(a, b, relevant, options):
    got = offline_interleaving_preference(a, b, relevant, **options)
    assert got == pytest.approx(reference_preference(a, b, relevant, **options), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(RANKING, min_size=2, max_size=5), st.sets(DOCS), OPTIONS)
def test_matrix_equals_the_reference(rankings, relevant, options):
    got = interleaving_matrix(rankings, relevant, **options)
    np.testing.assert_allclose(got, reference_matrix(rankings, relevant, **options), atol=1e-12)
    np.testing.assert_array_equal(got, -got.T)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(RANKING, min_size=3, max_size=3), min_size=1, max_size=3), st.sets(DOCS))
def test_query_pairs_counts_each_pair_from_its_sets(queries, relevant):
    # the per-query tables (built once for all runs) give, per pair of runs, what the
    # rankings' sets say directly: |a ∪ b|, the relevant documents of a ∪ b, and whether
    # the two look alike from each other's side (same length, same relevance at every rank,
    # a's k-th document at b's rank of b's k-th document in a)
    rankings = [[np.array(r, dtype=np.int64) for r in runs] for runs in queries]
    codes = [np.array(sorted(relevant), dtype=np.int64)] * len(queries)
    pairs = query_pairs(rankings, codes, "uniform")
    for k in range(pairs.x.size):
        runs = queries[int(pairs.query[k])]
        a, b = runs[int(pairs.x[k])], runs[int(pairs.y[k])]
        union = set(a) | set(b)
        assert pairs.batch.depth[k] == max(len(union), 1)
        assert pairs.total_relevant[k] == len(union & relevant)
        alike = len(a) == len(b) and all(
            (u in relevant) == (v in relevant)
            and (b.index(u) if u in b else None) == (a.index(v) if v in a else None)
            for u, v in zip(a, b, strict=True)
        )
        assert pairs.mirror[k] == alike


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=20, max_size=30, unique=True),
    st.lists(st.integers(0, 40), min_size=20, max_size=30, unique=True),
    st.sets(st.integers(0, 40), min_size=5),
    st.sampled_from(["team-draft", "balanced"]),
)
def test_longer_rankings_equal_the_reference(a, b, relevant, method):
    got = offline_interleaving_preference(a, b, relevant, method=method)
    assert got == pytest.approx(reference_preference(a, b, relevant, method=method), abs=1e-12)


def test_beyond_max_states_is_the_same_monte_carlo_estimate():
    a, b = list(range(12)), [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10]
    relevant = {0, 3, 4, 9}
    got = offline_interleaving_preference(a, b, relevant, max_states=1, samples=200, seed=5)
    want = reference_preference(a, b, relevant, max_states=1, samples=200, seed=5)
    assert got == want  # the same seeded estimate, bit for bit
    assert offline_interleaving_preference(a, b, relevant) == pytest.approx(
        reference_preference(a, b, relevant), abs=1e-12
    )


# --------------------------------------------------------------------------------------
# Quiet rounds skipped: the same values to the last bit

def _collection(seed: int, queries: int = 4, runs: int = 6, pool: int = 10_000):
    """Runs of unequal depth (0 to 150 documents, one query empty for every run, one run
    empty for one query) drawn from a large pool, so that most rounds are quiet; two runs
    alike (a tie) and one the mirror of another where the pool allows."""
    rng = np.random.default_rng(seed)
    rankings, relevant = [], []
    for q in range(queries):
        lengths = rng.integers(20, 151, size=runs) if q else np.zeros(runs, dtype=np.int64)
        runs_q = [rng.choice(pool, size=int(n), replace=False) for n in lengths]
        if q == 1:
            runs_q[2] = np.zeros(0, dtype=np.int64)
            runs_q[3] = runs_q[4].copy()  # a tie: I = 0
        if q == 2:
            common = rng.choice(runs_q[0], size=12, replace=False)  # shared documents
            runs_q[1][rng.choice(runs_q[1].size, size=12, replace=False)] = common
            runs_q[1] = np.array(list(dict.fromkeys(runs_q[1].tolist())), dtype=np.int64)
        rankings.append([r.astype(np.int64) for r in runs_q])
        relevant.append(rng.choice(pool, size=int(rng.integers(200, 700)), replace=False))
    return rankings, relevant


def _numpy(monkeypatch) -> None:
    """numpy's programme (`kernels._TeamDraft`, which parks pairs), the compiled one aside."""
    monkeypatch.setattr(kernels, "_offline", None)


def _round_by_round(monkeypatch) -> None:
    """Every round run by numpy's programme: no pair ever parked."""
    _numpy(monkeypatch)
    monkeypatch.setattr(kernels, "_constant", lambda base: False)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("max_states", [None, 50_000, 40])
def test_skipping_quiet_rounds_changes_no_bit(seed, max_states, monkeypatch):
    rankings, relevant = _collection(seed)
    pairs = query_pairs(rankings, relevant, "uniform")
    _numpy(monkeypatch)
    parked = []
    add = kernels._Parked.add
    monkeypatch.setattr(
        kernels._Parked, "add", lambda self, s, back: parked.append(back.size) or add(self, s, back)
    )
    fast = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=max_states)
    assert sum(parked) > pairs.x.size  # pairs were parked, many more than once
    _round_by_round(monkeypatch)
    slow = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=max_states)
    assert np.array_equal(fast, slow, equal_nan=True)  # bit for bit, NaN (given up) alike
    if max_states == 40:
        assert np.isnan(slow).any()  # the cap was reached by some pairs, the same ones


def test_skipping_quiet_rounds_changes_no_bit_when_shared_documents_abound(monkeypatch):
    # too many (document, pair) entries to list: every document two runs hold is loud
    rankings, relevant = _collection(5)
    pairs = query_pairs(rankings, relevant, "uniform")
    monkeypatch.setattr(kernels, "_SHARED", 0)
    _numpy(monkeypatch)
    fast = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=50_000)
    _round_by_round(monkeypatch)
    slow = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=50_000)
    assert np.array_equal(fast, slow, equal_nan=True)


def test_skipping_quiet_rounds_changes_no_bit_pair_by_pair(monkeypatch):
    # the one-pair batch (offline_interleaving_preference) and the matrix of one query
    rankings, relevant = _collection(4, queries=2, runs=5)
    runs, judged = rankings[1], set(relevant[1].tolist())
    _numpy(monkeypatch)
    fast = [offline_interleaving_preference(a, b, judged) for a in runs for b in runs]
    matrix = interleaving_matrix(runs, judged)
    _round_by_round(monkeypatch)
    assert fast == [offline_interleaving_preference(a, b, judged) for a in runs for b in runs]
    assert np.array_equal(matrix, interleaving_matrix(runs, judged))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, 300), max_size=60, unique=True), min_size=2, max_size=4
    ),
    st.sets(st.integers(0, 300), max_size=25),
)
def test_skipping_quiet_rounds_changes_no_bit_on_random_rankings(runs, relevant):
    rankings = [[np.array(r, dtype=np.int64) for r in runs]]
    codes = [np.array(sorted(relevant), dtype=np.int64)]
    pairs = query_pairs(rankings, codes, "uniform")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kernels, "_LOUD", 1.0)  # parking tried however many documents are shared
        _numpy(patch)
        fast = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=50_000)
    with pytest.MonkeyPatch.context() as patch:
        _round_by_round(patch)
        slow = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=50_000)
    assert np.array_equal(fast, slow, equal_nan=True)


# --------------------------------------------------------------------------------------
# Real runs

EHEALTH = DATA / "clef_ehealth2016"


@pytest.fixture(scope="module")
def ehealth_table():
    need(EHEALTH / "task2.qrels")
    from rankscope.judge import relevance_table
    from rankscope.read.sources import resolve_runs

    qrels = rankscope.read_qrels(EHEALTH / "task2.qrels")
    paths = sorted((EHEALTH / "runs").glob("*.txt.gz"))
    named = {p.name.removesuffix(".txt.gz"): str(p) for p in paths}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        return relevance_table(qrels, resolve_runs(named, qrels, "error"), keep_rankings=True)


@pytest.mark.parametrize("spec", ["OI", "OI(interleaving=balanced,browsing=dcg)"])
def test_ehealth_runs_equal_the_reference(ehealth_table, spec):
    table = ehealth_table
    result = rankscope.preferences(None, None, spec, table=table)
    options = {"method": "balanced", "browsing": "dcg"} if "balanced" in spec else {}
    # the reference takes about 4 ms a pair of 1,000-document rankings: two queries, 8 runs
    for q in (7, 30):
        rankings = table.rankings[q][::2]
        want = reference_matrix(rankings, table.judgments[q], **options)
        got = result.prefs[q][::2, ::2]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(np.sign(got), np.sign(want))


# --------------------------------------------------------------------------------------
# By name in every command

QRELS = {"q1": {"a": 1, "b": 1, "c": 0, "e": 1}, "q2": {"a": 2, "f": 1}}
RUNS = {
    "x": {"q1": ["a", "n", "b", "c"], "q2": ["c", "a", "n"]},
    "y": {"q1": ["n", "c", "a", "e"], "q2": ["a", "f"]},
    "z": {"q1": ["c", "n", "e"], "q2": ["n", "f", "c", "a"]},
}


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items())
    )
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, run in RUNS.items():
        lines = [
            f"{q} Q0 {d} {rank} {100 - rank} {name}\n"
            for q, docs in run.items()
            for rank, d in enumerate(docs, start=1)
        ]
        (folder / f"{name}.run").write_text("".join(lines))
    return str(qrels), str(folder)


def reference_prefs() -> np.ndarray:
    """P[q, a, b] by the original implementation, runs in the order x, y, z."""
    relevant = {q: {d for d, g in docs.items() if g >= 1} for q, docs in QRELS.items()}
    return np.array([reference_matrix([RUNS[r][q] for r in "xyz"], relevant[q]) for q in QRELS])


def test_prefer_cli(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(["prefer", "--format", "json", "-m", "OI", qrels, runs], capsys)
    assert code == 0, err
    (entry,) = json.loads(out)
    mean = reference_prefs().mean(axis=0)
    names = "xyz"
    for a in range(3):
        for b in range(3):
            got = entry["mean_preference"][names[a]][names[b]]
            assert got == pytest.approx(mean[a, b], abs=1e-12)


def test_eval_cli(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(["eval", "-q", "-m", "OI", qrels, runs], capsys)
    assert code == 0, err
    # eval gives each run's preference per query over the first run, x: P[q, a, x]
    win = reference_prefs()[:, :, 0]
    values = {}
    for line in out.splitlines():
        parts = line.split()  # run, query, "OI vs x", value
        if len(parts) == 6 and parts[1] in QRELS and parts[2:5] == ["OI", "vs", "x"]:
            values[(parts[0], parts[1])] = float(parts[5])
    for q, qid in enumerate(QRELS):
        for r, name in enumerate("xyz"):
            assert values[(name, qid)] == pytest.approx(win[q, r], abs=1e-4)


def test_compare_cli(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(["compare", "--format", "json", "-m", "OI", qrels, runs], capsys)
    assert code == 0, err
    rows = {row["run"]: row for row in json.loads(out) if row["measure"] == "OI"}
    # compare reports each run's mean preference over the baseline (the first run, x)
    over_x = reference_prefs()[:, :, 0].mean(axis=0)
    for r, name in enumerate("xyz"):
        assert rows[name]["mean"] == pytest.approx(over_x[r], abs=1e-12)


def test_meta_cli(files, capsys):
    qrels, runs = files
    code, out, err = run_cli(
        ["meta", "--format", "json", "--no-robustness", "-m", "OI", "-m", "AP", qrels, runs],
        capsys,
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["measures"] == ["OI", "AP"] and report["runs"] == ["x", "y", "z"]
    assert set(report["discriminative_power"]) == {"OI", "AP"}


def test_cli_bad_interleaving_is_a_usage_error(files, capsys):
    qrels, runs = files
    code, _, err = run_cli(["prefer", "-m", "OI(interleaving=nope)", qrels, runs], capsys)
    assert code == 2 and "\n" not in err.strip()



def _parked_states(pair, i, j, diff):
    size = len(pair)
    return kernels._States(
        np.array(pair), np.array(i), np.array(j), np.array(diff), np.full(size, 1 / size),
        np.array(i) + np.array(j), np.zeros(size, dtype=np.int64),
    )  # fmt: skip


def test_parked_states_come_back_as_a_merge_meanwhile_would_have_left_them():
    # numpy's programme (the fallback) parks pair 0's three states and pair 1's two in the
    # order they have, to come back at round 4; a merge at round 2 would have sorted every
    # state by (pair, i, j, difference); pair 2's two states are parked after that merge.
    parked = kernels._Parked(3)
    parked.add(_parked_states([0, 0, 0, 1, 1], [5, 3, 5, 4, 4], [6, 6, 2, 1, 1],
                              [0, 0, 0, 1, -1]), np.full(5, 4))  # fmt: skip
    parked.drift[:2] = 0.25
    parked.merges, parked.step = 1, 3
    parked.add(_parked_states([2, 2], [7, 6], [1, 1], [0, 0]), np.full(2, 4))
    parked.drift[2] = 0.5
    parked.step = 4
    live = _parked_states([1], [9], [9], [0]).take(np.zeros(0, dtype=np.int64))
    back = parked.release(live)
    # by hand: pair 2 as it left (no merge since), then pairs 0 and 1 sorted as the merge
    # would have sorted them: (3, 6, 0) (5, 2, 0) (5, 6, 0), then (4, 1, -1) (4, 1, 1)
    assert back.pair.tolist() == [2, 2, 0, 0, 0, 1, 1]
    assert back.i.tolist() == [7, 6, 3, 5, 5, 4, 4]
    assert back.j.tolist() == [1, 1, 6, 2, 6, 1, 1]
    assert back.diff.tolist() == [0, 0, 0, 0, 0, -1, 1]
    assert parked.count == 0 and not parked.drift.any()  # nothing left, nothing drifting
