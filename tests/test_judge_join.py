"""`rankscope.judge.join.judge`'s join and order checked against lookups written here: each
ranked document's grade found by its (query, document) pair in a dict of the judgments, the
order of the rows by a plain sort."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from rankscope.judge.join import judge, order_run
from rankscope.judge.judged import NONPOOL, UNJUDGED
from rankscope.model import Run, Vocabulary
from rankscope.read.trec import read_qrels, read_run


@pytest.mark.parametrize("vocabularies", ["scoped", "own"])
def test_grades_found_for_documents_judged_by_one_query_or_several(tmp_path, vocabularies):
    """Most documents are judged for one query (found by the document alone), some for
    several (found by the query and the document); a judgment of -1 is a judged
    document's "unjudged"; a document judged for another query only is not judged here.
    The run's ids coded as the judgments' (``scoped``) or in tables of its own."""
    rng = random.Random(7)
    judgments = {}
    for q in range(12):
        for d in rng.sample(range(300), 40):
            judgments[(f"q{q}", f"d{d}")] = rng.choice([-1, 0, 0, 1, 2, 3])
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in judgments.items()))
    lines = []
    for q in range(14):  # q12 and q13 are not judged
        docs = rng.sample(range(400), 60)
        lines += [f"q{q} Q0 d{d} {r + 1} {100 - r} run\n" for r, d in enumerate(docs)]
    run_path = tmp_path / "run.txt"
    run_path.write_text("".join(lines))
    qrels = read_qrels(qrels_path)
    if vocabularies == "scoped":
        run = read_run(run_path, qrels.queries.scoped(), qrels.docs.scoped())
        assert qrels.docs.shared_codes(run.docs) is not None
    else:
        run = read_run(run_path)
        assert qrels.docs.shared_codes(run.docs) is None
    judged = judge(qrels, run)
    several = {d for (_, d) in judgments if sum(k[1] == d for k in judgments) > 1}
    assert len(several) > 100  # both ways of finding a judgment are taken
    ranked = judged.docs.strings_of(judged.doc)
    grade = judged.grade
    checked = 0
    for i, q in enumerate(judged.query_ids):
        for at in range(judged.offsets[i], judged.offsets[i + 1]):
            expected = judgments.get((q, ranked[at]))
            if expected is None:  # (judged for other queries, or for none)
                assert grade[at] == NONPOOL, (q, ranked[at])
            else:
                assert grade[at] == (expected if expected >= 0 else UNJUDGED), (q, ranked[at])
                checked += 1
    assert checked > 50
    assert any(d in several and (q, d) not in judgments for q, d in zip(
        [q for i, q in enumerate(judged.query_ids) for _ in range(*judged.offsets[i : i + 2])],
        ranked, strict=True,
    ))  # fmt: skip
    counts = {q: [0] * 4 for q in judged.query_ids}
    for (q, _), g in judgments.items():
        if g >= 0 and q in counts:
            counts[q][g] += 1
    assert judged.rel_levels.tolist() == [counts[q] for q in judged.query_ids]


def test_a_nan_score_inside_a_query_has_its_rows_sorted():
    """Rows best first but for a NaN score in the middle of a query are sorted (NaN last),
    not taken as they come."""
    queries, docs = Vocabulary(), Vocabulary()
    q = queries.intern_many(["a", "a", "a", "b", "b"])
    d = docs.intern_many(["x", "y", "z", "x", "w"])
    scores = np.array([3.0, math.nan, 2.0, 5.0, 5.0])
    run = Run("r", queries, docs, q, d, scores)
    order = order_run(run).tolist()
    assert order == [0, 2, 1, 3, 4]  # b's tie: document ids descending, x before w
