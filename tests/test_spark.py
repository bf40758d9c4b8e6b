"""The Spark backend: on a ``local[2,2]`` session (two executor threads, a failed task tried
twice), every number identical, bit for bit, to the local path's — the same partitions and
kernels as the Dask backend, run by Spark's ``mapInArrow`` — for run files, runs read first,
other judgment formats, every recommender measure and Parquet datasets; a task whose Python
worker dies is run again and changes nothing."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import warnings
from pathlib import Path

import pytest

import rankscope
from rankscope.errors import InputError, RankscopeWarning, UsageError

from .conftest import CONFORMANCE, need, run_cli
from .test_dask import (
    EVERY,
    MEASURES,
    QRELS,
    RUNS,
    _frames,
    _write_by_query,
    extras,  # noqa: F401 - fixtures shared with the Dask tests
    logs,  # noqa: F401
    same_recsys,
    same_trec,
)
from .test_dask import (
    both as dask_both,
)

pyspark = pytest.importorskip("pyspark", reason="the Spark backend needs the spark extra: "
                              "pip install 'rankscope[spark]'")  # fmt: skip
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("the Spark backend needs Java (default-jre-headless)", allow_module_level=True)

from rankscope.scale import Partitioned  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::rankscope.errors.RankscopeWarning")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = (
            SparkSession.builder.master("local[2,2]").appName("rankscope-tests")
            .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )  # fmt: skip
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


#: The local result and the Spark one, with the warnings each gave.
both = functools.partial(dask_both, other="spark")


def test_trec_run_files_and_runs_read_first(spark):
    for runs in (RUNS, {Path(p).name: rankscope.read_run(p) for p in RUNS}):
        (local, w1), (found, w2) = both(rankscope.evaluate_many, QRELS, runs, MEASURES,
                                        complete=True)  # fmt: skip
        same_trec(local, found)
        assert sorted(w1) == sorted(w2)


def test_trec_preference_judgments(spark):
    suite = need(CONFORMANCE / "trec_eval" / "suite")
    (local, w1), (found, w2) = both(rankscope.evaluate_many, str(suite / "prefs.test"),
                                    str(suite / "prefs.results.test"), "all_prefs",
                                    rel_format="prefs")  # fmt: skip
    same_trec(local, found)
    assert sorted(w1) == sorted(w2)


def test_a_bad_run_file_is_the_users_error(spark, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("301 Q0 d1 1 2.0 x\n301 Q0 d2 2 nope x\n")
    with pytest.raises(InputError, match=r"bad.txt:2: score .nope. is not a number"):
        rankscope.evaluate_many(QRELS, [str(bad)], ["AP"], backend="spark")


def test_recsys_every_measure(spark, logs, extras):  # noqa: F811
    test, recs = logs
    systems = {**recs, "predicted": extras["predicted"], "probability": extras["probability"]}
    (local, w1), (found, w2) = both(
        rankscope.evaluate_recsys_systems, test, systems, EVERY, train=extras["train"],
        features=extras["features"], seen="drop",
    )  # fmt: skip
    same_recsys(local, found)
    assert sorted(w1) == sorted(w2) and w1


def test_recsys_partitioned(spark, logs, extras, tmp_path):  # noqa: F811
    test, recs = logs
    train = extras["train"]
    users = sorted(set(test["user"]) | set(recs["pop"]["user"]) | set(train["user"]))
    groups = [users[i::3] for i in range(3)]
    for name, frame in (*recs.items(), ("test", test), ("train", train)):
        _write_by_query(frame, tmp_path / name, "user", groups)
    measures = ["all", "ILD(distance=jaccard)@5"]
    local = rankscope.evaluate_recsys_systems(test, recs, measures, train=train,
                                              features=extras["features"])  # fmt: skip
    found = rankscope.evaluate_recsys_systems(
        Partitioned(tmp_path / "test"), [Partitioned(tmp_path / n) for n in recs], measures,
        train=Partitioned(tmp_path / "train"), features=extras["features"], backend="spark",
    )  # fmt: skip
    same_recsys(local, found)


def _results(fn, *args, **kwargs):
    """``fn``'s result and the texts of rankscope's warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, [str(w.message) for w in caught if isinstance(w.message, RankscopeWarning)]


def test_recsys_spark_frames(spark, logs, extras):  # noqa: F811
    """Every input a Spark DataFrame (grouped by user by Spark, each partition's rows read
    by the local frame readers in the frame's order): the values and warnings of the same
    frames read by the local path; then only the lists, the other inputs read whole."""
    test, recs = logs
    frame = spark.createDataFrame
    systems = {**recs, "predicted": extras["predicted"], "probability": extras["probability"]}
    options = {"features": extras["features"], "seen": "drop"}
    local, w1 = _results(rankscope.evaluate_recsys_systems, test, systems, EVERY,
                         train=extras["train"], baseline=extras["baseline"], **options)  # fmt: skip
    found, w2 = _results(
        rankscope.evaluate_recsys_systems, frame(test), {n: frame(f) for n, f in systems.items()},
        EVERY, train=frame(extras["train"]), baseline=frame(extras["baseline"]),
        backend="spark", **options,
    )  # fmt: skip
    same_recsys(local, found)
    # the same warnings, a frame named as what it is, its rows the frame's (an example row 1
    # of the pandas frame is row 1 of the Spark one)
    named = [re.sub(r"<Spark DataFrame (\w+)>", r"<recommendations frame \1>", t) for t in w2]
    assert sorted(w1) == sorted(named) and any("frame pop>, row" in t for t in w1)
    found, w3 = _results(
        rankscope.evaluate_recsys_systems, test, {n: frame(f) for n, f in systems.items()},
        EVERY, train=extras["train"], baseline=extras["baseline"], backend="spark", **options,
    )  # fmt: skip
    same_recsys(local, found)
    named = [re.sub(r"<Spark DataFrame (\w+)>", r"<recommendations frame \1>", t) for t in w3]
    assert sorted(w1) == sorted(named)


def test_recsys_spark_frames_columns_and_timestamps(spark, logs, extras):  # noqa: F811
    """Columns found by the local readers' names (``columns=`` renames), a Spark timestamp
    column, a separate popularity log, the lists as ranks and their user ids as text where
    the logs' are integers: the local path's values."""
    import pandas as pd

    test, recs = logs
    names = {"user": "userId", "item": "movieId"}
    renamed = test.rename(columns=names)
    renamed["timestamp"] = pd.to_datetime(renamed["timestamp"], unit="s")
    ranked = recs["pop"].assign(rank=recs["pop"].groupby("user").cumcount() + 1)
    ranked = ranked.drop(columns="score").rename(columns=names)
    ranked["userId"] = ranked["userId"].astype(str)  # text ids beside the log's integers
    measures = ["P@10", "nDCG@10", "Novelty", "CatalogCoverage", "PopRSP"]
    popularity = extras["train"].iloc[::2].rename(columns=names)
    local = rankscope.evaluate_recsys_systems(
        renamed, {"ranked": ranked}, measures, popularity=popularity,
        columns={"user": "userId", "item": "movieId"},
    )  # fmt: skip
    frame = spark.createDataFrame
    found = rankscope.evaluate_recsys_systems(
        frame(renamed), {"ranked": frame(ranked)}, measures, popularity=frame(popularity),
        columns={"user": "userId", "item": "movieId"}, backend="spark",
    )  # fmt: skip
    same_recsys(local, found)


def test_trec_spark_frames(spark):
    """Runs and judgments as Spark DataFrames (grouped by query), or only the runs: the
    values and warnings of the same frames evaluated locally."""
    qrels, runs, _, _ = _frames()
    frame = spark.createDataFrame
    for judged in (qrels, frame(qrels)):
        local, w1 = _results(rankscope.evaluate_many, qrels, runs, MEASURES, complete=True)
        found, w2 = _results(rankscope.evaluate_many, judged,
                             {n: frame(f) for n, f in runs.items()}, MEASURES, complete=True,
                             backend="spark")  # fmt: skip
        same_trec(local, found)
        assert sorted(w1) == sorted(w2)
    (name, one), *_ = runs.items()
    local = rankscope.evaluate_many(qrels, {"run": one}, MEASURES)
    same_trec(local, rankscope.evaluate_many(frame(qrels), frame(one), MEASURES,
                                             backend="spark"))  # fmt: skip


def test_spark_frames_mistakes(spark, logs, tmp_path):  # noqa: F811
    """A Spark DataFrame where it cannot be read, inputs partitioned unalike, and a bad
    value in a frame: clear errors, raised on the driver."""
    import pandas as pd

    test, recs = logs
    frame = spark.createDataFrame
    with pytest.raises(UsageError, match="Spark DataFrames are inputs of backend='spark'"):
        rankscope.evaluate_recsys_systems(frame(test), frame(recs["pop"]), ["P@10"],
                                          backend="dask", scheduler=object())  # fmt: skip
    with pytest.raises(UsageError, match="is a Spark DataFrame: an input of backend='spark'"):
        rankscope.evaluate_recsys_systems(frame(test), recs["pop"], ["P@10"])
    with pytest.raises(UsageError, match=r"as a dict \{name: DataFrame\}"):
        rankscope.evaluate_recsys_systems(test, {"a": frame(recs["pop"]), "b": recs["half"]},
                                          ["P@10"], backend="spark")  # fmt: skip
    with pytest.raises(UsageError, match="must be a Spark DataFrame too"):
        _write_by_query(test, tmp_path / "test", "user", [sorted(set(test["user"]))])
        rankscope.evaluate_recsys_systems(Partitioned(tmp_path / "test"), frame(recs["pop"]),
                                          ["P@10"], backend="spark")  # fmt: skip
    bad = recs["pop"].astype({"score": object})
    bad.loc[7, "score"] = "high"
    with pytest.raises(InputError, match="<Spark DataFrame recommendations>: row 7: score 'high' "
                       "is not a number"):  # (the frame's row, not its partition's)
        rankscope.evaluate_recsys_systems(test, frame(pd.DataFrame(bad)), ["P@10"],
                                          backend="spark")  # fmt: skip
    qrels, runs, _, _ = _frames()
    with pytest.raises(InputError, match=r"<Spark DataFrame run>: missing column\(s\) 'score'"):
        rankscope.evaluate_many(qrels, frame(next(iter(runs.values())).drop(columns="score")),
                                ["AP"], backend="spark")  # fmt: skip


def test_usage(spark, monkeypatch):
    from pyspark.sql import SparkSession

    with pytest.raises(UsageError, match="scheduler must be a Spark master URL"):
        rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="spark", scheduler=3)
    with monkeypatch.context() as m:
        m.setattr(SparkSession, "getActiveSession", staticmethod(lambda: None))
        with pytest.raises(UsageError, match="needs a Spark session"):
            rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="spark")
    # a master URL while a session runs: that session, left running
    found = rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="spark", scheduler="local[1]")
    same_trec(rankscope.evaluate_many(QRELS, RUNS, ["AP"]), found)
    assert SparkSession.getActiveSession() is spark
    monkeypatch.setitem(sys.modules, "pyspark", None)  # the extra not installed
    with pytest.raises(UsageError, match=r"rankscope\[spark\]"):
        rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="spark")


def test_cli_backend_spark(spark, capsys, tmp_path):
    """``--backend spark --scheduler MASTER``: the same output, byte for byte."""
    args = ["eval", "-q", "-m", "all_trec", QRELS, *RUNS]
    local = run_cli(args, capsys)
    found = run_cli([args[0], "--backend", "spark", "--scheduler", "local[2]", *args[1:]], capsys)
    assert found[:2] == local[:2] and local[0] == 0
    code, _, err = run_cli(["recsys", "--table", "reliability", "--backend", "spark",
                            str(tmp_path / "t.tsv"), str(tmp_path / "r.tsv")], capsys)  # fmt: skip
    assert code == 2 and "no -m, --per-user, --weights, --segments, --scheduler or --backend" in err


def flaky(marker: str, function, *args):
    """The task, but the first one run ends its Python worker."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return function(*args)
    os._exit(1)


def flaky_group(partition: int, tables, marker: str, function, *args):
    """`flaky` for a function of `SparkEngine.grouped` (its partition and tables first)."""
    return flaky(marker, function, partition, tables, *args)


@pytest.mark.slow  # Spark restarts its Python worker
def test_a_task_whose_worker_dies_runs_again(spark, logs, monkeypatch, tmp_path):  # noqa: F811
    import cloudpickle

    from rankscope.scale.spark import SparkEngine

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = str(tmp_path / "died")
    run = SparkEngine.run
    monkeypatch.setattr(SparkEngine, "run", lambda self, tasks: run(
        self, [(flaky, marker, f, *args) for f, *args in tasks]))  # fmt: skip
    local = rankscope.evaluate_many(QRELS, RUNS, MEASURES, complete=True)
    found = rankscope.evaluate_many(QRELS, RUNS, MEASURES, complete=True, backend="spark")
    assert os.path.exists(marker)
    same_trec(local, found)
    test, recs = logs
    os.unlink(marker)
    reference = rankscope.evaluate_recsys_systems(test, recs, ["P@10", "Gini", "nDCG@10"])
    found = rankscope.evaluate_recsys_systems(test, recs, ["P@10", "Gini", "nDCG@10"],
                                              backend="spark")  # fmt: skip
    assert os.path.exists(marker)
    same_recsys(reference, found)
    # Spark DataFrames, grouped by user by Spark: the first partition's worker dies
    os.unlink(marker)
    grouped = SparkEngine.grouped
    monkeypatch.setattr(SparkEngine, "grouped", lambda self, frames, key, function, *args, **kw:
                        grouped(self, frames, key, flaky_group, marker, function, *args,
                                **kw))  # fmt: skip
    found = rankscope.evaluate_recsys_systems(
        spark.createDataFrame(test), {n: spark.createDataFrame(f) for n, f in recs.items()},
        ["P@10", "Gini", "nDCG@10"], backend="spark",
    )  # fmt: skip
    assert os.path.exists(marker)
    same_recsys(reference, found)
