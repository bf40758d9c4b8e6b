"""`rankscope.recsys.evaluate_folds` and `rankscope recsys --folds`: on MovieLens 100K's
u1-u5 folds, each fold's values are those of `rankscope.evaluate_recsys` on that fold alone, and the
means, spreads and tests those of the fold values computed here (scipy as the oracle of
the paired t test); tiny folds for exact expectations; bad input."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from rankscope import InputError, UsageError, evaluate_recsys
from rankscope.recsys import evaluate_folds, read_interactions
from tests.conftest import DATA, need, run_cli

TOP = 20


def _popular(train: str) -> dict[str, list[str]]:
    """Most popular items of the training log (by number of ratings, then item id), the
    same list for every training user."""
    log = read_interactions(train)
    items = log.items.strings_of(log.item)
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    top = sorted(counts, key=lambda i: (-counts[i], int(i)))[: 2 * TOP]
    return {u: top for u in sorted(set(log.users.strings_of(log.user)))}


def _lowest_ids(train: str) -> dict[str, list[str]]:
    """A deterministic non-personalised other: the items with the lowest ids."""
    log = read_interactions(train)
    return {u: [str(i) for i in range(1, 2 * TOP + 1)] for u in set(log.users.strings_of(log.user))}


@pytest.fixture(scope="module")
def movielens(tmp_path_factory):
    folder = need(DATA / "movielens-100k")
    folds = [(str(folder / f"u{i}.base"), str(folder / f"u{i}.test")) for i in range(1, 6)]
    systems = {
        "pop": [_popular(base) for base, _ in folds],
        "ids": [_lowest_ids(base) for base, _ in folds],
    }
    recs = tmp_path_factory.mktemp("recs")
    for name, lists in systems.items():
        (recs / name).mkdir()
        for i, per_user in enumerate(lists, start=1):
            lines = [f"{u}\t{item}" for u, items in per_user.items() for item in items]
            (recs / name / f"u{i}.tsv").write_text("\n".join(lines) + "\n")
    return folder, folds, systems, recs


MEASURES = ["P@10", "nDCG@10", "Recall@20"]


@pytest.fixture(scope="module")
def result(movielens):
    folder, _, systems, _ = movielens
    with pytest.warns():  # training items removed, users without relevant items, ...
        return evaluate_folds(str(folder), systems, MEASURES, users=True)


@pytest.fixture(scope="module")
def alone(movielens):
    """Each (fold, system) evaluated alone by `rankscope.evaluate_recsys`: {(fold, system):
    table}."""
    _, folds, systems, _ = movielens
    tables = {}
    for f, (base, test) in enumerate(folds):
        for name, lists in systems.items():
            with pytest.warns():
                tables[f, name] = evaluate_recsys(
                    test, lists[f], ["P@10", "Recall@20"], train=base, seen="drop",
                    output="dict",
                )  # fmt: skip
    return tables


def _summary(table: dict, measure: str) -> float:
    rows = zip(table["user"], table["measure"], table["value"], strict=True)
    return next(v for u, m, v in rows if u == "all" and m == measure)


def test_each_fold_is_the_fold_evaluated_alone(result, alone):
    assert result.folds == ["u1", "u2", "u3", "u4", "u5"]
    # measures in the registry's order, as `rankscope.evaluate_recsys` lists them
    assert result.systems == ["pop", "ids"] and result.measures == ["P@10", "Recall@20", "nDCG@10"]
    for (f, name), table in alone.items():
        for measure in ("P@10", "Recall@20"):
            assert result.value(name, measure, f"u{f + 1}") == _summary(table, measure)


def test_means_spreads_and_tests_over_the_folds(result):
    scipy_stats = pytest.importorskip("scipy.stats")
    for measure in MEASURES:
        pop = [result.value("pop", measure, f) for f in result.folds]
        ids = [result.value("ids", measure, f) for f in result.folds]
        s = result.summary("ids", measure)
        assert s.mean == pytest.approx(statistics.fmean(ids), abs=1e-15)
        assert s.std == pytest.approx(statistics.stdev(ids), rel=1e-12)
        assert (s.min, s.max, s.folds) == (min(ids), max(ids), 5)
        assert s.baseline == "pop" and s.difference == pytest.approx(
            statistics.fmean(ids) - statistics.fmean(pop), abs=1e-15
        )
        # one comparison per measure: Holm leaves the p-value as it is
        oracle = scipy_stats.ttest_rel(ids, pop).pvalue
        assert s.p_value == pytest.approx(oracle, rel=1e-9)
        assert s.wins + s.losses == 5 and s.wins == sum(
            a > b for a, b in zip(ids, pop, strict=True)
        )
        assert result.summary("pop", measure).p_value is None  # the baseline itself


def test_the_pooled_users_test(result, alone):
    scipy_stats = pytest.importorskip("scipy.stats")
    differences = []
    for f in range(5):
        per = {}
        for name in ("pop", "ids"):
            table = alone[f, name]
            rows = zip(table["user"], table["measure"], table["value"], strict=True)
            per[name] = {u: v for u, m, v in rows if u != "all" and m == "P@10"}
        differences += [per["ids"][u] - per["pop"][u] for u in per["ids"] if u in per["pop"]]
    s = result.summary("ids", "P@10")
    assert s.users == len(differences)
    oracle = scipy_stats.ttest_1samp(differences, 0.0).pvalue
    assert s.p_users == pytest.approx(oracle, rel=1e-9, abs=1e-300)


def test_the_command_prints_the_same_numbers(movielens, result, capsys):
    folder, _, _, recs = movielens
    code, out, err = run_cli(
        ["recsys", "--folds", str(folder), str(recs), "-m", "P@10", "-m", "nDCG@10",
         "-m", "Recall@20", "--baseline", "pop", "--users", "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["folds"] == result.folds and sorted(data["systems"]) == ["ids", "pop"]
    for row in data["values"]:
        assert row["value"] == result.value(row["system"], row["measure"], row["fold"])


def test_the_command_table(tmp_path, capsys):
    folder, recs = _tiny_folds(tmp_path), _tiny_recs(tmp_path)
    (recs / "y" / "u2.tsv").write_text("u\tc\t1\nv\ta\t1\n")  # y misses u in fold 2
    code, out, err = run_cli(
        ["recsys", "--folds", str(folder), str(recs / "x"), str(recs / "y"), "-m", "P@1"],
        capsys,
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "per fold"
    assert [x.split() for x in lines[3:7]] == [
        ["x", "u1", "1.0000"], ["x", "u2", "1.0000"], ["y", "u1", "1.0000"], ["y", "u2", "0.5000"],
    ]  # fmt: skip
    # y: mean 0.75, std of (1, 0.5) = 0.3536, min 0.5, max 1, Δ −0.25, 0 wins 1 loss; the t
    # test of the differences (0, −0.5): t = −1, 1 df, p = 0.5
    row = next(x.split() for x in lines if x.startswith("P@1") and " y " in x)
    assert row == ["P@1", "y", "0.7500", "0.3536", "0.5000", "1.0000", "-0.2500", "0/1", "0.5000"]


def test_seen_keep_is_the_fold_evaluated_with_keep(movielens):
    folder, folds, systems, _ = movielens
    one = {"pop": systems["pop"][:2], "ids": systems["ids"][:2]}
    with pytest.warns():
        kept = evaluate_folds(folds[:2], one, ["P@10"], seen="keep")
    base, test = folds[0]
    with pytest.warns():
        table = evaluate_recsys(test, one["pop"][0], ["P@10"], train=base, seen="keep",
                                output="dict", per_user=False)  # fmt: skip
    assert kept.value("pop", "P@10", "u1") == table["value"][0]


def test_preferences_over_the_folds_by_hand():
    # two users; "good" ranks each user's relevant test item first, "bad" never lists it
    folds = [
        ({"u": {"a": 5}, "v": {"b": 4}}, {"u": {"b": 5, "c": 2}, "v": {"a": 4}}),
        ({"u": {"b": 5}, "v": {"a": 4}}, {"u": {"a": 5}, "v": {"b": 4}}),
    ]
    recs = {
        "bad": [{"u": ["d", "c"], "v": ["d"]}, {"u": ["d"], "v": ["d"]}],
        "good": [{"u": ["b", "d"], "v": ["a"]}, {"u": ["a"], "v": ["d", "b"]}],
    }
    result = evaluate_folds(folds, recs, ["RPP", "P@1"])
    assert result.measures == ["P@1", "RPP vs bad"]  # over the baseline, the first system
    # fold 1: good finds every relevant item before bad: preference 1 per user; bad's own 0
    assert result.value("good", "RPP vs bad", "u1") == 1.0
    assert result.value("bad", "RPP vs bad", "u1") == 0.0
    # fold 2: u as before; v's relevant item is at rank 2 for good, missed by bad: still 1
    assert result.value("good", "RPP vs bad", "u2") == 1.0
    # P@1: fold 1 both users hit (1.0); fold 2 only u (0.5)
    assert [result.value("good", "P@1", f) for f in ("u1", "u2")] == [1.0, 0.5]
    s = result.summary("good", "P@1")
    assert (s.mean, s.std) == (0.75, statistics.stdev([1.0, 0.5]))
    assert s.baseline == "bad" and s.difference == 0.75
    # training items are dropped by default: "a" for u in fold 1 is not in its lists anyway
    frame = result.to_frame("dict")
    assert len(frame["value"]) == 2 * 2 * 2


def test_training_items_are_dropped_by_default():
    folds = [({"u": {"a": 5}}, {"u": {"b": 5}}), ({"u": {"b": 5}}, {"u": {"a": 5}})]
    # the training item first: dropped, the test item moves to rank 1
    recs = {"s": [["u1", ["a", "b"]], ["u1", ["b", "a"]]]}
    recs = {"s": [{"u": ["a", "b"]}, {"u": ["b", "a"]}], "t": [{"u": ["b"]}, {"u": ["a"]}]}
    with pytest.warns(match="training data removed"):
        dropped = evaluate_folds(folds, recs, ["P@1"])
    assert dropped.value("s", "P@1", "u1") == 1.0
    with pytest.warns(match="seen='drop' removes them"):
        kept = evaluate_folds(folds, recs, ["P@1"], seen="keep")
    assert kept.value("s", "P@1", "u1") == 0.0


def test_each_distinct_warning_is_said_once_with_the_folds_and_systems_it_applies_to():
    import warnings

    from rankscope import RankscopeWarning

    # training items recommended: s lists 2 in fold u1 (a, c) and 1 in u2 (b); t none in u1,
    # 2 in u2 (b, c): one warning for the three evaluations, with u1/s's number.  t's list
    # in u2 is empty after the drop: a warning of that one evaluation, told as it was.
    folds = [
        ({"u": {"a": 5, "c": 3}}, {"u": {"b": 5}}), ({"u": {"b": 5, "c": 3}}, {"u": {"a": 5}})
    ]  # fmt: skip
    recs = {
        "s": [{"u": ["a", "c", "b"]}, {"u": ["b", "a"]}], "t": [{"u": ["b"]}, {"u": ["b", "c"]}]
    }  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_folds(folds, recs, ["P@1"])
    told = [str(w.message) for w in caught if isinstance(w.message, RankscopeWarning)]
    assert told[0] == (
        "in 3 of the 4 fold × system evaluations (folds u1, u2; systems s, t): 2 recommended "
        "(user, item) pairs of the training data removed (the numbers of fold u1, s; they "
        "differ between them)"
    )
    assert len([t for t in told if "training data removed" in t]) == 1
    # one evaluation only: told as it was
    assert len([t for t in told if t.startswith("fold u2, t: ")]) == 1
    # the same numbers everywhere: no note that they differ
    recs = {"s": [{"u": ["a", "b"]}, {"u": ["b", "a"]}], "t": [{"u": ["c", "b"]}, {"u": ["c"]}]}
    with pytest.warns(RankscopeWarning) as record:
        evaluate_folds(folds, recs, ["P@1"])
    assert [str(w.message) for w in record if "removed" in str(w.message)] == [
        "in 4 of the 4 fold × system evaluations (folds u1, u2; systems s, t): 1 recommended "
        "(user, item) pairs of the training data removed"
    ]


# -- bad input ----------------------------------------------------------------------------------


def _tiny_folds(tmp: Path) -> Path:
    folder = tmp / "folds"
    folder.mkdir()
    for i in (1, 2):
        (folder / f"u{i}.base").write_text(f"u\ta\t5\t1\nv\tb\t4\t{i}\n")
        (folder / f"u{i}.test").write_text("u\tb\t5\t3\nv\ta\t4\t4\n")
    return folder


def _tiny_recs(tmp: Path, systems=("x", "y"), folds=(1, 2)) -> Path:
    recs = tmp / "recs"
    for name in systems:
        (recs / name).mkdir(parents=True)
        for i in folds:
            (recs / name / f"u{i}.tsv").write_text("u\tb\t1\nv\ta\t1\n")
    return recs


def test_a_missing_fold_file_is_named(tmp_path):
    folder = _tiny_folds(tmp_path)
    (folder / "u2.test").unlink()
    with pytest.raises(InputError, match="u2.base: its test data, u2.test, is not in"):
        evaluate_folds(str(folder), str(_tiny_recs(tmp_path)), ["P@1"])


def test_the_folds_must_be_a_complete_contiguous_set(tmp_path):
    folder = _tiny_folds(tmp_path)  # u1, u2
    recs = str(_tiny_recs(tmp_path, folds=(1, 2, 4)))
    for part in ("base", "test"):
        (folder / f"u4.{part}").write_text("u\tb\t5\t3\n")
    # an older split's fourth fold left beside a newer split of two: not three folds
    with pytest.raises(InputError, match=r"fold u3 \(u3.base and u3.test\) is missing"):
        evaluate_folds(str(folder), recs, ["P@1"])
    (folder / "u4.base").unlink()
    with pytest.raises(InputError, match="u4.test: its training data, u4.base, is not in"):
        evaluate_folds(str(folder), recs, ["P@1"])
    (folder / "u4.test").unlink()
    for part in ("base", "test"):
        (folder / f"u0.{part}").write_text("u\tb\t5\t3\n")
    with pytest.raises(InputError, match="fold u0 is not one of u1 ... u3"):
        evaluate_folds(str(folder), recs, ["P@1"])


def test_a_missing_recommendation_file_is_named(tmp_path):
    folder = _tiny_folds(tmp_path)
    recs = _tiny_recs(tmp_path, folds=(1,))
    with pytest.raises(InputError, match=r"recs/x: no recommendations for fold u2"):
        evaluate_folds(str(folder), str(recs), ["P@1"])


def test_bad_requests(tmp_path):
    folder, recs = _tiny_folds(tmp_path), _tiny_recs(tmp_path)
    with pytest.raises(UsageError, match="baseline 'z' is not one of the systems"):
        evaluate_folds(str(folder), str(recs), ["P@1"], baseline="z")
    with pytest.raises(UsageError, match="unknown test 'randomized-tukey'"):
        evaluate_folds(str(folder), str(recs), ["P@1"], test="randomized-tukey")
    with pytest.raises(UsageError, match="at least two systems"):
        evaluate_folds(str(folder), str(recs / "x"), ["RPP"])
    with pytest.raises(UsageError, match="P@0|k"):
        evaluate_folds(str(folder), str(recs), ["P@0"])
    with pytest.raises(UsageError, match="2 recommendation lists for 1 folds"):
        evaluate_folds([({"u": {"a": 1}}, {"u": {"b": 1}})], {"s": [{}, {}]}, ["P@1"])
    with pytest.raises(InputError, match="recs: no fold files"):
        evaluate_folds(str(recs), str(recs), ["P@1"])


def test_command_bad_input(tmp_path, capsys):
    folder, recs = _tiny_folds(tmp_path), _tiny_recs(tmp_path)
    code, _, err = run_cli(["recsys", "--folds", str(folder)], capsys)
    assert code == 2 and "needs the recommendations" in err
    code, _, err = run_cli(["recsys", str(folder / "u1.test"), "x.tsv", "--users"], capsys)
    assert code == 2 and "--users goes with --folds" in err
    code, _, err = run_cli(
        ["recsys", "--folds", str(folder), str(recs), "--train", str(folder / "u1.base")], capsys
    )
    assert code == 2 and "--train does not go with --folds" in err
    (recs / "x" / "u2.tsv").write_text("u\tb\tnot-a-score\n")
    code, _, err = run_cli(["recsys", "--folds", str(folder), str(recs), "-m", "P@1"], capsys)
    assert code == 2 and "u2.tsv:1" in err and "Traceback" not in err


def test_the_baseline_by_its_directory(tmp_path):
    """``--baseline recs/y``: the system whose directory it is, as by its name."""
    folder, recs = _tiny_folds(tmp_path), _tiny_recs(tmp_path)
    (recs / "y" / "u1.tsv").write_text("u\tc\t1\nv\tc\t1\n")  # y misses both in fold 1
    result = evaluate_folds(str(folder), str(recs), ["P@1"], baseline=str(recs / "y"))
    s = result.summary("x", "P@1")
    # x: 1.0 in both folds; y: 0.0 then 1.0: mean difference (1 + 0) / 2
    assert s.baseline == "y" and s.difference == 0.5
