"""Preferences against the authors' pref_eval (commit 60e3203) on CLEF eHealth 2016.

The material is described in ../shared/conformance/pref_eval/README.md: for the 16 runs of
CLEF eHealth 2016 task 2 and its graded qrels, every per-pair value of pref_eval's
preferences, graded (grades 0–2 as given) and binary (``-b 1``: grade >= 1 is relevant),
their ``"qid": "all"`` means over queries, and the orderings its aggregator derives (per
query by win rate, over all queries by MC4 and Borda; by mean for the metrics ap and ndcg).

pref_eval orders its runs by file name (the order it was given them); rankscope's table uses
the same order here, so the aggregators see the runs in the same order as pref_eval's.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import rankscope
from rankscope.judge import relevance_table
from rankscope.preference.aggregate import order_by
from tests.conftest import CONFORMANCE, DATA, need

PREF_EVAL = CONFORMANCE / "pref_eval"
EHEALTH = DATA / "clef_ehealth2016"
TOLERANCE = 1e-12

# pref_eval's measure name -> rankscope's method
GRADED = {
    "rpp": "gRPP",
    "dcgrpp": "gRPP(p=dcg)",
    "invrpp": "gRPP(p=inverse)",
    "lexiprecision": "lexiprecision",
    "lexirecall": "lexirecall",
}
BINARY = {
    "rpp": "RPP",
    "dcgrpp": "dcgRPP",
    "invrpp": "invRPP",
    "lexiprecision": "lexiprecision",
    "lexirecall": "lexirecall",
    "rrlexiprecision": "rrlexiprecision",
}
# pref_eval's metric -> rankscope's trec_eval measure
METRICS = {"ap": "map", "ndcg": "ndcg"}


def _run_files() -> list[Path]:
    return sorted((EHEALTH / "runs").glob("*.txt.gz"), key=lambda p: p.name)


def _read_jsonl(path: Path) -> list[dict]:
    with gzip.open(need(path), "rt") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def table():
    need(EHEALTH / "task2.qrels")
    need(EHEALTH / "runs")
    need(PREF_EVAL)
    qrels = rankscope.read_qrels(str(EHEALTH / "task2.qrels"))
    runs = [rankscope.read_run(str(f), name=f.name.removesuffix(".txt.gz")) for f in _run_files()]
    assert len(runs) == 16
    return relevance_table(qrels, runs)


@pytest.fixture(scope="module")
def results(table):
    """Every method's PreferenceResult, computed once from the shared table."""
    methods = set(GRADED.values()) | set(BINARY.values())
    return {m: rankscope.preferences(None, None, m, table=table) for m in methods}


def _split(records: list[dict]):
    """(per-pair preference records, per-(query, run) metric records, summary records)."""
    pairs = [r for r in records if r["qid"] != "all" and r.get("type") == "preference"]
    metrics = [r for r in records if r["qid"] != "all" and r.get("type") == "metric"]
    summary = [r for r in records if r["qid"] == "all"]
    return pairs, metrics, summary


@pytest.fixture(scope="module")
def graded_file():
    return _split(_read_jsonl(PREF_EVAL / "ehealth2016.graded.prefs.jsonl.gz"))


@pytest.fixture(scope="module")
def binary_file():
    return _split(_read_jsonl(PREF_EVAL / "ehealth2016.binary.prefs.jsonl.gz"))


@pytest.fixture(scope="module")
def aggregate_file():
    records = _read_jsonl(PREF_EVAL / "ehealth2016.graded.aggregate.jsonl.gz")
    per_query = {r["qid"]: r for r in records if r["qid"] != "all"}
    (summary,) = [r for r in records if r["qid"] == "all"]
    return per_query, summary


def test_table_covers_the_runs_and_queries(table, graded_file):
    pairs, _, _ = graded_file
    assert table.run_names == [f.name.removesuffix(".txt.gz") for f in _run_files()]
    assert set(table.query_ids) == {r["qid"] for r in pairs}
    n = len(table.run_names)
    assert len(pairs) == len(table.query_ids) * n * (n - 1) // 2


def _check_pairs(result, records, measure):
    names, queries = result.run_names, result.query_ids
    expected = np.array([r[measure] for r in records], dtype=float)
    got = np.array(
        [
            result.prefs[queries.index(r["qid"]), names.index(r["runi"]), names.index(r["runj"])]
            for r in records
        ]
    )
    worst = int(np.argmax(np.abs(got - expected)))
    assert np.abs(got - expected).max() <= TOLERANCE, (
        f"{measure}: query {records[worst]['qid']}, {records[worst]['runi']} vs "
        f"{records[worst]['runj']}: pref_eval {expected[worst]!r}, rankscope {got[worst]!r}"
    )
    # the reverse pair is the negated value
    got_reverse = np.array(
        [
            result.prefs[queries.index(r["qid"]), names.index(r["runj"]), names.index(r["runi"])]
            for r in records
        ]
    )
    assert np.abs(got_reverse + expected).max() <= TOLERANCE


def _check_summary(result, records, measure):
    names = result.run_names
    mean = result.mean
    assert len(records) == len(names) * (len(names) - 1) // 2
    for r in records:
        got = mean[names.index(r["runi"]), names.index(r["runj"])]
        assert abs(got - r[measure]) <= TOLERANCE, (measure, r["runi"], r["runj"])


@pytest.mark.parametrize("measure", list(GRADED))
def test_graded_per_pair(results, graded_file, measure):
    pairs, _, _ = graded_file
    _check_pairs(results[GRADED[measure]], pairs, measure)


@pytest.mark.parametrize("measure", list(GRADED))
def test_graded_means_over_queries(results, graded_file, measure):
    _, _, summary = graded_file
    _check_summary(results[GRADED[measure]], summary, measure)


@pytest.mark.parametrize("measure", list(BINARY))
def test_binary_per_pair(results, binary_file, measure):
    pairs, _, _ = binary_file
    _check_pairs(results[BINARY[measure]], pairs, measure)


@pytest.mark.parametrize("measure", list(BINARY))
def test_binary_means_over_queries(results, binary_file, measure):
    _, _, summary = binary_file
    _check_summary(results[BINARY[measure]], summary, measure)


@pytest.mark.parametrize("measure", list(GRADED))
def test_per_query_orderings(results, aggregate_file, measure):
    per_query, _ = aggregate_file
    result = results[GRADED[measure]]
    orderings = result.query_orderings()
    assert set(per_query) == set(result.query_ids)
    for qid, ordering in zip(result.query_ids, orderings, strict=True):
        assert ordering == per_query[qid][measure], f"{measure}, query {qid}"


@pytest.mark.parametrize("aggregate", ["mc4", "borda"])
@pytest.mark.parametrize("measure", list(GRADED))
def test_aggregate_orderings(results, aggregate_file, measure, aggregate):
    _, summary = aggregate_file
    order, scores = results[GRADED[measure]].ordering(aggregate)
    assert order == summary[measure][aggregate]
    assert len(scores) == len(order)


def test_aggregate_orderings_from_the_lower_level_functions(results, aggregate_file):
    """mc4 / borda of the per-query orderings, called directly, give the same answer."""
    from rankscope.preference import borda, mc4

    _, summary = aggregate_file
    orderings = results["gRPP"].query_orderings()
    assert mc4(orderings)[0] == summary["rpp"]["mc4"]
    assert borda(orderings)[0] == summary["rpp"]["borda"]


@pytest.fixture(scope="module")
def metric_values(table):
    """rankscope's trec_eval map and ndcg per (measure, query, run), for the table's queries."""
    files = {f.name.removesuffix(".txt.gz"): str(f) for f in _run_files()}
    columns = rankscope.evaluate(
        str(EHEALTH / "task2.qrels"), files, list(METRICS.values()), output="dict"
    )
    values: dict[tuple[str, str], dict[str, float]] = {}
    for run, query, measure, value in zip(
        columns["run"], columns["query"], columns["measure"], columns["value"], strict=True
    ):
        values.setdefault((measure, query), {})[run] = value
    return values


@pytest.mark.parametrize("metric", list(METRICS))
def test_metric_orderings_agree_with_pref_eval(table, metric_values, aggregate_file, metric):
    """pref_eval's own ap/ndcg orderings, per query and by mean: rankscope's trec_eval-style
    map/ndcg give the same orderings (ties by run name descending)."""
    per_query, summary = aggregate_file
    names = table.run_names
    measure = METRICS[metric]
    for qid in table.query_ids:
        scores = [metric_values[(measure, qid)][n] for n in names]
        assert order_by(scores, names) == per_query[qid][metric], f"{metric}, query {qid}"
    means = [np.mean([metric_values[(measure, q)][n] for q in table.query_ids]) for n in names]
    assert order_by(means, names) == summary[metric]["mean"]


@pytest.mark.parametrize("metric", list(METRICS))
def test_metric_values_agree_with_pref_eval(metric_values, graded_file, metric):
    """pref_eval's per-(query, run) ap and ndcg equal trec_eval's map and ndcg."""
    _, records, _ = graded_file
    measure = METRICS[metric]
    assert records
    for r in records:
        got = metric_values[(measure, r["qid"])][r["run"]]
        assert abs(got - r[metric]) <= TOLERANCE, (metric, r["qid"], r["run"])


def test_preferences_from_files_equal_the_shared_table(results):
    """The public entry point, given the qrels file and a {name: file} dict, builds the same
    table (same run order, same queries, same values)."""
    files = {f.name.removesuffix(".txt.gz"): str(f) for f in _run_files()}
    direct = rankscope.preferences(str(EHEALTH / "task2.qrels"), files, "gRPP")
    shared = results["gRPP"]
    assert direct.run_names == shared.run_names
    assert direct.query_ids == shared.query_ids
    np.testing.assert_array_equal(direct.prefs, shared.prefs)
