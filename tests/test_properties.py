"""Properties on random small collections (hypothesis).

Collections have random document ids (including ``#``, ``-``, ``.``), random grades
including negative ones (in the pool, unjudged), documents found only in the run or only
in the judgments, queries on one side only, and scores drawn so that ties are frequent.

(d) compares with pytrec_eval (trec_eval 9's C code).  Measures whose definition changed
in trec_eval 10 are compared only where both versions agree:

* ``iprec_at_recall`` and ``11pt_avg``: trec_eval 10 takes lround(level * R) relevant
  documents for a recall level, trec_eval 9 floor(level * R + 0.9); values are compared for
  the levels where the two counts coincide (and ``11pt_avg`` when they coincide for all 11).
  For an empty ranking (possible with judged_only) trec_eval prints nan there and rankscope
  documents 0.

pytrec_eval compares scores in single precision (scores 1.1e-155 and 0.0 tie there, and
the tie is broken by document id), whereas trec_eval 10 and rankscope use doubles; (d)
therefore draws scores that are exact single-precision values.  Each query of (d) has at
least one grade >= 0: for a query whose judgments are all negative trec_eval reuses the
previous query's grade counts.

Not compared, because pytrec_eval does not have them: ``dcg``, ``ideal_dcg``, ``rbp``,
``rbp_resid``, ``unj``; ``relstring`` and ``runid`` are text.  pytrec_eval cannot parse
gain parameters (``ndcg.1=3``), so only default gains are compared.
"""

from __future__ import annotations

import math
import random
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankscope

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Query ids must not start with '#' (a comment line in TREC files); document ids may.
QID = st.text(alphabet="qQ019_-", min_size=1, max_size=3)
DOCNO = st.text(alphabet="dD019#-._", min_size=1, max_size=4)
GRADE = st.sampled_from([-1, -2, 0, 0, 1, 1, 2, 3, 12])
SCORE = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5, -1.0]),  # frequent ties
    st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False),
)
# pytrec_eval compares scores in single precision: draw scores that are exact floats
SCORE32 = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5, -1.0]),
    st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False, width=32),
)


@st.composite
def collections(draw, judged_per_query: bool = False, score=SCORE):
    """(qrels, run) as ``{qid: {docno: value}}``; both non-empty."""
    qids = draw(st.lists(QID, min_size=1, max_size=4, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in qids:
        docs = draw(st.lists(DOCNO, min_size=1, max_size=10, unique=True))
        judged: dict[str, int] = {}
        ranked: dict[str, float] = {}
        for d in docs:
            where = draw(st.sampled_from(["both", "both", "both", "qrels", "run", "run"]))
            if where in ("both", "qrels"):
                judged[d] = draw(GRADE)
            if where in ("both", "run"):
                ranked[d] = draw(score)
        if judged_per_query and not any(g >= 0 for g in judged.values()):
            # trec_eval reuses stale grade counts for a query without any grade >= 0
            judged["~judged"] = 0
        if judged:
            qrels[q] = judged
        if ranked:
            run[q] = ranked
    assume(qrels and run)
    return qrels, run


def evaluate_one(qrels, run, measures, **options) -> rankscope.RunEvaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        (result,) = rankscope.evaluate_many(qrels, {"sys": run}, measures, **options)
    return result


def per_query_values(result: rankscope.RunEvaluation) -> dict[tuple[str, str], object]:
    out = {}
    for request, column in zip(result.requests, result.values, strict=True):
        if not request.measure.per_query:
            continue
        for qid, value in zip(result.query_ids, column.tolist(), strict=True):
            out[(qid, request.label)] = value
    return out


def summaries(result: rankscope.RunEvaluation) -> dict[str, object]:
    return {
        r.label: v for r, v in zip(result.requests, result.summary, strict=True) if v is not None
    }


# -- (a) the order of input lines does not matter -------------------------------------------


def qrels_lines(qrels) -> list[str]:
    return [f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()]


def run_lines(run, tag: str = "sys") -> list[str]:
    # the rank column is deliberately meaningless: trec_eval ignores it
    return [
        f"{q} Q0 {d} {i} {s!r} {tag}\n"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]


def all_trec_text(qrels_path: Path, run_path: Path, **options) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        qrels = rankscope.read_qrels(qrels_path)
        run = rankscope.read_run(run_path)
        (result,) = rankscope.evaluate_many(qrels, run, ["all_trec"], **options)
    return rankscope.format_trec(result, per_query=True)


# the ``reader`` fixture is function-scoped: every example runs under one reader, as wanted
# (the compiled reader's run is slow: test_reader_fuzz holds it to the pure-Python one)
@pytest.mark.parametrize(
    "reader", [pytest.param("native", marks=pytest.mark.slow), "python"], indirect=True
)
@SETTINGS
@given(collection=collections(), shuffle_seed=st.integers(0, 2**32 - 1), complete=st.booleans())
def test_shuffled_input_lines_give_identical_output(reader, collection, shuffle_seed, complete):
    qrels, run = collection
    q_lines, r_lines = qrels_lines(qrels), run_lines(run)
    rng = random.Random(shuffle_seed)
    q_shuffled, r_shuffled = q_lines[:], r_lines[:]
    rng.shuffle(q_shuffled)
    rng.shuffle(r_shuffled)
    # the run's name is the tag of its last line: keep it the same
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, lines in [("q", q_lines), ("r", r_lines), ("qs", q_shuffled), ("rs", r_shuffled)]:
            paths[name] = Path(tmp, name)
            paths[name].write_text("".join(lines))
        original = all_trec_text(paths["q"], paths["r"], complete=complete)
        shuffled = all_trec_text(paths["qs"], paths["rs"], complete=complete)
    assert shuffled == original
    assert f"{'runid':<22}\tall\tsys\n" in original


# -- (b) ids relabelled consistently -------------------------------------------------------


@SETTINGS
@given(collection=collections(), data=st.data())
def test_relabelled_ids_give_the_same_values(collection, data):
    qrels, run = collection
    docnos = sorted({d for side in (qrels, run) for docs in side.values() for d in docs})
    # order-preserving renaming of documents, so that ties keep their order
    doc_map = {d: f"doc{i:04d}" for i, d in enumerate(docnos)}
    qids = sorted(set(qrels) | set(run))
    fresh = data.draw(
        st.lists(
            st.text("abcxyz789", min_size=1, max_size=5),
            min_size=len(qids),
            max_size=len(qids),
            unique=True,
        )
    )
    q_map = dict(zip(qids, fresh, strict=True))  # any renaming of queries

    def relabel(side):
        return {q_map[q]: {doc_map[d]: v for d, v in docs.items()} for q, docs in side.items()}

    measures = ["all_trec", "dcg", "ideal_dcg"]
    before = evaluate_one(qrels, run, measures)
    after = evaluate_one(relabel(qrels), relabel(run), measures)
    expected = {(q_map[q], label): v for (q, label), v in per_query_values(before).items()}
    assert per_query_values(after) == expected
    # summaries add the queries in another order: equal up to rounding
    s_before, s_after = summaries(before), summaries(after)
    assert s_after.keys() == s_before.keys()
    for label, value in s_before.items():
        if isinstance(value, str):
            assert s_after[label] == value
        else:
            assert s_after[label] == pytest.approx(value, rel=1e-12, abs=1e-15), label


# -- (c) bounds ------------------------------------------------------------------------------

UNIT = {
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "gm_bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "recall",
    "infAP",
    "Rprec_mult",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "rbp",
    "rbp_resid",
    "unj",
}
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
#: Families that need other judgments than ad hoc qrels, or several runs: bounded in
#: tests/test_properties_bounds.py (diversity also in tests/test_diversity.py).
OTHER_JUDGMENTS = ("preference", "trec_prefs", "judgment_groups", "diversity")
TOLERANCE = 1e-12
OPTIONS = st.sampled_from(
    [
        {},
        {"complete": True},
        {"judged_only": True},
        {"relevance_level": 2},
        {"relevance_level": 0},
        {"max_docs": 3},
        {"ties": "input-order"},
    ]
)


@SETTINGS
@given(collection=collections(), options=OPTIONS)
def test_every_measure_within_its_bounds(collection, options):
    qrels, run = collection
    if "max_docs" in options:
        # known crash when no query is both judged and ranked: see
        # tests/test_measures.py::test_max_docs_when_no_query_is_both_judged_and_ranked
        assume(set(qrels) & set(run))
    measures = ["all_trec", "dcg", "ideal_dcg", "P.1,2,3,50", "recall.1,2,3,50", "success.1,2,3,50"]
    measures += ["SL(k=2)", "ESL(k=2)", "ISL", "TSL", "ASL", "PFR"]
    measures += ["CG@5", "DCGk@5", "nDCGk@5", "ERR@5", "EU", "pFound"]
    measures += ["TBG", "gridRBP", "gridDCG@5", "gridnDCG@5", "Judged@5", "AP(judged_only=True)"]
    result = evaluate_one(qrels, run, measures, **options)
    checked = set()
    by_label = dict(zip([r.label for r in result.requests], result.values, strict=True))
    for request, column in zip(result.requests, result.values, strict=True):
        name = request.measure.name
        for value in column.tolist():
            if name == "Rndcg" and math.isnan(value):
                # trec_eval divides 0 by 0 when every relevant document has gain 0,
                # possible only at relevance level 0 (all judged documents relevant)
                assert options.get("relevance_level") == 0
            elif name in UNIT:
                assert -TOLERANCE <= value <= 1 + TOLERANCE, (request.label, value)
            elif name in COUNTS:
                assert value >= 0 and float(value).is_integer(), (request.label, value)
            elif name == "relstring":
                assert set(value) <= set("0123456789>-."), value
            elif name in ("dcg", "ideal_dcg", "SL", "ESL", "ISL", "TSL", "ASL"):
                assert value >= 0
            elif name in ("PFR", "ndcg_k", "err", "pfound", "grid_rbp", "grid_ndcg", "judged"):
                assert 0 <= value <= 1 + TOLERANCE, (request.label, value)
            elif name in ("cg", "dcg_k", "eu", "grid_dcg", "tbg"):  # not bounded by 1
                assert value >= 0
            elif name in ("utility", "runid", "num_q"):
                pass  # checked below
            else:
                raise AssertionError(f"no bound for {name}")
        checked.add(name)
    assert checked == {m.name for m in rankscope.MEASURES if m.family not in OTHER_JUDGMENTS}

    ret, rel, rel_ret = by_label["num_ret"], by_label["num_rel"], by_label["num_rel_ret"]
    for i in range(len(result.query_ids)):
        assert rel_ret[i] <= min(ret[i], rel[i])
        assert by_label["num_nonrel_judged_ret"][i] + rel_ret[i] <= ret[i]
        # utility with coefficients 1, -1, 0, 0: relevant retrieved - non-relevant retrieved
        assert by_label["utility"][i] == rel_ret[i] - (ret[i] - rel_ret[i])
        assert -ret[i] <= by_label["utility"][i] <= rel_ret[i]
        assert len(by_label["relstring"][i]) == min(10, ret[i])
        assert by_label["success_1"][i] in (0.0, 1.0)
        assert by_label["dcg"][i] <= by_label["ideal_dcg"][i] * (1 + TOLERANCE) + TOLERANCE
        # RBP plus its residual is at most what an all-relevant ranking would get
        assert by_label["rbp"][i] + by_label["rbp_resid"][i] <= 1 + TOLERANCE
        for k in (1, 2, 3, 50):
            hits = by_label[f"P_{k}"][i] * k  # relevant in the top k
            assert abs(hits - round(hits)) < 1e-9 and round(hits) <= min(k, rel_ret[i])
        for small, large in [(1, 2), (2, 3), (3, 50)]:
            assert by_label[f"recall_{small}"][i] <= by_label[f"recall_{large}"][i]
            assert by_label[f"success_{small}"][i] <= by_label[f"success_{large}"][i]
        if rel[i] == 0:
            for label in ("map", "recall_50", "Rprec", "bpref", "infAP", "set_recall"):
                assert by_label[label][i] == 0, label
    assert result.summary_of("num_q") == len(result.query_ids)
    assert result.summary_of("runid") == "sys"


# -- (d) agreement with pytrec_eval (trec_eval's C code) -----------------------------------

CUTOFFS = "1,2,3,5,10,20"
PYTREC_MEASURES = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    f"P.{CUTOFFS}",
    f"recall.{CUTOFFS}",
    "infAP",
    "Rprec_mult.0.2,0.5,1.0,1.5,2.0",
    "utility",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    f"ndcg_cut.{CUTOFFS}",
    f"map_cut.{CUTOFFS}",
    f"relative_P.{CUTOFFS}",
    "success.1,2,5,10",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "iprec_at_recall",
    "11pt_avg",
]
SUMMARY_ONLY = ["gm_map", "gm_bpref"]
RECALL_LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def _c_lround(x: float) -> int:
    return int(math.floor(x + 0.5))


def _levels_agree(num_rel: int) -> list[bool]:
    """Per recall level: do trec_eval 10 (lround) and 9 (floor(x + 0.9)) count alike?"""
    return [_c_lround(f * num_rel) == int(f * num_rel + 0.9) for f in RECALL_LEVELS]


@settings(max_examples=200, deadline=None)
@given(
    collection=collections(judged_per_query=True, score=SCORE32),
    level=st.sampled_from([1, 1, 2, 3]),
    judged_only=st.booleans(),
)
def test_agrees_with_pytrec_eval(collection, level, judged_only):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = collection
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels,
        set(PYTREC_MEASURES + SUMMARY_ONLY),
        relevance_level=level,
        judged_docs_only_flag=judged_only,
    )
    expected = evaluator.evaluate(run)
    result = evaluate_one(
        qrels, run, PYTREC_MEASURES + SUMMARY_ONLY, relevance_level=level, judged_only=judged_only
    )
    got = per_query_values(result)
    assert sorted(expected) == result.query_ids  # the same queries are evaluated
    compared = 0
    for qid, values in expected.items():
        num_rel = int(values["num_rel"])
        agree = _levels_agree(num_rel)
        for label, value in values.items():
            if label in SUMMARY_ONLY:
                continue
            mine = got[(qid, label)]
            if label.startswith("iprec_at_recall_"):
                if math.isnan(value):  # empty ranking: documented as 0
                    assert mine == 0
                    continue
                if not agree[RECALL_LEVELS.index(float(label.rsplit("_", 1)[1]))]:
                    continue
            if label == "11pt_avg" and (math.isnan(value) or not all(agree)):
                continue
            assert mine == value, (qid, label, mine, value)
            compared += 1
    assert compared > 0
    for label in SUMMARY_ONLY:
        logs = [values[label] for values in expected.values()]
        reference = pytrec_eval.compute_aggregated_measure(label, logs)
        assert result.summary_of(label) == pytest.approx(reference, rel=1e-12), label


def test_pytrec_eval_comparison_covers_what_it_claims():
    """The measures compared above are all that pytrec_eval and rankscope share, except the
    text/summary ones documented in the module docstring."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    compared = {rankscope.parse_measures([m])[0].measure.name for m in PYTREC_MEASURES}
    compared |= set(SUMMARY_ONLY)
    shared = set(pytrec_eval.supported_measures) & {m.name for m in rankscope.MEASURES}
    assert shared - compared == {"relstring", "runid", "num_q"}


def test_levels_agree_helper():
    # R = 4: lround(0.3 * 4) = 1 but floor(1.2 + 0.9) = 2; lround(0.5 * 4) = 2 = floor(2.9)
    agree = _levels_agree(4)
    assert agree[RECALL_LEVELS.index(0.3)] is False
    assert agree[RECALL_LEVELS.index(0.5)] is True
