"""The documented policies: tie order, one-sided queries, empty rankings.

README quotes the real-data figures checked here.
"""

from __future__ import annotations

import warnings

import pytest

import rankscope
from tests.conftest import CONFORMANCE, DATA, need

QRELS = {"q1": {"A": 1, "B": 0, "C": 1}}
# A and B tie; C is last.
RUN = {"q1": {"A": 2.0, "B": 2.0, "C": 1.0}}


def _ap(ties: str, run=RUN) -> float:
    table = rankscope.evaluate(
        QRELS, {"r": run}, ["map"], per_query=False, ties=ties, output="dict"
    )
    return table["value"][0]


def test_ties_docno_descending_is_trec_evals_order():
    # B > A as strings, so B (non-relevant) is ranked first: ranks A=2, C=3.
    # AP = (1/2 + 2/3) / 2
    assert _ap("docno-desc") == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)


def test_ties_docno_ascending():
    # A first: ranks A=1, B=2, C=3. AP = (1/1 + 2/3) / 2
    assert _ap("docno-asc") == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)


def test_ties_input_order_follows_the_input():
    run_ba = {"q1": {"B": 2.0, "A": 2.0, "C": 1.0}}
    assert _ap("input-order", RUN) == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    assert _ap("input-order", run_ba) == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)


def test_unknown_tie_policy_is_an_error():
    with pytest.raises(ValueError, match="tie policy"):
        _ap("random")


def test_tie_policy_on_a_real_run_with_many_ties():
    """WHUIRGroup_EN_Run3 (CLEF eHealth 2016) has ~48,000 tied pairs: the tie order moves its
    MAP from 0.0184 (trec_eval's order) to 0.0197, P@10 from 0.1080 to 0.1200 and nDCG@10
    from 0.0779 to 0.0922 (docno ascending)."""
    qrels = need(DATA / "clef_ehealth2016" / "task2.qrels")
    run = need(DATA / "clef_ehealth2016" / "runs" / "WHUIRGroup_EN_Run3.txt.gz")
    expected = need(CONFORMANCE / "trec_eval" / "real" / "ehealth2016.WHUIRGroup_EN_Run3.aq")
    trec_map = next(
        float(line.split()[2])
        for line in expected.read_text().splitlines()
        if line.startswith("map ") and line.split()[1] == "all"
    )
    summary = {}
    for ties in ("docno-desc", "docno-asc", "input-order"):
        table = rankscope.evaluate(
            qrels, run, ["map", "P.10", "ndcg_cut.10"], per_query=False, ties=ties, output="dict"
        )
        summary[ties] = dict(zip(table["measure"], table["value"], strict=True))
    assert round(summary["docno-desc"]["map"], 4) == trec_map == 0.0184
    assert round(summary["docno-asc"]["map"], 4) == 0.0197
    assert round(summary["docno-desc"]["P_10"], 4) == 0.1080
    assert round(summary["docno-asc"]["P_10"], 4) == 0.1200
    assert round(summary["input-order"]["P_10"], 4) == 0.1180
    assert round(summary["docno-desc"]["ndcg_cut_10"], 4) == 0.0779
    assert round(summary["docno-asc"]["ndcg_cut_10"], 4) == 0.0922
    assert round(summary["input-order"]["ndcg_cut_10"], 4) == 0.0821


def test_query_only_in_qrels_is_left_out_or_zero_with_complete():
    qrels = {"q1": {"A": 1}, "q2": {"B": 1}}
    run = {"q1": {"A": 1.0}}
    with pytest.warns(rankscope.RankscopeWarning, match="not in the run"):
        t = rankscope.evaluate(qrels, {"r": run}, ["map"], per_query=False, output="dict")
    assert t["value"] == [1.0]  # q2 left out: mean over q1 only
    with pytest.warns(rankscope.RankscopeWarning, match="scored 0"):
        t = rankscope.evaluate(
            qrels, {"r": run}, ["num_q", "map"], per_query=False, complete=True, output="dict"
        )
    assert t["value"] == [2, 0.5]  # num_q, then MAP = (1 + 0) / 2 over both queries


def test_query_only_in_run_is_ignored():
    qrels = {"q1": {"A": 1}}
    run = {"q1": {"A": 1.0}, "q9": {"A": 1.0}}
    with pytest.warns(rankscope.RankscopeWarning, match="without judgments ignored"):
        t = rankscope.evaluate(qrels, {"r": run}, ["num_q", "map"], per_query=False, output="dict")
    assert t["value"] == [1, 1.0]  # num_q, map


def test_empty_ranking_after_judged_only_scores_zero():
    # every retrieved document is unjudged, so -J leaves an empty ranking
    qrels = {"q1": {"A": 1, "B": 0}}
    run = {"q1": {"X": 1.0, "Y": 0.5}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = rankscope.evaluate(
            qrels,
            {"r": run},
            ["num_ret", "map", "iprec_at_recall.0", "P.5", "ndcg"],
            per_query=False,
            judged_only=True,
            output="dict",
        )
    assert t["value"] == [0, 0.0, 0.0, 0.0, 0.0]
