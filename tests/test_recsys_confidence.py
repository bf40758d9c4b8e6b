"""Confidence: Brier, LogLoss, ECE, CoverageAccuracy and the curves `reliability` and
`coverage_accuracy`, by hand, against scikit-learn, and on MovieLens 100K (u1) with a
probability predictor built here."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from rankscope import RankscopeWarning, UsageError, evaluate_recsys_systems
from rankscope.recsys import coverage_accuracy, reliability
from rankscope.recsys.confidence import coverage_accuracy_curve
from tests.conftest import DATA, need

# relevant (rating >= 4): u a, c; v b.  Predictions for u a .9, b .2 (c none); v b .7, d .4;
# u's prediction for e is not in the test log (no outcome, not counted)
TEST = {"u": {"a": 5, "b": 2, "c": 4}, "v": {"b": 5, "d": 1}}
PREDS = {"u": {"a": 0.9, "b": 0.2, "e": 0.99}, "v": {"b": 0.7, "d": 0.4}}
MEASURES = ["Brier", "LogLoss", "ECE", "CoverageAccuracy", "ECE(bins=2)"]


def summary(measures=MEASURES, preds=PREDS, test=TEST, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (result,) = evaluate_recsys_systems(test, preds, measures, **options)
    return result


def test_by_hand():
    r = summary()
    # (p, y): (.9, 1), (.2, 0), (.7, 1), (.4, 0)
    # Brier: u (.01 + .04) / 2 = .025, v (.09 + .16) / 2 = .125; pooled .3 / 4 = .075
    assert r.summary["Brier"] == pytest.approx(0.075)
    assert r.per_user("Brier") == pytest.approx({"u": 0.025, "v": 0.125})
    assert r.counts["Brier"] == 4
    # LogLoss: −(ln .9 + ln .8 + ln .7 + ln .6) / 4
    assert r.summary["LogLoss"] == pytest.approx(-math.log(0.9 * 0.8 * 0.7 * 0.6) / 4)
    # ECE, 10 bins: one prediction per bin, gaps .1, .2, .3, .4: (1/4)(1.0) = .25
    assert r.summary["ECE"] == pytest.approx(0.25)
    # 2 bins: [0, .5] holds .2, .4 (mean .3, outcome 0): gap .3; (.5, 1] .9, .7 (mean .8,
    # outcome 1): gap .2; (2·.3 + 2·.2) / 4 = .25
    assert r.summary["ECE(bins=2)"] == pytest.approx(0.25)
    # every prediction right (>= .5 iff relevant): area 1
    assert r.summary["CoverageAccuracy"] == 1.0
    assert r.per_user("ECE") == {}


def test_constant_half():
    # always 0.5: Brier .25 and log loss ln 2 whatever the outcomes
    preds = {"u": {"a": 0.5, "b": 0.5, "c": 0.5}, "v": {"b": 0.5, "d": 0.5}}
    r = summary(["Brier", "LogLoss"], preds=preds)
    assert r.summary["Brier"] == pytest.approx(0.25)
    assert r.summary["LogLoss"] == pytest.approx(math.log(2))


def test_perfect_calibration_gives_zero_ece():
    # 10 predictions of .3 with 3 relevant, 4 of .75 with 3 relevant: each bin's mean
    # prediction equals its frequency of relevant items
    test = {f"u{n}": {"x": 5 if n < 3 else 1} for n in range(10)}
    test.update({f"w{n}": {"x": 5 if n < 3 else 1} for n in range(4)})
    preds = {u: {"x": 0.3 if u.startswith("u") else 0.75} for u in test}
    r = summary(["ECE", "ECE(bins=3)", "Brier"], preds=preds, test=test)
    assert r.summary["ECE"] == pytest.approx(0.0, abs=1e-15)
    assert r.summary["ECE(bins=3)"] == pytest.approx(0.0, abs=1e-15)
    # and a miscalibrated twin (.3 said as .5) is not
    preds_off = {u: {"x": 0.5 if u.startswith("u") else 0.75} for u in test}
    off = summary(["ECE"], preds=preds_off, test=test)
    assert off.summary["ECE"] == pytest.approx(10 / 14 * 0.2)


def test_log_loss_clips():
    # certain and wrong: ln(1/ε) for ε = 1e-15 (default) and 1e-3
    test = {"u": {"a": 1}}
    r = summary(["LogLoss", "LogLoss(epsilon=0.001)"], preds={"u": {"a": 1.0}}, test=test)
    assert r.summary["LogLoss"] == pytest.approx(-math.log(1e-15), rel=1e-6)
    assert r.summary["LogLoss(epsilon=0.001)"] == pytest.approx(-math.log(1e-3))


def test_ece_target_rating():
    # predicted ratings against test ratings: predictions 1, 2, 4, 5 -> 2 bins over [1, 5]
    # ([1, 3]: 1, 2 with ratings 2, 2 (gap |1.5 - 2| = .5); (3, 5]: 4, 5 with 5, 1 (|4.5 - 3|
    # = 1.5)): (2·.5 + 2·1.5) / 4 = 1
    test = {"u": {"a": 2, "b": 2, "c": 5, "d": 1}}
    preds = {"u": {"a": 1, "b": 2, "c": 4, "d": 5}}
    r = summary(["ECE(target=rating,bins=2)", "Brier"], preds=preds, test=test)
    assert r.summary["ECE(bins=2,target=rating)"] == pytest.approx(1.0)
    # ratings are not probabilities: Brier has no value, with a warning
    assert math.isnan(r.summary["Brier"])
    message = r"3 of 4 predictions .* not probabilities in \[0, 1\], e.g. 2.0 \("
    with pytest.warns(RankscopeWarning, match=message):
        evaluate_recsys_systems(test, preds, ["Brier"])
    with pytest.raises(UsageError, match="not probabilities"):
        reliability(test, preds)
    with pytest.raises(UsageError, match="ECE\\(target=rating\\) needs ratings"):
        evaluate_recsys_systems({"u": ["a"]}, preds, ["ECE(target=rating)"])


def test_coverage_accuracy_by_hand():
    # p (y): .95 (1) right, .9 (0) wrong, .7 (1) right, .7 (1) right, .55 (0) wrong;
    # confidence .9, .8, .4, .4, .1: accuracy 1, 1/2, 2/3, 3/4, 3/5
    test = {"u": {"a": 5, "b": 1, "c": 5, "d": 5, "e": 1}}
    preds = {"u": {"a": 0.95, "b": 0.9, "c": 0.7, "d": 0.7, "e": 0.55}}
    r = summary(["CoverageAccuracy"], preds=preds, test=test)
    assert r.summary["CoverageAccuracy"] == pytest.approx((1 + 1 / 2 + 2 / 3 + 3 / 4 + 3 / 5) / 5)
    curve = coverage_accuracy(test, preds, output="dict")
    assert curve["covered"] == [1, 2, 4, 5]  # c and d equally confident: one point
    assert curve["accuracy"] == pytest.approx([1, 1 / 2, 3 / 4, 3 / 5])
    assert curve["coverage"] == pytest.approx([0.2, 0.4, 0.8, 1.0])
    assert curve["confidence"] == pytest.approx([0.9, 0.8, 0.4, 0.1])


def test_coverage_accuracy_ties_are_the_mean_over_orders():
    # equally confident predictions: the area is the mean over every order of them
    rng = np.random.default_rng(3)
    p = np.array([0.9, 0.1, 0.9, 0.1, 0.7, 0.3, 0.7])
    y = rng.integers(0, 2, len(p)).astype(float)
    right = ((p >= 0.5) == (y == 1)).astype(float)
    conf = np.abs(p - 0.5) * 2
    blocks = [np.flatnonzero(conf == c) for c in sorted(set(conf), reverse=True)]
    areas = []
    for orders in itertools.product(*(itertools.permutations(b) for b in blocks)):
        seq = right[np.concatenate(orders)]
        areas.append(np.mean(np.cumsum(seq) / np.arange(1, len(seq) + 1)))
    assert coverage_accuracy_curve(p, y).area == pytest.approx(np.mean(areas))


def test_against_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(7)
    n = 400
    p = rng.uniform(0.001, 0.999, n).round(3)  # 0 and 1 left out: the clipping ε differs
    y = (rng.uniform(0, 1, n) < p**1.5).astype(int)  # miscalibrated on purpose
    test = {f"u{i % 40}": {} for i in range(n)}
    preds = {u: {} for u in test}
    for i in range(n):
        test[f"u{i % 40}"][f"i{i}"] = 5 if y[i] else 1
        preds[f"u{i % 40}"][f"i{i}"] = float(p[i])
    r = summary(["Brier", "LogLoss", "ECE"], preds=preds, test=test)
    assert r.summary["Brier"] == pytest.approx(metrics.brier_score_loss(y, p), rel=1e-12)
    assert r.summary["LogLoss"] == pytest.approx(metrics.log_loss(y, p), rel=1e-9)
    table = reliability(test, preds, output="dict")
    prob_true, prob_pred = calibration.calibration_curve(y, p, n_bins=10, strategy="uniform")
    filled = [i for i, c in enumerate(table["count"]) if c]
    assert [table["observed"][i] for i in filled] == pytest.approx(prob_true, rel=1e-12)
    assert [table["mean_predicted"][i] for i in filled] == pytest.approx(prob_pred, rel=1e-12)
    # ECE from the bins, counted here (bins (b/10, (b+1)/10], the first closed)
    which = np.maximum(np.ceil(p * 10).astype(int) - 1, 0)
    ece = sum(
        (which == b).sum() / n * abs(p[which == b].mean() - y[which == b].mean())
        for b in range(10)
        if (which == b).any()
    )
    assert r.summary["ECE"] == pytest.approx(ece, rel=1e-12)
    assert table["lower"][:2] == pytest.approx([0.0, 0.1]) and table["upper"][-1] == 1.0


def test_movielens_item_rate_predictor():
    # p(u, i) = (relevant training ratings of i + 1) / (training ratings of i + 2), a real
    # (if plain) probability of rating >= 4, predicted for every u1.test pair
    folder = need(DATA / "movielens-100k")
    base = np.loadtxt(need(folder / "u1.base"), dtype=np.int64)
    test = np.loadtxt(need(folder / "u1.test"), dtype=np.int64)
    n_items = int(max(base[:, 1].max(), test[:, 1].max())) + 1
    rated = np.bincount(base[:, 1], minlength=n_items)
    liked = np.bincount(base[:, 1], weights=base[:, 2] >= 4, minlength=n_items)
    rate = (liked + 1) / (rated + 2)
    p = rate[test[:, 1]]
    y = (test[:, 2] >= 4).astype(float)
    preds = {}
    for (u, i), prob in zip(test[:, :2].tolist(), p.tolist(), strict=True):
        preds.setdefault(str(u), {})[str(i)] = prob
    names = ["Brier", "LogLoss", "ECE", "CoverageAccuracy"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (r,) = evaluate_recsys_systems(str(folder / "u1.test"), preds, names)
    s = r.summary
    assert r.counts["Brier"] == len(test) == 20000
    assert s["Brier"] == pytest.approx(np.mean((p - y) ** 2), rel=1e-12)
    logloss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert s["LogLoss"] == pytest.approx(logloss, rel=1e-12)
    edges = np.linspace(0, 1, 11)
    which = np.searchsorted(edges[1:-1], p, side="left")
    ece = sum(
        (which == b).mean() * abs(p[which == b].mean() - y[which == b].mean())
        for b in range(10)
        if (which == b).any()
    )
    assert s["ECE"] == pytest.approx(ece, rel=1e-12)
    # plausible: better than always 0.5 (Brier .25, log loss ln 2), fairly calibrated (the
    # test users rate higher than chance on average), most confident predictions more
    # accurate than all of them
    assert 0.15 < s["Brier"] < 0.25 and s["LogLoss"] < math.log(2)
    assert s["ECE"] < 0.1
    right = ((p >= 0.5) == (y == 1)).mean()
    assert right < s["CoverageAccuracy"] < 1


# -- rankscope recsys --table ---------------------------------------------------------------


def test_the_tables_from_the_command_line(tmp_path, capsys):
    from rankscope.cli import main

    # four test ratings (relevant: >= 4) and their predicted probabilities
    (tmp_path / "test.tsv").write_text("u\ta\t5\nu\tb\t1\nv\ta\t4\nv\tc\t2\n")
    (tmp_path / "p.tsv").write_text("u a 0.9\nu b 0.3\nv a 0.6\nv c 0.8\n")
    args = ["recsys", str(tmp_path / "test.tsv"), str(tmp_path / "p.tsv"), "--format", "csv"]
    assert main([*args, "--table", "reliability", "--bins", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    # bin [0, 0.5]: 0.3 (not relevant); bin (0.5, 1]: 0.6, 0.8, 0.9 (two of three relevant)
    assert out[0] == "run,bin,lower,upper,count,mean_predicted,observed"
    row0, row1 = (line.split(",") for line in out[1:3])
    assert row0[1:5] == ["0", "0.0", "0.5", "1"] and float(row0[5]) == 0.3
    assert float(row0[6]) == 0.0
    assert row1[4] == "3" and abs(float(row1[5]) - (0.6 + 0.8 + 0.9) / 3) < 1e-12
    assert abs(float(row1[6]) - 2 / 3) < 1e-12
    assert main([*args, "--table", "coverage-accuracy"]) == 0
    out = capsys.readouterr().out.splitlines()
    # most confident first: 0.9 (|0.9 - 0.5| * 2 = 0.8, right), then 0.3 and 0.8 (0.4 and
    # 0.6: 0.8 says relevant, c is not: wrong), then 0.6
    first = out[1].split(",")
    assert first[1] == "1" and float(first[4]) == 1.0
    assert main([*args, "--table", "reliability", "--groups", "g.txt"]) == 2
    assert "--groups goes with --table group-exposure" in capsys.readouterr().err
    assert main([*args, "--bins", "3"]) == 2
    assert "--bins goes with --table" in capsys.readouterr().err
