"""nDCG@k builds only the first min(k, most relevant) positions of the ideal ranking (issue
12: a recommender user with thousands of relevant items made a users x thousands matrix for
nDCG@10).  The values must stay trec_eval's: checked against pytrec_eval (trec_eval's C)
on queries with many more relevant documents than the cutoff, and with fewer."""

from __future__ import annotations

import random

import pytest

from rankscope.api import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")


def test_ndcg_cut_matches_trec_eval_whatever_the_number_of_relevant_documents():
    rng = random.Random(12)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        relevant = rng.choice([0, 1, 3, 40, 400])  # fewer and many more than the cutoffs
        docs = [f"d{q}-{i}" for i in range(500)]
        qrels[str(q)] = {d: (rng.choice([1, 2, 3]) if i < relevant else 0)
                         for i, d in enumerate(docs[:450])}  # fmt: skip
        ranked = rng.sample(docs, 60)
        run[str(q)] = {d: float(60 - i) + rng.random() for i, d in enumerate(ranked)}
    cutoffs = (1, 3, 10, 50, 1000)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut." + ",".join(map(str, cutoffs))}
    ).evaluate(run)
    table = evaluate(qrels, run, [f"ndcg_cut.{k}" for k in cutoffs], per_query=True,
                     output="dict")  # fmt: skip
    checked = 0
    for query, measure, value in zip(table["query"], table["measure"], table["value"],
                                     strict=True):  # fmt: skip
        if query != "all":
            assert value == pytest.approx(expected[query][measure], abs=1e-12)
            checked += 1
    assert checked == 30 * len(cutoffs)
