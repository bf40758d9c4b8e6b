"""Recommender measures: hand-computed values for every measure (empty lists, users without
relevant items, short lists), seed examples rows 7-8, an independent plain-Python
implementation on random data, input readers and validation, and MovieLens 100K."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

from rankscope import InputError, RankscopeWarning, evaluate_recsys, evaluate_recsys_systems
from rankscope.read.features import read_item_features
from rankscope.read.recommendations import read_recommendations
from rankscope.recsys import parse, read_interactions
from tests.conftest import DATA, ROOT, need

# A small world, every value below computed by hand.
#
# Training (popularity = distinct users): a 3, b 2, c 1, d 1, e 0, f 0; 4 training users.
TRAIN = {"u1": {"a": 3, "b": 4}, "u2": {"a": 5, "c": 2}, "u3": {"a": 4, "b": 3}, "u4": {"d": 1}}
# Test, threshold 4: u1 relevant {c, f} (R = 2); u2 {b}; u3 none (R = 0); u5 {a}, no lists.
TEST = {"u1": {"c": 5, "f": 4, "e": 2}, "u2": {"b": 4, "e": 1}, "u3": {"f": 3}, "u5": {"a": 5}}
# Lists, best first.  Top 3: u1 c (rel), a (seen in training, not relevant), f (rel);
# u2 e, b (rel): shorter than k; u3 c, d, f (no relevant item exists); u5: no list;
# u6 is not a test user (ignored, with a warning).
RECS = {"u1": ["c", "a", "f", "b"], "u2": ["e", "b"], "u3": ["c", "d", "f"], "u6": ["a"]}
# Genres for ILD; f has none.
GENRES = {"a": ["x", "y"], "b": ["x"], "c": ["y", "z"], "d": ["z"], "e": ["x", "y", "z"]}

LOG2_3 = math.log2(3)


def summary(measures, k=3, **kwargs):
    kwargs.setdefault("train", TRAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (result,) = evaluate_recsys_systems(TEST, RECS, measures, k=k, **kwargs)
    return result


def value(measure, k=3, **kwargs):
    result = summary([measure], k=k, **kwargs)
    return next(iter(result.summary.values()))


@pytest.mark.parametrize(
    "measure, expected",
    [
        # u1 2/3, u2 1/3, u5 0 (empty list); u3 has no relevant item: left out
        ("P@3", (2 / 3 + 1 / 3 + 0) / 3),
        ("Recall@3", (1 + 1 + 0) / 3),
        # u1 2(2/3)(1)/(5/3) = 0.8; u2 2(1/3)(1)/(4/3) = 0.5
        ("F1@3", (0.8 + 0.5 + 0) / 3),
        ("HitRate@3", 2 / 3),
        ("MRR@3", (1 + 1 / 2 + 0) / 3),
        ("MAP@3", ((1 + 2 / 3) / 2 + 1 / 2 + 0) / 3),
        # u1 (1 + 1/log2 4) / (1 + 1/log2 3); u2 (1/log2 3) / 1
        ("nDCG@3", ((1 + 0.5) / (1 + 1 / LOG2_3) + 1 / LOG2_3 + 0) / 3),
        # k = 1: u1 AP = (1/1)/2 with R, (1/1)/min(2, 1) with min; u2, u5 0
        ("MAP@1", 0.5 / 3),
        ("MAP(denominator=min)@1", 1 / 3),
        ("P@1", 1 / 3),
        ("Recall@1", 0.5 / 3),
    ],
)
def test_topn_hand_computed(measure, expected):
    assert value(measure) == pytest.approx(expected, abs=1e-12)


def test_topn_per_user_and_no_relevant_policy():
    result = summary(["P@3", "nDCG@3"])
    p = result.per_user("P@3")
    assert p == pytest.approx({"u1": 2 / 3, "u2": 1 / 3, "u5": 0.0})
    assert "u3" not in p and result.counts["P@3"] == 3
    zero = summary(["P@3"], no_relevant="zero")
    assert zero.per_user("P@3")["u3"] == 0.0
    assert zero.summary["P@3"] == pytest.approx((2 / 3 + 1 / 3) / 4)
    assert zero.counts["P@3"] == 4


def test_warnings_name_what_was_left_out():
    with pytest.warns(RankscopeWarning) as caught:
        evaluate_recsys_systems(TEST, RECS, ["P@3", "UserCoverage"], train=TRAIN, k=3)
    text = "\n".join(str(w.message) for w in caught)
    assert "1 of 4 test users have no relevant test item (rating >= 4)" in text
    assert "left out of the means of P@3" in text
    assert "1 users with recommendations have no test data" in text  # u6
    assert "1 of 4 test users have no recommendations" in text  # u5
    assert "2 recommended (user, item) pairs are in the training data" in text  # u1: a, b


def test_graded_relevance_uses_ratings_as_gains():
    # u1: 5 at rank 1, 4 at rank 3, ideal 5, 4; u2: 4 at rank 2
    u1 = (5 + 4 / 2) / (5 + 4 / LOG2_3)
    assert value("nDCG@3", relevance="graded") == pytest.approx((u1 + 1 / LOG2_3) / 3)
    assert value("P@3", relevance="graded") == pytest.approx(1 / 3)


def test_threshold_changes_relevance():
    # threshold 5: u1 {c}, u5 {a}; u2 and u3 have none
    assert value("P@3", threshold=5) == pytest.approx((1 / 3 + 0) / 2)
    # no threshold: every test interaction is relevant (u1 c, f, e; u2 e, b; u3 f)
    assert value("P@3", threshold=None) == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 0) / 4)


def test_seen_drop_moves_lists_up():
    # u1 loses a and b: c, f (2 relevant of 3); the rest unchanged
    assert value("P@3", seen="drop") == pytest.approx((2 / 3 + 1 / 3 + 0) / 3)
    assert value("MRR@3", seen="drop") == pytest.approx((1 + 1 / 2) / 3)
    # top 2: with a dropped, u1 has c, f
    assert value("P@2", seen="drop") == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert value("P@2") == pytest.approx((1 / 2 + 1 / 2 + 0) / 3)


@pytest.mark.parametrize(
    "measure, k, expected",
    [
        ("UserCoverage", 3, 3 / 4),  # u5 has no list
        # top 3 covers a..f; top 2 misses f (u1 c, a; u2 e, b; u3 c, d)
        ("CatalogCoverage@3", 3, 1.0),
        ("CatalogCoverage@2", 2, 5 / 6),
        # exposure at 3: a1 b1 c2 d1 e1 f2 of 8: sorted shares 1,1,1,1,2,2 / 8,
        # sum (2j - 7) p_j = (-5 - 3 - 1 + 1 + 6 + 10) / 8 = 1, over n - 1 = 5
        ("Gini@3", 3, 0.2),
        # at 2: 0,1,1,1,1,2 / 6: (0 - 3 - 1 + 1 + 3 + 10) / 6 / 5
        ("Gini@2", 2, 1 / 3),
        # H = 4 (1/8) 3 + 2 (1/4) 2
        ("Entropy@3", 3, 2.5),
        ("Entropy(normalize=true)@3", 3, 2.5 / math.log2(6)),
        # self-information log2(4/pop): a log2(4/3), b 1, c d 2, e f (never seen) 2
        ("Novelty@3", 3, ((2 + math.log2(4 / 3) + 2) / 3 + (2 + 1) / 2 + 2) / 3),
        # head = 2 most popular of 6 items {a, b}: u1 2/3, u2 1/2, u3 1
        ("LongTail@3", 3, (2 / 3 + 1 / 2 + 1) / 3),
        # head holding 20% of the 7 interactions: {a}
        ("LongTail(head=interactions)@3", 3, (2 / 3 + 1 + 1) / 3),
        # head = 3 most popular, with ties: pop >= 1 = {a, b, c, d}
        ("LongTail(share=0.5)@3", 3, (1 / 3 + 1 / 2 + 1 / 3) / 3),
        # most-popular lists without training items: u1 c, d, e; u2 b, d, e; u5 a, b, c.
        # Relevant and unexpected: u1 f (1 of 3); u2 b and u5 nothing; u3 left out.
        ("Serendipity@3", 3, (1 / 3 + 0 + 0) / 3),
    ],
)
def test_beyond_accuracy_hand_computed(measure, k, expected):
    assert value(measure, k=k) == pytest.approx(expected, abs=1e-12)


def test_per_list_measures_leave_out_empty_lists():
    result = summary(["Novelty@3", "UserCoverage", "CatalogCoverage@3"])
    assert set(result.per_user("Novelty@3")) == {"u1", "u2", "u3"}
    assert result.per_user("UserCoverage") == {"u1": 1.0, "u2": 1.0, "u3": 1.0, "u5": 0.0}
    assert result.per_user("CatalogCoverage@3") == {}  # a catalog-level measure
    assert result.counts["Novelty@3"] == 3


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")  # asserted otherwise
def test_ild_cosine_and_jaccard():
    # f has no features and is left out. Cosine: u1 c-a 1 - 1/2; u2 e-b 1 - 1/sqrt 3;
    # u3 c-d 1 - 1/sqrt 2. Jaccard: u1 1 - 1/3, u2 1 - 1/3, u3 1 - 1/2. u5: no list.
    cosine = (0.5 + (1 - 1 / math.sqrt(3)) + (1 - 1 / math.sqrt(2))) / 3
    with pytest.warns(RankscopeWarning, match="items without features; ILD leaves them out"):
        got = evaluate_recsys_systems(TEST, RECS, ["ILD@3"], features=GENRES)[0]
    assert got.summary["ILD@3"] == pytest.approx(cosine)
    assert value("ILD(distance=jaccard)@3", features=GENRES) == pytest.approx(11 / 18)
    # top 4 of u1: c, a, b described: pairs c-a 1/2, c-b 1, a-b 1 - 1/sqrt 2
    u1 = summary(["ILD@4"], k=4, features=GENRES).per_user("ILD@4")["u1"]
    assert u1 == pytest.approx((0.5 + 1 + (1 - 1 / math.sqrt(2))) / 3)


def test_a_list_of_one_item_has_no_diversity():
    result = evaluate_recsys_systems({"u": {"a": 5}}, {"u": ["a"]}, ["ILD@3"], features=GENRES)[0]
    assert result.per_user("ILD@3") == {} and math.isnan(result.summary["ILD@3"])


def test_serendipity_with_a_given_baseline():
    # baseline lists u1: c; u2: e (top 3 of each): u1 f unexpected and relevant (1/3), u2 b
    # (1/3), u5 nothing
    baseline = {"u1": ["c"], "u2": ["e"]}
    got = value("Serendipity@3", baseline=baseline, train=None)
    assert got == pytest.approx((1 / 3 + 1 / 3 + 0) / 3)


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")  # asserted otherwise
def test_empty_list_everywhere():
    # a test user without recommendations at all: 0 on accuracy, no list measures
    result = evaluate_recsys_systems(
        {"u": {"a": 5}, "v": {"b": 5}}, {"v": ["b"]}, "all", train={"w": ["a"]},
        features=GENRES, k=2,
    )[0]  # fmt: skip
    # v: b at rank 1 of a one-item list, R = 1: P@2 1/2, F1 2 (1/2)(1) / (3/2), others 1
    v = {"P@2": 0.5, "F1@2": 2 / 3, "Recall@2": 1, "HitRate@2": 1, "MRR@2": 1, "MAP@2": 1,
         "nDCG@2": 1}  # fmt: skip
    for label, expected in v.items():
        assert result.per_user(label)["u"] == 0.0, label
        assert result.per_user(label)["v"] == pytest.approx(expected), label
    assert result.per_user("UserCoverage")["u"] == 0.0
    assert "u" not in result.per_user("Novelty@2")


# -- rating prediction -----------------------------------------------------------------------


def test_seed_examples_rows_7_and_8():
    # 002: user ratings 5,4,4,4,3,2,2, predictions 5,3,4,2,5,5,2 (items A B D G E C F)
    ratings = dict(zip("ABDGECF", [5, 4, 4, 4, 3, 2, 2], strict=True))
    predicted = dict(zip("ABDGECF", [5, 3, 4, 2, 5, 5, 2], strict=True))
    table = evaluate_recsys(
        {"u": ratings}, {"u": predicted}, ["MAE", "RMSE", "SE", "MSE"], per_user=False,
        output="dict",
    )  # fmt: skip
    got = dict(zip(table["measure"], table["value"], strict=True))
    assert got["MAE"] == pytest.approx(8 / 7, abs=1e-12)
    assert got["RMSE"] == pytest.approx(1.603567451, abs=1e-9)
    assert got["SE"] == 18.0 and got["MSE"] == pytest.approx(18 / 7)


@pytest.mark.filterwarnings("ignore::rankscope.RankscopeWarning")  # asserted otherwise
def test_rating_errors_pooled_and_per_user():
    # Predictions u1: c 4 (error -1), f 4 (0), e missing; u2: b 2 (-2), e 2 (+1); u3, u5
    # none; one prediction outside the test (ignored).
    predictions = {"u1": {"c": 4, "f": 4}, "u2": {"b": 2, "e": 2.0}, "u9": {"a": 1}}
    with pytest.warns(RankscopeWarning, match="3 of 7 test ratings have no prediction"):
        result = evaluate_recsys_systems(
            TEST, predictions, ["rating", "RMSE(average=users)", "MAE(average=users)",
                                "SE(average=users)", "PredictionCoverage(average=users)"],
        )[0]  # fmt: skip
    s = result.summary
    assert s["MAE"] == pytest.approx(1.0) and s["MSE"] == pytest.approx(1.5)
    assert s["RMSE"] == pytest.approx(math.sqrt(1.5)) and s["SE"] == 6.0
    assert s["PredictionCoverage"] == pytest.approx(4 / 7)
    assert result.counts["MAE"] == 4
    assert s["MAE(average=users)"] == pytest.approx((0.5 + 1.5) / 2)
    assert s["RMSE(average=users)"] == pytest.approx((math.sqrt(0.5) + math.sqrt(2.5)) / 2)
    assert s["SE(average=users)"] == pytest.approx(3.0)
    assert s["PredictionCoverage(average=users)"] == pytest.approx((2 / 3 + 1 + 0 + 0) / 4)
    assert result.per_user("MAE") == pytest.approx({"u1": 0.5, "u2": 1.5})


def test_rating_measures_need_ratings():
    with pytest.raises(ValueError, match="MAE needs ratings"):
        evaluate_recsys_systems({"u": ["a"]}, {"u": ["a"]}, ["MAE"])


# -- names and inputs ------------------------------------------------------------------------


def test_names_and_defaults():
    labels = [r.label for r in parse(["nDCG", "P@5", "Precision@5", "R@10", "MAE", "HR@3"])]
    assert labels == ["MAE", "P@5", "R@10", "HR@3", "nDCG@10"]  # as spelled
    assert [r.label for r in parse(["topn"], k=5)][0] == "P@5"
    with pytest.raises(ValueError, match="unknown measure"):
        parse(["Serendipty@10"])
    with pytest.raises(ValueError, match="must be one of"):
        parse(["ILD(distance=euclid)@10"])
    defaults = summary(None, train=TRAIN, features=GENRES).labels
    assert "ILD@3" in defaults and "Novelty@3" in defaults and "MAE" not in defaults
    assert "Novelty@3" not in summary(None, train=None).labels


def test_missing_inputs_are_errors():
    with pytest.raises(ValueError, match="Novelty@3 needs item popularity"):
        summary(["Novelty@3"], train=None)
    with pytest.raises(ValueError, match="ILD@3 needs item features"):
        summary(["ILD@3"])
    with pytest.raises(ValueError, match="seen='drop' needs the training"):
        summary(["P@3"], train=None, seen="drop")


def test_files_frames_and_dicts_agree(tmp_path):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    test_rows = [(u, i, r) for u, items in TEST.items() for i, r in items.items()]
    (tmp_path / "test.tsv").write_text("".join(f"{u}\t{i}\t{r}\t100\n" for u, i, r in test_rows))
    (tmp_path / "test.csv").write_text(
        "userId,movieId,rating,timestamp\n" + "".join(f"{u},{i},{r},1\n" for u, i, r in test_rows)
    )
    (tmp_path / "test.dat").write_text("".join(f"{u}::{i}::{r}::7\n" for u, i, r in test_rows))
    (tmp_path / "test.qrels").write_text("".join(f"{u} 0 {i} {r}\n" for u, i, r in test_rows))
    run = [(u, i, len(items) - n) for u, items in RECS.items() for n, i in enumerate(items)]
    (tmp_path / "recs.run").write_text("".join(f"{u} Q0 {i} 1 {s} sys\n" for u, i, s in run))
    (tmp_path / "recs.tsv").write_text("".join(f"{u}\t{i}\n" for u, i, _ in run))
    (tmp_path / "recs.csv").write_text(
        "user,item,rank\n"
        + "".join(f"{u},{i},{n + 1}\n" for u, items in RECS.items() for n, i in enumerate(items))
    )
    frame = pd.DataFrame(test_rows, columns=["user_id", "item_id", "rating"])
    recs_frame = pl.DataFrame(run, schema=["user", "item", "score"], orient="row")
    expected = value("nDCG@3", train=None)
    for test in ["test.tsv", "test.csv", "test.dat", "test.qrels", frame]:
        for recs in ["recs.run", "recs.tsv", "recs.csv", recs_frame]:
            t = str(tmp_path / test) if isinstance(test, str) else test
            r = str(tmp_path / recs) if isinstance(recs, str) else recs
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RankscopeWarning)
                got = evaluate_recsys_systems(t, r, ["nDCG@3"], k=3)[0].summary["nDCG@3"]
            assert got == pytest.approx(expected), (test, recs)


@pytest.mark.parametrize("sep", ["\t", " ", ",", "::"])
def test_column_reader_matches_line_reader(tmp_path, sep):
    rng = random.Random(3)
    rows = [(f"u{rng.randint(1, 30)}", f"i{rng.randint(1, 50)}", rng.randint(1, 5), n)
            for n in range(500)]  # fmt: skip
    text = "".join(sep.join(map(str, r)) + "\n" for r in rows)
    fast, slow = tmp_path / "fast", tmp_path / "slow"
    fast.write_text(text)
    slow.write_text("# a comment sends this file to the line-by-line reader\n" + text)
    a, b = read_interactions(str(fast)), read_interactions(str(slow))
    assert a.users.strings_of(a.user) == b.users.strings_of(b.user) == [r[0] for r in rows]
    assert a.items.strings_of(a.item) == b.items.strings_of(b.item) == [r[1] for r in rows]
    assert a.rating.tolist() == b.rating.tolist() and a.timestamp.tolist() == b.timestamp.tolist()
    assert (a.line + 1).tolist() == b.line.tolist()


def test_a_log_sorted_by_item_is_not_taken_for_qrels(tmp_path):
    log = tmp_path / "by_item.tsv"
    log.write_text("1\t7\t5\t100\n2\t7\t3\t200\n3\t7\t4\t300\n")
    got = read_interactions(str(log))
    assert got.items.strings_of(got.item) == ["7", "7", "7"]
    assert got.rating.tolist() == [5, 3, 4] and got.timestamp.tolist() == [100, 200, 300]
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 7 1\n2 0 7 0\n")
    got = read_interactions(str(qrels))
    assert got.rating.tolist() == [1, 0] and got.timestamp is None


def test_malformed_input_names_file_and_line(tmp_path):
    bad = tmp_path / "u.data"
    bad.write_text("1\t2\t5\t9\n1\t3\tfive\t9\n")
    with pytest.raises(InputError, match=r"u.data:2: rating 'five' is not a number"):
        read_interactions(str(bad))
    bad.write_text("1\t2\t5\n1\t3\tnan\n")
    with pytest.raises(InputError, match=r"u.data:2: rating 'nan' is not a finite number"):
        read_interactions(str(bad))
    bad.write_text("1\t2\t5\n7\n")
    with pytest.raises(InputError, match=r"u.data:2: expected at least 2 fields"):
        read_interactions(str(bad))
    recs = tmp_path / "recs.tsv"
    recs.write_text("1\t2\t0.5\n1\t3\tNaN\n")
    with pytest.raises(InputError, match=r"recs.tsv:2: score 'NaN' is not a finite number"):
        read_recommendations(str(recs))
    with pytest.raises(InputError, match="rating"):
        read_interactions({"u": {"a": float("nan")}})
    items = tmp_path / "u.item"
    items.write_text("1|Toy Story|01-Jan-1995||url|0|1|2\n")
    with pytest.raises(InputError, match=r"u.item:1: expected MovieLens u.item fields"):
        read_item_features(str(items))


def test_duplicates_warn_and_keep_one(tmp_path):
    log = tmp_path / "test.tsv"
    log.write_text("u\ta\t2\t10\nu\tb\t5\t10\nu\ta\t5\t20\n")
    with pytest.warns(RankscopeWarning, match=r"1 repeated \(user, item\) pair.*lines 1 and 3"):
        got = evaluate_recsys_systems(str(log), {"u": ["a", "c"]}, ["P@1"], k=1)[0]
    assert got.summary["P@1"] == 1.0  # the latest rating of a (5) is kept
    recs = tmp_path / "recs.tsv"
    recs.write_text("u\ta\t1.0\nu\tb\t2.0\nu\ta\t3.0\n")
    with pytest.warns(RankscopeWarning, match=r"lines 1 and 3\); the best score of each is kept"):
        run = read_recommendations(str(recs))
    assert len(run) == 2 and sorted(run.score.tolist()) == [2.0, 3.0]


def test_movielens_item_file_is_read(tmp_path):
    items = tmp_path / "u.item"
    items.write_text(
        "1|Toy Story (1995)|01-Jan-1995||http://x|0|0|1\n2|GoldenEye|01-Jan-1995||http://y|0|1|1\n",
        encoding="latin-1",
    )
    features = read_item_features(str(items))
    assert features.matrix.tolist() == [[0, 0, 1], [0, 1, 1]]
    csv = tmp_path / "movies.csv"
    csv.write_text('movieId,title,genres\n1,"Toy Story, The",Animation|Comedy\n2,Heat,Action\n')
    features = read_item_features(str(csv))
    assert features.names == ["Action", "Animation", "Comedy"]
    assert features.matrix.tolist() == [[0, 1, 1], [1, 0, 0]]


def test_docs_reference_is_up_to_date():
    from rankscope.recsys.registry import MEASURES
    from rankscope.report.reference import recsys_reference as reference_markdown

    text = (ROOT / "docs" / "recsys.md").read_text()
    generated = text.split("do\nnot edit below this line.\n\n", 1)[1]
    assert generated == reference_markdown() + "\n", (
        "docs/recsys.md is stale: rewrite its reference from reference_markdown()"
    )
    for m in MEASURES:
        assert len(m.doc.strip()) > 30 and m.reference, m.name
        assert all(p.doc for p in m.params), m.name


def test_deterministic():
    a = summary("all", features=GENRES)
    b = summary("all", features=GENRES)
    assert [v.summary for v in a.values] == pytest.approx(
        [v.summary for v in b.values], nan_ok=True
    )


# -- against an independent implementation ---------------------------------------------------


def _plain(test, recs, train, genres, k, threshold):
    """Reference values in plain Python, written from the formulas, not from the code."""
    users = sorted(test)
    relevant = {u: {i for i, r in test[u].items() if r >= threshold} for u in users}
    top = {u: recs.get(u, [])[:k] for u in users}
    acc = {m: [] for m in ("P", "R", "AP", "nDCG", "RR", "HR")}
    for u in users:
        rel = relevant[u]
        if not rel:
            continue
        hits = [i in rel for i in top[u]]
        acc["P"].append(sum(hits) / k)
        acc["R"].append(sum(hits) / len(rel))
        ap, found = 0.0, 0
        for rank, h in enumerate(hits, start=1):
            if h:
                found += 1
                ap += found / rank
        acc["AP"].append(ap / len(rel))
        dcg = sum(1 / math.log2(rank + 1) for rank, h in enumerate(hits, start=1) if h)
        ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(rel), k) + 1))
        acc["nDCG"].append(dcg / ideal)
        acc["RR"].append(next((1 / r for r, h in enumerate(hits, start=1) if h), 0.0))
        acc["HR"].append(1.0 if any(hits) else 0.0)
    out = {m: sum(v) / len(v) for m, v in acc.items()}
    train_users = {u for u in train}
    pop = {}
    for u in train:
        for i in train[u]:
            pop[i] = pop.get(i, 0) + 1
    novelty = [
        sum(math.log2(len(train_users) / max(pop.get(i, 0), 1)) for i in top[u]) / len(top[u])
        for u in users
        if top[u]
    ]
    out["Novelty"] = sum(novelty) / len(novelty)
    catalog = sorted({i for u in train for i in train[u]} | {i for u in test for i in test[u]})
    exposure = {i: 0 for i in catalog}
    for u in users:
        for i in top[u]:
            exposure[i] += 1
    total = sum(exposure.values())
    out["Coverage"] = sum(1 for i in catalog if exposure[i]) / len(catalog)
    shares = sorted(exposure[i] / total for i in catalog)
    n = len(shares)
    out["Gini"] = sum((2 * j - n - 1) * p for j, p in enumerate(shares, start=1)) / (n - 1)
    out["Entropy"] = -sum(p * math.log2(p) for p in shares if p)

    def cosine(x, y):
        a, b = set(genres[x]), set(genres[y])
        return len(a & b) / math.sqrt(len(a) * len(b))

    ild = []
    for u in users:
        items = top[u]
        pairs = [(x, y) for n_, x in enumerate(items) for y in items[n_ + 1 :]]
        if pairs:
            ild.append(sum(1 - cosine(x, y) for x, y in pairs) / len(pairs))
    out["ILD"] = sum(ild) / len(ild)
    return out


def test_against_plain_python_on_random_data():
    rng = random.Random(7)
    items = [f"i{n}" for n in range(40)]
    genre_names = list("ABCDEFG")
    genres = {i: rng.sample(genre_names, rng.randint(1, 3)) for i in items}
    train, test, recs = {}, {}, {}
    for u in (f"u{n}" for n in range(60)):
        chosen = rng.sample(items, 12)
        train[u] = {i: rng.randint(1, 5) for i in chosen[:6]}
        test[u] = {i: rng.randint(1, 5) for i in chosen[6:]}
        unseen = [i for i in items if i not in train[u]]
        recs[u] = rng.sample(unseen, rng.randint(0, 12))
    k = 5
    ref = _plain(test, recs, train, genres, k, 4)
    measures = ["P", "Recall", "MAP", "nDCG", "MRR", "HitRate", "Novelty", "CatalogCoverage",
                "Gini", "Entropy", "ILD"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        got = evaluate_recsys_systems(test, recs, measures, k=k, train=train, features=genres)[0]
    s = {label.split("@")[0]: v for label, v in got.summary.items()}
    pairs = {"P": "P", "Recall": "R", "MAP": "AP", "nDCG": "nDCG", "MRR": "RR", "HitRate": "HR",
             "Novelty": "Novelty", "CatalogCoverage": "Coverage", "Gini": "Gini",
             "Entropy": "Entropy", "ILD": "ILD"}  # fmt: skip
    for ours, theirs in pairs.items():
        assert s[ours] == pytest.approx(ref[theirs], abs=1e-12), ours


# -- MovieLens 100K --------------------------------------------------------------------------


def _movielens():
    folder = need(DATA / "movielens-100k")
    base = np.loadtxt(need(folder / "u1.base"), dtype=np.int64)
    test = np.loadtxt(need(folder / "u1.test"), dtype=np.int64)
    return folder, base, test


def test_movielens_popularity_knn_random():
    folder, base, test = _movielens()
    n_items = int(max(base[:, 1].max(), test[:, 1].max())) + 1
    test_users = np.unique(test[:, 0])
    seen = np.zeros((int(base[:, 0].max()) + 1, n_items), dtype=bool)
    seen[base[:, 0], base[:, 1]] = True
    popularity = seen.sum(axis=0)
    # item-based kNN (cosine on the binary training matrix), scores for every item
    norms = np.sqrt(popularity).astype(float)
    norms[norms == 0] = 1
    m = seen.astype(float)
    similarity = (m.T @ m) / norms[:, None] / norms[None, :]
    np.fill_diagonal(similarity, 0)
    rng = np.random.default_rng(0)
    systems = {"popularity": {}, "knn": {}, "random": {}}
    for u in test_users:
        candidates = np.flatnonzero(~seen[u])
        candidates = candidates[candidates > 0]
        by_pop = candidates[np.lexsort((candidates.astype(str), -popularity[candidates]))]
        scores = similarity[seen[u]].sum(axis=0)[candidates]
        by_knn = candidates[np.argsort(-scores, kind="stable")]
        systems["popularity"][str(u)] = [str(i) for i in by_pop[:10]]
        systems["knn"][str(u)] = [str(i) for i in by_knn[:10]]
        systems["random"][str(u)] = [str(i) for i in rng.choice(candidates, 10, replace=False)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        results = evaluate_recsys_systems(
            str(folder / "u1.test"), systems, ["topn", "beyond"],
            train=str(folder / "u1.base"), features=str(folder / "u.item"),
        )  # fmt: skip
    s = {r.name: r.summary for r in results}
    pop, knn, rand = s["popularity"], s["knn"], s["random"]
    assert pop["Novelty@10"] < knn["Novelty@10"] < rand["Novelty@10"]
    assert pop["Gini@10"] > rand["Gini@10"]
    assert pop["LongTail@10"] < rand["LongTail@10"]
    assert min(pop["P@10"], knn["P@10"]) > 5 * rand["P@10"]
    # the popularity list is the Serendipity baseline itself (same tie order: by item id)
    assert pop["Serendipity@10"] == 0.0
    catalog = len(np.unique(np.concatenate([base[:, 1], test[:, 1]])))
    assert catalog == 1682
    for name, recs in systems.items():
        distinct = len({i for lst in recs.values() for i in lst})
        assert s[name]["CatalogCoverage@10"] == pytest.approx(distinct / catalog), name
        assert s[name]["UserCoverage"] == 1.0
    # P@10 of the popularity lists, counted here: relevant = test rating >= 4
    relevant = {}
    for u, i, r, _ in test:
        if r >= 4:
            relevant.setdefault(str(u), set()).add(str(i))
    precision = [sum(i in relevant[u] for i in systems["popularity"][u]) / 10 for u in relevant]
    assert pop["P@10"] == pytest.approx(sum(precision) / len(precision), abs=1e-12)
    assert results[0].counts["P@10"] == len(relevant) == 456
