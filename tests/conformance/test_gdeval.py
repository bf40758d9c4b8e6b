"""gdeval.pl conformance: nDCG@k (exponential gain) and ERR@k as the TREC Web track computed
them, on the 2012 ad hoc judgments and the eight baseline runs, for k = 10 and 20.

gdeval prints five decimals; every per-topic value and the ``amean`` row must print the
same.  Its qrels have grades -2 ... 4; the -2 ("junk") documents count as gain 0, which is
what rankscope's negative (pooled, unjudged) grades give.
"""

from __future__ import annotations

import csv

import pytest

from tests.conftest import CONFORMANCE, DATA, need

RUNS = (
    "ql-results-cata",
    "ql-results-cata-filtered",
    "ql-results-catb",
    "ql-results-catb-filtered",
    "rm-results-cata",
    "rm-results-cata-filtered",
    "rm-results-catb",
    "rm-results-catb-filtered",
)
YEAR = DATA / "web2009-2014" / "2012"


def _requests(k: int):
    from rankscope.measures.registry import Registry
    from rankscope.measures.user_models import USER_MODEL_MEASURES

    registry = Registry(USER_MODEL_MEASURES, {})
    return [registry.parse(f"nDCGk(gain=exp)@{k}")[0], registry.parse(f"ERR@{k}")[0]]


@pytest.mark.parametrize("k", [10, 20])
@pytest.mark.parametrize("run", RUNS)
def test_gdeval(run: str, k: int) -> None:
    import rankscope

    expected_file = need(CONFORMANCE / "gdeval" / f"{run}.k{k}.csv")
    qrels = need(YEAR / "qrels.adhoc.txt")
    run_file = need(YEAR / "baseline_runs" / f"{run}.txt.gz")
    with open(expected_file, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["runid", "topic", f"ndcg@{k}", f"err@{k}"]
    expected = {topic: (ndcg, err) for _, topic, ndcg, err in rows[1:]}

    (ev,) = rankscope.evaluate_many(qrels, run_file, _requests(k))
    got = {
        q: (f"{ndcg:.5f}", f"{err:.5f}")
        for q, ndcg, err in zip(ev.query_ids, ev.values[0], ev.values[1], strict=True)
    }
    got["amean"] = (f"{ev.summary[0]:.5f}", f"{ev.summary[1]:.5f}")
    assert set(got) == set(expected)
    wrong = {t: (got[t], expected[t]) for t in expected if got[t] != expected[t]}
    assert not wrong, f"{len(wrong)} of {len(expected)} rows differ: {wrong}"
