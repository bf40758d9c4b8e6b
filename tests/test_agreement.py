"""Assessor agreement: the statistics (`rankscope.stats.agreement`) on hand-computed cases,
their properties and three independent implementations; the labels reader; the facade
(`rankscope.agreement`: per-query agreement, labels to qrels); ``rankscope agree``."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import warnings

import numpy as np
import pytest

from rankscope import agreement as facade
from rankscope.errors import InputError, RankscopeWarning, UsageError
from rankscope.stats.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from tests.conftest import run_cli

nan = math.nan

# -- hand-computed cases -----------------------------------------------------------------------


def test_cohen_two_by_two():
    # 50 items: both "yes" 20, A yes / B no 5, A no / B yes 10, both "no" 15.
    # p_o = 35/50 = 0.7; A says yes 25/50, B 30/50: p_e = 0.5·0.6 + 0.5·0.4 = 0.5;
    # κ = (0.7 − 0.5) / (1 − 0.5) = 0.4.
    a = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert percent_agreement(np.column_stack([a, b])) == pytest.approx(0.7)
    # labels as strings: the same table
    yes_no = {1: "yes", 0: "no"}
    assert cohen_kappa([yes_no[x] for x in a], [yes_no[x] for x in b]) == pytest.approx(0.4)


def test_weighted_kappa_by_hand():
    # grades 0..2; a = 1 0 2, b = 1 1 2: one disagreement (0 vs 1) out of 3.
    # marginals a: 1/3 each; b: 0 → 0, 1 → 2/3, 2 → 1/3.
    # linear: Σ w O = 1/3 · 1; Σ w E = 1/3 (2/3·1 + 1/3·2) + 1/3 (1/3·1) + 1/3 (2/3·1) = 7/9
    #   κ = 1 − (1/3)/(7/9) = 4/7
    # quadratic: Σ w E = 1/3 (2/3 + 1/3·4) + 1/9 + 2/9 = 1; κ = 1 − 1/3 = 2/3
    # unweighted: p_o = 2/3, p_e = 1/3·2/3 + 1/3·1/3 = 1/3; κ = (2/3 − 1/3)/(2/3) = 1/2
    a, b = [1, 0, 2], [1, 1, 2]
    assert cohen_kappa(a, b, "linear") == pytest.approx(4 / 7)
    assert cohen_kappa(a, b, "quadratic") == pytest.approx(2 / 3)
    assert cohen_kappa(a, b) == pytest.approx(1 / 2)
    # the scale given: grade 3 unused moves nothing for unweighted kappa, but 0..3 vs 0..2
    # keeps positions here (3 is last), so the weighted values are unchanged too
    assert cohen_kappa(a, b, "linear", categories=[0, 1, 2, 3]) == pytest.approx(4 / 7)
    # string grades on an ordinal scale given in its order
    low, mid, high = "low", "mid", "high"
    assert cohen_kappa(
        [mid, low, high], [mid, mid, high], "linear", categories=[low, mid, high]
    ) == pytest.approx(4 / 7)


# Fleiss (1971)'s example as worked on Wikipedia ("Fleiss' kappa"): 10 items, 14 raters each,
# 5 categories; row i: how many raters put item i in each category.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]  # fmt: skip


def _labels_of_counts(table):
    """items × raters: each row's categories repeated as often as its counts say."""
    return np.asarray(
        [[c for c, n in enumerate(row) for _ in range(n)] for row in table], dtype=float
    )


def test_fleiss_worked_example():
    # P_1 = (14² − 14)/(14·13) = 1; P_2 = (4+36+16+4 − 14)/182 = 46/182 = 0.253; ...
    # P̄ = Σ P_i / 10 = 0.378; p_j = (20, 28, 39, 21, 32)/140: P̄_e = 0.2128;
    # κ = (0.3780 − 0.2128)/(1 − 0.2128) = 0.2099
    labels = _labels_of_counts(FLEISS_TABLE)
    counts = np.asarray(FLEISS_TABLE, dtype=float)
    p_bar = ((counts**2).sum(axis=1) - 14).sum() / (10 * 14 * 13)
    p_e = ((counts.sum(axis=0) / 140) ** 2).sum()
    assert p_bar == pytest.approx(0.378, abs=5e-4) and p_e == pytest.approx(0.213, abs=5e-4)
    assert fleiss_kappa(labels) == pytest.approx((p_bar - p_e) / (1 - p_e))
    assert fleiss_kappa(labels) == pytest.approx(0.210, abs=5e-4)
    assert percent_agreement(labels) == pytest.approx(p_bar)
    # the raters are not identified: shuffling each item's labels changes nothing
    rng = np.random.default_rng(3)
    shuffled = np.array([rng.permutation(row) for row in labels])
    assert fleiss_kappa(shuffled) == pytest.approx(fleiss_kappa(labels))


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers
# × 12 units, values 1..5, missing values (None).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_worked_example():
    # Units 1..11 are pairable (unit 12 has one value).  The coincidence matrix o_ck (each
    # unit's ordered pairs weighted 1/(m_u − 1)) has, off the diagonal,
    #   o_12 = o_21 = 4/3, o_13 = o_31 = 1/3, o_14 = o_41 = 1/3, o_23 = o_32 = 4/3,
    #   o_24 = o_42 = 1/3, o_34 = o_43 = 1/3: Σ_{c≠k} o_ck = 8,
    # and marginals n_c = 9, 13, 10, 5, 3 (n = 40): Σ_{c≠k} n_c n_k = 40² − (81 + 169 +
    # 100 + 25 + 9) = 1216.  α_nominal = 1 − (n − 1) · 8 / 1216 = 1 − 312/1216 = 0.743.
    units = np.asarray(KRIPPENDORFF_2011, dtype=object).T  # units × observers
    assert krippendorff_alpha(units) == pytest.approx(1 - 39 * 8 / 1216)
    assert krippendorff_alpha(units) == pytest.approx(0.743, abs=5e-4)
    # the paper's other levels (its section C lists .815, .849, .797)
    assert krippendorff_alpha(units, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert krippendorff_alpha(units, "interval") == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha(units, "ratio") == pytest.approx(0.797, abs=5e-4)
    # NaN for a missing value reads as None
    as_float = np.asarray([[nan if v is None else v for v in row] for row in units])
    assert krippendorff_alpha(as_float) == krippendorff_alpha(units)


def test_two_assessors_small_by_hand():
    # items [1,1], [0,1], [0,0], [1,-]: the last is not pairable.  Coincidences: o_11 = 2,
    # o_00 = 2, o_01 = o_10 = 1; n_0 = n_1 = 3, n = 6; α = 1 − 5·2/(2·3·3) = 4/9.
    labels = [[1, 1], [0, 1], [0, 0], [1, None]]
    assert krippendorff_alpha(labels) == pytest.approx(4 / 9)
    assert percent_agreement(labels) == pytest.approx(2 / 3)
    with pytest.raises(UsageError, match="item 3 has 1"):
        fleiss_kappa(labels)


# -- degenerate cases and properties --------------------------------------------------------------


def test_perfect_agreement_is_one():
    labels = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [1, 1, 1]])
    assert cohen_kappa(labels[:, 0], labels[:, 1]) == 1.0
    for weights in ("linear", "quadratic"):
        assert cohen_kappa(labels[:, 0], labels[:, 1], weights) == 1.0
    assert fleiss_kappa(labels) == pytest.approx(1.0)
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert krippendorff_alpha(labels, level) == pytest.approx(1.0)
    assert percent_agreement(labels) == 1.0


def test_one_category_is_undefined():
    same = np.ones((5, 3))
    assert math.isnan(cohen_kappa(same[:, 0], same[:, 1]))
    assert math.isnan(fleiss_kappa(same))
    assert math.isnan(krippendorff_alpha(same))
    assert percent_agreement(same) == 1.0


def test_nothing_to_compare_is_an_error():
    with pytest.raises(UsageError, match="no item has 2 labels"):
        krippendorff_alpha([[1, None], [None, 2]])
    with pytest.raises(UsageError, match="no item has 2 labels"):
        percent_agreement([[1, None], [None, 2]])
    with pytest.raises(UsageError, match="labelled by both"):
        cohen_kappa([1, None], [None, 2])
    with pytest.raises(UsageError, match="at least 2 labels"):
        fleiss_kappa([[1], [2]])
    with pytest.raises(UsageError, match="different numbers of items"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(UsageError, match="unknown weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(UsageError, match="unknown level"):
        krippendorff_alpha([[1, 2]], level="metric")
    with pytest.raises(UsageError, match="not among the categories"):
        cohen_kappa([1, 2], [1, 3], categories=[1, 2])
    with pytest.raises(UsageError, match="needs numeric labels"):
        krippendorff_alpha([["a", "b"], ["a", "a"]], level="interval")


def test_cohen_leaves_out_items_one_assessor_did_not_label():
    a, b = [1, 0, 1, None, 2], [1, 0, 0, 2, nan]
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa([1, 0, 1], [1, 0, 0]))


def test_permutations_and_renaming_change_nothing():
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 4, size=(30, 4)).astype(float)
    labels[rng.random(labels.shape) < 0.2] = nan
    items, assessors = rng.permutation(30), rng.permutation(4)
    shuffled = labels[items][:, assessors]
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha(shuffled, level) == pytest.approx(
            krippendorff_alpha(labels, level)
        )
    assert percent_agreement(shuffled) == pytest.approx(percent_agreement(labels))
    a, b = labels[:, 0], labels[:, 1]
    assert cohen_kappa(b, a, "quadratic") == pytest.approx(cohen_kappa(a, b, "quadratic"))
    # nominal statistics see categories as names: renaming them (not in order) changes nothing
    names = np.array(["d", "b", "a", "c"], dtype=object)
    renamed = np.where(np.isnan(labels), None, names[np.nan_to_num(labels).astype(int)])
    assert krippendorff_alpha(renamed) == pytest.approx(krippendorff_alpha(labels))
    assert cohen_kappa(renamed[:, 0], renamed[:, 1]) == pytest.approx(cohen_kappa(a, b))


# -- independent implementations (test oracles only) ---------------------------------------------


def test_cohen_against_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, size = int(rng.integers(3, 60)), int(rng.integers(2, 6))
        a = rng.integers(0, size, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, size, n))
        scale = list(range(size + 1))  # one category nobody used, at the end
        for weights in (None, "linear", "quadratic"):
            ours = cohen_kappa(a, b, weights)
            theirs = metrics.cohen_kappa_score(a, b, weights=weights)
            assert ours == pytest.approx(theirs, abs=1e-12, nan_ok=True)
            ours = cohen_kappa(a, b, weights, categories=scale)
            theirs = metrics.cohen_kappa_score(a, b, weights=weights, labels=scale)
            assert ours == pytest.approx(theirs, abs=1e-12, nan_ok=True)


def test_fleiss_against_statsmodels():
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(12)
    for _ in range(60):
        n, raters, size = int(rng.integers(2, 50)), int(rng.integers(2, 7)), int(rng.integers(2, 6))
        labels = rng.integers(0, size, (n, raters))
        labels[: n // 2] = labels[: n // 2, :1]  # some agreement
        theirs = inter_rater.fleiss_kappa(inter_rater.aggregate_raters(labels)[0])
        assert fleiss_kappa(labels) == pytest.approx(theirs, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_against_the_krippendorff_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(13)
    for _ in range(40):
        n, coders, size = int(rng.integers(2, 40)), int(rng.integers(2, 6)), int(rng.integers(2, 7))
        labels = rng.integers(1, size + 1, (n, coders)).astype(float)
        labels[: n // 3] = labels[: n // 3, :1]
        labels[rng.random(labels.shape) < 0.25] = nan
        if ((~np.isnan(labels)).sum(axis=1) < 2).all():
            continue
        theirs = krippendorff.alpha(reliability_data=labels.T, level_of_measurement=level)
        assert krippendorff_alpha(labels, level) == pytest.approx(theirs, abs=1e-9, nan_ok=True)


# -- labels files and frames ----------------------------------------------------------------------

LABELS = """\
# qid assessor docno grade
q1 alice d1 1
q1 bob   d1 1

q1 alice d2 0
q1 bob\td2 1
q1 carol d2 1
q2 alice d1 2
q2 bob d1 2
q2 alice d3 0
q2 bob d3 1
"""


def test_read_labels_file(tmp_path, reader):
    path = tmp_path / "labels.txt"
    path.write_text(LABELS)
    labels = facade.read_labels(str(path))
    assert len(labels) == 9
    assert labels.line.tolist() == [2, 3, 5, 6, 7, 8, 9, 10, 11]
    frame = labels.to_frame("dict")
    assert frame["assessor"][:3] == ["alice", "bob", "alice"]
    assert frame["relevance"].tolist() == [1, 1, 0, 1, 1, 2, 2, 0, 1]
    # gzip too, the same labels
    gz = tmp_path / "labels.txt.gz"
    gz.write_bytes(gzip.compress(LABELS.encode()))
    again = facade.read_labels(str(gz)).to_frame("dict")
    assert {k: list(v) for k, v in again.items()} == {k: list(v) for k, v in frame.items()}


@pytest.mark.parametrize(
    "text, message",
    [
        ("q1 a d1 1\nq1 b d1 x\n", r"labels\.txt:2: relevance grade 'x' is not an integer"),
        ("q1 a d1 1\nq1 b d1 1.5\n", r"labels\.txt:2: relevance grade '1.5' is not an integer"),
        ("q1 a d1 1\n\nq1 a d1\n", r"labels\.txt:3: expected 4 fields \(qid assessor docno"),
        (
            "q1 a d1 1\nq1 b d1 0\n# c\nq1 a d1 0\n",
            r"labels\.txt: assessor 'a' labels document 'd1' of query 'q1' twice \(lines 1 and 4\)",
        ),
        ("# nothing\n\n", r"labels\.txt: no labels found"),
    ],
)
def test_bad_labels_files(tmp_path, text, message):
    path = tmp_path / "labels.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        facade.read_labels(str(path))


def test_negative_grades_are_no_labels(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text("q1 a d1 1\nq1 b d1 -1\nq1 b d2 0\nq1 a d2 0\n")
    with pytest.warns(RankscopeWarning, match=r"1 label\(s\) with a negative grade .* line 2"):
        labels = facade.read_labels(str(path))
    assert labels.to_frame("dict")["doc_id"] == ["d1", "d2", "d2"]


def test_labels_from_frames():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"topic": ["q1", "q1", "q1", "q1"], "who": ["a", "b", "a", "b"],
         "doc": ["d1", "d1", "d2", "d2"], "grade": [1, 1, 0, 1]}
    )  # fmt: skip
    names = dict(columns={"query": "topic", "assessor": "who", "doc": "doc", "relevance": "grade"})
    labels = facade.read_labels(frame, **names)
    assert labels.to_frame("dict")["relevance"].tolist() == [1, 1, 0, 1]
    assert facade.agreement(frame, **names).overall.percent == 0.5
    with pytest.raises(InputError, match="missing column"):
        facade.read_labels(frame)
    repeated = pd.concat([frame, frame.iloc[[2]]], ignore_index=True)
    with pytest.raises(InputError, match=r"twice \(rows 2 and 4\)"):
        facade.read_labels(repeated, **names)
    bad = frame.assign(grade=[1, 1, None, 1])
    with pytest.raises(InputError, match="row 2: relevance"):
        facade.read_labels(bad, **names)


# -- the facade ---------------------------------------------------------------------------------


def test_agreement_overall_and_per_query(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text(LABELS)
    result = facade.agreement(str(path))
    # q1: d1 [a 1, b 1], d2 [a 0, b 1, c 1]: three assessors, so no Cohen's kappa; d1 has 2
    # labels and d2 3, so no Fleiss' kappa either.  Percent: d1 1, d2 (2 agreeing ordered
    # pairs of 6) 1/3: mean 2/3.
    q1 = result.row("q1")
    assert (q1.items, q1.assessors, q1.labels, q1.pairable) == (2, 3, 5, 2)
    assert q1.percent == pytest.approx(2 / 3)
    assert q1.cohen is None and q1.fleiss is None
    assert q1.alpha == pytest.approx(krippendorff_alpha([[1, 1, None], [0, 1, 1]]))
    # q2: d1 [2, 2], d3 [0, 1] by alice and bob: Cohen on (2, 0) vs (2, 1) over the file's
    # grades 0, 1, 2: p_o = 1/2, p_e = 1/2·1/2 (grade 2) = 1/4: κ = (1/2 − 1/4)/(3/4) = 1/3
    q2 = result.row("q2")
    assert (q2.items, q2.assessors, q2.labels, q2.pairable) == (2, 2, 4, 2)
    assert q2.cohen == pytest.approx(1 / 3)
    assert q2.fleiss == pytest.approx(fleiss_kappa([[2, 2], [0, 1]]))
    # all: 4 items, pooled
    overall = result.overall
    assert (overall.items, overall.assessors, overall.labels) == (4, 3, 9)
    assert overall.percent == pytest.approx((1 + 1 / 3 + 1 + 0) / 4)
    pooled = [[1, 1, None], [0, 1, 1], [2, 2, None], [0, 1, None]]
    assert overall.alpha == pytest.approx(krippendorff_alpha(pooled))
    assert result.row("all") is overall
    frame = result.to_frame("dict")
    assert frame["query"] == ["q1", "q2", "all"]
    # weighted kappa and ordinal alpha on the same scale
    weighted = facade.agreement(str(path), scale="ordinal", kappa_weights="linear").row("q2")
    assert weighted.cohen == pytest.approx(cohen_kappa([2, 0], [2, 1], "linear", [0, 1, 2]))
    assert weighted.alpha == pytest.approx(
        krippendorff_alpha([[2, 2], [0, 1]], "ordinal", categories=[0, 1, 2])
    )


def test_one_assessor_is_an_error(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    with pytest.raises(InputError, match="every label is by one assessor .* qrels file"):
        facade.agreement(str(path))


TIES = """\
q1 a d1 2
q1 b d1 2
q1 c d1 0
q1 a d2 0
q1 b d2 1
q2 a d9 1
"""


def test_to_qrels_majority_and_mean(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text(TIES)
    # d1: 2, 2, 0 → majority 2, mean 4/3 → 1; d2: 0, 1 → a tie, mean 1/2; d9: one label 1
    tie = r"1 of 3 documents have a tied majority .* 'd2' of query 'q1', grades 0, 1\): the lower"
    with pytest.warns(RankscopeWarning, match=tie):
        lower = facade.to_qrels(str(path))
    assert lower.to_dict() == {"q1": {"d1": 2, "d2": 0}, "q2": {"d9": 1}}
    with pytest.warns(RankscopeWarning, match="the higher grade is kept"):
        higher = facade.to_qrels(str(path), tie_break="higher")
    assert higher.to_dict() == {"q1": {"d1": 2, "d2": 1}, "q2": {"d9": 1}}
    with pytest.warns(RankscopeWarning, match="a mean grade halfway between two grades"):
        mean = facade.to_qrels(str(path), "mean")
    assert mean.to_dict() == {"q1": {"d1": 1, "d2": 0}, "q2": {"d9": 1}}
    with pytest.warns(RankscopeWarning):
        assert facade.to_qrels(str(path), "mean", tie_break="higher").to_dict()["q1"]["d2"] == 1
    # the qrels name the labels' lines of each document's first label
    assert lower.line.tolist() == [1, 4, 6]
    with pytest.raises(UsageError, match="unknown aggregation"):
        facade.to_qrels(str(path), "median")


def test_mean_rounds_to_nearest_without_warning_when_no_half(tmp_path):
    path = tmp_path / "labels.txt"
    # means 5/3 → 2, 1/3 → 0, 3 → 3, 7/4 → 2
    path.write_text(
        "q a d1 2\nq b d1 2\nq c d1 1\nq a d2 0\nq b d2 0\nq c d2 1\nq a d3 3\nq b d3 3\n"
        "q a d4 1\nq b d4 2\nq c d4 2\nq d d4 2\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        qrels = facade.to_qrels(str(path), "mean")
    assert qrels.to_dict() == {"q": {"d1": 2, "d2": 0, "d3": 3, "d4": 2}}


def test_lazy_module_and_reexports():
    import rankscope
    from rankscope import stats

    assert rankscope.agreement is facade
    assert facade.cohen_kappa is stats.cohen_kappa is cohen_kappa
    assert stats.krippendorff_alpha is krippendorff_alpha


# -- the command line ----------------------------------------------------------------------------


@pytest.fixture
def labels_file(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text(LABELS)
    return str(path)


def test_cli_table_and_per_query(labels_file, capsys):
    code, out, err = run_cli(["agree", labels_file, "-q"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[:9] == [
        "query", "items", "assessors", "labels", "pairable", "percent", "cohen", "fleiss",
        "alpha",
    ]  # fmt: skip
    q1, q2, overall = (line.split() for line in lines[2:5])
    assert q1[:6] == ["q1", "2", "3", "5", "2", "0.6667"] and q1[6:8] == ["-", "-"]
    assert q2[0] == "q2" and q2[6] == "0.3333"
    assert overall[0] == "all" and overall[1:4] == ["4", "3", "9"]
    code, out, _ = run_cli(["agree", labels_file], capsys)
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["all"]


def test_cli_csv_and_json(labels_file, capsys):
    code, out, _ = run_cli(["agree", labels_file, "-q", "--format", "csv"], capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["query"] for r in rows] == ["q1", "q2", "all"]
    assert rows[0]["cohen"] == "" and float(rows[1]["cohen"]) == pytest.approx(1 / 3)
    code, out, _ = run_cli(
        ["agree", labels_file, "--format", "json", "--level", "ordinal", "--kappa-weights",
         "quadratic"], capsys,
    )  # fmt: skip
    data = json.loads(out)
    assert data["level"] == "ordinal" and data["weights"] == "quadratic"
    assert data["rows"][0]["query"] == "all" and data["rows"][0]["cohen"] is None


def test_cli_undefined_is_nan_and_not_applicable_a_dash(tmp_path, capsys):
    path = tmp_path / "labels.txt"
    path.write_text("q1 a d1 1\nq1 b d1 1\nq2 a d2 0\nq2 b d2 1\n")
    code, out, _ = run_cli(["agree", str(path), "-q"], capsys)
    q1 = out.splitlines()[2].split()
    assert q1[5:] == ["1.0000", "nan", "nan", "nan"]
    code, out, _ = run_cli(["agree", str(path), "-q", "--format", "json"], capsys)
    assert json.loads(out)["rows"][0]["undefined"] == ["cohen", "fleiss", "alpha"]


def test_cli_to_qrels_is_read_by_eval(tmp_path, capsys):
    labels = tmp_path / "labels.txt"
    labels.write_text(TIES)
    qrels = tmp_path / "qrels.txt"
    code, out, err = run_cli(
        ["agree", str(labels), "--to-qrels", "majority", "-o", str(qrels)], capsys
    )
    assert code == 0 and "all" in out
    assert "1 of 3 documents have a tied majority vote" in err and "--tie-break higher" in err
    assert qrels.read_text() == "q1 0 d1 2\nq1 0 d2 0\nq2 0 d9 1\n"
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d2 1 2 r\nq1 Q0 d1 2 1 r\nq2 Q0 d9 1 1 r\n")
    code, out, _ = run_cli(["eval", "-q", "-m", "P.1", str(qrels), str(run)], capsys)
    # q1: d2 (grade 0) first: P@1 = 0; q2: d9 relevant: 1
    assert code == 0
    assert [line.split() for line in out.splitlines()] == [
        ["P_1", "q1", "0.0000"], ["P_1", "q2", "1.0000"], ["P_1", "all", "0.5000"],
    ]  # fmt: skip
    code, out, _ = run_cli(
        ["agree", str(labels), "--to-qrels", "mean", "--tie-break", "higher", "-o", "-"], capsys
    )
    assert out == "q1 0 d1 1\nq1 0 d2 1\nq2 0 d9 1\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--to-qrels", "majority"], "--to-qrels needs -o QRELS"),
        (["-o", "x.txt"], "-o needs --to-qrels"),
    ],
)
def test_cli_option_errors(labels_file, capsys, args, message):
    code, _, err = run_cli(["agree", labels_file, *args], capsys)
    assert code == 2 and message in err


def test_cli_bad_input_exits_2_naming_file_and_line(tmp_path, capsys):
    path = tmp_path / "labels.txt"
    path.write_text("q1 a d1 1\nq1 b d1 1\nq1 a d2 relevant\n")
    code, out, err = run_cli(["agree", str(path)], capsys)
    assert code == 2 and out == ""
    assert err == (f"rankscope: error: {path}:3: relevance grade 'relevant' is not an integer\n")
    code, _, err = run_cli(["agree", str(path), "--to-qrels", "mean", "-o", str(path)], capsys)
    assert code == 2 and "would overwrite an input file" in err


def test_cli_constants_agree_with_the_library():
    from rankscope.cli import agree
    from rankscope.stats.agreement import ALPHA_LEVELS
    from rankscope.table import agreement as kernels

    assert agree.LEVELS == ALPHA_LEVELS
    assert agree.AGGREGATIONS == kernels.AGGREGATIONS
    assert agree.TIE_BREAKS == kernels.TIE_BREAKS


def test_no_pairable_item_gives_no_statistic(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text("q1 a d1 1\nq1 b d2 0\n")
    overall = facade.agreement(str(path)).overall
    assert (overall.items, overall.assessors, overall.pairable) == (2, 2, 0)
    assert (overall.percent, overall.cohen, overall.fleiss, overall.alpha) == (None,) * 4


def _indented_block(text: str, after: str) -> list[str]:
    """The 4-space-indented lines following the line ``after`` (up to a blank line)."""
    lines = text.splitlines()
    start = lines.index(after) + 1
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line[4:])
    return block


def test_the_documented_example_is_what_the_command_prints(tmp_path, capsys):
    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "agreement.md").read_text()
    labels = tmp_path / "labels.txt"
    labels.write_text("\n".join(_indented_block(doc, "    $ cat labels.txt")) + "\n")
    for command in (
        "rankscope agree labels.txt -q",
        "rankscope agree labels.txt -q --level ordinal --kappa-weights linear --format csv",
    ):
        expected = _indented_block(doc, f"    $ {command}")
        args = [str(labels) if a == "labels.txt" else a for a in command.split()[1:]]
        code, out, _ = run_cli(args, capsys)
        assert code == 0 and out.splitlines() == expected, command


def test_no_item_with_two_labels_warns_that_agreement_is_undefined(tmp_path, capsys):
    path = tmp_path / "labels.txt"
    # A labels d1 and d3, B labels d2: three items, one label each, none pairable
    path.write_text("q1 A d1 1\nq1 B d2 0\nq2 A d3 2\n")
    with pytest.warns(RankscopeWarning, match=r"labels.txt: no item has labels by two "
                      r"assessors, so agreement is undefined .* the 3 items have one label each"):
        result = facade.agreement(str(path))
    row = result.overall
    assert (row.items, row.assessors, row.labels, row.pairable) == (3, 2, 3, 0)
    assert (row.percent, row.cohen, row.fleiss, row.alpha) == (None, None, None, None)
    # --to-qrels still aggregates the single labels, with the warning
    out = tmp_path / "q.txt"
    code, _, err = run_cli(["agree", str(path), "--to-qrels", "majority", "-o", str(out)], capsys)
    assert code == 0 and "rankscope: warning: " in err and "agreement is undefined" in err
    assert out.read_text().split("\n")[0].split() == ["q1", "0", "d1", "1"]
