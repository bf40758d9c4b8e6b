"""Aggregation (issue 13 §3, seed 000): weighted, unique-request, usage- and group-segmented
aggregates with intervals and gaps.  Every expectation is worked out by hand from the small
tables below (or, for the interval, from scipy.stats.t's quantile)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import rankscope
from rankscope import InputError, RankscopeWarning, UsageError
from rankscope.api.aggregation import aggregate
from rankscope.read.segments import read_segments, read_weights
from rankscope.table.aggregate import (
    HOWS,
    MISSING,
    comparison_table,
    preference_table,
    usage_segments,
)
from tests.conftest import DATA, need, run_cli, write_qrels


def table(values: dict[str, float], run: str = "a", measure: str = "AP") -> dict[str, list]:
    return {
        "run": [run] * len(values),
        "query": list(values),
        "measure": [measure] * len(values),
        "value": list(values.values()),
    }


FOUR = {"q1": 0.2, "q2": 0.4, "q3": 0.9, "q4": 0.5}


def overall(result) -> rankscope.table.aggregate.SegmentValue:
    (row,) = [r for r in result.rows if r.segmentation == "all"]
    return row


# -- the statistics, by hand ------------------------------------------------------------------


def test_mean_with_t_interval_by_hand():
    scipy_stats = pytest.importorskip("scipy.stats")
    row = overall(aggregate(table(FOUR)))
    values = [0.2, 0.4, 0.9, 0.5]
    mean = sum(values) / 4  # 0.5
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 3)
    half = scipy_stats.t.ppf(0.975, 3) * sd / 2
    assert (row.aggregate, row.interval, row.queries) == ("mean", "t", 4)
    assert row.value == pytest.approx(0.5)
    assert (row.ci_low, row.ci_high) == pytest.approx((mean - half, mean + half))
    assert row.weight_share is None
    row90 = overall(aggregate(table(FOUR), confidence=0.9))
    assert row90.ci_high - row90.value == pytest.approx(scipy_stats.t.ppf(0.95, 3) * sd / 2)


def test_traffic_weighted_mean():
    result = aggregate(table(FOUR), weights={"q1": 3, "q2": 1, "q3": 0, "q4": 1})
    row = overall(result)
    # (3·0.2 + 1·0.4 + 0·0.9 + 1·0.5) / 5
    assert row.value == pytest.approx(1.5 / 5)
    assert (row.aggregate, row.interval, row.weight_share) == ("weighted mean", "bootstrap", 1.0)
    assert row.ci_low <= row.value <= row.ci_high
    assert result.weighted


def test_huge_weights_stay_finite(tmp_path, capsys):
    # weights 3e307, 1e307, 0, 1e307: the same shares as 3, 1, 0, 1 (test above), but their
    # sum overflowed to inf (a nan mean, numpy's overflow warning); divided by the largest
    # first they give (3·0.2 + 0.4 + 0.5) / 5 = 0.3
    huge = {"q1": 3e307, "q2": 1e307, "q3": 0, "q4": 1e307}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = aggregate(table(FOUR), weights=huge, usage=True)
        median = overall(aggregate(table(FOUR), weights=huge, how="median"))
        gmean = overall(aggregate(table(FOUR), weights=huge, how="gmean"))
    row = overall(result)
    assert row.value == pytest.approx(1.5 / 5)
    assert row.weight_share == 1.0
    assert math.isfinite(row.ci_low) and math.isfinite(row.ci_high)
    # weighted median of 0.2 ×3, 0.4, 0.5: 0.2; weighted gmean: (0.2³ · 0.4 · 0.5)^(1/5)
    assert median.value == pytest.approx(0.2)
    assert gmean.value == pytest.approx((0.2**3 * 0.4 * 0.5) ** 0.2)
    # usage segments: q1 starts at 0% of the traffic (head), q2 and q4 (equal weights, kept
    # together) at 60% (torso), q3 at 100% (tail)
    usage = {r.segment: r.queries for r in result.rows if r.segmentation == "usage"}
    assert usage == {"head": 1, "torso": 2, "tail": 1}
    assert usage_segments({"a": 1e308, "b": 1e308, "c": 1e308}, (0.5, 0.8)) == {
        "a": "head", "b": "head", "c": "head"
    }  # fmt: skip
    path = tmp_path / "w.txt"
    path.write_text("q1 1e308\nq2 1e308\n")
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\nq2 Q0 d9 1 2 r\n")
    code, out, err = run_cli(
        ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P@1", "--weights", str(path)],
        capsys,
    )
    assert code == 0 and err == ""
    assert "nan" not in out and "0.5000" in out


def test_request_log_counts_traffic(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("q1\nq1\n# a comment\nq3\nq1\nq2\n\nq4\n")
    weights = read_weights(str(log))
    assert weights == {"q1": 3, "q2": 1, "q3": 1, "q4": 1}
    assert read_weights(["q1", "q1", "q3", "q1", "q2", "q4"]) == weights
    row = overall(aggregate(table(FOUR), weights=str(log)))
    assert row.value == pytest.approx((0.6 + 0.4 + 0.9 + 0.5) / 6)


def test_weights_file_with_numbers(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("q1 3\nq2 1.5\nq3 0\nq4 0.5\n")
    assert read_weights(str(path)) == {"q1": 3.0, "q2": 1.5, "q3": 0.0, "q4": 0.5}
    row = overall(aggregate(table(FOUR), weights=str(path)))
    assert row.value == pytest.approx((0.6 + 0.6 + 0.25) / 5)


def test_unique_request_mean_ignores_traffic():
    row = overall(
        aggregate(table(FOUR), weights={"q1": 100, "q2": 1, "q3": 1, "q4": 1}, unique=True)
    )
    assert (row.aggregate, row.interval) == ("mean", "t")
    assert row.value == pytest.approx(0.5)
    assert row.weight_share == 1.0


def test_median_plain_and_weighted():
    assert overall(aggregate(table(FOUR), how="median")).value == pytest.approx(0.45)
    three = {"q1": 1.0, "q2": 2.0, "q3": 3.0}
    # weights 1, 1, 2: the values 1, 2, 3, 3 once each: median (2 + 3) / 2
    row = overall(aggregate(table(three), weights={"q1": 1, "q2": 1, "q3": 2}, how="median"))
    assert row.value == pytest.approx(2.5)
    # weights 1, 1, 3: 1, 2, 3, 3, 3: median 3
    row = overall(aggregate(table(three), weights={"q1": 1, "q2": 1, "q3": 3}, how="median"))
    assert row.value == pytest.approx(3.0)


def test_geometric_mean_floors_zeros_at_epsilon():
    values = {"q1": 0.0, "q2": 0.5, "q3": 0.2}
    row = overall(aggregate(table(values), how="gmean"))
    expected = math.exp((math.log(1e-5) + math.log(0.5) + math.log(0.2)) / 3)
    assert row.value == pytest.approx(expected)
    row = overall(aggregate(table(values), how="gmean", epsilon=0.01))
    assert row.value == pytest.approx(math.exp((math.log(0.01) + math.log(0.1)) / 3))
    weighted = overall(aggregate(table(values), how="gmean", weights={"q1": 0, "q2": 1, "q3": 1}))
    assert weighted.value == pytest.approx(math.sqrt(0.1))
    with pytest.raises(UsageError, match="geometric mean needs values >= 0"):
        aggregate(table({"q1": -0.5, "q2": 0.5}), how="gmean")


def test_gmap_matches_trec_eval_gm_map():
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 3, "x": 2, "d2": 1}, "q2": {"x": 2, "d3": 1}, "q3": {"x": 1}}
    tidy = rankscope.evaluate(qrels, {"r": run}, ["AP", "gm_map"], output="dict")
    gm_map = [v for m, v in zip(tidy["measure"], tidy["value"], strict=True) if m == "gm_map"]
    ap_only = {k: [v for v, m in zip(c, tidy["measure"], strict=True) if m == "AP"]
               for k, c in tidy.items()}  # fmt: skip
    row = overall(aggregate(ap_only, how="gmean"))
    summary = rankscope.evaluate(qrels, {"r": run}, ["gm_map"], per_query=False, output="dict")
    assert len(gm_map) == 3
    assert row.value == pytest.approx(summary["value"][0], rel=1e-12)


def test_bootstrap_is_seeded_and_shared_by_runs():
    data = table(FOUR)
    first = overall(aggregate(data, how="median", seed=3))
    again = overall(aggregate(data, how="median", seed=3))
    other = overall(aggregate(data, how="median", seed=4, resamples=200))
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    assert first.interval == other.interval == "bootstrap"
    # a second run in the table changes nothing of the first's interval
    both = {k: v + table(FOUR, run="b")[k] for k, v in data.items()}
    with_b = [r for r in aggregate(both, how="median", seed=3).rows if r.run == "a"]
    assert (with_b[0].ci_low, with_b[0].ci_high) == (first.ci_low, first.ci_high)


# -- segments and gaps --------------------------------------------------------------------------


def test_group_segments_sizes_and_gap():
    result = aggregate(table(FOUR), segments={"q1": "nav", "q2": "nav", "q3": "info", "q4": "info"})
    rows = {(r.segmentation, r.segment): r for r in result.rows}
    assert rows[("segment", "nav")].value == pytest.approx(0.3)
    assert rows[("segment", "info")].value == pytest.approx(0.7)
    assert rows[("segment", "nav")].queries + rows[("segment", "info")].queries == 4
    (gap,) = result.gaps
    assert (gap.highest, gap.lowest) == ("info", "nav")
    assert gap.gap == pytest.approx(0.4)
    assert gap.ratio == pytest.approx(0.3 / 0.7)


def test_several_segmentations_and_weight_share():
    segments = {"kind": {"q1": "a", "q2": "b", "q3": "a", "q4": "b"},
                "lang": {"q1": "en", "q2": "en", "q3": "en", "q4": "de"}}  # fmt: skip
    weights = {"q1": 1, "q2": 2, "q3": 3, "q4": 4}
    result = aggregate(table(FOUR), weights=weights, segments=segments)
    rows = {(r.segmentation, r.segment): r for r in result.rows}
    assert rows[("kind", "a")].weight_share == pytest.approx(0.4)
    assert rows[("kind", "a")].value == pytest.approx((0.2 + 3 * 0.9) / 4)
    assert rows[("lang", "de")].value == pytest.approx(0.5)
    assert rows[("lang", "en")].value == pytest.approx((0.2 + 0.8 + 2.7) / 6)
    assert [g.segmentation for g in result.gaps] == ["kind", "lang"]


def test_usage_segments_by_traffic_share():
    weights = {"q1": 5, "q2": 3, "q3": 1, "q4": 1}
    # q1 starts at 0% of the traffic (head), q2 at 50% (torso), q3 and q4 together at 80%
    assert usage_segments(weights) == {"q1": "head", "q2": "torso", "q3": "tail", "q4": "tail"}
    assert usage_segments(weights, (0.6, 0.9)) == {
        "q1": "head", "q2": "head", "q3": "torso", "q4": "torso"
    }  # fmt: skip
    # one query holding 90% of the traffic is the head alone
    assert usage_segments({"a": 9, "b": 1}) == {"a": "head", "b": "tail"}
    result = aggregate(table(FOUR), weights=weights, usage=True)
    segments = [(r.segment, r.queries) for r in result.rows if r.segmentation == "usage"]
    assert segments == [("head", 1), ("torso", 1), ("tail", 2)]
    with pytest.raises(UsageError, match="0 < head < torso < 1"):
        aggregate(table(FOUR), weights=weights, usage=(0.8, 0.5))
    with pytest.raises(UsageError, match="need the request weights"):
        aggregate(table(FOUR), usage=True)


def test_missing_queries_error_or_unknown_segment():
    with pytest.raises(InputError, match=r"2 query\(s\) of the table have no segment.*'q3', 'q4'"):
        aggregate(table(FOUR), segments={"q1": "x", "q2": "y"})
    with pytest.raises(InputError, match="no weight"):
        aggregate(table(FOUR), weights={"q1": 1})
    with pytest.warns(RankscopeWarning, match="segment 'unknown'"):
        result = aggregate(table(FOUR), segments={"q1": "x", "q2": "y"}, missing="warn")
    rows = {r.segment: r for r in result.rows if r.segmentation == "segment"}
    assert list(rows) == ["x", "y", "unknown"]
    assert rows["unknown"].value == pytest.approx(0.7)
    (gap,) = result.gaps  # x and y only
    assert {gap.highest, gap.lowest} == {"x", "y"}
    with pytest.warns(RankscopeWarning, match="weight 0"):
        row = overall(aggregate(table(FOUR), weights={"q1": 1, "q2": 1}, missing="warn"))
    assert row.value == pytest.approx(0.3)


def test_bad_requests():
    with pytest.raises(UsageError, match="unknown aggregate"):
        aggregate(table(FOUR), how="mode")
    with pytest.raises(UsageError, match="missing must be"):
        aggregate(table(FOUR), missing="drop")
    with pytest.raises(UsageError, match="level"):
        aggregate(table(FOUR), confidence=1.0)
    with pytest.raises(InputError, match="missing column"):
        aggregate({"run": [], "query": [], "value": []})
    with pytest.raises(InputError, match="has a value of AP already"):
        aggregate(table({"q1": 0.1}) | {"run": ["a", "a"], "query": ["q1", "q1"],
                                        "measure": ["AP", "AP"], "value": [0.1, 0.2]})  # fmt: skip


def test_frames_give_the_dict_result():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    data = table(FOUR)
    segments = {"q1": "x", "q2": "y", "q3": "x", "q4": "y"}
    expected = aggregate(data, segments=segments).rows
    assert aggregate(pd.DataFrame(data), segments=segments).rows == expected
    assert aggregate(pl.DataFrame(data), segments=segments).rows == expected
    frame = pd.DataFrame({"query": list(segments), "kind": list(segments.values())})
    assert aggregate(data, segments=frame).rows[1:] == [
        r.__class__(**{**r.__dict__, "segmentation": "kind"}) for r in expected[1:]
    ]
    out = aggregate(data, segments=segments).to_frame("dict")
    assert out["segment"] == ["all", "x", "y"]


# -- readers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        ("q1 1\nq2 x\n", r"w\.txt:2: weight 'x' is not a non-negative number"),
        ("q1 1\nq2 -1\n", r"w\.txt:2: weight '-1' is not a non-negative number"),
        ("q1 1\nq2 nan\n", r"w\.txt:2: weight 'nan'"),
        ("q1 1\nq1 2\n", r"w\.txt:2: query 'q1' has a weight already \(line 1\)"),
        ("q1 1\nq2\n", r"w\.txt:2: expected 2 fields \(query weight\), found 1"),
        ("q1\nq2 3\n", r"w\.txt:2: expected 1 fields"),
        ("q1 0\nq2 0\n", "every weight is 0"),
        ("# nothing\n", "no weights found"),
        ("q1 1,5\n", r"w\.txt:1: weight '1,5'"),
    ],
)
def test_bad_weights_files(tmp_path, text, message):
    path = tmp_path / "w.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_weights(str(path))


@pytest.mark.parametrize(
    "text, message",
    [
        ("q1 a\nq2 a b\n", r"s\.txt:2: expected 2 fields \(query segment\), found 3"),
        ("q1 a\nq1 b\n", r"s\.txt:2: query 'q1' has a segment already \(line 1\)"),
        ("", "no segments found"),
        ("q1 a\nq2\0 b\n", r"s\.txt:2: holds a NUL byte"),
    ],
)
def test_bad_segments_files(tmp_path, text, message):
    path = tmp_path / "s.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_segments(str(path))


def test_segments_file_is_named_after_it(tmp_path):
    path = tmp_path / "age.txt"
    path.write_text("u1 18-24\nu2 25-34\n")
    assert read_segments(str(path)) == {"age.txt": {"u1": "18-24", "u2": "25-34"}}
    with pytest.raises(InputError, match="missing segment"):
        read_segments({"u1": None})


# -- preferences and comparisons --------------------------------------------------------------

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"b": 1}}
RUNS = {
    "x": {"q1": {"a": 2, "c": 1}, "q2": {"c": 2, "a": 1}, "q3": {"c": 1}},
    "y": {"q1": {"a": 2, "b": 1}, "q2": {"a": 2}, "q3": {"b": 2, "c": 1}},
}


def test_preference_table_win_rates_and_baseline():
    result = rankscope.preferences(QRELS, RUNS, "RPP")
    tidy = preference_table(result)
    by = {(r, q): v for r, q, v in zip(tidy["run"], tidy["query"], tidy["value"], strict=True)}
    for q, qid in enumerate(result.query_ids):
        assert by[("x", qid)] == pytest.approx(result.prefs[q, 0, 1])
        assert by[("y", qid)] == pytest.approx(result.prefs[q, 1, 0])
    against = preference_table(result, baseline="x")
    assert set(against["run"]) == {"y"} and set(against["measure"]) == {"RPP vs x"}
    mean = next(r.value for r in aggregate(result).rows if r.run == "x")
    assert mean == pytest.approx(float(result.prefs[:, 0, 1].mean()))
    with pytest.raises(UsageError, match="baseline 'z'"):
        preference_table(result, baseline="z")


def test_comparison_table_has_the_tested_values():
    comparison = rankscope.compare(QRELS, RUNS, ["AP", "RPP"])
    tidy = comparison_table(comparison)
    result = aggregate(tidy)
    means = {(r.run, r.measure): r.value for r in result.rows}
    for row in comparison.rows:
        if row.kind == "metric" or row.run != comparison.baseline:
            assert means[(row.run, row.measure)] == pytest.approx(row.mean)
    assert ("x", "RPP") not in means  # the baseline's preference over itself


def test_evaluate_table_and_recsys_summary_rows():
    tidy = rankscope.evaluate(QRELS, RUNS, ["AP", "P@2"], output="dict")
    result = aggregate(tidy)
    summary = rankscope.evaluate(QRELS, RUNS, ["AP", "P@2"], per_query=False, output="dict")
    keys = zip(summary["run"], summary["measure"], strict=True)
    expected = dict(zip(keys, summary["value"], strict=True))
    for row in result.rows:
        assert row.value == pytest.approx(expected[(row.run, row.measure)])
    recsys_table = rankscope.evaluate_recsys(
        {"u1": {"a": 5, "b": 2}, "u2": {"b": 4}}, {"u1": ["a", "b"], "u2": ["a", "c"]},
        ["P@2", "CatalogCoverage@2"], output="dict", catalog=["a", "b", "c"],
    )  # fmt: skip
    with pytest.warns(RankscopeWarning, match=r"only a summary.*CatalogCoverage@2"):
        result = aggregate(recsys_table)
    assert [(r.measure, r.queries, r.value) for r in result.rows] == [("P@2", 2, 0.25)]


# -- MovieLens 100K: a most-popular recommender by age band and gender ------------------------


def test_movielens_most_popular_by_age_band_and_gender():
    folder = need(DATA / "movielens-100k")
    base = np.loadtxt(need(folder / "u1.base"), dtype=np.int64)
    test = np.loadtxt(need(folder / "u1.test"), dtype=np.int64)
    popularity = np.bincount(base[:, 1])
    seen: dict[int, set[int]] = {}
    for u, i in base[:, :2].tolist():
        seen.setdefault(u, set()).add(i)
    ranked = np.lexsort((np.arange(len(popularity)), -popularity)).tolist()
    recs = {}
    for u in np.unique(test[:, 0]).tolist():
        recs[str(u)] = [str(i) for i in ranked if i and i not in seen.get(u, set())][:10]
    ages, genders = {}, {}
    for line in need(folder / "u.user").read_text().splitlines():
        user, age, gender = line.split("|")[:3]
        band = "<25" if int(age) < 25 else "25-34" if int(age) < 35 else "35-49" if int(
            age) < 50 else "50+"  # fmt: skip
        ages[user], genders[user] = band, gender
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        tidy = rankscope.evaluate_recsys(str(folder / "u1.test"), {"pop": recs}, ["P@10"],
                                         output="dict")  # fmt: skip
    result = aggregate(tidy, segments={"age": ages, "gender": genders})
    users = [u for u in tidy["user"] if u != "all"]
    values = dict(zip(tidy["user"], tidy["value"], strict=True))
    for segmentation, mapping in (("age", ages), ("gender", genders)):
        rows = [r for r in result.rows if r.segmentation == segmentation]
        assert sum(r.queries for r in rows) == len(users)
        for r in rows:
            members = [values[u] for u in users if mapping[u] == r.segment]
            assert r.queries == len(members)
            assert r.value == pytest.approx(sum(members) / len(members))
    assert [r.segment for r in result.rows if r.segmentation == "gender"] == ["F", "M"]
    assert {g.segmentation for g in result.gaps} == {"age", "gender"}


# -- the command line -------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    runs = []
    for name, run in RUNS.items():
        path = tmp_path / name
        path.write_text("".join(
            f"{q} Q0 {d} {r} {s} {name}\n"
            for q, docs in run.items()
            for r, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), start=1)
        ))  # fmt: skip
        runs.append(str(path))
    (tmp_path / "kind").write_text("q1 nav\nq2 nav\nq3 info\n")
    (tmp_path / "log").write_text("q1\nq1\nq2\nq3\n")
    return {"qrels": qrels, "runs": runs, "kind": str(tmp_path / "kind"),
            "log": str(tmp_path / "log"), "dir": tmp_path}  # fmt: skip


def test_cli_eval_appends_the_aggregates(files, capsys):
    args = ["eval", "-m", "AP", files["qrels"], *files["runs"]]
    code, plain, _ = run_cli(args, capsys)
    assert code == 0
    code, out, err = run_cli([*args, "--segments", files["kind"]], capsys)
    assert code == 0 and err == ""
    assert out.startswith(plain + "\n")
    lines = out[len(plain) + 1 :].splitlines()
    assert lines[0] == "mean per segment, 95% t interval"
    # y: AP 1 on q1 (a, b at 1, 2), 1 on q2, 1 on q3 → nav 1.0; x: q1 0.5, q2 0.5 → nav 0.5
    nav_x = next(line for line in lines if line.split()[:4] == ["x", "AP", "kind", "nav"])
    assert nav_x.split()[4] == "0.5000"
    assert "gaps between the highest and the lowest segment" in lines


def test_cli_formats(files, capsys):
    import json

    base = ["eval", "-m", "AP", files["qrels"], *files["runs"], "--weights", files["log"]]
    code, out, _ = run_cli([*base, "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0 and set(data) == {"results", "aggregates", "gaps"}
    (x,) = [r for r in data["aggregates"] if r["run"] == "x"]
    # x: AP 0.5, 0.5, 0 with traffic 2, 1, 1
    assert x["value"] == pytest.approx(1.5 / 4) and x["aggregate"] == "weighted mean"
    code, out, _ = run_cli([*base, "--format", "csv", "--usage"], capsys)
    blocks = out.split("\n\n")
    assert code == 0 and blocks[1].startswith("run,measure,segmentation,segment,weighted_mean,")
    code, out, _ = run_cli(
        [
            "compare",
            "-m",
            "AP",
            files["qrels"],
            *files["runs"],
            "--segments",
            files["kind"],
            "--format",
            "markdown",
        ],
        capsys,
    )
    assert code == 0 and "| run | measure | segmentation |" in out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--usage"], "--usage applies to an aggregation"),
        (["--usage-shares", "0.5,0.9", "--segments", "KIND"], "give --usage too"),
        (["--segments", "KIND", "--usage"], r"--usage needs the request weights"),
        (["--segments", "BAD"], r"bad:2: expected 2 fields \(query segment\), found 1"),
        (["--segments", "PARTIAL"], "1 query\\(s\\) of the table have no segment.*--missing warn"),
        (["--weights", "BADW"], r"badw:1: weight '-3' is not a non-negative number"),
        (["--weights", "nowhere.txt"], "nowhere.txt: No such file or directory"),
    ],
)
def test_cli_bad_input(files, capsys, extra, message):
    (files["dir"] / "bad").write_text("q1 nav\nq2\n")
    (files["dir"] / "partial").write_text("q1 nav\nq2 info\n")
    (files["dir"] / "badw").write_text("q1 -3\n")
    folder = files["dir"]
    named = {"LOG": files["log"], "KIND": files["kind"], "BAD": str(folder / "bad"),
             "PARTIAL": str(folder / "partial"), "BADW": str(folder / "badw")}  # fmt: skip
    args = ["eval", "-m", "AP", files["qrels"], *files["runs"], *[named.get(a, a) for a in extra]]
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    assert re.search(message, err), err
    assert len(err.strip().splitlines()) == 1


def test_cli_usage_shares_are_checked(files, capsys):
    args = ["eval", "-m", "AP", files["qrels"], *files["runs"], "--weights", files["log"]]
    with pytest.raises(SystemExit):
        run_cli([*args, "--usage", "--usage-shares", "0.9,0.2"], capsys)
    assert "expected 0 < HEAD < TORSO < 1" in capsys.readouterr().err
    for shares, expected in (("0.2,0.6", "torso"), ("0.2,0.4", "tail")):
        code, out, _ = run_cli([*args, "--usage-shares", shares, "--usage", "--format", "csv"],
                               capsys)  # fmt: skip
        # traffic q1 2, q2 1, q3 1: q1 starts at 0% (head), q2 and q3 together at 50%
        rows = [r.split(",") for r in out.split("\n\n")[1].splitlines()[1:]]
        assert code == 0
        assert [(r[3], r[7]) for r in rows if r[0] == "x"] == [
            ("all", "3"), ("head", "1"), (expected, "2")
        ]  # fmt: skip


def test_cli_recsys_segments_users(tmp_path, capsys):
    (tmp_path / "test").write_text("u1 a 5\nu1 b 2\nu2 b 4\nu3 c 5\n")
    (tmp_path / "recs").write_text("u1 a 2\nu1 b 1\nu2 a 2\nu2 c 1\nu3 c 1\n")
    (tmp_path / "gender").write_text("u1 F\nu2 M\nu3 M\n")
    code, out, err = run_cli(
        ["recsys", str(tmp_path / "test"), str(tmp_path / "recs"), "-m", "P@2", "--segments",
         str(tmp_path / "gender"), "--format", "csv"], capsys,
    )  # fmt: skip
    assert code == 0, err
    rows = [line.split(",") for line in out.split("\n\n")[1].splitlines()[1:]]
    # P@2: u1 1/2, u2 0, u3 1/2 (one relevant item in two slots)
    by_segment = {r[3]: (float(r[4]), int(r[7])) for r in rows}
    assert by_segment == {"all": (pytest.approx(1 / 3), 3), "F": (0.5, 1), "M": (0.25, 2)}


def test_cli_choices_agree_with_the_library():
    from rankscope.cli import options, segments

    assert options.HOWS == HOWS and segments.MISSING == MISSING


def test_cli_recsys_folds_take_no_segments(tmp_path, capsys):
    (tmp_path / "gender").write_text("u1 F\n")
    code, out, err = run_cli(
        ["recsys", "--folds", str(tmp_path), "recs.tsv", "--segments", str(tmp_path / "gender")],
        capsys,
    )  # fmt: skip
    assert code == 2 and out == ""
    assert "--weights and --segments do not go with --folds" in err
