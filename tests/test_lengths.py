"""Search-length measures, by hand."""

from __future__ import annotations

import pytest

import rankscope
from rankscope import Ranked, parse_measures


def value(spec: str, ranked: Ranked) -> float:
    return float(parse_measures([spec])[0].compute(ranked)[0])


# ranks 1..5: non-relevant, relevant, not in the qrels, relevant, non-relevant; two more
# relevant documents judged but not retrieved.  R = 4; corpus = 5 retrieved + 2 judged missed.
MIXED = Ranked.from_lists([[0, 1, -1, 1, 0]], judged_grades=[[0, 1, 1, 0, 1, 1]])


@pytest.mark.parametrize(
    "spec,expected",
    [
        ("SL", 2),  # f_1
        ("SL(k=2)", 4),
        ("SL(k=3)", 6),  # unretrieved: 7 - (4 - 3)
        ("SL(k=4)", 7),
        ("SL(k=9)", 7),  # fewer than 9 relevant: the last
        ("ESL", 1),  # f_k - k
        ("ESL(k=2)", 2),
        ("ESL(k=3)", 3),
        ("ESL(k=4)", 3),
        ("ISL", 2),
        ("TSL", 7),
        ("ASL", (2 + 4 + 6 + 7) / 4),
        ("PFR", 4 / 7),
        ("TSL(corpus_size=100)", 100),
        ("SL(k=3,corpus_size=100)", 99),
    ],
)
def test_search_lengths_by_hand(spec, expected):
    assert value(spec, MIXED) == pytest.approx(expected)


def test_seed_identities_when_everything_is_retrieved():
    ranked = Ranked.from_lists([[1, 0, 1, 1]])
    ap = value("AP", ranked)
    assert ap == pytest.approx((1 / 1 + 2 / 3 + 3 / 4) / 3)
    # AP = (1/R) Σ_k k / SL(k) and RR = 1 / SL(1) (seed 000)
    assert ap == pytest.approx(sum(k / value(f"SL(k={k})", ranked) for k in (1, 2, 3)) / 3)
    assert value("RR", ranked) == pytest.approx(1 / value("SL", ranked))
    # seed 000's R-precision (3 / 4) differs from trec_eval's Rprec (2 / 3)
    assert value("PFR", ranked) == pytest.approx(3 / 4)
    assert value("Rprec", ranked) == pytest.approx(2 / 3)


def test_no_relevant_and_empty_rankings():
    none = Ranked.from_lists([[0, 0]], judged_grades=[[0, 0]])
    empty = Ranked.from_lists([[]], judged_grades=[[1]])
    for spec in ("SL", "ESL", "ISL", "TSL", "ASL", "PFR"):
        assert value(spec, none) == 0
    # one relevant document, nothing retrieved: at the bottom of a 1-document corpus
    assert value("ISL", empty) == 1 and value("ESL", empty) == 0


def test_through_evaluate():
    table = rankscope.evaluate(
        {"q": {"a": 1, "b": 1}}, {"r": {"q": {"x": 2.0, "a": 1.0}}}, ["ISL", "TSL"], output="dict"
    )
    # a at rank 2; b unretrieved, at the bottom of a corpus of 2 retrieved + 1 missed = 3
    assert table["value"] == [2.0, 3.0]
