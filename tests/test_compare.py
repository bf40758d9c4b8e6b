"""rankscope.compare and `rankscope compare`: values by hand, p-values against scipy on real
runs (whose per-query values are trec_eval's), every format, the policies."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats as scipy_stats

import rankscope
from rankscope.errors import UsageError
from rankscope.judge import JoinOptions
from rankscope.measures import parse_measures
from rankscope.read.sources import read_qrels, run_sources
from rankscope.table.compare import compare_runs, level_docs
from rankscope.table.formats import FORMATS
from rankscope.table.many import evaluate_many_runs
from tests.conftest import CONFORMANCE, DATA, need, run_cli, write_qrels, write_ranked_run

# q1: a, b relevant; q2: a; q3: b.  bm25 finds a on q1 (rank 1) and q2 (rank 2), nothing on
# q3; dense finds everything at the top.
QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"a": 1}, "q3": {"b": 1}}
RANKINGS = {
    "bm25": {"q1": ["a", "c"], "q2": ["c", "a"], "q3": ["c"]},
    "dense": {"q1": ["a", "b"], "q2": ["a"], "q3": ["b", "c"]},
    "half": {"q1": ["b"], "q2": ["a"]},  # does not rank q3
}


def _runs(names=("bm25", "dense", "half")):
    return {
        n: {q: {d: len(docs) - i for i, d in enumerate(docs)} for q, docs in RANKINGS[n].items()}
        for n in names
    }


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankscope.compare(*args, **kwargs)


def test_against_the_baseline_by_hand():
    result = _quiet(QRELS, _runs(("bm25", "dense")), ["AP"])
    # AP by query: bm25 (1/2, 1/2, 0), dense (1, 1, 1); d = (1/2, 1/2, 1)
    base = result.row("bm25", "AP")
    assert base.baseline is None and base.mean == pytest.approx(1 / 3)
    row = result.row("dense", "AP")
    assert row.baseline == "bm25" and row.baseline_mean == pytest.approx(1 / 3)
    assert row.difference == pytest.approx(2 / 3) and row.relative == pytest.approx(2.0)
    assert (row.wins, row.ties, row.losses) == (3, 0, 0)
    sd = math.sqrt(((0.5 - 2 / 3) ** 2 * 2 + (1 - 2 / 3) ** 2) / 2)
    assert row.effect_size == pytest.approx((2 / 3) / sd)
    t = (2 / 3) / (sd / math.sqrt(3))
    assert row.p_unadjusted == pytest.approx(2 * scipy_stats.t.sf(t, 2))
    assert row.p_value == row.p_unadjusted  # one comparison: Holm changes nothing
    half = scipy_stats.t.ppf(0.975, 2) * np.std([0.5, 0.5, 0], ddof=1) / math.sqrt(3)
    assert (base.ci_low, base.ci_high) == pytest.approx((1 / 3 - half, 1 / 3 + half))


def test_missing_queries_score_zero_unless_common_queries():
    result = _quiet(QRELS, _runs(), ["P@1"], baseline="dense")
    # half ranks q1 (b: relevant) and q2 (a: relevant) but not q3: 0 there
    assert result.row("half", "P@1").mean == pytest.approx(2 / 3)
    assert result.unranked == {"bm25": [], "half": ["q3"]} or result.unranked == {"half": ["q3"]}
    common = _quiet(QRELS, _runs(), ["P@1"], baseline="dense", common_queries=True)
    assert common.query_ids == ["q1", "q2"]
    assert common.row("half", "P@1").mean == 1.0


def test_corrections_over_the_comparisons_of_a_measure():
    runs = _runs()
    plain = _quiet(QRELS, runs, ["AP"], correction="none")
    holm = _quiet(QRELS, runs, ["AP"], correction="holm")
    bonferroni = _quiet(QRELS, runs, ["AP"], correction="bonferroni")
    p = {n: plain.row(n, "AP").p_value for n in ("dense", "half")}
    assert all(plain.row(n, "AP").p_unadjusted == p[n] for n in p)
    for n in p:
        assert bonferroni.row(n, "AP").p_value == pytest.approx(min(1.0, 2 * p[n]))
    low, high = sorted(p, key=p.get)
    assert holm.row(low, "AP").p_value == pytest.approx(min(1.0, 2 * p[low]))
    assert holm.row(high, "AP").p_value == pytest.approx(max(2 * p[low], p[high]))


def test_preference_columns_are_mean_preferences_over_the_baseline():
    runs = _runs(("bm25", "dense"))
    result = _quiet(QRELS, runs, ["RPP"])
    # per query RPP(dense, bm25): q1 (1/2)(0 + 1) = 1/2; q2 +1; q3 +1
    row = result.row("dense", "RPP")
    assert row.kind == "preference" and row.mean == pytest.approx(2.5 / 3)
    assert row.baseline_mean == 0 and row.relative is None
    tensor = rankscope.preferences(QRELS, runs, "RPP").prefs
    assert row.mean == pytest.approx(tensor[:, 1, 0].sum() / 3)
    d = np.array([0.5, 1.0, 1.0])
    assert row.p_unadjusted == pytest.approx(scipy_stats.ttest_1samp(d, 0).pvalue)


def test_all_pairs():
    result = _quiet(QRELS, _runs(), ["AP", "RPP"], all_pairs=True)
    assert result.baseline is None
    pairs = [r for r in result.rows if r.baseline is not None]
    assert len(pairs) == 2 * 3  # 3 pairs per measure
    ap = result.row("bm25", "AP", "dense")
    assert ap.difference == pytest.approx(1 / 3 - 1)
    assert {r.run for r in result.rows if r.measure == "AP" and r.baseline is None} == {
        "bm25", "dense", "half",
    }  # fmt: skip


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
def test_every_test_is_deterministic_and_a_probability(test):
    runs = _runs()
    first = _quiet(QRELS, runs, ["AP", "RPP"], test=test, seed=3, permutations=500)
    again = _quiet(QRELS, runs, ["AP", "RPP"], test=test, seed=3, permutations=500)
    assert first.records() == again.records()
    assert all(0 <= r.p_value <= 1 for r in first.rows if r.p_value is not None)


def test_randomized_tukey_is_family_wise_without_a_correction():
    result = _quiet(QRELS, _runs(), ["AP", "RPP"], test="randomized-tukey", permutations=300)
    compared = [r for r in result.rows if r.baseline is not None]
    assert all(r.p_unadjusted is None and 0 < r.p_value <= 1 for r in compared)


def test_requests_that_cannot_be_compared():
    with pytest.raises(UsageError, match="baseline 'nope'"):
        _quiet(QRELS, _runs(), ["AP"], baseline="nope")
    with pytest.raises(UsageError, match="at least two runs"):
        _quiet(QRELS, _runs(("bm25",)), ["AP"])
    with pytest.raises(UsageError, match="unknown test"):
        _quiet(QRELS, _runs(), ["AP"], test="z")
    with pytest.raises(UsageError, match="unknown correction"):
        _quiet(QRELS, _runs(), ["AP"], correction="sidak")


def test_formats():
    runs = {**_runs(("bm25", "dense")), "x|<b>\x1b[2J": _runs(("half",))["half"]}
    result = _quiet(QRELS, runs, ["AP", "RPP"])
    records = json.loads(result.to_json())
    for key in ("run", "measure", "mean", "ci_low", "ci_high", "baseline", "baseline_mean",
                "difference", "p_value", "p_unadjusted", "effect_size", "wins", "ties",
                "losses"):  # fmt: skip
        assert key in records[0]
    assert len(records) == 3 * 2
    dense = next(r for r in records if r["run"] == "dense" and r["measure"] == "AP")
    assert dense["difference"] == result.row("dense", "AP").difference  # full precision
    csv_lines = result.to_csv().splitlines()
    assert len(csv_lines) == 1 + 6 and repr(result.row("dense", "AP").difference) in csv_lines[2]
    text = result.to_text()
    assert "\x1b" not in text and "\\x1b[2J" in text  # control characters shown, not sent
    markdown = result.to_markdown()
    assert "x\\|<b>\\\\x1b[2J" in markdown and markdown.count("\n| ") == 3  # 3 runs
    latex = result.to_latex()
    assert r"\begin{tabular}" in latex and "x|<b>" not in latex.split("%")[0]
    frame = result.to_frame("dict")
    assert frame["run"][:2] == ["bm25", "dense"]


def test_cli(tmp_path, capsys):
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    runs = [write_ranked_run(tmp_path / n, n, RANKINGS[n]) for n in ("bm25", "dense", "half")]
    code, out, err = run_cli(["compare", "-m", "AP", "-m", "RPP", qrels, *runs], capsys)
    assert code == 0, err
    assert out.startswith("AP\n") and "▲/▼" in out and "judged queries" in out
    code, out, _ = run_cli(
        ["compare", "--format", "json", "--baseline", "dense", "-m", "AP", qrels, *runs], capsys
    )
    rows = json.loads(out)
    assert code == 0 and {r["baseline"] for r in rows} == {None, "dense"}
    code, _, err = run_cli(["compare", "--baseline", "nope", qrels, *runs], capsys)
    assert code == 2 and "baseline 'nope'" in err


def _trec_eval_per_query(path, measure):
    values = {}
    for line in path.read_text().splitlines():
        name, qid, value = line.split()
        if name == measure and qid != "all":
            values[qid] = float(value)
    return values


def test_p_values_against_scipy_on_real_runs():
    """Two CLEF eHealth 2016 runs: rankscope's per-query AP is trec_eval's (to its four
    printed decimals), and each test's p-value is scipy's on those values."""
    real = need(CONFORMANCE / "trec_eval" / "real")
    folder = need(DATA / "clef_ehealth2016")
    names = ("GUIR_EN_Run1", "CUNI_EN_Run1")
    runs = {n: folder / "runs" / f"{n}.txt.gz" for n in names}
    for n in names:
        need(runs[n])
    reference = {n: _trec_eval_per_query(real / f"ehealth2016.{n}.aq", "map") for n in names}
    results = {
        test: _quiet(folder / "task2.qrels", runs, ["AP"], test=test, correction="none")
        for test in ("t", "wilcoxon", "sign")
    }
    c = results["t"]
    assert c.query_ids == sorted(reference[names[0]])
    for i, n in enumerate(c.run_names):
        printed = np.array([reference[n][q] for q in c.query_ids])
        np.testing.assert_allclose(c.values["AP"][i], printed, atol=5e-5)
    base, run = c.values["AP"]
    row = {test: r.row(names[1], "AP") for test, r in results.items()}
    assert row["t"].p_value == pytest.approx(scipy_stats.ttest_rel(run, base).pvalue, rel=1e-10)
    assert row["wilcoxon"].p_value == pytest.approx(
        scipy_stats.wilcoxon(run, base).pvalue, rel=1e-10
    )
    d = run - base
    binom = scipy_stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
    assert row["sign"].p_value == pytest.approx(binom, rel=1e-10)
    # and on trec_eval's own printed values, scipy agrees to the rounding
    printed = [np.array([reference[n][q] for q in c.query_ids]) for n in names]
    assert row["t"].p_value == pytest.approx(
        scipy_stats.ttest_rel(printed[1], printed[0]).pvalue, abs=1e-3
    )


def test_cli_choices_are_the_library_s():
    from rankscope.cli import compare as command
    from rankscope.report.compare import FORMATS
    from rankscope.stats.corrections import CORRECTIONS
    from rankscope.stats.procedures import names

    assert tuple(command.options.StatisticalTests("runs")) == names("runs")
    assert command.options.CORRECTIONS == tuple(CORRECTIONS)
    assert command.FORMATS == FORMATS


def test_measures_keep_the_order_given_and_runs_are_named_after_their_files(tmp_path, capsys):
    result = _quiet(QRELS, _runs(("bm25", "dense")), ["RR", "AP", "P@1", "AP"])
    assert result.measures == ["RR", "AP", "P@1"]
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    a = write_ranked_run(tmp_path / "first.run", "tag", RANKINGS["bm25"])
    b = write_ranked_run(tmp_path / "second.txt.gz.txt", "tag", RANKINGS["dense"])
    code, out, err = run_cli(["compare", "--format", "json", "-m", "AP", qrels, a, b], capsys)
    assert code == 0, err
    assert [r["run"] for r in json.loads(out)] == ["first", "second.txt.gz"]
    (tmp_path / "twin").mkdir()
    c = write_ranked_run(tmp_path / "twin" / "first.run", "tag", RANKINGS["dense"])
    code, out, err = run_cli(["compare", "--format", "json", "-m", "AP", qrels, a, c], capsys)
    assert code == 0, err  # two files of one name: told apart by their paths
    assert [r["run"] for r in json.loads(out)] == [f"{tmp_path.name}/first", "twin/first"]


def test_the_api_names_runs_as_compare_does(tmp_path):
    """`rankscope.evaluate` and `rankscope.compare` name the same run files the same way (by
    file, as the commands; by tag on request), so their tables join on the run."""
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    a = write_ranked_run(tmp_path / "bm25.run", "tagA", RANKINGS["bm25"])
    b = write_ranked_run(tmp_path / "dense.txt", "tagB", RANKINGS["dense"])
    table = rankscope.evaluate(qrels, [a, b], ["AP"], output="dict")
    compared = _quiet(qrels, [a, b], ["AP"])
    assert sorted(set(table["run"])) == sorted(r.run for r in compared.rows) == ["bm25", "dense"]
    by_tag = rankscope.evaluate(qrels, [a, b], ["AP"], names="tag", output="dict")
    assert sorted(set(by_tag["run"])) == ["tagA", "tagB"]
    assert sorted(r.run for r in _quiet(qrels, [a, b], ["AP"], names="tag").rows) == [
        "tagA", "tagB",
    ]  # fmt: skip


def test_example_shows_a_comparison_an_ordering_and_what_to_try(capsys):
    code, out, err = run_cli(["example"], capsys)
    assert code == 0, err
    blocks = out.split("\n\n")
    assert blocks[2] == "Against the weak run, with significance:"
    assert "strong  0.7100 ± 0.0285  +0.4368  +159.9%  <0.0001▲" in out  # AP, by the t-test
    assert "(MC4): strong > medium > weak" in out
    assert "rankscope compare -m nDCG@10 -m RPP" in out


def test_the_baseline_by_the_path_of_its_file(tmp_path, capsys):
    """``--baseline runs/dense.txt``: the run read from that file, in every command that has
    --baseline; a path that is not one of the runs is refused with the names."""
    qrels = write_qrels(tmp_path / "qrels", QRELS)
    a = write_ranked_run(tmp_path / "bm25.txt", "t1", RANKINGS["bm25"])
    b = write_ranked_run(tmp_path / "dense.txt", "t2", RANKINGS["dense"])
    code, out, err = run_cli(
        ["compare", "--format", "json", "-m", "P@1", "--baseline", str(b), qrels, a, b], capsys
    )
    assert code == 0, err
    rows = {r["run"]: r for r in json.loads(out)}
    # P@1: bm25 finds a on q1 only (1/3); dense a, a, b (1)
    assert rows["bm25"]["baseline"] == "dense"
    assert rows["bm25"]["difference"] == pytest.approx(1 / 3 - 1)
    code, out, err = run_cli(
        ["eval", "-m", "RPP", "--baseline", str(b), "--format", "csv", qrels, a, b], capsys
    )
    assert code == 0, err
    assert "RPP vs dense" in out
    code, _, err = run_cli(["compare", "--baseline", str(tmp_path / "x.txt"), qrels, a, b], capsys)
    assert code == 2 and "not one of the runs (bm25, dense)" in err


@pytest.mark.parametrize("how", [{}, {"common_queries": True}, {"all_pairs": True},
                                 {"baseline": "half", "test": "wilcoxon"}])
def test_streamed_and_whole_runs_compare_alike(how, monkeypatch):
    # metrics are evaluated one run at a time (evaluate_many's path), with or without
    # curves; runs read whole (the preference methods' path) give the same rows, values and
    # unranked queries
    with monkeypatch.context() as whole:
        whole.setattr("rankscope.api.comparison.streams", lambda requests: False)
        full = _quiet(QRELS, _runs(), ["AP", "P@1", "R@2"], **how)
    for jobs in (None, 2):
        lean = _quiet(QRELS, _runs(), ["AP", "P@1", "R@2"], curves=False, jobs=jobs, **how)
        # (repr: every digit, and NaN, which is not equal to itself, equal)
        assert repr(lean.rows) == repr(full.rows) and lean.query_ids == full.query_ids
        assert lean.unranked == full.unranked == {"half": ["q3"]}
        assert all(np.array_equal(lean.values[m], full.values[m]) for m in full.values)
        assert lean.precision_recall is None and lean.recall_levels == {}
    # half did not rank q3: it scores 0 there (AP 1/2 on q1: b of a and b; 1 on q2)
    assert full.values["AP"][2].tolist() == ([0.5, 1.0] if how.get("common_queries") else
                                             [0.5, 1.0, 0.0])  # fmt: skip


@pytest.mark.parametrize("how", [{}, {"all_pairs": True}, {"baseline": "half"},
                                 {"test": "randomized-tukey", "permutations": 50},
                                 {"curves": False}])  # fmt: skip
def test_preference_methods_streamed_and_whole_compare_alike(how, monkeypatch):
    # with preference methods too the runs are read one at a time, each keeping where it
    # ranks the relevant documents: the rows, values, preference tensors, recall levels and
    # warnings are those of the runs read whole
    measures = ["AP", "RPP", "gRPP", "lexiprecision"]
    with monkeypatch.context() as whole, warnings.catch_warnings(record=True) as told:
        warnings.simplefilter("always")
        whole.setattr("rankscope.api.comparison.streams", lambda requests: False)
        full = rankscope.compare(QRELS, _runs(), measures, **how)
    assert any("ranks nothing for 1 query" in str(w.message) for w in told)
    for jobs in (None, 2):
        with warnings.catch_warnings(record=True) as streamed_told:
            warnings.simplefilter("always")
            lean = rankscope.compare(QRELS, _runs(), measures, jobs=jobs, **how)
        assert [str(w.message) for w in streamed_told] == [str(w.message) for w in told]
        assert repr(lean.rows) == repr(full.rows) and lean.unranked == full.unranked
        assert all(np.array_equal(lean.values[m], full.values[m]) for m in full.values)
        assert all(np.array_equal(lean.preferences[m], full.preferences[m])
                   for m in full.preferences)  # fmt: skip
        assert lean.recall_levels == full.recall_levels
    # RPP of dense over bm25 by hand: q1 (a first for both, then b at 2 against never) 1/2,
    # q2 (a at 1 against 2) 1, q3 (b at 1 against never) 1
    if "baseline" not in how and not how.get("all_pairs"):
        assert full.row("dense", "RPP").mean == pytest.approx(2.5 / 3)


def test_curves_only_when_asked_and_the_rows_the_same():
    runs = _runs(("bm25", "dense"))
    full = _quiet(QRELS, runs, ["AP", "P@1", "RPP"])
    lean = _quiet(QRELS, runs, ["AP", "P@1", "RPP"], curves=False)
    assert lean.rows == full.rows and lean.query_ids == full.query_ids
    assert all(np.array_equal(lean.values[m], full.values[m]) for m in full.values)
    assert all(np.array_equal(lean.preferences[m], full.preferences[m]) for m in full.preferences)
    assert lean.precision_recall is None and lean.recall_levels == {}
    # the curve is the mean of eval's per-query iprec_at_recall (trec_eval's, conformance-
    # tested) over every judged query, q3 unranked by bm25 scoring 0; dense is perfect
    per_query = rankscope.evaluate(QRELS, runs["bm25"], ["iprec_at_recall"], complete=True)
    by_level = per_query.groupby("measure", sort=True)["value"].sum() / 3
    assert list(full.precision_recall[0]) == pytest.approx(list(by_level))
    assert list(full.precision_recall[1]) == pytest.approx([1.0] * 11)
    assert list(full.recall_levels) == ["dense"]
    with pytest.raises(UsageError, match="curves=True"):
        lean.to_html("unused.html")


def test_preference_methods_alone_without_curves():
    runs = _runs(("bm25", "dense"))
    full = _quiet(QRELS, runs, ["RPP"])
    lean = _quiet(QRELS, runs, ["RPP"], curves=False)
    assert lean.rows == full.rows and lean.row("dense", "RPP").mean == pytest.approx(2.5 / 3)


def test_evaluated_runs_need_the_curves_values_and_the_ranks():
    # compare_runs on runs evaluated one at a time: the curves need iprec_at_recall among
    # the evaluated requests, and the recall levels the runs' ranks (their positions)
    judgments = read_qrels(QRELS)
    sources = run_sources(_runs(("bm25", "dense")), None, "file")
    requests = parse_measures(["AP"])
    options = JoinOptions(complete=True)
    lean = evaluate_many_runs(judgments, sources, requests, FORMATS["qrels"], options)
    with pytest.raises(UsageError, match="iprec_at_recall"):
        compare_runs(judgments, lean, requests, options=options)
    curves = parse_measures(["AP", "iprec_at_recall"])
    evaluated = evaluate_many_runs(judgments, sources, curves, FORMATS["qrels"], options)
    with pytest.raises(UsageError, match="need their ranks"):
        compare_runs(judgments, evaluated, requests, options=options)
    ranked = evaluate_many_runs(
        judgments, sources, curves, FORMATS["qrels"], options, positions=level_docs(judgments)
    )
    found = compare_runs(judgments, ranked, requests, options=options)
    # dense is perfect (AP 1 on every query), bm25 0.5, 0.5, 0: the levels add up to 1/3
    assert sum(level.delta["AP"] for level in found.recall_levels["dense"].levels) == (
        pytest.approx(1 - (0.5 + 0.5 + 0) / 3)
    )
