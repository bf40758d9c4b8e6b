"""rankscope as an ir_measures provider (issue 14 §2): the values of ir_measures' measures
equal those of ir_measures' own pytrec_eval provider (the oracle: trec_eval inside) and of
`rankscope.evaluate`; rankscope's own measures through ir_measures equal hand computations;
`register` routes ``ir_measures.calc_aggregate`` and PyTerrier's ``pt.Experiment`` through
rankscope and `unregister` undoes it."""

from __future__ import annotations

import math
import warnings

import pytest

from tests.conftest import DATA, need

ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

import rankscope  # noqa: E402
from rankscope.errors import InputError, RankscopeWarning, UsageError  # noqa: E402
from rankscope.integrations import ir_measures as rs_ir  # noqa: E402

AP, P, RR, nDCG, R = ir_measures.AP, ir_measures.P, ir_measures.RR, ir_measures.nDCG, ir_measures.R

#: ir_measures' measures that rankscope and pytrec_eval both compute, with the parameters
#: they share (relevance levels, cutoffs, condensed lists).
SHARED_MEASURES = [
    AP, AP @ 100, AP(rel=2), P @ 10, P(rel=2) @ 10, P(judged_only=True) @ 10, RR,
    RR(rel=2), ir_measures.Rprec, nDCG, nDCG @ 10, nDCG(judged_only=True) @ 10, R @ 100,
    ir_measures.Bpref, ir_measures.infAP, ir_measures.Success @ 5, ir_measures.IPrec @ 0.0,
    ir_measures.IPrec @ 0.5, ir_measures.IPrec @ 1.0, ir_measures.NumQ, ir_measures.NumRet,
    ir_measures.NumRelRet, ir_measures.NumRel, ir_measures.SetAP, ir_measures.SetF,
    ir_measures.SetF(beta=0.5), ir_measures.SetP, ir_measures.SetRelP, ir_measures.SetR,
]  # fmt: skip


@pytest.fixture(scope="module")
def robust04():
    """Robust04 judgments and the Anserini BM25+RM3 run on the first 40 judged topics (and
    two topics the run does not rank, judged), as ir_measures reads them: DataFrames."""
    folder = need(DATA / "robust04")
    ids = {"query_id": str, "doc_id": str}
    qrels = pd.read_csv(folder / "qrels.robust2004.txt", sep=" ", dtype=ids,
                        names=["query_id", "iteration", "doc_id", "relevance"])  # fmt: skip
    run = pd.read_csv(folder / "rob04_yang19_rm3.run.gz", sep=" ", dtype=ids,
                      names=["query_id", "q0", "doc_id", "rank", "score", "tag"])  # fmt: skip
    qrels, run = qrels.drop(columns="iteration"), run[["query_id", "doc_id", "score"]]
    topics = sorted(set(qrels.query_id))[:40]
    qrels = qrels[qrels.query_id.isin(topics)].reset_index(drop=True)
    run = run[run.query_id.isin(topics[2:])].reset_index(drop=True)
    return qrels, run


@pytest.fixture
def registered():
    provider = rs_ir.register()
    yield provider
    rs_ir.unregister()


def _per_query(metrics) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


def test_values_equal_pytrec_eval_provider(robust04):
    qrels, run = robust04
    ours = rs_ir.PROVIDER.calc_aggregate(SHARED_MEASURES, qrels, run)
    oracle = ir_measures.pytrec_eval.calc_aggregate(SHARED_MEASURES, qrels, run)
    for m in SHARED_MEASURES:
        assert ours[m] == pytest.approx(oracle[m], abs=1e-12), m
    ours_q = _per_query(rs_ir.PROVIDER.iter_calc(SHARED_MEASURES, qrels, run))
    oracle_q = _per_query(ir_measures.pytrec_eval.iter_calc(SHARED_MEASURES, qrels, run))
    assert ours_q.keys() == oracle_q.keys()
    assert len({q for q, _ in ours_q}) == 40  # the two unranked topics too (with 0)
    for key, value in oracle_q.items():
        assert ours_q[key] == pytest.approx(value, abs=1e-12), key


def test_values_equal_rankscope_evaluate(robust04):
    qrels, run = robust04
    names = {AP: "AP", nDCG @ 10: "nDCG@10", P @ 10: "P@10", R @ 100: "R@100"}
    metrics = _per_query(rs_ir.PROVIDER.iter_calc(list(names), qrels, run))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)  # the two unranked topics
        table = rankscope.evaluate(qrels, {"rm3": run}, list(names.values()), output="dict")
    rows = zip(table["query"], table["measure"], table["value"], strict=True)
    expected = {(query, label): value for query, label, value in rows}
    assert len(expected) == 4 * 38
    for (query, label), value in expected.items():
        assert metrics[(query, label)] == value
    unranked = sorted(set(qrels.query_id))[:2]
    assert all(metrics[(q, label)] == 0 for q in unranked for label in names.values())


def test_iprec_is_trec_eval_10s(robust04):
    """IPrec@0.2 is trec_eval 10's (the first rank with at least lround(0.2 R) relevant
    documents, as rankscope's iprec_at_recall), not trec_eval 9's inside pytrec_eval."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1}}
    # R = 7: 0.2 R = 1.4 rounds to 1 (trec_eval 10); trec_eval 9 needs recall >= 0.2: 2 found
    run = {"q": {"a": 9.0, "x": 8.0, "y": 7.0, "b": 6.0}}
    (value,) = rs_ir.PROVIDER.calc_aggregate([ir_measures.IPrec @ 0.2], qrels, run).values()
    assert value == 1.0  # the precision at rank 1, the highest from rank 1 on
    oracle = ir_measures.pytrec_eval.calc_aggregate([ir_measures.IPrec @ 0.2], qrels, run)
    assert list(oracle.values()) == [0.5]  # at rank 4, 2 relevant of 4


def test_inputs_in_every_shape_ir_measures_takes():
    qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 2}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d1": 2.0, "d2": 1.0}}
    expected = {AP: ((1 + 2 / 3) / 2 + 1 / 2) / 2, P @ 2: (1 / 2 + 1 / 2) / 2}
    records = (
        [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()],
    )
    frames = tuple(pd.DataFrame(r) for r in records)
    for q, r in [(qrels, run), records, frames]:
        result = rs_ir.PROVIDER.calc_aggregate(list(expected), q, r)
        assert result == pytest.approx(expected)


def test_empty_run_gives_the_defaults():
    qrels = {"q1": {"d1": 1}}
    empty = pd.DataFrame([], columns=["query_id", "doc_id", "score"])
    metrics = list(rs_ir.PROVIDER.iter_calc([AP, rs_ir.ESL], qrels, empty))
    assert sorted((m.query_id, str(m.measure), m.value) for m in metrics) == [
        ("q1", "AP", 0.0),
        ("q1", "ESL", 0.0),
    ]


def test_a_document_ranked_twice_is_an_error():
    qrels = {"q1": {"d1": 1}}
    run = [ir_measures.ScoredDoc("q1", "d1", 2.0), ir_measures.ScoredDoc("q1", "d1", 1.0)]
    with pytest.raises(InputError, match="record 1: document 'd1' is ranked twice"):
        rs_ir.PROVIDER.calc_aggregate([AP], qrels, run)


def test_register_routes_ir_measures_through_rankscope(registered):
    assert ir_measures.DefaultPipeline.providers[0] is registered
    assert ir_measures.providers.registry["rankscope"] is registered
    qrels = {"q1": {"d1": 1}}
    evaluator = ir_measures.evaluator([AP, nDCG @ 10], qrels)
    assert isinstance(evaluator, rs_ir.RankscopeEvaluator)
    # measures rankscope leaves to others still work: Judged@k by ir_measures' own provider
    both = ir_measures.calc_aggregate([AP, ir_measures.Judged @ 2], qrels, {"q1": {"d1": 1.0}})
    assert both == {AP: 1.0, ir_measures.Judged @ 2: 1.0}
    assert ir_measures.parse_measure("ESL(k=2)") == rs_ir.ESL(k=2)
    rs_ir.register()  # twice: once in the pipeline
    assert ir_measures.DefaultPipeline.providers.count(registered) == 1


def test_unregister_restores_ir_measures():
    before = list(ir_measures.DefaultPipeline.providers)
    rs_ir.register()
    rs_ir.unregister()
    assert ir_measures.DefaultPipeline.providers == before
    assert "rankscope" not in ir_measures.providers.registry
    with pytest.raises(NameError):
        ir_measures.parse_measure("GMAP")


def test_rankscope_only_measures_through_ir_measures(registered):
    qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}, "q3": {"d9": 1}, "q4": {"d1": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d1": 2.0, "d2": 1.0},
           "q3": {"d1": 1.0}}  # fmt: skip
    gmap, esl, nonrel = (
        ir_measures.parse_measure("GMAP"),
        rs_ir.ESL(k=1),
        rs_ir.measure("num_nonrel_judged_ret"),
    )
    result = ir_measures.calc_aggregate([gmap, esl, nonrel], qrels, run)
    # AP per query; q3 and the unranked q4 score 0, floored at 1e-5 by the geometric mean
    ap = [(1 + 2 / 3) / 2, 1 / 2, 0.0, 0.0]
    assert result[gmap] == pytest.approx(math.exp(sum(math.log(max(a, 1e-5)) for a in ap) / 4))
    # ESL(k=1): the non-relevant documents read before the first relevant one
    per_query = _per_query(ir_measures.iter_calc([esl], qrels, run))
    assert per_query[("q1", repr(esl))] == 0 and per_query[("q2", repr(esl))] == 1
    # trec_eval's num_nonrel_judged_ret: judged non-relevant documents retrieved (none here)
    assert result[nonrel] == 0
    assert repr(nonrel) == "num_nonrel_judged_ret"


def test_rpp_against_a_baseline(registered):
    """RPP compares the relevant documents' positions: x finds the first relevant document
    at rank 1, the baseline at rank 2, so x is preferred (+1) and the baseline against
    itself ties (0)."""
    qrels = {"q": {"a": 1, "b": 1}}
    x = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    y = {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}
    rs_ir.baseline("y", y)
    rpp = rs_ir.RPP(baseline="y")
    assert repr(rpp) == "RPP(baseline='y')"
    assert ir_measures.calc_aggregate([rpp], qrels, x) == {rpp: 1.0}
    assert ir_measures.calc_aggregate([rpp], qrels, y) == {rpp: 0.0}
    with pytest.raises(UsageError, match="name a baseline"):
        ir_measures.calc_aggregate([rs_ir.RPP], qrels, x)


def test_measure_spellings():
    assert rs_ir.measure("ESL(k=3)") == rs_ir.ESL(k=3)
    assert repr(rs_ir.measure("TBG@10")) == "TBG@10"
    assert repr(rs_ir.measure("gm_bpref")) == "gm_bpref"
    # rankscope's ERR is not gdeval's: spelled apart, never equal to ir_measures.ERR@10
    assert repr(rs_ir.measure("ERR@10")) == "rankscope:ERR@10"
    assert rs_ir.measure("ERR@10") != ir_measures.ERR @ 10
    with pytest.raises(UsageError, match="names 9 measures"):
        rs_ir.measure("P")
    with pytest.raises(UsageError, match="not a valid int"):
        rs_ir.ESL(k="x").validate_params()
    with pytest.raises(UsageError, match="compares runs"):
        rs_ir.measure("RPP")


def test_measures_left_to_other_providers():
    """Judged@k, RBP and ERR mean something else in ir_measures; nDCG with other gains or
    exp-log2 discounting is trec_eval's ndcg only without a cutoff."""
    for m in [ir_measures.Judged @ 10, ir_measures.RBP, ir_measures.ERR @ 10,
              nDCG(dcg="exp-log2") @ 10, nDCG(gains={0: 0, 1: 1, 2: 3})]:  # fmt: skip
        assert not rs_ir.PROVIDER.supports(m), m
    assert rs_ir.PROVIDER.supports(nDCG(dcg="log2") @ 10)


def test_pyterrier_experiment_computes_through_rankscope(robust04, registered):
    pt = pytest.importorskip("pyterrier")
    qrels, run = robust04
    rm3 = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    # a second system: the run's top 10 in reverse order
    top10 = rm3.groupby("qid").head(10).copy()
    top10["score"] = -top10["score"]
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    topics = pd.DataFrame({"qid": sorted(set(qrels.query_id)), "query": "unused"})
    rs_ir.baseline("rm3", rm3)
    metrics = [AP, nDCG @ 10, "P_10", rs_ir.RPP(baseline="rm3")]
    systems = [pt.Transformer.from_df(rm3), pt.Transformer.from_df(top10)]
    table = pt.Experiment(
        systems, topics, pt_qrels, metrics, names=["rm3", "reversed"], baseline=0,
        correction="holm",
    )  # fmt: skip
    oracle = ir_measures.pytrec_eval.calc_aggregate([AP, nDCG @ 10, P @ 10], qrels, run)
    row = table.set_index("name")
    assert row.loc["rm3", "AP"] == pytest.approx(oracle[AP], abs=1e-12)
    assert row.loc["rm3", "nDCG@10"] == pytest.approx(oracle[nDCG @ 10], abs=1e-12)
    assert row.loc["rm3", "P_10"] == pytest.approx(oracle[P @ 10], abs=1e-12)
    assert row.loc["rm3", "RPP(baseline='rm3')"] == 0.0  # the baseline against itself
    # reversing the top 10 moves relevant documents down on most topics: RPP < 0
    assert -1 <= row.loc["reversed", "RPP(baseline='rm3')"] < 0
    # the same comparison by rankscope.compare from PyTerrier's frames and options
    both = pd.concat([rm3.assign(name="rm3"), top10.assign(name="reversed")])
    result = rankscope.compare(pt_qrels, both, ["AP"], baseline=0, correction=None)
    assert result.row("reversed", "AP", "rm3").p_value == pytest.approx(
        row.loc["reversed", "AP p-value"], rel=1e-9
    )


def test_docstring_examples():
    import doctest

    from rankscope.read import results_frames

    for module in (rs_ir, results_frames):
        failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert tried and not failures, module.__name__
