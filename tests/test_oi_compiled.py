"""The compiled team-draft programme (src/rankscope/interleaving/_offline.c) against numpy's
(`rankscope.interleaving.kernels._TeamDraft`), bit for bit: on seeded collections with
ties, empty queries, runs of unequal depth and shared documents, in every variant `prefer`
offers (team draft and balanced, uniform and DCG browsing, a grade level; truncated lists
through the API), through the kernel, `interleaving_matrix` and `preferences`.  Skipped
when the module is not built (rankscope then runs numpy's programme)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankscope
from rankscope.interleaving import interleaving_matrix, kernels, offline_interleaving_preference
from rankscope.interleaving.kernels import query_pairs

pytestmark = pytest.mark.skipif(
    kernels.compiled() is None,
    reason="rankscope.interleaving._offline is not built (or RANKSCOPE_PURE_PYTHON is set)",
)


def _both(monkeypatch, compute):
    """``compute()`` with the compiled programme, then with numpy's."""
    compiled = compute()
    with monkeypatch.context() as patch:
        patch.setattr(kernels, "_offline", None)
        assert kernels.compiled() is None
        numpy = compute()
    return compiled, numpy


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def _collection(seed: int, runs: int, queries: int, pool: int, longest: int, share: float):
    """Seeded rankings of unequal depth (some empty; the first query all empty), drawn from
    a pool of ``pool`` documents per query, two identical runs in the second query (a tie),
    about ``share`` of the pool relevant."""
    rng = np.random.default_rng(seed)
    rankings, relevant = [], []
    for q in range(queries):
        lengths = rng.integers(0, longest + 1, size=runs) if q else np.zeros(runs, dtype=int)
        runs_q = [
            rng.choice(pool, size=min(int(n), pool), replace=False).astype(np.int64) + q * pool
            for n in lengths
        ]
        if q == 1 and runs > 2:
            runs_q[-1] = runs_q[0].copy()
        rankings.append(runs_q)
        chosen = np.flatnonzero(rng.random(pool) < share).astype(np.int64) + q * pool
        relevant.append(chosen)
    return rankings, relevant


SHAPES = [
    # runs, queries, pool, longest, relevant share: documents shared by many runs (many
    # collisions, states split and merged) ... few shared (quiet rounds, which numpy parks)
    (6, 4, 25, 25, 0.3),
    (5, 3, 60, 40, 0.15),
    (9, 5, 8_000, 120, 0.01),
    (4, 2, 300, 80, 0.05),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("browsing", ["uniform", "dcg"])
@pytest.mark.parametrize("truncate", [False, True])
@pytest.mark.parametrize("max_states", [None, 60])
def test_compiled_programme_equals_numpy_bit_for_bit(
    seed, shape, browsing, truncate, max_states, monkeypatch
):
    rankings, relevant = _collection(seed, *shape)
    pairs = query_pairs(rankings, relevant, browsing)
    compiled, numpy = _both(
        monkeypatch,
        lambda: kernels.team_draft_values(
            pairs.batch, pairs.total_relevant, truncate=truncate, max_states=max_states
        ),
    )
    assert _same_bits(compiled, numpy)  # NaN (beyond max_states) alike


def test_the_collections_reach_what_they_are_for(monkeypatch):
    # splits merged, pairs given up, quiet pairs parked by numpy: the paths compared above
    merges, parked = [], []
    merge, add = kernels._TeamDraft.merge, kernels._Parked.add
    monkeypatch.setattr(
        kernels._TeamDraft, "merge", lambda self, s: merges.append(s.pair.size) or merge(self, s)
    )
    monkeypatch.setattr(
        kernels._Parked, "add", lambda self, s, back: parked.append(back.size) or add(self, s, back)
    )
    monkeypatch.setattr(kernels, "_offline", None)
    nan = 0
    for shape in SHAPES:
        pairs = query_pairs(*_collection(0, *shape), "uniform")
        values = kernels.team_draft_values(pairs.batch, pairs.total_relevant, max_states=60)
        nan += int(np.isnan(values).sum())
        assert np.any(pairs.mirror)  # the identical runs: a tie
    assert merges and parked and nan


def test_a_pair_alone_and_no_pair(monkeypatch):
    # the one-pair batch of offline_interleaving_preference, and a batch without pairs
    a, b = ["x", "r", "s", "y"], ["x", "n", "r", "z"]
    for method in ("team-draft", "balanced"):
        for options in ({}, {"truncate": True}, {"browsing": "dcg"}):
            compiled, numpy = _both(
                monkeypatch,
                lambda m=method, o=options: offline_interleaving_preference(
                    a, b, {"r", "z"}, method=m, **o
                ),
            )
            assert _same_bits(compiled, numpy)
    pairs = query_pairs([], [], "uniform")
    assert kernels.team_draft_values(pairs.batch, pairs.total_relevant).size == 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 40), max_size=30, unique=True), min_size=2, max_size=5),
    st.sets(st.integers(0, 40), max_size=15),
    st.sampled_from(["team-draft", "balanced"]),
    st.sampled_from(["uniform", "dcg"]),
    st.booleans(),
)
def test_every_variant_of_the_matrix_is_numpys(runs, relevant, method, browsing, truncate):
    with pytest.MonkeyPatch.context() as patch:
        compiled, numpy = _both(
            patch,
            lambda: interleaving_matrix(
                runs, relevant, method=method, browsing=browsing, truncate=truncate
            ),
        )
    assert _same_bits(compiled, numpy)


@pytest.mark.parametrize(
    "spec",
    ["OI", "OI(browsing=dcg)", "OI(rel=2)", "OI(interleaving=balanced)",
     "OI(interleaving=balanced,browsing=dcg)"],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")  # runs ranking nothing
def test_preferences_are_numpys(spec, monkeypatch, tmp_path):
    rankings, relevant = _collection(3, 5, 4, 200, 60, 0.08)
    qrels = tmp_path / "qrels"
    qrels.write_text(
        "".join(
            f"q{q} 0 d{d} {1 + d % 2}\n" for q, docs in enumerate(relevant) for d in docs.tolist()
        )
        + "q0 0 d0 0\n"
    )
    paths = []
    for r in range(len(rankings[0])):
        path = tmp_path / f"run{r}"
        path.write_text(
            "".join(
                f"q{q} Q0 d{d} {k + 1} {1000 - k} run{r}\n"
                for q, runs in enumerate(rankings)
                for k, d in enumerate(runs[r].tolist())
            )
        )
        paths.append(path)
    compiled, numpy = _both(
        monkeypatch, lambda: rankscope.preferences(qrels, paths, spec).prefs
    )
    assert _same_bits(compiled, numpy)


def test_pairwise_sum_is_numpys():
    # merged states' probabilities: the first plus numpy's pairwise sum of the others, as
    # np.add.reduceat sums a group (sequential under 8, eight accumulators to 128, halves)
    module = kernels.compiled()
    rng = np.random.default_rng(7)
    for n in [*range(1, 40), 127, 128, 129, 255, 256, 300, 1_000]:
        values = rng.random(n) * 10.0 ** rng.integers(-12, 3, size=n)
        expected = np.add.reduceat(values, [0])[0]
        assert _same_bits(values[0] + module.pairwise_sum(values[1:]), expected)
