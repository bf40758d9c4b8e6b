"""Hand-computed values for every measure of `rankscope.MEASURES`.

Every expected value below is worked out by hand from the definitions in trec_eval's
``m_*.c`` files; the arithmetic is written out as an expression next to the value.

The main fixture is a batch of four queries (grades by rank; -1 = not in the qrels,
-2 = in the pool but unjudged):

* X = 2, 0, -1, 1, 0, -2, 1   judged grades of the query: 2, 0, 1, 0, 1, 3, 0
  (ranked: relevant at ranks 1, 4, 7; R = 4 at level 1 (grades 2, 1, 1, 3); judged
  non-relevant N = 3; a non-pool document at rank 3, an unjudged one at rank 6; the
  judged documents graded 3 and 0 are not retrieved)
* Y = 0, 0, 1                 judged: 0, 0, 1, 1  (R = 2, one relevant at rank 3)
* E = (empty ranking)         judged: 1, 0        (R = 1)
* Z = 0, -1, 0                judged: 0, 0        (no relevant document)
"""

from __future__ import annotations

import math
import warnings
from math import log2

import numpy as np
import pytest

import rankscope
from rankscope import Ranked, parse_measures

EPS = 1e-5  # trec_eval's INFAP_EPSILON
MIN_GEO = 1e-5  # trec_eval's MIN_GEO_MEAN

X, X_JUDGED = [2, 0, -1, 1, 0, -2, 1], [2, 0, 1, 0, 1, 3, 0]
Y, Y_JUDGED = [0, 0, 1], [0, 0, 1, 1]
E, E_JUDGED = [], [1, 0]
Z, Z_JUDGED = [0, -1, 0], [0, 0]

# DCG of X: grade 2 at rank 1, grade 1 at ranks 4 and 7; the ideal of X: 3, 2, 1, 1
DCG_X = 2 / log2(2) + 1 / log2(5) + 1 / log2(8)
IDCG_X = 3 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
DCG_Y = 1 / log2(4)  # grade 1 at rank 3
IDCG_Y = 1 / log2(2) + 1 / log2(3)  # ideal 1, 1


def batch(level: int = 1) -> Ranked:
    return Ranked.from_lists(
        [X, Y, E, Z], judged_grades=[X_JUDGED, Y_JUDGED, E_JUDGED, Z_JUDGED], relevance_level=level
    )


def compute(spec: str, ranked: Ranked | None = None) -> list:
    requests = parse_measures([spec])
    assert len(requests) == 1, requests
    return list(requests[0].compute(batch() if ranked is None else ranked))


def close(expected: list) -> object:
    return pytest.approx(expected, rel=1e-12, abs=1e-15)


# infAP terms (j = 0-based rank): 1/(j+1) + (j/(j+1)) * ((rel-1 + nonrel + unjudged)/j)
#                                  * ((rel-1 + eps) / (rel-1 + nonrel + 2 eps))
INFAP_X = (
    1.0  # rank 1
    + (1 / 4 + (3 / 4) * ((1 + 1 + 0) / 3) * ((1 + EPS) / (1 + 1 + 2 * EPS)))  # rank 4
    + (1 / 7 + (6 / 7) * ((2 + 2 + 1) / 6) * ((2 + EPS) / (2 + 2 + 2 * EPS)))  # rank 7
) / 4
INFAP_Y = (1 / 3 + (2 / 3) * ((0 + 2 + 0) / 2) * ((0 + EPS) / (0 + 2 + 2 * EPS))) / 2

CASES = [
    # counts
    ("num_ret", [7, 3, 0, 3]),
    ("num_rel", [4, 2, 1, 0]),
    ("num_rel_ret", [3, 1, 0, 0]),
    # retrieved - non-pool - unjudged - relevant retrieved
    ("num_nonrel_judged_ret", [7 - 1 - 1 - 3, 3 - 0 - 0 - 1, 0, 3 - 1 - 0 - 0]),
    ("map", [(1 / 1 + 2 / 4 + 3 / 7) / 4, (1 / 3) / 2, 0, 0]),
    ("Rprec", [2 / 4, 0 / 2, 0, 0]),  # relevant in the top R
    # bpref: 1 - min(nonrel above, R) / min(N, R) per relevant; non-pool/unjudged skipped
    ("bpref", [(1 + (1 - 1 / 3) + (1 - 2 / 3)) / 4, (1 - 2 / 2) / 2, 0, 0]),
    ("recip_rank", [1 / 1, 1 / 3, 0, 0]),
    # interpolated precision; c = lround(level * R) relevant documents
    ("iprec_at_recall.0", [1.0, 1 / 3, 0, 0]),
    # X: c = lround(0.3 * 4) = 1 -> 1 (trec_eval 9's floor(1.2 + 0.9) = 2 would give 0.5)
    ("iprec_at_recall.0.3", [1.0, 1 / 3, 0, 0]),
    ("iprec_at_recall.0.5", [2 / 4, 1 / 3, 0, 0]),  # X: c = 2: max P from rank 4 = 2/4
    ("iprec_at_recall.0.7", [3 / 7, 1 / 3, 0, 0]),  # X: c = lround(2.8) = 3
    ("iprec_at_recall.1", [0, 0, 0, 0]),  # X: 4 > 3 retrieved; Y: 2 > 1
    ("P.1", [1 / 1, 0 / 1, 0, 0]),
    ("P.5", [2 / 5, 1 / 5, 0, 0]),
    ("P.10", [3 / 10, 1 / 10, 0, 0]),  # k past the end: missing ranks are non-relevant
    ("relstring", ["20-10.1", "001", "", "0-0"]),
    ("relstring.3", ["20-", "001", "", "0-0"]),
    ("recall.5", [2 / 4, 1 / 2, 0, 0]),
    ("recall.10", [3 / 4, 1 / 2, 0, 0]),
    ("infAP", [INFAP_X, INFAP_Y, 0, 0]),
    # k = (long)(m * R + 0.9); P@k (num_rel_ret / k when k > num_ret)
    ("Rprec_mult.0.2", [1 / 1, 0 / 1, 0 / 1, 0]),  # k = 1, 1, 1, 0
    ("Rprec_mult.1.2", [2 / 5, 1 / 3, 0 / 2, 0]),  # k = 5, 3, 2, 0
    ("Rprec_mult.2", [3 / 8, 1 / 4, 0 / 2, 0]),  # k = 8, 4, 2, 0: past the end
    # utility c1*a + c2*b + c3*c + c4*d
    ("utility", [3 - (7 - 3), 1 - (3 - 1), 0, 0 - (3 - 0)]),
    ("utility.2,-1,0,0", [2 * 3 - (7 - 3), 2 * 1 - (3 - 1), 0, -(3 - 0)]),
    ("utility.0,0,1,0", [4 - 3, 2 - 1, 1 - 0, 0]),
    # X, R = 4: points 0, .1 -> c 0; .2, .3 -> 1; .4-.6 -> 2; .7, .8 -> 3; .9, 1 -> 4
    # Y, R = 2: points 0-.2 -> c 0; .3-.7 -> 1; .8-1 -> 2
    (
        "11pt_avg",
        [(2 * 1 + 2 * 1 + 3 * (2 / 4) + 2 * (3 / 7) + 2 * 0) / 11, 8 * (1 / 3) / 11, 0, 0],
    ),
    # 1 / log2(2 + non-relevant above), averaged over R
    (
        "binG",
        [(1 / log2(2 + 0) + 1 / log2(2 + 2) + 1 / log2(2 + 4)) / 4, (1 / log2(2 + 2)) / 2, 0, 0],
    ),
    # gain / log2(2 + cumulative max(ideal gain, 1) - cumulative gain), over total ideal gain
    # X: ideal 3,2,1,1,0,0,0 -> costs 3,5,6,7,8,9,10; gains 2,0,0,1,0,0,1 -> 2,2,2,3,3,3,4
    (
        "G",
        [
            (2 / log2(2 + 3 - 2) + 1 / log2(2 + 7 - 3) + 1 / log2(2 + 10 - 4)) / 7,
            (1 / log2(2 + 3 - 1)) / 2,
            0,
            0,
        ],
    ),
    ("dcg", [DCG_X, DCG_Y, 0, 0]),
    ("ideal_dcg", [IDCG_X, IDCG_Y, 1 / log2(2), 0]),  # built from all judged documents
    ("ndcg", [DCG_X / IDCG_X, DCG_Y / IDCG_Y, 0, 0]),
    # nDCG at each relevant rank, and at the end for the one not retrieved (X: grade 3)
    (
        "ndcg_rel",
        [
            (2 / 3 + (2 + 1 / log2(5)) / IDCG_X + DCG_X / IDCG_X + DCG_X / IDCG_X) / 4,
            (DCG_Y / IDCG_Y + DCG_Y / IDCG_Y) / 2,
            0,
            0,
        ],
    ),
    # nDCG just before each drop of the ideal gain (3->2, 2->1, 1->0) and at the end;
    # Y: one drop (before rank 3, DCG 0), no end point as R + 1 = 3 = num_ret (trec_eval)
    (
        "Rndcg",
        [
            (2 / 3 + 2 / (3 + 2 / log2(3)) + (2 + 1 / log2(5)) / IDCG_X + DCG_X / IDCG_X) / 4,
            0 / 1,
            0,
            0,
        ],
    ),
    ("ndcg_cut.3", [2 / (3 + 2 / log2(3) + 1 / log2(4)), DCG_Y / IDCG_Y, 0, 0]),
    ("ndcg_cut.5", [(2 + 1 / log2(5)) / IDCG_X, DCG_Y / IDCG_Y, 0, 0]),
    ("ndcg_cut.10", [DCG_X / IDCG_X, DCG_Y / IDCG_Y, 0, 0]),  # k past the end
    ("map_cut.3", [(1 / 1) / 4, (1 / 3) / 2, 0, 0]),
    ("map_cut.5", [(1 / 1 + 2 / 4) / 4, (1 / 3) / 2, 0, 0]),
    ("map_cut.10", [(1 / 1 + 2 / 4 + 3 / 7) / 4, (1 / 3) / 2, 0, 0]),
    ("relative_P.3", [1 / min(3, 4), 1 / min(3, 2), 0, 0]),
    ("relative_P.5", [2 / min(5, 4), 1 / min(5, 2), 0, 0]),
    ("relative_P.10", [3 / min(10, 4), 1 / min(10, 2), 0, 0]),
    ("success.1", [1, 0, 0, 0]),
    ("success.2", [1, 0, 0, 0]),
    ("success.3", [1, 1, 0, 0]),
    ("success.10", [1, 1, 0, 0]),
    ("set_P", [3 / 7, 1 / 3, 0, 0]),
    ("set_relative_P", [3 / min(7, 4), 1 / min(3, 2), 0, 0]),
    ("set_recall", [3 / 4, 1 / 2, 0, 0]),
    ("set_map", [(3 * 3) / (7 * 4), (1 * 1) / (3 * 2), 0, 0]),
    (
        "set_F",
        [
            2 * (3 / 7) * (3 / 4) / ((3 / 7) + (3 / 4)),
            2 * (1 / 3) * (1 / 2) / ((1 / 3) + (1 / 2)),
            0,
            0,
        ],
    ),
    (
        "set_F.0.5",
        [
            1.5 * (3 / 7) * (3 / 4) / (0.5 * (3 / 7) + (3 / 4)),
            1.5 * (1 / 3) * (1 / 2) / (0.5 * (1 / 3) + (1 / 2)),
            0,
            0,
        ],
    ),
    # RBP: X's grades 0..3 are normalised to [0, 1] (divided by 3); Y's are 0/1 already
    ("rbp", [0.1 * ((2 / 3) + (1 / 3) * 0.9**3 + (1 / 3) * 0.9**6), 0.1 * (1 * 0.9**2), 0, 0]),
    ("rbp.p=0.5", [0.5 * ((2 / 3) + (1 / 3) * 0.5**3 + (1 / 3) * 0.5**6), 0.5 * 0.5**2, 0, 0]),
    # p^num_ret + (1 - p) * sum of p^(i-1) over unjudged/non-pool ranks i; 0 if none
    ("rbp_resid", [0.9**7 + 0.1 * (0.9**2 + 0.9**5), 0, 0, 0.9**3 + 0.1 * 0.9**1]),
    ("rbp_resid.p=0.5", [0.5**7 + 0.5 * (0.5**2 + 0.5**5), 0, 0, 0.5**3 + 0.5 * 0.5**1]),
    ("unj.5", [1 / 5, 0, 0, 1 / 5]),
    ("unj.10", [2 / 10, 0, 0, 1 / 10]),  # k past the end: missing ranks count as judged
    # Judged@k: judged (grade >= 0) in the top k over k; ranks past the end are not judged
    ("judged.5", [4 / 5, 3 / 5, 0, 2 / 5]),
    ("Judged@10", [5 / 10, 3 / 10, 0, 2 / 10]),
]


@pytest.mark.parametrize("spec,expected", CASES, ids=[c[0] for c in CASES])
def test_hand_computed(spec, expected):
    got = compute(spec)
    if isinstance(expected[0], str):
        assert got == expected
    else:
        assert got == close(expected)


def test_every_measure_has_a_hand_computed_case():
    covered = {parse_measures([spec])[0].measure.name for spec, _ in CASES}
    covered |= {"runid", "num_q", "gm_map", "gm_bpref"}  # summary-only: tested below
    # own test modules: preference methods (test_preferences), search lengths (test_lengths),
    # gain and user-model measures (test_user_models), diversity (test_diversity), trec_eval's
    # preference measures (test_trec_prefs) and judgment-group measures (test_judgment_groups)
    own = ("preference", "lengths", "user_models", "diversity", "trec_prefs", "judgment_groups")
    per_run = {m.name for m in rankscope.MEASURES if m.family not in own}
    assert per_run <= covered


# -- relevance level ---------------------------------------------------------------------

LEVEL2_CASES = [
    # level 2: X's relevant = grades 2 and 3 (R = 2), retrieved only at rank 1; Y, E, Z: R = 0
    ("num_rel", [2, 0, 0, 0]),
    ("num_rel_ret", [1, 0, 0, 0]),
    ("num_nonrel_judged_ret", [7 - 1 - 1 - 1, 3 - 0, 0, 3 - 1]),
    ("map", [(1 / 1) / 2, 0, 0, 0]),
    ("P.5", [1 / 5, 0, 0, 0]),
    ("Rprec", [1 / 2, 0, 0, 0]),
    ("bpref", [1 / 2, 0, 0, 0]),
    ("infAP", [1 / 2, 0, 0, 0]),
    ("recip_rank", [1, 0, 0, 0]),
    # ndcg_cut and ndcg ignore the relevance level
    ("ndcg_cut.5", [(2 + 1 / log2(5)) / IDCG_X, DCG_Y / IDCG_Y, 0, 0]),
    ("ndcg", [DCG_X / IDCG_X, DCG_Y / IDCG_Y, 0, 0]),
]


@pytest.mark.parametrize("spec,expected", LEVEL2_CASES, ids=[c[0] for c in LEVEL2_CASES])
def test_relevance_level_2(spec, expected):
    assert compute(spec, batch(level=2)) == close(expected)


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("P(rel=2)@5", [1 / 5, 0, 0, 0]),
        ("AP(rel=2)", [(1 / 1) / 2, 0, 0, 0]),
        ("R(rel=2)@10", [1 / 2, 0, 0, 0]),
        ("RR(rel=3)", [0, 0, 0, 0]),  # the grade-3 document of X is not retrieved
    ],
)
def test_relevance_level_as_a_parameter(spec, expected):
    """A measure's own ``rel`` overrides the batch's level (here 1)."""
    assert compute(spec) == close(expected)


def test_rndcg_at_level_0_without_positive_gain_is_nan_as_in_trec_eval():
    # level 0: the grade-0 document is relevant (R = 1), so trec_eval does not stop early;
    # but no gain is positive, so no nDCG point is taken and it divides 0 by 0
    ranked = Ranked.from_lists([[0]], judged_grades=[[0]], relevance_level=0)
    (value,) = compute("Rndcg", ranked)
    assert math.isnan(value)


# -- gains -------------------------------------------------------------------------------


def test_ndcg_gain_parameters():
    # grades 1 and 2 with gains 3 and 9; ranking 1, 2
    ranked = Ranked.from_lists([[1, 2]], judged_grades=[[1, 2]])
    dcg = 3 / log2(2) + 9 / log2(3)
    ideal = 9 / log2(2) + 3 / log2(3)
    assert compute("dcg.1=3,2=9", ranked) == close([dcg])
    assert compute("ideal_dcg.1=3,2=9", ranked) == close([ideal])
    assert compute("ndcg.1=3,2=9", ranked) == close([dcg / ideal])


def test_ndcg_negative_gain_counts_in_dcg_not_in_the_ideal():
    # grade 0 given gain -1: ranking 0, 1 -> -1/log2(2) + 1/log2(3); ideal 1/log2(2)
    ranked = Ranked.from_lists([[0, 1]], judged_grades=[[0, 1]])
    assert compute("ndcg.0=-1", ranked) == close([(-1 / log2(2) + 1 / log2(3)) / 1])


def test_ndcg_cut_ignores_gain_parameters_of_ndcg():
    ranked = Ranked.from_lists([[1, 2]], judged_grades=[[1, 2]])
    # linear gain: (1 + 2/log2 3) / (2 + 1/log2 3)
    assert compute("ndcg_cut.2", ranked) == close([(1 + 2 / log2(3)) / (2 + 1 / log2(3))])


def test_rbp_binary_gains_are_not_normalised():
    ranked = Ranked.from_lists([[1, 0, 1]], judged_grades=[[1, 0, 1]])
    assert compute("rbp", ranked) == close([0.1 * (1 + 0.9**2)])
    assert compute("RBP(p=0.8)", ranked) == close([0.2 * (1 + 0.8**2)])


def test_relstring_codes():
    # grade > 9 -> '>', non-pool -> '-', unjudged -> '.'
    ranked = Ranked.from_lists([[12, 9, -1, -2, 0]], judged_grades=[[12, 9, 0]])
    assert compute("relstring", ranked) == [">9-.0"]


def test_infap_with_unjudged_documents_above():
    # 0, 1, -2, 1 with judged 0, 1, 1: rank 2 (j = 1): rel 1, nonrel 1, unjudged 0;
    # rank 4 (j = 3): rel 2, nonrel 1, unjudged 1
    ranked = Ranked.from_lists([[0, 1, -2, 1]], judged_grades=[[0, 1, 1]])
    rank2 = 1 / 2 + (1 / 2) * ((0 + 1 + 0) / 1) * ((0 + EPS) / (0 + 1 + 2 * EPS))
    rank4 = 1 / 4 + (3 / 4) * ((1 + 1 + 1) / 3) * ((1 + EPS) / (1 + 1 + 2 * EPS))
    assert compute("infAP", ranked) == close([(rank2 + rank4) / 2])


def test_bpref_caps_nonrelevant_at_R():
    # R = 1, N = 3: relevant at rank 4 after 3 judged non-relevant: 1 - min(3,1)/min(3,1) = 0
    ranked = Ranked.from_lists([[0, 0, 0, 1]], judged_grades=[[0, 0, 0, 1]])
    assert compute("bpref", ranked) == close([0.0])
    # relevant at rank 1 and 3; one non-relevant in between; R = 2, N = 3
    ranked = Ranked.from_lists([[1, 0, 1]], judged_grades=[[1, 0, 1, 0, 0]])
    assert compute("bpref", ranked) == close([(1 + (1 - 1 / min(3, 2))) / 2])


def test_rndcg_adds_the_end_point_when_the_ranking_is_longer_than_R_plus_one():
    # R = 1 (judged 1, 0); ranking 0, 0, 1: drop 1 -> 0 before rank 2 (nDCG@1 = 0/1), then
    # the end of the ranking (i = 2 < 3): DCG = 1/log2(4), ideal 1
    ranked = Ranked.from_lists([[0, 0, 1]], judged_grades=[[1, 0]])
    assert compute("Rndcg", ranked) == close([(0 / 1 + (1 / log2(4)) / 1) / 2])


# -- summaries (evaluate) -----------------------------------------------------------------

# The batch as dicts: qX, qY, qZ ranked by the run; qE judged but absent from the run.
QRELS = {
    "qX": {"d1": 2, "d2": 0, "d4": 1, "d5": 0, "d6": -1, "d7": 1, "u1": 3, "u2": 0},
    "qY": {"d1": 0, "d2": 0, "d3": 1, "u1": 1},
    "qE": {"u1": 1, "u2": 0},
    "qZ": {"d1": 0, "d3": 0},
}
RUN = {
    "qX": {"d1": 7.0, "d2": 6.0, "d3": 5.0, "d4": 4.0, "d5": 3.0, "d6": 2.0, "d7": 1.0},
    "qY": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
    "qZ": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
}
AP_X = (1 / 1 + 2 / 4 + 3 / 7) / 4
AP_Y = (1 / 3) / 2


def summary(measures, **options) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        table = rankscope.evaluate(
            QRELS, {"sys": RUN}, measures, per_query=False, output="dict", **options
        )
    return dict(zip(table["measure"], table["value"], strict=True))


def per_query(measures, **options) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        table = rankscope.evaluate(QRELS, {"sys": RUN}, measures, output="dict", **options)
    return {
        (q, m): v for q, m, v in zip(table["query"], table["measure"], table["value"], strict=True)
    }


def test_evaluate_matches_the_kernel_values():
    values = per_query(["map", "dcg", "relstring"])
    assert values[("qX", "map")] == pytest.approx(AP_X, rel=1e-12)
    assert values[("qY", "map")] == pytest.approx(AP_Y, rel=1e-12)
    assert values[("qZ", "map")] == 0
    assert values[("qX", "dcg")] == pytest.approx(DCG_X, rel=1e-12)
    assert values[("qX", "relstring")] == "20-10.1"
    assert ("qE", "map") not in values  # judged but not in the run: left out


def test_summaries_without_complete():
    s = summary(["num_q", "num_ret", "num_rel", "map", "gm_map", "gm_bpref"])
    assert s["num_q"] == 3  # qE is left out
    assert s["num_ret"] == 7 + 3 + 3
    assert s["num_rel"] == 4 + 2 + 0
    assert s["map"] == pytest.approx((AP_X + AP_Y + 0) / 3, rel=1e-12)
    # geometric mean with values floored at 1e-5
    gm = math.exp((math.log(AP_X) + math.log(AP_Y) + math.log(MIN_GEO)) / 3)
    assert s["gm_map"] == pytest.approx(gm, rel=1e-12)
    bprefs = [(1 + (1 - 1 / 3) + (1 - 2 / 3)) / 4, MIN_GEO, MIN_GEO]
    assert s["gm_bpref"] == pytest.approx(math.exp(sum(map(math.log, bprefs)) / 3), rel=1e-12)


def test_summaries_with_complete():
    s = summary(["num_q", "num_rel", "num_rel_ret", "map", "gm_map", "P.5"], complete=True)
    assert s["num_q"] == 4  # qE counts, with value 0
    assert s["num_rel"] == 4 + 2 + 1 + 0
    assert s["num_rel_ret"] == 3 + 1 + 0 + 0
    assert s["map"] == pytest.approx((AP_X + AP_Y + 0 + 0) / 4, rel=1e-12)
    assert s["P_5"] == pytest.approx((2 / 5 + 1 / 5 + 0 + 0) / 4, rel=1e-12)
    gm = math.exp((math.log(AP_X) + math.log(AP_Y) + 2 * math.log(MIN_GEO)) / 4)
    assert s["gm_map"] == pytest.approx(gm, rel=1e-12)


def test_complete_num_rel_summary_counts_positive_grades_whatever_the_level():
    # m_num_rel.c: under -c the summary counts qrels lines with grade > 0 in every judged
    # query, ignoring -l: qX 2, 1, 1, 3; qY 1, 1; qE 1; qZ none -> 7
    assert summary(["num_rel"], complete=True, relevance_level=2)["num_rel"] == 4 + 2 + 1 + 0
    # without -c it is the sum of the per-query counts at level 2: qX 2 (grades 2, 3)
    assert summary(["num_rel"], relevance_level=2)["num_rel"] == 2 + 0 + 0


def test_complete_scores_a_missing_query_zero():
    values = per_query(["map", "P.5", "num_ret", "num_rel", "ndcg", "relstring"], complete=True)
    assert values[("qE", "map")] == 0
    assert values[("qE", "P_5")] == 0
    assert values[("qE", "num_ret")] == 0
    assert values[("qE", "num_rel")] == 1  # num_rel keeps its count
    assert values[("qE", "ndcg")] == 0
    assert values[("qE", "relstring")] == ""


def test_complete_ideal_dcg_of_a_missing_query_is_the_ideal_of_its_judgments():
    values = per_query(["ideal_dcg"], complete=True)
    assert values[("qE", "ideal_dcg")] == pytest.approx(1 / log2(2))  # judged grades 1, 0


def test_runid_is_the_run_name():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        (result,) = rankscope.evaluate_many(QRELS, {"sys": RUN}, ["runid", "map"])
    assert result.summary_of("runid") == "sys"
    text = rankscope.format_trec(result)
    assert text.splitlines()[0] == f"{'runid':<22}\tall\tsys"


def test_per_query_lines_print_each_value_as_trec_eval_prints_it():
    """``-q`` lines, formatted column by column, are C's ``%6.4f`` of each value (``-nan`` for
    a NaN with its sign set, as glibc prints it), a count's integer, a text quoted; query
    after query, each query's measures in trec_eval's order; an id's control character
    escaped."""
    import dataclasses

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        (result,) = rankscope.evaluate_many(QRELS, {"sys": RUN}, ["num_ret", "map", "relstring"])
    floats = [np.nan, -np.nan, -0.0, 1 / 32, 3 / 32, 0.00005, 123456.78905, np.inf]
    n = len(floats)
    ids = [f"q{i}" for i in range(n - 1)] + ["q\x1b[31m"]
    columns = {
        "num_ret": np.arange(n) * 7,
        "map": np.array(floats),
        "relstring": np.array([f"r{i}" for i in range(n)], dtype=object),
    }
    shown = dataclasses.replace(
        result, query_ids=ids, values=[columns[r.label] for r in result.requests],
        missing=np.zeros(n, dtype=bool),
    )  # fmt: skip
    text = rankscope.format_trec(shown, per_query=True, summary=False)

    def c_printf(value: float) -> str:  # glibc's %6.4f
        if value != value:
            return f"{'-nan' if np.signbit(value) else 'nan':>6}"
        return "%6.4f" % value  # noqa: UP031 (printf, as trec_eval formats it)

    expected = "".join(
        f"{'num_ret':<22}\t{q}\t{7 * i}\n{'map':<22}\t{q}\t{c_printf(floats[i])}\n"
        f"{'relstring':<22}\t{q}\t'r{i}'\n"
        for i, q in enumerate([*ids[:-1], "q\\x1b[31m"])
    )
    assert text == expected
    assert "  -nan" in text and "   nan" in text and "-0.0000" in text and "0.0312" in text


def test_num_docs_in_utility():
    # utility.0,0,0,1 counts d = N + a - ret - R; with N = 100 for qX: 100 + 3 - 7 - 4
    values = per_query(["utility.0,0,0,1"], num_docs=100)
    assert values[("qX", "utility_0,0,0,1")] == 100 + 3 - 7 - 4
    assert values[("qY", "utility_0,0,0,1")] == 100 + 1 - 3 - 2


# -- options that change the ranking --------------------------------------------------------


def test_judged_only_drops_unjudged_documents():
    # qX without its non-pool (rank 3) and unjudged (rank 6) documents: 2, 0, 1, 0, 1
    values = per_query(
        ["map", "num_ret", "P.5", "unj.5", "num_nonrel_judged_ret"], judged_only=True
    )
    assert values[("qX", "map")] == pytest.approx((1 / 1 + 2 / 3 + 3 / 5) / 4, rel=1e-12)
    assert values[("qX", "num_ret")] == 5
    assert values[("qX", "P_5")] == pytest.approx(3 / 5)
    assert values[("qX", "unj_5")] == 0
    assert values[("qX", "num_nonrel_judged_ret")] == 2
    # qZ keeps 0, 0
    assert values[("qZ", "num_ret")] == 2


def test_judged_only_can_leave_an_empty_ranking():
    qrels = {"q1": {"a": 1}}
    run = {"q1": {"x": 2.0, "y": 1.0}}  # nothing judged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        table = rankscope.evaluate(
            qrels,
            {"r": run},
            ["num_ret", "map", "iprec_at_recall.0", "11pt_avg", "ndcg"],
            judged_only=True,
            output="dict",
        )
    values = dict(zip(table["measure"], table["value"], strict=True))
    # documented policy: 0 (trec_eval prints nan for iprec_at_recall / 11pt_avg here)
    assert values == {
        "num_ret": 0,
        "map": 0,
        "iprec_at_recall_0.00": 0,
        "11pt_avg": 0,
        "ndcg": 0,
    }


def test_max_docs_truncates_each_ranking():
    values = per_query(["map", "num_ret", "relstring"], max_docs=3)
    assert values[("qX", "num_ret")] == 3
    assert values[("qX", "map")] == pytest.approx((1 / 1) / 4, rel=1e-12)
    assert values[("qX", "relstring")] == "20-"
    assert values[("qY", "map")] == pytest.approx(AP_Y, rel=1e-12)


def test_max_docs_when_no_query_is_both_judged_and_ranked():
    # the run ranks only q9, which has no judgments: nothing to evaluate, -M or not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        table = rankscope.evaluate(
            {"q1": {"d1": 1}},
            {"r": {"q9": {"d1": 1.0}}},
            ["num_q", "map"],
            per_query=False,
            max_docs=3,
            output="dict",
        )
    assert dict(zip(table["measure"], table["value"], strict=True)) == {"num_q": 0, "map": 0.0}


# -- ties ----------------------------------------------------------------------------------


def _tied(run, measures, qrels, **options):
    table = rankscope.evaluate(qrels, {"r": run}, measures, output="dict", **options)
    return dict(zip(table["measure"], table["value"], strict=True))


def test_all_scores_tied_are_ordered_by_docno_descending():
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    # c, b, a: the relevant document is last
    values = _tied(run, ["recip_rank", "map", "relstring"], qrels)
    assert values == {"recip_rank": 1 / 3, "map": pytest.approx(1 / 3), "relstring": "001"}
    # a, b, c
    assert _tied(run, ["RR"], qrels, ties="docno-asc") == {"RR": 1.0}


def test_ties_compare_docnos_as_strings():
    # strcmp order: "9" > "100" > "10" (a prefix sorts first), so descending gives 9, 100, 10
    qrels = {"q": {"10": 1, "100": 0, "9": 0}}
    run = {"q": {"100": 0.5, "10": 0.5, "9": 0.5}}
    assert _tied(run, ["RR", "relstring"], qrels) == {"RR": 1 / 3, "relstring": "001"}


def test_partial_ties_only_reorder_the_tied_block():
    qrels = {"q": {"b": 1}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 1.0, "d": 0.5}}
    # a, then the tie c, b, then d
    assert _tied(run, ["RR"], qrels) == {"RR": 1 / 3}
    assert _tied(run, ["RR"], qrels, ties="docno-asc") == {"RR": 1 / 2}


def test_input_order_ties_follow_the_input():
    qrels = {"q": {"b": 1}}
    run = {"q": {"c": 1.0, "b": 1.0, "a": 1.0}}
    assert _tied(run, ["RR"], qrels, ties="input-order") == {"RR": 1 / 2}
    assert _tied(run, ["RR"], qrels) == {"RR": 1 / 2}  # docno-desc: c, b, a as well
    run = {"q": {"b": 1.0, "c": 1.0, "a": 1.0}}
    assert _tied(run, ["RR"], qrels, ties="input-order") == {"RR": 1.0}
    assert _tied(run, ["RR"], qrels) == {"RR": 1 / 2}


def test_rank_order_comes_from_scores_not_from_input_order():
    qrels = {"q": {"a": 1}}
    run = {"q": {"b": 1.0, "c": 3.0, "a": 2.0}}  # c, a, b
    assert _tied(run, ["RR"], qrels) == {"RR": 1 / 2}


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["P@0", "nDCG@0", "P@-1"])
def test_non_positive_cutoffs_are_rejected(spec):
    with pytest.raises(ValueError, match="cutoff"), warnings.catch_warnings():
        warnings.simplefilter("ignore", rankscope.RankscopeWarning)
        rankscope.evaluate(QRELS, {"sys": RUN}, [spec], output="dict")


def test_trec_spelling_rejects_zero_cutoff():
    with pytest.raises(ValueError, match="positive"):
        parse_measures(["P.0"])


# -- condensed lists (judged_only per measure) -------------------------------------------


def test_condensed_list_per_measure():
    """``judged_only=True`` drops the unjudged documents before this measure only (Sakai
    2007); X condensed is 2, 0, 1, 0, 1 (the non-pool rank 3 and unjudged rank 6 removed)."""
    qrels = {"X": {"a": 2, "b": 0, "d": 1, "e": 0, "f": -1, "g": 1, "h": 3}}
    run = {"X": {"a": 7, "b": 6, "c": 5, "d": 4, "e": 3, "f": 2, "g": 1}}
    names = ["P@5", "P(judged_only=True)@5", "RR(judged_only=true)"]
    table = rankscope.evaluate(qrels, {"r": run}, names, output="dict")
    got = dict(zip(table["measure"], table["value"], strict=True))
    assert got["P@5"] == 2 / 5
    assert got["P(judged_only=True)@5"] == 3 / 5
    plain = parse_measures(["P(judged_only=False)@5"])[0]
    assert plain == parse_measures(["P@5"])[0]  # the same request
    assert got["RR(judged_only=true)"] == 1.0


def test_condensed_request_equals_global_judged_only():
    qrels = {"q": {"a": 1, "b": 0, "c": 2}, "r": {"x": 1}}
    run = {"q": {"z": 3, "a": 2, "y": 1.5, "c": 1}, "r": {"w": 2, "x": 1}}
    one = rankscope.evaluate(qrels, {"s": run}, ["nDCG(judged_only=True)@2"], output="dict")
    every = rankscope.evaluate(qrels, {"s": run}, ["nDCG@2"], judged_only=True, output="dict")
    assert one["value"] == every["value"]
    assert one["value"][1] == 1.0  # r: x alone at rank 1 once w is dropped


def test_condensed_flag_must_be_boolean():
    with pytest.raises(ValueError, match="judged_only must be True or False"):
        parse_measures(["P(judged_only=maybe)@5"])


def test_request_is_a_value():
    """A request is equal to, and hashes as, another naming the same measure with the same
    parameters, however spelled; different parameters differ; its repr is its label."""
    first, again = parse_measures(["nDCG@10"])[0], parse_measures(["nDCG@10"])[0]
    assert first == again and hash(first) == hash(again)
    assert first != parse_measures(["nDCG@20"])[0]
    assert parse_measures(["P_10"])[0] == parse_measures(["P@10"])[0]
    assert parse_measures(["P(rel=2)@10"])[0] != parse_measures(["P@10"])[0]
    assert parse_measures(["P(judged_only=True)@10"])[0] != parse_measures(["P@10"])[0]
    assert {first: 1}[again] == 1 and len({first, again}) == 1
    assert repr(first) == "nDCG@10"


def test_a_measure_asked_twice_is_printed_once():
    """Two spellings of one request are one column."""
    table = rankscope.evaluate(
        {"q": {"a": 1}}, {"r": {"q": {"a": 1.0}}}, ["P@5", "P@5", "P_5"], output="dict"
    )
    assert table["measure"] == ["P@5"]
