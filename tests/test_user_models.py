"""User-model measures (CG, DCGk, nDCGk, ERR, EU, pFound): worked examples of the seed
documents (seed_examples.md rows 1-6, 12, 13, 17, copied here as constants) and edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rankscope.judge import NONPOOL, UNJUDGED, Ranked
from rankscope.measures.registry import Registry
from rankscope.measures.user_models import USER_MODEL_MEASURES

REGISTRY = Registry(USER_MODEL_MEASURES, {})

SEED_RANKING = [3, 2, 3, 0, 1, 2]  # rows 1-6: grades by rank, every document judged


def value(name: str, rankings, judged=None, **params) -> np.ndarray:
    (request,) = REGISTRY.parse(name)
    kwargs = {**request.kwargs, **params}
    return request.measure.kernel(Ranked.from_lists(rankings, judged), **kwargs)


def one(name: str, ranking, judged=None, **params) -> float:
    return float(value(name, [ranking], None if judged is None else [judged], **params)[0])


# -- seed examples ------------------------------------------------------------------------------


def test_row1_cg():
    assert one("CG@6", SEED_RANKING) == 11


def test_rows2_to_4_jarvelin_kekalainen_discount():
    assert one("DCGk(discount=jk)@6", SEED_RANKING) == pytest.approx(8.097171433, abs=1e-9)
    # row 3: the ideal ranking 3,3,2,2,1,0 scored by itself
    assert one("DCGk(discount=jk)@6", [3, 3, 2, 2, 1, 0]) == pytest.approx(8.692536065, abs=1e-9)
    assert one("nDCGk(discount=jk)@6", SEED_RANKING) == pytest.approx(0.931508523, abs=1e-9)
    # base 2 is the default
    assert one("nDCGk(discount=jk,base=2)@6", SEED_RANKING) == one(
        "nDCGk(discount=jk)@6", SEED_RANKING
    )


def test_row5_linear_gain():
    assert one("nDCGk@6", SEED_RANKING) == pytest.approx(0.960808194, abs=1e-9)
    assert one("nDCGk(gain=linear,discount=log2)@6", SEED_RANKING) == one("nDCGk@6", SEED_RANKING)


def test_row6_exponential_gain():
    assert one("nDCGk(gain=exp)@6", SEED_RANKING) == pytest.approx(0.948810749, abs=1e-9)


def test_row12_binary_dcg():
    ranking = [1, 1, 0, 0, 1, 1, 0, 1, 0, 0]
    assert one("DCGk@10", ranking) == pytest.approx(2.689454625, abs=1e-9)


def test_row13_pfound():
    # only the 5th of 5 results relevant, pRel 0.4, pBreak 0.15: 0.85^4 * 0.4
    assert one("pFound", [0, 0, 0, 0, 1]) == pytest.approx(0.2088025, abs=1e-12)
    assert one("pFound(p_break=0.15)", [0, 0, 0, 0, 1], p_rel={1: 0.4}) == pytest.approx(
        0.2088025, abs=1e-12
    )


def test_row17_ideal_from_all_judged_documents():
    # grade 2 at rank 1, grade 3 at rank 3, judged grades {3, 2, 1}
    ranking, judged = [2, NONPOOL, 3], [3, 2, 1]
    assert one("DCGk", ranking, judged) == pytest.approx(3.5, abs=1e-12)
    assert one("nDCGk", ranking, judged) == pytest.approx(0.735006985, abs=1e-9)
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert ideal == pytest.approx(4.761859507, abs=1e-9)
    assert one("nDCGk", ranking, judged) == pytest.approx(3.5 / ideal, abs=1e-12)


# -- the measures' formulas ---------------------------------------------------------------------


def test_err_cascade():
    # R = (2^g - 1) / 16: 3/16 at rank 1, 7/16 at rank 3
    expected = 3 / 16 + (1 - 3 / 16) * (7 / 16) / 3
    assert one("ERR", [2, 0, 3]) == pytest.approx(expected, abs=1e-15)
    assert one("ERR@2", [2, 0, 3]) == pytest.approx(3 / 16, abs=1e-15)
    assert one("ERR(max_grade=3)@1", [2, 0, 3]) == pytest.approx(3 / 8, abs=1e-15)
    # a perfect document of grade max_grade is not quite certain to satisfy: 15/16
    assert one("ERR", [4]) == pytest.approx(15 / 16)
    # grades above max_grade count as max_grade
    assert one("ERR(max_grade=2)", [5]) == one("ERR(max_grade=2)", [2])


def test_eu_stopping_model():
    phi = {0: 0.1, 1: 0.5, 2: 0.8}
    ranking = [2, 0, 1]
    gamma = 0.7
    expected = 2 * 0.8 + 0 + 1 * 0.5 * gamma**2 * (1 - 0.8) * (1 - 0.1)
    got = one("EU(gamma=0.7)", ranking, phi=phi)
    assert got == pytest.approx(expected, abs=1e-15)
    # default phi: 1 - 2^-g for g > 0
    assert one("EU(gamma=0.5)", [1, 2]) == pytest.approx(0.5 + 2 * 0.75 * 0.5 * 0.5)
    # a document outside the judgments stops the user with phi(0)
    assert one("EU", [NONPOOL, 1], phi={0: 0.5, 1: 1.0}) == pytest.approx(0.9 * 0.5)
    assert one("EU@1", [NONPOOL, 1], phi={0: 0.5, 1: 1.0}) == 0.0


def test_pfound_grades_and_break():
    p_rel = {1: 0.2, 2: 0.6}
    expected = 0.6 + 0.85 * 0.4 * 0 + 0.85**2 * 0.4 * 0.2
    assert one("pFound", [2, 0, 1], p_rel=p_rel) == pytest.approx(expected, abs=1e-15)
    assert one("pFound@2", [2, 0, 1], p_rel=p_rel) == pytest.approx(0.6)


def test_cg_and_dcg_gains():
    assert one("CG(gain=exp)@3", [3, 0, 1]) == 8
    assert one("CG", [3, 0, 1], gains={3: 10.0}) == 11
    assert one("DCGk(gain=exp)", [1, 3]) == pytest.approx(1 + 7 / math.log2(3))
    # jk discount with base 3: ranks 1 and 2 undiscounted, rank 9 divided by 2
    ranking = [1, 1] + [0] * 6 + [1]
    assert one("DCGk(discount=jk,base=3)", ranking) == pytest.approx(2.5)


def test_negative_and_unjudged_grades_have_no_gain():
    ranking = [UNJUDGED, 1, NONPOOL]
    assert one("CG", ranking) == 1
    assert one("DCGk", ranking) == pytest.approx(1 / math.log2(3))
    assert one("ERR", ranking) == pytest.approx(1 / 16 / 2)


def test_trec_spelling_cutoffs():
    labels = [r.label for r in REGISTRY.parse("ndcg_k")]
    assert labels == ["ndcg_k_5", "ndcg_k_10", "ndcg_k_20"]
    (request,) = REGISTRY.parse("err.10")
    assert request.kwargs["cutoff"] == 10
    # the ir spelling without @k: the whole ranking
    (request,) = REGISTRY.parse("CG")
    assert request.label == "CG" and request.kwargs["cutoff"] is None


def test_names_do_not_clash_with_the_other_measures():
    from rankscope.measures import MEASURES, NICKNAMES

    others = [m for m in MEASURES if m not in USER_MODEL_MEASURES]
    mine = {m.name for m in USER_MODEL_MEASURES}
    assert not mine & {m.name for m in others}
    combined = Registry([*others, *USER_MODEL_MEASURES], NICKNAMES)
    assert combined.parse("nDCG@10")[0].measure.name == "ndcg_cut"
    assert combined.parse("nDCGk(gain=exp)@10")[0].measure.name == "ndcg_k"
    assert combined.parse("DCG")[0].measure.name == "dcg"


def test_invalid_parameters():
    with pytest.raises(ValueError):
        REGISTRY.parse("nDCGk(gain=cubic)@10")
    with pytest.raises(ValueError):
        REGISTRY.parse("DCGk(discount=ln)")
    with pytest.raises(ValueError):
        REGISTRY.parse("ERR@0")
    with pytest.raises(ValueError):
        one("pFound", [1], p_rel={1: 1.5})
    with pytest.raises(ValueError):
        one("DCGk(discount=jk,base=1)", [1])


# -- edge cases ---------------------------------------------------------------------------------

ALL = [
    "CG@5", "DCGk@5", "nDCGk@5", "nDCGk(gain=exp,discount=jk)@5", "ERR@5", "EU@5", "pFound@5",
    "CG", "DCGk", "nDCGk", "ERR", "EU", "pFound",
]  # fmt: skip


@pytest.mark.parametrize("name", ALL)
def test_empty_ranking_scores_zero(name):
    assert one(name, [], [2, 1]) == 0.0


@pytest.mark.parametrize("name", ALL)
def test_no_relevant_document_scores_zero(name):
    assert one(name, [0, 0, NONPOOL], [0, 0]) == 0.0
    assert one(name, [NONPOOL, NONPOOL], []) == 0.0


@pytest.mark.parametrize("name", ["CG", "DCGk", "nDCGk", "ERR", "EU", "pFound"])
def test_cutoff_beyond_ranking(name):
    ranking, judged = [2, 0, 1], [2, 1, 1, 0]
    assert one(f"{name}@100", ranking, judged) == one(name, ranking, judged)


def test_ndcg_cutoff_beyond_ideal_and_perfect_ranking():
    assert one("nDCGk@10", [2, 1]) == pytest.approx(1.0)
    # the ideal top k uses unretrieved judged documents: 3 relevant, 1 retrieved
    assert one("nDCGk@1", [1], [1, 1, 1]) == pytest.approx(1.0)
    assert one("nDCGk@2", [1], [1, 1, 1]) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_batch_matches_single_queries():
    rankings = [[3, 0, 1], [], [0, 2, NONPOOL, 1], [UNJUDGED, 4]]
    for name in ALL:
        batch = value(name, rankings)
        singles = [one(name, ranking) for ranking in rankings]
        np.testing.assert_allclose(batch, singles, rtol=0, atol=1e-15)


# -- time-biased gain ----------------------------------------------------------------------------

G_REL = 0.64 * 0.77  # P(click | rel) P(save | rel)


def tbg_by_hand(relevant: list[bool], words: list[float], halflife=224.0) -> float:
    """Smucker & Clarke 2012: sum_k g_k exp(-T(k) ln2 / h), written out rank by rank."""
    total, elapsed = 0.0, 0.0
    for rel, w in zip(relevant, words, strict=True):
        if rel:
            total += G_REL * math.exp(-elapsed * math.log(2) / halflife)
        elapsed += 4.4 + (0.64 if rel else 0.39) * (0.018 * w + 7.8)
    return total


def test_tbg_by_hand():
    ranking = [1, 0, NONPOOL, 2, UNJUDGED]
    relevant = [True, False, False, True, False]
    assert one("TBG", ranking) == pytest.approx(tbg_by_hand(relevant, [0] * 5), rel=1e-12)
    assert one("TBG(length=500)", ranking) == pytest.approx(
        tbg_by_hand(relevant, [500] * 5), rel=1e-12
    )
    # written out: rank 1 relevant at time 0; rank 4 after 3 summaries and three reads
    t4 = 3 * 4.4 + 0.64 * 7.8 + 0.39 * 7.8 + 0.39 * 7.8
    assert one("TBG", ranking) == pytest.approx(G_REL * (1 + 2 ** (-t4 / 224)), rel=1e-12)
    assert one("TBG@3", ranking) == pytest.approx(G_REL)
    t4_rel2 = 3 * 4.4 + 3 * 0.39 * 7.8  # rank 1 is not relevant at level 2
    assert one("TBG(rel=2)", ranking) == pytest.approx(G_REL * 2 ** (-t4_rel2 / 224), rel=1e-12)
    assert one("TBG(halflife=1e9)", [1, 1, 1]) == pytest.approx(3 * G_REL)


def test_tbg_with_document_lengths():
    import rankscope

    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "z": 0.5}}
    lengths = {"a": 1200, "b": 300}  # c and z unknown: `length` words (default 0)
    table = rankscope.evaluate(qrels, {"s": run}, ["TBG"], doc_lengths=lengths, output="dict")
    expected = tbg_by_hand([True, False, True, False], [1200, 300, 0, 0])
    assert table["value"][0] == pytest.approx(expected, rel=1e-12)


def test_doc_lengths_file_and_cli(tmp_path, capsys):
    from rankscope.cli import main
    from rankscope.errors import InputError
    from rankscope.read.trec import read_doc_lengths

    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 2 t\nq Q0 b 2 1 t\n")
    (tmp_path / "len").write_text("# words\na 1000\n")
    code = main(["eval", "-m", "TBG", "--doc-lengths", str(tmp_path / "len"),
                 str(tmp_path / "qrels"), str(tmp_path / "run")])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert out.split("\t")[-1].strip() == f"{tbg_by_hand([True, True], [1000, 0]):.4f}"
    (tmp_path / "bad").write_text("a 10\nb ten\n")
    with pytest.raises(InputError, match=r"bad:2: length 'ten' is not a non-negative number"):
        read_doc_lengths(tmp_path / "bad")


# -- grid layouts --------------------------------------------------------------------------------


def test_grid_rbp_by_hand():
    # width 3: ranks 1-3 in row 0, 4-6 in row 1; relevant at ranks 1, 3 and 5
    ranking = [1, 0, 2, NONPOOL, 1, 0]
    p_row, p_col = 0.5, 0.8
    weights = [1, p_col**2, p_row * p_col]  # (row 0, col 0), (0, 2), (1, 1)
    scale = (1 - p_row) * (1 - p_col) / (1 - p_col**3)
    got = one("gridRBP(width=3,p_row=0.5,p_col=0.8)", ranking)
    assert got == pytest.approx(scale * sum(weights), rel=1e-12)
    # p_col = 1: every column alike, the factor is (1 - p_row) / width
    got = one("gridRBP(width=3,p_row=0.5,p_col=1)", ranking)
    assert got == pytest.approx((1 - 0.5) / 3 * (1 + 1 + 0.5), rel=1e-12)


def test_grid_rbp_width_one_is_rbp():
    ranking = [1, 0, 1, 1, NONPOOL, 0, 1]
    rbp = (1 - 0.7) * sum(0.7**i for i, g in enumerate(ranking) if g >= 1)
    assert one("gridRBP(width=1,p_row=0.7)", ranking) == pytest.approx(rbp, rel=1e-12)


def test_grid_dcg_by_hand():
    # width 2: rows 0, 0, 1, 1, 2; discount 1 / log2(row + 2)
    ranking = [2, 0, 1, 3, 1]
    dcg = 2 / 1 + 1 / math.log2(3) + 3 / math.log2(3) + 1 / 2
    assert one("gridDCG(width=2)", ranking) == pytest.approx(dcg, rel=1e-12)
    ideal = (3 + 2) / 1 + (1 + 1) / math.log2(3) + 0 / 2
    assert one("gridnDCG(width=2)", ranking) == pytest.approx(dcg / ideal, rel=1e-12)
    assert one("gridDCG(width=2)@3", ranking) == pytest.approx(2 + 1 / math.log2(3))
    # width 1 is DCG@k
    assert one("gridDCG(width=1)@4", ranking) == pytest.approx(one("DCGk@4", ranking))


@pytest.mark.parametrize("name", ["TBG", "gridRBP", "gridDCG", "gridnDCG"])
def test_new_models_empty_and_without_relevant(name):
    assert one(name, [], [2, 1]) == 0.0
    assert one(name, [0, 0, NONPOOL], [0, 0]) == 0.0
