"""Meta-evaluation: rank correlations, discriminative power, robustness (independent values)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats

import rankscope
from rankscope.errors import UsageError
from rankscope.stats import meta as meta_module
from rankscope.stats.meta import (
    discriminative_power,
    discriminative_powers,
    kendall_tau,
    kendall_taus,
    pair_indices,
    paired_t_pvalues,
    tau_ap,
)
from rankscope.stats.multiple import (
    preference_tukey_pvalues,
    randomized_tukey_hsd,
    randomized_tukey_pvalues,
)
from rankscope.stats.procedures import named
from rankscope.table.study import MeasureData, drop_judgments, measure_data, retrieved_by, study
from tests.conftest import run_cli


@pytest.mark.parametrize("seed", range(5))
def test_kendall_tau_b_matches_scipy_with_ties(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 4, 15).astype(float), rng.integers(0, 4, 15).astype(float)
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_tau_ap_weighs_errors_at_the_top():
    reference = [4, 3, 2, 1]  # A > B > C > D
    top_swap = [3, 4, 2, 1]  # B, A, C, D
    bottom_swap = [4, 3, 1, 2]  # A, B, D, C
    # top swap: C(2) = 0/1, C(3) = 2/2, C(4) = 3/3 -> 2/3 * 2 - 1 = 1/3
    assert tau_ap(top_swap, reference) == pytest.approx(1 / 3)
    # bottom swap: 1/1 + 2/2 + 2/3 -> 2/3 * 8/3 - 1 = 7/9
    assert tau_ap(bottom_swap, reference) == pytest.approx(7 / 9)
    # Kendall's tau cannot tell them apart: (5 - 1) / 6 for both
    assert kendall_tau(top_swap, reference) == pytest.approx(2 / 3)
    assert kendall_tau(bottom_swap, reference) == pytest.approx(2 / 3)
    assert tau_ap(reference, reference) == 1.0 and tau_ap(reference[::-1], reference) == -1.0


def test_paired_t_pvalues_match_scipy():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.3, 0.1, (6, 20)), rng.normal(0.32, 0.1, (6, 20))
    expected = [stats.ttest_rel(x, y).pvalue for x, y in zip(a, b, strict=True)]
    assert paired_t_pvalues(a - b) == pytest.approx(expected, abs=1e-12)


def _exact_preference_pvalues(prefs):
    """Enumerate every relabelling of the systems on every query."""
    q, n, _ = prefs.shape
    observed = np.abs(prefs.mean(axis=0))
    maxima = []
    for perms in itertools.product(itertools.permutations(range(n)), repeat=q):
        permuted = np.array([prefs[k][np.ix_(p, p)] for k, p in enumerate(perms)])
        maxima.append(permuted.mean(axis=0).max())
    maxima = np.array(maxima)
    return (maxima[None, None, :] >= observed[:, :, None] - 1e-12).mean(axis=2)


def test_preference_tukey_against_exact_enumeration():
    prefs = np.zeros((3, 3, 3))
    prefs[:, 0, 1], prefs[:, 0, 2], prefs[:, 1, 2] = [1, 0.5, 1], [1, 1, 0.5], [0.5, -0.5, 0]
    prefs = prefs - prefs.transpose(0, 2, 1)
    exact = _exact_preference_pvalues(prefs)  # (3!)^3 = 216 relabellings
    b = 100_000
    mc = preference_tukey_pvalues(prefs, permutations=b, seed=1)
    se = np.sqrt(exact * (1 - exact) / b) + 1 / b
    assert np.all(np.abs(mc - exact) <= 4 * se + 2 / b), (mc, exact)
    again = preference_tukey_pvalues(prefs, permutations=2000, seed=7)
    assert np.array_equal(again, preference_tukey_pvalues(prefs, permutations=2000, seed=7))


def _tukey_by_relabelling(prefs, permutations, seed, chunk=256):
    """The randomized Tukey HSD as rankscope computed it before issue 24 (one method, the
    permuted tensor indexed by query and relabelled systems, its mean over the queries):
    the same seeded draws, so the same p-values expected to the last bit."""
    q, n, _ = prefs.shape
    rng = np.random.default_rng(seed)
    observed = np.abs(prefs.mean(axis=0))
    maxima = np.empty(permutations)
    rows = np.arange(q)[None, :, None, None]
    chunk = max(1, min(chunk, (1 << 23) // (q * n * n)))
    for start in range(0, permutations, chunk):
        b = min(chunk, permutations - start)
        sigma = np.argsort(rng.random((b, q, n)), axis=2)
        permuted = prefs[rows, sigma[:, :, :, None], sigma[:, :, None, :]]
        maxima[start : start + b] = permuted.mean(axis=1).max(axis=(1, 2))
    tolerance = 1e-9 * float(np.abs(prefs).mean())
    count = (maxima[None, None, :] >= observed[:, :, None] - tolerance).sum(axis=2)
    return (count + 1) / (permutations + 1)


@pytest.mark.parametrize("antisymmetric", [True, False])
def test_preference_tukey_half_the_pairs_only_for_antisymmetric_preferences(antisymmetric):
    """An antisymmetric tensor is tested on the pairs above the diagonal (its relabelled
    sums are antisymmetric), any other on every cell; both give the p-values of the
    relabelling, bit for bit, alone and stacked with the other kind."""
    rng = np.random.default_rng(21)
    prefs = rng.choice([-1.0, -0.5, 0.0, 1 / 3, 0.5, 1.0], size=(12, 6, 6))
    if antisymmetric:
        prefs = prefs - prefs.transpose(0, 2, 1)
    else:  # one preference of a pair is not the other's negation
        prefs[3, 1, 2], prefs[3, 2, 1] = 0.5, 0.25
    expected = _tukey_by_relabelling(prefs, 500, 9)
    assert np.array_equal(preference_tukey_pvalues(prefs, permutations=500, seed=9), expected)
    other = rng.choice([-1.0, 0.0, 1.0], size=(12, 6, 6))
    other = other - other.transpose(0, 2, 1)
    stacked = preference_tukey_pvalues(np.stack([other, prefs]), permutations=500, seed=9)
    assert np.array_equal(stacked[1], expected)
    assert np.array_equal(stacked[0], _tukey_by_relabelling(other, 500, 9))


def test_preference_tukey_counts_nan_as_the_comparisons_did():
    """A NaN preference makes every relabelled maximum NaN (a sum with it) and its pair's
    observed mean NaN: no maximum reaches any threshold, and the p-values are those of
    the relabelling's comparisons (1 / (B + 1)), as is a tensor whose maxima are finite."""
    rng = np.random.default_rng(4)
    prefs = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=(9, 5, 5))
    prefs = prefs - prefs.transpose(0, 2, 1)
    for tensor in (prefs, np.where(np.arange(5)[None, :, None] == 2, np.nan, prefs)):
        got = preference_tukey_pvalues(tensor, permutations=300, seed=2)
        assert np.array_equal(got, _tukey_by_relabelling(tensor, 300, 2))
    assert np.all(got == 1 / 301)


@pytest.mark.parametrize(("queries", "systems", "permutations"), [(7, 4, 300), (40, 9, 700)])
def test_preference_tukey_of_a_stack_is_each_method_as_before(queries, systems, permutations):
    """Methods stacked share the permutations: each method's p-values are those of the
    relabelling it was computed by alone, bit for bit (ties included: coarse values)."""
    rng = np.random.default_rng(queries)
    stack = rng.choice([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0], size=(3, queries, systems, systems))
    stack = (stack - stack.transpose(0, 1, 3, 2)) / 2
    got = preference_tukey_pvalues(stack, permutations=permutations, seed=3)
    assert got.shape == (3, systems, systems)
    for k in range(3):
        expected = _tukey_by_relabelling(stack[k], permutations, 3)
        assert np.array_equal(got[k], expected), k
        alone = preference_tukey_pvalues(stack[k], permutations=permutations, seed=3)
        assert np.array_equal(alone, expected), k
    # one seed-driven draw for all: the powers of the stack are those measure by measure
    scores = rng.random((systems, queries))
    datas = [stack[0], scores, stack[1][:, :-1, :-1], stack[2]]
    for test in ("t-bonferroni", "randomized-tukey"):
        powers = discriminative_powers(datas, test=test, permutations=permutations, seed=3)
        assert powers == [
            discriminative_power(d, test=test, permutations=permutations, seed=3) for d in datas
        ]
    # the methods as the slices of the one tensor they were computed in (tested without a
    # copy), in another order, or some of them: the powers of each alone
    alone = {
        k: discriminative_power(stack[k], test="randomized-tukey", permutations=permutations,
                                seed=3)
        for k in range(3)
    }  # fmt: skip
    last = np.moveaxis(np.ascontiguousarray(np.moveaxis(stack, 0, -1)), -1, 0)  # methods last
    for order in ([0, 1, 2], [2, 1, 0], [0, 1], [1, 2]):
        for tensor in (stack, last):
            datas = [tensor[k] for k in order]
            powers = discriminative_powers(
                datas, test="randomized-tukey", permutations=permutations, seed=3
            )
            assert powers == [alone[k] for k in order], order
    expected = _tukey_by_relabelling(stack[1], permutations, 3)[np.triu_indices(systems, 1)]
    power = discriminative_power(stack[1], test="randomized-tukey", permutations=permutations,
                                 seed=3)  # fmt: skip
    assert power == float((expected < 0.05).mean())


def test_randomized_tukey_of_a_stack_of_metrics_is_each_metric_alone():
    """Metrics over the same runs and queries share the permutations of the randomized Tukey
    HSD: each metric's p-values, bit for bit, are those of `randomized_tukey_hsd` on it
    alone with the same seed (coarse values with ties, a constant query, a tied pair of
    runs), and so are the discriminative powers, stacked with matrices of another shape
    and a preference tensor."""
    rng = np.random.default_rng(8)
    effect = np.linspace(0.0, 0.3, 9)[:, None]
    stack = np.stack([rng.random((9, 40)) * 0.6 + effect for _ in range(3)])
    stack[1] = np.round(stack[1], 1)
    stack[2][:, 7] = 0.5
    stack[2][4] = stack[2][5]
    got = randomized_tukey_pvalues(stack, permutations=700, seed=4)
    assert got.shape == (3, 36)
    for k in range(3):
        alone = randomized_tukey_hsd(stack[k], permutations=700, seed=4).p_value
        assert np.array_equal(got[k], alone), k
    assert 0 < (got < 0.05).mean() < 1  # pairs found different and pairs not
    prefs = rng.choice([-1.0, 0.0, 1.0], size=(40, 9, 9))
    prefs = prefs - prefs.transpose(0, 2, 1)
    datas = [stack[0], stack[1][:6], prefs, stack[2], stack[1]]
    powers = discriminative_powers(datas, test="randomized-tukey", permutations=700, seed=4)
    assert powers == [
        discriminative_power(d, test="randomized-tukey", permutations=700, seed=4) for d in datas
    ]


def test_discriminative_power_extremes():
    queries = np.linspace(0.1, 0.9, 30)
    far = np.stack([queries, queries + 0.5, queries + 1.0])  # every pair differs on every query
    same = np.stack([queries, queries, queries])
    for test in ("t-bonferroni", "randomized-tukey"):
        assert discriminative_power(far, test=test, permutations=500) == 1.0
        assert discriminative_power(same, test=test, permutations=500) == 0.0
    with pytest.raises(ValueError, match="unknown test"):
        discriminative_power(far, test="z")


def _tiny():
    qrels = rankscope.read_qrels(
        {f"q{i}": {"a": 1, "b": 1, "c": 0, "d": 1, "e": 0} for i in range(6)}
    )
    runs = {
        "good": {f"q{i}": {"a": 5, "b": 4, "d": 3, "c": 2, "e": 1} for i in range(6)},
        "fair": {f"q{i}": {"c": 5, "a": 4, "b": 3, "e": 2, "d": 1} for i in range(6)},
        "poor": {f"q{i}": {"c": 5, "e": 4, "x": 3, "a": 2} for i in range(6)},
    }
    from rankscope.read.sources import resolve_runs

    return qrels, resolve_runs(runs, qrels, "error")


def test_drop_judgments_keeps_the_quota_and_the_pool():
    qrels, runs = _tiny()
    kept = drop_judgments(qrels, runs, 0.4, policy="uniform", rng=np.random.default_rng(0))
    # 5 judgments per query, 40 % -> 2 per query
    assert len(kept) == 12
    pooled = drop_judgments(qrels, runs, 0.4, policy="pool")
    # a, c and e are retrieved by all three runs, b and d by two: two of a, c, e per query
    docs = {qrels.docs.strings[d] for d in pooled.doc.tolist()}
    assert len(pooled) == 12 and docs <= {"a", "c", "e"}


def test_retrieved_by_counts_the_runs_once_for_every_pool():
    """a, c, e are retrieved by the three runs, b and d by two (poor lacks them); the
    counts given to `drop_judgments` keep what it would count itself."""
    qrels, runs = _tiny()
    counts = retrieved_by(qrels, runs)
    by_doc = {"a": 3, "b": 2, "c": 3, "d": 2, "e": 3}
    assert counts.tolist() == [by_doc[qrels.docs.strings[d]] for d in qrels.doc.tolist()]
    assert retrieved_by(qrels, runs[2:]).tolist() == [
        0 if qrels.docs.strings[d] in ("b", "d") else 1 for d in qrels.doc.tolist()
    ]
    for keep in (0.2, 0.4, 0.8):
        alone = drop_judgments(qrels, runs, keep, policy="pool", rng=np.random.default_rng(4))
        given = drop_judgments(
            qrels, runs, keep, policy="pool", rng=np.random.default_rng(4), retrieved=counts
        )
        assert alone.doc.tolist() == given.doc.tolist()
        assert alone.query.tolist() == given.query.tolist()


def test_study_and_meta_command(capsys):
    qrels, runs = _tiny()
    result = study(qrels, runs, ["AP", "RPP"], permutations=200, samples=2)
    assert result.measures == ["AP", "RPP"]
    assert np.allclose(np.diag(result.tau), 1.0)
    # both measures order good > fair > poor
    assert result.tau[0, 1] == pytest.approx(1.0)
    assert set(result.power) == {"AP", "RPP"}
    assert all(0 <= v <= 1 for p in result.power.values() for v in p.values())
    assert result.query_curves and result.judgment_curves
    from rankscope.examples import example_paths

    qpath, rpaths = example_paths()
    args = ["meta", str(qpath), *map(str, rpaths), "--measures", "AP", "RPP"]
    code, out, err = run_cli([*args, "--permutations", "200", "--samples", "2"], capsys)
    assert code == 0, err
    assert "Kendall's tau" in out and "Discriminative power" in out
    code, out, err = run_cli([*args, "--permutations", "200", "--format", "json"], capsys)
    report = json.loads(out)
    assert report["measures"] == ["AP", "RPP"]
    assert report["kendall_tau"][0][0] == 1.0 and not math.isnan(report["kendall_tau"][0][1])


def test_preference_scores_on_some_queries_are_those_of_their_preferences_alone():
    """A preference method's scores on a subset of the queries (the query curves) come from
    the orders of the runs on every query, computed once: the scores of a measure holding
    only those queries' preferences (ties of win rates included), NaN on no query."""
    rng = np.random.default_rng(6)
    prefs = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=(30, 7, 7))
    prefs = (prefs - prefs.transpose(0, 2, 1)) / 2
    ids = [f"q{q}" for q in range(30)]
    data = MeasureData("RPP", True, prefs, ids)
    for subset in ([0], [3, 4, 5], list(range(0, 30, 2)), list(range(30)), []):
        queries = np.array(subset, dtype=np.int64)
        alone = MeasureData("RPP", True, prefs[queries], [ids[q] for q in subset])
        assert np.array_equal(data.scores(queries), alone.scores(), equal_nan=True), subset
    assert np.array_equal(data.scores(), MeasureData("RPP", True, prefs, ids).scores())


def test_study_powers_beside_the_curves_are_those_computed_alone():
    """With the robustness curves, the metrics' discriminative powers are computed on a
    second thread while the curves are drawn: the same numbers as `discriminative_powers`
    on the measures' data (the metrics one by one, the preference methods together), and as
    the study without the curves, in the measures' order; progress counts every step once."""
    from rankscope.examples import example_paths

    qpath, rpaths = example_paths()
    qrels = rankscope.read_qrels(qpath)
    runs = [rankscope.read_run(p) for p in rpaths]
    measures = ["RPP", "AP", "invRPP", "nDCG@10"]  # metrics and preference methods mixed
    steps = []
    result = study(
        qrels, runs, measures, permutations=300, samples=2, seed=4,
        progress=lambda done, total: steps.append((done, total)),
    )  # fmt: skip
    alone = study(qrels, runs, measures, permutations=300, seed=4, robustness=False)
    assert result.power == alone.power
    assert list(result.power) == list(alone.power) == measures
    datas = measure_data(qrels, runs, measures)
    for test in ("t-bonferroni", "randomized-tukey"):
        metrics = discriminative_powers([datas[1].data, datas[3].data], test=test,
                                        permutations=300, seed=4)  # fmt: skip
        prefs = discriminative_powers([datas[0].data, datas[2].data], test=test,
                                      permutations=300, seed=4)  # fmt: skip
        assert [result.power[m][test] for m in ("AP", "nDCG@10", "RPP", "invRPP")] == [
            *metrics, *prefs
        ]
    total = steps[-1][1]
    assert [done for done, _ in steps] == list(range(1, total + 1))
    assert total == 1 + 2 * len(measures) + 5 * 2 + 5


def test_study_raises_the_powers_error_before_drawing_curves(tmp_path):
    """One query: the paired test's error, as when the powers came before the curves
    (whose sampling of queries would fail otherwise)."""
    (tmp_path / "q").write_text("q1 0 a 1\nq1 0 b 0\n")
    (tmp_path / "r1").write_text("q1 Q0 a 1 2 r1\nq1 Q0 b 2 1 r1\n")
    (tmp_path / "r2").write_text("q1 Q0 b 1 2 r2\nq1 Q0 a 2 1 r2\n")
    qrels = rankscope.read_qrels(tmp_path / "q")
    runs = [rankscope.read_run(tmp_path / name) for name in ("r1", "r2")]
    with pytest.raises(UsageError, match="at least 2 queries, got 1"):
        study(qrels, runs, ["AP", "RPP"], permutations=50, samples=2)


def test_meta_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from rankscope.examples import example_paths

    qpath, rpaths = example_paths()
    image = tmp_path / "robustness.png"
    args = ["meta", str(qpath), *map(str, rpaths), "--measures", "AP", "RPP"]
    code, _, err = run_cli(
        [*args, "--permutations", "100", "--samples", "2", "--plot", str(image)], capsys
    )
    assert code == 0, err
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("block", [1, 100, 1 << 18])  # a column, 2 columns, all at once
def test_kendall_taus_are_each_columns_kendall_tau(monkeypatch, block):
    """Column by column, the τ_b of `kendall_tau` bit for bit (ties, constant columns: NaN),
    whatever the columns compared at a time, and by hand: (1, 2, 3) against (1, 3, 2) has 2
    concordant pairs and 1 discordant, τ = 1/3."""
    monkeypatch.setattr(meta_module, "TAU_BLOCK_CELLS", block)
    rng = np.random.default_rng(4)
    x = rng.integers(0, 4, size=(9, 40)).astype(np.float64)
    y = rng.integers(0, 3, size=(9, 40)).astype(np.float64)
    x[:, 3] = 1.0  # every pair tied: undefined
    got = kendall_taus(x, y)
    for k in range(x.shape[1]):
        expected = kendall_tau(x[:, k], y[:, k])
        assert (np.isnan(got[k]) and np.isnan(expected)) or got[k] == expected
    assert np.isnan(got[3])
    assert kendall_taus(np.array([[1.0], [2.0], [3.0]]), np.array([[1.0], [3.0], [2.0]]))[0] == (
        pytest.approx(1 / 3)
    )


@pytest.mark.parametrize("block", [1, 2, 3, 512])
@pytest.mark.parametrize("preference", [False, True])
def test_discriminative_power_t_test_in_blocks_of_pairs(monkeypatch, block, preference):
    """The paired t-test of every pair, run a block of pairs at a time (`PAIRS_BLOCK`), gives
    the p-values of all pairs at once bit for bit (a preference tensor in the study's
    layout, methods last, and a metric's matrix), and scipy's ttest_rel's; the Bonferroni
    correction counts every pair, not a block's."""
    monkeypatch.setattr(meta_module, "PAIRS_BLOCK", block)
    rng = np.random.default_rng(11)
    systems, queries = 9, 23
    if preference:
        full = np.zeros((queries, systems, systems, 3))
        for k in range(3):
            upper = np.triu(rng.normal(0, 0.4, (queries, systems, systems)), 1)
            full[..., k] = upper - upper.transpose(0, 2, 1)
        data = np.moveaxis(full, -1, 0)[1]
    else:
        data = rng.normal(0.3, 0.1, (systems, queries))
    i, j = pair_indices(systems)
    diffs = data[:, i, j].T if preference else data[i] - data[j]
    whole = paired_t_pvalues(np.asarray(diffs))
    got = meta_module._paired_pvalues(named("t"), data, i, j, 10, 0)
    assert got.tobytes() == whole.tobytes()
    if preference:  # the preference of a over b against its preference of 0 over itself
        zero = np.zeros(queries)
        expected = [stats.ttest_rel(data[:, a, b], zero).pvalue for a, b in zip(i, j, strict=True)]
    else:
        expected = [stats.ttest_rel(data[a], data[b]).pvalue for a, b in zip(i, j, strict=True)]
    assert got == pytest.approx(expected, abs=1e-12)
    significant = np.minimum(np.asarray(expected) * len(i), 1.0) < 0.05
    power = discriminative_power(data, test="t-bonferroni")
    assert power == pytest.approx(significant.mean())
