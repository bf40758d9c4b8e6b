"""Sampled evaluation (rankscope.recsys.sampled): the draws, the ranks, and Krichene &
Rendle's corrected estimators, against hand computations and the hypergeometric law."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from rankscope import InputError, RankscopeWarning, UsageError, recsys
from rankscope.recsys.sampled import metric, parse_measure


def _solve2(a, b):
    """Cramer's rule for a 2 × 2 system in fractions."""
    det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
    return (
        (b[0] * a[1][1] - a[0][1] * b[1]) / det,
        (a[0][0] * b[1] - b[0] * a[1][0]) / det,
    )


# n = 3 candidates (target + 2 negatives), m = 1 drawn: r̃ = 1 when the drawn negative is
# below the target.  Full rank 1: both below; 2: one of two; 3: both above.
HAND_P = [[Fraction(1), Fraction(0)], [Fraction(1, 2), Fraction(1, 2)], [Fraction(0), Fraction(1)]]
MRR = [Fraction(1), Fraction(1, 2), Fraction(1, 3)]


def test_rank_distribution_by_hand_and_hypergeometric():
    assert np.array_equal(recsys.sampled_rank_distribution(3, 1), np.array(HAND_P, dtype=float))
    hypergeom = pytest.importorskip("scipy.stats").hypergeom
    assert recsys.sampled_rank_distribution(1, 0).tolist() == [[1.0]]  # the target alone
    for n, m in [(10, 3), (57, 20), (200, 199), (2, 1), (2, 0)]:
        table = recsys.sampled_rank_distribution(n, m)
        assert table.shape == (n, m + 1)
        for r in range(1, n + 1):
            # r - 1 of the n - 1 negatives are above the target; m are drawn
            expected = hypergeom(n - 1, r - 1, m).pmf(np.arange(m + 1))
            assert np.allclose(table[r - 1], expected, atol=1e-12)
    with pytest.raises(UsageError):
        recsys.sampled_rank_distribution(5, 5)


def test_sampled_auc_is_unbiased():
    # AUC is linear in the rank: E[sampled AUC | r] = AUC(r) exactly (the paper's §3)
    n, m = 40, 7
    table = recsys.sampled_rank_distribution(n, m)
    sampled = metric("AUC", None, np.arange(1, m + 2), m + 1)
    assert np.allclose(table @ sampled, metric("AUC", None, np.arange(1, n + 1), n))
    # so the minimal-bias correction of AUC is the sampled AUC itself
    assert np.allclose(recsys.corrected_metric("AUC", n, m, gamma=0.0), sampled, atol=1e-6)


def test_corrected_metric_by_hand():
    # the objective's normal equations, by hand, for MRR with n = 3, m = 1 (uniform prior)
    ptp = [[sum(HAND_P[r][i] * HAND_P[r][j] for r in range(3)) for j in range(2)] for i in range(2)]
    ptb = [sum(HAND_P[r][i] * MRR[r] for r in range(3)) for i in range(2)]
    reach = [sum(HAND_P[r][i] for r in range(3)) for i in range(2)]  # 3 · c
    for gamma in (Fraction(1, 2), Fraction(1), Fraction(1, 10)):
        lhs = [
            [(1 - gamma) * ptp[i][j] + (gamma * reach[i] if i == j else 0) for j in range(2)]
            for i in range(2)
        ]
        expected = _solve2(lhs, ptb)
        got = recsys.corrected_metric("MRR", 3, 1, gamma=float(gamma))
        assert np.allclose(got, [float(x) for x in expected], atol=1e-12), gamma
    # gamma = 1: the posterior mean of MRR given r̃ (uniform prior)
    assert np.allclose(recsys.corrected_metric("MRR", 3, 1, gamma=1.0), [5 / 6, 7 / 18])
    assert np.allclose(recsys.corrected_metric("MRR", 3, 1, gamma=0.5), [79 / 90, 31 / 90])
    # gamma = 0: unconstrained least squares gives (17/18, 5/18), below MRR's least value
    # 1/3; bounded to [1/3, 1], M̂(2) = 1/3 and M̂(1) minimises (x-1)² + (x/2 + 1/6 - 1/2)²
    assert np.allclose(recsys.corrected_metric("MRR", 3, 1, gamma=0.0), [14 / 15, 1 / 3])


@pytest.mark.parametrize("measure", ["HR@3", "nDCG@5", "MRR", "MRR@2", "AUC"])
@pytest.mark.parametrize("gamma", [0.0, 0.1, 1.0])
def test_every_negative_drawn_gives_the_full_metric(measure, gamma):
    n = 12
    name, k = parse_measure(measure)
    full = metric(name, k, np.arange(1, n + 1), n)
    assert np.allclose(recsys.corrected_metric(measure, n, n - 1, gamma=gamma), full, atol=1e-9)


def test_corrected_metric_checks():
    with pytest.raises(UsageError, match="gamma"):
        recsys.corrected_metric("MRR", 10, 3, gamma=1.5)
    with pytest.raises(UsageError, match="cutoff"):
        recsys.corrected_metric("HR", 10, 3)
    with pytest.raises(UsageError, match="unknown sampled measure"):
        recsys.corrected_metric("P@10", 10, 3)
    with pytest.raises(UsageError, match="prior"):
        recsys.corrected_metric("MRR", 10, 3, prior=np.ones(9))
    # a prior: the posterior mean weighs the full ranks by it
    prior = np.array([3.0, 1.0, 0.0])
    got = recsys.corrected_metric("MRR", 3, 1, gamma=1.0, prior=prior)
    # r̃ = 1: r = 1 (p 3/4 · 1) or r = 2 (1/4 · 1/2); r̃ = 2 only from r = 2 (r = 3 has p 0)
    assert np.allclose(got, [(3 * 1 + 0.5 * 0.5) / (3 + 0.5), 0.5])


# -- the draws and the ranks ---------------------------------------------------------------


def _tiny():
    """User u: trained on b, tested on a (5 stars, the target) and c (2 stars): negatives
    d, e, f.  Scores: b .9, c .8, d .7, f .6, a .5, e .1, so a's full rank is 3 of n = 4."""
    test = {"u": {"a": 5, "c": 2}}
    train = {"u": {"b": 4}}
    scores = (["u"], ["a", "b", "c", "d", "e", "f"], [[0.5, 0.9, 0.8, 0.7, 0.1, 0.6]])
    return test, train, scores


def test_hand_computed_ranks():
    test, train, scores = _tiny()
    (result,) = recsys.sampled_evaluate_systems(test, scores, train=train, negatives=3)
    assert (result.users, result.items) == (["u"], ["a"])
    assert result.candidates.tolist() == [4] and result.negatives.tolist() == [3]
    assert result.full_rank.tolist() == [3] and result.sampled_rank.tolist() == [3]
    # one negative drawn: rank 2 when it is d or f (2 of 3), 1 when it is e
    ranks = [
        recsys.sampled_evaluate_systems(test, scores, train=train, negatives=1, seed=s)[
            0
        ].sampled_rank[0]
        for s in range(300)
    ]
    assert set(ranks) == {1, 2}
    assert abs(np.mean(np.array(ranks) == 2) - 2 / 3) < 0.08
    # without the training log, b is a negative (above a): n = 5, full rank 4
    (result,) = recsys.sampled_evaluate_systems(test, scores, negatives=10)
    assert result.candidates.tolist() == [5] and result.full_rank.tolist() == [4]
    assert result.negatives.tolist() == [4] and result.sampled_rank.tolist() == [4]


def test_ties():
    test = {"u": {"a": 5}}
    scores = (["u"], ["a", "b", "c"], [[1.0, 1.0, 0.0]])
    pessimistic = recsys.sampled_evaluate_systems(test, scores, negatives=2)[0]
    optimistic = recsys.sampled_evaluate_systems(
        test, scores, negatives=2, tie_breaking="optimistic"
    )[0]
    assert pessimistic.full_rank.tolist() == [2] and optimistic.full_rank.tolist() == [1]


def _population(users=60, items=30, seed=1):
    """Random logs: each user trains on 8 items and tests on 4 (ratings 1-5)."""
    rng = np.random.default_rng(seed)
    ids = [f"i{j}" for j in range(items)]
    train, test = {}, {}
    for u in range(users):
        chosen = rng.choice(items, size=12, replace=False)
        train[f"u{u}"] = {ids[j]: int(rng.integers(1, 6)) for j in chosen[:8]}
        test[f"u{u}"] = {ids[j]: int(rng.integers(1, 6)) for j in chosen[8:]}
    return train, test, ids


def test_negatives_never_include_the_users_items():
    train, test, ids = _population()
    users = sorted(test)
    # the user's own items (train and test) score above every target, the targets above
    # every other item: any own item drawn would push the target's sampled rank above 1
    values = np.zeros((len(users), len(ids)))
    for i, u in enumerate(users):
        for item, rating in {**train[u], **test[u]}.items():
            values[i, ids.index(item)] = 10.0 if rating < 4 or item in train[u] else 5.0
    for sampling in ("uniform", "popularity"):
        (result,) = recsys.sampled_evaluate_systems(
            test, (users, ids, values), train=train, negatives=5, sampling=sampling, seed=3
        )
        assert len(result.full_rank) > 50
        assert (result.sampled_rank == 1).all() and (result.full_rank == 1).all()
        own = {u: len(set(train[u]) | set(test[u])) for u in users}
        assert result.candidates.tolist() == [len(ids) - own[u] + 1 for u in result.users]
        assert (result.negatives == 5).all()


def test_draws_are_seeded_and_shared_by_the_systems():
    train, test, ids = _population()
    users = sorted(test)
    rng = np.random.default_rng(7)
    a, b = rng.random((len(users), len(ids))), rng.random((len(users), len(ids)))
    systems = {"a": (users, ids, a), "b": (users, ids, b), "a again": (users, ids, a.copy())}

    def run(seed):
        return recsys.sampled_evaluate_systems(test, systems, train=train, negatives=4, seed=seed)

    first, second, other = run(11), run(11), run(12)
    for x, y in zip(first, second, strict=True):
        assert np.array_equal(x.sampled_rank, y.sampled_rank)
    assert not np.array_equal(first[0].sampled_rank, other[0].sampled_rank)
    assert np.array_equal(first[0].full_rank, other[0].full_rank)  # no sampling in r
    # the same negatives for every system: identical scores, identical sampled ranks
    assert np.array_equal(first[0].sampled_rank, first[2].sampled_rank)


def test_popularity_sampling_is_proportional():
    # Catalog: target t and negatives n1..n10, n_j used by j training users.  With one
    # negative drawn, the target's sampled rank is 2 exactly when the negative drawn scores
    # above it.  Users of group g score n_{g+1}..n_10 above t.
    negatives = [f"n{j}" for j in range(1, 11)]
    ids = ["t", *negatives]
    train = {f"trainer{k}": {f"n{j}": 3 for j in range(1, 11) if j > k} for k in range(10)}
    test, rows, groups = {}, [], []
    for g in range(1, 10):
        for copy in range(250):
            user = f"g{g}-{copy}"
            test[user] = {"t": 5}
            rows.append([float(g) + 0.5] + [float(j) for j in range(1, 11)])
            groups.append(g)
    users = list(test)
    matrix = (users, ids, np.array(rows))
    weight = np.arange(1, 11, dtype=float)
    for sampling in ("popularity", "uniform"):
        (result,) = recsys.sampled_evaluate_systems(
            test, matrix, train=train, negatives=1, sampling=sampling, seed=0
        )
        group_of = dict(zip(users, groups, strict=True))
        above = np.array([group_of[u] for u in result.users])
        for g in range(1, 10):
            observed = float((result.sampled_rank[above == g] == 2).mean())
            proportional = weight[g:].sum() / weight.sum()
            uniform = (10 - g) / 10
            expected = proportional if sampling == "popularity" else uniform
            # 250 draws per group: standard error <= 0.032; tolerance 0.1
            assert abs(observed - expected) < 0.1, (sampling, g, observed, expected)
        # the two laws differ by more than the tolerance where the groups tell them apart
        if sampling == "uniform":
            g = 5
            assert abs((result.sampled_rank[above == g] == 2).mean() - weight[g:].sum() / 55) > 0.1


def test_end_to_end():
    train, test, ids = _population(users=40, items=25)
    users = sorted(test)
    rng = np.random.default_rng(5)
    values = rng.random((len(users), len(ids)))
    table = recsys.sampled_evaluate(
        test, {"x": (users, ids, values)}, ["HR@3", "MRR", "AUC"], train=train, negatives=6,
        output="dict", seed=2,
    )  # fmt: skip
    assert table["run"] == ["x"] * 12
    assert table["estimator"] == ["full", "sampled", "minimal-bias", "bv"] * 3
    (result,) = recsys.sampled_evaluate_systems(test, (users, ids, values), train=train,
                                                negatives=6, seed=2)  # fmt: skip
    # the full values from the full ranks computed here by hand: the number of the user's
    # negatives scoring at least the target's score
    by_hand = []
    for user, item in zip(result.users, result.items, strict=True):
        i = users.index(user)
        own = set(train[user]) | set(test[user])
        negatives = [values[i, j] for j, it in enumerate(ids) if it not in own]
        by_hand.append(1 + sum(s >= values[i, ids.index(item)] for s in negatives))
        assert test[user][item] >= 4
    assert result.full_rank.tolist() == by_hand
    assert len(by_hand) == table["targets"][0]
    assert math.isclose(table["value"][0], np.mean(np.array(by_hand) <= 3))
    assert math.isclose(table["value"][4], np.mean(1 / np.array(by_hand)))
    # sampled: HR@3 of the sampled ranks; the corrections use the same sampled ranks
    assert math.isclose(table["value"][1], np.mean(result.sampled_rank <= 3))
    assert table["value"] == recsys.sampled_evaluate(
        test, {"x": (users, ids, values)}, ["HR@3", "MRR", "AUC"], train=train, negatives=6,
        output="dict", seed=2,
    )["value"]  # fmt: skip
    # enough negatives to draw all: every estimator gives the full value
    table = recsys.sampled_evaluate(test, (users, ids, values), ["nDCG@5", "MRR"], train=train,
                                    negatives=100, output="dict")  # fmt: skip
    keys = zip(table["measure"], table["estimator"], strict=True)
    values_by = dict(zip(keys, table["value"], strict=True))
    for measure in ("nDCG@5", "MRR"):
        for estimator in ("sampled", "minimal-bias", "bv"):
            assert math.isclose(values_by[measure, estimator], values_by[measure, "full"],
                                abs_tol=1e-9)  # fmt: skip


def test_inputs_checked():
    test, train, scores = _tiny()
    with pytest.raises(UsageError, match="negatives"):
        recsys.sampled_evaluate(test, scores, negatives=0)
    with pytest.raises(UsageError, match="needs the training"):
        recsys.sampled_evaluate(test, scores, sampling="popularity")
    with pytest.raises(UsageError, match="sampling"):
        recsys.sampled_evaluate(test, scores, sampling="pop100")
    with pytest.raises(UsageError, match="estimator"):
        recsys.sampled_evaluate(test, scores, estimators=["corrected"])
    with pytest.raises(UsageError, match="seed"):
        recsys.sampled_evaluate(test, scores, seed=-1)
    with pytest.raises(InputError, match="NaN"):
        recsys.sampled_evaluate(test, (["u"], ["a", "b"], [[0.1, float("nan")]]))
    with pytest.raises(InputError, match="2 users"):
        recsys.sampled_evaluate(test, (["u", "v"], ["a", "b"], [[0.1, 0.2]]))
    with pytest.raises(InputError, match="two rows"):
        recsys.sampled_evaluate(test, (["u"], ["a", "a"], [[0.1, 0.2]]))
    with pytest.raises(UsageError, match="same catalog"):
        recsys.sampled_evaluate(
            test, {"x": scores, "y": (["u"], ["a", "b"], [[0.1, 0.2]])}, train=train
        )
    with pytest.raises(UsageError, match="ScoreMatrix"):
        recsys.sampled_evaluate(test, [[0.1]])
    with pytest.raises(InputError, match="no relevant test item"):
        recsys.sampled_evaluate({"u": {"a": 1}}, scores)


def test_unscored_users_and_items_warned():
    test = {"u": {"a": 5, "z": 5}, "v": {"a": 4}}
    scores = (["u"], ["a", "b", "c"], [[0.3, 0.2, 0.1]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (result,) = recsys.sampled_evaluate_systems(test, scores, negatives=2)
    messages = [str(w.message) for w in caught if issubclass(w.category, RankscopeWarning)]
    assert any("not scored by the systems (such as 'z')" in m for m in messages)
    assert any("1 test users" in m and "'v'" in m for m in messages)
    assert (result.users, result.items, result.full_rank.tolist()) == (["u"], ["a"], [1])


def test_docstring_examples():
    import doctest

    from rankscope.recsys import sampled

    assert doctest.testmod(sampled).failed == 0


# -- the command line ----------------------------------------------------------------------


def test_the_command_matches_a_hand_computation(tmp_path, capsys):
    from rankscope.cli import main

    (tmp_path / "test.tsv").write_text("u\ta\t5\nv\tb\t2\n")  # v has no relevant item
    # u's target a scores 0.9; b (1.0) is above it, c and d below: every negative drawn
    # (3 of them), so the sampled rank is the full rank, 2: HR@1 0, HR@2 1, MRR 1/2
    (tmp_path / "sys.txt").write_text("u a 0.9\nu b 1.0\nu c 0.1\nu d 0.2\nv a 1\nv b 0\n")
    code = main([
        "sampled", str(tmp_path / "test.tsv"), str(tmp_path / "sys.txt"), "--negatives", "3",
        "-m", "HR@1", "-m", "HR@2", "-m", "MRR", "--estimator", "full",
        "--estimator", "sampled", "--format", "csv",
    ])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    assert out.splitlines() == [
        "run,measure,full,sampled,targets",
        "sys,HR@1,0.0,0.0,1",  # CSV at full precision, as every command writes it
        "sys,HR@2,1.0,1.0,1",
        "sys,MRR,0.5,0.5,1",
    ]
    # v's pairs c and d are not scored: they rank below everything, and are said so
    assert "2 of the 8 (user, item) scores" in err


def test_an_unscored_target_ranks_last_and_a_bad_line_is_named(tmp_path, capsys):
    from rankscope.cli import main

    (tmp_path / "test.tsv").write_text("u\tc\t5\n")
    (tmp_path / "sys.txt").write_text("u a 0.9\nu b 1.0\nw c 1\n")
    assert main(["sampled", str(tmp_path / "test.tsv"), str(tmp_path / "sys.txt"),
                 "-m", "HR@2", "--estimator", "full", "--format", "csv"]) == 0  # fmt: skip
    out, _ = capsys.readouterr()
    assert out.splitlines()[1] == "sys,HR@2,0.0,1"  # c below a and b: rank 3
    (tmp_path / "sys.txt").write_text("u a 0.9\nu b high\n")
    assert main(["sampled", str(tmp_path / "test.tsv"), str(tmp_path / "sys.txt")]) == 2
    assert f"{tmp_path / 'sys.txt'}:2" in capsys.readouterr().err


def test_the_commands_choices_are_the_modules():
    from rankscope.cli import sampled as command
    from rankscope.recsys import sampled as module

    assert command.ESTIMATORS == module.ESTIMATORS and command.SAMPLING == module.SAMPLING


# -- the fit of many candidate counts at once, and the column-wise reading -----------------


def _straightforward_fit(measure, n, m, gamma):
    """The paper's objective solved directly (the implementation before issue 22): P(s | r)
    from scipy's hypergeometric law, A = P / √n, b = M / √n (uniform prior), bounded
    least squares on the n × (m + 1) system for γ = 0, the normal equations otherwise."""
    from scipy.optimize import lsq_linear
    from scipy.stats import hypergeom

    name, k = parse_measure(measure)
    table = hypergeom.pmf(np.arange(m + 1)[None, :], n - 1, np.arange(n)[:, None], m)
    target = metric(name, k, np.arange(1, n + 1), n)
    a, b = table / math.sqrt(n), target / math.sqrt(n)
    if gamma == 0.0:
        bounds = (target.min(), target.max())
        return lsq_linear(a, b, bounds=bounds, method="bvls").x, table, target
    lhs = (1 - gamma) * a.T @ a + gamma * np.diag(table.mean(axis=0))
    return np.linalg.solve(lhs, a.T @ b), table, target


def test_corrections_of_many_counts_match_the_straightforward_fit():
    # the counts of a log fitted together, each bounded fit starting from the active set of
    # the count before: the same corrections as each fitted alone from the paper's formula
    m, counts = 40, [161, 163, 170, 171, 230]
    ranks = np.arange(1, m + 2)
    result = recsys.SampledResult(
        "x", ["u"] * len(counts) * (m + 1), ["i"] * len(counts) * (m + 1),
        np.repeat(counts, m + 1), np.full(len(counts) * (m + 1), m),
        np.ones(len(counts) * (m + 1), dtype=np.int64), np.tile(ranks, len(counts)), 0.1,
    )  # fmt: skip
    for measure in ("HR@10", "nDCG@10", "MRR", "AUC"):
        bias = result.values(measure, "minimal-bias").reshape(len(counts), m + 1)
        bv = result.values(measure, "bv").reshape(len(counts), m + 1)
        for at, n in enumerate(counts):
            expected, table, target = _straightforward_fit(measure, n, m, 0.0)
            assert np.allclose(bv[at], _straightforward_fit(measure, n, m, 0.1)[0],
                               rtol=0, atol=1e-12), (measure, n)  # fmt: skip
            if measure in ("HR@10", "nDCG@10"):
                assert np.allclose(bias[at], expected, rtol=0, atol=1e-12), (measure, n)
                continue
            # AUC's sampled value is unbiased already (its columns fit M exactly), and MRR's
            # columns are as nearly dependent: the bounded fit has many minimisers, as good
            # as each other to BVLS's tolerance (it stops when the cost stops falling)
            assert target.min() <= bias[at].min() and bias[at].max() <= target.max()
            error = np.mean((table @ bias[at] - target) ** 2)
            best = np.mean((table @ expected - target) ** 2)
            assert error <= best * (1 + 1e-9) + 1e-15, (measure, n, error, best)


def test_column_wise_reading_gives_what_line_by_line_reading_does(tmp_path, monkeypatch):
    from rankscope.read import delimited

    texts = [
        "u\ta\t0.5\nu\tb\t1\nv\ta\t-2e3\n", "u a 0.5\nu b 1\n", "u,a,0.5\nv,b,1", "u;a;0,5\n",
        "user\titem\tscore\nu\ta\t1\nu\tb\t2\n", "item,user,rank\na,u,1\nb,u,2\n",
        "u\ta\nu\tb\nv\tc\n", "u\ta\t1\r\nu\tb\t2\r\n", "# c\nu\ta\t1\n", "u\ta\t1\n\nu\tb\t2\n",
        "u\ta\t1\nu\tb\n", "u a 1\nu b\n", "u  a 1\n", "u\ta\tnan\n", "u\ta\t1\nu\tb\thigh\n",
        "é\tà\t1\nü\tb\t2\n", "u\ta\t1\t\n", "\tu\ta\t1\n", "u\ta\u00a01\n", 'u,"a",1\n',
        "u a 1 x\nu b 2 y\n", "user\titem\n",
    ]  # fmt: skip
    for at, text in enumerate(texts):
        path = tmp_path / f"r{at}.txt"
        path.write_text(text, encoding="utf-8", newline="")
        outcomes = []
        for table in (delimited.table, lambda data, is_header, source: None):
            monkeypatch.setattr(delimited, "table", table)
            try:
                run = recsys.read_recommendations(str(path))
            except InputError as error:
                outcomes.append(str(error))
            else:
                outcomes.append([run.queries.strings_of(run.query), run.docs.strings_of(run.doc),
                                 run.score.tolist(), run.line.tolist()])  # fmt: skip
        assert outcomes[0] == outcomes[1], text
    monkeypatch.undo()
    # and the column-wise reading is the one taken for a plain file
    assert delimited.columns(b"u\ta\t1\nv\tb\t2\n", lambda first, second: False) == (
        None, [["u", "v"], ["a", "b"], ["1", "2"]], 1,
    )  # fmt: skip


def _growing_profiles(users, items, seed):
    """User j trained on the first j + 1 items and tested on the last: as many candidate
    counts as users; random scores."""
    ids = [f"i{j}" for j in range(items)]
    names = [f"u{j}" for j in range(users)]
    train = {user: {item: 3 for item in ids[: j + 1]} for j, user in enumerate(names)}
    test = {user: {ids[-1]: 5} for user in names}
    return train, test, names, ids, np.random.default_rng(seed).random((users, items))


def test_progress_counts_the_candidate_counts_fitted():
    train, test, users, ids, values = _growing_profiles(5, 20, seed=7)
    calls = []
    (result,) = recsys.sampled_evaluate_systems(test, (users, ids, values), train=train,
                                                negatives=6)  # fmt: skip
    recsys.sampled_evaluate(test, (users, ids, values), ["MRR"], train=train, negatives=6,
                            progress=lambda done, total: calls.append((done, total)))  # fmt: skip
    counts = {(int(n), int(m)) for n, m in zip(result.candidates, result.negatives, strict=True)}
    assert len(counts) == 5
    assert calls == [(done, len(counts)) for done in range(1, len(counts) + 1)]


def test_the_command_draws_progress_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    import io
    import sys

    pytest.importorskip("tqdm")
    from rankscope.cli import main

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    (tmp_path / "test.tsv").write_text("u\ta\t5\nv\tb\t4\n")
    (tmp_path / "sys.txt").write_text("u a 0.9\nu b 1.0\nu c 0.1\nv a 1\nv b 0\nv c 2\n")
    command = ["sampled", str(tmp_path / "test.tsv"), str(tmp_path / "sys.txt"), "-m", "MRR"]
    assert main(command) == 0  # pytest captures stderr: not a terminal, no bar
    assert "fitting" not in capsys.readouterr().err
    for quiet in (False, True):
        terminal = Tty()
        monkeypatch.setattr(sys, "stderr", terminal)
        assert main(command + ["--quiet"] * quiet) == 0
        drawn = terminal.getvalue()
        assert ("reading the scores" in drawn and "fitting the corrections" in drawn) != quiet


def test_the_corrections_are_fitted_with_blas_on_one_thread():
    # the API runs as the command does, whatever the threads numpy's BLAS started with
    from threadpoolctl import threadpool_info

    train, test, users, ids, values = _growing_profiles(3, 30, seed=3)
    threads = []
    recsys.sampled_evaluate(
        test, (users, ids, values), ["nDCG@5"], train=train, negatives=10,
        progress=lambda done, total: threads.extend(
            i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"
        ),
    )  # fmt: skip
    assert threads and set(threads) == {1}
