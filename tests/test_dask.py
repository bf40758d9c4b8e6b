"""The Dask backend: on a 2-worker `distributed.LocalCluster`, every number identical, bit
for bit, to the local path's (the local path is the reference: the same inputs evaluated in
one process), for files, frames and Parquet datasets partitioned by query (user), for TREC
and recommender evaluation; a worker killed mid-run changes nothing."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankscope
from rankscope.errors import InputError, UsageError

from .conftest import CONFORMANCE, DATA, need, run_cli

distributed = pytest.importorskip(
    "distributed", reason="the Dask backend needs the dask extra: pip install 'rankscope[dask]'"
)
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

from rankscope.scale import Partitioned  # noqa: E402

# the warnings both paths give are compared where they matter (`both`); here they are noise
pytestmark = pytest.mark.filterwarnings("ignore::rankscope.errors.RankscopeWarning")

EXAMPLES = Path(rankscope.__file__).parent / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
RUNS = [str(EXAMPLES / f"run.{n}.txt") for n in ("weak", "medium", "strong")]
MEASURES = ["AP", "nDCG@10", "P@5", "RR", "bpref", "ndcg", "gm_map", "num_rel", "num_q",
            "num_rel_ret", "runid", "relstring", "Rprec"]  # fmt: skip
TOPN = ["P@10", "Recall@10", "nDCG@10", "MAP@5", "MAP(denominator=min)@10", "MRR",
        "HitRate@3", "F1", "UserCoverage"]  # fmt: skip


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's own start-up notes
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        with distributed.Client(cluster) as c:
            yield c
        cluster.close()


def bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.int64) if a.dtype == np.float64 else a


def same_trec(local, dask) -> None:
    """Equal run by run: query order, per-query values (float bits), summaries."""
    assert [r.run_name for r in local] == [r.run_name for r in dask]
    for x, y in zip(local, dask, strict=True):
        assert x.query_ids == y.query_ids
        assert [r.label for r in x.requests] == [r.label for r in y.requests]
        for req, a, b in zip(x.requests, x.values, y.values, strict=True):
            assert a.dtype == b.dtype, req.label
            assert np.array_equal(bits(a), bits(b)), req.label
        assert x.summary == y.summary
        assert [type(s) for s in x.summary] == [type(s) for s in y.summary]
        assert np.array_equal(x.missing, y.missing)
        assert x.complete_num_rel == y.complete_num_rel
        assert x.runid == y.runid


def same_recsys(local, dask) -> None:
    assert [s.name for s in local] == [s.name for s in dask]
    for x, y in zip(local, dask, strict=True):
        assert x.user_ids == y.user_ids
        assert x.labels == y.labels
        for label, a, b in zip(x.labels, x.values, y.values, strict=True):
            assert (a.per_user is None) == (b.per_user is None), label
            if a.per_user is not None:
                assert np.array_equal(bits(a.per_user), bits(b.per_user)), label
            assert bits(np.array([a.summary])) == bits(np.array([b.summary])), label
            assert a.count == b.count, label


def both(fn, *args, other: str = "dask", **kwargs):
    """The local result and the Dask one (``other``'s), with the warnings each gave."""
    out = []
    for backend in ("local", other):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(*args, backend=backend, **kwargs)
        out.append((result, [str(w.message) for w in caught]))
    return out


# -- TREC --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "judgments", "run", "measures"),
    [("prefs", "prefs.test", "prefs.results.test", "all_prefs"),
     ("qrels_prefs", "qrels.test", "results.test", "all_prefs"),
     ("qrels_jg", "qrels.123", "results.test", "qrels_jg")],
)
@pytest.mark.parametrize("complete", [False, True], ids=["", "complete"])
def test_trec_other_judgment_formats(client, fmt, judgments, run, measures, complete):
    """Preference judgments and judgment groups (trec_eval's -R) on the cluster: the run
    file read by the workers, and the run read first (split by query): the local path's
    values and warnings."""
    suite = need(CONFORMANCE / "trec_eval" / "suite")
    qrels, path = str(suite / judgments), str(suite / run)
    for given in (path, {"r": rankscope.read_run(path)}):
        (local, w1), (dask, w2) = both(rankscope.evaluate_many, qrels, given, measures,
                                       rel_format=fmt, complete=complete)  # fmt: skip
        same_trec(local, dask)
        assert sorted(w1) == sorted(w2)


@pytest.mark.parametrize(
    "options",
    [{}, {"complete": True}, {"judged_only": True}, {"max_docs": 7, "ties": "docno-asc"},
     {"ties": "input-order", "relevance_level": 2}],
    ids=["default", "complete", "judged-only", "max-docs", "input-order"],
)
def test_trec_files(client, options):
    (local, w1), (dask, w2) = both(rankscope.evaluate_many, QRELS, RUNS, MEASURES, **options)
    same_trec(local, dask)
    assert w1 == w2


def test_trec_zscores_and_document_lengths(client):
    """trec_eval -Z (standardised after gathering) and time-biased gain (lengths sent to
    the workers)."""
    qrels = rankscope.read_qrels(QRELS)
    ids = sorted(set(qrels.queries.strings))
    table = {(q, label): (0.1 * i, 0.5 + 0.01 * i)
             for i, q in enumerate(ids[:-1]) for label in ("AP", "P@5", "num_rel")}  # fmt: skip
    zscores = rankscope.model.ZScores(table)
    (local, _), (dask, _) = both(rankscope.evaluate_many, QRELS, RUNS, ["AP", "P@5", "num_rel"],
                                 zscores=zscores, complete=True)  # fmt: skip
    same_trec(local, dask)
    assert dask[0].zscores
    lengths = {d: 100.0 + 7 * (i % 13) for i, d in enumerate(qrels.docs.strings)}
    (local, _), (dask, _) = both(rankscope.evaluate_many, QRELS, RUNS, ["TBG", "AP"],
                                 doc_lengths=lengths)  # fmt: skip
    same_trec(local, dask)


def test_trec_all_measures_and_tidy_table(client):
    (local, _), (dask, _) = both(rankscope.evaluate_many, QRELS, RUNS, "all_trec", complete=True)
    same_trec(local, dask)
    (a, _), (b, _) = both(rankscope.evaluate, QRELS, RUNS[:2], ["AP", "P@10"], output="dict")
    assert a == b and len(a["value"]) > 0


def test_trec_real_run(client):
    qrels = need(DATA / "robust04" / "qrels.robust2004.txt")
    run = need(DATA / "robust04" / "rob04_yang19_rm3.run.gz")
    (local, w1), (dask, w2) = both(
        rankscope.evaluate_many, str(qrels), str(run), ["AP", "nDCG@10", "P@20", "bpref", "RR"]
    )
    same_trec(local, dask)
    assert w1 == w2
    assert len(dask[0].query_ids) > 200


def test_trec_diversity_and_preferences(client):
    """Diversity judgments (a subtopic column) and the preference measures, which compare
    the runs query by query."""
    folder = DATA / "web2009-2014" / "2012"
    qrels = need(folder / "qrels.diversity.txt")
    runs = sorted(need(folder / "baseline_runs").glob("*.gz"))
    measures = ["alpha-nDCG@20", "ERR-IA@20", "P-IA@10", "nDCG@10"]
    (local, w1), (dask, w2) = both(rankscope.evaluate_many, str(qrels), [str(r) for r in runs],
                                   measures, complete=True)  # fmt: skip
    same_trec(local, dask)
    assert w1 == w2
    (local, _), (dask, _) = both(rankscope.evaluate_many, QRELS, RUNS, ["RPP", "AP", "gRPP"])
    same_trec(local, dask)


def test_trec_nothing_judged_told_once_for_the_whole_run(client):
    """A partition whose ranked documents are all unjudged is no news when others are
    judged; a run with nothing judged anywhere is told once, counting every document."""
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(8)}
    some = {f"q{i}": {f"d{i}" if i < 2 else "x": 1.0, "y": 0.5} for i in range(8)}
    none = {f"q{i}": {"x": 1.0, "y": 0.5} for i in range(8)}
    for runs in ({"some": some}, {"none": none}):
        # 8 queries in 4 partitions (2 workers): only the first holds a judged document
        (local, w1), (dask, w2) = both(rankscope.evaluate_many, qrels, runs, ["AP"])
        same_trec(local, dask)
        assert w1 == w2
    assert any("none of its 16 retrieved" in w for w in w1)


class Recorded:
    """`DaskEngine`, the pieces it sends noted."""

    def __init__(self, client) -> None:
        from rankscope.scale import DaskEngine

        self.pieces: list = []
        self.inner = DaskEngine(client, False)

    def workers(self) -> int:
        return self.inner.workers()

    def map(self, evaluate, task, pieces):
        def noted():
            for piece in pieces:
                self.pieces.append(piece)
                yield piece

        return self.inner.map(evaluate, task, noted())


def on_cluster(client, qrels, run, measures=("all_trec",), block_bytes=None, **options):
    """`evaluate_many_runs` with the blocks of ``run`` evaluated on the cluster: the printed
    per-query table and the warnings (as test_blocks' `evaluated`), or the error's text;
    and the pieces sent."""
    from rankscope.judge import JoinOptions
    from rankscope.read.sources import run_sources
    from rankscope.report.evaluation import format_evaluations
    from rankscope.table import as_requests
    from rankscope.table.formats import judgment_format
    from rankscope.table.many import evaluate_many_runs

    cluster = Recorded(client)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            results = evaluate_many_runs(
                rankscope.read_qrels(str(qrels)), run_sources(str(run)), as_requests(measures),
                judgment_format("qrels"), JoinOptions(**options), block_bytes=block_bytes,
                cluster=cluster, check_common=True,
            )  # fmt: skip
        except rankscope.errors.InputError as e:
            return str(e), cluster.pieces
    table = format_evaluations(results, None, per_query=True)
    return (table, [str(w.message) for w in caught]), cluster.pieces


@pytest.mark.parametrize("options", [{}, {"complete": True, "max_docs": 7}], ids=["default", "c-M"])
def test_trec_run_file_read_by_the_workers_in_blocks(client, tmp_path, options):
    """A run file cut into blocks of whole queries as ``--jobs`` cuts it, each worker
    reading its blocks' byte ranges itself (no text from the client): the local path's
    table and warnings, for any block length."""
    from .test_blocks import WHOLE, evaluated, write_track

    qrels, run = write_track(tmp_path, seed=2, queries=60)
    expected = evaluated(qrels, str(run), block_bytes=WHOLE, jobs=1, **options)
    for block in (1, 300, 2000):
        got, sent = on_cluster(client, qrels, run, block_bytes=block, **options)
        assert got == expected
        assert len(sent) > 2 and all(p.block is not None and p.block.data is None for p in sent)
        text = run.read_bytes()
        assert b"".join(text[p.block.start : p.block.end] for p in sent) == text


def test_trec_run_file_on_the_cluster_errors_and_unsorted_runs(client, tmp_path):
    """A bad line deep in a blocked run: the message reading it whole gives (its true line
    number); a run listing a query in two places: read whole by a worker, as locally; a
    gzipped run: read whole by a worker (its blocks would carry their text)."""
    from .test_blocks import WHOLE, error_of, evaluated, sorted_run, write_track

    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 d{d} {d % 2}\n" for q in range(1, 31) for d in range(5))
    )
    lines = sorted_run()
    lines[437] = "17 Q0 d17 17 high t\n"
    (tmp_path / "bad.txt").write_text("".join(lines))
    expected = error_of(tmp_path / "qrels", str(tmp_path / "bad.txt"), block_bytes=WHOLE, jobs=1)
    got, sent = on_cluster(client, tmp_path / "qrels", tmp_path / "bad.txt", ["map"], 100)
    assert ":438:" in expected and got == expected and len(sent) > 2
    lines = sorted_run()
    (tmp_path / "unsorted.txt").write_text("".join(lines[:30] + lines[200:] + lines[30:200]))
    expected = evaluated(tmp_path / "qrels", str(tmp_path / "unsorted.txt"), ["map", "P@5"],
                         block_bytes=WHOLE, jobs=1)  # fmt: skip
    got, sent = on_cluster(client, tmp_path / "qrels", tmp_path / "unsorted.txt", ["map", "P@5"],
                           100)  # fmt: skip
    assert got == expected and len(sent) > 2
    assert [p.block for p in sent].count(None) == 1  # read whole by a worker, not the client
    qrels, run = write_track(tmp_path, seed=3, gz=True)
    expected = evaluated(qrels, str(run), block_bytes=WHOLE, jobs=1)
    got, sent = on_cluster(client, qrels, run, block_bytes=100)
    assert got == expected and [p.block for p in sent] == [None]


def test_a_run_file_the_workers_cannot_see(tmp_path):
    """The run file is where the client reads it but not where a worker looks (no shared
    file system): an error naming the file and what the workers need, not a crash (a
    stand-in cluster: the file moved away while each piece is evaluated)."""
    from rankscope.judge import JoinOptions
    from rankscope.read.blocks import run_blocks
    from rankscope.read.sources import run_sources
    from rankscope.table import as_requests
    from rankscope.table.formats import judgment_format
    from rankscope.table.many import evaluate_many_runs

    from .test_blocks import write_track

    qrels, run = write_track(tmp_path, seed=4)
    elsewhere = tmp_path / "elsewhere.txt"

    class Unshared:
        def workers(self) -> int:
            return 2

        def map(self, evaluate, task, pieces):
            for piece in pieces:
                run.rename(elsewhere)
                try:
                    outcome = evaluate(task, piece)
                finally:
                    elsewhere.rename(run)
                yield outcome

    with pytest.raises(rankscope.errors.InputError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_many_runs(rankscope.read_qrels(str(qrels)), run_sources(str(run)),
                           as_requests(["AP"]), judgment_format("qrels"), JoinOptions(),
                           block_bytes=500, cluster=Unshared())  # fmt: skip
    first = next(run_blocks(run, 500))  # the first block sent fails first
    assert first.start == 0 and 0 < first.end < run.stat().st_size
    assert str(info.value) == (
        f"{run}: a worker of the cluster cannot read it (bytes 0 to {first.end}): the workers "
        "must see the run files under the same path"
    )


def _frames():
    qrels = rankscope.read_qrels(QRELS)
    runs = {Path(p).stem.split(".")[1]: rankscope.read_run(p) for p in RUNS}
    return qrels.to_frame(), {n: r.to_frame() for n, r in runs.items()}, qrels, runs


def test_trec_frames_and_dicts(client):
    qrels, runs, q, r = _frames()
    (local, _), (dask, _) = both(rankscope.evaluate_many, qrels, runs, MEASURES)
    same_trec(local, dask)
    dicts = {n: run.to_dict() for n, run in r.items()}
    (local, _), (dask, _) = both(rankscope.evaluate_many, q.to_dict(), dicts, MEASURES,
                                 complete=True)  # fmt: skip
    same_trec(local, dask)


def _write_by_query(frame, folder: Path, key: str, groups: list[list[str]]) -> None:
    folder.mkdir(parents=True)
    for i, group in enumerate(groups):
        part = frame[frame[key].isin(group)]
        if len(part):
            pq.write_table(pa.Table.from_pandas(part, preserve_index=False),
                           folder / f"part-{i}.parquet")  # fmt: skip


def test_trec_partitioned_parquet(client, tmp_path):
    qrels, runs, _, _ = _frames()
    ids = sorted(set(qrels["query_id"]) | {q for f in runs.values() for q in f["query_id"]})
    groups = [ids[i::3] for i in range(3)]
    # the strong run lacks one judged query: it is evaluated from the judgments alone
    lacking = sorted(set(qrels["query_id"]))[0]
    runs["strong"] = runs["strong"][runs["strong"]["query_id"] != lacking]
    for name, frame in runs.items():
        _write_by_query(frame, tmp_path / name, "query_id", groups)
    _write_by_query(qrels, tmp_path / "qrels", "query_id", groups)
    datasets = {n: Partitioned(tmp_path / n) for n in runs}
    for judged in (qrels, Partitioned(tmp_path / "qrels")):
        for options in ({}, {"complete": True}):
            local = rankscope.evaluate_many(qrels, runs, MEASURES, **options)
            dask = rankscope.evaluate_many(judged, datasets, MEASURES, backend="dask", **options)
            same_trec(local, dask)
            # not ranked by the strong run: scored 0 under -c, else left out, as locally
            assert (lacking in dask[2].query_ids) == bool(options)


def test_partitioned_input_errors_and_disjoint_queries(client, tmp_path):
    """A worker's reading error is the client's InputError; a run sharing no query with the
    judgments: scored as locally, or refused with no_common_query='error'."""
    (tmp_path / "run").mkdir()
    rows = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "a", "b"], "score": [1.0, 2.0, 1.0]}
    pq.write_table(pa.table(rows), tmp_path / "run" / "p0.parquet")
    dataset = Partitioned(tmp_path / "run", name="r")
    with pytest.raises(rankscope.errors.InputError, match="appears twice for query 'q1'"):
        rankscope.evaluate_many({"q1": {"a": 1}}, dataset, ["AP"], backend="dask")
    frame = pd.DataFrame(rows)
    for qrels in ({"q1": {"a": 1}}, {"q9": {"a": 1}}):
        for complete in (False, True):
            local = rankscope.evaluate_many(qrels, {"r": frame}, ["AP", "num_q"],
                                            duplicates="first", complete=complete)  # fmt: skip
            dask = rankscope.evaluate_many(qrels, dataset, ["AP", "num_q"], backend="dask",
                                           duplicates="first", complete=complete)  # fmt: skip
            same_trec(local, dask)
    (tmp_path / "split").mkdir()  # one query's rows in two files: not partitioned by query
    pq.write_table(pa.table(rows).slice(0, 1), tmp_path / "split" / "p0.parquet")
    pq.write_table(pa.table(rows).slice(1, 2), tmp_path / "split" / "p1.parquet")
    with pytest.raises(rankscope.errors.InputError, match="'q1' is in two partitions"):
        rankscope.evaluate_many({"q1": {"a": 1}}, Partitioned(tmp_path / "split"), ["AP"],
                                backend="dask")  # fmt: skip
    with pytest.raises(rankscope.errors.InputError, match="shares no query"):
        rankscope.evaluate_many({"q9": {"a": 1}}, dataset, ["AP"], backend="dask",
                                duplicates="first", no_common_query="error")  # fmt: skip


# -- recsys ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def logs():
    """MovieLens u1.test, and two systems' lists from a seeded draw over the 300 most popular
    training items (20 per user; tied scores; some users with no test data)."""
    folder = need(DATA / "movielens-100k")
    names = ["user", "item", "rating", "timestamp"]
    test = pd.read_csv(folder / "u1.test", sep="\t", names=names)
    train = pd.read_csv(folder / "u1.base", sep="\t", names=names)
    popular = train.groupby("item").size().sort_values(ascending=False).index[:300]
    rng = np.random.default_rng(7)
    users = sorted(set(test["user"]))[:-3] + [5001, 5002]
    rows = []
    for u in users:
        for r, item in enumerate(rng.choice(popular, 20, replace=False)):
            rows.append((u, int(item), float(20 - r) if r % 4 else 3.0))
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    return test, {"pop": recs, "half": recs.iloc[::2].reset_index(drop=True)}


@pytest.mark.parametrize(
    "options", [{}, {"no_relevant": "zero", "ties": "docno-desc"}, {"threshold": None}],
    ids=["default", "zero-docno-desc", "no-threshold"],
)
def test_recsys_frames(client, logs, options):
    test, recs = logs
    (local, w1), (dask, w2) = both(rankscope.evaluate_recsys_systems, test, recs, TOPN, **options)
    same_recsys(local, dask)
    assert w1 == w2 and w1  # one-sided users and users without relevant items are told


@pytest.fixture(scope="module")
def extras(logs):
    """MovieLens u1.base (training), the genres of u.item (features), a baseline and
    predicted ratings and probabilities for the test interactions (every fifth left out)."""
    folder = need(DATA / "movielens-100k")
    names = ["user", "item", "rating", "timestamp"]
    test, recs = logs
    train = pd.read_csv(folder / "u1.base", sep="\t", names=names)
    rng = np.random.default_rng(11)
    predicted = test[["user", "item"]].iloc[[i for i in range(len(test)) if i % 5]].copy()
    predicted["score"] = test["rating"].iloc[predicted.index] + rng.normal(0, 1, len(predicted))
    probability = predicted.copy()
    probability["score"] = np.round(1 / (1 + np.exp(3.5 - probability["score"])), 3)  # ties
    baseline = recs["half"].iloc[::3].reset_index(drop=True)
    return {"train": train, "features": str(folder / "u.item"), "baseline": baseline,
            "predicted": predicted, "probability": probability}  # fmt: skip


EVERY = ["all", "ILD(distance=jaccard)@5", "LongTail(head=interactions,share=0.5)",
         "Entropy(normalize=true)@20", "ExposureRatio(discount=none)", "RMSE(average=users)",
         "ECE(target=rating,bins=5)", "PopREO(head=interactions)"]  # fmt: skip


@pytest.mark.parametrize(
    "options",
    [{}, {"seen": "drop", "k": 5, "ties": "docno-desc"}, {"no_relevant": "zero",
     "threshold": 3.0, "relevance": "graded", "baseline": True, "catalog": True}],
    ids=["train-features", "seen-drop", "baseline-catalog-graded"],
)
def test_recsys_every_measure(client, logs, extras, options):
    """Every recommender measure, with training data, features, a baseline list, a catalog
    and seen='drop': the catalog and pooled measures' tallies added over the partitions give
    the local summaries bit for bit, and the warnings are the local path's."""
    test, recs = logs
    options = dict(options)
    if options.pop("baseline", False):
        options["baseline"] = extras["baseline"]
    if options.pop("catalog", False):
        options["catalog"] = sorted({str(i) for i in extras["train"]["item"]})[::2]
    systems = {**recs, "predicted": extras["predicted"], "probability": extras["probability"]}
    (local, w1), (dask, w2) = both(
        rankscope.evaluate_recsys_systems, test, systems, EVERY, train=extras["train"],
        features=extras["features"], **options,
    )  # fmt: skip
    same_recsys(local, dask)
    labels = local[0].labels
    assert {"Gini@10", "PopRSP@10", "RMSE", "CoverageAccuracy", "Serendipity@10"} <= {
        label.replace(f"@{options.get('k', 10)}", "@10") for label in labels
    }
    assert sorted(w1) == sorted(w2) and w1


def test_recsys_default_measures_on_dask(client, logs, extras):
    """Without measures, the local defaults (top-N, catalog, popularity with training data,
    ILD with features), the same on both backends."""
    test, recs = logs
    (local, _), (dask, _) = both(rankscope.evaluate_recsys_systems, test, recs, None,
                                 train=extras["train"], features=extras["features"])  # fmt: skip
    assert "ILD@10" in local[0].labels and "Gini@10" in local[0].labels
    same_recsys(local, dask)


def test_recsys_tidy_table(client, logs):
    test, recs = logs
    (a, _), (b, _) = both(rankscope.evaluate_recsys, test, recs["pop"], ["P@5", "nDCG@10"],
                          output="dict")  # fmt: skip
    assert a == b and len(a["value"]) > 900


def test_recsys_partitioned_parquet(client, logs, tmp_path):
    test, recs = logs
    users = sorted(set(test["user"]) | set(recs["pop"]["user"]))
    groups = [users[i::4] for i in range(4)]
    for name, frame in recs.items():
        _write_by_query(frame, tmp_path / name, "user", groups)
    _write_by_query(test, tmp_path / "test", "user", groups)
    datasets = [Partitioned(tmp_path / n) for n in recs]
    local, w1 = both(rankscope.evaluate_recsys_systems, test, recs, TOPN)[0]
    for given in (test, Partitioned(tmp_path / "test")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dask = rankscope.evaluate_recsys_systems(given, datasets, TOPN, backend="dask")
        same_recsys(local, dask)
        assert sorted(str(w.message) for w in caught) == sorted(w1)


@pytest.mark.parametrize("layout", ["partitioned", "whole", "mixed"])
def test_recsys_partitioned_with_every_input(client, logs, extras, tmp_path, layout):
    """`Partitioned` lists with every measure: the test log, training log and baseline
    lists partitioned alike (matched by path), read whole on the client, or mixed; the
    catalog and popularity from a first pass over the partitioned logs."""
    test, recs = logs
    train, baseline = extras["train"], extras["baseline"]
    users = sorted(set(test["user"]) | set(recs["pop"]["user"]) | set(train["user"]))
    groups = [users[i::3] for i in range(3)]
    for name, frame in recs.items():
        _write_by_query(frame, tmp_path / name, "user", groups)
    for name, frame in (("test", test), ("train", train), ("baseline", baseline)):
        _write_by_query(frame, tmp_path / name, "user", groups)
    given = {
        "partitioned": {n: Partitioned(tmp_path / n) for n in ("test", "train", "baseline")},
        "whole": {"test": test, "train": train, "baseline": baseline},
        "mixed": {"test": Partitioned(tmp_path / "test"), "train": train,
                  "baseline": Partitioned(tmp_path / "baseline")},
    }[layout]  # fmt: skip
    measures = ["all", "ILD(distance=jaccard)@5", "Entropy(normalize=true)@20",
                "PopREO(head=interactions)"]  # fmt: skip
    options = {"features": extras["features"], "seen": "drop", "ties": "docno-desc"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        local = rankscope.evaluate_recsys_systems(test, recs, measures, train=train,
                                                  baseline=baseline, **options)  # fmt: skip
    w1 = [str(w.message) for w in caught]
    datasets = [Partitioned(tmp_path / n) for n in recs]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dask = rankscope.evaluate_recsys_systems(
            given["test"], datasets, measures, train=given["train"],
            baseline=given["baseline"], backend="dask", **options,
        )  # fmt: skip
    same_recsys(local, dask)
    assert "Serendipity@10" in local[0].labels and "PopRSP@10" in local[0].labels
    w2 = [str(w.message) for w in caught]
    told = {w for w in w2 if "pairs of the training data removed" in w}
    assert told and told <= set(w1)
    # the users left with no list once seen="drop" has emptied theirs, counted as locally
    empty = {w for w in w1 if "have no recommendations" in w}
    assert empty and empty == {w for w in w2 if "have no recommendations" in w}


def test_a_partitioned_training_log_needs_a_partitioned_test_log(client, logs, extras, tmp_path):
    """... and the two partitioned alike: a user's training rows in another file than its
    test rows is an error naming both files."""
    test, recs = logs
    users = sorted(set(test["user"]))
    _write_by_query(test, tmp_path / "t", "user", [users[::2], users[1::2]])
    _write_by_query(extras["train"], tmp_path / "tr", "user", [users[1::2], users[::2]])
    _write_by_query(recs["pop"], tmp_path / "p", "user", [users[::2], users[1::2]])
    with pytest.raises(InputError, match=r"has training rows in part-1.parquet and test rows "
                                         r"in part-0.parquet"):  # fmt: skip
        rankscope.evaluate_recsys_systems(Partitioned(tmp_path / "t"), Partitioned(tmp_path / "p"),
                                          ["P@5"], train=Partitioned(tmp_path / "tr"),
                                          backend="dask")  # fmt: skip
    _write_by_query(extras["train"], tmp_path / "train", "user", [sorted(set(test["user"]))])
    _write_by_query(recs["pop"], tmp_path / "pop", "user", [sorted(set(test["user"]))])
    with pytest.raises(UsageError, match="Partitioned training log needs a Partitioned test"):
        rankscope.evaluate_recsys_systems(test, Partitioned(tmp_path / "pop"), ["P@5"],
                                          train=Partitioned(tmp_path / "train"),
                                          backend="dask")  # fmt: skip


def test_kernel_without_dask():
    """The Arrow kernel mapped by hand, as another engine would (docs/distributed.md: Spark's
    mapInArrow): partitions of whole queries, outputs through Arrow IPC (which keeps the
    schema metadata), gathered: the local path's results."""
    import pyarrow.compute as pc

    from rankscope.judge import JoinOptions
    from rankscope.scale import TrecSpec, judgments_table, runs_table, trec_kernel, trec_results
    from rankscope.table import as_requests

    qrels = rankscope.read_qrels(QRELS)
    runs = [rankscope.read_run(p, queries=qrels.queries, docs=qrels.docs) for p in RUNS]
    spec = TrecSpec([r.name for r in runs], [r.tag for r in runs], [r.source for r in runs],
                    as_requests(MEASURES), JoinOptions(ties="docno-desc"))  # fmt: skip
    judged = judgments_table(qrels)
    everything = runs_table(runs)
    ids = sorted(set(everything["query"].to_pylist()))
    outputs = []
    for group in (ids[0::2], ids[1::2]):  # two partitions, queries interleaved
        chosen = pa.array(group)
        part = everything.filter(pc.is_in(everything["query"], chosen))
        out = trec_kernel(judged.filter(pc.is_in(judged["query"], chosen)), part, spec)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, out.schema) as writer:
            writer.write_table(out)
        outputs.append(pa.ipc.open_stream(sink.getvalue().to_pybytes()).read_all())
    same_trec(rankscope.evaluate_many(qrels, runs, MEASURES), trec_results(outputs, spec))


# -- usage -------------------------------------------------------------------------------------


def test_usage_errors(client, logs, monkeypatch):
    test, recs = logs
    with pytest.raises(UsageError, match="backend must be one of local, dask, spark"):
        rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="ray")
    with pytest.raises(UsageError, match="scheduler must be"):
        rankscope.evaluate_many(QRELS, RUNS, ["AP"], scheduler=3)
    with pytest.raises(UsageError, match="Novelty@10 needs item popularity"):
        rankscope.evaluate_recsys_systems(test, recs, ["Novelty"], backend="dask")
    def no_client():
        raise ValueError("No global client found")

    with monkeypatch.context() as m:
        m.setattr(distributed, "get_client", no_client)
        with pytest.raises(UsageError, match="create a distributed.Client first"):
            rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="dask")
    monkeypatch.setitem(sys.modules, "distributed", None)  # the extra not installed
    with pytest.raises(UsageError, match=r"rankscope\[dask\]"):
        rankscope.evaluate_many(QRELS, RUNS, ["AP"], backend="dask")


def test_scheduler_address(client):
    """A scheduler address: a client of its own, closed after."""
    address = client.scheduler.address
    local = rankscope.evaluate_many(QRELS, RUNS, ["AP", "P@5"])
    dask = rankscope.evaluate_many(QRELS, RUNS, ["AP", "P@5"], scheduler=address)
    same_trec(local, dask)


def test_cli_scheduler(client, logs, capsys, tmp_path):
    """``--scheduler ADDRESS``: the same output, byte for byte."""
    address = client.scheduler.address
    for args in (["eval", "-q", "-m", "all_trec", QRELS, *RUNS], ["eval", QRELS, RUNS[0]]):
        local = run_cli(args, capsys)
        assert local[0] == 0
        assert run_cli([args[0], "--scheduler", address, *args[1:]], capsys) == local
    test, recs = logs
    test.to_csv(tmp_path / "test.tsv", sep="\t", index=False, header=False)
    recs["pop"].to_csv(tmp_path / "pop.tsv", sep="\t", index=False, header=False)
    args = ["recsys", "-m", "P@10", "-m", "nDCG@10", "-q",
            str(tmp_path / "test.tsv"), str(tmp_path / "pop.tsv")]  # fmt: skip
    local = run_cli(args, capsys)
    assert local[0] == 0 and "nDCG@10" in local[1]
    assert run_cli([*args[:1], "--scheduler", address, *args[1:]], capsys) == local
    extras = need(DATA / "movielens-100k")
    args = ["recsys", "--train", str(extras / "u1.base"), "--features", str(extras / "u.item"),
            "--seen", "drop", "-q", str(tmp_path / "test.tsv"), str(tmp_path / "pop.tsv")]
    local = run_cli(args, capsys)
    assert local[0] == 0 and "Gini@10" in local[1] and "ILD@10" in local[1]
    assert run_cli([*args[:1], "--scheduler", address, *args[1:]], capsys) == local


def test_cli_without_the_extra(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, out, err = run_cli(["eval", "--scheduler", "tcp://127.0.0.1:1", QRELS, RUNS[0]], capsys)
    assert code == 2 and "rankscope[dask]" in err and not out


# -- a worker lost mid-run ---------------------------------------------------------------------


class KillFirstKernel(distributed.WorkerPlugin):
    """Ends the worker process that starts the first kernel task of the cluster."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish != "executing" or "kernel" not in str(key):
            return
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return
        os._exit(1)


@pytest.mark.slow  # the cluster's every other path runs by default
def test_worker_killed_mid_run(client, logs, extras, tmp_path):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed"
    local = rankscope.evaluate_many(QRELS, RUNS, MEASURES, complete=True)
    client.register_plugin(KillFirstKernel(str(marker)), name="kill-first-kernel")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dask = rankscope.evaluate_many(QRELS, RUNS, MEASURES, complete=True, backend="dask")
        assert marker.exists()  # a worker did die with a task under way
        same_trec(local, dask)
        marker.unlink()
        test, recs = logs
        given = {"train": extras["train"], "features": extras["features"]}
        reference = rankscope.evaluate_recsys_systems(test, recs, EVERY, **given)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = rankscope.evaluate_recsys_systems(test, recs, EVERY, backend="dask", **given)
        assert marker.exists()
        same_recsys(reference, found)
    finally:
        client.unregister_worker_plugin("kill-first-kernel")
