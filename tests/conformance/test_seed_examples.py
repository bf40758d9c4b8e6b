"""Worked examples of the seed documents (../shared/conformance/seed_examples.md).

The expected figures are read from the table itself, both the exact value (given to nine
decimals) and the figure the document prints (to one unit of its last printed digit: the
documents round or truncate).  Rows 2-4, 6-8, 13, 18 and 19 concern measures rankscope
does not have yet; row 1 (CG@6) has no counterpart among trec_eval's measures.
"""

from __future__ import annotations

import re
import warnings
from functools import cache

import pytest

import rankscope
from rankscope import Ranked, parse_measures
from tests.conftest import CONFORMANCE, need

SEED_EXAMPLES = CONFORMANCE / "seed_examples.md"


@cache
def _table() -> dict[int, dict[str, str]]:
    rows = {}
    for line in SEED_EXAMPLES.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].isdigit():
            number, source, given, measure, printed, exact = cells
            rows[int(number)] = {
                "input": given,
                "measure": measure,
                "printed": printed,
                "exact": exact,
            }
    return rows


def row(number: int) -> dict[str, str]:
    need(SEED_EXAMPLES)
    rows = _table()
    assert number in rows, f"row {number} not found in {SEED_EXAMPLES}"
    return rows[number]


def exact_values(number: int) -> list[float]:
    """The 'exact' column: values separated by ' / ', each possibly written 'a/b = x'."""
    return [float(part.split("=")[-1]) for part in row(number)["exact"].split(" / ")]


def printed_values(number: int) -> list[str]:
    return [p.strip() for p in row(number)["printed"].split(" / ")]


def assert_exact(value: float, expected: float) -> None:
    # the table gives nine decimals
    assert value == pytest.approx(expected, abs=1e-9)


def assert_printed(value: float, printed: str) -> None:
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    assert abs(value - float(printed)) < 10.0**-decimals, (value, printed)


def kernel(spec: str, rankings, judged) -> list[float]:
    (request,) = parse_measures([spec])
    return list(request.compute(Ranked.from_lists(rankings, judged_grades=judged)))


def ranking_with_relevant_at(ranks: list[int], length: int) -> list[int]:
    return [1 if r in ranks else 0 for r in range(1, length + 1)]


# rows 9 and 10: the two queries of the AP example
ROW9 = ranking_with_relevant_at([1, 3, 6, 9, 10], 10)  # 5 relevant in all
ROW10 = ranking_with_relevant_at([2, 5, 7], 10)  # 3 relevant in all


def test_row_9_average_precision():
    assert re.search(r"1,\s*3,\s*6,\s*9,\s*10", row(9)["input"])
    (ap,) = kernel("map", [ROW9], [[1] * 5 + [0] * 5])
    (expected,) = exact_values(9)
    assert_exact(ap, expected)
    assert_printed(ap, printed_values(9)[0])


def test_row_10_average_precision():
    assert re.search(r"2,\s*5,\s*7", row(10)["input"])
    (ap,) = kernel("map", [ROW10], [[1] * 3 + [0] * 7])
    (expected,) = exact_values(10)
    assert_exact(ap, expected)
    assert_printed(ap, printed_values(10)[0])


def test_row_11_mean_average_precision():
    def as_run(grades):
        return {f"d{i:02d}": float(len(grades) - i) for i in range(len(grades))}

    qrels = {
        "q1": {d: g for d, g in zip(as_run(ROW9), ROW9, strict=True)},
        "q2": {d: g for d, g in zip(as_run(ROW10), ROW10, strict=True)},
    }
    run = {"q1": as_run(ROW9), "q2": as_run(ROW10)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankscope.RankscopeWarning)  # nothing one-sided here
        table = rankscope.evaluate(qrels, {"sys": run}, ["map"], per_query=False, output="dict")
    (value,) = table["value"]
    (expected,) = exact_values(11)
    assert_exact(value, expected)
    assert_printed(value, printed_values(11)[0])


def test_row_12_binary_dcg_at_10():
    grades = [1 if c == "R" else 0 for c in "R,R,N,N,R,R,N,R,N,N".split(",")]
    assert "R,R,N,N,R,R,N,R,N,N" in row(12)["input"]
    (dcg,) = kernel("dcg", [grades], [grades])
    (expected,) = exact_values(12)
    assert_exact(dcg, expected)
    # the printed per-rank gains: DCG of each prefix minus DCG of the one before
    printed = row(12)["printed"].removeprefix("gains").split(",")
    prefix = [kernel("dcg", [grades[:k]], [grades])[0] for k in range(len(printed) + 1)]
    for k, text in enumerate(printed, start=1):
        assert_printed(prefix[k] - prefix[k - 1], text.strip())


def test_row_14_average_precision():
    (ap,) = kernel("map", [[1, 0, 1]], [[1, 0, 1, 1]])  # relevant at ranks 1 and 3, R = 3
    (expected,) = exact_values(14)
    assert_exact(ap, expected)
    assert_printed(ap, printed_values(14)[0])


def test_row_15_precision_and_recall():
    ranking, judged = [1, 0, 1, 0], [1, 0, 1, 0, 1]  # 4 retrieved, 2 relevant, R = 3
    expected_p, expected_r = exact_values(15)
    printed_p, printed_r = printed_values(15)
    for p_spec, r_spec in [("set_P", "set_recall"), ("P.4", "recall.4"), ("P@4", "R@4")]:
        (p,) = kernel(p_spec, [ranking], [judged])
        (r,) = kernel(r_spec, [ranking], [judged])
        assert_exact(p, expected_p)
        assert_exact(r, expected_r)
        assert_printed(p, printed_p)
        assert_printed(r, printed_r)


def test_row_16_reciprocal_rank():
    first, third = kernel("recip_rank", [[1, 0, 0], [0, 0, 1]], [[1, 0, 0], [0, 0, 1]])
    expected_first, expected_third = exact_values(16)
    printed_first, printed_third = printed_values(16)
    assert_exact(first, expected_first)
    assert_exact(third, expected_third)
    assert_printed(first, printed_first)
    assert_printed(third, printed_third)


def test_row_17_dcg_ideal_dcg_ndcg():
    # grade 2 at rank 1, a document outside the judgments at rank 2, grade 3 at rank 3;
    # the ideal ranking is built from all judged grades {3, 2, 1}
    ranking, judged = [2, -1, 3], [3, 2, 1]
    values = [kernel(m, [ranking], [judged])[0] for m in ("dcg", "ideal_dcg", "ndcg")]
    for value, expected, printed in zip(values, exact_values(17), printed_values(17), strict=True):
        assert_exact(value, expected)
        assert_printed(value, printed)


@pytest.mark.parametrize("spec", ["ndcg_cut.6", "nDCG@6", "ndcg"])
def test_row_5_ndcg_at_6_linear_gain(spec):
    assert "3,2,3,0,1,2" in row(5)["input"]
    grades = [3, 2, 3, 0, 1, 2]
    (value,) = kernel(spec, [grades], [grades])  # the ideal: the same grades, sorted
    (expected,) = exact_values(5)
    assert_exact(value, expected)
