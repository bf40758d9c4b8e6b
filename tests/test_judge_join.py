"""`rankscope.judge.join.judge`'s join and order checked against lookups written here: each
ranked document's grade found by its (query, document) pair in a dict of the judgments, the
order of the rows by a plain sort."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from rankscope.judge import join
from rankscope.judge.join import judge, order_run
from rankscope.judge.judged import NONPOOL, UNJUDGED, Ranked
from rankscope.measures.gains import ideal_gains
from rankscope.model import Run, Vocabulary
from rankscope.read.trec import read_qrels, read_run


@pytest.mark.parametrize("vocabularies", ["scoped", "own"])
def test_grades_found_for_documents_judged_by_one_query_or_several(
    tmp_path, vocabularies, reader
):
    """Most documents are judged for one query (found by the document alone), some for
    several (found by the query and the document); a judgment of -1 is a judged
    document's "unjudged"; a document judged for another query only is not judged here.
    The run's ids coded as the judgments' (``scoped``) or in tables of its own; the
    compiled passes (reader and judge) and numpy's."""
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


# --- the compiled passes (judge/_join.c) against numpy's -------------------------------


def _random_run(rng: np.random.Generator, rows: int, queries: int) -> Run:
    """Rows of ``queries`` queries in runs of lines (a query may come back later), scores
    from few values (ties), a NaN now and then, some queries not best first."""
    query_vocabulary, doc_vocabulary = Vocabulary(), Vocabulary()
    q = query_vocabulary.intern_many([f"q{i}" for i in np.sort(rng.integers(0, queries, rows))])
    if rows > 3 and rng.random() < 0.5:  # a query split in two
        q = np.roll(q, rows // 3)
    d = doc_vocabulary.intern_many([f"d{i}" for i in rng.integers(0, 5 * rows + 1, rows)])
    s = np.round(rng.random(rows) * 4) / 4
    order = np.lexsort((-s, q)) if rng.random() < 0.7 else np.arange(rows)
    q, d, s = q[order], d[order], s[order]
    if rows and rng.random() < 0.2:
        s[rng.integers(0, rows)] = math.nan
    return Run("r", query_vocabulary, doc_vocabulary, q, d, s)


@pytest.mark.skipif(join._join is None, reason="the judge's compiled passes are not built")
@pytest.mark.parametrize("seed", range(40))
def test_compiled_passes_give_numpy_s_results(seed, monkeypatch):
    """The query starts, the best-first check, the tied rows, the ranked documents and the
    judged candidates of the compiled passes are numpy's, on runs with ties, NaN scores,
    queries out of order or split, one row, none."""
    rng = np.random.default_rng(seed)
    rows = [0, 1, 2, 7][seed] if seed < 4 else int(rng.integers(3, 400))
    run = _random_run(rng, rows, int(rng.integers(1, 12)))
    keys = rng.permutation(len(run.queries)) - int(rng.integers(0, 3))  # some queries out

    def passes() -> tuple:
        facts = join._RankedFacts(run)
        ranking = join._rank_rows(run, keys, "docno-desc", facts)
        return facts.starts, facts.best_first, facts.tied(), ranking.take(run.doc)

    compiled = passes()
    monkeypatch.setenv("RANKSCOPE_PURE_PYTHON", "1")
    plain = passes()
    assert compiled[1] == plain[1]
    for a, b in zip(compiled, plain, strict=True):
        assert np.array_equal(a, b)
    assert np.array_equal(plain[0], np.flatnonzero(np.r_[True, np.diff(run.query) != 0])[: rows])

    judged = np.zeros(4 * rows + 2, dtype=bool)
    judged[rng.integers(0, len(judged), rows)] = True
    docs = np.asarray(rng.integers(-1, 5 * rows + 2, rows), dtype=np.int32)
    shared = int(rng.integers(0, len(judged) + 1))
    found = np.frombuffer(join._join.candidates(docs, shared, judged), dtype=np.int64)
    expected = [i for i, x in enumerate(docs.tolist()) if 0 <= x < shared and judged[x]]
    assert found.tolist() == expected


@pytest.mark.skipif(join._join is None, reason="the judge's compiled passes are not built")
def test_compiled_passes_refuse_what_does_not_fit():
    """Arrays of the wrong kind or length, or pieces outside the column: an error, not a
    read outside them."""
    kernel = join._join
    q, s = np.zeros(3, dtype=np.int32), np.zeros(3)
    with pytest.raises(ValueError, match="same length"):
        kernel.ranked_facts(q, s[:2])
    with pytest.raises(ValueError, match="4-byte"):
        kernel.ranked_facts(q.astype(np.int64), s)
    column, out = np.arange(5, dtype=np.int32), np.empty(3, dtype=np.int32)
    one = np.ones(1, dtype=np.int64)
    with pytest.raises(ValueError, match="outside"):
        kernel.pieces(column, one * 4, one * 3, out)
    with pytest.raises(ValueError, match="as long as"):
        kernel.pieces(column, one, one * 2, out)
    kernel.pieces(column, np.array([3, 0]), np.array([2, 1]), out)
    assert out.tolist() == [3, 4, 0]
    with pytest.raises(ValueError, match="each shared code"):
        kernel.candidates(q, 9, np.zeros(4, dtype=bool))
    row_of_doc, query_of_row = np.array([1, -2, 0]), np.array([4, 7], dtype=np.int32)
    with pytest.raises(ValueError, match="outside the tables"):
        kernel.judged_rows(one, np.array([3], dtype=np.int32), row_of_doc, query_of_row)
    with pytest.raises(ValueError, match="outside the tables"):
        kernel.judged_rows(one, np.array([0], dtype=np.int32), row_of_doc * 5, query_of_row)
    rows = kernel.judged_rows(
        np.array([7, 4, 4, 7]), np.array([0, 0, 1, 2], dtype=np.int32), row_of_doc,
        query_of_row,
    )  # fmt: skip
    assert np.frombuffer(rows, dtype=np.int64).tolist() == [1, -1, -2, -1]


def test_ideal_gains_are_each_query_s_judged_gains_best_first():
    """`ideal_gains`: every judged document's positive gain, largest first, in the first
    columns of its query's row (cut at ``width``), zeros after; written out by hand."""
    ranked = Ranked.from_lists(
        [[], [], []], judged_grades=[[1, 3, 1, 0], [0, 0, 0], [2, 2, 2, 2, 2]]
    )
    assert ideal_gains(ranked, None).tolist() == [
        [3, 1, 1, 0, 0], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2],
    ]  # fmt: skip
    assert ideal_gains(ranked, None, 2).tolist() == [[3, 1], [0, 0], [2, 2]]
    assert ideal_gains(ranked, None, 7)[0].tolist() == [3, 1, 1, 0, 0, 0, 0]
    gains = {1: 0.5, 2: 3.0, 3: 1.0}
    assert ideal_gains(ranked, gains).tolist() == [
        [1.0, 0.5, 0.5, 0, 0], [0, 0, 0, 0, 0], [3, 3, 3, 3, 3],
    ]  # fmt: skip
    # (a grade not given keeps its own gain; a negative gain is no gain)
    assert ideal_gains(ranked, {0: 2.0, 3: -1.0}).tolist() == [
        [2, 1, 1, 0, 0], [2, 2, 2, 0, 0], [2, 2, 2, 2, 2],
    ]  # fmt: skip
