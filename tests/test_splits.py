"""The offline protocol's splits (`rankscope.recsys.splits`) and `rankscope split`: sizes,
leakage, coverage and determinism on MovieLens 100K; exact expectations on tiny logs."""

from __future__ import annotations

import functools
import warnings
from collections import Counter

import numpy as np
import pytest

from rankscope import InputError, RankscopeWarning, UsageError
from rankscope.recsys import read_interactions, splits
from rankscope.report.splits import format_log
from tests.conftest import DATA, need, run_cli


def _udata():
    return str(need(DATA / "movielens-100k" / "u.data"))


def _rows(log) -> list[tuple]:
    """(user, item, rating, timestamp) of each row, as strings and numbers."""
    users = log.users.strings_of(log.user)
    items = log.items.strings_of(log.item)
    ratings = [None] * len(log) if log.rating is None else log.rating.tolist()
    times = [None] * len(log) if log.timestamp is None else log.timestamp.tolist()
    return list(zip(users, items, ratings, times, strict=True))


def _pairs(log) -> set[tuple[str, str]]:
    return {(u, i) for u, i, _, _ in _rows(log)}


@pytest.fixture(scope="module")
def udata_rows():
    path = _udata()
    return Counter(_rows(read_interactions(path))), path


def _check_split(split, whole: Counter, exact: bool = False) -> None:
    """No test pair in training; training + test = the log (u.data lists each pair once:
    as many distinct pairs as rows, the same ratings and times; ``exact``: row for row)."""
    n = len(split.train.items)
    train, test = split.train.keys(n), split.test.keys(n)
    assert not np.intersect1d(train, test).size
    rows = len(train) + len(test)
    assert rows == sum(whole.values()) == len(np.unique(np.concatenate([train, test])))
    for column in ("rating", "timestamp"):
        values = np.concatenate([getattr(split.train, column), getattr(split.test, column)])
        assert values.sum() == sum(r[2 if column == "rating" else 3] for r in whole.elements())
    if exact:
        assert Counter(_rows(split.train)) + Counter(_rows(split.test)) == whole


# -- MovieLens 100K -------------------------------------------------------------------------


def test_holdout_on_movielens(udata_rows):
    whole, path = udata_rows
    split = splits.holdout(path, test_size=0.2, seed=1)
    assert (len(split.train), len(split.test)) == (80_000, 20_000)
    _check_split(split, whole, exact=True)
    again = splits.holdout(path, test_size=0.2, seed=1)
    assert _rows(again.test) == _rows(split.test)  # same seed, same split, same order
    other = splits.holdout(path, test_size=0.2, seed=2)
    assert _pairs(other.test) != _pairs(split.test)


def test_per_user_holdout_on_movielens(udata_rows):
    whole, path = udata_rows
    split = splits.holdout(path, test_size=0.2, seed=3, per_user=True)
    _check_split(split, whole)
    per_user = Counter(u for u, *_ in _rows(read_interactions(path)))
    test_per_user = Counter(u for u, *_ in _rows(split.test))
    for user, n in per_user.items():  # every MovieLens user has >= 20 ratings
        assert test_per_user[user] == min(n - 1, max(1, int(np.floor(0.2 * n + 0.5))))
    assert _pairs(splits.holdout(path, 0.2, seed=4, per_user=True).test) != _pairs(split.test)


def test_kfold_on_movielens_partitions_the_log(udata_rows):
    whole, path = udata_rows
    folds = splits.kfold(path, k=5, seed=0)
    assert [len(f.test) for f in folds] == [20_000] * 5
    tests = [_pairs(f.test) for f in folds]
    assert set().union(*tests) == {(u, i) for u, i, _, _ in whole}
    assert sum(len(t) for t in tests) == 100_000  # disjoint: a partition
    for f in folds:
        _check_split(f, whole)
    assert [_rows(f.test) for f in splits.kfold(path, k=5, seed=0)] == [
        _rows(f.test) for f in folds
    ]
    assert _pairs(splits.kfold(path, k=5, seed=1)[0].test) != tests[0]


def test_per_user_kfold_spreads_every_user(udata_rows):
    whole, path = udata_rows
    folds = splits.kfold(path, k=5, seed=0, per_user=True)
    sizes = [len(f.test) for f in folds]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 100_000
    per_user = Counter(u for u, *_ in whole.elements())
    counts = [Counter(u for u, *_ in _rows(f.test)) for f in folds]
    for user, n in per_user.items():
        in_folds = [c[user] for c in counts]
        assert max(in_folds) - min(in_folds) <= 1 and sum(in_folds) == n
    for f in folds:
        _check_split(f, whole)


def test_temporal_and_leave_one_out_on_movielens(udata_rows):
    whole, path = udata_rows
    split = splits.temporal(path, cut=0.8)
    _check_split(split, whole)
    assert split.train.timestamp.max() < split.test.timestamp.min()
    times = np.sort(read_interactions(path).timestamp)
    cut = times[80_000]
    assert len(split.train) == int((times < cut).sum())
    loo = splits.leave_one_out(path)
    _check_split(loo, whole)
    assert len(loo.test) == 943  # one per user
    latest: dict[str, float] = {}
    for u, _, _, t in whole:
        latest[u] = max(latest.get(u, -1.0), t)
    assert all(t == latest[u] for u, _, _, t in _rows(loo.test))
    random_loo = splits.leave_one_out(path, by="random", seed=5)
    _check_split(random_loo, whole)
    assert len(random_loo.test) == 943
    assert _pairs(random_loo.test) != _pairs(loo.test)


# -- tiny logs: exact expectations -----------------------------------------------------------

TINY = "\n".join(
    [
        "u1\ta\t5\t100",
        "u1\tb\t3\t300",
        "u1\tc\t4\t200",
        "u2\ta\t2\t150",
        "u2\td\t5\t150",  # same time as the line above: the later line is the later one
        "u3\tb\t4\t400",  # a single interaction
    ]
)


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.tsv"
    path.write_text(TINY + "\n")
    return str(path)


def test_leave_one_out_picks_the_latest(tiny):
    with pytest.warns(RankscopeWarning, match="1 user with a single interaction kept whole"):
        split = splits.leave_one_out(tiny)
    assert sorted(_pairs(split.test)) == [("u1", "b"), ("u2", "d")]
    assert ("u3", "b") in _pairs(split.train)


def test_every_user_with_one_interaction_leaves_no_test_data(tmp_path, capsys):
    path = tmp_path / "ones.tsv"
    path.write_text("u1\ta\t5\t100\nu2\tb\t3\t300\nu3\tc\t4\t200\n")
    message = "every user \\(3\\) has a single interaction, kept whole .* test data would be empty"
    per_user_holdout = functools.partial(splits.holdout, per_user=True)
    for make in (splits.leave_one_out, per_user_holdout):
        with pytest.raises(UsageError, match=message):
            make(str(path))
    with pytest.raises(UsageError, match=message):
        splits.leave_one_out(str(path), by="random")
    with pytest.raises(UsageError, match="every user \\(3\\) has at most 2 interactions"):
        splits.temporal_per_user(str(path), last_n=2)
    code, out, err = run_cli(
        ["split", str(path), "--method", "leave-one-out", "-o", str(tmp_path / "folds")], capsys
    )
    assert code == 2 and out == ""
    assert err.startswith("rankscope: error: ") and "the test data would be empty" in err
    assert not (tmp_path / "folds").exists()


def test_temporal_per_user_last_n(tiny):
    with pytest.warns(RankscopeWarning, match="2 users with at most 2 interactions"):
        split = splits.temporal_per_user(tiny, last_n=2)
    assert sorted(_pairs(split.test)) == [("u1", "b"), ("u1", "c")]


def test_temporal_cut_boundaries(tiny):
    # a timestamp: the test data start at the cut, inclusive
    split = splits.temporal(tiny, cut=200)
    assert sorted(_pairs(split.train)) == [("u1", "a"), ("u2", "a"), ("u2", "d")]
    assert sorted(_pairs(split.test)) == [("u1", "b"), ("u1", "c"), ("u3", "b")]
    # times in order: 100 150 150 200 300 400; quantile 0.5: position 3, timestamp 200
    assert _pairs(splits.temporal(tiny, cut=0.5).test) == _pairs(split.test)
    # quantile 0.25: position 1, timestamp 150; both interactions at 150 go to the test data
    assert sorted(_pairs(splits.temporal(tiny, cut=0.25).train)) == [("u1", "a")]
    with pytest.raises(UsageError, match="leaves the training data empty"):
        splits.temporal(tiny, cut=50)
    with pytest.raises(UsageError, match="leaves the test data empty.*from 100 to 400"):
        splits.temporal(tiny, cut=401)


def test_holdout_sizes_round_half_up(tiny):
    assert len(splits.holdout(tiny, test_size=0.25, seed=0).test) == 2  # 1.5 -> 2
    assert len(splits.holdout(tiny, test_size=0.2, seed=0).test) == 1  # 1.2 -> 1
    assert len(splits.holdout(tiny, test_size=0.01, seed=0).test) == 1  # at least one
    assert len(splits.holdout(tiny, test_size=0.99, seed=0).test) == 5  # at most n - 1


def test_kfold_sizes_and_names(tiny):
    folds = splits.kfold(tiny, k=4, seed=9)
    assert [len(f.test) for f in folds] == [2, 2, 1, 1]
    train, test = folds[0]  # a Split unpacks
    assert len(train) + len(test) == 6


def test_repeated_pairs_are_merged_first(tmp_path):
    path = tmp_path / "log.tsv"
    path.write_text("u\ta\t1\t10\nu\ta\t5\t20\nu\tb\t3\t15\nv\ta\t2\t5\n")
    with pytest.warns(RankscopeWarning, match="the latest rating of each is kept"):
        folds = splits.kfold(str(path), k=3, seed=0)
    rows = [r for f in folds for r in _rows(f.test)]
    assert sorted(rows) == [("u", "a", 5.0, 20.0), ("u", "b", 3.0, 15.0), ("v", "a", 2.0, 5.0)]


def test_inputs_of_every_kind():
    frame = pytest.importorskip("pandas").DataFrame(
        {"user": ["u", "u", "v", "v"], "item": ["a", "b", "a", "c"], "rating": [1, 2, 3, 4]}
    )
    assert len(splits.holdout(frame, 0.5, seed=0).test) == 2
    as_dict = {"u": {"a": 1, "b": 2}, "v": {"a": 3, "c": 4}}
    log = read_interactions(as_dict)
    assert _rows(splits.holdout(as_dict, 0.5, seed=0).test) == _rows(
        splits.holdout(log, 0.5, seed=0).test
    )


def test_bad_requests(tiny):
    with pytest.raises(UsageError, match="test_size must lie strictly between 0 and 1"):
        splits.holdout(tiny, test_size=1.0)
    with pytest.raises(UsageError, match="k must be a whole number >= 2"):
        splits.kfold(tiny, k=1)
    with pytest.raises(UsageError, match="7 folds need at least 7 interactions"):
        splits.kfold(tiny, k=7)
    with pytest.raises(UsageError, match="seed must be a whole number >= 0"):
        splits.holdout(tiny, seed=-1)
    with pytest.raises(UsageError, match="by must be 'time' or 'random'"):
        splits.leave_one_out(tiny, by="rating")
    with pytest.raises(UsageError, match="needs timestamps"):
        splits.temporal({"u": {"a": 1, "b": 2}}, cut=0.5)
    with pytest.raises(UsageError, match="<interactions dict>: a temporal split per user needs"):
        splits.leave_one_out({"u": {"a": 1, "b": 2}})
    with pytest.raises(UsageError, match="at least 2 interactions"):
        splits.holdout({"u": {"a": 1}})


# -- the files and the command ---------------------------------------------------------------


def test_written_files_read_back(tiny, tmp_path):
    from rankscope.report.splits import write_splits

    folds = splits.kfold(tiny, k=3, seed=0)
    paths = write_splits(folds, tmp_path / "out")
    assert [p.name for p in paths] == [
        "u1.base", "u1.test", "u2.base", "u2.test", "u3.base", "u3.test",
    ]  # fmt: skip
    for fold, base, test in zip(folds, paths[::2], paths[1::2], strict=True):
        assert _rows(read_interactions(str(base))) == _rows(fold.train)
        assert _rows(read_interactions(str(test))) == _rows(fold.test)
    assert paths[1].read_text().split("\n")[0].count("\t") == 3  # user item rating timestamp
    with pytest.raises(UsageError, match="already exist"):
        write_splits(folds, tmp_path / "out")
    write_splits(folds, tmp_path / "out", force=True)


def test_a_log_without_ratings_keeps_its_times(tmp_path):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"user": ["u", "u"], "item": ["a", "b"], "timestamp": [1, 2]})
    text = format_log(read_interactions(frame))
    assert text == "user\titem\ttimestamp\nu\ta\t1\nu\tb\t2\n"
    path = tmp_path / "log.tsv"
    path.write_text(text)
    log = read_interactions(str(path))
    assert log.rating is None and log.timestamp.tolist() == [1.0, 2.0]


def test_split_command(tiny, tmp_path, capsys):
    out = tmp_path / "folds"
    code, stdout, _ = run_cli(
        ["split", tiny, "--method", "kfold", "--num-folds", "2", "-o", str(out)], capsys
    )
    assert code == 0 and "u2.test" in stdout
    expected = splits.kfold(tiny, k=2, seed=0)
    for i, fold in enumerate(expected, start=1):
        assert _rows(read_interactions(str(out / f"u{i}.test"))) == _rows(fold.test)
    # refuses to overwrite, then overwrites with --force
    code, _, err = run_cli(["split", tiny, "--num-folds", "2", "-o", str(out)], capsys)
    assert code == 2 and "already exist" in err and "--force" in err
    code, _, _ = run_cli(["split", tiny, "--num-folds", "2", "-o", str(out), "--force"], capsys)
    assert code == 0
    code, _, _ = run_cli(
        ["split", tiny, "--method", "temporal", "--cut", "200", "-o", str(tmp_path / "t")], capsys
    )
    assert code == 0
    assert sorted(_pairs(read_interactions(str(tmp_path / "t" / "u1.test")))) == [
        ("u1", "b"), ("u1", "c"), ("u3", "b"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "temporal"], "--method temporal needs --cut"),
        (["--method", "holdout", "--test-size", "1.5"], "must lie strictly between 0 and 1"),
        (["--num-folds", "1"], "must be at least 2"),
        (["--method", "temporal", "--cut", "5000"], "leaves the test data empty"),
    ],
)
def test_split_command_bad_input(tiny, tmp_path, capsys, args, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code, _, err = run_cli(["split", tiny, *args, "-o", str(tmp_path / "o")], capsys)
        except SystemExit as exit:  # argparse's own errors
            code, err = exit.code, capsys.readouterr().err
    assert code == 2 and message in err
    assert "Traceback" not in err


def test_split_command_bad_log(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("u\ta\t5\t1\nu\tb\tfive\t2\n")
    code, _, err = run_cli(["split", str(bad), "-o", str(tmp_path / "o")], capsys)
    assert code == 2 and "bad.tsv:2" in err
    code, _, err = run_cli(["split", str(tmp_path / "missing.tsv"), "-o", "x"], capsys)
    assert code == 2 and "missing.tsv" in err
    assert not (tmp_path / "o").exists()


def test_split_never_overwrites_its_log(tmp_path, capsys):
    log = tmp_path / "u1.base"
    log.write_text(TINY + "\n")
    code, _, err = run_cli(
        ["split", str(log), "--num-folds", "2", "-o", str(tmp_path), "--force"], capsys
    )
    assert code == 2 and "would overwrite the log" in err
    assert log.read_text() == TINY + "\n"


def test_interactions_error_type():
    with pytest.raises(InputError):
        splits.holdout({"u": {"a": float("nan"), "b": 1}})


def test_the_examples_in_the_docstrings():
    import doctest

    from rankscope.recsys import folds

    for module in (splits, folds):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_write_splits_is_public():
    import rankscope
    from rankscope.report.splits import write_splits

    assert rankscope.write_splits is write_splits
